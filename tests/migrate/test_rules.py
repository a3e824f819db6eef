"""Each rule's before/after example, translated with that rule alone; and
translating translated code changes nothing."""
import pytest

from cystck.migrate import engine, translate

RULES = engine.all_rules()


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_rule_example(rule):
    assert rule.__doc__ and rule.before and rule.after, f"{rule.name} lacks a docstring or an example"
    path = "example.cpp" if rule.library else "example.c"
    assert translate.translate_source(rule.before, path, [rule()]) == rule.after


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_rule_example_is_stable_under_all_rules(rule):
    """Translating a rule's example with every rule, then translating the
    result again, changes nothing the second time."""
    path = "example.cpp" if rule.library else "example.c"
    once = translate.translate_source(rule.before, path)
    assert translate.translate_source(once, path) == once


def test_rule_names_and_precedences_are_unique():
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
    assert [r.precedence for r in RULES] == sorted(r.precedence for r in RULES)


def test_member_functions_follow_their_definitions():
    """C++ member functions are functions: a declaration in the class body
    gets the state when its out-of-line definition does, an inline member
    that uses the API gets it too, and so do their callers."""
    header = ("#include <Python.h>\n"
              "struct Box\n{\n    PyObject_HEAD\n    static PyTypeObject* TypeObject;\n"
              "    static bool Ready();\n"
              "    static bool TypeCheck( PyObject* obj )\n    {\n"
              "        return PyObject_TypeCheck( obj, TypeObject ) != 0;\n    }\n};\n")
    body = ('#include "box.h"\n'
            "PyTypeObject* Box::TypeObject = NULL;\n"
            "bool Box::Ready()\n{\n    return PyErr_Occurred() == NULL;\n}\n"
            "static int is_box(PyObject *o)\n{\n    return Box::TypeCheck( o );\n}\n")
    out = translate.translate_files({"box.h": header, "box.cpp": body})
    assert "static bool Ready(Cystck_State *S);" in out["box.h"].text
    assert "static bool TypeCheck( Cystck_State *S, Cystck_Object obj )" in out["box.h"].text
    assert "CystckObject_TypeCheck(S,  obj, Cystck_deref(S, TypeObject) )" in out["box.h"].text
    assert "bool Box::Ready(Cystck_State *S)" in out["box.cpp"].text
    assert "Box::TypeCheck(S,  o )" in out["box.cpp"].text


def test_functors_over_struct_pointers():
    """C++ functors that overload operator() on struct pointers (kiwi's
    symbolics.h): the operator gets the state and keeps its struct-pointer
    operands, calls pass S, the operands become objects where the API
    needs one, and specialisations keep their class qualifier."""
    header = ("#include <Python.h>\n"
              "struct Box\n{\n    PyObject_HEAD\n    PyObject* items;\n    double scale;\n"
              "    static PyTypeObject* TypeObject;\n"
              "    static bool TypeCheck( PyObject* obj )\n    {\n"
              "        return PyObject_TypeCheck( obj, TypeObject ) != 0;\n    }\n};\n")
    body = ('#include "box.h"\n'
            "PyTypeObject* Box::TypeObject = NULL;\n"
            "struct Twice\n{\n    template<typename T>\n    PyObject* operator()( T value )\n    {\n"
            "        Py_RETURN_NOTIMPLEMENTED;\n    }\n};\n"
            "template<> inline\nPyObject* Twice::operator()( Box* value )\n{\n"
            "    PyObject* pair = PyTuple_Pack( 2, value->items, value );\n    if( !pair )\n        return 0;\n"
            "    return pair;\n}\n"
            "template<typename Op, typename T>\nstruct Invoke\n{\n"
            "    PyObject* operator()( PyObject* value )\n    {\n"
            "        if( !T::TypeCheck( value ) )\n            Py_RETURN_NOTIMPLEMENTED;\n"
            "        return Op()( reinterpret_cast<T*>( value ) );\n    }\n};\n"
            "static PyObject* Box_twice( PyObject* self )\n{\n"
            "    return Invoke<Twice, Box>()( self );\n}\n")
    out = translate.translate_files({"box.h": header, "box.cpp": body})
    cpp = out["box.cpp"].text
    assert "Cystck_Object operator()( Cystck_State *S, T value )" in cpp
    # A helper's constant result is a new handle: its caller may release it.
    assert "return Cystck_Dup(S, Cystck_NotImplemented);" in cpp
    assert "Cystck_Object Twice::operator()( Cystck_State *S, Box* value )" in cpp
    assert ("CystckTuple_Pack(S,  2, CystckField_Load(S, Cystck_FromStruct(S, value), value->items), "
            "Cystck_FromStruct(S, value) )") in cpp
    assert "return Cystck_NULL;" in cpp
    assert "Cystck_Object operator()( Cystck_State *S, Cystck_Object value )" in cpp
    assert "T::TypeCheck(S,  value )" in cpp
    assert "return Op()( S, reinterpret_cast<T*>( Cystck_AsStruct(S, value) ) );" in cpp
    assert "Invoke<Twice, Box>()( S, self )" in cpp


def test_cpython_allocator_is_kept():
    """PyMem_* stays CPython's allocator: CystckMem_Free reads a policy
    header that a buffer CPython allocated does not have, and a block C
    allocates and frees itself needs no policy.  (Negative: the pymalloc
    functions, plain wrappers, are still renamed.)"""
    src = ("#include <Python.h>\nstatic PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    char *buf = PyMem_Malloc(16);\n    char *z = PyMem_Calloc(2, 8);\n"
           "    buf = PyMem_Realloc(buf, 32);\n    PyMem_Free(z);\n    PyMem_Free(buf);\n"
           "    char *p = PyObject_Malloc(8);\n    PyObject_Free(p);\n    Py_RETURN_NONE;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "CystckMem_" not in out
    for call in ("PyMem_Malloc(16)", "PyMem_Calloc(2, 8)", "PyMem_Realloc(buf, 32)", "PyMem_Free(z)",
                 "PyMem_Free(buf)"):
        assert call in out
    assert "CystckObject_Malloc(S, 8)" in out and "CystckObject_Free(S, p)" in out


def test_decref_of_a_static_type_object_goes():
    """Py_DECREF(&FooType) after a failed PyModule_AddObject is no release
    of a handle: it goes (a Cystck_Drop of Cystck_deref(S, FooType) would
    drop a handle the call does not own; debug mode rejects it).  The
    module's own Py_DECREF stays a Cystck_Drop."""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD int n; } FooObject;\n"
           "static PyTypeObject FooType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n"
           "    .tp_name = \"m.Foo\", .tp_basicsize = sizeof(FooObject),\n};\n"
           "static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, \"m\", NULL, -1, NULL};\n"
           "PyMODINIT_FUNC PyInit_m(void)\n{\n    PyObject *m;\n"
           "    if (PyType_Ready(&FooType) < 0)\n        return NULL;\n"
           "    m = PyModule_Create(&mod);\n    if (m == NULL)\n        return NULL;\n"
           "    Py_INCREF(&FooType);\n"
           "    if (PyModule_AddObject(m, \"Foo\", (PyObject *)&FooType) < 0) {\n"
           "        Py_DECREF(&FooType);\n        Py_XDECREF((PyObject *) &FooType);\n"
           "        Py_DECREF(m);\n        return NULL;\n    }\n    return m;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "Cystck_Drop(S, Cystck_deref" not in out and "Py_DECREF" not in out and "Py_XDECREF" not in out
    assert "    if (CystckModule_AddObject(S, m, \"Foo\", Cystck_deref(S, FooType)) < 0) {\n" \
           "        Cystck_Drop(S, m);\n        return -1;\n    }\n" in out


def test_format_object_arguments_stay_handles():
    """CystckUnicode_FromFormat and CystckErr_Format take handles for %S %R
    %A %U %V: their arguments are passed as they are, with no escape hatch;
    the other conversions' arguments are left alone too."""
    before = ('static PyObject *f(PyObject *o, const char *name, long n)\n{\n'
              '    PyErr_Format(PyExc_TypeError, "%R is not %s (%ld)", o, name, n);\n'
              '    return PyUnicode_FromFormat("%S/%U", o, o);\n}\n')
    out = translate.translate_source(before, "example.c")
    assert "Cystck_AsPyObject" not in out
    assert '"%R is not %s (%ld)", o, name, n);' in out
    assert 'CystckUnicode_FromFormat(S, "%S/%U", o, o)' in out


def _rule(name):
    return next(r for r in RULES if r.name == name)


def test_disallow_instantiation_of_a_type_without_tp_new():
    """A static type with no tp_new and object as base is not instantiable
    in stock CPython: it gets the flag, also when it has no tp_flags."""
    source = ('static PyTypeObject TokenType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n'
              '    .tp_name = "m.Token",\n    .tp_flags = Py_TPFLAGS_DEFAULT,\n};\n'
              'static PyTypeObject MarkType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n'
              '    .tp_name = "m.Mark",\n    .tp_base = &PyBaseObject_Type,\n};\n')
    out = translate.translate_source(source, "example.c", [_rule("disallow-instantiation")()])
    assert out == source.replace(
        "    .tp_flags = Py_TPFLAGS_DEFAULT,\n",
        "    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,\n").replace(
        "    .tp_base = &PyBaseObject_Type,\n",
        "    .tp_base = &PyBaseObject_Type,\n    .tp_flags = Py_TPFLAGS_DISALLOW_INSTANTIATION,\n")


def test_disallow_instantiation_leaves_instantiable_types_alone():
    """Negative examples: types given a tp_new (in the initialiser or in
    code) or another base, and tp_new stores into what is not a static
    type object, stay as they are."""
    source = ('static PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n'
              '    .tp_flags = Py_TPFLAGS_DEFAULT,\n    .tp_new = Box_new,\n};\n'
              'static PyTypeObject CellType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n'
              '    .tp_flags = Py_TPFLAGS_DEFAULT,\n};\n'
              'static PyTypeObject SubType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n'
              '    .tp_flags = Py_TPFLAGS_DEFAULT,\n    .tp_base = &BoxType,\n};\n'
              'static PyTypeObject LateType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n'
              '    .tp_flags = Py_TPFLAGS_DEFAULT,\n};\n'
              'static int ready(PyTypeObject *heap)\n{\n    struct { void *tp_new; } local;\n'
              '    CellType.tp_new = PyType_GenericNew;\n    LateType.tp_base = &BoxType;\n'
              '    heap->tp_new = NULL;\n    local.tp_new = NULL;\n'
              '    return PyType_Ready(&CellType);\n}\n')
    assert translate.translate_source(source, "example.c", [_rule("disallow-instantiation")()]) == source


def test_declarations_right_after_a_struct_keep_its_helpers():
    """The accessor macro the object-struct rule writes after a struct has
    no semicolon, so a member table or type object right after the struct
    shares its top-level item: rewriting the declaration must keep it."""
    source = ('#include <Python.h>\n#include <structmember.h>\n'
              'typedef struct {\n    PyObject_HEAD\n    long id;\n} Token;\n'
              'static PyMemberDef Token_members[] = {\n'
              '    {"id", T_LONG, offsetof(Token, id), READONLY, "the number"},\n    {NULL}\n};\n'
              'typedef struct {\n    PyObject_HEAD\n    long n;\n} Mark;\n'
              'static PyTypeObject MarkType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n'
              '    .tp_name = "m.Mark",\n    .tp_basicsize = sizeof(Mark),\n'
              '    .tp_flags = Py_TPFLAGS_DEFAULT,\n    .tp_new = PyType_GenericNew,\n};\n')
    out = translate.translate_source(source, "example.c")
    assert "} Token;\nCYSTCK_TYPE_HELPERS(Token)\nCYSTCK_DEF_MEMBER(" in out
    assert "} Mark;\nCYSTCK_TYPE_HELPERS(Mark)\nstatic CystckDef *MarkType_defines[]" in out


def test_disallow_instantiation_flag_of_a_spec_is_cystck_spelled():
    source = ('static PyType_Slot Box_slots[] = {\n    {0, NULL}\n};\n'
              'static PyType_Spec Box_spec = {"m.Box", sizeof(Box), 0, '
              'Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, Box_slots};\n')
    out = translate.translate_source(source, "example.c", [_rule("type-spec")()])
    assert ('static CystckType_Spec Box_spec = {"m.Box", sizeof(Box), 0, '
            'CYSTCK_TPFLAGS_DISALLOW_INSTANTIATION, Box_slots, NULL};\n') in out


_TYPED_TABLE = ('static PyMethodDef m[] = {{"f", (PyCFunction)f, METH_VARARGS%s, %s}, {NULL}};\n')
_TYPED_NEAR_MISSES = {
    "output type does not match its unit": ("int n;", '"l:f", &n', "PyLong_FromLong(n)", "", "NULL"),
    "the result uses the API": ("long n;", '"l:f", &n', "PyLong_FromLong(PyLong_AsLong(Py_None) + n)", "",
                                "NULL"),
    "no :name in the format": ("long n;", '"l", &n', "PyLong_FromLong(n)", "", "NULL"),
    ":name is not the method's": ("long n;", '"l:g", &n', "PyLong_FromLong(n)", "", "NULL"),
    "an object unit": ("PyObject *o;", '"O:f", &o', "PyLong_FromLong(1)", "", "NULL"),
    "optional without a default": ("long n, k;", '"l|l:f", &n, &k', "PyLong_FromLong(n + k)", "", "NULL"),
    "a non-literal default": ("long n, k = LIMIT;", '"l|l:f", &n, &k', "PyLong_FromLong(n + k)", "", "NULL"),
    "a result that is not a boxed C value": ("long n;", '"l:f", &n', "Py_BuildValue(\"l\", n)", "", "NULL"),
    "a doc held in a variable": ("long n;", '"l:f", &n', "PyLong_FromLong(n)", "", "f_doc"),
    "keyword-only parameters": ("long n, k = 0;", '"l$l:f", &n, &k', "PyLong_FromLong(n + k)", "", "NULL"),
}


@pytest.mark.parametrize("case", sorted(_TYPED_NEAR_MISSES))
def test_typed_entry_leaves_near_misses_alone(case):
    """typed-entry takes only a fixed PyArg_ParseTuple with simple units and
    a boxed result; anything else stays an ordinary method."""
    decls, parse, result, flags, doc = _TYPED_NEAR_MISSES[case]
    src = ("#define LIMIT 3\nstatic PyObject *\nf(PyObject *self, PyObject *args)\n{\n"
           f"    {decls}\n    if (!PyArg_ParseTuple(args, {parse}))\n        return NULL;\n"
           f"    return {result};\n}}\n" + _TYPED_TABLE % (flags, doc))
    rule = next(r for r in RULES if r.name == "typed-entry")()
    assert translate.translate_source(src, "example.c", [rule]) == src
    assert "CYSTCK_DEF_TYPED" not in translate.translate_source(src, "example.c")


def test_typed_entry_other_statements_and_fastcall_left_alone():
    rule = next(r for r in RULES if r.name == "typed-entry")()
    extra = ("static PyObject *\nf(PyObject *self, PyObject *args)\n{\n    long n;\n"
             "    if (!PyArg_ParseTuple(args, \"l:f\", &n))\n        return NULL;\n    n *= 2;\n"
             "    return PyLong_FromLong(n);\n}\n" + _TYPED_TABLE % ("", "NULL"))
    assert translate.translate_source(extra, "example.c", [rule]) == extra
    fast = ("static PyObject *\nf(PyObject *self, PyObject *const *args, Py_ssize_t nargs)\n{\n"
            "    return PyLong_FromLong(nargs);\n}\n" + _TYPED_TABLE % (" | METH_FASTCALL", "NULL"))
    assert translate.translate_source(fast, "example.c", [rule]) == fast


def test_typed_entry_table_and_prototype():
    """With every rule: the prototype follows the definition, the table entry
    becomes CYSTCK_DEF_TYPED(_POSONLY) with the text of the defaults, and a
    second translation changes nothing."""
    src = ('#include <Python.h>\nstatic PyObject *f(PyObject *, PyObject *, PyObject *);\n'
           'static PyObject *\nf(PyObject *self, PyObject *args, PyObject *kw)\n{\n'
           '    static char *kwlist[] = {"s", "n", "on", NULL};\n    const char *s;\n'
           '    Py_ssize_t n = -1;\n    int on = 0;\n'
           '    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|np:f", kwlist, &s, &n, &on))\n'
           '        return NULL;\n    return PyBool_FromLong(on && n > 0 && s[0]);\n}\n'
           'static PyMethodDef m[] = {{"f", (PyCFunction)f, METH_VARARGS | METH_KEYWORDS, "doc"}, {NULL}};\n')
    out = translate.translate_source(src, "example.c")
    assert "static int f(Cystck_State *S, Cystck_Object self, const char *s, Py_ssize_t n, int on);" in out
    assert "    return (on && n > 0 && s[0]) != 0;\n" in out
    assert ('CYSTCK_DEF_TYPED(f_def, "f", f, BOOL, "doc", CYSTCK_ARG(STR, s), '
            'CYSTCK_OPT(SSIZE, n, -1), CYSTCK_OPT(BOOL, on, 0))') in out
    assert translate.translate_source(out, "example.c") == out


def test_member_table_after_a_comment_keeps_what_precedes_it():
    """A table is replaced from its declaration on: the accessor line the
    object-struct rule wrote after the struct and the comment before the
    table stay (they belong to the same top-level item, having no ';')."""
    src = ("#include <Python.h>\n#include \"structmember.h\"\n"
           "typedef struct _Enc {\n    PyObject_HEAD\n    PyObject *markers;\n} Enc;\n\n"
           "/* the members */\n"
           "static PyMemberDef enc_members[] = {\n"
           "    {\"markers\", T_OBJECT_EX, offsetof(Enc, markers), READONLY, \"m\"},\n    {NULL}\n};\n"
           "static PyTypeObject EncType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n"
           "    .tp_name = \"m.Enc\", .tp_basicsize = sizeof(Enc), .tp_members = enc_members,\n};\n")
    out = translate.translate_source(src, "m.c")
    assert "} Enc;\nCYSTCK_TYPE_HELPERS(Enc)\n\n/* the members */\nCYSTCK_DEF_MEMBER(" in out
    # negative: the qualifiers of the table go with it
    assert "static CYSTCK_DEF_MEMBER" not in out and "\nstatic \n" not in out


def test_type_comparison_with_a_static_type_in_a_macro():
    """``Py_TYPE(op) == &FooType`` in a macro body: the global-refs rule
    makes the operand ``Cystck_deref(S, FooType)``, a call with a comma,
    which the comparison keeps whole; ``!=`` is the negation."""
    src = ("#include <Python.h>\n"
           "static PyTypeObject FooType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Foo\"};\n"
           "#define IS_FOO(op) (Py_TYPE(op) == &FooType)\n"
           "static int f(PyObject *a, PyObject *b)\n{\n"
           "    if (Py_TYPE(a) != Py_TYPE(b))\n        return 0;\n"
           "    return IS_FOO(a) ? 1 : Py_TYPE(a)->tp_basicsize == 8;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "#define IS_FOO(op) (Cystck_TypeIs(S, op, Cystck_deref(S, FooType)))\n" in out
    assert "if (!Cystck_TypeIs(S, a, CystckObject_Type(S, b)))" in out
    # negative: a comparison of a member of the type is not an identity test
    assert "Cystck_TypeIs(S, a, 8)" not in out and "->tp_basicsize == 8" in out


def _translate_with_notes(src, path="m.c"):
    out = translate.translate_files({path: src})[path]
    return out.text, [n.message for n in out.notes]


def test_escape_hatch_borrowed_results_and_nested_calls():
    """A borrowed result gets a handle of its own (Cystck_FromPyObject); a
    stock call inside another keeps its PyObject * result but lends its
    handle arguments; each kept call is marked and reported."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *m, PyObject *o)\n{\n"
           "    PyObject *d = PyMethod_Function(m);\n"
           "    return PyFile_GetLine(PyMethod_Function(o), 1);\n}\n")
    out, notes = _translate_with_notes(src)
    assert ("Cystck_Object d = Cystck_FromPyObject(S, /* cystck-migrate: escape hatch */ "
            "PyMethod_Function(Cystck_AsPyObject(S, m)));") in out
    assert ("Cystck_FromNewPyObject(S, /* cystck-migrate: escape hatch */ PyFile_GetLine("
            "/* cystck-migrate: escape hatch */ PyMethod_Function(Cystck_AsPyObject(S, o)), 1))") in out
    assert sum("escape hatch: PyMethod_Function" in m for m in notes) == 2
    assert not any("PyMethod_Function has no Cystck counterpart: rewrite" in m for m in notes)


def test_escape_hatch_leaves_translated_and_plain_c_calls_alone():
    """Negative: calls with a counterpart, stock constants, the
    extension's own Py-named helpers, and a call taking the address of a
    handle (reported, not rewritten) get no escape hatch."""
    src = ("#include <Python.h>\n"
           "static int PyMine_Helper(int x) { return x; }\n"
           "static PyObject *f(PyObject *o)\n{\n"
           "    Py_ssize_t n = PY_SSIZE_T_MAX;\n"
           "    PyObject *t = PyObject_Repr(o);\n"
           "    if (PyMine_Helper(1) < 0 || PyFoo_Fill(&t) < 0)\n        return NULL;\n"
           "    return t;\n}\n")
    out, notes = _translate_with_notes(src)
    assert "escape hatch */" not in out
    assert "CystckObject_Repr(S, o)" in out and "= PY_SSIZE_T_MAX;" in out and "PyMine_Helper(1)" in out
    assert "PyFoo_Fill(&t)" in out
    assert any("PyFoo_Fill has no Cystck counterpart and takes the address of a handle" in m for m in notes)


def test_macro_return_null_with_mixed_users_is_an_error_and_plain_c_is_left_alone():
    """A macro returning NULL, expanded by an entry point (error value -1)
    and by a helper returning a handle (Cystck_NULL), cannot be rewritten
    for both: it is reported as an error.  A macro returning NULL from
    plain C functions (``char *``) is not touched."""
    src = ("#include <Python.h>\n"
           "#define NEED(o) if (!(o)) return NULL\n"
           "#define NEED_BUF(p) if (!(p)) return NULL\n"
           "static char *dup(char *p) { NEED_BUF(p); return p; }\n"
           "static PyObject *helper(PyObject *x) { NEED(x); return PyNumber_Negative(x); }\n"
           "static PyObject *meth(PyObject *self, PyObject *arg) { NEED(arg); return helper(arg); }\n"
           "static PyMethodDef methods[] = {{\"meth\", meth, METH_O, NULL}, {NULL}};\n")
    out, notes = _translate_with_notes(src)
    assert "#define NEED(o) if (!(o)) return NULL\n" in out
    assert "#define NEED_BUF(p) if (!(p)) return NULL\n" in out
    assert any(m.startswith("error: return NULL in macro NEED,") and "helper: Cystck_NULL" in m
               and "meth: -1" in m for m in notes)
    assert not any("NEED_BUF" in m for m in notes)


def test_trashcan_goes_from_destructors_both_ends():
    """Py_TRASHCAN_BEGIN (with or without ';') and Py_TRASHCAN_END both go
    from a destructor; a trashcan outside a destructor is left alone."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD PyObject *v; } Box;\n"
           "static void Box_dealloc(Box *self)\n{\n    PyObject_GC_UnTrack(self);\n"
           "    Py_TRASHCAN_BEGIN(self, Box_dealloc)\n    Py_XDECREF(self->v);\n"
           "    Py_TYPE(self)->tp_free((PyObject *)self);\n    Py_TRASHCAN_END\n}\n"
           "static void Other_dealloc(Box *self)\n{\n    Py_TRASHCAN_BEGIN(self, Other_dealloc);\n"
           "    free(self);\n    Py_TRASHCAN_END;\n}\n"
           "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Box\",\n"
           "    .tp_basicsize = sizeof(Box), .tp_dealloc = (destructor)Box_dealloc};\n")
    out, _ = _translate_with_notes(src)
    box = out[out.index("Box_dealloc(void *data)"):out.index("Other_dealloc")]
    assert "TRASHCAN" not in box
    # negative: Other_dealloc is no type's destructor
    assert "Py_TRASHCAN_BEGIN(Cystck_AsPyObject(S, self), Other_dealloc);" in out and "Py_TRASHCAN_END;" in out


def test_tp_alloc_through_a_parenthesised_or_own_type():
    """``(type)->tp_alloc(type, 0)`` (what casts leave of
    ``((PyTypeObject *)type)->tp_alloc(...)``) and
    ``Py_TYPE(self)->tp_alloc(Py_TYPE(self), 0)`` allocate through the
    runtime; a slot of one type called for another is left alone."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *type, PyObject *self, PyTypeObject *other)\n{\n"
           "    PyObject *a = ((PyTypeObject *)type)->tp_alloc((PyTypeObject *)type, 0);\n"
           "    PyObject *b = Py_TYPE(self)->tp_alloc(Py_TYPE(self), 0);\n"
           "    PyObject *c = other->tp_alloc(&PyLong_Type, 0);\n"
           "    return PyTuple_Pack(3, a, b, c);\n}\n")
    out, _ = _translate_with_notes(src)
    assert "Cystck_Object a = Cystck_New(S, type, NULL);" in out
    assert "Cystck_Object b = Cystck_New(S, CystckObject_Type(S, self), NULL);" in out
    assert "other->tp_alloc(" in out


def test_destructor_drops_the_release_of_its_heap_type():
    """``PyTypeObject *tp = Py_TYPE(self); tp->tp_free(self);
    Py_DECREF(tp);`` goes from a destructor (the runtime releases the
    type); a type local used for something else stays."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD int *buf; } Box;\n"
           "static void Box_dealloc(Box *self)\n{\n    free(self->buf);\n"
           "    PyTypeObject *tp = Py_TYPE(self);\n    tp->tp_free((PyObject *)self);\n    Py_DECREF(tp);\n}\n"
           "static void Cell_dealloc(Box *self)\n{\n    PyTypeObject *tp = Py_TYPE(self);\n"
           "    log_name(tp->tp_name);\n    Py_DECREF(tp);\n}\n"
           "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Box\",\n"
           "    .tp_basicsize = sizeof(Box), .tp_dealloc = (destructor)Box_dealloc};\n"
           "static PyTypeObject CellType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Cell\",\n"
           "    .tp_basicsize = sizeof(Box), .tp_dealloc = (destructor)Cell_dealloc};\n")
    out, _ = _translate_with_notes(src)
    assert "static void Box_dealloc(void *data)\n{\n    Box *self = (Box *)data;\n    free(self->buf);\n}\n" in out
    # negative: the type is read for its name, so the release stays for a human
    assert "log_name(tp->tp_name);\n    Py_DECREF(tp);" in out


def test_macro_that_also_uses_its_argument_as_an_object_keeps_the_handle():
    """Negative of macro-struct-args: a macro using its parameter as an
    object as well as a struct keeps the handle argument; a destructor
    passes its struct pointer unchanged."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD long n; } Box;\n"
           "#define SHOW(o) (PyObject_Print((PyObject *)(o), stdout, 0), (o)->n)\n"
           "#define FREE_N(o) ((o)->n = 0)\n"
           "static PyObject *get(Box *self, PyObject *x)\n{\n    SHOW(self);\n    return PyNumber_Negative(x);\n}\n"
           "static void Box_dealloc(Box *self)\n{\n    FREE_N(self);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
           "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Box\",\n"
           "    .tp_basicsize = sizeof(Box), .tp_dealloc = (destructor)Box_dealloc};\n")
    out, _ = _translate_with_notes(src)
    assert "    SHOW(self);\n" in out
    assert "    FREE_N(self);\n" in out


def test_meth_coexist_entries_are_kept():
    """A METH_COEXIST method stays in its table (the flag only ranks it
    above the slot wrapper of the same name); METH_CLASS still has no
    calling convention and is reported."""
    src = ("#include <Python.h>\n"
           "static PyObject *has(PyObject *self, PyObject *key) { return PyBool_FromLong(key == self); }\n"
           "static PyObject *make(PyObject *cls, PyObject *noargs) { Py_RETURN_NONE; }\n"
           "static PyMethodDef methods[] = {\n"
           "    {\"__contains__\", (PyCFunction)has, METH_O | METH_COEXIST, NULL},\n"
           "    {\"make\", (PyCFunction)make, METH_NOARGS | METH_CLASS, NULL},\n    {NULL}\n};\n")
    out, notes = _translate_with_notes(src)
    assert 'CYSTCK_DEF_METH(has_def, "__contains__", has, CYSTCK_O, NULL)' in out
    assert "static int has(Cystck_State *S, Cystck_Object self, Cystck_Object key)" in out
    assert any("make" in m and "METH_CLASS" in m for m in notes)


def test_generic_slots_of_cpython_have_their_definitions():
    """``tp_iter = PyObject_SelfIter`` and ``tp_hash =
    PyObject_HashNotImplemented`` use CPython's own functions through
    CYSTCK_DEF_SELFITER / CYSTCK_DEF_HASH_NOT_IMPLEMENTED; another stock
    function in a slot still has no counterpart and is reported."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD long i; } It;\n"
           "static PyObject *It_next(It *self) { return PyLong_FromLong(self->i++); }\n"
           "static PyTypeObject ItType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.It\",\n"
           "    .tp_basicsize = sizeof(It), .tp_iter = PyObject_SelfIter, .tp_iternext = (iternextfunc)It_next,\n"
           "    .tp_hash = PyObject_HashNotImplemented, .tp_repr = PyObject_Repr};\n")
    out, notes = _translate_with_notes(src)
    assert "CYSTCK_DEF_SELFITER(ItType_tp_iter)" in out and "&ItType_tp_iter," in out
    assert "CYSTCK_DEF_HASH_NOT_IMPLEMENTED(ItType_tp_hash)" in out and "&ItType_tp_hash," in out
    assert not any("PyObject_SelfIter" in m for m in notes)
    assert any("slot tp_repr = PyObject_Repr has no Cystck counterpart" in m for m in notes)


def test_incref_before_a_store_into_a_native_structure_is_kept_and_reported():
    """The object must outlive the call when C keeps it in its own
    structure: the increment is kept (escape hatch) and reported as an
    error.  Negative: a custom type's object field (CystckField_Store takes
    its own reference) and a local array of handles lose the increment."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD PyObject *v; } Box;\n"
           "typedef struct node { struct node *next; PyObject *items[4]; } node;\n"
           "static int put(node *n, int i, PyObject *x)\n{\n"
           "    Py_INCREF(x);\n    n->items[i] = x;\n    return PyErr_Occurred() ? -1 : 0;\n}\n"
           "static PyObject *set(Box *self, PyObject *x)\n{\n    PyObject *pair[2];\n"
           "    Py_INCREF(x);\n    pair[0] = x;\n    Py_INCREF(x);\n    self->v = x;\n"
           "    return PyNumber_Negative(pair[0]);\n}\n"
           "typedef struct { PyObject_VAR_HEAD PyObject *slots[1]; } Vec;\n"
           "static void fill(Vec *v, PyObject *x)\n{\n    Py_INCREF(x);\n    v->slots[0] = x;\n}\n"
           "static PyMethodDef methods[] = {{\"set\", (PyCFunction)set, METH_O, NULL}, {NULL}};\n")
    out, notes = _translate_with_notes(src)
    assert "    /* cystck-migrate: escape hatch */ Py_INCREF(Cystck_AsPyObject(S, x));\n    n->items[i] = x;" in out
    # a variable-size type's inline items are fields too (tests/migrate/test_var_types.py)
    assert "    CystckField_Store(S, v, &Vec_AsStruct(S, v)->slots[0], x);\n}" in out
    assert any(m.startswith("error: x is stored into n->items[i]") for m in notes)
    body = out[out.index("set(Cystck_State"):out.index("} Vec;")]
    assert "INCREF" not in body
    assert "CystckField_Store(S, self, &Box_AsStruct(S, self)->v, x);" in body


def test_incref_before_a_store_into_an_output_parameter_duplicates_the_handle():
    """``Py_INCREF(x); *result = x;`` hands the caller a new reference:
    ``*result = Cystck_Dup(S, x);``, and no escape hatch."""
    src = ("#include <Python.h>\n"
           "static int lookup(PyObject *d, PyObject *k, PyObject **result)\n{\n"
           "    PyObject *x = PyDict_GetItemWithError(d, k);\n    if (x == NULL)\n        return -1;\n"
           "    Py_INCREF(x);\n    *result = x;\n    return 0;\n}\n")
    out, notes = _translate_with_notes(src)
    assert "    *result = Cystck_Dup(S, x);\n    return 0;" in out
    assert "INCREF" not in out and not any("stored into" in m for m in notes)


def test_entry_calls_that_are_not_tail_calls_with_own_arguments_are_reported():
    """Negative of entry-tail-calls: an entry point called with other
    arguments, or one of another convention, is reported, not rewritten."""
    src = ("#include <Python.h>\n"
           "static PyObject *impl(PyObject *self, PyObject *args, PyObject *kw) { Py_RETURN_NONE; }\n"
           "static PyObject *one(PyObject *self, PyObject *arg) { Py_RETURN_NONE; }\n"
           "static PyObject *a(PyObject *self, PyObject *args, PyObject *kw)\n{\n    return impl(self, args, NULL);\n}\n"
           "static PyObject *b(PyObject *self, PyObject *arg)\n{\n    return impl(self, arg, NULL);\n}\n"
           "static PyObject *c(PyObject *self, PyObject *arg)\n{\n    return one(self, arg);\n}\n"
           "static PyMethodDef m[] = {{\"impl\", (PyCFunction)impl, METH_VARARGS | METH_KEYWORDS, NULL},\n"
           "    {\"one\", one, METH_O, NULL}, {\"a\", (PyCFunction)a, METH_VARARGS | METH_KEYWORDS, NULL},\n"
           "    {\"b\", b, METH_O, NULL}, {\"c\", c, METH_O, NULL}, {NULL}};\n")
    out, notes = _translate_with_notes(src)
    assert "return one(S, self, arg);" in out
    assert sum("direct call of entry point impl" in m for m in notes) == 2
    assert not any("direct call of entry point one" in m for m in notes)


def _exception_warnings(src):
    from cystck.migrate import analysis
    unit = translate.translate_files({"m.c": src})["m.c"]
    return [n.message for n in analysis.analyse(unit) if n.kind == "exception"]


def test_exception_analysis_sees_the_return_past_directives_and_else_branches():
    """An exception set before ``#endif`` and a return, or in both
    branches of an if/else followed by a return, is returned; one followed
    by an assignment is warned about (negative)."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    if (o == NULL) {\n#ifdef CHECKED\n        PyErr_SetString(PyExc_ValueError, \"a\");\n#else\n"
           "        PyErr_SetString(PyExc_TypeError, \"b\");\n#endif\n        return NULL;\n    }\n"
           "    if (o == Py_None) {\n        PyErr_SetString(PyExc_ValueError, \"c\");\n    }\n    else {\n"
           "        PyErr_SetString(PyExc_TypeError, \"d\");\n    }\n    return NULL;\n}\n"
           "static int g(PyObject *o)\n{\n    int rv = 0;\n    PyErr_SetString(PyExc_ValueError, \"e\");\n"
           "    rv = -1;\n    return rv;\n}\n"
           "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    warnings = _exception_warnings(src)
    assert len(warnings) == 1 and "(rv = -1;)" in warnings[0]


def test_fastcall_argument_array_passed_to_a_macro_stays_an_array():
    """A METH_FASTCALL method's ``args`` is an array: handed to a macro
    (or a helper) it stays one; a METH_VARARGS tuple handed on is built
    with CystckTuple_FromArray (negative)."""
    src = ("#include <Python.h>\n"
           "#define ARG(a, i) ((a)[i])\n"
           "static PyObject *fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs)\n{\n"
           "    if (nargs < 1)\n        return NULL;\n    return PyObject_Repr(ARG(args, 0));\n}\n"
           "static PyObject *slow(PyObject *self, PyObject *args)\n{\n"
           "    return PyObject_Repr(args);\n}\n"
           "static PyMethodDef m[] = {{\"fast\", (PyCFunction)fast, METH_FASTCALL, NULL},\n"
           "    {\"slow\", slow, METH_VARARGS, NULL}, {NULL}};\n")
    out, _ = _translate_with_notes(src)
    assert "CystckObject_Repr(S, ARG(args, 0))" in out
    assert "CystckObject_Repr(S, CystckTuple_FromArray(S, args, nargs))" in out


def test_stock_compatibility_header_is_kept_and_its_functions_are_stock():
    """A header that only re-implements stock functions (pythoncapi_compat
    style) is copied unchanged, and a call of one of its functions is a
    stock call (escape hatch), not a call of a helper given S.  A header
    of the extension's own helpers is translated (negative)."""
    compat = ("#include <Python.h>\n"
              "static inline PyObject *Py_NewRefX(PyObject *o) { Py_INCREF(o); return o; }\n"
              "static inline int PyObject_GetOptionalAttrX(PyObject *o, PyObject *n, PyObject **r)\n"
              "{ *r = PyObject_GetAttr(o, n); return *r != NULL; }\n"
              "static inline PyObject *PyFile_GetLine(PyObject *f, int n) { return PyObject_CallMethod(f, \"readline\", NULL); }\n")
    own = ("#include <Python.h>\n"
           "PyObject *my_neg(PyObject *o) { return PyNumber_Negative(o); }\n"
           "PyObject *PyMine_Twice(PyObject *o) { return PyNumber_Add(o, o); }\n")
    body = ('#include "compat.h"\n#include "own.h"\n'
            "static PyObject *f(PyObject *self, PyObject *o)\n{\n    return my_neg(PyFile_GetLine(o, 1));\n}\n"
            "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_files({"compat.h": compat, "own.h": own, "m.c": body})
    assert out["compat.h"].text == compat
    assert "my_neg(Cystck_State *S, Cystck_Object o)" in out["own.h"].text
    assert ("my_neg(S, Cystck_FromNewPyObject(S, /* cystck-migrate: escape hatch */ "
            "PyFile_GetLine(Cystck_AsPyObject(S, o), 1)))") in out["m.c"].text


def test_struct_pointer_members_leave_plain_structs_and_null_tests_alone():
    """Negative of struct-pointer-members: a pointer to a plain C struct,
    and a null test or NULL store of a struct-pointer member, stay as they
    are."""
    src = ("#include <Python.h>\n"
           "typedef struct buf { char *data; struct buf *more; } buf;\n"
           "typedef struct Node { PyObject_HEAD struct Node *next; buf *b; } Node;\n"
           "static PyObject *f(Node *self, PyObject *x)\n{\n"
           "    if (self->next == NULL || !self->b->more)\n        self->next = NULL;\n"
           "    return PyNumber_Negative(x);\n}\n")
    out, _ = _translate_with_notes(src)
    assert "if (Node_AsStruct(S, self)->next == NULL || !Node_AsStruct(S, self)->b->more)" in out
    assert "        Node_AsStruct(S, self)->next = NULL;" in out


def test_global_pointer_to_a_custom_struct_is_a_reference():
    """``static Foo *EMPTY;`` caches an instance: a Cystck_Ref, stored with
    Cystck_ref and read with Cystck_deref.  A global pointer to a plain C
    struct stays (negative)."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD long n; } Foo;\n"
           "typedef struct { char *data; } buf;\n"
           "static Foo *EMPTY;\nstatic buf *scratch;\n"
           "static PyTypeObject FooType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Foo\", .tp_basicsize = sizeof(Foo)};\n"
           "static PyObject *empty(PyObject *self, PyObject *noargs)\n{\n"
           "    if (EMPTY == NULL) {\n        Foo *e = PyObject_New(Foo, &FooType);\n"
           "        if (e == NULL)\n            return NULL;\n        EMPTY = e;\n    }\n"
           "    Py_INCREF(EMPTY);\n    return (PyObject *)EMPTY;\n}\n"
           "static PyMethodDef m[] = {{\"empty\", empty, METH_NOARGS, NULL}, {NULL}};\n")
    out, _ = _translate_with_notes(src)
    assert "static Cystck_Ref EMPTY;\nstatic buf *scratch;\n" in out
    assert "EMPTY = Cystck_ref(S, e);" in out
    assert "return Cystck_Return(S, Cystck_deref(S, EMPTY));" in out


def test_direct_calls_of_object_entry_points_keep_their_arguments():
    """An entry point whose parameters are all objects, called directly:
    ``return get(self, k);`` returns its push count, ``r = get(self, k);``
    gets the value through cystck_migrate_result (defined once).  A call of
    a METH_VARARGS entry point with a tuple is still reported (negative)."""
    src = ("#include <Python.h>\n"
           "static PyObject *get(PyObject *self, PyObject *key) { Py_RETURN_NONE; }\n"
           "static PyObject *all(PyObject *self, PyObject *args) { Py_RETURN_NONE; }\n"
           "static PyObject *twice(PyObject *self, PyObject *key)\n{\n"
           "    PyObject *r = get(self, key);\n    if (r == NULL)\n        return NULL;\n"
           "    PyObject *t = all(self, r);\n    return get(self, t);\n}\n"
           "static PyMethodDef m[] = {{\"get\", get, METH_O, NULL}, {\"all\", all, METH_VARARGS, NULL},\n"
           "    {\"twice\", twice, METH_O, NULL}, {NULL}};\n")
    out, notes = _translate_with_notes(src)
    assert out.count("static inline Cystck_Object cystck_migrate_result(Cystck_State *S, int pushed)") == 1
    assert "Cystck_Object r = cystck_migrate_result(S, get(S, self, key));" in out
    assert "    return get(S, self, t);\n" in out
    assert sum("direct call of entry point" in m for m in notes) == 1
    assert any("direct call of entry point all" in m for m in notes)


def test_type_flags_under_a_preprocessor_conditional_keep_it():
    """``.flags = Py_TPFLAGS_DEFAULT\\n#if ...\\n | Py_TPFLAGS_IMMUTABLETYPE\\n#endif``
    keeps the conditional, directives on lines of their own; flags without
    one stay a one-line expression (negative)."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD long n; } Box;\n"
           "static PyType_Slot Box_slots[] = {{0, NULL}};\n"
           "static PyType_Spec Box_spec = {\n    .name = \"m.Box\",\n    .basicsize = sizeof(Box),\n"
           "    .flags = Py_TPFLAGS_DEFAULT\n#if PY_VERSION_HEX >= 0x030c0000\n"
           "           | Py_TPFLAGS_IMMUTABLETYPE\n#endif\n    ,\n    .slots = Box_slots,\n};\n"
           "static PyType_Spec Cell_spec = {\n    .name = \"m.Cell\",\n    .basicsize = sizeof(Box),\n"
           "    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,\n    .slots = Box_slots,\n};\n")
    out, _ = _translate_with_notes(src)
    assert ("    0\n#if PY_VERSION_HEX >= 0x030c0000\n    | Py_TPFLAGS_IMMUTABLETYPE\n#endif\n,\n"
            "    Box_slots,") in out
    assert "    CYSTCK_TPFLAGS_BASETYPE,\n    Box_slots," in out


def test_handle_conditions_leave_c_values_and_assignments_alone():
    """Negative of handle-conditions: a call returning a C value tested for
    truth, a handle call assigned or compared, stay as they are."""
    src = ("#include <Python.h>\n"
           "static int f(PyObject *d, PyObject *o)\n{\n    PyObject *v = PyDict_GetItemString(d, \"k\");\n"
           "    if (PyLong_AsLong(o) && v != NULL)\n        return 1;\n"
           "    if (PyDict_GetItemString(d, \"j\"))\n        return 2;\n    return 0;\n}\n")
    out, _ = _translate_with_notes(src)
    assert 'Cystck_Object v = CystckDict_GetItemString(S, d, "k");' in out
    assert "if (CystckLong_AsLong(S, o) && !Cystck_IsNull(v))" in out
    assert 'if (!Cystck_IsNull(CystckDict_GetItemString(S, d, "j")))' in out


def test_one_getter_behind_two_attribute_names_gets_two_definitions():
    """A getter listed twice in a getset table (an alias, ``digest_size``
    and ``digestsize``) gets one definition per entry; a getter listed once
    keeps the plain symbol (negative)."""
    src = ("#include <Python.h>\n"
           "static PyObject *get_size(PyObject *self, void *c) { return PyLong_FromLong(4); }\n"
           "static PyObject *get_name(PyObject *self, void *c) { return PyUnicode_FromString(\"x\"); }\n"
           "static PyGetSetDef gs[] = {\n    {\"digest_size\", (getter)get_size, NULL, \"Size.\", NULL},\n"
           "    {\"name\", (getter)get_name, NULL, NULL, NULL},\n"
           "    {\"digestsize\", (getter)get_size, NULL, \"Size.\", NULL},\n    {NULL}\n};\n")
    out, _ = _translate_with_notes(src)
    assert 'CYSTCK_DEF_GET(get_size_getset, "digest_size", get_size, "Size.", NULL)' in out
    assert 'CYSTCK_DEF_GET(get_size_digestsize_getset, "digestsize", get_size, "Size.", NULL)' in out
    assert 'CYSTCK_DEF_GET(get_name_getset, "name", get_name, NULL, NULL)' in out


def test_leftovers_do_not_list_the_extensions_own_py_named_types():
    """The extension's own instance struct named like the API
    (``PyEncoderObject``), its accessor and the generated spec, and
    PyDoc_STR, are not stock left-overs; a stock function with no
    counterpart taking a handle's address still is (negative)."""
    from cystck.migrate import analysis
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD PyObject *v; } PyEncoderObject;\n"
           "static PyTypeObject PyEncoderType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.E\",\n"
           "    .tp_basicsize = sizeof(PyEncoderObject), .tp_doc = PyDoc_STR(\"An encoder.\")};\n"
           "static PyObject *get(PyEncoderObject *self, PyObject *o)\n{\n"
           "    PyObject *t = NULL;\n    if (PyFoo_Fill(&t) < 0)\n        return NULL;\n"
           "    return PyNumber_Add(self->v, t);\n}\n"
           "static PyMethodDef m[] = {{\"get\", (PyCFunction)get, METH_O, NULL}, {NULL}};\n"
           "static int init(PyObject *mod) { return PyType_Ready(&PyEncoderType); }\n")
    unit = translate.translate_files({"m.c": src})["m.c"]
    left = [n.message for n in analysis.analyse(unit) if n.kind == "leftover"]
    assert not any(m.startswith(("PyEncoderObject", "PyEncoderType_spec", "PyDoc_STR")) for m in left), left
    assert any(m.startswith("PyFoo_Fill has no Cystck counterpart") for m in left)


def test_assignment_of_a_handle_call_as_a_loop_condition():
    """``while ((item = PyIter_Next(it)))`` tests the handle assigned;
    ``while ((n = PyObject_Length(o)) > 0)`` (a C value compared) stays
    (negative)."""
    src = ("#include <Python.h>\n"
           "static int f(PyObject *it, PyObject *o)\n{\n    PyObject *item;\n    Py_ssize_t n;\n"
           "    while ((item = PyIter_Next(it)))\n        Py_DECREF(item);\n"
           "    while ((n = PyObject_Length(o)) > 0)\n        break;\n    return 0;\n}\n")
    out, _ = _translate_with_notes(src)
    assert "while (!Cystck_IsNull(item = CystckIter_Next(S, it)))" in out
    assert "while ((n = CystckObject_Length(S, o)) > 0)" in out


def test_slot_calls_through_the_type_in_a_macro():
    """A slot called through Py_TYPE(d) in a macro body becomes the
    abstract call; the instance-pointer cast of an object result goes; a
    set-or-delete through mp_ass_subscript becomes the helper defined after
    the include, and a NULL value given where the macro is used becomes
    Cystck_NULL (it deletes)."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD PyObject *v; } Node;\n"
           "#define GET(d, k) (Node *) Py_TYPE(d)->tp_as_mapping->mp_subscript((d), (k))\n"
           "#define PUT(d, k, n) Py_TYPE(d)->tp_as_mapping->mp_ass_subscript((d), (k), ((PyObject *)n))\n"
           "static int f(PyObject *d, PyObject *k, PyObject *v)\n{\n"
           "    PyObject *r = GET(d, k);\n    if (r == NULL)\n        return -1;\n    Py_DECREF(r);\n"
           "    if (PUT(d, k, v) < 0)\n        return -1;\n    return PUT(d, k, NULL);\n}\n")
    out, notes = _translate_with_notes(src)
    assert "#define GET(d, k) CystckObject_GetItem(S, (d), (k))\n" in out
    assert "#define PUT(d, k, n) cystck_migrate_ass_subscript(S, (d), (k), n)\n" in out
    assert "PUT(d, k, v) < 0" in out and "return PUT(d, k, Cystck_NULL);" in out
    assert out.index("static inline int cystck_migrate_ass_subscript(") > out.index('#include "Cystck.h"')
    assert "CystckObject_DelItem(S, o, key) : CystckObject_SetItem(S, o, key, v)" in out
    assert "tp_as_mapping" not in out


def test_slot_calls_leave_other_objects_and_unlisted_slots_alone():
    """Negative: a slot of one object's type called on another object, and
    a slot with no abstract counterpart here (sq_item takes no negative
    index), stay and are reported; a member read without a call is no slot
    call."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *a, PyObject *b)\n{\n"
           "    if (Py_TYPE(a)->tp_as_mapping == NULL)\n        return NULL;\n"
           "    PyObject *x = Py_TYPE(a)->tp_as_mapping->mp_subscript(b, a);\n"
           "    return Py_TYPE(a)->tp_as_sequence->sq_item(a, 0);\n}\n")
    out, notes = _translate_with_notes(src)
    assert "PyObject_GetItem" not in out and "CystckObject_GetItem" not in out
    assert "->tp_as_mapping->mp_subscript(b, a)" in out and "->tp_as_sequence->sq_item(a, 0)" in out
    assert sum("called through Py_TYPE(a)" in m for m in notes) == 2


_BASE_STORE_TYPES = (
    "#include <Python.h>\n"
    "typedef struct { PyObject_HEAD int n; } BaseObject;\n"
    "typedef struct { BaseObject base; int m; } SubObject;\n"
    "static PyTypeObject BaseType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Base\",\n"
    "    .tp_basicsize = sizeof(BaseObject), .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,\n"
    "    .tp_new = PyType_GenericNew};\n"
    "static PyTypeObject SubType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Sub\",\n"
    "    .tp_basicsize = sizeof(SubObject), .tp_flags = Py_TPFLAGS_DEFAULT, .tp_new = PyType_GenericNew};\n"
    "static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, \"m\", NULL, -1, NULL};\n")


def test_tp_base_stored_before_type_ready_is_the_specs_base():
    """``SubType.tp_base = &BaseType;`` before PyType_Ready (the portable
    spelling of a base) gives the spec its base; a store of
    ``&PyBaseObject_Type``, the default base, just goes."""
    src = (_BASE_STORE_TYPES + "PyMODINIT_FUNC PyInit_m(void)\n{\n"
           "    BaseType.tp_base = &PyBaseObject_Type;\n"
           "    SubType.tp_base = &BaseType;\n"
           "    if (PyType_Ready(&BaseType) < 0 || PyType_Ready(&SubType) < 0)\n        return NULL;\n"
           "    return PyModule_Create(&mod);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "tp_base =" not in out and "BaseObject_Type" not in out
    assert "CystckType_FromSpec(S, &BaseType_spec, Cystck_NULL)" in out
    assert "CystckType_FromSpec(S, &SubType_spec, Cystck_deref(S, BaseType))" in out


def test_tp_base_stores_after_type_ready_or_of_another_base_stay():
    """Negative: a store after the type is ready, and a base that is not
    one of the extension's types, are not the spec's base: they stay (and
    fail to build, rather than build a type without its base)."""
    src = (_BASE_STORE_TYPES + "PyMODINIT_FUNC PyInit_m(void)\n{\n"
           "    BaseType.tp_base = &PyDict_Type;\n"
           "    if (PyType_Ready(&BaseType) < 0 || PyType_Ready(&SubType) < 0)\n        return NULL;\n"
           "    SubType.tp_base = &BaseType;\n"
           "    return PyModule_Create(&mod);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "BaseType.tp_base = " in out and "SubType.tp_base = " in out
    assert "CystckType_FromSpec(S, &SubType_spec, Cystck_NULL)" in out


def test_parse_tuple_of_numbers_on_another_tuple_is_kept_through_the_escape_hatch():
    """PyArg_ParseTuple on a tuple that is no argument array (an item of a
    sequence), with only number outputs, is kept on the lent tuple (marked
    and reported); the entry point's own arguments still go to CystckArg."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *args)\n{\n"
           "    PyObject *pair;\n    int x, y;\n    double w;\n"
           "    if (!PyArg_ParseTuple(args, \"O\", &pair))\n        return NULL;\n"
           "    if (!PyArg_ParseTuple(pair, \"ii|d:point\", &x, &y, &w))\n        return NULL;\n"
           "    return PyLong_FromLong(x + y);\n}\n"
           "static PyMethodDef m[] = {{\"f\", f, METH_VARARGS, NULL}, {NULL}};\n")
    out, notes = _translate_with_notes(src)
    assert "CystckArg_ParseTuple(S, args, nargs, \"O\", &pair)" in out
    assert ("/* cystck-migrate: escape hatch */ PyArg_ParseTuple(Cystck_AsPyObject(S, pair), "
            "\"ii|d:point\", &x, &y, &w)") in out
    assert any("escape hatch: PyArg_ParseTuple on pair" in m for m in notes)


def test_parse_tuple_with_object_outputs_on_another_tuple_writes_them_to_stock_pointers():
    """A helper's tuple parsed with O outputs: each is written to a
    PyObject * declared for it and given a handle when the parse fills it
    (an optional one left out keeps its value)."""
    src = ("#include <Python.h>\n"
           "static PyObject *g(PyObject *t)\n{\n"
           "    PyObject *o, *d = Py_None;\n    int i;\n"
           "    if (!PyArg_ParseTuple(t, \"iO|O:g\", &i, &o, &d))\n        return NULL;\n"
           "    return PyTuple_Pack(2, o, d);\n}\n")
    out, notes = _translate_with_notes(src)
    assert "{\n    PyObject *cystck_migrate_o = NULL;\n    PyObject *cystck_migrate_d = NULL;\n" in out
    assert ("if (!(cystck_migrate_o = NULL, cystck_migrate_d = NULL, /* cystck-migrate: escape hatch */ "
            "PyArg_ParseTuple(Cystck_AsPyObject(S, t), \"iO|O:g\", &i, &cystck_migrate_o, &cystck_migrate_d)"
            " && (cystck_migrate_o == NULL || (o = Cystck_FromPyObject(S, cystck_migrate_o), 1))"
            " && (cystck_migrate_d == NULL || (d = Cystck_FromPyObject(S, cystck_migrate_d), 1))))") in out
    assert any("escape hatch: PyArg_ParseTuple on t" in m for m in notes)


def test_parse_tuple_with_checked_or_converted_outputs_on_another_tuple_is_left_alone():
    """Negative: O! (a type to check against), O& (a converter) or a
    non-literal format cannot go through the escape hatch: the call stays
    and is reported."""
    src = ("#include <Python.h>\n"
           "static int g(PyObject *t, const char *fmt)\n{\n"
           "    PyObject *o;\n    int i;\n"
           "    if (!PyArg_ParseTuple(t, \"iO!\", &i, &PyDict_Type, &o))\n        return -1;\n"
           "    if (!PyArg_ParseTuple(t, \"O&\", conv, &i))\n        return -1;\n"
           "    return PyArg_ParseTuple(t, fmt, &i);\n}\n")
    out, notes = _translate_with_notes(src)
    assert "escape hatch */" not in out and "cystck_migrate_" not in out
    assert "PyArg_ParseTuple(t, \"O&\", conv, &i)" in out and "PyArg_ParseTuple(t, fmt, &i)" in out
    assert "PyArg_ParseTuple(t, \"iO!\", &i, " in out
    assert sum("PyArg_ParseTuple on t, which is not the argument array" in m for m in notes) == 3


def test_object_new_macro_spelling_allocates_through_the_runtime():
    """PyObject_NEW, the macro spelling of PyObject_New, allocates through
    the runtime like it (it was kept through the escape hatch, assigning
    a struct pointer to a handle).  Negative: the extension's own
    my_PyObject_NEW is not the stock macro and stays."""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD int n; } Box;\n"
           "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Box\",\n"
           "    .tp_basicsize = sizeof(Box)};\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    Box *b = PyObject_NEW(Box, &BoxType);\n    if (b == NULL)\n        return NULL;\n"
           "    b->n = my_PyObject_NEW(Box, 1);\n    return (PyObject *)b;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "Cystck_Object b = Cystck_New(S, Cystck_deref(S, BoxType), NULL);" in out
    assert "my_PyObject_NEW(Box, 1)" in out and "escape hatch" not in out
    assert " PyObject_NEW(" not in out


def test_function_pointer_parameter_over_objects_takes_the_state():
    """A helper's function-pointer parameter whose functions take or return
    objects points to helpers that now take S: its type says so and calls
    through it pass S.  Negative: a function pointer over plain C (qsort's
    comparator) keeps its type and its calls."""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *key; } Node;\n"
           "static PyObject *get_key(Node *n) { return PyObject_Repr(n->key); }\n"
           "static PyObject *apply(PyObject *l, PyObject *(*get)(Node *), int (*cmp)(const void *, const void *))\n"
           "{\n    int c = cmp(NULL, NULL);\n"
           "    PyObject *r = get((Node *)l);\n    return PyList_Append(l, r) < 0 || c ? NULL : r;\n}\n"
           "static PyObject *f(PyObject *self, PyObject *l) { return apply(l, get_key, NULL); }\n")
    out = translate.translate_source(src, "m.c")
    assert ("apply(Cystck_State *S, Cystck_Object l, Cystck_Object (*get)(Cystck_State *S, Cystck_Object), "
            "int (*cmp)(const void *, const void *))") in out
    assert "Cystck_Object get_key(Cystck_State *S, Cystck_Object n)" in out
    assert "get(S, " in out and "cmp(NULL, NULL)" in out


def test_destructor_calling_an_api_helper_is_reported():
    """A deallocator that calls a helper using the API (a destructor has no
    state) is reported as an error for a human.  Negative: a call of a
    plain C function there (free) is not."""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *d; char *buf; } Box;\n"
           "static PyObject *Box_clear(Box *self) { PyDict_Clear(self->d); Py_RETURN_NONE; }\n"
           "static void Box_dealloc(Box *self)\n{\n    free(self->buf);\n    if (self->d)\n"
           "        Box_clear(self);\n    Py_XDECREF(self->d);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
           "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Box\",\n"
           "    .tp_basicsize = sizeof(Box), .tp_dealloc = (destructor)Box_dealloc};\n")
    out, notes = _translate_with_notes(src)
    assert "static void Box_dealloc(void *data)" in out
    errors = [m for m in notes if m.startswith("error: destructor calls")]
    assert len(errors) == 1 and "Box_clear" in errors[0]


def test_destructor_null_tests_of_fields_use_field_is_null():
    """In a destructor (no state) a NULL test of an object member becomes
    CystckField_IsNull, which needs none: ``if (self->d)``, ``!self->d``,
    ``self->d != NULL``, ``self->d == NULL``.  Negative: a native member's
    test (``self->buf``) and a non-test use of the field stay as they are."""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *d; PyObject *e; char *buf; } Box;\n"
           "static void Box_dealloc(Box *self)\n{\n    if (self->d)\n        puts(\"d\");\n"
           "    if (!self->e || self->buf)\n        free(self->buf);\n"
           "    if (self->d != NULL && self->e == NULL)\n        keep(self->e);\n"
           "    Py_XDECREF(self->d);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
           "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Box\",\n"
           "    .tp_basicsize = sizeof(Box), .tp_dealloc = (destructor)Box_dealloc};\n")
    out, notes = _translate_with_notes(src)
    assert ("static void Box_dealloc(void *data)\n{\n    Box *self = (Box *)data;\n"
            "    if (!CystckField_IsNull(self->d))\n        puts(\"d\");\n"
            "    if (CystckField_IsNull(self->e) || self->buf)\n        free(self->buf);\n"
            "    if (!CystckField_IsNull(self->d) && CystckField_IsNull(self->e))\n        keep(self->e);\n}\n") in out
    assert not any("truth value" in m for m in notes)


def test_type_with_object_members_and_no_traverse_gets_one():
    """A type whose struct has object members but no tp_traverse (a stock
    type without GC) gets a traverse visiting them: the runtime finds
    Cystck_Fields only through it, to start a new instance with them empty
    (an uninitialised field was released by the first CystckField_Store)
    and to release them.  Negative: a type with its own traverse keeps it,
    and one without object members gets none."""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *k; long n; PyObject *v; } Box;\n"
           "typedef struct { PyObject_HEAD long n; } Num;\n"
           "static int Box_traverse(Box *self, visitproc visit, void *arg) { Py_VISIT(self->v); return 0; }\n"
           "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Box\",\n"
           "    .tp_basicsize = sizeof(Box)};\n"
           "static PyTypeObject GcBoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.GcBox\",\n"
           "    .tp_basicsize = sizeof(Box), .tp_traverse = (traverseproc)Box_traverse};\n"
           "static PyTypeObject NumType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Num\",\n"
           "    .tp_basicsize = sizeof(Num)};\n")
    out, _ = _translate_with_notes(src)
    assert ("static int cystck_migrate_Box_traverse(void *data, Cystck_visitproc visit, void *arg)\n{\n"
            "    Box *self = (Box *)data;\n    Cystck_VISIT(&self->k);\n    Cystck_VISIT(&self->v);\n"
            "    return 0;\n}\n") in out
    assert "CYSTCK_DEF_SLOT(BoxType_tp_traverse, tp_traverse, cystck_migrate_Box_traverse)" in out
    assert out.count("cystck_migrate_Box_traverse(void *data") == 1
    assert "CYSTCK_DEF_SLOT(GcBoxType_tp_traverse, tp_traverse, Box_traverse)" in out
    assert "NumType_tp_traverse" not in out
    assert translate.translate_source(out, "m.c") == out


def test_release_followed_by_a_read_of_the_same_handle_goes():
    """``Py_DECREF(node); return node->value;`` (stock code relying on
    another owner, a dict, keeping node alive) loses the release: a
    dropped handle reads as null.  Negative: a release followed by an
    assignment of the variable, or last in its block (a loop body), stays
    a Cystck_Drop, and so does one whose variable is only released again
    (on an error path)."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *d, PyObject *k)\n{\n    PyObject *node = PyObject_GetItem(d, k);\n"
           "    PyObject *r = PyObject_Repr(node);\n    Py_DECREF(node);\n    return PyObject_Str(node);\n}\n"
           "static PyObject *g(PyObject *d, PyObject *k)\n{\n    PyObject *x = PyObject_GetItem(d, k);\n"
           "    Py_DECREF(x);\n    x = PyObject_GetItem(d, d);\n    while (x) {\n"
           "        PyObject *y = PyObject_Repr(x);\n        Py_DECREF(y);\n    }\n    return x;\n}\n"
           "static PyObject *h(PyObject *d)\n{\n    PyObject *b = PyObject_Repr(d);\n    if (!b)\n        goto error;\n"
           "    Py_XDECREF(b);\n    return PyObject_Str(d);\nerror:\n    Py_XDECREF(b);\n    return NULL;\n}\n")
    out = translate.translate_source(src, "m.c")
    f = out[:out.index(" g(Cystck_State")]
    assert "Cystck_Drop" not in f and "return CystckObject_Str(S, node);" in f
    g = out[out.index(" g(Cystck_State"):out.index(" h(Cystck_State")]
    assert g.count("Cystck_Drop(S, ") == 2
    h = out[out.index(" h(Cystck_State"):]
    assert h.count("Cystck_Drop(S, b);") == 2


def test_keywords_method_reading_its_kwargs_gets_the_dict():
    """A METH_KEYWORDS method that walks its kwargs dict itself gets it
    made from the keyword names and values (a CYSTCK_KEYWORDS method is
    given the names only); the helper is defined once.  Negative: a method
    that passes them to PyArg_ParseTupleAndKeywords, or on to another
    method, is left alone."""
    src = ("#include <Python.h>\n"
           "static PyObject *upd(PyObject *self, PyObject *args, PyObject *kwargs)\n{\n"
           "    PyObject *k, *v;\n    Py_ssize_t pos = 0;\n"
           "    if (kwargs != NULL && PyDict_Check(kwargs)) {\n"
           "        while (PyDict_Next(kwargs, &pos, &k, &v))\n            PyObject_SetItem(self, k, v);\n    }\n"
           "    Py_RETURN_NONE;\n}\n"
           "static PyObject *get(PyObject *self, PyObject *args, PyObject *kw)\n{\n"
           "    static char *kwlist[] = {\"k\", NULL};\n    PyObject *k;\n"
           "    if (!PyArg_ParseTupleAndKeywords(args, kw, \"O\", kwlist, &k))\n        return NULL;\n"
           "    return PyObject_GetItem(self, k);\n}\n"
           "static PyObject *fwd(PyObject *self, PyObject *args, PyObject *kw)\n{\n"
           "    return kw ? get(self, args, kw) : NULL;\n}\n"
           "static PyMethodDef methods[] = {\n"
           "    {\"upd\", (PyCFunction)upd, METH_VARARGS | METH_KEYWORDS, NULL},\n"
           "    {\"fwd\", (PyCFunction)fwd, METH_VARARGS | METH_KEYWORDS, NULL},\n"
           "    {\"get\", (PyCFunction)get, METH_VARARGS | METH_KEYWORDS, NULL},\n    {NULL}\n};\n")
    out = translate.translate_source(src, "m.c")
    upd = out[out.index("upd(Cystck_State"):out.index("get(Cystck_State")]
    assert upd.startswith("upd(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, "
                          "Cystck_ssize_t nargs, Cystck_Object kwargs)\n{\n"
                          "    kwargs = cystck_migrate_kwargs_dict(S, args, nargs, kwargs);\n")
    assert out.count("static inline Cystck_Object cystck_migrate_kwargs_dict(") == 1
    assert out.count("cystck_migrate_kwargs_dict(S, ") == 1
    assert translate.translate_source(out, "m.c") == out


def test_capsule_destructors_stay_stock():
    """CPython calls a capsule's destructor with the capsule as a
    ``PyObject *`` and no state: a function passed as the destructor of
    PyCapsule_New or PyCapsule_SetDestructor keeps its stock signature and
    body (given ``S`` it was called with the capsule in ``S`` and crashed).
    (Negative: a helper that reads the same capsule gets ``S`` and Cystck
    calls.)"""
    src = ("#include <Python.h>\n"
           "static void ctx_free(PyObject *cap)\n{\n"
           "    void *p = PyCapsule_GetPointer(cap, \"m.ctx\");\n    PyMem_Free(p);\n}\n"
           "static void other_free(PyObject *cap)\n{\n    PyMem_Free(PyCapsule_GetPointer(cap, NULL));\n}\n"
           "static void *ctx_get(PyObject *cap)\n{\n    return PyCapsule_GetPointer(cap, \"m.ctx\");\n}\n"
           "static PyObject *make(PyObject *self)\n{\n"
           "    PyObject *c = PyCapsule_New(PyMem_Malloc(8), \"m.ctx\", ctx_free);\n"
           "    if (c != NULL && ctx_get(c) != NULL)\n"
           "        PyCapsule_SetDestructor(c, (PyCapsule_Destructor) other_free);\n"
           "    return c;\n}\n"
           "static PyMethodDef methods[] = {{\"make\", (PyCFunction) make, METH_NOARGS, NULL}, {NULL}};\n")
    from cystck.migrate import analysis
    unit = translate.translate_files({"m.c": src})["m.c"]
    out, notes = unit.text, [n.message for n in analysis.analyse(unit) if n.kind == "leftover"]
    assert "static void ctx_free(PyObject *cap)\n{\n" \
           "    void *p = PyCapsule_GetPointer(cap, \"m.ctx\");\n    PyMem_Free(p);\n}\n" in out
    assert "static void other_free(PyObject *cap)\n{\n    PyMem_Free(PyCapsule_GetPointer(cap, NULL));\n}\n" in out
    assert "static void *ctx_get(Cystck_State *S, Cystck_Object cap)\n{\n" \
           "    return CystckCapsule_GetPointer(S, cap, \"m.ctx\");\n}\n" in out
    assert "CystckCapsule_New(S, PyMem_Malloc(8), \"m.ctx\", ctx_free)" in out
    assert sum("PyCapsule_GetPointer kept: a capsule destructor stays stock" in m for m in notes) == 2
    assert translate.translate_source(out, "m.c") == out


def test_stealing_module_add_object_maps_through_the_api_table():
    """PyModule_AddObject (which steals) and PyModule_AddObjectRef both
    become CystckModule_AddObject(Ref), which never consume the value: the
    API table's row says so (``~ PyModule_AddObject``); the translator has
    no list of its own."""
    from cystck.migrate import api
    assert api.stock_map()["PyModule_AddObject"] == "CystckModule_AddObject"
    out = translate.translate_source(
        '#include <Python.h>\nstatic int add(PyObject *m, PyObject *v)\n{\n'
        '    return PyModule_AddObject(m, "v", v);\n}\n')
    assert 'CystckModule_AddObject(S, m, "v", v)' in out
