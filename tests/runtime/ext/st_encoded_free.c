/* Encoded-string units (es, et, es#, et#) followed by a value that fails
 * to convert: the buffer the parser allocated must be freed, as CPython's
 * freelist does (tests/runtime/test_encoded_free.py builds it stock and
 * translated). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
es_then_int(PyObject *m, PyObject *args)
{
    char *buf = NULL;
    int n;
    PyObject *r;
    (void)m;
    if (!PyArg_ParseTuple(args, "esi", "utf-8", &buf, &n))
        return NULL;
    r = Py_BuildValue("(si)", buf, n);
    PyMem_Free(buf);
    return r;
}

static PyObject *
et_size_then_float(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"s", "t", "x", NULL};
    char *buf = NULL, *buf2 = NULL;
    Py_ssize_t len = 0, len2 = 0;
    double x;
    PyObject *r;
    (void)m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "et#es#d", kwlist, "utf-8", &buf, &len,
                                     "latin-1", &buf2, &len2, &x))
        return NULL;
    r = Py_BuildValue("(y#y#d)", buf, len, buf2, len2, x);
    PyMem_Free(buf);
    PyMem_Free(buf2);
    return r;
}

/* An inline unit before the encoded one: a failure there comes before any
 * buffer (the keyword fast path's -1), one after it frees the buffer. */
static PyObject *
long_then_es(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"n", "s", "x", NULL};
    char *buf = NULL;
    long n;
    double x = 0.0;
    PyObject *r;
    (void)m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "les|d", kwlist, &n, "utf-8", &buf, &x))
        return NULL;
    r = Py_BuildValue("(lsd)", n, buf, x);
    PyMem_Free(buf);
    return r;
}

static PyMethodDef methods[] = {
    {"es_then_int", es_then_int, METH_VARARGS, NULL},
    {"et_size_then_float", (PyCFunction)(void (*)(void))et_size_then_float,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {"long_then_es", (PyCFunction)(void (*)(void))long_then_es,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
