"""An entry point's argument array handed to a helper of the extension
that takes an item array (``PyObject **``, made ``Cystck_Object *``):
``sum_items((PyObject **)&args[1], nargs - 1)`` kept its cast to the
stock item pointer, which the helper's handle array parameter does not
take (an incompatible-pointer-types error under ``--check``).  A cast of
a handle array (``&args[i]``, ``args + i``, ``args``) to an item array is
now a cast to a handle array: the helper reads the caller's handles.  A
cast of a pointer that is no handle array (``(PyObject **)p``, p a
``void *``) stays.  Stock and translated builds answer alike, in release
and with CYSTCK_DEBUG=1.  (An item pointer of a tuple or of
``PySequence_Fast_ITEMS`` handed to such a helper is not ported:
docs/gaps.md T27.)"""
from cystck.migrate import translate

SOURCE = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* the sum of n items, as Python adds them */
static PyObject *
sum_items(PyObject **items, Py_ssize_t n)
{
    PyObject *total = PyLong_FromLong(0), *t;
    Py_ssize_t i;
    if (total == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        t = PyNumber_Add(total, items[i]);
        Py_DECREF(total);
        if (t == NULL)
            return NULL;
        total = t;
    }
    return total;
}

/* sum_args(first, *rest): the sum of the arguments after the first */
static PyObject *
sum_args(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "sum_args needs an argument");
        return NULL;
    }
    return sum_items((PyObject **)&args[1], nargs - 1);
}

/* sum_from(k, *items): the sum of the items from the k-th on */
static PyObject *
sum_from(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t k;
    if (nargs < 1 || (k = PyLong_AsSsize_t(args[0])) < 0 || k >= nargs) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_IndexError, "sum_from: k out of range");
        return NULL;
    }
    return sum_items((PyObject **)(args + 1 + k), nargs - 1 - k);
}

/* sum_all(*items) */
static PyObject *
sum_all(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return sum_items((PyObject **)args, nargs);
}

static PyMethodDef methods[] = {
    {"sum_args", (PyCFunction)(void (*)(void))sum_args, METH_FASTCALL, NULL},
    {"sum_from", (PyCFunction)(void (*)(void))sum_from, METH_FASTCALL, NULL},
    {"sum_all", (PyCFunction)(void (*)(void))sum_all, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moddef);
}
'''

NEAR_MISS = r'''#include <Python.h>
static PyObject *first(void *p) { PyObject **items = (PyObject **)p; return PyNumber_Negative(items[0]); }
'''

SCRIPT = r"""
print(repr([m.sum_args(0, 1, 2, 3), m.sum_args(0), outcome(m.sum_args), outcome(m.sum_args, 0, 1, "x"),
            outcome(m.sum_args, None, "a", "b"),
            m.sum_from(1, 10, 20, 30), m.sum_from(0, 5), outcome(m.sum_from, 3, 1), outcome(m.sum_from, "x"),
            m.sum_all(), m.sum_all(1, 2.5), outcome(m.sum_all, 1, [])]))
"""


def test_the_cast_is_to_a_handle_array():
    out = translate.translate_source(SOURCE.replace("NAME", "xitemcast"))
    assert "sum_items(S, (Cystck_Object *)&args[1], nargs - 1)" in out
    assert "sum_items(S, (Cystck_Object *)(args + 1 + k), nargs - 1 - k)" in out
    assert "sum_items(S, (Cystck_Object *)args, nargs)" in out
    assert "PyObject **)" not in out


def test_a_pointer_that_is_no_handle_array_keeps_its_cast():
    assert "(PyObject **)p" in translate.translate_source(NEAR_MISS)


def test_same_as_stock(same_as_stock):
    want = same_as_stock("xitemcast", SOURCE.replace("NAME", "xitemcast"), SCRIPT)
    assert want[:3] == [6, 0, ("TypeError", "sum_args needs an argument")]
    assert want[5:7] == [50, 5]
