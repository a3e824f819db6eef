"""An object member parsed by address, ``PyArg_ParseTuple(args, "|O",
&self->obj)``: the parse-into-members rule parses into a local the member
takes after the statement.  Before, the member (a ``Cystck_Field`` once
translated) was handed to the parser, which wrote a handle of the call
into it: the first read after the call crashed (found by corpus7 while
testing a tp_init; seen in no corpus extension yet)."""
import pytest

from cystck.migrate import translate

PARSED = r'''#include <Python.h>

typedef struct {
    PyObject_HEAD
    PyObject *first;
    PyObject *second;
    long n;
} Pair;

static int Pair_init(Pair *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"first", "second", "n", NULL};
    PyObject *old_first = self->first, *old_second = self->second;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOl", kwlist,
                                     &self->first, &self->second, &self->n))
        return -1;
    Py_XINCREF(self->first);
    Py_XINCREF(self->second);
    Py_XDECREF(old_first);
    Py_XDECREF(old_second);
    return 0;
}

static PyObject *Pair_set_first(Pair *self, PyObject *args)
{
    PyObject *old = self->first;
    int ok = PyArg_ParseTuple(args, "O", &self->first);
    if (!ok)
        return NULL;
    Py_INCREF(self->first);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyObject *Pair_get(Pair *self, PyObject *unused)
{
    return Py_BuildValue("(OOl)", self->first ? self->first : Py_None,
                         self->second ? self->second : Py_None, self->n);
}

static void Pair_dealloc(Pair *self)
{
    Py_XDECREF(self->first);
    Py_XDECREF(self->second);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Pair_methods[] = {
    {"set_first", (PyCFunction)Pair_set_first, METH_VARARGS, NULL},
    {"get", (PyCFunction)Pair_get, METH_NOARGS, NULL},
    {NULL}
};

static PyTypeObject PairType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "parsedmembers.Pair",
    .tp_basicsize = sizeof(Pair),
    .tp_dealloc = (destructor)Pair_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_init = (initproc)Pair_init,
    .tp_new = PyType_GenericNew,
    .tp_methods = Pair_methods,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "parsedmembers", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_parsedmembers(void)
{
    if (PyType_Ready(&PairType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&PairType);
    if (PyModule_AddObject(m, "Pair", (PyObject *)&PairType) < 0)
        return NULL;
    return m;
}
'''


def test_members_are_parsed_into_locals():
    out = translate.translate_source(PARSED, "parsedmembers.c")
    assert "&Pair_AsStruct(S, self)->first" not in out.split("CystckArg_ParseTupleAndKeywords")[1].split(";")[0]
    assert "&cystck_parsed_1, &cystck_parsed_2, &Pair_AsStruct(S, self)->n" in out   # a long stays a long
    assert "CystckField_Store(S, self, &Pair_AsStruct(S, self)->first, cystck_parsed_1);" in out
    assert "int ok = CystckArg_ParseTuple(S, args, nargs, \"O\", &cystck_parsed_3);" in out


def test_a_member_that_is_no_object_is_left_alone():
    """Negative: only object members change (``&self->n``, a long, is
    written by the parser as it is)."""
    text = PARSED.replace("&self->first, &self->second, &self->n", "&self->n, &self->n, &self->n")
    text = text.replace('"O", &self->first', '"l", &self->n')
    out = translate.translate_source(text, "parsedmembers.c")
    assert "cystck_parsed_" not in out


def test_parsed_members_behave_like_the_stock_build(same_as_stock):
    script = ("import gc, sys\n"
              "a, b = object(), [1]\n"
              "p = m.Pair(a, b, 3)\nr = [p.get()[0] is a, p.get()[1] is b, p.get()[2]]\n"
              "q = m.Pair()\nr.append(q.get())\n"
              "for i in range(1000):\n    p.set_first(str(i))\n"
              "r.append(p.get()[0])\n"
              "r.append(outcome(p.set_first))\n"
              "r.append(p.get()[0])\n"
              "p.__init__(second='s')\nr.append(p.get()[1:])\n"
              "r.append(sys.getrefcount(b) - sys.getrefcount([]))\n"
              "del p, q\ngc.collect()\n"
              "print(repr(r))\n")
    want = same_as_stock("parsedmembers", PARSED, script)
    assert want[:5] == [True, True, 3, (None, None, 0), '999']
    assert want[5][0] == "TypeError"


GLOBALS = r'''#include <Python.h>

typedef struct {
    PyObject *hook;
} modstate;

static PyObject *callback = NULL;

static PyObject *set_callback(PyObject *self, PyObject *args)
{
    PyObject *old = callback;
    if (!PyArg_ParseTuple(args, "O", &callback))
        return NULL;
    Py_INCREF(callback);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyObject *set_hook(PyObject *self, PyObject *args)
{
    modstate *st = (modstate *)PyModule_GetState(self);
    PyObject *old = st->hook;
    if (!PyArg_ParseTuple(args, "O", &st->hook))
        return NULL;
    Py_INCREF(st->hook);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyObject *get(PyObject *self, PyObject *unused)
{
    modstate *st = (modstate *)PyModule_GetState(self);
    return PyTuple_Pack(2, callback ? callback : Py_None, st->hook ? st->hook : Py_None);
}

static PyMethodDef methods[] = {
    {"set_callback", set_callback, METH_VARARGS, NULL},
    {"set_hook", set_hook, METH_VARARGS, NULL},
    {"get", get, METH_NOARGS, NULL},
    {NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "parsedglobals", NULL, sizeof(modstate), methods};

PyMODINIT_FUNC
PyInit_parsedglobals(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_globals_and_module_state_members_are_parsed_into_locals():
    out = translate.translate_source(GLOBALS, "parsedglobals.c")
    assert '"O", &cystck_parsed_1)' in out and '"O", &cystck_parsed_2)' in out
    assert "callback = Cystck_ref(S, cystck_parsed_1);" in out


def test_parsed_globals_behave_like_the_stock_build(same_as_stock):
    script = ("import gc, sys\n"
              "f, g = (lambda: 1), (lambda: 2)\n"
              "m.set_callback(f)\nm.set_hook(g)\nr = [m.get() == (f, g)]\n"
              "for i in range(1000):\n    m.set_callback(str(i))\n    m.set_hook(str(-i))\n"
              "r.append(m.get())\n"

              "r.append(outcome(m.set_callback))\nr.append(m.get())\n"
              # the old value's count: each store released what it replaced
              "h = object()\nbase = sys.getrefcount(h)\n"
              "for i in range(100):\n    m.set_callback(h)\n    m.set_hook(h)\n"
              "m.set_callback(1)\nm.set_hook(2)\n"
              "r.append(sys.getrefcount(h) - base)\n"
              "print(repr(r))\n")
    want = same_as_stock("parsedglobals", GLOBALS, script)
    assert want[:2] == [True, ('999', '-999')] and want[2][0] == "TypeError"
    assert want[4] == 0
