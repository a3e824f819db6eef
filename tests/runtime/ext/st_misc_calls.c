/* Stock calls that were escape hatches until T49 (cbor2 uses each):
 * PyByteArray_FromObject/CheckExact, PyAnySet_CheckExact, PySet_GET_SIZE,
 * PySet_Discard, PyFrozenSet_New, PyObject_DelAttrString,
 * PyUnicode_AsASCIIString, PyComplex_FromDoubles.  Built stock and as
 * cystck-migrate translates it, by tests/runtime/test_misc_calls.py. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
to_bytearray(PyObject *self, PyObject *o)
{
    return PyByteArray_FromObject(o);
}

/* (bytearray exactly, set or frozenset exactly, len if a set) */
static PyObject *
kinds(PyObject *self, PyObject *o)
{
    Py_ssize_t n = PyAnySet_Check(o) ? PySet_GET_SIZE(o) : -1;
    return Py_BuildValue("(iin)", PyByteArray_CheckExact(o), PyAnySet_CheckExact(o), n);
}

static PyObject *
discard(PyObject *self, PyObject *args)
{
    PyObject *s, *key;
    if (!PyArg_ParseTuple(args, "OO", &s, &key))
        return NULL;
    int r = PySet_Discard(s, key);
    if (r == -1)
        return NULL;
    return PyLong_FromLong(r);
}

static PyObject *
frozen(PyObject *self, PyObject *args)
{
    PyObject *it = NULL;
    if (!PyArg_ParseTuple(args, "|O", &it))
        return NULL;
    return PyFrozenSet_New(it);
}

static PyObject *
delattr(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *name;
    if (!PyArg_ParseTuple(args, "Os", &o, &name))
        return NULL;
    if (PyObject_DelAttrString(o, name) == -1)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
ascii(PyObject *self, PyObject *o)
{
    return PyUnicode_AsASCIIString(o);
}

static PyObject *
complex_of(PyObject *self, PyObject *args)
{
    double re, im;
    if (!PyArg_ParseTuple(args, "dd", &re, &im))
        return NULL;
    return PyComplex_FromDoubles(re, im);
}

static PyMethodDef methods[] = {
    {"to_bytearray", to_bytearray, METH_O, NULL},
    {"kinds", kinds, METH_O, NULL},
    {"discard", discard, METH_VARARGS, NULL},
    {"frozen", frozen, METH_VARARGS, NULL},
    {"delattr", delattr, METH_VARARGS, NULL},
    {"ascii", ascii, METH_O, NULL},
    {"complex_of", complex_of, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&module);
}
