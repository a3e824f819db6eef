"""A setter (a ``tp_getset`` function) called directly, in its own file
or in another one that sees its declaration, ``if (Box_set_n(self, v,
NULL) < 0)``: its Cystck convention is the stock one with the state
first (objects, the closure, an int), so the call only gets ``S``, and a
call that passes no closure gets ``NULL``.  It was reported as a direct
call of an entry point that "now takes an argument array and returns a
push count", true of neither.  A getter called from another file gets
its value through ``Cystck_PopResult``, as in its own file.  A direct
call of another entry point is still reported, with what changed
(negative).  Stock and translated builds answer alike, in release and
with CYSTCK_DEBUG=1."""
import pytest

from cystck.migrate import translate

NAME = "setcall"
HEADER = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
typedef struct { PyObject_HEAD long n; } Box;
PyObject *Box_get_n(Box *self, void *closure);
int Box_set_n(Box *self, PyObject *v, void *closure);
PyObject *twice(Box *self, PyObject *unused);
'''
BOX = r'''#include "box.h"

PyObject *
Box_get_n(Box *self, void *closure)
{
    return PyLong_FromLong(self->n);
}

int
Box_set_n(Box *self, PyObject *v, void *closure)
{
    long n;
    if (v == NULL) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete n");
        return -1;
    }
    n = PyLong_AsLong(v);
    if (n == -1 && PyErr_Occurred())
        return -1;
    self->n = n;
    return 0;
}

static PyObject *
set_and_get(Box *self, PyObject *v)
{
    if (Box_set_n(self, v, NULL) < 0)
        return NULL;
    return Box_get_n(self, NULL);
}

static PyObject *
parse(Box *self, PyObject *args)
{
    PyObject *v;
    if (!PyArg_ParseTuple(args, "O", &v))
        return NULL;
    return set_and_get(self, v);
}

static PyGetSetDef Box_getset[] = {
    {"n", (getter)Box_get_n, (setter)Box_set_n, NULL, NULL},
    {NULL}
};

static PyMethodDef Box_methods[] = {
    {"set_and_get", (PyCFunction)set_and_get, METH_O, NULL},
    {"parse", (PyCFunction)parse, METH_VARARGS, NULL},
    {"twice", (PyCFunction)twice, METH_NOARGS, NULL},
    {NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "setcall.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_getset = Box_getset,
    .tp_methods = Box_methods,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "setcall", NULL, -1, NULL};

PyMODINIT_FUNC PyInit_setcall(void)
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
OTHER = r'''#include "box.h"

PyObject *
twice(Box *self, PyObject *unused)
{
    PyObject *v = Box_get_n(self, NULL), *r;
    if (v == NULL)
        return NULL;
    r = PyNumber_Add(v, v);
    Py_DECREF(v);
    if (r == NULL)
        return NULL;
    if (Box_set_n(self, r, NULL) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}
'''
FILES = {"box.h": HEADER, "box.c": BOX, "other.c": OTHER}

SCRIPT = r"""
b = m.Box()
out = [b.n, b.set_and_get(4), b.n, b.twice(), b.n, outcome(b.set_and_get, "x"), outcome(delattr, b, "n")]
b.n = 1 << 40
out.append(outcome(b.twice))
b.n = (1 << 62)
out.append(outcome(b.twice))
out.append(b.parse(7))
print(repr(out))
"""


def test_setter_calls_keep_their_arguments_and_are_not_reported():
    units = translate.translate_files(FILES)
    box, other = units["box.c"], units["other.c"]
    assert "if (Box_set_n(S, self, v, NULL) < 0)" in box.text
    assert "if (Box_set_n(S, self, r, NULL) < 0)" in other.text
    assert "Cystck_Object v = Cystck_PopResult(S, Box_get_n(S, self, NULL)), r;" in other.text
    notes = [n.message for u in units.values() for n in u.notes if n.kind == "leftover"]
    assert not any("Box_set_n" in n or "Box_get_n" in n for n in notes), notes
    # negative: a METH_VARARGS method called directly with its tuple
    assert "direct call of entry point set_and_get" not in " ".join(notes)
    src = BOX.replace("    return Box_get_n(self, NULL);\n}\n\nstatic PyObject *\nparse",
                      "    return parse(self, v);\n}\n\nstatic PyObject *\nparse")
    assert src != BOX
    notes = [n.message for n in translate.translate_files({"box.h": HEADER, "box.c": src})["box.c"].notes]
    assert "direct call of entry point parse: it now takes an argument array and returns a push count " \
           "(pop the result with Cystck_Pop)" in notes


@pytest.fixture(scope="module")
def builds(stock_and_translated_files):
    return stock_and_translated_files(NAME, FILES, ["box.c", "other.c"])


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_both_builds_answer_alike(builds, run_script, debug):
    want = run_script(SCRIPT, builds["stock"])
    assert want[:5] == [0, 4, 4, 8, 8]
    assert want[5][0] == "TypeError" and want[6] == ("AttributeError", "cannot delete n")
    assert want[7] == 1 << 41 and want[8][0] == "OverflowError" and want[9] == 7
    assert run_script(SCRIPT, builds["cystck"], debug=debug) == want
