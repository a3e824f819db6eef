/* PyLong_AsVoidPtr and PyLong_FromVoidPtr of a C pointer (not an object):
 * built stock and as cystck-migrate translates it (CystckLong_AsVoidPtr,
 * CystckLong_FromPointer), by tests/runtime/test_void_ptr.py. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static char buffer[16];

/* int -> void * -> int */
static PyObject *
roundtrip(PyObject *self, PyObject *o)
{
    void *p = PyLong_AsVoidPtr(o);
    if (p == NULL && PyErr_Occurred())
        return NULL;
    return PyLong_FromVoidPtr(p);
}

/* The distance between two C addresses made ints (a static buffer's
 * start and its 5th byte), and whether NULL is 0. */
static PyObject *
addresses(PyObject *self, PyObject *unused)
{
    PyObject *a = PyLong_FromVoidPtr(buffer), *b = NULL, *z = NULL, *r = NULL;
    if (a == NULL)
        return NULL;
    b = PyLong_FromVoidPtr((void *)(buffer + 5));
    if (b == NULL)
        goto done;
    z = PyLong_FromVoidPtr(NULL);
    if (z == NULL)
        goto done;
    if ((char *)PyLong_AsVoidPtr(b) != buffer + 5) {
        PyErr_SetString(PyExc_AssertionError, "the address did not come back");
        goto done;
    }
    r = Py_BuildValue("(nO)", (Py_ssize_t)(PyLong_AsSsize_t(b) - PyLong_AsSsize_t(a)), z);
done:
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(z);
    return r;
}

static PyMethodDef methods[] = {
    {"roundtrip", roundtrip, METH_O, NULL},
    {"addresses", addresses, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&module);
}
