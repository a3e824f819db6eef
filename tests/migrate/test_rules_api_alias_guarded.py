"""Python 2 names kept for Python 3 by aliases under a guard (zfec
1.6.0.0, docs/gaps.md T33):

    #ifndef PyInt_Check
    #define PyInt_Check     PyLong_Check
    #define PyInt_AsLong    PyLong_AsLong
    #endif

api-alias-macros left the guarded name alone because ``#ifndef
PyInt_Check`` counted as a use other than a call, so ``PyInt_Check(o)``
and ``PyString_FromStringAndSize(NULL, n)`` reached the escape hatch
(and a result stored in a handle did not compile).  A test of whether the
alias is defined is no use: the alias becomes a macro that passes the
state, like the others of its block.  Built stock and translated, run the
same, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

STOCK = r"""
#include <Python.h>

#ifndef PyInt_Check
#define PyInt_Check     PyLong_Check
#define PyInt_FromLong  PyLong_FromLong
#define PyInt_AsLong    PyLong_AsLong
#endif

#if !defined(PyString_FromStringAndSize)
#define PyString_FromStringAndSize  PyBytes_FromStringAndSize
#define PyString_AsString           PyBytes_AsString
#endif

/* fill(n, byte): bytes of n times the byte; n must be an int */
static PyObject *
fill(PyObject *self, PyObject *args)
{
    PyObject *n, *byte, *out;
    char *p;
    long i, len;
    if (!PyArg_ParseTuple(args, "OO", &n, &byte))
        return NULL;
    if (!PyInt_Check(n) || !PyInt_Check(byte)) {
        PyErr_SetString(PyExc_TypeError, "ints wanted");
        return NULL;
    }
    len = PyInt_AsLong(n);
    out = PyString_FromStringAndSize(NULL, len);
    if (out == NULL)
        return NULL;
    p = PyString_AsString(out);
    for (i = 0; i < len; i++)
        p[i] = (char)PyInt_AsLong(byte);
    return out;
}

static PyObject *
twice(PyObject *self, PyObject *n)
{
    return PyInt_FromLong(2 * PyInt_AsLong(n));
}

static PyMethodDef methods[] = {
    {"fill", fill, METH_VARARGS, NULL},
    {"twice", twice, METH_O, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "aliasguard", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_aliasguard(void)
{
    return PyModule_Create(&moduledef);
}
"""

SCRIPT = """
print([m.fill(3, 65), m.fill(0, 1), outcome(m.fill, "3", 65), outcome(m.fill, -1, 0), m.twice(21)])
"""


def test_guarded_aliases_pass_the_state():
    text = translate.translate_source(STOCK, "aliasguard.c")
    assert MARK not in text
    assert "#define PyInt_Check(...) CystckLong_Check(S, __VA_ARGS__)" in text
    assert "#define PyString_FromStringAndSize(...) CystckBytes_FromStringAndSize(S, __VA_ARGS__)" in text
    assert "#ifndef PyInt_Check\n" in text


def test_guarded_aliases_behave_as_stock(same_as_stock):
    out = same_as_stock("aliasguard", STOCK, SCRIPT)
    assert out[:2] == [b"AAA", b""] and out[2] == ("TypeError", "ints wanted") and out[4] == 42
