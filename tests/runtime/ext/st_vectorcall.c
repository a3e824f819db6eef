/* PyObject_Vectorcall, PyObject_VectorcallMethod and PyObject_CallOneArg
 * with the caller's own argument array, a local array with the
 * PY_VECTORCALL_ARGUMENTS_OFFSET slot, and keyword names
 * (tests/runtime/test_vectorcall_ported.py translates it: the calls become
 * CystckObject_Vectorcall, CystckObject_VectorcallMethod and
 * CystckObject_CallOneArg, which read their handles as they are). */
#include <Python.h>

/* call(f, *args): f(*args) with the caller's array */
static PyObject *
call(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "call() needs a callable");
        return NULL;
    }
    return PyObject_Vectorcall(args[0], args + 1, nargs - 1, NULL);
}

/* call_kw(f, *args, **kw): f(*args, **kw), keyword values after the
 * positional ones */
static PyObject *
call_kw(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "call_kw() needs a callable");
        return NULL;
    }
    return PyObject_Vectorcall(args[0], args + 1, (size_t)(nargs - 1), kwnames);
}

/* call_pair(f, a, b): f(b, a) from a local array with a free first slot */
static PyObject *
call_pair(PyObject *self, PyObject *args)
{
    PyObject *f, *a, *b;
    if (!PyArg_ParseTuple(args, "OOO", &f, &a, &b))
        return NULL;
    PyObject *stack[3] = {NULL, b, a};
    return PyObject_Vectorcall(f, stack + 1, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

/* call_method(name, obj, *args): obj.name(*args) */
static PyObject *
call_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2) {
        PyErr_SetString(PyExc_TypeError, "call_method() needs a name and an object");
        return NULL;
    }
    return PyObject_VectorcallMethod(args[0], args + 1, nargs - 1, NULL);
}

/* call_one(f, x): f(x) */
static PyObject *
call_one(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "call_one() takes 2 arguments");
        return NULL;
    }
    return PyObject_CallOneArg(args[0], args[1]);
}

/* call_names(f, kwnames, *values): f(**dict(zip(kwnames, values))); stock
 * CPython reads kwnames as a tuple unchecked, so the test passes anything
 * else to the translation only */
static PyObject *
call_names(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2) {
        PyErr_SetString(PyExc_TypeError, "call_names() needs a callable and names");
        return NULL;
    }
    return PyObject_Vectorcall(args[0], args + 2, 0, args[1]);
}

/* method_of_nothing(name): a method call with no object (stock CPython
 * reads args[0] regardless: the test calls the translation only) */
static PyObject *
method_of_nothing(PyObject *self, PyObject *name)
{
    PyObject *none[1] = {NULL};
    return PyObject_VectorcallMethod(name, none, 0, NULL);
}

static PyMethodDef methods[] = {
    {"call", (PyCFunction)(void (*)(void))call, METH_FASTCALL, NULL},
    {"call_kw", (PyCFunction)(void (*)(void))call_kw, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"call_pair", call_pair, METH_VARARGS, NULL},
    {"call_method", (PyCFunction)(void (*)(void))call_method, METH_FASTCALL, NULL},
    {"call_one", (PyCFunction)(void (*)(void))call_one, METH_FASTCALL, NULL},
    {"call_names", (PyCFunction)(void (*)(void))call_names, METH_FASTCALL, NULL},
    {"method_of_nothing", method_of_nothing, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods,
};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
