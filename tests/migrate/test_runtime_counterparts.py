"""Rules that use what the runtime offers instead of leaving a construct
for a human or emulating it, each with a case it must leave alone:
weak references to instances (CYSTCK_DEF_WEAKLIST; at run time: the
weakables extension of tests/migrate/corpus)."""
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
