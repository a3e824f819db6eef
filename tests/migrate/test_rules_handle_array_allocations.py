"""Arrays of objects in C memory within one call (docs/gaps.md T33):
``PyObject **a = (PyObject **)alloca(n * sizeof(PyObject *))`` (or
``malloc``'d and freed in the function) holding the objects a function
makes is an array of handles, which live until the entry point returns
(rule handle-array-allocations; before, the array was declared
``Cystck_Object *`` and assigned a ``PyObject **``: a warning, and handles
read as object pointers at run time).  An item pointer of
``PySequence_Fast_ITEMS`` declared ``PyObject**`` (no space before the
stars) and written through a macro that swaps two items, ``SWAP(p[i],
p[j], PyObject*)``, stays a stock ``PyObject **`` (escape hatch, reported)
whose swaps stay as they were: before, the spelling was not taken for a
declaration of an item pointer, which became ``Cystck_Object *``.  Stock
and translated builds answer alike, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <alloca.h>
#include <stdlib.h>

#define SWAP(a, b, t) { t tmp; tmp = a; a = b; b = tmp; }

/* the items plus one, in reverse order, from an alloca'd array */
static PyObject *
reversed_plus_one(PyObject *self, PyObject *args)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args), i;
    PyObject* result = NULL;
    PyObject** made = (PyObject**)alloca((n + 1) * sizeof(PyObject*));
    PyObject *one = PyLong_FromLong(1);
    if (one == NULL)
        return NULL;
    for (i = 0; i < n; i++)
        made[i] = NULL;
    for (i = 0; i < n; i++) {
        made[i] = PyNumber_Add(PyTuple_GET_ITEM(args, i), one);
        if (made[i] == NULL)
            goto err;
    }
    result = PyList_New(n);
    if (result == NULL)
        goto err;
    for (i = 0; i < n; i++) {
        if (PyList_SetItem(result, n - 1 - i, made[i]) == -1)
            goto err;
        made[i] = NULL;
    }
    Py_DECREF(one);
    return result;
  err:
    for (i = 0; i < n; i++)
        Py_XDECREF(made[i]);
    Py_XDECREF(result);
    Py_DECREF(one);
    return NULL;
}

/* str() of each item into a malloc'd array, then a tuple of them */
static PyObject *
strs(PyObject *self, PyObject *seq)
{
    Py_ssize_t n = PySequence_Size(seq), i, k;
    PyObject *res = NULL;
    PyObject **parts;
    if (n < 0)
        return NULL;
    parts = malloc((n + 1) * sizeof(PyObject *));
    if (!parts)
        return PyErr_NoMemory();
    for (i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(seq, i);
        if (item == NULL)
            goto done;
        parts[i] = PyObject_Str(item);
        Py_DECREF(item);
        if (parts[i] == NULL)
            goto done;
    }
    res = PyTuple_New(n);
    if (res == NULL)
        goto done;
    for (k = 0; k < n; k++) {
        PyTuple_SET_ITEM(res, k, parts[k]);
        parts[k] = NULL;
    }
  done:
    for (k = 0; k < i; k++)
        Py_XDECREF(parts[k]);
    free(parts);
    return res;
}

/* the items of seq put where perm says, by swapping in its item array */
static PyObject *
placed(PyObject *self, PyObject *args)
{
    PyObject *seq, *perm, *fast, *result = NULL;
    PyObject** items;
    Py_ssize_t n, i;
    long *where;
    if (!PyArg_ParseTuple(args, "OO", &seq, &perm))
        return NULL;
    fast = PySequence_Fast(seq, "a sequence is needed");
    if (fast == NULL)
        return NULL;
    n = PySequence_Fast_GET_SIZE(fast);
    if (PySequence_Size(perm) != n) {
        PyErr_SetString(PyExc_ValueError, "lengths differ");
        Py_DECREF(fast);
        return NULL;
    }
    where = (long *)alloca((n + 1) * sizeof(long));
    for (i = 0; i < n; i++) {
        PyObject *w = PySequence_GetItem(perm, i);
        if (w == NULL) {
            Py_DECREF(fast);
            return NULL;
        }
        where[i] = PyLong_AsLong(w);
        Py_DECREF(w);
        if (where[i] < 0 || where[i] >= n) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_IndexError, "position out of range");
            Py_DECREF(fast);
            return NULL;
        }
    }
    items = PySequence_Fast_ITEMS(fast);
    for (i = 0; i < n;) {
        long c = where[i];
        if (c == i || where[c] == c)
            i++;
        else {
            SWAP(where[i], where[c], long);
            SWAP(items[i], items[c], PyObject*);
        }
    }
    result = PyList_New(n);
    if (result == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        Py_INCREF(items[i]);
        if (PyList_SetItem(result, i, items[i]) == -1) {
            Py_CLEAR(result);
            goto done;
        }
    }
  done:
    Py_DECREF(fast);
    return result;
}

static PyMethodDef methods[] = {
    {"reversed_plus_one", reversed_plus_one, METH_VARARGS, NULL},
    {"strs", strs, METH_O, NULL},
    {"placed", placed, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "handlearrays", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_handlearrays(void)
{
    return PyModule_Create(&moduledef);
}
'''

SCRIPT = r'''
class Bad:
    def __str__(self):
        raise KeyError("no str")
l = [10, 20, 30, 40]
out = [
    outcome(m.reversed_plus_one, 1, 2.5, 3),
    outcome(m.reversed_plus_one),
    outcome(m.reversed_plus_one, 1, "x"),
    outcome(m.reversed_plus_one, *range(300)),
    outcome(m.strs, [1, "a", None, 2.5]),
    outcome(m.strs, ()),
    outcome(m.strs, [1, Bad(), 2]),
    outcome(m.strs, list(range(300))),
    outcome(m.placed, ("a", "b", "c"), [2, 0, 1]),
    outcome(m.placed, (x for x in "wxyz"), [3, 2, 1, 0]),
    outcome(m.placed, l, [1, 0, 3, 2]),
    l,
    outcome(m.placed, "ab", [0, 5]),
    outcome(m.placed, "ab", [0]),
    outcome(m.placed, 5, [0]),
]
print(repr(out))
'''


def test_allocated_object_arrays_become_handle_arrays():
    out = translate.translate_source(SRC)
    assert "Cystck_Object* made = (Cystck_Object *)alloca((n + 1) * sizeof(Cystck_Object));" in out
    assert "parts = malloc((n + 1) * sizeof(Cystck_Object));" in out
    assert "Cystck_Object *parts;" in out
    assert "alloca((n + 1) * sizeof(long))" in out       # not objects: as it was


def test_a_swapped_item_array_stays_stock():
    out = translate.translate_source(SRC)
    assert "/* cystck-migrate: escape hatch */ PyObject** items;" in out
    assert "SWAP(items[i], items[c], PyObject*);" in out
    assert "Cystck_FromPyObject(S, /* cystck-migrate: escape hatch */ items[i])" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("handlearrays", SRC, SCRIPT)
    assert want[0] == [4, 3.5, 2]
    assert want[8] == ["b", "c", "a"]
    assert want[11] == [20, 10, 40, 30]          # a list's own item array: swapped in place
