"""A ``return NULL`` passed as an argument of another macro, as in
``#define OR_OUT(v) OR_ELSE(v, return NULL)``, becomes the users' error
value and leaves the call's closing parenthesis alone (it was taken for
the end of ``return (NULL)``, and the call was left unterminated)."""
from cystck.migrate import translate

ENTRY = ("static PyObject *f(PyObject *self, PyObject *arg)\n{\n    OR_OUT(PyLong_AsLong(arg));\n"
         "    Py_RETURN_NONE;\n}\n"
         "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")


def _translate(macros):
    return translate.translate_source("#include <Python.h>\n" + macros + ENTRY, "m.c")


def test_return_null_as_a_macro_argument_keeps_the_closing_parenthesis():
    out = _translate("#define OR_ELSE(v, action) do { if ((v) < 0) { action; } } while (0)\n"
                     "#define OR_OUT(v) OR_ELSE(v, return NULL)\n")
    assert "#define OR_OUT(v) OR_ELSE(v, return -1)\n" in out


def test_parenthesised_null_is_still_one_return():
    """Negative: ``return (NULL);`` keeps being rewritten whole, its own
    parentheses with it."""
    out = _translate("#define OR_OUT(v) do { if ((v) < 0) return (NULL); } while (0)\n")
    assert "#define OR_OUT(v) do { if ((v) < 0) return -1; } while (0)\n" in out
