/* The bytearray macros (PyByteArray_AS_STRING, PyByteArray_GET_SIZE),
 * PyByteArray_Resize and PyBytes_FromObject: built stock and as
 * cystck-migrate translates it (CystckByteArray_AS_STRING, ..._GET_SIZE,
 * ..._Resize, CystckBytes_FromObject), by tests/runtime/test_bytearray.py. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* A copy of bytearray o upper-cased, read through the macros. */
static PyObject *
upper(PyObject *self, PyObject *o)
{
    if (!PyByteArray_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "a bytearray is required");
        return NULL;
    }
    Py_ssize_t n = PyByteArray_GET_SIZE(o), i;
    const char *s = PyByteArray_AS_STRING(o);
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n);
    if (out == NULL)
        return NULL;
    char *d = PyByteArray_AS_STRING(out);
    for (i = 0; i < n; i++)
        d[i] = (s[i] >= 'a' && s[i] <= 'z') ? (char)(s[i] - 32) : s[i];
    return out;
}

/* Resize bytearray o in place to n bytes, filling new bytes with '.';
 * returns o's new size. */
static PyObject *
resize(PyObject *self, PyObject *args)
{
    PyObject *o;
    Py_ssize_t n, old;
    if (!PyArg_ParseTuple(args, "On", &o, &n))
        return NULL;
    old = PyByteArray_Check(o) ? PyByteArray_GET_SIZE(o) : 0;
    if (PyByteArray_Resize(o, n) < 0)
        return NULL;
    if (n > old)
        memset(PyByteArray_AS_STRING(o) + old, '.', (size_t)(n - old));
    return PyLong_FromSsize_t(PyByteArray_GET_SIZE(o));
}

/* A bytearray built from s by appending one byte at a time. */
static PyObject *
grow(PyObject *self, PyObject *args)
{
    const char *s;
    Py_ssize_t n, i;
    if (!PyArg_ParseTuple(args, "s#", &s, &n))
        return NULL;
    PyObject *out = PyByteArray_FromStringAndSize(NULL, 0);
    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        if (PyByteArray_Resize(out, PyByteArray_GET_SIZE(out) + 1) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        PyByteArray_AS_STRING(out)[i] = s[i];
    }
    return out;
}

static PyObject *
to_bytes(PyObject *self, PyObject *o)
{
    return PyBytes_FromObject(o);
}

static PyMethodDef methods[] = {
    {"upper", upper, METH_O, NULL},
    {"resize", resize, METH_VARARGS, NULL},
    {"grow", grow, METH_VARARGS, NULL},
    {"to_bytes", to_bytes, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&module);
}
