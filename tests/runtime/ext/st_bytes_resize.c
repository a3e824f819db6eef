/* _PyBytes_Resize on a bytes object the function made (directly, and
 * through a PyObject ** a helper takes): built stock and as cystck-migrate
 * translates it (CystckBytes_Resize), by tests/runtime/test_bytes_resize.py. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* Append s to *out (len bytes used), growing it by `step` when full. */
static int
append(PyObject **out, Py_ssize_t *len, const char *s, Py_ssize_t n, Py_ssize_t step)
{
    while (PyBytes_GET_SIZE(*out) < *len + n) {
        if (_PyBytes_Resize(out, PyBytes_GET_SIZE(*out) + step) < 0)
            return -1;
    }
    memcpy(PyBytes_AS_STRING(*out) + *len, s, (size_t)n);
    *len += n;
    return 0;
}

static PyObject *
repeat(PyObject *self, PyObject *args)
{
    const char *s;
    Py_ssize_t n, times, step, len = 0, i;
    PyObject *out;
    if (!PyArg_ParseTuple(args, "s#nn", &s, &n, &times, &step))
        return NULL;
    out = PyBytes_FromStringAndSize(NULL, step);
    if (out == NULL)
        return NULL;
    for (i = 0; i < times; i++) {
        if (append(&out, &len, s, n, step) < 0) {
            Py_XDECREF(out);
            return NULL;
        }
    }
    if (_PyBytes_Resize(&out, len) < 0) {
        Py_XDECREF(out);
        return NULL;
    }
    return out;
}

static PyObject *
resize_to(PyObject *self, PyObject *args)
{
    const char *s;
    Py_ssize_t n, size;
    PyObject *out;
    if (!PyArg_ParseTuple(args, "s#n", &s, &n, &size))
        return NULL;
    out = PyBytes_FromStringAndSize(s, n);
    if (out == NULL)
        return NULL;
    if (_PyBytes_Resize(&out, size) < 0) {
        if (out != NULL)
            return PyUnicode_FromString("not null after an error");
        return NULL;
    }
    if (size > n)
        memset(PyBytes_AS_STRING(out) + n, '.', (size_t)(size - n));
    return out;
}

static PyObject *
resize_other(PyObject *self, PyObject *args)
{
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    if (_PyBytes_Resize(&out, 3) < 0) {
        if (out != NULL)
            return PyUnicode_FromString("not null after an error");
        return NULL;
    }
    return out;
}

static PyMethodDef methods[] = {
    {"repeat", repeat, METH_VARARGS, NULL},
    {"resize_to", resize_to, METH_VARARGS, NULL},
    {"resize_other", resize_other, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&module);
}
