"""Type objects declared in headers, slots shared through macros,
destructors that call tp_clear with the result cast away (constructs of
the HAMT-style extensions of the porting corpus)."""
from cystck.migrate import translate

VIEW = ("#include <Python.h>\n"
        "typedef struct { PyObject_HEAD PyObject *obj; } View;\n"
        "static PyObject *view_iter(View *v) { return PyObject_GetIter(v->obj); }\n"
        "static int view_traverse(View *v, visitproc visit, void *arg) { Py_VISIT(v->obj); return 0; }\n"
        "#define VIEW_SLOTS \\\n"
        "    .tp_basicsize = sizeof(View), \\\n"
        "    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, \\\n"
        "    .tp_traverse = (traverseproc)view_traverse, \\\n"
        "    .tp_iter = (getiterfunc)view_iter,\n\n"
        "static PyTypeObject KeysType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    \"m.keys\",\n    VIEW_SLOTS\n};\n"
        "static PyTypeObject ItemsType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    \"m.items\",\n    VIEW_SLOTS\n};\n")


def test_slot_macro_types_become_specs_with_the_macros_slots():
    out = translate.translate_source(VIEW)
    assert "VIEW_SLOTS" not in out
    # the project saw the macro's slots: view_iter got the slot's signature
    assert "view_iter(Cystck_State *S, Cystck_Object v)" in out
    assert out.count("sizeof(View),") == 2
    for t in ("KeysType", "ItemsType"):
        assert f"CYSTCK_DEF_SLOT({t}_tp_iter, tp_iter, view_iter)" in out
        assert f"CYSTCK_DEF_SLOT({t}_tp_traverse, tp_traverse, view_traverse)" in out


def test_slot_macro_used_outside_a_type_initialiser_stays():
    """Negative: a macro of designated elements that is not an element of a
    PyTypeObject initialiser (here a PyModuleDef's) is not expanded, and a
    used definition is kept."""
    text = ("#include <Python.h>\n"
            "#define COMMON .tp_flags = 0,\n"
            "struct S { int tp_flags; };\n"
            "static struct S s = { COMMON };\n")
    out = translate.translate_source(text)
    assert "#define COMMON .tp_flags = 0," in out
    assert "static struct S s = { COMMON };" in out


def test_function_like_macro_in_a_type_initialiser_stays():
    """Negative: only object-like macros are slot macros."""
    text = ("#include <Python.h>\n"
            "typedef struct { PyObject_HEAD long n; } Box;\n"
            "#define NAMED(n) .tp_name = n\n"
            "static PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    NAMED(\"m.Box\"),\n"
            "    .tp_basicsize = sizeof(Box),\n};\n")
    out = translate.translate_source(text)
    assert "#define NAMED(n) .tp_name = n" in out


def test_type_objects_declared_in_a_header_are_references():
    header = ("#include <Python.h>\n"
              "typedef struct { PyObject_HEAD long n; } Box;\n"
              "#define Box_Check(o) (Py_TYPE(o) == &BoxType)\n"
              "PyTypeObject BoxType;\n"
              "extern PyTypeObject OtherType;\n"
              "PyTypeObject NotOurs;\n")
    body = ('#include "box.h"\n'
            "PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Box\",\n"
            "    .tp_basicsize = sizeof(Box),\n};\n"
            "PyTypeObject OtherType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Other\",\n};\n")
    out = translate.translate_files({"box.h": header, "box.c": body})
    h = out["box.h"].text
    assert "\nCystck_Ref BoxType;\n" in h
    assert "\nextern Cystck_Ref OtherType;\n" in h
    # negative: a type object no file of the extension defines (another
    # library's) is left alone
    assert "\nPyTypeObject NotOurs;\n" in h


def test_destructor_drops_a_void_cast_call_of_tp_clear():
    text = ("#include <Python.h>\n"
            "typedef struct { PyObject_HEAD PyObject *v; } Box;\n"
            "static int Box_clear(Box *self) { Py_CLEAR(self->v); return 0; }\n"
            "static int Box_traverse(Box *self, visitproc visit, void *arg) { Py_VISIT(self->v); return 0; }\n"
            "static void Box_dealloc(Box *self)\n{\n    PyObject_GC_UnTrack(self);\n"
            "    (void)Box_clear(self);\n    (void)other(self);\n    PyObject_GC_Del(self);\n}\n"
            "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_basicsize = sizeof(Box),"
            " .tp_dealloc = (destructor)Box_dealloc, .tp_traverse = (traverseproc)Box_traverse,"
            " .tp_clear = (inquiry)Box_clear};\n")
    out = translate.translate_source(text)
    dealloc = out[out.index("Box_dealloc(void *data)"):]
    dealloc = dealloc[:dealloc.index("}")]
    assert "Box_clear" not in dealloc and "(void)\n" not in dealloc
    # negative: a call of a function that is not the dropped tp_clear stays
    assert "(void)other(self);" in dealloc
