"""What porting MRO walks (docs/gaps.md T15) needs beyond the descr rules'
own examples: a helper that walks a type's MRO and dicts is ported (it no
longer stays stock as reading object internals); a handle the escape hatch
lends to a stock function's ``PyTypeObject *`` parameter is cast; and a
module definition compared with a kept ``PyModule_GetDef`` in a ported
function is lent as the PyModuleDef CPython knows."""
from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

MRO_WALK = ("#include <Python.h>\n"
            "static int type_has(PyTypeObject *type, PyObject *name)\n{\n"
            "    PyObject *mro = type->tp_mro;\n"
            "    Py_ssize_t i;\n"
            "    for (i = 0; i < PyTuple_GET_SIZE(mro); i++) {\n"
            "        PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);\n"
            "        if (PyDict_Contains(t->tp_dict, name) > 0)\n            return 1;\n"
            "    }\n    return 0;\n}\n"
            "static PyObject *has(PyObject *self, PyObject *name)\n{\n"
            "    return PyBool_FromLong(type_has(Py_TYPE(self), name));\n}\n")


def test_a_helper_walking_the_mro_is_ported():
    out = translate.translate_source(MRO_WALK, "m.c")
    assert "static int type_has(Cystck_State *S, Cystck_Object type, Cystck_Object name)" in out
    assert "Cystck_Object mro = CystckType_GetMRO(S, type);" in out
    assert "CystckDict_Contains(S, CystckType_GetDict(S, t), name) > 0" in out
    assert "type_has(S, CystckObject_Type(S, self), name)" in out
    assert MARK not in out


def test_a_helper_reading_other_type_fields_stays_stock():
    # negative: tp_basicsize has no counterpart: the helper stays stock, lent its handles
    src = MRO_WALK.replace("PyDict_Contains(t->tp_dict, name) > 0", "t->tp_basicsize > 16")
    out = translate.translate_source(src, "m.c")
    assert "static int type_has(PyTypeObject *type, PyObject *name)" in out
    assert MARK + " type_has((PyTypeObject *)Cystck_AsPyObject(S, CystckObject_Type(S, self))" in out


def test_a_handle_lent_to_a_type_parameter_is_cast():
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *t, PyObject *o)\n{\n"
           "    if (!PyType_GetSlot((PyTypeObject *)t, Py_tp_new))\n        return NULL;\n"
           "    return PyFile_GetLine(o, 2);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert MARK + " PyType_GetSlot((PyTypeObject *)Cystck_AsPyObject(S, t), Py_tp_new)" in out
    # negative: a PyObject * parameter takes the lent handle as it is
    assert MARK + " PyFile_GetLine(Cystck_AsPyObject(S, o), 2)" in out


def test_a_definition_compared_with_a_kept_get_def_is_lent():
    src = ("#include <Python.h>\n"
           "static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, \"m\", NULL, 0, NULL};\n"
           "static int ours(PyTypeObject *t)\n{\n"
           "    return PyModule_GetDef(PyType_GetModule(t)) == &moduledef;\n}\n"
           "PyMODINIT_FUNC PyInit_m(void) { return PyModule_Create(&moduledef); }\n")
    out = translate.translate_source(src, "m.c")
    # (the module a handle variable: the module-def-tests rule asks CystckModule_HasDef)
    assert (f"{MARK} PyModule_GetDef(Cystck_AsPyObject(S, CystckType_GetModule(S, t))) == "
            f"{MARK} Cystck_AsPyModuleDef(&moduledef)" in out)
    # negative: the module made from it takes the definition as it is
    assert "Cystck_AsPyModuleDef(&moduledef))" not in out and out.count("Cystck_AsPyModuleDef") == 1


def test_py_type_get_dict_is_the_api_function():
    # PyType_GetDict (3.12+) gives a new reference, as CystckType_GetDict a handle
    src = ("#include <Python.h>\n"
           "static int f(PyObject *self, PyObject *name)\n{\n"
           "    PyObject *d = PyType_GetDict(Py_TYPE(self));\n"
           "    int r = PyDict_Contains(d, name);\n    Py_DECREF(d);\n    return r;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "Cystck_Object d = CystckType_GetDict(S, CystckObject_Type(S, self));" in out
    assert MARK not in out
