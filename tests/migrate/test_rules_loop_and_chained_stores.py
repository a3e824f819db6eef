"""Stores whose value is used beyond ``if``/``while`` conditions: a ``for``
loop's condition (``for (; (x = PyIter_Next(it)); )``, into a handle or an
object field), chained stores (``x = self->v = y;``, ``self->v = self->w
= y;``, split into one store a statement by the chained-stores rule),
nested ones (``self->v = (self->w = x)``), a store returned (``return
self->v = x;``) or the left operand of a comma, and a field tested by
``?:`` as an argument.  The translation builds and behaves as the stock
build, in release and with CYSTCK_DEBUG=1."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject_HEAD PyObject *v; PyObject *w; } Box;

static PyObject *
count_for(PyObject *self, PyObject *o)
{
    PyObject *it, *x;
    long n = 0;
    if (!(it = PyObject_GetIter(o)))
        return NULL;
    for (; (x = PyIter_Next(it)); ) {
        n++;
        Py_DECREF(x);
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromLong(n);
}

static PyObject *
remember(Box *self, PyObject *x)
{
    return self->v = x;
}

static PyObject *
Box_drain(Box *self, PyObject *o)
{
    PyObject *it;
    long n = 0;
    if (!(it = PyObject_GetIter(o)))
        return NULL;
    while ((self->v = PyIter_Next(it)))
        n++;
    for (; (self->w = PyIter_Next(it)); )
        n++;
    Py_DECREF(it);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromLong(n);
}

static PyObject *
Box_nested(Box *self, PyObject *x)
{
    Py_INCREF(x);
    Py_INCREF(x);
    Py_XSETREF(self->w, NULL);
    Py_XDECREF(self->v);
    self->v = (self->w = x);
    Py_RETURN_NONE;
}

static PyObject *
Box_chained(Box *self, PyObject *y)
{
    PyObject *x;
    Py_XDECREF(self->v);
    Py_INCREF(y);
    x = self->v = y;
    Py_INCREF(x);
    return x;
}

static PyObject *
Box_both(Box *self, PyObject *y)
{
    Py_XDECREF(self->v);
    Py_XDECREF(self->w);
    Py_INCREF(y);
    Py_INCREF(y);
    if (y != Py_None)
        self->v = self->w = y;
    else
        self->v = self->w = NULL;
    Py_RETURN_NONE;
}

static PyObject *
Box_comma(Box *self, PyObject *o)
{
    Py_XDECREF(self->v);
    if ((self->v = PyObject_Repr(o), self->v == NULL))
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
Box_ret(Box *self, PyObject *o)
{
    Py_XDECREF(self->v);
    Py_INCREF(o);
    Py_INCREF(o);
    return remember(self, o);
}

static PyObject *
Box_get(Box *self, PyObject *unused)
{
    return Py_BuildValue("OO", self->v ? self->v : Py_None, self->w ? self->w : Py_None);
}

static void
Box_dealloc(Box *self)
{
    Py_XDECREF(self->v);
    Py_XDECREF(self->w);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Box_methods[] = {
    {"drain", (PyCFunction)Box_drain, METH_O, NULL},
    {"nested", (PyCFunction)Box_nested, METH_O, NULL},
    {"chained", (PyCFunction)Box_chained, METH_O, NULL},
    {"both", (PyCFunction)Box_both, METH_O, NULL},
    {"comma", (PyCFunction)Box_comma, METH_O, NULL},
    {"ret", (PyCFunction)Box_ret, METH_O, NULL},
    {"get", (PyCFunction)Box_get, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "loopstores.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_methods = Box_methods,
};

static PyMethodDef methods[] = {
    {"count_for", count_for, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "loopstores", NULL, -1, methods};

PyMODINIT_FUNC PyInit_loopstores(void)
{
    PyObject *m;
    int i, j;
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    i = j = 0;
    if (!(m = PyModule_Create(&moddef)))
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < i + j) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

SCRIPT = r"""
b = m.Box()
out = [m.count_for([1, 2, 3]), b.drain(range(4)), b.get()]
b.nested("n"); out.append(b.get())
out += [b.chained("c"), b.get()]
b.both("b"); out.append(b.get())
b.both(None); out.append(b.get())
b.comma(5); out.append(b.get())
out += [b.ret([1]), b.get()]
o = object()
before = sys.getrefcount(o)
for i in range(50):
    b.both(o); b.chained(o); b.nested(o)
b.both(None)
out.append(sys.getrefcount(o) - before)
print(out)
"""
EXPECTED = [3, 4, (None, None), ("n", "n"), "c", ("c", "n"), ("b", "b"), (None, None), ("5", None),
            [1], ([1], None), 0]

FIELD = "Box_AsStruct(S, self)->"


def test_a_for_loops_condition_tests_what_it_stores():
    out = translate.translate_source(SRC)
    # (the loop-release rule may put a release before the test)
    assert "!Cystck_IsNull(x = CystckIter_Next(S, it))); ) {" in out
    assert (f"for (; (CystckField_Store(S, self, &{FIELD}w, CystckIter_Next(S, it)), "
            f"!CystckField_IsNull({FIELD}w)); )") in out


def test_chained_nested_and_returned_stores():
    out = translate.translate_source(SRC)
    assert (f"CystckField_Store(S, self, &{FIELD}v, y); x = CystckField_Load(S, self, {FIELD}v);") in out
    assert (f"        {{ CystckField_Store(S, self, &{FIELD}w, y); "
            f"CystckField_Store(S, self, &{FIELD}v, CystckField_Load(S, self, {FIELD}w)); }}\n    else\n") in out
    assert (f"CystckField_Store(S, self, &{FIELD}v, (CystckField_Store(S, self, &{FIELD}w, x), "
            f"CystckField_Load(S, self, {FIELD}w)));") in out
    assert (f"return (CystckField_Store(S, self, &{FIELD}v, x), CystckField_Load(S, self, {FIELD}v));") in out
    assert (f"if (((CystckField_Store(S, self, &{FIELD}v, CystckObject_Repr(S, o)), "
            f"CystckField_Load(S, self, {FIELD}v)), CystckField_IsNull({FIELD}v)))") in out
    assert f"!CystckField_IsNull({FIELD}v) ? CystckField_Load(S, self, {FIELD}v) : Cystck_None" in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


def test_chains_of_plain_values_stay():
    out = translate.translate_source(SRC)
    # negative: a chain of ints is not split
    assert "    i = j = 0;\n" in out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    # before: `for (; (x = ...); )` tested a handle as a scalar, `x =
    # CystckField_Store(...)` used a void value: neither compiled
    return stock_and_translated("loopstores", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    assert run_script(SCRIPT, built[1], debug) == EXPECTED


def test_a_chain_not_split_nests_its_inner_store():
    """A chain whose target has an index expression is not split; its inner
    store gives its value to the outer one (before, both tails went to the
    same place in the wrong order: the outer store got three arguments)."""
    src = ("typedef struct { PyObject_HEAD PyObject *items[4]; PyObject *v; } Box;\n"
           "static PyObject *f(Box *self, PyObject *y)\n{\n    int i = 0;\n"
           "    self->items[i + 1] = self->v = y;\n    return y;\n}\n")
    out = translate.translate_source(src)
    assert ("    CystckField_Store(S, self, &Box_AsStruct(S, self)->items[i + 1], "
            "(CystckField_Store(S, self, &Box_AsStruct(S, self)->v, y), "
            "CystckField_Load(S, self, Box_AsStruct(S, self)->v)));\n") in out
