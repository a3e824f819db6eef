"""A keywords method that gives its ``kw`` to ``PyObject_Call`` gives the
dict of its keyword arguments, as stock ``METH_KEYWORDS`` code does (its
``CYSTCK_KEYWORDS`` translation receives their names: before, the call got
that tuple as its keyword arguments); one that passes ``kw`` on to another
keywords method still passes the names.  Both builds behave alike, in
release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
forward(PyObject *self, PyObject *args, PyObject *kw)
{
    PyObject *f, *rest, *r;
    if (PyTuple_GET_SIZE(args) < 1) {
        PyErr_SetString(PyExc_TypeError, "forward() needs a callable");
        return NULL;
    }
    f = PyTuple_GET_ITEM(args, 0);
    rest = PyTuple_GetSlice(args, 1, PyTuple_GET_SIZE(args));
    if (rest == NULL)
        return NULL;
    r = PyObject_Call(f, rest, kw);
    Py_DECREF(rest);
    return r;
}

static PyObject *
again(PyObject *self, PyObject *args, PyObject *kw)
{
    return forward(self, args, kw);
}

static PyMethodDef methods[] = {
    {"forward", (PyCFunction)(void (*)(void))forward, METH_VARARGS | METH_KEYWORDS, NULL},
    {"again", (PyCFunction)(void (*)(void))again, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL}
};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "kwcall", NULL, -1, methods};
PyMODINIT_FUNC PyInit_kwcall(void) { return PyModule_Create(&moddef); }
'''

SCRIPT = r"""
def f(*a, **k):
    return (a, sorted(k.items()))

print([m.forward(f, 1, 2, x=3, y=4), m.forward(f), m.forward(f, 1), m.again(f, 5, z=6),
       outcome(m.forward, f, 1, **{"x": 1, "y": 2}), outcome(m.forward, len, [1], key=1), outcome(m.forward)])
"""


def test_the_keywords_given_to_a_call_are_a_dict():
    out = translate.translate_source(SRC)
    forward = out[out.index("forward(Cystck_State"):out.index("again(Cystck_State")]
    assert "if (cystck_migrate_kwargs_dict(S, args, nargs, &kw) < 0)\n        return -1;" in forward
    assert "CystckObject_Call(S, f, rest, kw)" in forward
    # negative: passed on to a keywords method, kw stays the names
    again = out[out.index("again(Cystck_State"):]
    assert "cystck_migrate_kwargs_dict" not in again


def test_the_translation_calls_as_the_stock_build(same_as_stock):
    expected = same_as_stock("kwcall", SRC, SCRIPT)
    assert expected[0] == ((1, 2), [("x", 3), ("y", 4)])
