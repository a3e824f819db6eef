"""A tp_clear function that other code calls (to reset the fields in
__init__) is kept as a helper; destructors lose their calls of it and
their clearing of weak references (the runtime does both); a tp_clear
only the destructor calls goes."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "typedef struct { PyObject_HEAD PyObject *a; PyObject *weakreflist; } Box;\n"
       "static int Box_traverse(Box *self, visitproc visit, void *arg) { Py_VISIT(self->a); return 0; }\n"
       "static int Box_clear(Box *self) { Py_CLEAR(self->a); return 0; }\n"
       "static void Box_dealloc(Box *self)\n{\n    PyObject_GC_UnTrack((PyObject*)self);\n"
       "    PyObject_ClearWeakRefs((PyObject *)self);\n    Box_clear(self);\n"
       "    Py_TYPE(self)->tp_free((PyObject*)self);\n}\n"
       "static int Box_init(Box *self, PyObject *args, PyObject *kw)\n{\n"
       "    Box_clear(self);\n    return 0;\n}\n"
       "static PyType_Slot Box_slots[] = {\n    {Py_tp_traverse, Box_traverse}, {Py_tp_clear, Box_clear},\n"
       "    {Py_tp_dealloc, Box_dealloc}, {Py_tp_init, Box_init}, {0, NULL}};\n"
       "static PyType_Spec Box_spec = {\"m.Box\", sizeof(Box), 0, Py_TPFLAGS_DEFAULT, Box_slots};\n")


def test_clear_called_by_other_code_is_kept_as_a_helper():
    out = translate.translate_source(SRC, "m.c")
    assert ("static int Box_clear(Cystck_State *S, Cystck_Object self) { CystckField_Store(S, self, "
            "&Box_AsStruct(S, self)->a, Cystck_NULL); return 0; }") in out
    assert "    Box_clear(S, self);\n    return 0;" in out
    assert "tp_clear" not in out.split("static CystckDef *Box_slots[]")[1]


def test_destructor_drops_its_clear_call_and_weakref_clearing():
    out = translate.translate_source(SRC, "m.c")
    dealloc = out.split("Box_dealloc(void *data)")[1].split("}")[0]
    assert "Box_clear" not in dealloc and "ClearWeakRefs" not in dealloc


def test_clear_called_only_by_the_destructor_goes():
    src = SRC.replace("    Box_clear(self);\n    return 0;\n}\n", "    return 0;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "Box_clear" not in out


def test_destructor_calls_of_clear_functions_are_not_reported():
    out = translate.translate_files({"m.c": SRC})["m.c"]
    assert not any("destructor calls" in n.message for n in out.notes)


def test_destructor_calling_another_api_helper_is_still_reported():
    # with a native call before it, which keeps it a destructor (not a
    # finalizer: tests/migrate/test_rules_destructor_finalizer.py, nor
    # split: test_rules_destructor_split.py)
    src = SRC.replace("    Box_clear(self);\n    Py_TYPE",
                      "    Box_clear(self);\n    forget_box();\n    helper(self);\n    Py_TYPE").replace(
        "static int Box_init", "static void helper(Box *self) { PyErr_Clear(); }\n"
        "static void forget_box(void) { }\nstatic int Box_init")
    out = translate.translate_files({"m.c": src})["m.c"]
    assert [n.message.split(",")[0] for n in out.notes if "destructor calls" in n.message] == \
        ["error: destructor calls helper"]
