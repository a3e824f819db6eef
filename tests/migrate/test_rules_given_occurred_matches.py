"""``PyErr_GivenExceptionMatches(PyErr_Occurred(), E)``, CPython's own
definition of ``PyErr_ExceptionMatches(E)``: ``CystckErr_Occurred`` answers
whether an exception is set (an int, there is no handle to the type), so
the two-argument spelling became ``CystckErr_GivenExceptionMatches(S,
CystckErr_Occurred(S), E)``, which does not compile.  Rule
``given-occurred-matches`` makes it the one-argument call; a given
exception that is not the one set stays as it is.  Stock and translated
builds answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
as_int(PyObject *self, PyObject *o)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        if (PyErr_GivenExceptionMatches(PyErr_Occurred(), PyExc_TypeError)) {
            PyErr_Clear();
            return PyUnicode_FromString("not a number");
        }
        if (PyErr_GivenExceptionMatches( PyErr_Occurred( ), PyExc_ArithmeticError ))
            return PyUnicode_FromString("too big");
        return NULL;
    }
    return PyLong_FromLong(v);
}

static PyObject *
matches(PyObject *self, PyObject *args)
{
    PyObject *given, *wanted;
    if (!PyArg_ParseTuple(args, "OO", &given, &wanted))
        return NULL;
    return PyBool_FromLong(PyErr_GivenExceptionMatches(given, wanted));
}

static PyMethodDef methods[] = {
    {"as_int", as_int, METH_O, NULL},
    {"matches", matches, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "givenmatch", NULL, -1, methods};

PyMODINIT_FUNC PyInit_givenmatch(void) { return PyModule_Create(&moddef); }
'''


def test_the_occurred_exception_is_matched_with_one_argument():
    out = translate.translate_source(SRC, "givenmatch.c")
    assert "CystckErr_Occurred(S)," not in out
    assert "CystckErr_ExceptionMatches(S, CystckExc_TypeError)" in out
    assert "CystckErr_ExceptionMatches(S, CystckExc_ArithmeticError )" in out
    assert "CystckErr_GivenExceptionMatches(S, given, wanted)" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("givenmatch", SRC,
                         "print(repr([outcome(m.as_int, a) for a in (4, 'x', 2**70, 1.5)]"
                         " + [m.matches(KeyError, LookupError), m.matches(KeyError, ValueError)]))\n")
    assert want[:3] == [4, "not a number", "too big"] and want[-2:] == [True, False]
