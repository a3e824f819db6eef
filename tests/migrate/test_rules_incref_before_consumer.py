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


HELPER = ("#include <Python.h>\n"
          "static PyObject *as_tuple(PyObject *seq, PyObject *other)\n{\n"
          "    PyObject *r;\n"
          "    if (PyTuple_CheckExact(seq)) {\n        Py_INCREF(seq);\n    } else {\n"
          "        seq = PySequence_Tuple(seq);\n        if (seq == NULL)\n            return NULL;\n    }\n"
          "    Py_INCREF(other);\n"
          "    r = PyObject_Repr(seq);\n    Py_DECREF(seq);\n    return r;\n}\n")


def test_helper_owning_a_parameter_it_releases_takes_its_own_handle():
    out = translate.translate_source(HELPER, "m.c")
    assert "if (CystckTuple_CheckExact(S, seq)) {\n        seq = Cystck_Dup(S, seq);\n    }" in out
    assert "Cystck_Drop(S, seq);" in out


def test_increment_of_a_parameter_never_released_is_removed():
    out = translate.translate_source(HELPER, "m.c")
    assert "Cystck_Dup(S, other)" not in out and "INCREF" not in out
