"""Py_INCREF(x) right before a call that steals x gives the call a handle
of its own (consuming x would release the caller's handle); other
increments are removed as before."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static PyObject *wrap(PyObject *item)\n{\n"
       "    PyObject *t = PyTuple_New(2), *n = PyLong_FromLong(1);\n"
       "    if (t == NULL || n == NULL)\n        return NULL;\n"
       "    Py_INCREF(item);\n    PyTuple_SET_ITEM(t, 0, item);\n"
       "    PyTuple_SET_ITEM(t, 1, n);\n"
       "    Py_INCREF(item);\n    return t;\n}\n")


def test_increment_before_a_stealing_call_duplicates_the_handle():
    out = translate.translate_source(SRC, "m.c")
    assert "    CystckTuple_SET_ITEM(S, t, 0, Cystck_Dup(S, item));\n" in out
    assert "Py_INCREF" not in out


def test_stealing_call_without_increment_and_other_increments_are_unchanged():
    out = translate.translate_source(SRC, "m.c")
    assert "    CystckTuple_SET_ITEM(S, t, 1, n);\n" in out
    assert "Cystck_Dup(S, n)" not in out
    assert out.count("Cystck_Dup") == 1
