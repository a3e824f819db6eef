"""Idioms of an extension compiled as one unit (one .c file includes the
others): tables written through element macros, statics of files included
at several levels, iso646 operators, and the like (docs/gaps.md T18)."""
from cystck.migrate import translate

TABLE_C = """#include <Python.h>
static PyObject *box_get(PyObject *self, PyObject *args) { return PyLong_FromLong(1); }
static PyObject *box_find(PyObject *self, PyObject *args, PyObject *kw) { Py_RETURN_NONE; }
#define method(name, kind) {#name, (PyCFunction)box_##name, kind, box_##name##_doc}
static PyMethodDef box_methods[] = {
    method(get,  METH_VARARGS),
    method(find, METH_VARARGS|METH_KEYWORDS),
    {NULL, NULL, 0, NULL}
};
#undef method
"""


def test_table_entries_written_through_an_element_macro_are_methods():
    out = translate.translate_files({"box.c": TABLE_C})["box.c"].text
    assert 'CYSTCK_DEF_METH(box_get_def, "get", box_get, CYSTCK_VARARGS, box_get_doc)' in out
    assert 'CYSTCK_DEF_METH(box_find_def, "find", box_find, CYSTCK_KEYWORDS, box_find_doc)' in out
    # the functions got the conventions' signatures: the project pass knew them
    assert "box_find(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, " \
           "Cystck_ssize_t nargs, Cystck_Object kw)" in out
    # the macro and its #undef are gone with its last use
    assert "#define method" not in out and "#undef method" not in out


def test_an_element_macro_also_used_elsewhere_stays_defined():
    text = TABLE_C.replace("#undef method", "static const char *names[][4] = {method(x, 0)};")
    out = translate.translate_files({"box.c": text})["box.c"].text
    assert 'CYSTCK_DEF_METH(box_get_def, "get", box_get, CYSTCK_VARARGS, box_get_doc)' in out
    assert "#define method(name, kind)" in out and "{method(x, 0)}" in out


STATIC_ALONE_C = """#include <Python.h>
#include <structmember.h>
typedef struct { PyObject_HEAD int kind; } Box;
static PyObject *box_get(PyObject *self, PyObject *args) { return PyLong_FromLong(1); }
static
PyMethodDef box_methods[] = {
    {"get", (PyCFunction)box_get, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};
static const
PyMemberDef box_members[] = {
    {"kind", T_INT, offsetof(Box, kind), READONLY, NULL},
    {NULL}
};
"""


def test_static_alone_on_the_line_before_a_table_goes_with_the_table():
    out = translate.translate_files({"box.c": STATIC_ALONE_C})["box.c"].text
    # before: `static\nCYSTCK_DEF_METH(...)`, a duplicate 'static'
    assert "static\n" not in out and "static const\n" not in out
    assert "\nCYSTCK_DEF_METH(box_get_def" in out and "\nCYSTCK_DEF_MEMBER(" in out


UNIT_C = """#include <Python.h>
#include "helpers.c"
#include "all.c"
static PyObject *mod_get(PyObject *self, PyObject *args) { return check(args) ? args : NULL; }
static PyMethodDef methods[] = {{"get", mod_get, METH_VARARGS, NULL}, {NULL}};
"""
HELPERS_C = """static int check(PyObject *o) { return PyTuple_Check(o); }
"""
ALL_C = """#include "nested/user.c"
"""
USER_C = """static int user(PyObject *o) { return check(o); }
"""


def test_a_file_included_by_an_included_file_calls_the_units_statics_with_the_state():
    units = translate.translate_files({"unit.c": UNIT_C, "helpers.c": HELPERS_C, "all.c": ALL_C,
                                       "nested/user.c": USER_C})
    # before: check(o), a static of a file one level up the includes
    assert "return check(S, o);" in units["nested/user.c"].text


def test_a_static_of_a_file_compiled_apart_is_not_the_callers():
    units = translate.translate_files({"unit.c": UNIT_C.replace('#include "all.c"\n', ""),
                                       "helpers.c": HELPERS_C, "all.c": ALL_C, "nested/user.c": USER_C})
    assert "return check(o);" in units["nested/user.c"].text


MACRO_PARAM_C = """#include <Python.h>
#define maybe_release(flag, ref) if (ref && !flag) { Py_DECREF(ref); }
#define ASSERT_SET(x) if (!(x)) abort();
static int f(PyObject *o, int copy)
{
    PyObject *s = PyObject_Str(o);
    maybe_release(copy, s)
    ASSERT_SET(copy)
    return 0;
}
static int g(PyObject *o, int copy)
{
    PyObject *r = PyObject_Repr(o);
    maybe_release(copy, r)
    ASSERT_SET(r)
    return 0;
}
"""


def test_a_macro_parameter_given_a_handle_at_every_use_is_tested_and_released_as_one():
    out = translate.translate_files({"m.c": MACRO_PARAM_C})["m.c"].text
    assert "#define maybe_release(flag, ref) if (!Cystck_IsNull(ref) && !flag) { Cystck_Drop(S, ref); }" in out
    # given an int at one use: no handle
    assert "#define ASSERT_SET(x) if (!(x)) abort();" in out


NODES_C = """#include <Python.h>
typedef struct Node { struct Node *fail; long n; } Node;
typedef struct { PyObject *nodes; PyObject *fail; } Dump;
static int walk(Node *node, PyObject *o)
{
    Dump dump;
    dump.nodes = 0;
    dump.fail = NULL;
    node->fail = NULL;
    if (node->fail == NULL && dump.fail == NULL)
        return PyObject_IsTrue(o);
    return 0;
}
"""


def test_a_member_name_of_a_handle_and_of_a_pointer_goes_by_its_struct():
    out = translate.translate_files({"n.c": NODES_C})["n.c"].text
    # Dump's members are handles (0 as NULL too), Node's `fail` a node pointer
    assert "dump.nodes = Cystck_NULL;" in out and "dump.fail = Cystck_NULL;" in out
    assert "node->fail = NULL;" in out
    assert "if (node->fail == NULL && Cystck_IsNull(dump.fail))" in out


def test_iso646_tests_of_handles_are_null_tests():
    text = ("#include <Python.h>\n#include <iso646.h>\n"
            "static int f(PyObject *o, int flag)\n{\n    PyObject *r = PyObject_Str(o);\n"
            "    if (not r)\n        return -1;\n    return flag and r and not flag;\n}\n")
    out = translate.translate_files({"i.c": text})["i.c"].text
    assert "if (Cystck_IsNull(r))" in out
    assert "return flag and !Cystck_IsNull(r) and not flag;" in out


CAST_ALIAS_AFTER_DIRECTIVE_C = """#include <Python.h>
typedef struct { PyObject_HEAD long n; } Box;
static PyObject *get(PyObject *self) {
#define box ((Box *)self)
    return Py_BuildValue(
#ifdef WIDE
        "(l)",
#else
        "(i)",
#endif
        box->n);
#undef box
}
"""


def test_a_cast_alias_used_on_the_line_after_a_directive_is_written_out():
    out = translate.translate_files({"box.c": CAST_ALIAS_AFTER_DIRECTIVE_C})["box.c"].text
    # before: `#endif` and the name on the next line were read as a
    # directive naming it, and `box->n` stayed (no struct behind a handle)
    assert "Box_AsStruct(S, self)->n);" in out and "box->n" not in out
    assert "#undef box" in out


ITER_C = """#include <Python.h>
typedef struct { PyObject_HEAD long version; long root; } Tree;
typedef struct { PyObject_HEAD Tree *tree; Tree *seen; long version; } Iter;
static PyTypeObject IterType;
static PyObject *iter_new(Tree *tree) {
    Iter *it = PyObject_New(Iter, &IterType);
    if (it == NULL)
        return NULL;
    it->tree = tree;
    it->seen = tree;
    it->version = tree->version;
    Py_INCREF(it->tree);
    return (PyObject *)it;
}
static PyObject *iter_next(PyObject *self) {
    if (iter->version != iter->tree->version)
        return NULL;
    return PyLong_FromLong(iter->tree->root + iter->seen->root);
}
static void iter_del(PyObject *self) {
    Py_DECREF(iter->tree);
    PyObject_Del(self);
}
static PyTypeObject IterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    "m.Iter", sizeof(Iter), 0, (destructor)iter_del,
    .tp_flags = Py_TPFLAGS_DEFAULT, .tp_iternext = iter_next,
};
"""


def test_a_custom_type_pointer_its_dealloc_releases_is_a_field():
    text = ITER_C.replace("static PyObject *iter_next", "#define iter ((Iter *)self)\nstatic PyObject *iter_next")
    out = translate.translate_files({"iter.c": text})["iter.c"].text
    # before: `Tree *tree` stayed a native pointer set from Tree_AsStruct,
    # and nothing kept the tree alive once the Py_INCREF/Py_DECREF went
    assert "Cystck_Field tree; Tree *seen;" in out
    assert "CystckField_Store(S, it, &Iter_AsStruct(S, it)->tree, tree);" in out
    assert "Tree_AsStruct(S, CystckField_Load(S, self, Iter_AsStruct(S, self)->tree))->root" in out
    # the runtime finds (and releases) the field through a traverse
    assert "Cystck_VISIT(&self->tree);" in out
    # a pointer the dealloc does not release stays a borrowed native pointer
    assert "Iter_AsStruct(S, it)->seen = Tree_AsStruct(S, tree);" in out


def test_the_owner_of_a_released_member_must_be_the_deallocs_instance():
    text = ITER_C.replace("Py_DECREF(iter->tree);", "Py_DECREF(other->tree);")
    out = translate.translate_files({"iter.c": text})["iter.c"].text
    assert "Tree *tree;" in out and "Cystck_Field tree" not in out


CLEAR_C = """#include <Python.h>
typedef struct { PyObject_HEAD long count; } Box;
static PyObject *box_clear(PyObject *self, PyObject *args) {
    ((Box *)self)->count = 0;
    Py_RETURN_NONE;
}
static void box_del(PyObject *self) {
    box_clear(self, NULL);
    PyObject_Del(self);
}
static PyMethodDef box_methods[] = {
    {"clear", box_clear, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};
static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    "m.Box", sizeof(Box), 0, (destructor)box_del,
    .tp_flags = Py_TPFLAGS_DEFAULT, .tp_methods = box_methods,
};
"""


def test_a_noargs_method_called_directly_with_null_and_its_result_discarded():
    unit = translate.translate_files({"box.c": CLEAR_C})["box.c"]
    # before: `box_clear(S, self, Cystck_NULL);`, one argument too many, and
    # whatever it pushed left on the stack
    assert "    Cystck_PopResult(S, box_clear(S, self));\n" in unit.text
    assert not [n for n in unit.notes if "direct call of entry point" in n.message]


def test_a_noargs_method_called_directly_with_an_object_is_reported():
    text = CLEAR_C.replace("box_clear(self, NULL);", "box_clear(self, self);")
    unit = translate.translate_files({"box.c": text})["box.c"]
    assert [n for n in unit.notes if "direct call of entry point box_clear" in n.message]
    assert "Cystck_PopResult" not in unit.text


ASSERT_C = """#include <Python.h>
#define ASSERT(expr) do { if (!(expr)) { fprintf(stderr, "%s failed\\n", #expr); abort(); } } while (0)
typedef struct { PyObject *items; int n; } Data;
static int add(Data *data, PyObject *o) {
    ASSERT(data->items);
    ASSERT(data->n >= 0);
    return PyList_Append(data->items, o);
}
"""


def test_a_handle_given_to_a_macro_that_tests_its_truth():
    out = translate.translate_files({"data.c": ASSERT_C})["data.c"].text
    # before: `ASSERT(data->items)`, whose `!(expr)` applied `!` to a handle
    assert "ASSERT(!Cystck_IsNull(data->items));" in out
    assert "ASSERT(data->n >= 0);" in out


INIT_C = """#include <Python.h>
typedef struct { PyObject_HEAD long n; } Box;
static Py_ssize_t box_len(PyObject *self) { return ((Box *)self)->n; }
static int box_contains(PyObject *self, PyObject *o) { return 0; }
static PySequenceMethods box_as_sequence;
static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    "m.Box", sizeof(Box), 0,
    .tp_flags = Py_TPFLAGS_DEFAULT, .tp_new = PyType_GenericNew,
};
static PyModuleDef box_module = {PyModuleDef_HEAD_INIT, "m", NULL, -1, NULL};
#ifdef PY3K
#define init_function PyInit_m
#define init_return(value) return (value)
#else
#define init_function initm
#define init_return(unused) return
#endif
PyMODINIT_FUNC
init_function(void) {
    PyObject *module;
    box_as_sequence.sq_length = box_len;
    box_as_sequence.sq_contains = box_contains;
    BoxType.tp_as_sequence = &box_as_sequence;
    module = PyModule_Create(&box_module);
    if (module == NULL)
        init_return(NULL);
    if (PyType_Ready(&BoxType) < 0)
        init_return(NULL);
    init_return(module);
}
"""


def test_an_init_function_named_through_a_macro_returning_through_one():
    out = translate.translate_files({"m.c": INIT_C})["m.c"].text
    # before: `init_function(Cystck_State *S)` returning a PyObject *, and
    # `init_return(module)` returning a handle from it
    assert "CYSTCK_MODINIT(m) {" in out
    assert out.count("init_return(-1);") == 2 and "init_return(Cystck_Return(S, module));" in out
    assert "#define init_return(value) return (value)" in out


def test_a_sequence_table_filled_in_the_init_is_the_types():
    out = translate.translate_files({"m.c": INIT_C})["m.c"].text
    # before: the stores stayed (`BoxType` is a reference now) and the
    # type had neither slot
    assert "CYSTCK_DEF_SLOT(BoxType_sq_length, sq_length, box_len)" in out
    assert "CYSTCK_DEF_SLOT(BoxType_sq_contains, sq_contains, box_contains)" in out
    assert "box_as_sequence.sq_" not in out and "BoxType.tp_as_sequence" not in out


def test_a_table_filled_after_the_type_is_ready_stays():
    text = INIT_C.replace("    box_as_sequence.sq_length = box_len;\n", "").replace(
        "    init_return(module);", "    box_as_sequence.sq_length = box_len;\n    init_return(module);")
    out = translate.translate_files({"m.c": text})["m.c"].text
    assert "box_as_sequence.sq_length = box_len;" in out
    assert "CYSTCK_DEF_SLOT(BoxType_sq_length" not in out


UNREADY_C = """#include <Python.h>
#define HEAD PyVarObject_HEAD_INIT(NULL, 0)
typedef struct { PyObject_HEAD long n; } Box;
typedef struct { PyObject_HEAD long i; } BoxIter;
static PyTypeObject BoxIterType = {
    HEAD
    "BoxIter", sizeof(BoxIter), 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
};
static PyObject *box_iter(PyObject *self) {
    BoxIter *it = PyObject_New(BoxIter, &BoxIterType);
    if (it == NULL)
        return NULL;
    it->i = 0;
    return (PyObject *)it;
}
static PyTypeObject BoxType = {
    HEAD
    "m.Box", sizeof(Box), 0,
    .tp_flags = Py_TPFLAGS_DEFAULT, .tp_iter = box_iter, .tp_new = PyType_GenericNew,
};
static PyModuleDef box_module = {PyModuleDef_HEAD_INIT, "m", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_m(void) {
    PyObject *m = PyModule_Create(&box_module);
    if (m == NULL || PyType_Ready(&BoxType) < 0)
        return NULL;
    PyModule_AddObject(m, "Box", (PyObject *)&BoxType);
    return m;
}
"""


def test_a_head_written_through_a_macro_is_not_in_the_spec():
    out = translate.translate_files({"m.c": UNREADY_C})["m.c"].text
    # before: `HEAD\n    "m.Box",` stayed the spec's first element, which
    # expands to the head's braces (a spec with garbage for its name)
    assert 'CystckType_Spec BoxType_spec = {\n    "m.Box",' in out
    assert 'CystckType_Spec BoxIterType_spec = {\n    "BoxIter",' in out


def test_a_type_never_readied_is_made_by_the_init():
    out = translate.translate_files({"m.c": UNREADY_C})["m.c"].text
    # before: BoxIterType's reference stayed empty (the stock code never
    # readies it), and Cystck_New got a null type
    assert ("CYSTCK_MODINIT(m) {\n    /* cystck-migrate: BoxIterType is never readied"
            in out)
    assert "if ((BoxIterType = Cystck_ref(S, CystckType_FromSpec(S, &BoxIterType_spec, Cystck_NULL))) == NULL)\n" \
           "        return -1;" in out
    # a type the init readies is made where it was readied, once
    assert out.count("CystckType_FromSpec(S, &BoxType_spec") == 1


def test_a_type_defined_after_the_init_is_not_made_by_it():
    text = UNREADY_C + 'static PyTypeObject Late = {\n    HEAD\n    "Late", sizeof(Box), 0,\n};\n'
    out = translate.translate_files({"m.c": text})["m.c"].text
    # its spec comes after the init, which cannot name it
    assert "&BoxIterType_spec, Cystck_NULL))) == NULL)" in out
    assert "Late = Cystck_ref" not in out
