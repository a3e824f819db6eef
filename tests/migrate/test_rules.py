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
