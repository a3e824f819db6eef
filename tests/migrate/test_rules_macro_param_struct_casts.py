"""A macro casting its parameter to a custom struct, ``#define RO(o)
(((Box *) o)->ro)``, whose every use passes a handle, reaches the struct
through the typed accessor: the cast of a handle stayed (``cannot
convert to a pointer type`` at each use)."""
from cystck.migrate import translate

HEAD = ("#include <Python.h>\ntypedef struct { PyObject_HEAD int ro; } Box;\n"
        "#define RO(o) (((Box *) o)->ro)\n")
ENTRY = ("static PyObject *f(Box *self, PyObject *x)\n{\n    if (RO(self))\n        return NULL;\n"
         "    return PyNumber_Negative(x);\n}\n")
TABLE = "static PyMethodDef m[] = {{\"f\", (PyCFunction)f, METH_O, NULL}, {NULL}};\n"


def test_cast_of_a_macro_parameter_that_is_always_a_handle_is_the_accessor():
    out = translate.translate_source(HEAD + ENTRY + TABLE, "m.c")
    assert "#define RO(o) (Box_AsStruct(S, o)->ro)\n" in out
    assert "    if (RO(self))\n        return -1;\n" in out


def test_a_macro_also_given_a_plain_pointer_keeps_its_cast():
    """Negative: one use passes a ``void *`` (no handle): the cast stays."""
    other = ("static PyObject *g(PyObject *self, PyObject *x)\n{\n    void *p = PyCapsule_GetPointer(x, NULL);\n"
             "    return PyLong_FromLong(RO(p));\n}\n")
    out = translate.translate_source(HEAD + ENTRY + other + TABLE, "m.c")
    assert "#define RO(o) (((Box *) o)->ro)\n" in out
