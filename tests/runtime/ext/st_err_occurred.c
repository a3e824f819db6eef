/* The error indicator compared with a null pointer, as stock code often
 * asks it (tests/runtime/test_err_occurred_tests.py translates it: the
 * err-occurred-tests rule makes the comparisons truth tests). */
#include <Python.h>

/* (pending after getattr(o, name)?, clear after PyErr_Clear?) */
static PyObject *
probe(PyObject *module, PyObject *args)
{
    PyObject *o, *name, *value;
    int pending, clear;
    if (!PyArg_ParseTuple(args, "OU", &o, &name))
        return NULL;
    value = PyObject_GetAttr(o, name);
    pending = PyErr_Occurred() != NULL;
    Py_XDECREF(value);
    PyErr_Clear();
    clear = NULL == PyErr_Occurred() && PyErr_Occurred() == 0;
    return Py_BuildValue("(ii)", pending, clear);
}

static PyMethodDef methods[] = {
    {"probe", probe, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
