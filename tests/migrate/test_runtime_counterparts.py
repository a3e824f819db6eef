"""Rules that use what the runtime offers instead of leaving a construct
for a human or emulating it, each with a case it must leave alone:
weak references to instances (CYSTCK_DEF_WEAKLIST), multi-phase module
init (CYSTCK_DEF_MOD_*, CystckModuleDef_Init) and methods defined with
external linkage (CYSTCK_DEF_METH_EXTERN).  At run time: the weakables
and phases extensions of tests/migrate/corpus."""
from cystck.migrate import translate

_WEAK_STRUCT = "typedef struct {\n    PyObject_HEAD\n    long n;\n    PyObject *weakreflist;\n} Box;\n"


def _leftovers(result):
    return [n.message for n in result.notes if n.kind == "leftover"]


def test_tp_weaklistoffset_becomes_a_weak_list_definition():
    src = ("#include <Python.h>\n" + _WEAK_STRUCT +
           "static void Box_dealloc(Box *self)\n{\n    if (self->weakreflist)\n"
           "        PyObject_ClearWeakRefs((PyObject *)self);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
           "static PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Box\",\n"
           "    .tp_basicsize = sizeof(Box),\n    .tp_dealloc = (destructor)Box_dealloc,\n"
           "    .tp_weaklistoffset = offsetof(Box, weakreflist),\n};\n")
    out = translate.translate_files({"m.c": src})["m.c"]
    assert "    Cystck_WeakList weakreflist;\n" in out.text
    assert "CYSTCK_DEF_WEAKLIST(BoxType_weaklist, Box, weakreflist)\n" in out.text
    assert "    &BoxType_weaklist,\n" in out.text
    assert "static void Box_dealloc(void *data)\n{\n}\n" in out.text     # nothing left to do
    assert not any("weaklist" in m for m in _leftovers(out))


def test_weaklistoffset_member_of_a_spec_becomes_a_weak_list_definition():
    src = ("#include <Python.h>\n#include <structmember.h>\n" + _WEAK_STRUCT +
           "static PyMemberDef Box_members[] = {\n"
           "    {\"__weaklistoffset__\", Py_T_PYSSIZET, offsetof(Box, weakreflist), Py_READONLY},\n"
           "    {\"n\", T_LONG, offsetof(Box, n), READONLY, NULL},\n    {NULL}\n};\n"
           "static PyType_Slot Box_slots[] = {\n    {Py_tp_members, Box_members},\n    {0, NULL}\n};\n")
    out = translate.translate_files({"m.c": src})["m.c"].text
    assert "Cystck_WeakList weakreflist;" in out
    assert "CYSTCK_DEF_WEAKLIST(Box_weakreflist_weaklist, Box, weakreflist)\n" in out
    assert "CYSTCK_DEF_MEMBER(Box_n_member, \"n\", CYSTCK_MEMBER_LONG, Box, n, CYSTCK_READONLY, NULL)" in out
    assert "    &Box_weakreflist_weaklist,\n    &Box_n_member,\n" in out


def test_weak_list_rules_leave_other_members_and_other_functions_alone():
    """A weak-list offset that is no offsetof is reported; the weak-list
    rule removes nothing outside destructors but NULL stores into the
    weak list itself; other members' NULL stores stay."""
    src = ("#include <Python.h>\n" + _WEAK_STRUCT.replace("long n;", "PyObject *other;") +
           "static PyObject *Box_reset(Box *self, PyObject *unused)\n{\n"
           "    PyObject_ClearWeakRefs((PyObject *)self);\n    self->weakreflist = NULL;\n"
           "    self->other = NULL;\n    Py_RETURN_NONE;\n}\n"
           "static PyMethodDef Box_methods[] = {\n    {\"reset\", (PyCFunction)Box_reset, METH_NOARGS, NULL},\n"
           "    {NULL}\n};\n"
           "static PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Box\",\n"
           "    .tp_basicsize = sizeof(Box),\n    .tp_methods = Box_methods,\n"
           "    .tp_weaklistoffset = offsetof(Box, weakreflist),\n};\n"
           "typedef struct {\n    PyObject_HEAD\n    PyObject *weakreflist2;\n} Odd;\n"
           "static PyTypeObject OddType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Odd\",\n"
           "    .tp_basicsize = sizeof(Odd),\n    .tp_weaklistoffset = 2 * sizeof(PyObject *),\n};\n")
    out = translate.translate_files({"m.c": src})["m.c"]
    assert "PyObject_ClearWeakRefs(Cystck_AsPyObject(S, self));" in out.text   # escape hatch, not removed
    assert "->weakreflist = " not in out.text
    assert "CystckField_Store(S, self, &Box_AsStruct(S, self)->other, Cystck_NULL);" in out.text
    assert "Cystck_Field weakreflist2;" in out.text
    assert any("tp_weaklistoffset = 2 * sizeof(PyObject *)" in m for m in _leftovers(out))


_PHASED_CPP = (
    "#include <Python.h>\nnamespace\n{\n"
    "static PyObject* neg( PyObject* self, PyObject* o )\n{\n    return PyNumber_Negative( o );\n}\n"
    "int spam_modexec( PyObject *mod )\n{\n    return PyModule_AddIntConstant( mod, \"x\", 1 );\n}\n"
    "PyMethodDef spam_methods[] = {\n    { \"neg\", ( PyCFunction )neg, METH_O, \"\" },\n    { 0 }\n};\n"
    "PyModuleDef_Slot spam_slots[] = {\n    {Py_mod_exec, reinterpret_cast<void*>( spam_modexec ) },\n"
    "#ifdef Py_GIL_DISABLED\n    {Py_mod_gil, Py_MOD_GIL_NOT_USED},\n#endif\n    {0, NULL}\n};\n"
    "struct PyModuleDef moduledef = {\n    PyModuleDef_HEAD_INIT,\n    \"spam\",\n    \"doc\",\n    0,\n"
    "    spam_methods,\n    spam_slots,\n    NULL,\n    NULL,\n    NULL\n};\n}  // namespace\n"
    "PyMODINIT_FUNC PyInit_spam( void )\n{\n    return PyModuleDef_Init( &moduledef );\n}\n")


def test_multi_phase_init_keeps_its_slots_and_phases():
    """Exec slots, value slots under their conditional and the init
    function's PyModuleDef_Init become their CYSTCK_DEF_MOD_* and
    CystckModuleDef_Init counterparts; the functions join the slots in the
    module's defines (C++, in an anonymous namespace, as Kiwi has it)."""
    out = translate.translate_files({"spam.cpp": _PHASED_CPP})["spam.cpp"]
    assert "static int spam_modexec(Cystck_State *S, Cystck_Object mod)" in out.text
    assert ("CYSTCK_DEF_MOD_EXEC(spam_modexec_def, spam_modexec)\n#ifdef Py_GIL_DISABLED\n"
            "CYSTCK_DEF_MOD_SLOT(spam_slots_mod_gil, Py_mod_gil, Py_MOD_GIL_NOT_USED)\n#endif\n") in out.text
    assert ("CystckDef *spam_slots[] = {\n    &neg_def,\n    &spam_modexec_def,\n#ifdef Py_GIL_DISABLED\n"
            "    &spam_slots_mod_gil,\n#endif\n    NULL\n};\n") in out.text
    assert "CystckModuleDef moduledef = {\n    \"spam\",\n    \"doc\",\n    0,\n    spam_slots\n};" in out.text
    assert "return Cystck_Return(S, CystckModuleDef_Init(S,  &moduledef ));" in out.text
    assert "spam_methods" not in out.text and "PyModuleDef_Slot" not in out.text
    assert _leftovers(out) == []


def test_single_phase_modules_keep_their_function_array():
    """A definition without slots (and a slot array no definition names)
    is not multi-phase: its methods keep their own defines array and the
    module is created by the init function."""
    src = (_PHASED_CPP.replace("    spam_slots,\n    NULL,", "    NULL,\n    NULL,")
           .replace("return PyModuleDef_Init( &moduledef );", "return PyModule_Create( &moduledef );"))
    out = translate.translate_files({"spam.cpp": src})["spam.cpp"]
    assert "CystckDef *spam_methods[] = {\n    &neg_def,\n    NULL\n};" in out.text
    assert "CystckModuleDef moduledef = {\n    \"spam\",\n    \"doc\",\n    0,\n    spam_methods\n};" in out.text
    assert "return Cystck_Return(S, CystckModule_Create(S, &moduledef));" in out.text
    assert "CYSTCK_DEF_MOD_EXEC" not in out.text and "CystckDef *spam_slots[]" not in out.text


_TABLE = ('#include <Python.h>\nPyObject *dumps(PyObject *self, PyObject *args, PyObject *kw);\n'
          'static PyObject *ver(PyObject *self, PyObject *unused) { return PyLong_FromLong(1); }\n'
          'static PyMethodDef methods[] = {\n'
          '    {"dumps", (PyCFunction)dumps, METH_VARARGS | METH_KEYWORDS, "d"},\n'
          '    {"encode", (PyCFunction)dumps, METH_VARARGS | METH_KEYWORDS, "e"},\n'
          '    {"version", ver, METH_NOARGS, NULL},\n    {"v", ver, METH_NOARGS, NULL},\n    {NULL}\n};\n')
_DUMPS = '#include <Python.h>\nPyObject *dumps(PyObject *self, PyObject *args, PyObject *kw)\n{\n    return PyTuple_New(0);\n}\n'


def test_methods_defined_in_another_file_are_declared_extern():
    """An implementation with external linkage (here in another file) is
    registered directly, once per name; so is a static one registered
    under two names: no forwarders."""
    out = translate.translate_files({"m.c": _TABLE, "enc.c": _DUMPS})
    assert ('CYSTCK_DEF_METH_EXTERN(dumps_def, "dumps", dumps, CYSTCK_KEYWORDS, "d")\n'
            'CYSTCK_DEF_METH_EXTERN(dumps__encode_def, "encode", dumps, CYSTCK_KEYWORDS, "e")\n'
            'CYSTCK_DEF_METH(ver_def, "version", ver, CYSTCK_NOARGS, NULL)\n'
            'CYSTCK_DEF_METH(ver__v_def, "v", ver, CYSTCK_NOARGS, NULL)\n'
            'static CystckDef *methods[] = {\n    &dumps_def,\n    &dumps__encode_def,\n'
            '    &ver_def,\n    &ver__v_def,\n    NULL\n};\n') in out["m.c"].text
    assert "int dumps(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs, " \
           "Cystck_Object kw)\n{" in out["enc.c"].text


def test_methods_the_table_cannot_declare_keep_a_forwarder():
    """Where an extern declaration at the table would not name the
    implementation, the entry keeps its static forwarder: a function
    the project does not define (a library's), a static one of another
    file, and, in C++, one defined in other namespaces than the table."""
    out = translate.translate_files({"m.c": _TABLE, "enc.c": _DUMPS.replace("PyObject *dumps", "static PyObject *dumps")})
    assert "static int dumps__dumps(Cystck_State *S," in out["m.c"].text
    out = translate.translate_files({"m.c": _TABLE})
    assert "static int dumps__dumps(Cystck_State *S," in out["m.c"].text
    cpp = translate.translate_files({
        "m.cpp": _TABLE.replace("PyObject *dumps(PyObject *self, PyObject *args, PyObject *kw);\n", "")
                       .replace("static PyMethodDef", "namespace\n{\nPyMethodDef") + "}\n",
        "enc.cpp": _DUMPS})["m.cpp"].text
    assert 'CYSTCK_DEF_METH(dumps__dumps_def, "dumps", dumps__dumps, CYSTCK_KEYWORDS, "d")' in cpp
    assert "CYSTCK_DEF_METH_EXTERN" not in cpp


def test_cpp_methods_in_the_namespace_of_their_table_are_declared_extern():
    """Kiwi's layout: non-static functions and their table in one
    anonymous namespace."""
    src = ("#include <Python.h>\nnamespace\n{\n"
           "PyObject* Box_get( PyObject* self )\n{\n    return PyLong_FromLong( 1 );\n}\n"
           "PyMethodDef Box_methods[] = {\n    { \"get\", ( PyCFunction )Box_get, METH_NOARGS, \"\" },\n"
           "    { 0 }\n};\n}\n")
    out = translate.translate_files({"box.cpp": src})["box.cpp"].text
    assert 'CYSTCK_DEF_METH_EXTERN(Box_get_def, "get", Box_get, CYSTCK_NOARGS, "")' in out


def test_weak_list_stores_of_another_struct_with_the_same_member_name_stay():
    """Only the member of the struct whose type has the weak list goes: a
    plain struct's member of the same name keeps its NULL store."""
    src = ("#include <Python.h>\n" + _WEAK_STRUCT
           + "typedef struct { void *weakreflist; } Plain;\n"
           "static void reset(Plain *p)\n{\n    p->weakreflist = NULL;\n}\n"
           "static PyObject *Box_new(PyTypeObject *type, PyObject *args, PyObject *kw)\n{\n"
           "    Box *self = (Box *)type->tp_alloc(type, 0);\n    self->weakreflist = NULL;\n"
           "    return (PyObject *)self;\n}\n"
           "static PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_new = Box_new,\n"
           "    .tp_weaklistoffset = offsetof(Box, weakreflist),\n};\n")
    out = translate.translate_files({"m.c": src})["m.c"]
    assert "    p->weakreflist = NULL;\n" in out.text
    assert "self->weakreflist = NULL" not in out.text
