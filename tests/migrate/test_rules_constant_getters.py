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
    # released on one path (Py_DECREF(dflt)): a handle of its own, since
    # releasing the constant's handle is an error in debug mode (newref,
    # test_rules_released_new_references.py)
    assert "Cystck_Object dflt = Cystck_Dup(S, Cystck_None);" in out
    assert "Cystck_Is(S, key, Cystck_Ellipsis)" in out
    assert "Py_GetConstant(Py_CONSTANT_NONE)" not in out


def test_a_new_reference_to_zero_one_or_an_empty_value_is_that_value_made():
    """Py_GetConstant(Py_CONSTANT_ZERO), and ONE (bitarray 3.12.3, 3
    --check errors), are the value made by the stock call, then ported."""
    out = translate.translate_source(STOCK, "getconst.c")
    assert "return Cystck_ReturnLong(S, 0);" in out
    assert "Py_CONSTANT_ZERO" not in out
    src = ("#include <Python.h>\n"
           "static PyObject *one(PyObject *m, PyObject *a)\n"
           "{\n    PyObject *z = Py_GetConstant(Py_CONSTANT_C);\n    return z;\n}\n"
           'static PyMethodDef methods[] = {{"one", (PyCFunction)one, METH_O, NULL}, {NULL}};\n')
    for const, made in (("ONE", "CystckLong_FromLong(S, 1)"),
                        ("EMPTY_STR", 'CystckUnicode_FromStringAndSize(S, "", 0)'),
                        ("EMPTY_BYTES", 'CystckBytes_FromStringAndSize(S, "", 0)'),
                        ("EMPTY_TUPLE", "CystckTuple_New(S, 0)")):
        out = translate.translate_source(src.replace("_C)", f"_{const})"), "getconst.c")
        assert f"Cystck_Object z = {made};" in out, out


def test_a_borrowed_constant_without_a_permanent_handle_stays_stock_and_marked():
    src = STOCK.replace("return Py_GetConstant(Py_CONSTANT_ZERO)",
                        "return Py_NewRef(Py_GetConstantBorrowed(Py_CONSTANT_ZERO))")
    out = translate.translate_source(src, "getconst.c")
    assert "/* cystck-migrate: escape hatch */ Py_GetConstantBorrowed(Py_CONSTANT_ZERO)" in out, out
