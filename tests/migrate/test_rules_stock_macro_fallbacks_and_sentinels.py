"""A fallback definition of a stock macro is not the extension's own macro,
and a method table's sentinel may cast its null function."""
from cystck.migrate import translate

BOX = "#include <Python.h>\ntypedef struct {\n    PyObject_HEAD\n    long lock;\n} Box;\n"


def test_fallback_of_a_stock_macro_is_not_given_the_struct():
    src = (BOX + "#ifndef Py_TYPE\n#define Py_TYPE(o) ((o)->ob_type)\n#endif\n"
           "#define LOCK(o) take(&(o)->lock)\n"
           "static PyObject *kind(Box *self)\n{\n    LOCK(self);\n"
           "    return PyObject_Repr((PyObject *)Py_TYPE(self));\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "CystckObject_Repr(S, CystckObject_Type(S, self))" in out
    # the extension's own macro still gets the struct
    assert "LOCK(Box_AsStruct(S, self));" in out


def test_sentinel_with_a_cast_null_function_is_no_method():
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *o) { return Py_NewRef(o); }\n"
           "static PyMethodDef methods[] = {\n"
           "    {\"f\", (PyCFunction)f, METH_O, NULL},\n"
           "    {NULL, (PyCFunction)NULL, 0, NULL}\n};\n")
    out = translate.translate_source(src, "m.c")
    assert 'CYSTCK_DEF_METH(f_def, "f", f, CYSTCK_O, NULL)' in out
    assert "NULL_def" not in out and "NULL(" not in out
    assert "static CystckDef *methods[] = {\n    &f_def,\n    NULL\n};" in out
