/* The value PyErr_Fetch gives, read as it is: an error set by C code may
 * be un-normalized (on 3.11 a str, a KeyError's 1-tuple of the key; no
 * value at all for PyErr_SetNone), which is what stock code that looks
 * at it sees (tests/runtime/test_err_fetch_value.py translates it). */
#include <Python.h>

/* d[k], or the repr of the value of the error it raised (handled). */
static PyObject *
describe_error(PyObject *self, PyObject *args)
{
    PyObject *d, *k, *r;
    if (!PyArg_ParseTuple(args, "OO", &d, &k))
        return NULL;
    r = PyObject_GetItem(d, k);
    if (r != NULL)
        return r;
    PyObject *etype, *evalue, *etraceback;
    PyErr_Fetch(&etype, &evalue, &etraceback);
    PyObject *desc = evalue == NULL ? PyUnicode_FromString("no value") : PyObject_Repr(evalue);
    PyErr_Restore(etype, evalue, etraceback);
    if (desc == NULL)
        return NULL;
    PyErr_Clear();
    return desc;
}

/* The same, for PyErr_SetNone's error (no value). */
static PyObject *
describe_none(PyObject *self, PyObject *unused)
{
    PyErr_SetNone(PyExc_StopIteration);
    PyObject *etype, *evalue, *etraceback;
    PyErr_Fetch(&etype, &evalue, &etraceback);
    PyObject *desc = evalue == NULL ? PyUnicode_FromString("no value") : PyObject_Repr(evalue);
    PyErr_Restore(etype, evalue, etraceback);
    if (desc == NULL)
        return NULL;
    PyErr_Clear();
    return desc;
}

static PyMethodDef methods[] = {
    {"describe_error", describe_error, METH_VARARGS, NULL},
    {"describe_none", describe_none, METH_NOARGS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
