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



# Py_SIZE(a) keeps ``a`` a handle in the macro (so the uses pass handles).
UNCAST = ("#include <Python.h>\ntypedef struct { PyObject_VAR_HEAD char *buf; } Box;\n"
          "static int f(Box *self, Box *other)\n{\n"
          "#define IN(a, p) (a->buf <= p && p < (a)->buf + Py_SIZE(a))\n"
          "    return IN(self, other->buf) || IN(other, self->buf);\n#undef IN\n}\n"
          "static PyObject *g(Box *self, PyObject *x)\n{\n    return PyLong_FromLong(f(self, (Box *)x));\n}\n"
          "static PyMethodDef m[] = {{\"g\", (PyCFunction)g, METH_O, NULL}, {NULL}};\n")


def test_a_macro_reading_a_parameter_struct_without_a_cast_gets_the_accessor():
    out = translate.translate_source(UNCAST, "m.c")
    assert ("#define IN(a, p) (Box_AsStruct(S, a)->buf <= p && p < Box_AsStruct(S, a)->buf"
            " + CystckVar_Size(S, a))\n") in out
    assert "    return IN(self, Box_AsStruct(S, other)->buf) || IN(other, Box_AsStruct(S, self)->buf);" in out


def test_an_uncast_member_read_given_a_plain_pointer_stays():
    """Negative: a use passing a plain struct's pointer (no handle) keeps
    ``a->``."""
    src = UNCAST.replace("    return IN(self, other->buf)",
                         "    struct { char *buf; } c = {0}, *cp = &c;\n"
                         "    return IN(cp, other->buf) || IN(self, other->buf)")
    out = translate.translate_source(src, "m.c")
    assert "(a->buf <= p && p < (a)->buf + " in out
