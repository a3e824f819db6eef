"""Py_GetConstant and Py_GetConstantBorrowed (CPython 3.13, polyfilled by
pythoncapi_compat.h) of a constant with a permanent handle translate to
that handle; before, the escape hatch kept the call, whose PyObject *
result it could not wrap (CPython 3.11's headers do not declare it), so a
handle was initialised from a pointer (multidict 6.7.1, 2 --check errors)."""
from cystck.migrate import translate

STOCK = """#include <Python.h>
static PyObject *get(PyObject *d, PyObject *key)
{
    PyObject *dflt = Py_GetConstant(Py_CONSTANT_NONE);
    if (key == Py_GetConstantBorrowed(Py_CONSTANT_ELLIPSIS)) {
        Py_DECREF(dflt);
        return Py_GetConstant(Py_CONSTANT_ZERO);
    }
    return dflt;
}
static PyMethodDef methods[] = {{"get", (PyCFunction)get, METH_O, NULL}, {NULL}};
"""


def test_constants_with_a_permanent_handle_become_it():
    out = translate.translate_source(STOCK, "getconst.c")
    assert "Cystck_Object dflt = Cystck_None;" in out
    assert "Cystck_Is(S, key, Cystck_Ellipsis)" in out
    assert "Py_GetConstant(Py_CONSTANT_NONE)" not in out


def test_a_constant_without_a_permanent_handle_stays_stock_and_marked():
    out = translate.translate_source(STOCK, "getconst.c")
    assert "/* cystck-migrate: escape hatch */ Py_GetConstant(Py_CONSTANT_ZERO)" in out
