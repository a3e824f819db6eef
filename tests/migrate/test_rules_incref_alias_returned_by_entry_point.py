"""``Py_INCREF(tag); ret = tag; ... Py_DECREF(tag); return ret;`` in an
entry point (cbor2's ``decode_simple_value``): the alias ``ret`` takes a
reference of its own, which it returns.  The incref rule gives such an
alias a handle of its own where it is released or returned later, but
looked for ``return ret;``, which the returns rule had already made
``return Cystck_Return(S, ret);``: the increment went, ``ret`` stayed
the handle the release then dropped, and the entry point returned a
released handle (SystemError).  Now ``ret = Cystck_Dup(S, tag);``.
Stock and translated builds answer alike, release and debug."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>

static PyObject *
make(PyObject *self, PyObject *value)
{
    PyObject *tag, *ret = NULL;
    tag = PyTuple_New(1);
    if (tag) {
        Py_INCREF(value);
        PyTuple_SET_ITEM(tag, 0, value);
        if (PyTuple_GET_ITEM(tag, 0)) {
            Py_INCREF(tag);
            ret = tag;
        }
        Py_DECREF(tag);
    }
    return ret;
}

static PyMethodDef methods[] = {{"make", make, METH_O, NULL}, {NULL}};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "aliasret", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_aliasret(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_an_alias_returned_by_an_entry_point_gets_a_handle_of_its_own():
    out = translate.translate_source(SRC, "aliasret.c")
    assert "ret = Cystck_Dup(S, tag);" in out


def test_translation_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("aliasret", SRC, "print(repr([m.make(i) for i in range(3)]))\n")
    assert want == [(0,), (1,), (2,)]
