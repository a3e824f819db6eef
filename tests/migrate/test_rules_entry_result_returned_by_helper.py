"""A helper returning an object that returns a direct call of an entry
point gets the entry point's value, not its push count."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static PyObject *neg(PyObject *module, PyObject *o) { return PyNumber_Negative(o); }\n"
       "static PyObject *via(PyObject *o) { return neg(NULL, o); }\n"
       "static int count(PyObject *o) { return neg(NULL, o) != NULL; }\n"
       "static PyMethodDef methods[] = {\n    {\"neg\", neg, METH_O, NULL},\n    {NULL}\n};\n")


def test_helper_returning_an_entry_points_call_gets_its_value():
    out = translate.translate_source(SRC, "m.c")
    assert "return Cystck_PopResult(S, neg(S, Cystck_NULL, o));" in out


def test_other_uses_of_an_entry_points_call_are_still_reported():
    out = translate.translate_files({"m.c": SRC})["m.c"]
    assert "return !Cystck_IsNull(neg(S, Cystck_NULL, o));" in out.text
    assert any("direct call of entry point neg" in n.message for n in out.notes)
