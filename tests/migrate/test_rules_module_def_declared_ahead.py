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
