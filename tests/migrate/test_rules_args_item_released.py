"""An item of the argument tuple kept in a local that takes a reference
of its own and releases it, ``s = PyTuple_GET_ITEM(args, 0);
Py_INCREF(s); ... Py_DECREF(s);`` (cbor2's ``loads``): the increment
went (the item became a handle), and the argument-array rule then made
it ``s = args[0];``, the caller's handle, which the release dropped
(debug mode: "Cystck_Drop: the handle is not owned by this call").  Such
a local gets a handle of its own, ``s = Cystck_Dup(S, args[0]);``.  Stock
and translated builds answer alike, release and debug."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>

static PyObject *
first_twice(PyObject *self, PyObject *args)
{
    PyObject *s, *ret;
    if (PyTuple_GET_SIZE(args) < 1) {
        PyErr_SetString(PyExc_TypeError, "one argument at least");
        return NULL;
    }
    s = PyTuple_GET_ITEM(args, 0);
    Py_INCREF(s);
    ret = PyNumber_Add(s, s);
    Py_DECREF(s);
    return ret;
}

static PyObject *
second(PyObject *self, PyObject *args)
{
    PyObject *t;
    if (PyTuple_GET_SIZE(args) < 2) {
        PyErr_SetString(PyExc_TypeError, "two arguments at least");
        return NULL;
    }
    t = PyTuple_GET_ITEM(args, 1);
    return PyObject_Repr(t);
}

static PyMethodDef methods[] = {
    {"first_twice", first_twice, METH_VARARGS, NULL},
    {"second", second, METH_VARARGS, NULL},
    {NULL}
};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "argitem", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_argitem(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_an_item_released_later_gets_a_handle_of_its_own():
    out = translate.translate_source(SRC, "argitem.c")
    assert "s = Cystck_Dup(S, args[0]);" in out
    assert "t = args[1];" in out       # never released: the caller's handle will do


def test_translation_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("argitem", SRC, "print(repr([m.first_twice(2), m.first_twice('ab', 1), m.second(1, 'x'), "
                                         "outcome(m.first_twice)]))\n")
    assert want[:3] == [4, "abab", "'x'"]
