"""A stock function kept through the escape hatch that steals a reference
to an argument, ``PyException_SetCause(exc, cause)``, was lent the
handle's object borrowed: the exception took over a reference the frame
also released with the handle (cbor2's ``raise_from``: a reference
released twice).  Such an argument is lent as a new reference now,
``Py_XNewRef(Cystck_AsPyObject(S, cause))``; the cause's reference count
while the exception lives is the stock build's, release and debug."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>

static PyObject *
raise_from(PyObject *self, PyObject *cause)
{
    PyObject *exc = PyObject_CallFunction(PyExc_RuntimeError, "s", "outer");
    if (exc == NULL)
        return NULL;
    Py_INCREF(cause);
    PyException_SetCause(exc, cause);
    PyErr_SetObject(PyExc_RuntimeError, exc);
    Py_DECREF(exc);
    return NULL;
}

static PyMethodDef methods[] = {{"raise_from", raise_from, METH_O, NULL}, {NULL}};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "stolen", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_stolen(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_a_stolen_argument_is_lent_a_new_reference():
    out = translate.translate_source(SRC, "stolen.c")
    assert "PyException_SetCause(Cystck_AsPyObject(S, exc), Py_XNewRef(Cystck_AsPyObject(S, cause)))" in out


def test_translation_keeps_the_stock_reference_counts(same_as_stock):
    script = ("import sys\n"
              "cause = ValueError('inner')\n"
              "base = sys.getrefcount(cause)\n"
              "try:\n    m.raise_from(cause)\n"
              "except RuntimeError as e:\n    got = [e.__cause__ is cause, sys.getrefcount(cause) - base]\n"
              "got.append(sys.getrefcount(cause) - base)\n"
              "print(repr(got))\n")
    assert same_as_stock("stolen", SRC, script) == [True, 1, 0]
