"""PyUnicode_FromWideChar, PyUnicode_AsWideChar(String) and
PyUnicode_GetDefaultEncoding become their Cystck counterparts; OSError's
aliases PyExc_IOError and PyExc_EnvironmentError become CystckExc_OSError,
as the table's const line lists them; the other builtin exceptions have
constants of their own.  A function that stays stock keeps them all."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
       "    Py_ssize_t n;\n"
       "    wchar_t *w = PyUnicode_AsWideCharString(o, &n);\n"
       "    if (w == NULL) {\n"
       "        PyErr_SetString(PyExc_IOError, PyUnicode_GetDefaultEncoding());\n"
       "        return NULL;\n    }\n"
       "    PyObject *r = PyUnicode_FromWideChar(w, n);\n"
       "    PyMem_Free(w);\n"
       "    if (PyErr_ExceptionMatches(PyExc_EnvironmentError) || PyErr_ExceptionMatches(PyExc_FileNotFoundError))\n"
       "        return NULL;\n"
       "    return r;\n}\n")


def test_wide_strings_and_aliases_are_ported():
    out = translate.translate_source(SRC, "m.c")
    assert "wchar_t *w = CystckUnicode_AsWideCharString(S, o, &n);" in out
    assert "CystckErr_SetString(S, CystckExc_OSError, CystckUnicode_GetDefaultEncoding(S));" in out
    assert "Cystck_Object r = CystckUnicode_FromWideChar(S, w, n);" in out
    assert "PyMem_Free(w);" in out          # CPython's memory, CPython's allocator
    assert ("CystckErr_ExceptionMatches(S, CystckExc_OSError) || "
            "CystckErr_ExceptionMatches(S, CystckExc_FileNotFoundError)") in out
    assert "escape hatch" not in out


def test_a_function_kept_stock_keeps_the_aliases():
    src = ("#include <Python.h>\n"
           "static void destroy(PyObject *capsule)\n{\n"
           "    if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_IOError))\n"
           "        PyErr_Clear();\n}\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    return PyCapsule_New(NULL, \"n\", destroy);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "PyErr_ExceptionMatches(PyExc_IOError)" in out
    assert "CystckExc_OSError" not in out
