"""PyType_FromModuleAndSpec keeps its module (PyType_GetModuleByDef and
PyType_GetModule find it through the type); PyType_FromSpec has none."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static PyType_Spec A_spec = {\"m.A\", 0, 0, Py_TPFLAGS_DEFAULT, NULL};\n"
       "static int exec_mod(PyObject *module)\n{\n"
       "    PyObject *a = PyType_FromModuleAndSpec(module, &A_spec, NULL);\n"
       "    PyObject *b = PyType_FromModuleAndSpec(module, &A_spec, a);\n"
       "    PyObject *c = PyType_FromSpec(&A_spec);\n"
       "    return a && b && c ? 0 : -1;\n}\n")


def test_type_from_module_and_spec_keeps_the_module():
    out = translate.translate_source(SRC, "m.c")
    assert "a = CystckType_FromModuleAndSpec(S, module, &A_spec, Cystck_NULL);" in out
    assert "b = CystckType_FromModuleAndSpec(S, module, &A_spec, a);" in out


def test_type_from_spec_has_no_module():
    out = translate.translate_source(SRC, "m.c")
    assert "c = CystckType_FromSpec(S, &A_spec, Cystck_NULL);" in out
