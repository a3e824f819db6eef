"""An increment of an element of a handle array (or a plain struct's
handle member) handed next to a function that consumes it,
``Py_INCREF(items[k]); PyTuple_SET_ITEM(t, k, items[k]);``, with the
element released later (``Py_DECREF(items[k])``), gives the consuming call
a handle of its own, ``Cystck_Dup(S, items[k])`` (rule incref), as it did
for a plain name.  Before, the increment was dropped and the call consumed
the element's handle itself: the later release (and any read between)
used a released handle, which debug mode reports.  Stock and translated
builds answer alike, reference counts included, in release and with
CYSTCK_DEBUG=1."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject *cb; PyObject *arg; } Job;

static PyObject *
spread(PyObject *self, PyObject *args)
{
    PyObject *items[3], *t, *r;
    int order[3] = {2, 0, 1};
    int k;
    for (k = 0; k < 3; k++) {
        items[k] = PyLong_FromLong(100000 + k);
        if (items[k] == NULL)
            return NULL;
    }
    t = PyTuple_New(3);
    if (t == NULL)
        return NULL;
    for (k = 0; k < 3; k++) {
        Py_INCREF(items[order[k]]);
        PyTuple_SET_ITEM(t, k, items[order[k]]);
    }
    r = PyTuple_Pack(2, t, items[1]);
    Py_DECREF(t);
    for (k = 0; k < 3; k++)
        Py_DECREF(items[k]);
    return r;
}

static PyObject *
listed(PyObject *self, PyObject *args)
{
    Job job;
    PyObject *l;
    if (!PyArg_ParseTuple(args, "OO", &job.cb, &job.arg))
        return NULL;
    l = PyList_New(2);
    if (l == NULL)
        return NULL;
    Py_INCREF(job.cb);
    PyList_SET_ITEM(l, 0, job.cb);
    Py_INCREF(job.arg);
    if (PyList_SetItem(l, 1, job.arg) < 0) {
        Py_DECREF(l);
        return NULL;
    }
    return Py_BuildValue("NO", l, job.cb);
}

static PyMethodDef methods[] = {
    {"spread", spread, METH_NOARGS, NULL},
    {"listed", listed, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "itemdup", NULL, -1, methods};

PyMODINIT_FUNC PyInit_itemdup(void)
{
    return PyModule_Create(&moddef);
}
'''

SCRIPT = r"""
o, p = object(), "p" * 40
base = sys.getrefcount(o), sys.getrefcount(p)
l = m.listed(o, p)
out = [m.spread(), [l[0][0] is o, l[0][1] is p, l[1] is o]]
del l
for i in range(50):
    m.spread()
    m.listed(o, p)
out.append([sys.getrefcount(o) - base[0], sys.getrefcount(p) - base[1]])
print(out)
"""
EXPECTED = [((100002, 100000, 100001), 100001), [True, True, True], [0, 0]]


def test_the_consuming_call_gets_a_handle_of_its_own():
    out = translate.translate_source(SRC)
    assert "CystckTuple_SET_ITEM(S, t, k, Cystck_Dup(S, items[order[k]]));" in out
    assert "CystckList_SET_ITEM(S, l, 0, Cystck_Dup(S, job.cb));" in out
    assert "CystckList_SetItem(S, l, 1, Cystck_Dup(S, job.arg))" in out
    assert "Py_INCREF" not in out


def test_an_object_field_is_loaded_not_duplicated():
    # negative: an object's field consumed is a load, a handle of its own
    src = ("typedef struct { PyObject_HEAD PyObject *v; } Box;\n"
           "static PyObject *f(Box *self, PyObject *t)\n{\n"
           "    Py_INCREF(self->v);\n    PyTuple_SET_ITEM(t, 0, self->v);\n    Py_RETURN_NONE;\n}\n")
    out = translate.translate_source(src)
    assert "CystckTuple_SET_ITEM(S, t, 0, CystckField_Load(S, self, Box_AsStruct(S, self)->v));" in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("itemdup", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    # before: the increment was dropped and the consuming call took the
    # element's own handle, which the later Py_DECREF released again
    assert run_script(SCRIPT, built[1], debug) == EXPECTED
