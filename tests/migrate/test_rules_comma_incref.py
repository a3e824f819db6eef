"""An increment inside an expression, ``r = (Py_INCREF(self->v),
self->v);`` or ``return Py_INCREF(o), o;`` (a new reference, as
``Py_NewRef`` gives), goes before its statement (the comma-incref rule),
where the incref rule ports it: dropped, or a handle of its own where the
reference is consumed (``PyTuple_SET_ITEM``) or returned by a helper.
Before, it was kept through the escape hatch, a reference nothing released
(the object leaked).  Where its statement is no plain one (a condition) it
stays, and is reported.  The translation builds and behaves as the stock
build, objects' reference counts included, in release and with
CYSTCK_DEBUG=1."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject_HEAD PyObject *v; } Box;

static PyObject *
keep(PyObject *o)
{
    return Py_INCREF(o), o;
}

static PyObject *
Box_get(Box *self, PyObject *unused)
{
    PyObject *r;
    if (self->v == NULL)
        Py_RETURN_NONE;
    r = (Py_INCREF(self->v), self->v);
    return r;
}

static PyObject *
Box_set(Box *self, PyObject *v)
{
    Py_XSETREF(self->v, (Py_INCREF(v), v));
    Py_RETURN_NONE;
}

static PyObject *
Box_pair(Box *self, PyObject *v)
{
    PyObject *t = PyTuple_New(2);
    if (t == NULL)
        return NULL;
    PyTuple_SET_ITEM(t, 0, (Py_INCREF(v), v));
    if (self->v)
        PyTuple_SET_ITEM(t, 1, (Py_INCREF(self->v), self->v));
    else
        PyTuple_SET_ITEM(t, 1, (Py_INCREF(Py_None), Py_None));
    return t;
}

static PyObject *
Box_via(Box *self, PyObject *o)
{
    PyObject *r = keep(o), *res;
    res = PyObject_Repr(r);
    Py_DECREF(r);
    return res;
}

static PyObject *
Box_or_none(Box *self, PyObject *unused)
{
    PyObject *r = self->v;
    if (r == NULL)
        r = Py_None, Py_INCREF(r);
    else
        Py_INCREF(r);
    return r;
}

static void
Box_dealloc(Box *self)
{
    Py_XDECREF(self->v);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Box_methods[] = {
    {"get", (PyCFunction)Box_get, METH_NOARGS, NULL},
    {"set", (PyCFunction)Box_set, METH_O, NULL},
    {"pair", (PyCFunction)Box_pair, METH_O, NULL},
    {"via", (PyCFunction)Box_via, METH_O, NULL},
    {"or_none", (PyCFunction)Box_or_none, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "commainc.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_methods = Box_methods,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "commainc", NULL, -1, NULL};

PyMODINIT_FUNC PyInit_commainc(void)
{
    PyObject *m;
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    if (!(m = PyModule_Create(&moddef)))
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

SCRIPT = r"""
o = object()
k = "k" * 30
base = sys.getrefcount(o), sys.getrefcount(k)
b = m.Box()
out = [b.get(), b.pair(1), b.or_none()]
for i in range(20):
    b.set(o)
    b.get()
    b.or_none()
    b.pair(k)
    b.via(k)
out.append([sys.getrefcount(o) - base[0], sys.getrefcount(k) - base[1]])
b.set(k)
out += [b.get() == k, b.pair(2) == (2, k), b.via([3]), b.or_none() == k]
del b
out.append([sys.getrefcount(o) - base[0], sys.getrefcount(k) - base[1]])
print(out)
"""
EXPECTED = [None, (1, None), None, [1, 0], True, True, "[3]", True, [0, 0]]


def test_an_increment_in_an_expression_goes_before_its_statement():
    out = translate.translate_source(SRC)
    assert "    return Cystck_Dup(S, o);\n" in out
    assert "    r = CystckField_Load(S, self, Box_AsStruct(S, self)->v);\n" in out
    assert "    CystckField_Store(S, self, &Box_AsStruct(S, self)->v, v);\n" in out
    assert "    CystckTuple_SET_ITEM(S, t, 0, Cystck_Dup(S, v));\n" in out
    assert "CystckTuple_SET_ITEM(S, t, 1, Cystck_Dup(S, Cystck_None)); }" in out
    assert "escape hatch" not in out
    # x = v, Py_INCREF(x); as an if's body: two statements, braced (before:
    # the increment went and the comma pulled the next statement in)
    assert "    if (Cystck_IsNull(r))\n        { r = Cystck_Dup(S, Cystck_None); " in out


def test_an_increment_in_a_condition_stays():
    # negative: no statement to go before (and another second operand)
    src = ("static PyObject *f(PyObject *a, PyObject *b)\n{\n"
           "    while ((Py_INCREF(a), a) != b)\n        b = g(b);\n"
           "    return (Py_INCREF(a), b);\n}\n")
    out = translate.translate_source(src)
    assert out.count("escape hatch */ Py_INCREF(Cystck_AsPyObject(S, a))") == 2


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("commainc", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    # before: each increment was kept stock, and o and k leaked
    assert run_script(SCRIPT, built[1], debug) == EXPECTED
