/* The functions of typed_ext.c written against the stock C API with
 * PyArg_ParseTuple / PyArg_ParseTupleAndKeywords and the same formats: what
 * the typed methods must raise, message for message. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>

static PyObject *kwargs(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", "b", "c", "d", NULL};
    long a, b, c = 0, d = 0, total;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "ll|ll:kwargs", kwlist, &a, &b, &c, &d))
        return NULL;
    if (__builtin_add_overflow(a, b, &total) || __builtin_add_overflow(total, c, &total) ||
        __builtin_add_overflow(total, d, &total)) {
        PyErr_SetString(PyExc_OverflowError, "kwargs() sum does not fit in a C long");
        return NULL;
    }
    return PyLong_FromLong(total);
}

static PyObject *long_inc(PyObject *self, PyObject *args)
{
    long n;
    (void)self;
    if (!PyArg_ParseTuple(args, "l:long_inc", &n))
        return NULL;
    if (n == LONG_MAX) {
        PyErr_SetString(PyExc_OverflowError, "long_inc() result does not fit in a C long");
        return NULL;
    }
    return PyLong_FromLong(n + 1);
}

static PyObject *add_doubles(PyObject *self, PyObject *args)
{
    double a, b;
    (void)self;
    if (!PyArg_ParseTuple(args, "dd:add_doubles", &a, &b))
        return NULL;
    return PyFloat_FromDouble(a + b);
}

static PyObject *mixed(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"s", "n", "x", "flag", "obj", "big", "i", NULL};
    const char *s;
    Py_ssize_t n;
    double x = 1.5;
    int flag = 0, i = 0;
    PyObject *obj = Py_None;
    long long big = -7;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sn|dpOLi:mixed", kwlist, &s, &n, &x, &flag, &obj,
                                     &big, &i))
        return NULL;
    return Py_BuildValue("(sndNOLi)", s, n, x, PyBool_FromLong(flag), obj, big, i);
}

static PyObject *half(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"n", NULL};
    int n;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i:half", kwlist, &n))
        return NULL;
    if (n % 2) {
        PyErr_SetString(PyExc_ValueError, "odd");
        return NULL;
    }
    return PyLong_FromLong(n / 2);
}

static PyObject *check(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ok", NULL};
    int ok;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "p:check", kwlist, &ok))
        return NULL;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "not ok");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *length(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"o", NULL};
    PyObject *o, *copy;
    Py_ssize_t n;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:length", kwlist, &o))
        return NULL;
    if ((copy = PySequence_List(o)) == NULL)
        return NULL;
    n = PyList_GET_SIZE(copy);
    Py_DECREF(copy);
    return PyLong_FromSsize_t(n);
}

#define KW(f) (PyCFunction)(void (*)(void))f, METH_VARARGS | METH_KEYWORDS
static PyMethodDef methods[] = {
    {"kwargs", KW(kwargs), NULL},
    {"long_inc", long_inc, METH_VARARGS, NULL},
    {"add_doubles", add_doubles, METH_VARARGS, NULL},
    {"mixed", KW(mixed), NULL},
    {"half", KW(half), NULL},
    {"check", KW(check), NULL},
    {"length", KW(length), NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "typed_stock", NULL, -1, methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit_typed_stock(void)
{
    return PyModule_Create(&moduledef);
}
