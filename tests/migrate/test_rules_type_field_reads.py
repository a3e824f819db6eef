"""A type's object fields read through a handle (``Py_TYPE(o)->tp_bases``,
``((PyTypeObject *)cls)->tp_bases``; tp_mro and tp_dict have the
type-mro-dict rule) go through the escape hatch of the
type-slot-reads rule (and are reported); the cast of the lent pointer
survives a second pass; stores and other members stay."""
from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

SRC = ("#include <Python.h>\n"
       "static int has(PyObject *self, PyObject *name)\n{\n"
       "    return PySequence_Contains(Py_TYPE(self)->tp_bases, name);\n}\n"
       "static PyObject *mro_of(PyObject *cls)\n{\n"
       "    if (!PyType_Check(cls))\n        return NULL;\n"
       "    return Py_NewRef(((PyTypeObject *)cls)->tp_bases);\n}\n")


def test_type_fields_read_through_handles_go_through_the_escape_hatch():
    out = translate.translate_files({"m.c": SRC})["m.c"]
    assert ("CystckSequence_Contains(S, Cystck_FromNewPyObject(S, " + MARK + " Py_XNewRef(((PyTypeObject *)"
            "Cystck_AsPyObject(S, CystckObject_Type(S, self)))->tp_bases)), name)") in out.text
    assert ("return Cystck_FromNewPyObject(S, " + MARK + " Py_XNewRef(((PyTypeObject *)"
            "Cystck_AsPyObject(S, cls))->tp_bases));") in out.text
    lines = [n.line for n in out.finish_notes() if "tp_" in n.message and "escape hatch" in n.message]
    assert lines == [4, 10]


def test_translating_the_escape_again_changes_nothing():
    once = translate.translate_source(SRC, "m.c")
    assert translate.translate_source(once, "m.c") == once


def test_stores_and_other_members_stay():
    src = ("#include <Python.h>\n"
           "static void f(PyObject *t, PyObject *d) { t->tp_dict = d; }\n"
           "struct cfg { PyObject *tp_dict; };\n"
           "static int g(struct cfg *c) { return c->tp_dict != NULL; }\n")
    out = translate.translate_source(src, "m.c")
    assert "t->tp_dict = d;" in out
    assert MARK not in out
