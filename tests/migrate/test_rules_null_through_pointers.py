"""NULL stored or tested through an out parameter that points at a handle,
and chained NULL stores; what is not a handle stays."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static int get(PyObject *d, PyObject **result, char **name, long *n, long k)\n{\n"
       "    PyObject *a, *b;\n"
       "    a = b = NULL;\n"
       "    if (*result != NULL || *name == NULL)\n        return 1;\n"
       "    *result = NULL;\n    *name = NULL;\n    *n = k * 2;\n"
       "    return PyDict_Size(d) > 0;\n}\n")


def test_null_through_a_pointer_to_a_handle():
    out = translate.translate_source(SRC, "m.c")
    assert "if (!Cystck_IsNull(*result) || *name == NULL)" in out
    assert "    *result = Cystck_NULL;\n    *name = NULL;\n    *n = k * 2;\n" in out


def test_chained_null_stores_into_handles():
    out = translate.translate_source(SRC, "m.c")
    assert "    a = b = Cystck_NULL;\n" in out


def test_chained_stores_into_other_pointers_stay():
    src = SRC.replace("    a = b = NULL;\n", "    a = b = NULL;\n    *name = name[1] = NULL;\n")
    out = translate.translate_source(src, "m.c")
    assert "    *name = name[1] = NULL;\n" in out


def test_null_tests_through_pointers_as_operands():
    """``*out`` tested as an operand of ``&&`` in parentheses, of ``?:`` and
    after ``return`` is a handle test too.  (Negative: the same on a
    ``char **`` stays.)"""
    src = ("#include <Python.h>\n"
           "static int get(PyObject **out, char **s, int k)\n{\n"
           "    int a = (*out && k) ? 1 : 0;\n    int b = *out ? 2 : 3;\n"
           "    int c = (*s && k) ? 1 : 0;\n    int d = *s ? 2 : 3;\n"
           "    return *out == NULL ? a + b + c + d : 0;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "    int a = (!Cystck_IsNull(*out) && k) ? 1 : 0;\n    int b = !Cystck_IsNull(*out) ? 2 : 3;\n" in out
    assert "    int c = (*s && k) ? 1 : 0;\n    int d = *s ? 2 : 3;\n" in out
    assert "    return Cystck_IsNull(*out) ? a + b + c + d : 0;\n" in out
