"""A builtin type that Cystck.h has no handle for is kept through the
escape hatch where a function has the state, and reported."""
from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

SRC = ("#include <Python.h>\n"
       "static int is_super(PyObject *o) { return PyObject_TypeCheck(o, &PyRange_Type); }\n"
       "static int is_float(PyObject *o) { return PyObject_TypeCheck(o, &PyFloat_Type); }\n"
       "static PyTypeObject *table[] = {&PyRange_Type};\n")


def test_builtin_type_without_a_handle_goes_through_the_escape_hatch():
    out = translate.translate_files({"m.c": SRC})["m.c"]
    assert (f"CystckObject_TypeCheck(S, o, Cystck_FromPyObject(S, {MARK} (PyObject *)&PyRange_Type))"
            in out.text)
    assert any(n.line == 2 and "escape hatch: no Cystck handle for PyRange_Type" in n.message
               for n in out.finish_notes())


def test_builtin_type_with_a_handle_and_uses_outside_functions_stay():
    out = translate.translate_files({"m.c": SRC})["m.c"]
    assert "CystckObject_TypeCheck(S, o, CystckFloat_Type)" in out.text
    assert "static PyTypeObject *table[] = {&PyRange_Type};" in out.text
    assert any(n.line == 4 and n.message == "no Cystck handle for PyRange_Type" for n in out.finish_notes())
