"""A macro that returns one of its parameters (``return ret;``) gets the
error value of each function expanding it: ``RAISE_IF(self, NULL)`` in an
entry point returned NULL, a pointer, from a function returning a push
count (a build error at each use)."""
from cystck.migrate import translate

MACRO = ("#define RAISE_IF(o, ret) \\\n    if ((o) == Py_None) { \\\n"
         "        PyErr_SetString(PyExc_TypeError, \"none\"); \\\n        return ret; \\\n    }\n")
SRC = ("#include <Python.h>\n" + MACRO
       + "static PyObject *helper(PyObject *o)\n{\n    RAISE_IF(o, NULL);\n    return PyNumber_Negative(o);\n}\n"
       "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    RAISE_IF(arg, NULL);\n"
       "    return helper(arg);\n}\n"
       "static int g_impl(int x)\n{\n    RAISE_IF(Py_None, -1);\n    return x;\n}\n"
       "static PyObject *g(PyObject *self, PyObject *arg)\n{\n    RAISE_IF(arg, -1 + 0);\n"
       "    return PyLong_FromLong(g_impl(1));\n}\n"
       "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {\"g\", g, METH_O, NULL}, {NULL}};\n")


def test_null_passed_to_a_returning_macro_is_the_users_error_value():
    out = translate.translate_source(SRC, "m.c")
    assert "static int f(Cystck_State *S, Cystck_Object self, Cystck_Object arg)\n{\n    RAISE_IF(arg, -1);\n" in out
    assert "helper(Cystck_State *S, Cystck_Object o)\n{\n    RAISE_IF(o, Cystck_NULL);\n" in out


def test_other_arguments_and_plain_c_users_are_left_alone():
    """Negative: an argument other than NULL (an int helper's -1, an
    expression) stays as it is."""
    out = translate.translate_source(SRC, "m.c")
    assert "RAISE_IF(arg, -1 + 0);" in out
    assert "{\n    RAISE_IF(Cystck_None, -1);\n    return x;" in out
