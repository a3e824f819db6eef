"""A module definition declared ahead of its initialiser (its address is
needed first, e.g. by PyType_GetModuleByDef) is declared as a
CystckModuleDef; a declaration of a definition this file does not give
stays."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static struct PyModuleDef spam_def;\nextern struct PyModuleDef other_def;\n"
       "static PyObject *mod_of(PyObject *type) { return PyType_GetModuleByDef((PyTypeObject *)type, &spam_def); }\n"
       "static struct PyModuleDef spam_def = {\n    PyModuleDef_HEAD_INIT,\n    \"spam\",\n    NULL,\n    -1,\n    NULL\n};\n")


def test_module_def_declared_ahead_is_a_cystck_module_def():
    out = translate.translate_source(SRC, "m.c")
    assert "static CystckModuleDef spam_def;\n" in out
    assert "static CystckModuleDef spam_def = {\n" in out


def test_declaration_of_a_definition_given_elsewhere_stays():
    out = translate.translate_source(SRC, "m.c")
    assert "extern struct PyModuleDef other_def;\n" in out


# A header declares the definition that the source file including it gives
# (multidict 6.7.1: its state.h needs &multidict_module for
# PyType_GetModuleByDef; before, the header kept `static PyModuleDef`, which
# conflicted with the CystckModuleDef the source file made of it).
HEADER = ("#include <Python.h>\nstatic PyModuleDef spam_def;\n"
          "static PyObject *mod_of(PyTypeObject *type) { return PyType_GetModuleByDef(type, &spam_def); }\n")
SOURCE = ('#include <Python.h>\n#include "state.h"\n'
          "static PyModuleDef spam_def = {\n    PyModuleDef_HEAD_INIT,\n    \"spam\",\n    NULL,\n    -1,\n    NULL\n};\n")


def test_module_def_declared_in_a_header_of_its_file_is_a_cystck_module_def():
    units = translate.translate_files({"state.h": HEADER, "spam.c": SOURCE})
    assert "static CystckModuleDef spam_def;\n" in units["state.h"].text
    assert "static CystckModuleDef spam_def = {\n" in units["spam.c"].text


def test_module_def_declared_in_a_header_no_file_of_its_unit_defines_stays():
    units = translate.translate_files({"state.h": HEADER, "other.c": '#include <Python.h>\nint x;\n',
                                       "spam.c": SOURCE.replace('#include "state.h"\n', "")})
    assert "static PyModuleDef spam_def;\n" in units["state.h"].text
