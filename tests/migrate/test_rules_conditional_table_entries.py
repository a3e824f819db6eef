"""Method, member and getset tables whose entries sit in preprocessor
conditionals, or have conditionals inside: each translated entry keeps its
conditionals, around its definition and its line in the defines array."""
from cystck.migrate import translate

HEAD = ("#include <Python.h>\n"
        "typedef struct { PyObject_HEAD long n; long extra; } Box;\n"
        "static PyObject *f(PyObject *self, PyObject *o) { Py_RETURN_NONE; }\n"
        "static PyObject *g(PyObject *self, PyObject *o) { Py_RETURN_NONE; }\n"
        "static PyObject *get_n(Box *self, void *c) { return PyLong_FromLong(self->n); }\n")
TYPE = ("static PyTypeObject Box_Type = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Box\", "
        ".tp_basicsize = sizeof(Box), .tp_methods = methods, .tp_members = members, .tp_getset = getsets};\n")


def _translate(methods, members="", getsets=""):
    return translate.translate_source(
        HEAD + "static PyMethodDef methods[] = {\n" + methods + "    {NULL, NULL}\n};\n"
        "static PyMemberDef members[] = {\n" + members + "    {NULL}\n};\n"
        "static PyGetSetDef getsets[] = {\n" + getsets + "    {NULL}\n};\n" + TYPE)


def test_entry_inside_a_conditional_keeps_it():
    out = _translate('    {"f", (PyCFunction)f, METH_O, NULL},\n'
                     '#ifdef WITH_G\n    {"g", (PyCFunction)g, METH_O, NULL},\n#endif\n')
    assert '#ifdef WITH_G\nCYSTCK_DEF_METH(g_def, "g", g, CYSTCK_O, NULL)\n#endif' in out
    assert "#ifdef WITH_G\n    &g_def,\n#endif\n" in out
    # negative: the unconditional entry stays as it was
    assert 'CYSTCK_DEF_METH(f_def, "f", f, CYSTCK_O, NULL)\n#ifdef' in out
    assert "    &f_def,\n#ifdef" in out


def test_entries_in_both_branches_each_keep_theirs():
    out = _translate('#if PY_VERSION_HEX >= 0x030C0000\n    {"h", (PyCFunction)f, METH_O, NULL},\n'
                     '#else\n    {"h", (PyCFunction)g, METH_O, NULL},\n#endif\n')
    assert '#if PY_VERSION_HEX >= 0x030C0000\nCYSTCK_DEF_METH(f_def, "h", f, CYSTCK_O, NULL)\n#endif' in out
    assert '#if PY_VERSION_HEX >= 0x030C0000\n#else\nCYSTCK_DEF_METH(g_def, "h", g, CYSTCK_O, NULL)\n#endif' in out
    assert "#if PY_VERSION_HEX >= 0x030C0000\n#else\n    &g_def,\n#endif\n" in out


def test_entry_with_a_conditional_inside_is_one_entry_per_version():
    # before: "its entry has preprocessor conditionals inside; not translated"
    out = _translate('    {"pick",\n#ifdef USE_G\n     (PyCFunction)g,\n#else\n     (PyCFunction)f,\n#endif\n'
                     '     METH_O, NULL},\n')
    assert '#ifdef USE_G\nCYSTCK_DEF_METH(g_def, "pick", g, CYSTCK_O, NULL)\n#endif' in out
    assert '#ifdef USE_G\n#else\nCYSTCK_DEF_METH(f_def, "pick", f, CYSTCK_O, NULL)\n#endif' in out
    assert "not translated" not in out


def test_member_and_getset_entries_keep_their_conditionals():
    out = _translate('    {"f", (PyCFunction)f, METH_O, NULL},\n',
                     '    {"n", T_LONG, offsetof(Box, n), READONLY, NULL},\n'
                     '#ifdef WITH_EXTRA\n    {"extra", T_LONG, offsetof(Box, extra), 0, NULL},\n#endif\n',
                     '#ifndef NO_N\n    {"n2", (getter)get_n, NULL, NULL, NULL},\n#endif\n')
    assert "#ifdef WITH_EXTRA\nCYSTCK_DEF_MEMBER(Box_extra_member," in out
    assert "#ifdef WITH_EXTRA\n    &Box_extra_member,\n#endif\n" in out
    assert '#ifndef NO_N\nCYSTCK_DEF_GET(get_n_getset, "n2", get_n, NULL, NULL)\n#endif' in out
    assert "    &Box_n_member,\n#ifdef" in out           # negative: unconditional


def test_class_methods_keep_their_binding_flag():
    out = _translate('    {"c", (PyCFunction)f, METH_O | METH_CLASS, NULL},\n'
                     '    {"s", (PyCFunction)g, METH_O, NULL},\n')
    assert 'CYSTCK_DEF_METH_FLAGS(f_def, "c", f, CYSTCK_O, METH_CLASS, NULL)' in out
    assert 'CYSTCK_DEF_METH(g_def, "s", g, CYSTCK_O, NULL)' in out      # negative


def test_stock_function_as_a_method_calls_its_counterpart():
    out = _translate('    {"__class_getitem__", Py_GenericAlias, METH_O | METH_CLASS, NULL},\n'
                     '    {"v", (PyCFunction)PyObject_Vectorcall, METH_VARARGS, NULL},\n')
    assert ("static int class_getitem__Py_GenericAlias(Cystck_State *S, Cystck_Object self, Cystck_Object arg)\n"
            "{\n    return Cystck_Return(S, Cystck_GenericAlias(S, self, arg));\n}") in out
    # negative: a stock function whose arguments a forwarder cannot give it
    assert "method \"v\" is the stock function PyObject_Vectorcall" in out
    assert "PyObject_Vectorcall__v" not in out
