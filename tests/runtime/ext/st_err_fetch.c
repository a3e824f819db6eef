/* PyErr_Fetch and PyErr_Restore around a call that may fail: a str
 * exception value gets context in its message, any other exception is
 * restored as it was (tests/runtime/test_err_fetch_ported.py translates
 * it). */
#include <Python.h>

static PyObject *
call_with_context(PyObject *self, PyObject *f)
{
    PyObject *r = PyObject_CallNoArgs(f);
    if (r != NULL)
        return r;
    PyObject *etype, *evalue, *etraceback;
    PyErr_Fetch(&etype, &evalue, &etraceback);
    if (evalue != NULL && PyUnicode_Check(evalue)) {
        PyErr_Format(etype, "while calling: %S", evalue);
        Py_DECREF(etype);
        Py_DECREF(evalue);
        Py_XDECREF(etraceback);
    }
    else
        PyErr_Restore(etype, evalue, etraceback);
    return NULL;
}

static PyMethodDef methods[] = {
    {"call_with_context", call_with_context, METH_O, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
