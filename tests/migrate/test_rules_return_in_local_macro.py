"""A ``return`` in a macro defined inside a function body, its ``;`` at
the macro's uses (``#define R(k, v) if (...) return PyLong_FromLong(v)``,
then ``R("a", 1);``), ends with the directive: the returns rule took the
expression up to the first use's ``;``, and its ``Cystck_Return(S, ...)``
closed there, inside the next line (the output was unbalanced and the
translator stopped)."""
from cystck.migrate import translate

BODY = ("static PyObject *f(PyObject *self, PyObject *arg)\n{\n"
        "    const char *key = \"a\";\n"
        "#define R(k, v) \\\n    if (key[0] == k) \\\n        return {ret}\n"
        "    R('a', 1);\n    R('b', 2);\n#undef R\n    Py_RETURN_NONE;\n}\n"
        "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")


def _translate(ret):
    return translate.translate_source("#include <Python.h>\n" + BODY.replace("{ret}", ret), "m.c")


def test_return_in_a_local_macro_ends_with_the_directive():
    out = _translate("PyLong_FromLong((long) (v))")
    assert "        return Cystck_Return(S, CystckLong_FromLong(S, (long) (v)))\n    R('a', 1);\n" in out


def test_return_null_in_a_local_macro_gets_no_semicolon():
    out = _translate("NULL")
    assert "        return -1\n    R('a', 1);\n" in out


def test_return_with_its_own_semicolon_in_a_macro_is_unchanged_in_shape():
    """Negative: a macro whose body has the ``;`` keeps it, and the return
    rewritten as in a plain statement."""
    out = _translate("PyNumber_Negative(arg); \\\n    else (void) 0")
    assert "return Cystck_Return(S, CystckNumber_Negative(S, arg)); \\\n    else (void) 0\n" in out
