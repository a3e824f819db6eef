/* Stock C API: an object used after Py_DECREF released it.
 * Cystck counterpart: corpus/dbg_use_after_drop.c. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *square(PyObject *self, PyObject *n)
{
    PyObject *sq = PyNumber_Multiply(n, n);
    long long v;
    (void)self;
    if (sq == NULL)
        return NULL;
    Py_DECREF(sq);
    v = PyLong_AsLongLong(sq);   /* reads a freed object */
    if (v == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLongLong(v);
}

static PyMethodDef methods[] = {
    {"square", square, METH_O, "square(n) -> n * n (buggy)"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "stock_use_after_decref", NULL, 0, methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit_stock_use_after_decref(void)
{
    return PyModule_Create(&module_def);
}
