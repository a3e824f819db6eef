"""``Py_SET_TYPE(&FooType, &PyType_Type);`` after ``PyType_Ready`` (an
idiom for compilers that cannot take ``&PyType_Type`` statically) goes
with the static type: it was kept through the escape hatch, passing the
``Cystck_Object`` constant for type where a ``PyTypeObject *`` is wanted
(a build error per type)."""
from cystck.migrate import translate

TYPE = ("#include <Python.h>\ntypedef struct { PyObject_HEAD int n; } Box;\n"
        "static PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Box\",\n"
        "    .tp_basicsize = sizeof(Box),\n};\n")


def _init(body):
    return (TYPE + "static PyModuleDef def = {PyModuleDef_HEAD_INIT, \"m\", NULL, -1, NULL};\n"
            "PyMODINIT_FUNC PyInit_m(void)\n{\n    PyObject *m = PyModule_Create(&def);\n"
            "    if (m == NULL || PyType_Ready(&BoxType) < 0)\n        return NULL;\n"
            + body + "    return m;\n}\n")


def test_setting_type_as_the_type_of_a_static_type_goes():
    out = translate.translate_source(_init("    Py_SET_TYPE(&BoxType, &PyType_Type);\n"
                                           "    Py_TYPE(&BoxType) = &PyType_Type;\n"), "m.c")
    assert "Py_SET_TYPE" not in out and "PyType_Type" not in out


def test_another_metatype_stays():
    """Negative: a metatype of the extension's own is no idiom; the
    statement stays (and is reported by the escape hatch)."""
    out = translate.translate_source(_init("    Py_SET_TYPE(&BoxType, &MetaType);\n"), "m.c")
    assert "Py_SET_TYPE(" in out and "MetaType" in out
