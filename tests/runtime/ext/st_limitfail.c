/* Dict loops that keep their items, as stock extensions write them, run
 * by tests/runtime/test_limit_fail.py built as they are and as
 * cystck-migrate translates them, with the frame at the handle limit: the
 * translation must stop at the item it cannot hold and raise MemoryError,
 * not go on with null handles (whose type checks fail: "keys must be
 * strings").  The module name is spelled NAME. */
#include <Python.h>

/* How many keys are longer than the key before them: each key is kept
 * past its iteration (prev), so the translation makes two handles per
 * item with CystckDict_Next and never releases them. */
static PyObject *longer_keys(PyObject *self, PyObject *d)
{
    Py_ssize_t pos = 0, n = 0;
    PyObject *key, *value, *prev = NULL;
    (void)self;
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "a dict is required");
        return NULL;
    }
    while (PyDict_Next(d, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "keys must be strings");
            return NULL;
        }
        if (prev != NULL && PyUnicode_GET_LENGTH(key) > PyUnicode_GET_LENGTH(prev))
            n++;
        prev = key;
    }
    return PyLong_FromSsize_t(n);
}

/* Reads the first k items of a list (each kept: last), then sums the
 * lengths of a dict's keys: with k near the handle limit, the dict loop's
 * first item is the one that finds the frame full. */
static PyObject *keys_after(PyObject *self, PyObject *args)
{
    Py_ssize_t k, i, pos = 0, total = 0;
    PyObject *l, *d, *key, *value, *last = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!nO!", &PyList_Type, &l, &k, &PyDict_Type, &d))
        return NULL;
    for (i = 0; i < k; i++) {
        PyObject *item = PyList_GetItem(l, i);
        if (item == NULL)
            return NULL;
        if (last != NULL && PyObject_RichCompareBool(item, last, Py_LT) < 0)
            return NULL;
        last = item;
    }
    while (PyDict_Next(d, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "keys must be strings");
            return NULL;
        }
        total += PyUnicode_GET_LENGTH(key);
    }
    return PyLong_FromSsize_t(total);
}

/* Reads the first k items of a list as keys_after does, then o.missing,
 * whose error is kept aside around a cleanup call and restored: with k
 * near the handle limit, taking the exception is what finds the frame
 * full.  PyErr_Fetch ... PyErr_Restore, which the translation takes as one
 * exception (CystckErr_GetRaisedException). */
static int fill(PyObject *l, Py_ssize_t k)
{
    PyObject *last = NULL;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *item = PyList_GetItem(l, i);
        if (item == NULL)
            return -1;
        if (last != NULL && PyObject_RichCompareBool(item, last, Py_LT) < 0)
            return -1;
        last = item;
    }
    return 0;
}

static PyObject *error_kept_aside(PyObject *self, PyObject *args)
{
    Py_ssize_t k;
    PyObject *l, *o, *r, *t, *v, *tb;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!nO", &PyList_Type, &l, &k, &o))
        return NULL;
    if (fill(l, k) < 0)
        return NULL;
    r = PyObject_GetAttrString(o, "missing");
    if (r != NULL)
        return r;
    PyErr_Fetch(&t, &v, &tb);
    PyList_Reverse(l);
    PyErr_Restore(t, v, tb);
    return NULL;
}

/* The same with the type looked at (PyErr_Fetch's three handles,
 * CystckErr_Fetch): an AttributeError is kept, any other replaced. */
static PyObject *error_type_read(PyObject *self, PyObject *args)
{
    Py_ssize_t k;
    PyObject *l, *o, *r, *t, *v, *tb;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!nO", &PyList_Type, &l, &k, &o))
        return NULL;
    if (fill(l, k) < 0)
        return NULL;
    r = PyObject_GetAttrString(o, "missing");
    if (r != NULL)
        return r;
    PyErr_Fetch(&t, &v, &tb);
    if (t == NULL || !PyErr_GivenExceptionMatches(t, PyExc_AttributeError)) {
        Py_XDECREF(t);
        Py_XDECREF(v);
        Py_XDECREF(tb);
        PyErr_SetString(PyExc_RuntimeError, "not an AttributeError");
        return NULL;
    }
    PyErr_Restore(t, v, tb);
    return NULL;
}

/* Reads the first k items of a list as keys_after does, then d[key]
 * (PyDict_GetItem), d["a"] (PyDict_GetItemString: NULL is "missing") and
 * l2[0] (PyList_GET_ITEM, which stock code never tests), each with its own
 * error: with k near the handle limit, one of the reads is what finds the
 * frame full, its null handle reads as missing or as no int, and the
 * error raised for that must not replace the MemoryError. */
static PyObject *items_after(PyObject *self, PyObject *args)
{
    Py_ssize_t k;
    PyObject *l, *d, *key, *l2, *v, *a, *first;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!nO!OO!", &PyList_Type, &l, &k, &PyDict_Type, &d, &key,
                          &PyList_Type, &l2))
        return NULL;
    if (fill(l, k) < 0)
        return NULL;
    v = PyDict_GetItem(d, key);
    if (v == NULL)
        return PyErr_Format(PyExc_KeyError, "%R", key);
    a = PyDict_GetItemString(d, "a");
    if (a == NULL) {
        PyErr_SetString(PyExc_KeyError, "a");
        return NULL;
    }
    first = PyList_GET_ITEM(l2, 0);
    if (!PyLong_Check(first)) {
        PyErr_SetObject(PyExc_TypeError, key);
        return NULL;
    }
    return PyLong_FromLong(PyLong_AsLong(v) + PyLong_AsLong(a) + PyLong_AsLong(first));
}

/* A raise over a MemoryError that is not the handle limit's replaces it,
 * as in stock. */
static PyObject *memory_error_replaced(PyObject *self, PyObject *arg)
{
    (void)self;
    (void)arg;
    PyErr_SetString(PyExc_MemoryError, "out of memory");
    PyErr_SetString(PyExc_ValueError, "replaced");
    return NULL;
}

/* Reads the first k items of a list as keys_after does, then calls cb n
 * times, each error kept aside around a cleanup call and reported
 * (sys.unraisablehook), as a loop over callbacks does: the translation
 * keeps each exception's handles to the end of the call (Restore steals
 * nothing), so with k near the handle limit the exceptions taken fill the
 * slots reserved for them past it.  The exception passed through (one
 * handle, CystckErr_GetRaisedException). */
static PyObject *errors_reported(PyObject *self, PyObject *args)
{
    Py_ssize_t k, n, i;
    PyObject *l, *cb, *r, *t, *v, *tb;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!nOn", &PyList_Type, &l, &k, &cb, &n) || fill(l, k) < 0)
        return NULL;
    for (i = 0; i < n; i++) {
        r = PyObject_CallNoArgs(cb);
        if (r != NULL) {
            Py_DECREF(r);
            continue;
        }
        PyErr_Fetch(&t, &v, &tb);
        PyList_Reverse(l);
        PyErr_Restore(t, v, tb);
        PyErr_WriteUnraisable(cb);
    }
    Py_RETURN_NONE;
}

/* The same with the type read (three handles, CystckErr_Fetch): returns
 * how many were ValueErrors. */
static PyObject *error_types_counted(PyObject *self, PyObject *args)
{
    Py_ssize_t k, n, i;
    PyObject *l, *cb, *r, *t, *v, *tb;
    long value_errors = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!nOn", &PyList_Type, &l, &k, &cb, &n) || fill(l, k) < 0)
        return NULL;
    for (i = 0; i < n; i++) {
        r = PyObject_CallNoArgs(cb);
        if (r != NULL) {
            Py_DECREF(r);
            continue;
        }
        PyErr_Fetch(&t, &v, &tb);
        if (t != NULL && PyErr_GivenExceptionMatches(t, PyExc_ValueError) == 1)
            value_errors++;
        PyList_Reverse(l);
        PyErr_Restore(t, v, tb);
        PyErr_WriteUnraisable(cb);
    }
    return PyLong_FromLong(value_errors);
}

/* Restoring what PyErr_Fetch took when nothing was raised clears an
 * error raised since (not the handle limit's), as in stock. */
static PyObject *restore_nothing_clears(PyObject *self, PyObject *arg)
{
    PyObject *t, *v, *tb;
    (void)self;
    (void)arg;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_SetString(PyExc_ValueError, "cleared");
    PyErr_Restore(t, v, tb);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"restore_nothing_clears", restore_nothing_clears, METH_O, NULL},
    {"errors_reported", errors_reported, METH_VARARGS, NULL},
    {"error_types_counted", error_types_counted, METH_VARARGS, NULL},
    {"items_after", items_after, METH_VARARGS, NULL},
    {"memory_error_replaced", memory_error_replaced, METH_O, NULL},
    {"error_kept_aside", error_kept_aside, METH_VARARGS, NULL},
    {"error_type_read", error_type_read, METH_VARARGS, NULL},
    {"longer_keys", longer_keys, METH_O, NULL},
    {"keys_after", keys_after, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods,
};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
