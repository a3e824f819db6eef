/* A METH_VARARGS | METH_KEYWORDS method that gives its keyword dict to a
 * helper of its own, after an argument that reads a field through a call
 * (tests/runtime/test_kwargs_helper_ported.py translates it). */
#include <Python.h>

typedef struct {
    PyObject_HEAD
    long id;
} Mut;

static int
merge(long id, PyObject *into, PyObject *src)
{
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    (void)id;
    while (PyDict_Next(src, &pos, &key, &value)) {
        if (PyDict_SetItem(into, key, value) < 0)
            return -1;
    }
    return 0;
}

static PyObject *
mut_update(Mut *self, PyObject *args, PyObject *kwds)
{
    PyObject *into = NULL;
    if (!PyArg_UnpackTuple(args, "update", 1, 1, &into))
        return NULL;
    if (kwds != NULL) {
        if (!PyArg_ValidateKeywordArguments(kwds))
            return NULL;
        if (merge(self->id, into, kwds) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef Mut_methods[] = {
    {"update", (PyCFunction)mut_update, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL}
};

static PyTypeObject Mut_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Mut",
    .tp_basicsize = sizeof(Mut),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_methods = Mut_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&Mut_Type) < 0)
        return NULL;
    m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&Mut_Type);
    if (PyModule_AddObject(m, "Mut", (PyObject *)&Mut_Type) < 0) {
        Py_DECREF(&Mut_Type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
