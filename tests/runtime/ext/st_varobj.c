/* rt_varobj.c's Row with the stock API (PyObject_GC_NewVar, an inline
 * PyObject * array, Py_SIZE): what test_varobj.py compares it with. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    PyObject_VAR_HEAD
    long tag;
    PyObject *items[1];
} Row;

static PyTypeObject Row_Type;

static PyObject *Row_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Py_ssize_t i, n = PyTuple_GET_SIZE(args);
    Row *r;
    if (kw != NULL && PyDict_GET_SIZE(kw)) {
        PyErr_SetString(PyExc_TypeError, "Row() takes no keyword arguments");
        return NULL;
    }
    r = PyObject_GC_NewVar(Row, type, n);
    if (r == NULL)
        return NULL;
    r->tag = 1000 + (long)n;
    for (i = 0; i < n; i++)
        r->items[i] = Py_NewRef(PyTuple_GET_ITEM(args, i));
    PyObject_GC_Track(r);
    return (PyObject *)r;
}

static int Row_traverse(Row *r, visitproc visit, void *arg)
{
    Py_ssize_t i;
    for (i = 0; i < Py_SIZE(r); i++)
        Py_VISIT(r->items[i]);
    return 0;
}

static int Row_clear(Row *r)
{
    Py_ssize_t i;
    for (i = 0; i < Py_SIZE(r); i++)
        Py_CLEAR(r->items[i]);
    return 0;
}

static void Row_dealloc(Row *r)
{
    PyObject_GC_UnTrack(r);
    Row_clear(r);
    PyObject_GC_Del(r);
}

static Py_ssize_t Row_len(Row *r) { return Py_SIZE(r); }

static PyObject *Row_item(Row *r, Py_ssize_t i)
{
    if (i < 0 || i >= Py_SIZE(r)) {
        PyErr_SetString(PyExc_IndexError, "Row index out of range");
        return NULL;
    }
    return Py_NewRef(r->items[i]);
}

static PyObject *Row_tag(Row *r, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLong(r->tag);
}

static PyObject *Row_set(Row *r, PyObject *args)
{
    Py_ssize_t i;
    PyObject *v;
    if (!PyArg_ParseTuple(args, "nO", &i, &v))
        return NULL;
    if (i < 0 || i >= Py_SIZE(r)) {
        PyErr_SetString(PyExc_IndexError, "Row index out of range");
        return NULL;
    }
    Py_SETREF(r->items[i], Py_NewRef(v));
    Py_RETURN_NONE;
}

static PyMethodDef Row_methods[] = {
    {"tag", (PyCFunction)Row_tag, METH_NOARGS, NULL},
    {"set", (PyCFunction)Row_set, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PySequenceMethods Row_as_sequence = {
    .sq_length = (lenfunc)Row_len,
    .sq_item = (ssizeargfunc)Row_item,
};

static PyTypeObject Row_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "st_varobj.Row",
    .tp_basicsize = sizeof(Row) - sizeof(PyObject *),
    .tp_itemsize = sizeof(PyObject *),
    .tp_dealloc = (destructor)Row_dealloc,
    .tp_as_sequence = &Row_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)Row_traverse,
    .tp_clear = (inquiry)Row_clear,
    .tp_methods = Row_methods,
    .tp_new = Row_new,
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "st_varobj", NULL, -1, NULL};

PyMODINIT_FUNC PyInit_st_varobj(void)
{
    PyObject *m;
    if (PyType_Ready(&Row_Type) < 0)
        return NULL;
    m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Row", (PyObject *)&Row_Type) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
