/* A type with classmethods and __class_getitem__ = Py_GenericAlias behind a
 * version conditional (tests/runtime/test_class_getitem_ported.py translates it). */
#include <Python.h>

typedef struct {
    PyObject_HEAD
    long v;
} Box;

#if PY_VERSION_HEX < 0x030900A6
static PyObject *
box_class_getitem(PyObject *type, PyObject *item)
{
    Py_INCREF(type);
    return type;
}
#endif

static PyObject *
box_kind(PyObject *type, PyObject *unused)
{
    return PyObject_GetAttrString(type, "__name__");
}

static PyMethodDef Box_methods[] = {
    {"kind", (PyCFunction)box_kind, METH_NOARGS | METH_CLASS, NULL},
    {
        "__class_getitem__",
#if PY_VERSION_HEX < 0x030900A6
        (PyCFunction)box_class_getitem,
#else
        Py_GenericAlias,
#endif
        METH_O | METH_CLASS,
        "See PEP 585"
    },
#ifdef BOX_NOT_DEFINED
    {"extra", (PyCFunction)box_not_defined_anywhere, METH_NOARGS, NULL},
#endif
    {NULL, NULL}
};

static PyTypeObject Box_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_methods = Box_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&Box_Type) < 0)
        return NULL;
    m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&Box_Type);
    if (PyModule_AddObject(m, "Box", (PyObject *)&Box_Type) < 0) {
        Py_DECREF(&Box_Type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
