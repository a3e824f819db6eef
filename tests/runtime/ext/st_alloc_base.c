/* A stock base type with an allocator of its own (it counts what it
 * allocates), for tests/runtime/test_plain_alloc.py: a Cystck subtype
 * inherits that allocator and must keep it. */
#include <Python.h>

static long allocated;

static PyObject *counting_alloc(PyTypeObject *tp, Py_ssize_t nitems)
{
    allocated++;
    return PyType_GenericAlloc(tp, nitems);
}

typedef struct {
    PyObject_HEAD
    long n;
} Base;

static PyTypeObject Base_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "st_alloc_base.Base",
    .tp_basicsize = sizeof(Base),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_alloc = counting_alloc,
    .tp_new = PyType_GenericNew,
};

static PyObject *allocations(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(allocated);
}

static PyMethodDef methods[] = {
    {"allocations", allocations, METH_NOARGS, "how many objects counting_alloc made"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "st_alloc_base", NULL, -1, methods,
};

PyMODINIT_FUNC PyInit_st_alloc_base(void)
{
    PyObject *m;
    if (PyType_Ready(&Base_Type) < 0 || (m = PyModule_Create(&moduledef)) == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Base", (PyObject *)&Base_Type) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
