"""A ``void *`` helper that sets an exception and returns NULL, called only
as ``return helper(...)`` by functions that return an object (or in a
macro), is an object's error return: it returns a ``Cystck_Object``
(Cystck_NULL), so the callers' ``return helper(...)`` compiles.  A
``void *`` with another return or another use stays a C pointer."""
from cystck.migrate import translate

HELPER = ("static void *\nbad_char(const char *c)\n{\n"
          "    PyErr_Format(PyExc_ValueError, \"bad character '%c'\", *c);\n    return NULL;\n}\n")
CALLERS = ("#define EXPECT_DIGIT(c) if (*(c) < '0' || *(c) > '9') return bad_char(c);\n"
           "static PyObject *\nparse(PyObject *self, PyObject *arg)\n{\n"
           "    const char *c = PyUnicode_AsUTF8(arg);\n    if (c == NULL)\n        return NULL;\n"
           "    EXPECT_DIGIT(c)\n    if (c[1] == 'x')\n        return bad_char(c + 1);\n"
           "    return PyLong_FromLong(*c - '0');\n}\n"
           "static PyMethodDef m[] = {{\"parse\", parse, METH_O, NULL}, {NULL}};\n")


def _translate(text):
    return translate.translate_source("#include <Python.h>\n" + text, "m.c")


def test_void_pointer_error_helper_returns_a_handle():
    out = _translate(HELPER + CALLERS)
    assert "static Cystck_Object\nbad_char(Cystck_State *S, const char *c)\n{\n" in out
    assert "    return Cystck_NULL;\n}\n" in out
    # the entry point pushes what the helper returns; the macro passes S
    assert "return Cystck_Return(S, bad_char(S, c + 1));" in out
    assert "return bad_char(S, c);" in out


def test_void_pointer_helper_with_another_return_stays_a_pointer():
    """Negative: it returns a pointer that is not NULL."""
    helper = HELPER.replace("    return NULL;\n}", "    return (void *)c;\n}")
    out = _translate(helper + "static void *g(const char *c) { void *p = bad_char(c); return p; }\n")
    assert "static void *\nbad_char(Cystck_State *S, const char *c)\n" in out


def test_void_pointer_error_helper_whose_result_is_stored_stays_a_pointer():
    """Negative: a caller keeps the result in a C pointer."""
    out = _translate(HELPER + CALLERS + "static int check(const char *c) { void *p = bad_char(c); return p == NULL; }\n")
    assert "static void *\nbad_char(Cystck_State *S, const char *c)\n" in out


def test_void_pointer_error_helper_returned_by_a_c_function_stays_a_pointer():
    """Negative: returned by a function whose result is no object."""
    out = _translate(HELPER + "static void *check(const char *c) { if (!*c) return bad_char(c); return NULL; }\n")
    assert "static void *\nbad_char(Cystck_State *S, const char *c)\n" in out
