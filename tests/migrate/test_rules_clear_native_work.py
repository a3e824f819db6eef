"""A type's ``tp_clear`` that does more than release its object members
(``cleared_items += self->len; self->len = 0;`` beside the ``Py_CLEAR``s)
keeps that work: the destroy-traverse rule turns it into the type's clear
hook, ``void Bag_clear(void *data)`` without the releases, registered with
``CYSTCK_DEF_CLEAR``; the runtime's clear releases the fields through
traverse, then calls it.  A destructor's call of it stays (the runtime
takes the fields before the destructor runs).  Before, the whole function
went, and a collection (or a deallocation) no longer counted.  Stock and
translated builds answer alike, in release and with CYSTCK_DEBUG=1."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static Py_ssize_t cleared_items = 0;

typedef struct {
    PyObject_HEAD
    PyObject *items[4];
    Py_ssize_t len;
    int *marks;
} Bag;

static int Bag_clear(Bag *self);

static int
Bag_traverse(Bag *self, visitproc visit, void *arg)
{
    Py_ssize_t i;
    for (i = 0; i < self->len; i++)
        Py_VISIT(self->items[i]);
    return 0;
}

static int
Bag_clear(Bag *self)
{
    Py_ssize_t i;
    for (i = 0; i < self->len; i++)
        Py_CLEAR(self->items[i]);
    cleared_items += self->len;
    self->len = 0;
    return 0;
}

static void
Bag_dealloc(Bag *self)
{
    PyObject_GC_UnTrack(self);
    Bag_clear(self);
    PyMem_Free(self->marks);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Bag_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    Bag *self = (Bag *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->len = 0;
    self->marks = PyMem_Malloc(4 * sizeof(int));
    return (PyObject *)self;
}

static PyObject *
Bag_add(Bag *self, PyObject *o)
{
    if (self->len == 4) {
        PyErr_SetString(PyExc_ValueError, "full");
        return NULL;
    }
    Py_INCREF(o);
    self->items[self->len++] = o;
    Py_RETURN_NONE;
}

static Py_ssize_t
Bag_length(Bag *self)
{
    return self->len;
}

static PyMethodDef Bag_methods[] = {
    {"add", (PyCFunction)Bag_add, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static PySequenceMethods Bag_as_sequence = {
    .sq_length = (lenfunc)Bag_length,
};

static PyTypeObject BagType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bagclear.Bag",
    .tp_basicsize = sizeof(Bag),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_new = Bag_new,
    .tp_dealloc = (destructor)Bag_dealloc,
    .tp_traverse = (traverseproc)Bag_traverse,
    .tp_clear = (inquiry)Bag_clear,
    .tp_methods = Bag_methods,
    .tp_as_sequence = &Bag_as_sequence,
};

static PyObject *
cleared(PyObject *self, PyObject *unused)
{
    return PyLong_FromSsize_t(cleared_items);
}

static PyMethodDef methods[] = {
    {"cleared", cleared, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "bagclear", NULL, -1, methods};

PyMODINIT_FUNC PyInit_bagclear(void)
{
    PyObject *m;
    if (PyType_Ready(&BagType) < 0)
        return NULL;
    if (!(m = PyModule_Create(&moddef)))
        return NULL;
    Py_INCREF(&BagType);
    if (PyModule_AddObject(m, "Bag", (PyObject *)&BagType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

SCRIPT = r"""
import gc
gc.disable()
out = []
b = m.Bag()
b.add(object())
b.add(b)
out.append(len(b))
del b
gc.collect()
out.append(m.cleared())          # the collection's clear counted 2
b = m.Bag()
b.add(1)
b.add("x")
b.add(2.5)
del b
out.append(m.cleared())          # the deallocation's call counted 3 more
class Sub(m.Bag):
    pass
s = Sub()
s.me = s
s.add(s)
del s
gc.collect()
out.append(m.cleared())          # a subclass's instance in a cycle: 1 more
print(out)
"""
EXPECTED = [2, 2, 5, 6]


def test_the_clear_keeps_its_native_work():
    out = translate.translate_source(SRC)
    assert "CYSTCK_DEF_CLEAR(BagType_tp_clear, Bag_clear)" in out
    assert "static void Bag_clear(void *data);" in out
    assert "    cleared_items += self->len;\n    self->len = 0;\n" in out
    assert "Py_CLEAR" not in out


def test_a_clear_releasing_members_only_goes():
    # negative: nothing but releases (and NULL stores): no hook, as before
    src = SRC.replace("    cleared_items += self->len;\n    self->len = 0;\n", "")
    out = translate.translate_source(src)
    assert "CYSTCK_DEF_CLEAR" not in out and "Bag_clear" not in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("bagclear", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    # before: [2, 0, 0, 0]: the clear function was dropped whole
    assert run_script(SCRIPT, built[1], debug) == EXPECTED
