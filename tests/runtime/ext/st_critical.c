/* Critical sections on objects (free-threaded builds lock them; the GIL
 * serializes anyway), nested, on self and on an argument
 * (tests/runtime/test_critical_sections.py translates it). */
#include <Python.h>

/* Before 3.13 the GIL is the only lock, as in the extensions that use them. */
#ifndef Py_BEGIN_CRITICAL_SECTION
#define Py_BEGIN_CRITICAL_SECTION(op) {
#define Py_END_CRITICAL_SECTION() }
#endif

typedef struct {
    PyObject_HEAD
    long n;
} Counter;

static PyObject *
counter_bump(Counter *self, PyObject *Py_UNUSED(ignored))
{
    long n;
    Py_BEGIN_CRITICAL_SECTION((PyObject *)self);
    n = ++self->n;
    Py_END_CRITICAL_SECTION();
    return PyLong_FromLong(n);
}

/* self's count plus len(seq), both read under their objects' locks */
static PyObject *
counter_add_len(Counter *self, PyObject *seq)
{
    Py_ssize_t len;
    long n;
    Py_BEGIN_CRITICAL_SECTION((PyObject *)self);
    Py_BEGIN_CRITICAL_SECTION(seq);
    len = PyObject_Length(seq);
    Py_END_CRITICAL_SECTION();
    n = self->n;
    Py_END_CRITICAL_SECTION();
    if (len < 0)
        return NULL;
    return PyLong_FromLong(n + (long)len);
}

static PyMethodDef Counter_methods[] = {
    {"bump", (PyCFunction)counter_bump, METH_NOARGS, NULL},
    {"add_len", (PyCFunction)counter_add_len, METH_O, NULL},
    {NULL, NULL}
};

static PyTypeObject Counter_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Counter",
    .tp_basicsize = sizeof(Counter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_methods = Counter_methods,
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "NAME", NULL, -1, NULL,
};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&Counter_Type) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&Counter_Type);
    if (PyModule_AddObject(m, "Counter", (PyObject *)&Counter_Type) < 0) {
        Py_DECREF(&Counter_Type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
