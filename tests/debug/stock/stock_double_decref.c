/* Stock C API: one reference released twice.
 * Cystck counterparts: corpus/dbg_double_unref.c, corpus/dbg_drop_twice.c. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *callback;

static PyObject *set_callback(PyObject *self, PyObject *f)
{
    (void)self;
    Py_XDECREF(callback);
    Py_INCREF(f);
    callback = f;
    Py_RETURN_NONE;
}

static PyObject *clear_callback(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    Py_XDECREF(callback);   /* leaves the released pointer in place */
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"set_callback", set_callback, METH_O, "set_callback(f): remember f"},
    {"clear_callback", clear_callback, METH_NOARGS, "forget the callback (buggy)"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "stock_double_decref", NULL, 0, methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit_stock_double_decref(void)
{
    return PyModule_Create(&module_def);
}
