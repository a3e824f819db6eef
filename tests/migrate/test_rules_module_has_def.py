"""A type's flags and a module's definition asked as stock code asks them
(wrapt's proxy check): PyType_HasFeature becomes CystckType_HasFeature
(api-calls) and PyModule_GetDef(m) compared with the file's own
definition CystckModule_HasDef (module-def-tests), in either order and
negated for !=, with no escape hatch; PyModule_GetDef's result kept or
compared with another pointer stays in the escape hatch."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static struct PyModuleDef moduledef;\n"
       "static int ours(PyObject *o)\n{\n"
       "    PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(Py_TYPE(o)->tp_mro, 1);\n"
       "    PyObject *m;\n"
       "    if (!PyType_HasFeature(t, Py_TPFLAGS_HEAPTYPE))\n        return 0;\n"
       "    m = PyType_GetModule(t);\n"
       "    if (m == NULL)\n        return -1;\n"
       "    if (PyModule_GetDef(m) != &moduledef && &moduledef != PyModule_GetDef(m))\n        return 0;\n"
       "    return &moduledef == PyModule_GetDef(m);\n}\n"
       "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
       "    return PyLong_FromLong(ours(o));\n}\n"
       "static PyMethodDef methods[] = {{\"f\", f, METH_O, NULL}, {NULL, NULL, 0, NULL}};\n"
       "static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, \"m\", NULL, -1, methods};\n")


def test_flags_and_definition_tests_are_ported():
    out = translate.translate_source(SRC, "m.c")
    assert "if (!CystckType_HasFeature(S, t, Py_TPFLAGS_HEAPTYPE))" in out
    assert ("if (!CystckModule_HasDef(S, m, &moduledef) && !CystckModule_HasDef(S, m, &moduledef))"
            in out)
    assert "return CystckModule_HasDef(S, m, &moduledef);" in out
    assert "escape hatch" not in out and "PyModule_GetDef" not in out


def test_definition_kept_or_compared_with_another_pointer_stays_stock():
    src = SRC.replace("    return &moduledef == PyModule_GetDef(m);\n",
                      "    PyModuleDef *def = PyModule_GetDef(m);\n    return def == &moduledef;\n")
    out = translate.translate_source(src, "m.c")
    assert "PyModule_GetDef(Cystck_AsPyObject(S, m));" in out
    assert "escape hatch" in out
