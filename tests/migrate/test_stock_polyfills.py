"""A function an extension defines under the name of a stock API function
(a polyfill for older Pythons) is the stock API, not the extension's."""
from cystck.migrate import analysis, translate

POLYFILL = ("#include <Python.h>\n"
            "static struct PyModuleDef def;\n"
            "#if PY_VERSION_HEX < 0x030B0000\n"
            "static PyObject *PyType_GetModuleByDef(PyTypeObject *type, struct PyModuleDef *d)\n{\n"
            "    PyObject *m = PyType_GetModule(type);\n"
            "    return m != NULL && PyModule_GetDef(m) == d ? m : NULL;\n}\n"
            "#endif\n"
            "static PyObject *module_of(PyObject *self)\n{\n"
            "    return PyType_GetModuleByDef(Py_TYPE(self), &def);\n}\n")


def _translate(src):
    unit = translate.translate_files({"m.c": src})["m.c"]
    return unit.text, [n for n in analysis.analyse(unit) if n.kind == "leftover"]


def test_polyfill_of_a_function_cystck_has_stays_stock():
    """Its definition is kept as it is (compiled only where the real one is
    missing) and unreported; calls are calls of the Cystck function, with
    one S."""
    out, notes = _translate(POLYFILL)
    assert ("static PyObject *PyType_GetModuleByDef(PyTypeObject *type, struct PyModuleDef *d)\n{\n"
            "    PyObject *m = PyType_GetModule(type);\n") in out
    assert "return Cystck_Return(S, CystckType_GetModuleByDef(S, CystckObject_Type(S, self), &def));" in out \
        or "CystckType_GetModuleByDef(S, CystckObject_Type(S, self), &def)" in out
    assert not [n for n in notes if 3 <= n.line <= 8]      # nothing in the polyfill is left
    assert translate.translate_source(out, "m.c") == out


def test_polyfill_of_a_function_cystck_lacks_is_a_helper():
    """Negative: a polyfill of a stock function without a Cystck
    counterpart is translated as the extension's own helper (it gets S and
    handles, and so do its calls)."""
    src = ("#include <Python.h>\n"
           "static int PyObject_GetOptionalAttrString(PyObject *o, const char *n, PyObject **r)\n{\n"
           "    *r = PyObject_GetAttrString(o, n);\n    return *r != NULL;\n}\n"
           "static PyObject *get(PyObject *self, PyObject *o)\n{\n    PyObject *r;\n"
           "    if (PyObject_GetOptionalAttrString(o, \"x\", &r) < 0)\n        return NULL;\n    return r;\n}\n")
    out, _ = _translate(src)
    assert "static int PyObject_GetOptionalAttrString(Cystck_State *S, Cystck_Object o, const char *n, " \
           "Cystck_Object *r)" in out
    assert "PyObject_GetOptionalAttrString(S, o, \"x\", &r)" in out


def test_forward_declaration_of_a_module_definition():
    """``static struct PyModuleDef def;`` before the helpers that use it
    declares the CystckModuleDef the definition becomes.  Negative: a
    pointer to a PyModuleDef stays (it is no declaration of the
    definition)."""
    src = ("#include <Python.h>\n"
           "static struct PyModuleDef def;\n"
           "static struct PyModuleDef *seen;\n"
           "static PyObject *mod(PyObject *self)\n{\n"
           "    seen = &def;\n    return PyType_GetModuleByDef(Py_TYPE(self), &def);\n}\n"
           "static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, \"m\", NULL, -1, NULL};\n")
    out, _ = _translate(src)
    assert "static CystckModuleDef def;\nstatic struct PyModuleDef *seen;\n" in out
    assert "static CystckModuleDef def = {" in out


def test_type_made_for_a_module_keeps_its_module():
    """PyType_FromModuleAndSpec(m, &spec, NULL) becomes
    CystckType_FromModuleAndSpec (it was CystckType_FromSpec, which lost
    the module that PyType_GetModuleByDef looks for); negative:
    PyType_FromSpec stays a type of no module."""
    src = ("#include <Python.h>\n"
           "static PyType_Slot slots[] = {{0, NULL}};\n"
           "static PyType_Spec spec = {\"m.T\", 0, 0, Py_TPFLAGS_DEFAULT, slots};\n"
           "static int exec_(PyObject *m)\n{\n"
           "    PyObject *t = PyType_FromModuleAndSpec(m, &spec, NULL);\n"
           "    PyObject *u = PyType_FromSpec(&spec);\n"
           "    return t == NULL || u == NULL ? -1 : 0;\n}\n")
    out, _ = _translate(src)
    assert "Cystck_Object t = CystckType_FromModuleAndSpec(S, m, &spec, Cystck_NULL);" in out
    assert "Cystck_Object u = CystckType_FromSpec(S, &spec, Cystck_NULL);" in out
