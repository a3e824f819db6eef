/* Stock C API: a borrowed reference kept after its owner died.
 * Cystck counterpart: corpus/dbg_keep_handle.c. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *kept;   /* borrowed from the list passed to keep_first */

static PyObject *keep_first(PyObject *self, PyObject *l)
{
    (void)self;
    kept = PyList_GetItem(l, 0);
    if (kept == NULL)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *negate_kept(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    return PyNumber_Negative(kept);   /* the list and its item may be gone */
}

static PyMethodDef methods[] = {
    {"keep_first", keep_first, METH_O, "keep_first(l): remember l[0] (buggy)"},
    {"negate_kept", negate_kept, METH_NOARGS, "-x for the remembered x"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "stock_borrowed", NULL, 0, methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit_stock_borrowed(void)
{
    return PyModule_Create(&module_def);
}
