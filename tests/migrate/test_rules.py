"""Each rule's before/after example, translated with that rule and what it
needs; and translating translated code changes nothing."""
import pytest
import regex

from cystck.migrate import engine, translate

RULES = engine.all_rules()
# What only translated text holds: a Cystck name.
TRANSLATED = regex.compile(r"\b(?:Cystck\w*|CYSTCK_\w+)")


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_rule_example(rule):
    """``before`` is stock C (or C++); translated with the rule and what it
    needs (engine.select_rules), it becomes ``after``, and the rule itself
    rewrites or reports something on the way."""
    assert rule.__doc__ and rule.before and rule.after, f"{rule.name} lacks a docstring or an example"
    assert not TRANSLATED.search(rule.before), f"{rule.name}'s example starts from translated text"
    path = "example.cpp" if rule.library else "example.c"
    unit = translate.translate_files({path: rule.before}, engine.select_rules([rule.name]))[path]
    assert unit.text == rule.after
    assert unit.counts[rule.name] or any(n.rule == rule.name for n in unit.notes)


def test_every_rule_runs_after_what_it_needs():
    """needs names registered rules of a lower precedence: the one order
    of application runs each rule after what it needs, and needs cannot
    form a cycle (each step goes down in precedence)."""
    by_name = {r.name: r for r in RULES}
    for rule in RULES:
        assert isinstance(rule.needs, tuple), f"{rule.name}: needs is a tuple of rule names"
        for need in rule.needs:
            assert need in by_name, f"{rule.name} needs {need!r}, which is no rule"
            assert by_name[need].precedence < rule.precedence, f"{rule.name} runs before {need}, which it needs"


def test_choosing_a_rule_brings_what_it_needs_and_excluding_one_what_needs_it():
    """--rules adds what the chosen rules need (transitively), --exclude
    leaves out what needs an excluded rule; both say which they added or
    left out."""
    classes, added, left_out = engine.selection(["handle-conditions"])
    assert [c.name for c in classes] == ["api-calls", "handle-conditions"]
    assert (added, left_out) == (["api-calls"], [])
    classes, added, left_out = engine.selection(exclude=["api-calls"])
    names = {c.name for c in classes}
    assert "api-calls" not in names and "handle-conditions" not in names and "constants" in names
    assert added == [] and "handle-conditions" in left_out
    assert all("api-calls" in engine.selection([name])[1] for name in left_out)
    # the core pack named whole: nothing to add
    assert engine.selection(["core"])[1] == []


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
    # a tie would order two rules by their names, by accident
    assert len({r.precedence for r in RULES}) == len(RULES)


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
    # its NULL test of a handle (every user passes one) is translated, its
    # return is not
    assert "#define NEED(o) if (Cystck_IsNull(o)) return NULL\n" in out
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
    assert "Cystck_Object a = Cystck_NewZeroed(S, type, NULL);" in out
    assert "Cystck_Object b = Cystck_NewZeroed(S, CystckObject_Type(S, self), NULL);" in out
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
    above the slot wrapper of the same name); METH_CLASS is kept as a
    binding flag (CYSTCK_DEF_METH_FLAGS)."""
    src = ("#include <Python.h>\n"
           "static PyObject *has(PyObject *self, PyObject *key) { return PyBool_FromLong(key == self); }\n"
           "static PyObject *make(PyObject *cls, PyObject *noargs) { Py_RETURN_NONE; }\n"
           "static PyMethodDef methods[] = {\n"
           "    {\"__contains__\", (PyCFunction)has, METH_O | METH_COEXIST, NULL},\n"
           "    {\"make\", (PyCFunction)make, METH_NOARGS | METH_CLASS, NULL},\n    {NULL}\n};\n")
    out, notes = _translate_with_notes(src)
    assert 'CYSTCK_DEF_METH(has_def, "__contains__", has, CYSTCK_O, NULL)' in out
    assert "static int has(Cystck_State *S, Cystck_Object self, Cystck_Object key)" in out
    assert 'CYSTCK_DEF_METH_FLAGS(make_def, "make", make, CYSTCK_NOARGS, METH_CLASS, NULL)' in out
    assert not any("make" in m for m in notes)


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
    arguments, or one of another convention, is not a tail call passing
    its arguments on.  A keywords method given a tuple (the caller's
    arguments with other keywords, a METH_O argument) is called through
    Cystck_CallImplKw (entry-keyword-calls: before, both were reported)."""
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
    assert "return Cystck_Return(S, Cystck_CallImplKw(S, impl, self, CystckTuple_FromArray(S, args, nargs), " \
           "NULL, 0, Cystck_NULL));" in out
    assert "return Cystck_Return(S, Cystck_CallImplKw(S, impl, self, arg, NULL, 0, Cystck_NULL));" in out
    assert not any("direct call of entry point impl" in m for m in notes)
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


def test_exception_analysis_sees_the_exception_returned_as_the_result():
    """``return PyErr_Format(...);`` from an entry point is ``return
    Cystck_Return(S, CystckErr_Format(...));``: the exception is returned
    (T35's blind test was warned about it); a call in the statement before
    a return stays warned about (negative)."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    if (o == Py_None)\n        return PyErr_Format(PyExc_ValueError, \"no %S\", o);\n"
           "    if (o == Py_True)\n        PyErr_Format(PyExc_ValueError, \"no %S\", o);\n"
           "    o = Py_None;\n    return PyObject_Repr(o);\n}\n"
           "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    warnings = _exception_warnings(src)
    assert len(warnings) == 1 and "(o = Cystck_None;)" in warnings[0]


def test_exception_analysis_sees_an_exception_returned_over_several_lines():
    """``return PyErr_Format(...)`` (``return Cystck_Return(S,
    CystckErr_Format(S, ...))`` once translated) returns its exception
    however its lines are broken; one set in a statement that is no return
    and followed by another call is warned about (negative)."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    if (o == Py_None)\n        return PyErr_Format(PyExc_ValueError,\n"
           "                            \"bad value %R\", o);\n"
           "    if (o == Py_True)\n        return PyErr_Format(\n            PyExc_ValueError, \"bad %R\", o);\n"
           "    if (o == Py_False) {\n        PyErr_Format(PyExc_TypeError,\n"
           "                     \"x %R\", o);\n        o = Py_None;\n    }\n"
           "    return PyLong_FromLong(1);\n}\n"
           "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    warnings = _exception_warnings(src)
    assert len(warnings) == 1 and "(o = Cystck_None;)" in warnings[0], warnings


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
    gets the value through the runtime's Cystck_PopResult.  A call of
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
    assert "static inline Cystck_Object Cystck_PopResult" not in out   # the runtime's, not redefined
    assert "Cystck_Object r = Cystck_PopResult(S, get(S, self, key));" in out
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


def test_handle_conditions_test_the_extensions_own_handle_calls():
    """A call of one of the extension's functions returning a handle,
    tested with ``!`` in a function and in a macro's body, tests its
    handle (lazy-object-proxy's first contact: `wrong type argument to
    unary exclamation mark`); a function of the extension returning a C
    value keeps its ``!`` (negative)."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD PyObject *w; } P;\n"
           "static PyObject *get(P *self)\n{\n    if (!self->w)\n        return NULL;\n    return self->w;\n}\n"
           "static int ready(P *self) { return self->w != NULL; }\n"
           "#define ENSURE(self) if (!get(self)) return NULL;\n"
           "static PyObject *f(P *self, PyObject *a)\n{\n    if (!get(self) || !ready(self))\n        return NULL;\n"
           "    ENSURE(self);\n    return PyObject_Repr(a);\n}\n"
           "static PyMethodDef m[] = {{\"f\", (PyCFunction)f, METH_O, NULL}, {NULL}};\n"
           "static PyTypeObject PT = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.P\", "
           ".tp_basicsize = sizeof(P), .tp_methods = m};\n")
    out, _ = _translate_with_notes(src)
    assert "if (Cystck_IsNull(get(S, self)) || !ready(S, self))" in out
    assert "#define ENSURE(self) if (Cystck_IsNull(get(S, self))) return -1;" in out


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
    PyDoc_STR, are not stock left-overs, nor a variable it defines at file
    scope named like the API (``Python3_module``, udatetime 0.0.17's module
    definition); a stock function with no counterpart taking a handle's
    address still is (negative)."""
    from cystck.migrate import analysis
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD PyObject *v; } PyEncoderObject;\n"
           "static PyTypeObject PyEncoderType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.E\",\n"
           "    .tp_basicsize = sizeof(PyEncoderObject), .tp_doc = PyDoc_STR(\"An encoder.\")};\n"
           "static PyObject *get(PyEncoderObject *self, PyObject *o)\n{\n"
           "    PyObject *t = NULL;\n    if (PyFoo_Fill(&t) < 0)\n        return NULL;\n"
           "    return PyNumber_Add(self->v, t);\n}\n"
           "static PyMethodDef m[] = {{\"get\", (PyCFunction)get, METH_O, NULL}, {NULL}};\n"
           "static int init(PyObject *mod) { return PyType_Ready(&PyEncoderType); }\n"
           "static struct PyModuleDef Python3_module = {PyModuleDef_HEAD_INIT, \"m\", NULL, -1, m};\n"
           "PyMODINIT_FUNC PyInit_m(void) { return PyModule_Create(&Python3_module); }\n")
    unit = translate.translate_files({"m.c": src})["m.c"]
    left = [n.message for n in analysis.analyse(unit) if n.kind == "leftover"]
    assert not any(m.startswith(("PyEncoderObject", "PyEncoderType_spec", "PyDoc_STR", "Python3_module"))
                   for m in left), left
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


def test_parse_tuple_with_checked_or_converted_outputs_on_another_tuple_parses_the_tuple():
    """O! (a type to check against), O& (a converter) or a non-literal
    format cannot go through the escape hatch: the tuple handle is parsed
    by CystckArg_ParseTupleObject (the same units as CystckArg_ParseTuple,
    tests/runtime/test_argtuple_object.py); before, the call stayed stock on
    handles and was reported."""
    src = ("#include <Python.h>\n"
           "static int g(PyObject *t, const char *fmt)\n{\n"
           "    PyObject *o;\n    int i;\n"
           "    if (!PyArg_ParseTuple(t, \"iO!\", &i, &PyDict_Type, &o))\n        return -1;\n"
           "    if (!PyArg_ParseTuple(t, \"O&\", conv, &i))\n        return -1;\n"
           "    return PyArg_ParseTuple(t, fmt, &i);\n}\n")
    out, notes = _translate_with_notes(src)
    assert "escape hatch */" not in out and "cystck_migrate_" not in out
    assert "CystckArg_ParseTupleObject(S, t, \"O&\", conv, &i)" in out
    assert "CystckArg_ParseTupleObject(S, t, fmt, &i)" in out
    assert "CystckArg_ParseTupleObject(S, t, \"iO!\", &i, CystckDict_Type, &o)" in out
    assert not [m for m in notes if "PyArg_ParseTuple on t" in m]


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
                          "    if (cystck_migrate_kwargs_dict(S, args, nargs, &kwargs) < 0)\n        return -1;\n")
    assert out.count("static inline int cystck_migrate_kwargs_dict(") == 1
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


def test_functions_named_by_a_pasting_macro():
    """A function whose name a macro pastes together (one template body
    included twice with another suffix), ``static PyObject *
    SUFFIXED(parse)(PyObject *o)``, gets the state in its real parameter
    list, and so do its calls ``SUFFIXED(parse)(o)``.  (Negative: a macro
    call with an argument list after it that is not a name, ``CALL(f)(o)``
    in a function without the API, and a lowercase call ``pick(o)(x)``,
    are left alone.)"""
    src = ("#include <Python.h>\n#define SUFFIXED(base) base##_u\n"
           "static PyObject *\nSUFFIXED(parse)(PyObject *o)\n{\n    return PyNumber_Negative(o);\n}\n"
           "static PyObject *\nSUFFIXED(scan)(PyObject *o, int n)\n{\n"
           "    return n ? SUFFIXED(parse)(o) : SUFFIXED(scan)(o, n - 1);\n}\n"
           "static int plain(int x)\n{\n    return CALL(f)(x) + pick(x)(x);\n}\n")
    out = translate.translate_source(src)
    assert "static Cystck_Object\nSUFFIXED(parse)(Cystck_State *S, Cystck_Object o)\n{\n" \
           "    return CystckNumber_Negative(S, o);\n}\n" in out
    assert "static Cystck_Object\nSUFFIXED(scan)(Cystck_State *S, Cystck_Object o, int n)\n" in out
    assert "return n ? SUFFIXED(parse)(S, o) : SUFFIXED(scan)(S, o, n - 1);" in out
    assert "static int plain(int x)\n{\n    return CALL(f)(x) + pick(x)(x);\n}\n" in out
    assert translate.translate_source(out) == out


def test_an_included_file_sees_the_static_helpers_of_its_includer():
    """A file compiled as part of another (``#include "body.h"``, a
    template body) calls the includer's static helpers, which take the
    state, so its calls pass ``S``.  (Negative: a header nobody includes
    cannot see a static function of another file, and its call of a
    function of that name is left alone.)"""
    main = ("#include <Python.h>\n"
            "static PyObject *neg(PyObject *o)\n{\n    return PyNumber_Negative(o);\n}\n"
            "#include \"body.h\"\n")
    body = "static PyObject *twice(PyObject *o)\n{\n    return neg(neg(o));\n}\n"
    other = "static PyObject *thrice(PyObject *o)\n{\n    return neg(PyNumber_Negative(o));\n}\n"
    units = translate.translate_files({"m/main.c": main, "m/body.h": body, "m/other.h": other})
    assert "static Cystck_Object twice(Cystck_State *S, Cystck_Object o)\n{\n    return neg(S, neg(S, o));\n}\n" \
        == units["m/body.h"].text
    assert "return neg(CystckNumber_Negative(S, o));" in units["m/other.h"].text


def test_api_alias_macros_used_as_pointers_stay():
    """An alias of an API function that is also used as a value (a
    function pointer) cannot take the state through a function-like
    macro: it is left as it is.  (The rule's example shows the aliases
    used only in calls.)"""
    src = ("#include <Python.h>\n#define CONVERT PyLong_FromLong\n"
           "static PyObject *(*conv)(long) = CONVERT;\n"
           "static PyObject *f(void) { return CONVERT(1); }\n")
    out = translate.translate_source(src)
    assert "#define CONVERT PyLong_FromLong\n" in out


def test_visit_through_a_macro_defined_in_traverse():
    """A traverse function that visits its fields through a macro defined
    in its body over an X-macro list (``#define VISIT_FIELD(f)
    Py_VISIT(self->f);``) visits them the Cystck way.  (Negative: the same
    macro defined outside any traverse function is left alone.)"""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *a; PyObject *b; } Box;\n"
           "#define BOX_FIELDS(X) X(a) X(b)\n"
           "#define OUTSIDE_VISIT(f) Py_VISIT(self->f);\n"
           "static int Box_traverse(Box *self, visitproc visit, void *arg)\n{\n"
           "#define VISIT_FIELD(f) Py_VISIT(self->f);\n    BOX_FIELDS(VISIT_FIELD)\n#undef VISIT_FIELD\n"
           "    return 0;\n}\n"
           "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Box\","
           " .tp_basicsize = sizeof(Box), .tp_traverse = (traverseproc)Box_traverse};\n")
    out = translate.translate_source(src)
    assert "#define VISIT_FIELD(f) Cystck_VISIT(&self->f);\n" in out
    assert "#define OUTSIDE_VISIT(f) Py_VISIT(self->f);\n" in out


def test_field_value_first_compared_with_a_constant():
    """``s->v == Py_None`` (the field's value first) compares identities
    like ``o == s->v``.  (Negative: a comparison of the field's value with
    NULL is a null test, not an identity, and is not turned into
    Cystck_Is.)"""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *v; } Box;\n"
           "static PyObject *f(Box *b, PyObject *o)\n{\n"
           "    if (b->v == Py_None || b->v == NULL)\n        return o;\n    return b->v;\n}\n"
           "static PyMethodDef m[] = {{\"f\", (PyCFunction)f, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(src)
    assert "Cystck_Is(S, CystckField_Load(S, b, Box_AsStruct(S, b)->v), Cystck_None)" in out
    assert "Cystck_Is(S, CystckField_Load(S, b, Box_AsStruct(S, b)->v), NULL)" not in out
    assert "Cystck_Is(S, CystckField_Load(S, b, Box_AsStruct(S, b)->v), Cystck_NULL)" not in out


def test_macros_reading_the_handles_of_the_functions_that_expand_them():
    """A macro without parameters that reads locals of the functions
    expanding it (``#define FLUSH if (chunk != NULL) { ...; Py_CLEAR(chunk); }``)
    tests and clears them as handles when they are handles in every such
    function.  (Negative: a macro whose users disagree, ``p`` a handle in
    one and a ``char *`` in the other, keeps its NULL tests.)"""
    src = ("#include <Python.h>\n"
           "#define FLUSH \\\n    if (chunk != NULL) { \\\n        if (PyList_Append(out, chunk)) return NULL; \\\n"
           "        Py_CLEAR(chunk); \\\n    }\n"
           "#define CHECK_P if (p == NULL) return NULL;\n"
           "static PyObject *f(PyObject *out, PyObject *chunk)\n{\n    FLUSH\n    return out;\n}\n"
           "static PyObject *g(PyObject *out)\n{\n    PyObject *chunk = PyList_New(0);\n    FLUSH\n"
           "    return out;\n}\n"
           "static PyObject *h(PyObject *p)\n{\n    CHECK_P\n    return p;\n}\n"
           "static PyObject *k(PyObject *o, char *p)\n{\n    CHECK_P\n    return o;\n}\n")
    out = translate.translate_source(src)
    assert "    if (!Cystck_IsNull(chunk)) { \\\n" in out
    assert "        Cystck_Drop(S, chunk); chunk = Cystck_NULL; \\\n" in out
    assert "#define CHECK_P if (p == NULL) return" in out


def test_an_unused_attribute_after_a_parameter_name_is_not_the_name():
    """``PyObject *self UNUSED`` (an attribute macro after the name) names
    the parameter ``self``: the body's uses of ``self`` stay declared.
    (Negative: a parameter whose only word is such a macro name,
    ``PyObject *UNUSED``, keeps that name.)"""
    src = ("#include <Python.h>\n#define UNUSED __attribute__((__unused__))\n"
           "static PyObject *f(PyObject *self UNUSED, PyObject *o)\n{\n    return self ? o : NULL;\n}\n"
           "static PyObject *g(PyObject *UNUSED, PyObject *o)\n{\n    return o;\n}\n"
           "static PyMethodDef m[] = {{\"f\", (PyCFunction)f, METH_O, NULL},"
           " {\"g\", (PyCFunction)g, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(src)
    assert "static int f(Cystck_State *S, Cystck_Object self, Cystck_Object o)\n" in out
    assert "static int g(Cystck_State *S, Cystck_Object UNUSED, Cystck_Object o)\n" in out


def test_null_stored_through_a_pointer_to_a_handle():
    """``*out = NULL;`` through an output parameter ``PyObject **out``
    stores the null handle.  (Negative: the same through a ``char **``
    stays NULL.)"""
    src = ("#include <Python.h>\n"
           "static int get(PyObject *d, PyObject **out, char **name)\n{\n"
           "    if (PyDict_Size(d) == 0) {\n        *out = NULL;\n        *name = NULL;\n        return 0;\n    }\n"
           "    *out = PyDict_Keys(d);\n    return 1;\n}\n")
    out = translate.translate_source(src)
    assert "        *out = Cystck_NULL;\n        *name = NULL;\n" in out


def test_a_compat_fallback_of_a_stock_macro_stays_stock():
    """A stock macro the extension defines only where CPython lacks it
    (``#if !defined(Py_SIZE)``) is CPython's where it is compiled: its
    calls are translated like any stock call (``Py_SIZE`` is in the API
    table) and its fallback definition is left as it is, not renamed.
    (Negative: a Py-named macro the extension defines unconditionally is
    its own and is left as it is.)"""
    src = ("#include <Python.h>\n#if !defined(Py_SIZE)\n#define Py_SIZE(ob) (((PyVarObject*)(ob))->ob_size)\n"
           "#endif\n#define Py_MYSIZE(ob) (((PyVarObject*)(ob))->ob_size)\n"
           "static int f(PyObject *t)\n{\n    return PyTuple_Check(t) && Py_SIZE(t) == 2 && Py_MYSIZE(t) == 2;\n}\n")
    out = translate.translate_source(src)
    assert "CystckVar_Size(S, t) == 2" in out
    assert "#if !defined(Py_SIZE)\n#define Py_SIZE(ob) (((PyVarObject*)(ob))->ob_size)\n" in out
    assert "&& Py_MYSIZE(t) == 2;" in out


def test_a_field_after_a_logical_and_is_read_not_addressed():
    """``a && self->v != Py_None``: the ``&&`` before the field is no
    address-of, so the field's value is loaded.  (Negative: ``&self->v``
    still takes the field's address.)"""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *v; } Box;\n"
           "static int g(Cystck_Field *f);\n"
           "static int f(Box *self, PyObject *o)\n{\n"
           "    if (PyBytes_Check(o) && self->v != Py_None)\n        return 1;\n"
           "    return g(&self->v);\n}\n")
    out = translate.translate_source(src)
    assert "CystckBytes_Check(S, o) && !Cystck_Is(S, CystckField_Load(S, self, Box_AsStruct(S, self)->v), Cystck_None)" in out
    assert "g(&Box_AsStruct(S, self)->v)" in out


def test_a_macro_parameter_that_always_names_an_object_field():
    """A macro defined in a function that stores into ``self->f``, ``f``
    its parameter, stores into a field when every expansion names an
    object field (``LOAD(a, "a")``).  (Negative: a macro also given an
    int field, ``n``, keeps the plain access.)"""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *a; PyObject *b; long n; } Box;\n"
           "static int init(Box *self, PyObject *ctx)\n{\n"
           "#define LOAD(f, name) do { self->f = PyObject_GetAttrString(ctx, name); "
           "if (self->f == NULL) return -1; } while (0)\n"
           "#define ZERO(f) self->f = 0\n"
           "    LOAD(a, \"a\");\n    LOAD(b, \"b\");\n    ZERO(a);\n    ZERO(n);\n    return 0;\n}\n")
    out = translate.translate_source(src)
    assert ("#define LOAD(f, name) do { CystckField_Store(S, self, &Box_AsStruct(S, self)->f, "
            "CystckObject_GetAttrString(S, ctx, name)); if (CystckField_IsNull(Box_AsStruct(S, self)->f)) return -1; }") in out
    assert "#define ZERO(f) Box_AsStruct(S, self)->f = 0\n" in out


def test_module_state_references_in_macros_and_type_stores():
    """A module-state member read in a macro under a cast,
    ``(PyTypeObject *)st.Type``, reads the reference; a static type stored
    into the state, ``st->Type = (PyObject *)&FooType;``, is read from its
    reference before the store takes one.  (Negative: a macro assigning
    the member keeps the assignment.)"""
    src = ("#include <Python.h>\ntypedef struct { PyObject *Type; } mstate;\n"
           "static mstate static_state;\n"
           "#define IS_FOO(op) PyObject_TypeCheck(op, (PyTypeObject *)static_state.Type)\n"
           "#define SET_FOO(t) static_state.Type = (t)\n"
           "static PyTypeObject FooType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Foo\"};\n"
           "static int fill(mstate *st)\n{\n    if (PyType_Ready(&FooType) < 0)\n        return -1;\n"
           "    st->Type = (PyObject *)&FooType;\n    return 0;\n}\n"
           "static PyObject *check(PyObject *self, PyObject *o)\n{\n    return PyBool_FromLong(IS_FOO(o));\n}\n"
           "static PyMethodDef methods[] = {{\"check\", check, METH_O, NULL}, {NULL}};\n"
           "static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, \"m\", NULL, sizeof(mstate), methods};\n")
    out = translate.translate_source(src)
    assert "#define IS_FOO(op) CystckObject_TypeCheck(S, op, Cystck_deref(S, static_state.Type))\n" in out
    assert "st->Type = Cystck_ref(S, Cystck_deref(S, FooType));" in out
    assert "#define SET_FOO(t) static_state.Type = (t)\n" in out


def test_asserts_using_the_api_leave_traverse_functions():
    """A traverse function has no state, so ``assert(Box_Check(self))``
    (a macro over the API) cannot stay in it and goes.  (Negative: an
    assert on the native struct, ``assert(self->n >= 0)``, stays.)"""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *v; long n; } Box;\n"
           "static PyTypeObject BoxType;\n#define Box_Check(op) PyObject_TypeCheck(op, &BoxType)\n"
           "static int Box_traverse(Box *self, visitproc visit, void *arg)\n{\n"
           "    assert(Box_Check(self));\n    assert(self->n >= 0);\n    Py_VISIT(self->v);\n    return 0;\n}\n"
           "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Box\","
           " .tp_basicsize = sizeof(Box), .tp_traverse = (traverseproc)Box_traverse};\n")
    out = translate.translate_source(src)
    assert "    Box *self = (Box *)data;\n    assert(self->n >= 0);\n    Cystck_VISIT(&self->v);\n" in out


def test_a_helper_returning_an_entry_points_result():
    """A helper returning an object that ends with ``return f(NULL, o);``,
    ``f`` a METH_O entry point, returns the value ``f`` pushed, as a
    handle.  (Negative: the same call returned from a helper returning
    ``int`` is not given a handle.)"""
    src = ("#include <Python.h>\n"
           "static PyObject *neg(PyObject *self, PyObject *o)\n{\n    return PyNumber_Negative(o);\n}\n"
           "static PyObject *helper(PyObject *o)\n{\n    return neg(NULL, o);\n}\n"
           "static int count(PyObject *o)\n{\n    return neg(NULL, o);\n}\n"
           "static PyMethodDef m[] = {{\"neg\", neg, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(src)
    assert "    return Cystck_PopResult(S, neg(S, Cystck_NULL, o));\n" in out
    assert "static int count(Cystck_State *S, Cystck_Object o)\n{\n    return neg(S, Cystck_NULL, o);\n}\n" in out


def test_helpers_reading_object_internals_stay_stock():
    """A helper that reads CPython's object structs (``tp->tp_doc``, a
    ``PyHeapTypeObject`` cast), which handles cannot reach, keeps its
    stock signature and body, and its callers lend it their handles
    through the escape hatch.  (Negative: a helper that reads
    ``Py_TYPE(o)->tp_name`` only, which the py-type rule ports, is
    translated; so is one reading ``tp->tp_name``: see
    test_rules_type_name_reads.py.)"""
    src = ("#include <Python.h>\n"
           "static const char *short_name(PyObject *obj)\n{\n    PyTypeObject *tp = Py_TYPE(obj);\n"
           "    const char *dot = strrchr(tp->tp_doc, '.');\n    return dot == NULL ? tp->tp_doc : dot + 1;\n}\n"
           "static const char *long_name(PyObject *obj)\n{\n    return Py_TYPE(obj)->tp_name;\n}\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    return PyUnicode_FromFormat(\"%s %s\", short_name(o), long_name(o));\n}\n"
           "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(src)
    assert ("static const char *short_name(PyObject *obj)\n{\n    PyTypeObject *tp = Py_TYPE(obj);\n"
            "    const char *dot = strrchr(tp->tp_doc, '.');\n    return dot == NULL ? tp->tp_doc : dot + 1;\n}\n") in out
    assert "static const char *long_name(Cystck_State *S, Cystck_Object obj)\n{\n" \
           "    return CystckType_GetName(S, CystckObject_Type(S, obj));\n}\n" in out
    assert "/* cystck-migrate: escape hatch */ short_name(Cystck_AsPyObject(S, o)), long_name(S, o))" in out
    assert translate.translate_source(out) == out


def test_identity_with_a_builtin_type_object():
    """``s->f != (PyObject *)&PyFloat_Type`` and ``o == (PyObject
    *)&PyLong_Type`` compare identities with the type's constant handle.
    (Negative: ``Py_TYPE(o) == &PyLong_Type`` is a type test, which the
    py-type rule ports, and a non-handle ``p == &PyLong_Type`` stays.)"""
    src = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *f; } Box;\n"
           "static int f(Box *s, PyObject *o, void *p)\n{\n"
           "    return s->f != (PyObject *)&PyFloat_Type && o == (PyObject *)&PyLong_Type\n"
           "        && Py_TYPE(o) == &PyLong_Type && p == &PyLong_Type;\n}\n")
    out = translate.translate_source(src)
    assert ("return !Cystck_Is(S, CystckField_Load(S, s, Box_AsStruct(S, s)->f), CystckFloat_Type) && "
            "Cystck_Is(S, o, CystckLong_Type)\n        && Cystck_TypeIs(S, o, CystckLong_Type) && p == CystckLong_Type;") in out


def test_macros_reaching_the_struct_of_their_users_locals():
    """A macro that reads ``s->n`` of a local ``s`` that is the same custom
    type in every function expanding it (here a template body that
    another file includes) reaches the native struct.  (Negative: a macro
    whose users disagree on the type of ``s`` is left alone.)"""
    main = ("#include <Python.h>\ntypedef struct { PyObject_HEAD long n; } Box;\n"
            "typedef struct { PyObject_HEAD long n; } Cup;\n"
            "#define GET_N() (s->n)\n#define ANY_N() (s->n)\n"
            "static PyObject *cup(Cup *s)\n{\n    return PyLong_FromLong(ANY_N());\n}\n"
            "#include \"body.h\"\n")
    body = ("static PyObject *box(Box *s)\n{\n    return PyLong_FromLong(GET_N() + ANY_N());\n}\n")
    units = translate.translate_files({"m/main.c": main, "m/body.h": body})
    out = units["m/main.c"].text
    assert "#define GET_N() (Box_AsStruct(S, s)->n)\n" in out
    assert "#define ANY_N() (s->n)\n" in out



def test_a_module_definition_that_differs_per_version_is_read_by_position():
    """Positional elements of an initialiser that differ per version
    (``#if ... sizeof(st), #else 0, #endif``) are read from the first
    branch, so the elements after them keep their places: the methods
    are still found.  (Negative: without a conditional, the same
    definition reads the same way.)"""
    head = ("#include <Python.h>\ntypedef struct { long n; } st;\n"
            "static PyObject *f(PyObject *m, PyObject *o) { return o; }\n"
            "static PyMethodDef methods[] = {{\"f\", (PyCFunction)f, METH_O, NULL}, {NULL}};\n")
    split = ("static struct PyModuleDef def = {\n    PyModuleDef_HEAD_INIT, \"m\", NULL,\n#if PY_VERSION_HEX >= 0x030D0000\n"
             "    sizeof(st),\n#else\n    0,\n#endif\n    methods\n};\n")
    plain = "static struct PyModuleDef def = {\n    PyModuleDef_HEAD_INIT, \"m\", NULL,\n    sizeof(st),\n    methods\n};\n"
    init = "PyMODINIT_FUNC PyInit_m(void) { return PyModule_Create(&def); }\n"
    for d in (split, plain):
        out = translate.translate_source(head + d + init)
        assert "static CystckModuleDef def = {\n    \"m\",\n    NULL,\n    sizeof(st),\n    methods\n};\n" in out



def test_code_only_python2_compiles_is_copied_as_it_is():
    """Cystck needs Python 3: the code of ``#if PY_MAJOR_VERSION < 3``
    (and of the ``#else`` of ``#if PY_MAJOR_VERSION >= 3``) is never
    compiled, so it is copied unchanged, like a comment, with no escape
    hatch and no report.  (Negative: a branch on a Python 3 version,
    ``PY_VERSION_HEX >= 0x030D0000``, is translated.)"""
    py2 = "#if PY_MAJOR_VERSION < 3\n    if (PyString_Check(o))\n        return PyInt_FromLong(1);\n#endif\n"
    src = ("#include <Python.h>\nstatic PyObject *f(PyObject *o)\n{\n" + py2
           + "#if PY_MAJOR_VERSION >= 3\n    if (PyUnicode_Check(o))\n        return NULL;\n"
           "#else\n    if (PyString_Check(o))\n        return NULL;\n#endif\n"
           "#if PY_VERSION_HEX >= 0x030D0000\n    if (PyLong_Check(o))\n        return NULL;\n#endif\n"
           "    return o;\n}\n")
    from cystck.migrate import analysis
    unit = translate.translate_files({"m.c": src})["m.c"]
    out = unit.text
    assert py2 in out
    assert "#else\n    if (PyString_Check(o))\n        return NULL;\n#endif\n" in out
    assert "    if (CystckUnicode_Check(S, o))\n        return Cystck_NULL;\n" in out
    assert "    if (CystckLong_Check(S, o))\n        return Cystck_NULL;\n" in out
    assert not [n for n in analysis.analyse(unit) if "PyString" in n.message or "PyInt" in n.message]


_PY2_PY3_INIT = ("#include <Python.h>\nstatic struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, \"m\", NULL, -1, NULL};\n"
                 "static PyObject *f(PyObject *o)\n{\n#ifdef {M}\n    return PyUnicode_FromString(\"x\");\n#else\n"
                 "    return PyString_FromString(\"x\");\n#endif\n}\n"
                 "PyMODINIT_FUNC\n#ifdef {M}\nPyInit_m(void)\n#else\ninitm(void)\n#endif\n{\n    PyObject *m;\n"
                 "#ifdef {M}\n    m = {CREATE};\n#else\n    m = Py_InitModule(\"m\", NULL);\n#endif\n"
                 "    if (m == NULL)\n#ifdef {M}\n        return NULL;\n#else\n        return;\n#endif\n"
                 "#ifdef {M}\n    return m;\n#endif\n}\n")


def test_a_macro_that_stands_for_python3_decides_its_conditionals():
    """A build may say "Python 3" with a macro of its own (setup.py's
    ``define_macros=[('_PYTHON3', '1')]``): a macro whose defined branch
    holds code only Python 3 compiles (``PyModule_Create``) and whose
    other branch code only Python 2 compiles (``Py_InitModule``) decides
    every conditional on it, as ``PY_MAJOR_VERSION >= 3`` does: the
    Python 2 branches are copied as they are, with no escape hatch and no
    report, and the init keeps its conditional around ``CYSTCK_MODINIT``
    (before, the ``#ifdef`` line before the init's name went with
    ``PyMODINIT_FUNC``'s, leaving an ``#else`` with no ``#if``, and the
    init's returns were not translated).  (Negative: a macro with no such
    evidence, a feature switch, decides nothing: both branches are
    translated.)"""
    from cystck.migrate import source
    src = _PY2_PY3_INIT.replace("{M}", "_PYTHON3").replace("{CREATE}", "PyModule_Create(&mod)")
    assert source.python3_macros(source.lex(src).blanked) == {"_PYTHON3": True}
    unit = translate.translate_files({"m.c": src})["m.c"]
    out = unit.text
    assert "#else\n    return PyString_FromString(\"x\");\n#endif\n" in out
    assert "#ifdef _PYTHON3\nCYSTCK_MODINIT(m)\n#else\ninitm(void)\n#endif\n{\n" in out
    assert "#else\n    m = Py_InitModule(\"m\", NULL);\n#endif\n" in out
    assert "#ifdef _PYTHON3\n        return -1;\n#else\n        return;\n#endif\n" in out
    assert "#ifdef _PYTHON3\n    return Cystck_Return(S, m);\n#endif\n" in out
    assert not [n for n in unit.notes if "PyString" in n.message or "Py_InitModule" in n.message]
    # the same init on PY_MAJOR_VERSION keeps its #if too
    major = src.replace("#ifdef _PYTHON3", "#if PY_MAJOR_VERSION >= 3")
    assert "#if PY_MAJOR_VERSION >= 3\nCYSTCK_MODINIT(m)\n#else\ninitm(void)\n#endif\n{\n" \
        in translate.translate_source(major)
    # a feature switch: no Python 2 code in either branch
    switch = _PY2_PY3_INIT.replace("{M}", "HAVE_FAST").replace("{CREATE}", "PyModule_Create(&mod)") \
        .replace("Py_InitModule(\"m\", NULL)", "PyModule_Create(&mod)")
    assert source.python3_macros(source.lex(switch).blanked) == {}
    out = translate.translate_source(switch)
    assert "#else\n    m = CystckModule_Create(S, &mod);\n#endif\n" in out


@pytest.mark.parametrize("line, decided", [
    ("#if PY_MAJOR_VERSION < 3", False), ("#if PY_MAJOR_VERSION >= 3", True), ("#if PY_MAJOR_VERSION == 2", False),
    ("#if PY_VERSION_HEX < 0x02070000", False), ("#if PY_VERSION_HEX >= 0x03000000", True),
    ("#if PY_MAJOR_VERSION >= 3 || defined(Py_UNICODE_WIDE)", True),
    ("#if PY_VERSION_HEX >= 0x030D0000", None), ("#if PY_VERSION_HEX < 0x030E0000 || PY_MAJOR_VERSION < 3", None),
    ("#if PY_MAJOR_VERSION < 3 || defined(X)", None), ("#if defined(PY_MAJOR_VERSION)", None)])
def test_conditions_python3_decides(line, decided):
    from cystck.migrate import source
    assert source._python3_decides(line) is decided


_PY2_TYPE_OBJECT = (
    "#include <Python.h>\ntypedef struct { PyObject_HEAD int offset; } Fixed;\n"
    "static PyObject *Fixed_repr(Fixed *self) { return PyUnicode_FromString(\"x\"); }\n"
    "static PyTypeObject Fixed_type = {\n    HEAD\n    \"m.Fixed\", sizeof(Fixed), 0, 0, 0, 0, 0, 0,\n"
    "    (reprfunc)Fixed_repr, 0, 0, 0, 0, 0, (reprfunc)Fixed_repr, 0, 0, 0,\n"
    "    Py_TPFLAGS_DEFAULT, \"A fixed offset.\",\n};\n")


@pytest.mark.parametrize("head", ["PyObject_HEAD_INIT(NULL)\n    0,", "PyVarObject_HEAD_INIT(NULL, 0)"])
def test_a_positional_type_object_after_either_head_reads_its_slots_in_place(head):
    """``PyObject_HEAD_INIT(NULL)`` then ``0,`` (Python 2's spelling of a
    type object's head, which Python 3 compiles too: the ``0`` is
    ``ob_size``) reads its slots as ``PyVarObject_HEAD_INIT(NULL, 0)``
    does: ``tp_repr`` and ``tp_str`` are found (before, the ``0`` was read
    as ``tp_name`` and every slot one place off: ``tp_as_number =
    (reprfunc)Fixed_repr: table not found``, udatetime 0.0.17's Python 2
    branch).  (The second case, the Python 3 head, is the near miss: its
    first positional element is ``tp_name``.)"""
    unit = translate.translate_files({"m.c": _PY2_TYPE_OBJECT.replace("HEAD", head)})["m.c"]
    out = unit.text
    assert "CYSTCK_DEF_SLOT(Fixed_type_tp_repr, tp_repr, Fixed_repr)" in out
    assert "CYSTCK_DEF_SLOT(Fixed_type_tp_str, tp_str, Fixed_repr)" in out
    assert '    "m.Fixed",\n    sizeof(Fixed),\n' in out
    assert not [n for n in unit.notes if "table not found" in n.message]


def test_a_field_read_through_a_stock_pointer_is_given_a_handle_for_its_type_test():
    """``Py_TYPE(dt->tzinfo) == &Foo_Type``, ``dt`` a stock struct pointer
    (``PyDateTime_DateTime *``, which the handle lends): the field is a
    ``PyObject *``, not a handle, so the type test takes a handle the
    frame gets for it, ``Cystck_FromPyObject(S, (PyObject *)dt->tzinfo)``,
    marked and reported (before: the field was passed as the handle and
    the build failed, "incompatible type for argument 2 of
    Cystck_TypeIs").  (Negative: a custom type's object field, a handle
    once translated, is tested as it is.)"""
    src = ("#include <Python.h>\n#include <datetime.h>\ntypedef struct { PyObject_HEAD PyObject *inner; } Box;\n"
           "static PyTypeObject Box_Type = {PyVarObject_HEAD_INIT(NULL, 0) \"m.Box\", sizeof(Box)};\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    PyDateTime_DateTime *dt = (PyDateTime_DateTime *)o;\n    Box *b = (Box *)self;\n"
           "    if (dt->hastzinfo && Py_TYPE(dt->tzinfo) == &Box_Type)\n        return PyLong_FromLong(1);\n"
           "    if (Py_TYPE(b->inner) == &Box_Type)\n        return PyLong_FromLong(2);\n"
           "    return PyLong_FromLong(0);\n}\n")
    unit = translate.translate_files({"m.c": src})["m.c"]
    out = unit.text
    assert ("Cystck_TypeIs(S, /* cystck-migrate: escape hatch */ Cystck_FromPyObject(S, (PyObject *)dt->tzinfo), "
            in out)
    assert "Cystck_FromPyObject(S, (PyObject *)b" not in out
    assert [n for n in unit.notes if n.rule == "stock-struct-pointers" and "dt->tzinfo" in n.message]


def test_reading_a_strings_data_is_plain_c():
    """``PyUnicode_READ(kind, data, i)`` and ``PyUnicode_WRITE`` work on a
    string's kind and data pointer, which Cystck hands out: no handle
    crosses, so they stay as they are, with no escape hatch.
    (Negative: ``PyUnicode_CopyCharacters(o, 0, p, 0, 1)``, a stock
    function taking objects, goes through the escape hatch.)"""
    src = ("#include <Python.h>\nstatic Py_UCS4 f(PyObject *o, PyObject *p, Py_ssize_t i)\n{\n"
           "    int kind = PyUnicode_KIND(o);\n    void *data = PyUnicode_DATA(o);\n"
           "    PyUnicode_WRITE(kind, data, 0, 'x');\n"
           "    return PyUnicode_READ(kind, data, i) + PyUnicode_CopyCharacters(o, 0, p, 0, 1);\n}\n")
    out = translate.translate_source(src)
    assert "    PyUnicode_WRITE(kind, data, 0, 'x');\n" in out
    assert "return PyUnicode_READ(kind, data, i) + /* cystck-migrate: escape hatch */ " \
           "PyUnicode_CopyCharacters(Cystck_AsPyObject(S, o), 0, Cystck_AsPyObject(S, p), 0, 1);" in out

def test_clearing_a_module_state_member_releases_its_reference():
    """``Py_CLEAR(st->cache)`` on a member of the module state (a
    Cystck_Ref) releases the reference: ``Cystck_unref(S, st->cache);
    st->cache = NULL;`` (dropping a handle read from a reference that was
    never made failed at import).  (Negative: ``Py_CLEAR`` of a local
    handle drops the handle.)"""
    src = ("#include <Python.h>\ntypedef struct { PyObject *cache; } mstate;\n"
           "static int reset(mstate *st)\n{\n    PyObject *tmp = PyList_New(0);\n    Py_CLEAR(tmp);\n"
           "    Py_CLEAR(st->cache);\n    st->cache = PyDict_New();\n    return st->cache == NULL ? -1 : 0;\n}\n"
           "static PyMethodDef methods[] = {{NULL}};\n"
           "static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, \"m\", NULL, sizeof(mstate), methods};\n")
    out = translate.translate_source(src)
    assert "    Cystck_unref(S, st->cache); st->cache = NULL;\n" in out
    assert "    Cystck_Drop(S, tmp); tmp = Cystck_NULL;\n" in out


def test_fetch_restore_with_the_type_used_is_left_for_a_human():
    """``PyErr_Fetch``/``PyErr_Restore`` become one raised exception only
    where the type and traceback serve nothing else; where the type is
    also read (``PyErr_GivenExceptionMatches(t, ...)``) they keep their
    meaning as CystckErr_Fetch and CystckErr_Restore.  Rewritten, the file
    defines the restoring helper once, after the Cystck.h include."""
    keep = ("#include <Python.h>\nstatic int f(PyObject *d)\n{\n    PyObject *t, *v, *tb;\n"
            "    PyErr_Fetch(&t, &v, &tb);\n    int r = PyErr_GivenExceptionMatches(t, PyExc_KeyError);\n"
            "    PyErr_Restore(t, v, tb);\n    return r;\n}\n")
    out = translate.translate_source(keep)
    assert "    CystckErr_Fetch(S, &t, &v, &tb);\n" in out and "GetRaisedException" not in out
    done = translate.translate_source(keep.replace("int r = PyErr_GivenExceptionMatches(t, PyExc_KeyError);",
                                                   "int r = PyDict_Size(d);"))
    assert done.startswith('#include "Cystck.h"\n\n#ifndef CYSTCK_MIGRATE_RESTORE_DEFINED\n#define CYSTCK_MIGRATE_RESTORE_DEFINED\n'
                           '/* cystck-migrate: PyErr_Restore of what PyErr_Fetch took')
    assert "    v = CystckErr_GetRaisedException(S);\n" in done and "    cystck_migrate_restore(S, v);\n" in done
    assert translate.translate_source(done) == done


def test_fetch_without_restore_defines_no_restoring_helper():
    """An exception fetched, normalized and kept (``PyErr_Fetch``,
    ``PyErr_NormalizeException``, the value returned: the error made a
    result) is taken as one object too, with no ``PyErr_Restore`` to
    become the helper's call: the file defines no helper nothing calls (an
    unused static inline)."""
    src = ("#include <Python.h>\nstatic PyObject *f(PyObject *self)\n{\n    PyObject *t, *v, *tb;\n"
           "    PyErr_Fetch(&t, &v, &tb);\n    PyErr_NormalizeException(&t, &v, &tb);\n    return v;\n}\n")
    out = translate.translate_source(src)
    assert "    v = CystckErr_GetRaisedException(S);\n" in out and "Fetch(" not in out
    assert "cystck_migrate_restore" not in out and "CYSTCK_MIGRATE_RESTORE_DEFINED" not in out


def test_a_reference_taken_through_an_alias_is_a_handle_of_its_own():
    """``integer = obj; Py_INCREF(integer); ... Py_DECREF(integer);`` takes
    a reference of its own through the alias: ``integer =
    Cystck_Dup(S, obj);``, so the release drops that handle, not the
    caller's ``obj`` (dropped twice, it was a use after release).
    (Negative: an increment of another name after an assignment, ``b =
    other; Py_INCREF(other);``, is removed as before.)"""
    src = ("#include <Python.h>\nstatic int f(PyObject *obj, PyObject *other)\n{\n    PyObject *integer, *b;\n"
           "    if (PyLong_CheckExact(obj)) {\n        integer = obj;\n        Py_INCREF(integer);\n    }\n"
           "    else\n        integer = PyNumber_Long(obj);\n    b = other;\n    Py_INCREF(other);\n"
           "    Py_DECREF(integer);\n    return 0;\n}\n")
    out = translate.translate_source(src)
    assert "    if (CystckLong_CheckExact(S, obj)) {\n        integer = Cystck_Dup(S, obj);\n    }\n" in out
    assert "    b = other;\n    Cystck_Drop(S, integer);\n" in out


def test_a_reference_taken_before_the_assignment_is_a_handle_of_its_own():
    """``Py_INCREF(Py_None); rval = Py_None;`` gives ``rval`` a reference
    the code releases later: ``rval = Cystck_Dup(S, Cystck_None);``
    (dropping the constant itself is an error in debug mode).
    (Negative: ``Py_XINCREF(o); r = o;`` is left to the usual removal.)"""
    src = ("#include <Python.h>\nstatic PyObject *f(PyObject *o, int *out)\n{\n    PyObject *rval, *r;\n"
           "    Py_XINCREF(o);\n    r = o;\n    if (o == NULL) {\n        Py_INCREF(Py_None);\n        *out = 1;\n        rval = Py_None;\n    }\n"
           "    else\n        rval = PyNumber_Long(o);\n    return rval;\n}\n")
    out = translate.translate_source(src)
    assert "    if (Cystck_IsNull(o)) {\n        *out = 1;\n        rval = Cystck_Dup(S, Cystck_None);\n    }\n" in out
    assert "    r = o;\n" in out


def test_a_reference_taken_of_a_module_state_member():
    """``rval = st->empty; Py_INCREF(rval);`` takes a reference of the
    module state's object: ``rval = Cystck_Dup(S, Cystck_deref(S,
    st->empty));``, a handle the code may release.  (Negative: the
    reference read without an increment stays a plain read.)"""
    src = ("#include <Python.h>\ntypedef struct { PyObject *empty; } mstate;\n"
           "static PyObject *f(mstate *st, int n)\n{\n    PyObject *rval;\n    if (n) {\n"
           "        rval = st->empty;\n        Py_INCREF(rval);\n        n--;\n        return rval;\n    }\n"
           "    return PyObject_Repr(st->empty);\n}\n"
           "static PyMethodDef methods[] = {{NULL}};\n"
           "static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, \"m\", NULL, sizeof(mstate), methods};\n")
    out = translate.translate_source(src)
    assert "        rval = Cystck_Dup(S, Cystck_deref(S, st->empty));\n        n--;\n        return rval;\n" in out
    assert "    return CystckObject_Repr(S, Cystck_deref(S, st->empty));\n" in out


def test_null_stored_through_a_pointer_after_else():
    """``else *out = NULL;`` (an unbraced else) stores the null handle as a
    braced store does.  (Negative: the same through a ``char **`` stays
    NULL.)"""
    src = ("#include <Python.h>\n"
           "static int get(PyObject *d, PyObject **out, char **name)\n{\n"
           "    if (PyDict_Size(d))\n        *out = PyDict_Keys(d);\n    else *out = NULL;\n"
           "    if (!*name)\n        return 0;\n    else *name = NULL;\n    return 1;\n}\n")
    out = translate.translate_source(src)
    assert "    else *out = Cystck_NULL;\n" in out
    assert "    else *name = NULL;\n" in out


def test_a_pointer_to_handles_declared_null_stays_null():
    """``PyObject **p = NULL;`` is a pointer to handles: it starts as the C
    null pointer (``Cystck_NULL`` is a handle and would not compile); a
    handle declared NULL starts as the null handle."""
    src = ("#include <Python.h>\nstatic PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    PyObject **p = NULL, *x = NULL;\n    p = &x;\n    return Py_NewRef(o);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "    Cystck_Object *p = NULL, x = Cystck_NULL;\n" in out
