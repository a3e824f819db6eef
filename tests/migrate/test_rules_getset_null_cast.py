"""A getset whose setter is a null pointer cast to its type, ``{"value",
(getter)Box_get, (setter)NULL, ...}`` (posix_ipc, its read-only
attributes), became ``CYSTCK_DEF_GETSET(..., NULL, ...)``: the null test
came before the cast was taken off, and the setter slot got a null
implementation that did not compile.  It is a read-only attribute now,
``CYSTCK_DEF_GET``, as a plain ``NULL`` setter is; stock and translated
builds answer alike (reads, and the AttributeError of a write), release
and debug."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>

typedef struct { PyObject_HEAD long v; } Box;

static PyObject *
Box_get(Box *self, void *closure)
{
    return PyLong_FromLong(self->v + 1);
}

static PyGetSetDef Box_getsets[] = {
    {"value", (getter)Box_get, (setter)NULL, "one more than nothing", NULL},
    {"same", (getter)Box_get, (setter)0, NULL, NULL},
    {NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "roattr.Box", .tp_basicsize = sizeof(Box), .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_getset = Box_getsets, .tp_new = PyType_GenericNew,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "roattr", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_roattr(void)
{
    PyObject *m;
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''


def test_a_cast_null_setter_is_a_read_only_attribute():
    out = translate.translate_source(SRC, "roattr.c")
    assert 'CYSTCK_DEF_GET(Box_get_getset, "value", Box_get, "one more than nothing", NULL)' in out
    assert 'CYSTCK_DEF_GET(Box_get_same_getset, "same", Box_get, NULL, NULL)' in out
    assert "CYSTCK_DEF_GETSET" not in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    script = ("b = m.Box()\n"
              "def write():\n    b.value = 3\n"
              "print(repr([b.value, b.same, outcome(write)]))\n")
    want = same_as_stock("roattr", SRC, script)
    assert want[:2] == [1, 1]
