"""Two member-table entries for one struct field (an alias name) get two
definitions with distinct symbols."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n#include <structmember.h>\n"
       "typedef struct {\n    PyObject_HEAD\n    PyObject *name;\n    PyObject *doc;\n} Box;\n"
       "static PyMemberDef Box_members[] = {\n"
       "    {\"name\", T_OBJECT_EX, offsetof(Box, name), READONLY, \"\"},\n"
       "    {\"alias\", T_OBJECT_EX, offsetof(Box, name), 0, \"\"},\n"
       "    {\"doc\", T_OBJECT_EX, offsetof(Box, doc), 0, \"\"},\n"
       "    {NULL}\n};\n")


def test_second_name_for_a_field_gets_its_own_symbol():
    out = translate.translate_source(SRC, "m.c")
    assert 'CYSTCK_DEF_MEMBER(Box_name_member, "name", CYSTCK_MEMBER_FIELD, Box, name, CYSTCK_READONLY, "")' in out
    assert 'CYSTCK_DEF_MEMBER(Box_name__alias_member, "alias", CYSTCK_MEMBER_FIELD, Box, name, 0, "")' in out


def test_one_name_per_field_keeps_the_field_symbol():
    out = translate.translate_source(SRC, "m.c")
    assert 'CYSTCK_DEF_MEMBER(Box_doc_member, "doc", CYSTCK_MEMBER_FIELD, Box, doc, 0, "")' in out
