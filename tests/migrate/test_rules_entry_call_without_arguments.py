"""A helper that makes an object by calling the type's ``tp_new``
directly with no arguments, ``self = Foo_new(type, NULL, NULL);``, was
left as a direct call of an entry point (a push count where a handle is
expected, NULL where an argument array and its length are): a build
error.  The call now passes an empty argument array and no keywords and
takes the value it pushed (``Cystck_PopResult``).  Stock and
translated builds answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject_HEAD long v; } Box;

static PyTypeObject BoxType;

static PyObject *
Box_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    return type->tp_alloc(type, 0);
}

static PyObject *
box_of(PyTypeObject *type, long v)
{
    PyObject *self;
    self = Box_new(type, NULL, NULL);
    if (self == NULL)
        return NULL;
    ((Box *)self)->v = v;
    return self;
}

static PyObject *
Box_twice(Box *self, PyObject *unused)
{
    return box_of(&BoxType, 2 * self->v);
}

static PyObject *
Box_value(Box *self, PyObject *unused)
{
    return PyLong_FromLong(self->v);
}

static PyMethodDef Box_methods[] = {
    {"twice", (PyCFunction)Box_twice, METH_NOARGS, NULL},
    {"value", (PyCFunction)Box_value, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "entrynew.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Box_methods,
    .tp_new = Box_new,
};

static PyObject *
make(PyObject *module, PyObject *arg)
{
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    return box_of(&BoxType, v);
}

static PyMethodDef methods[] = {
    {"make", make, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "entrynew", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_entrynew(void)
{
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    return PyModule_Create(&moddef);
}
'''


def test_a_direct_call_with_no_arguments_passes_an_empty_array():
    out = translate.translate_source(SRC, "entrynew.c")
    assert "self = Cystck_PopResult(S, Box_new(S, type, NULL, 0, Cystck_NULL));" in out
    assert "direct call of entry point" not in "".join(n.message for n in
                                                     translate.translate_files({"entrynew.c": SRC})["entrynew.c"].notes)


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("entrynew", SRC, "b = m.make(21)\nprint(repr([b.value(), b.twice().value(), outcome(m.make, 'x')]))\n")
    assert want[:2] == [21, 42]
