"""A destructor whose calls of the API cannot move to a finalizer (they
share a local with its native release: ``int err = release(self->buf);
if (err) PyErr_SetString(PyExc_IOError, ...);``) stays a destructor, with
no state, and those calls stay stock calls (reported).  The constants
rule still made their exception ``CystckExc_OSError``, a handle where
CPython's ``PyObject *`` is expected: the build failed.  A function
without the state now keeps CPython's constants; the translation builds
and behaves like the stock build, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

typedef struct { PyObject_HEAD char *buf; } Box;

static int release(char *buf) { free(buf); return buf == NULL; }

static PyObject *
Box_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Box *self = (Box *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->buf = malloc(8);
    return (PyObject *)self;
}

static void
Box_dealloc(Box *self)
{
    int err = release(self->buf);
    if (err)
        PyErr_SetString(PyExc_IOError, "released twice");
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Box_size(Box *self, PyObject *unused)
{
    return PyLong_FromLong(self->buf != NULL ? 8 : 0);
}

static PyMethodDef Box_methods[] = {
    {"size", (PyCFunction)Box_size, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "stockconst.Box",
    .tp_basicsize = sizeof(Box),
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Box_methods,
    .tp_new = Box_new,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "stockconst", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_stockconst(void)
{
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0)
        return NULL;
    return m;
}
'''


def test_a_destructor_keeps_the_stock_constant_of_its_stock_call():
    out = translate.translate_source(SRC, "stockconst.c")
    assert "PyErr_SetString(PyExc_IOError, \"released twice\");" in out
    assert "CystckExc_OSError" not in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("stockconst", SRC,
                         "print(repr([m.Box().size() for _ in range(3)]))\n")
    assert want == [8, 8, 8]
