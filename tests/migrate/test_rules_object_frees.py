"""``PyObject_Free(self)`` of a half-made instance on an error path
(``if (parse(self, arg) < 0) { PyObject_Free(self); return -1; }``)
became ``CystckObject_Free(S, self)``, a handle where a memory block is
expected: a build error.  The object-frees rule removes it (the runtime
releases the object with its last handle, running its destructor) and
reports it; native frees stay.  Stock and translated builds answer
alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject_HEAD long *buf; } Box;

static PyTypeObject BoxType;

static void
Box_dealloc(Box *self)
{
    PyMem_Free(self->buf);
    PyObject_Free(self);
}

static int
parse(Box *self, PyObject *arg)
{
    long v = PyLong_AsLong(arg);
    if (v < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "negative");
        PyObject_Free(self);
        return -1;
    }
    self->buf = PyMem_Malloc(sizeof(long));
    if (self->buf == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *self->buf = v;
    return 0;
}

static PyObject *
Box_value(Box *self, PyObject *unused)
{
    return PyLong_FromLong(*self->buf);
}

static PyMethodDef Box_methods[] = {
    {"value", (PyCFunction)Box_value, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "objfree.Box",
    .tp_basicsize = sizeof(Box),
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Box_methods,
};

static PyObject *
make(PyObject *module, PyObject *arg)
{
    Box *self = PyObject_New(Box, &BoxType);
    if (self == NULL)
        return NULL;
    self->buf = NULL;
    if (parse(self, arg) < 0)
        return NULL;
    return (PyObject *)self;
}

static PyMethodDef methods[] = {
    {"make", make, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "objfree", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_objfree(void)
{
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    return PyModule_Create(&moddef);
}
'''


def test_the_free_of_a_handle_goes_and_is_reported():
    unit = translate.translate_files({"objfree.c": SRC})["objfree.c"]
    assert "PyObject_Free(self) went: the runtime releases the object" in unit.text
    assert "CystckObject_Free(S, self)" not in unit.text
    assert any(n.rule == "object-frees" for n in unit.notes)


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("objfree", SRC, "print(repr([outcome(lambda a: m.make(a).value(), a) for a in (5, -1, 'x', 9)]))\n")
    assert want[:2] == [5, ("ValueError", "negative")] and want[3] == 9
