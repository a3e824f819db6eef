/* Per-item work over containers larger than the handle limit, written as
 * stock extensions write it (a serializer walking a dict or list, a
 * parser adding keys through an interning dict).  Built as it is and as
 * cystck-migrate translates it (tests/runtime/test_big_loops.py); the
 * module name is spelled NAME. */
#include <Python.h>

/* The per-item helper: a new object made and released per call. */
static int measure(PyObject *item, Py_ssize_t *total)
{
    PyObject *r = PyObject_Repr(item);
    if (r == NULL)
        return -1;
    *total += PyUnicode_GET_LENGTH(r);
    Py_DECREF(r);
    return 0;
}

/* PyDict_Next, the key replaced by a coerced copy for non-str keys. */
static PyObject *walk_dict(PyObject *self, PyObject *d)
{
    Py_ssize_t pos = 0, total = 0;
    PyObject *key, *value;
    PyObject *coerced = NULL;
    (void)self;
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "a dict is required");
        return NULL;
    }
    while (PyDict_Next(d, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            coerced = PyObject_Str(key);
            if (coerced == NULL)
                return NULL;
            key = coerced;
        }
        total += PyUnicode_GET_LENGTH(key);
        if (measure(value, &total) < 0) {
            Py_XDECREF(coerced);
            return NULL;
        }
        Py_CLEAR(coerced);
    }
    return PyLong_FromSsize_t(total);
}

/* An item of a list read into a local of the loop's body. */
static PyObject *walk_list(PyObject *self, PyObject *l)
{
    Py_ssize_t total = 0;
    (void)self;
    if (!PyList_Check(l)) {
        PyErr_SetString(PyExc_TypeError, "a list is required");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {
        PyObject *item = PyList_GET_ITEM(l, i);
        if (measure(item, &total) < 0)
            return NULL;
    }
    return PyLong_FromSsize_t(total);
}

/* One key of a parsed object, shared through an interning dict: the
 * reference PyDict_SetDefault lends is taken in place of the new key's. */
static int add_key(PyObject *shared, PyObject *result, Py_ssize_t i)
{
    PyObject *value = PyLong_FromSsize_t(i);
    if (value == NULL)
        return -1;
    PyObject *key = PyUnicode_FromFormat("k%zd", i);
    if (key == NULL) {
        Py_DECREF(value);
        return -1;
    }
    PyObject *shared_key = PyDict_SetDefault(shared, key, key);
    if (shared_key == NULL) {
        Py_DECREF(key);
        Py_DECREF(value);
        return -1;
    }
    Py_INCREF(shared_key);
    Py_DECREF(key);
    key = shared_key;
    int rc = PyDict_SetItem(result, key, value);
    Py_DECREF(key);
    Py_DECREF(value);
    return rc;
}

static PyObject *build_dict(PyObject *self, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    PyObject *shared, *result;
    (void)self;
    if (n == -1 && PyErr_Occurred())
        return NULL;
    shared = PyDict_New();
    if (shared == NULL)
        return NULL;
    result = PyDict_New();
    if (result == NULL) {
        Py_DECREF(shared);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (add_key(shared, result, i) < 0) {
            Py_DECREF(shared);
            Py_DECREF(result);
            return NULL;
        }
    }
    Py_DECREF(shared);
    return result;
}

static PyMethodDef methods[] = {
    {"walk_dict", walk_dict, METH_O, NULL},
    {"walk_list", walk_list, METH_O, NULL},
    {"build_dict", build_dict, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods,
                                       NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
