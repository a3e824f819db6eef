"""``return c ? NULL : x;`` from an entry point (bitarray 3.12.3's
iterators end with ``return (vi < 0) ? NULL : PyLong_FromLong(vi);``)
became ``return Cystck_Return(S, c ? Cystck_NULL : x)``: the null handle
pushed, a SystemError where stock ends the iteration or raises.  The null
branch now returns -1 and the other pushes its value.  Stock and
translated builds answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
doubled(PyObject *self, PyObject *o)
{
    long v = PyLong_AsLong(o);
    if (v < 0 && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "negative");
    return (v < 0) ? NULL : PyLong_FromLong(2 * v);
}

static PyObject *
halved(PyObject *self, PyObject *o)
{
    long v = PyLong_AsLong(o);
    if (v < 0 && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "negative");
    return v >= 0 ? PyLong_FromLong(v / 2) : NULL;
}

static PyMethodDef methods[] = {
    {"doubled", doubled, METH_O, NULL},
    {"halved", halved, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "condret", NULL, -1, methods};

PyMODINIT_FUNC PyInit_condret(void) { return PyModule_Create(&moddef); }
'''


def test_the_null_branch_returns_minus_one():
    out = translate.translate_source(SRC, "condret.c")
    assert "return ((v < 0)) ? -1 : Cystck_Return(S, CystckLong_FromLong(S, 2 * v));" in out
    assert "return (v >= 0) ? Cystck_Return(S, CystckLong_FromLong(S, v / 2)) : -1;" in out


def test_a_conditional_without_a_null_branch_is_one_value():
    out = translate.translate_source(SRC.replace("? NULL :", "? Py_NewRef(o) :"), "condret.c")
    assert "return Cystck_Return(S, (v < 0) ? o : CystckLong_FromLong(S, 2 * v));" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("condret", SRC, "print(repr([outcome(f, a) for f, a in ((m.doubled, 4), (m.halved, 9),"
                                         " (m.doubled, -1), (m.halved, -3), (m.halved, 'x'))]))\n")
    assert want[:4] == [8, 4, ("ValueError", "negative"), ("ValueError", "negative")]
