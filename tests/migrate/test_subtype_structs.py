"""Subtypes whose instance struct starts with the base type's struct
(``typedef struct { Base base; ... } Sub;``): the struct is an instance
struct too, and reaching its base part is an upcast of the handle."""
from cystck.migrate import translate

SUBTYPE = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD PyObject *v; PyObject *weak; } Base;\n"
           "typedef struct { Base base; PyObject *extra; long n; } Sub;\n"
           "static int check(Base *b)\n{\n    return b->v == NULL ? -1 : 0;\n}\n"
           "static PyObject *get(Sub *self, PyObject *noargs)\n{\n"
           "    if (!self->base.v || check(&self->base) < 0)\n        return NULL;\n"
           "    self->extra = self->base.v;\n"
           "    return PyLong_FromLong(self->n);\n}\n"
           "static void Sub_dealloc(Sub *self)\n{\n"
           "    if (self->base.weak != NULL)\n        PyObject_ClearWeakRefs((PyObject *)self);\n"
           "    Py_XDECREF(self->extra);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
           "static int Sub_traverse(Sub *self, visitproc visit, void *arg)\n{\n"
           "    Py_VISIT(self->base.v);\n    Py_VISIT(self->extra);\n    return 0;\n}\n"
           "static PyMethodDef Sub_methods[] = {{\"get\", (PyCFunction)get, METH_NOARGS, NULL}, {NULL}};\n"
           "static PyType_Slot Sub_slots[] = {{Py_tp_methods, Sub_methods}, {Py_tp_dealloc, Sub_dealloc},\n"
           "    {Py_tp_traverse, Sub_traverse}, {0, NULL}};\n")


def test_subtype_struct_is_an_instance_struct():
    """Its object members become fields, it gets its typed accessor, and
    its own members are reached through it."""
    out = translate.translate_source(SUBTYPE, "m.c")
    assert "typedef struct { Base base; Cystck_Field extra; long n; } Sub;\nCYSTCK_TYPE_HELPERS(Sub)\n" in out
    assert "CystckField_Store(S, self, &Sub_AsStruct(S, self)->extra, " in out
    assert "return Cystck_ReturnLong(S, Sub_AsStruct(S, self)->n);" in out or \
        "CystckLong_FromLong(S, Sub_AsStruct(S, self)->n)" in out
    assert "Cystck_VISIT(&self->extra);" in out
    assert translate.translate_source(out, "m.c") == out


def test_base_part_of_a_subtype_handle_is_an_upcast():
    """&self->base is the handle itself; self->base.v is Base's field."""
    out = translate.translate_source(SUBTYPE, "m.c")
    assert "if (CystckField_IsNull(Base_AsStruct(S, self)->v) || check(S, self) < 0)" in out
    assert "CystckField_Load(S, self, Base_AsStruct(S, self)->v)" in out
    # in the destructor, which has the native struct and no state
    assert "if (!CystckField_IsNull(((Base *)self)->weak))" in out
    assert "Cystck_VISIT(&((Base *)self)->v);" in out


def test_plain_struct_or_pointer_first_is_no_subtype():
    """Negative: a struct that starts with a plain C struct, or with a
    pointer to an instance struct, is a plain struct; and a base member
    used by value (not its address, not a member of it) is left alone."""
    src = ("#include <Python.h>\n"
           "typedef struct { int a; } Plain;\n"
           "typedef struct { PyObject_HEAD PyObject *v; } Base;\n"
           "typedef struct { Plain p; PyObject *o; } NotSub;\n"
           "typedef struct { Base *owner; PyObject *o; } Link;\n"
           "typedef struct { Base base; long n; } Sub;\n"
           "static Base copy(Sub *self)\n{\n    return self->base;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "typedef struct { Plain p; Cystck_Object o; } NotSub;\n" in out
    assert "typedef struct { Base *owner; Cystck_Object o; } Link;\n" in out
    assert "CYSTCK_TYPE_HELPERS(NotSub)" not in out and "CYSTCK_TYPE_HELPERS(Link)" not in out
    assert "return Sub_AsStruct(S, self)->base;" in out


def test_entry_calls_with_other_arguments_are_no_value_calls():
    """Negative of entry-value-calls: a tp_new calling another with
    arguments of its own (not the caller's: its argument tuple, no
    keywords) is not taken for a call passing its arguments on; the
    entry-keyword-calls rule hands it the argument array and no keywords
    (it was reported, and did not compile, before that rule took keyword
    slots)."""
    src = ("#include <Python.h>\n"
           "static PyObject *base_new(PyTypeObject *type, PyObject *args, PyObject *kwds)\n"
           "{\n    return type->tp_alloc(type, 0);\n}\n"
           "static PyObject *sub_new(PyTypeObject *type, PyObject *args, PyObject *kwds)\n{\n"
           "    PyObject *self = base_new(type, args, NULL);\n    return self;\n}\n"
           "static PyTypeObject Base = {PyVarObject_HEAD_INIT(NULL, 0) .tp_new = base_new};\n"
           "static PyTypeObject Sub = {PyVarObject_HEAD_INIT(NULL, 0) .tp_new = sub_new};\n")
    unit = translate.translate_files({"m.c": src})["m.c"]
    assert "self = Cystck_PopResult(S, base_new(S, type, args, nargs, Cystck_NULL));" in unit.text
    assert not any("direct call of entry point base_new" in n.message for n in unit.finish_notes())


def test_assigned_args_passed_on_as_an_array_are_left_for_a_human():
    """Negative of the args-access tuple: a method that assigns to args
    and also hands the array on with its count is reported, not
    rewritten."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *args)\n{\n"
           "    PyObject *o;\n    if (!PyArg_ParseTuple(args, \"O\", &o))\n        return NULL;\n"
           "    args = PyTuple_GetSlice(args, 1, 2);\n    return args;\n}\n"
           "static PyMethodDef m[] = {{\"f\", f, METH_VARARGS, NULL}, {NULL}};\n")
    unit = translate.translate_files({"m.c": src})["m.c"]
    assert "args_tuple" not in unit.text
    assert any("args is assigned and also passed on as an array" in n.message for n in unit.finish_notes())
