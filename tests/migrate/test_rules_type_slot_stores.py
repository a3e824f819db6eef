"""A static type whose slots are stored in the init function before its
PyType_Ready (the portable spelling when a slot's value is not a constant
expression) gets them in its spec, as if its initialiser listed them; a
stock base stored so is the spec's base, through the escape hatch."""
from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

SRC = ("#include <Python.h>\n#include <structmember.h>\n"
       "typedef struct { PyObject_HEAD int n; } Box;\n"
       "static int Box_init(Box *self, PyObject *args, PyObject *kw) { return 0; }\n"
       "static PyObject *Box_get(Box *self, PyObject *unused) { return PyLong_FromLong(self->n); }\n"
       "static PyMemberDef Box_members[] = {{\"n\", T_INT, offsetof(Box, n), 0, NULL}, {NULL}};\n"
       "static PyMethodDef Box_methods[] = {{\"get\", (PyCFunction)Box_get, METH_NOARGS, NULL}, {NULL}};\n"
       "static PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0) \"m.Box\",\n"
       "    sizeof(Box),\n};\n"
       "int init_box(PyObject *m)\n{\n"
       "    BoxType.tp_new = PyType_GenericNew;\n"
       "    BoxType.tp_base = SomeAPI->BaseType;\n"
       "    BoxType.tp_methods = Box_methods;\n"
       "    BoxType.tp_members = Box_members;\n"
       "    BoxType.tp_init = (initproc)Box_init;\n"
       "    if (PyType_Ready(&BoxType) < 0)\n        return -1;\n"
       "%s"
       "    return 0;\n}\n")


def test_slots_stored_before_ready_are_in_the_spec():
    out = translate.translate_source(SRC % "", "m.c")
    assert "CYSTCK_DEF_SLOT(BoxType_tp_init, tp_init, Box_init)" in out
    defines = out[out.index("BoxType_defines[] = {"):]
    defines = defines[:defines.index("};")]
    for symbol in ("&BoxType_tp_init", "&Box_get_def", "&Box_n_member"):
        assert symbol in defines
    # the tables are the type's: no array of their own
    assert "CystckDef *Box_methods[]" not in out
    assert "BoxType.tp_" not in out      # each store is in the spec (tp_new: the default)
    # the stored tp_init is the type's initialiser: it takes its arguments as an array
    assert ("static int Box_init(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, "
            "Cystck_ssize_t nargs, Cystck_Object kw)") in out


def test_a_stock_base_stored_before_ready_is_lent_as_the_base():
    out = translate.translate_source(SRC % "", "m.c")
    assert (f"CystckType_FromSpec(S, &BoxType_spec, Cystck_FromPyObject(S, {MARK} "
            "(PyObject *)(SomeAPI->BaseType)))") in out


def test_stores_after_ready_stay():
    """A slot stored after PyType_Ready changes the ready type, which a
    spec cannot say: it stays as it is (and --check names it)."""
    out = translate.translate_source(SRC % "    BoxType.tp_init = (initproc)Box_init;\n", "m.c")
    assert out.count("BoxType.tp_init = (initproc)Box_init;") == 1
    assert "CystckType_FromSpec(S, &BoxType_spec, Cystck_FromPyObject(" in out


def test_stores_into_a_type_the_project_does_not_define_stay():
    src = ("#include <Python.h>\nextern PyTypeObject OtherType;\n"
           "static PyObject *f(PyObject *self, PyObject *u) { return NULL; }\n"
           "static PyMethodDef other_methods[] = {{\"f\", f, METH_NOARGS, NULL}, {NULL}};\n"
           "int init_other(void)\n{\n    OtherType.tp_methods = other_methods;\n"
           "    return PyType_Ready(&OtherType);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "OtherType.tp_methods = other_methods;" in out
