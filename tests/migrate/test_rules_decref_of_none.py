"""A release of None (Py_DECREF(Py_None), or of a variable its block knows
to be None) goes: the constant is no handle of the call.  Other releases
become Cystck_Drop as before."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static PyObject *f(PyObject *o)\n{\n"
       "    PyObject *c = PyObject_GetAttrString(o, \"x\");\n"
       "    if (c == NULL)\n        c = Py_None;\n"
       "    if (c != Py_None) {\n        Py_DECREF(c);\n    } else {\n        Py_DECREF(c);\n    }\n"
       "    if (c == Py_None) {\n        Py_DECREF(c);\n        Py_DECREF(Py_None);\n    }\n"
       "    if (c != NULL) {\n        Py_DECREF(c);\n    }\n"
       "    return PyLong_FromLong(1);\n}\n")


def test_releases_of_none_go():
    out = translate.translate_source(SRC, "m.c")
    assert "} else {\n    }" in out
    assert "if (Cystck_Is(S, c, Cystck_None)) {\n    }" in out


def test_other_releases_stay():
    out = translate.translate_source(SRC, "m.c")
    assert "if (!Cystck_Is(S, c, Cystck_None)) {\n        Cystck_Drop(S, c);\n    }" in out
    assert "if (!Cystck_IsNull(c)) {\n        Cystck_Drop(S, c);\n    }" in out
