"""Locals a macro's body declares (``#define FAIL(c) { PyObject *s =
PyUnicode_FromString(c); ...; Py_DECREF(s); }``) are handles where every
user of the macro has the state: the declarations rule and the release
rule see the macro's body as they see a function's."""
from cystck.migrate import translate

MACRO = ("#define FAIL(c)                               \\\n"
         "    {                                         \\\n"
         "        PyObject *s = PyUnicode_FromString(c); \\\n"
         "        PyErr_SetObject(PyExc_ValueError, s);  \\\n"
         "        Py_DECREF(s);                          \\\n"
         "        return NULL;                           \\\n"
         "    }\n")


def test_a_macro_local_object_is_a_handle():
    src = ("#include <Python.h>\n" + MACRO +
           "static PyObject *f(PyObject *self, PyObject *arg)\n{\n"
           "    if (arg == Py_None) FAIL(\"none\")\n    return PyLong_FromLong(1);\n}\n"
           "static PyMethodDef methods[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(src, "m.c")
    assert "Cystck_Object s = CystckUnicode_FromString(S, c);" in out
    assert "Cystck_Drop(S, s);" in out
    assert "Py_DECREF" not in out


def test_a_macro_a_function_without_the_state_expands_keeps_its_locals():
    """A macro that a function without the state also expands keeps its
    object locals, and their releases, as that function does."""
    src = ("#include <Python.h>\n" + MACRO +
           "static PyObject *f(PyObject *self, PyObject *arg)\n{\n"
           "    if (arg == Py_None) FAIL(\"none\")\n    return PyLong_FromLong(1);\n}\n"
           "static void destroy(PyObject *capsule)\n{\n    FAIL(\"x\")\n}\n"
           "static PyObject *g(PyObject *self, PyObject *arg)\n{\n"
           "    return PyCapsule_New(NULL, \"n\", destroy);\n}\n"
           "static PyMethodDef methods[] = {{\"f\", f, METH_O, NULL}, {\"g\", g, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(src, "m.c")
    assert "static void destroy(PyObject *capsule)" in out
    assert "PyObject *s = " in out
    assert "Py_DECREF(s);" in out


def test_a_release_of_a_users_pointer_in_a_macro_stays():
    """A release in a macro of what is no handle where the macro expands
    (a buffer's owner held as a stock pointer) is not rewritten."""
    src = ("#include <Python.h>\n"
           "#define DONE(v) { Py_DECREF(v); return 0; }\n"
           "static PyObject *held;\n"
           "static int keep(void)\n{\n    PyObject *o = held;\n    DONE(o)\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "Py_DECREF(v);" in out
