"""Helpers handed the address of a module-state reference, type spec
pointers, `char *const kwlist[]`, and the functions that stay stock (they
read object internals): what their callers lend them, and what stays
CPython's inside them."""
from cystck.migrate import translate

STATE = ("#include <Python.h>\n"
         "typedef struct {\n    PyObject *name;\n    PyObject *Box_Type;\n} State;\n"
         "static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, \"m\", NULL, sizeof(State)};\n")

INTERN = ("static int intern(PyObject **slot, const char *s)\n{\n"
          "    PyObject *o = PyUnicode_InternFromString(s);\n"
          "    if (o == NULL)\n        return -1;\n    *slot = o;\n    return 0;\n}\n"
          "static int init(PyObject *m)\n{\n"
          "    State *st = (State *)PyModule_GetState(m);\n"
          "    return intern(&st->name, \"name\");\n}\n")


def _body(out, name):
    return out.split(f" {name}(")[1].split("\n}\n")[0]


def test_helper_given_a_state_members_address_takes_a_ref_pointer():
    out = translate.translate_source(STATE + INTERN, "m.c")
    assert "static int intern(Cystck_State *S, Cystck_Ref *slot, const char *s)" in out
    assert "*slot = Cystck_ref(S, o);" in out
    assert "intern(S, &st->name, \"name\")" in out


def test_reads_of_a_ref_pointer_load_the_reference():
    src = STATE + ("static PyObject *get(PyObject **slot)\n{\n"
                   "    if (*slot == NULL)\n        *slot = PyDict_New();\n"
                   "    return PyObject_Repr(*slot);\n}\n"
                   "static PyObject *f(PyObject *m, PyObject *unused)\n{\n"
                   "    State *st = (State *)PyModule_GetState(m);\n    return get(&st->name);\n}\n")
    out = translate.translate_source(src, "m.c")
    body = _body(out, "get")
    assert "Cystck_Ref *slot" in out
    assert "if (*slot == NULL)" in body
    assert "*slot = Cystck_ref(S, CystckDict_New(S));" in body
    assert "CystckObject_Repr(S, Cystck_deref(S, *slot))" in body


def test_helper_also_given_a_local_handles_address_keeps_a_handle_pointer():
    src = STATE + INTERN + ("static PyObject *other(PyObject *self, PyObject *unused)\n{\n"
                            "    PyObject *local = NULL;\n    if (intern(&local, \"x\") < 0)\n"
                            "        return NULL;\n    return local;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "static int intern(Cystck_State *S, Cystck_Object *slot, const char *s)" in out
    assert "Cystck_ref" not in _body(out, "intern")


def test_spec_pointer_parameter_of_a_translated_helper_is_a_cystck_spec():
    src = STATE + ("static PyType_Slot Box_slots[] = {{0, NULL}};\n"
                   "static PyType_Spec Box_spec = {\"m.Box\", 0, 0, Py_TPFLAGS_DEFAULT, Box_slots};\n"
                   "static int add(PyObject *m, PyType_Spec *spec)\n{\n"
                   "    PyObject *t = PyType_FromModuleAndSpec(m, spec, NULL);\n"
                   "    return t == NULL ? -1 : 0;\n}\n"
                   "static int exec_(PyObject *m) { return add(m, &Box_spec); }\n")
    out = translate.translate_source(src, "m.c")
    assert "static int add(Cystck_State *S, Cystck_Object m, CystckType_Spec *spec)" in out
    assert "PyType_Spec" not in out


def test_spec_pointer_in_a_function_that_stays_stock_is_left_alone():
    src = ("#include <Python.h>\n"
           "static const char *spec_name(PyTypeObject *tp, PyType_Spec *spec)\n{\n"
           "    return tp->tp_basicsize ? spec->name : tp->tp_name;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "PyType_Spec *spec" in out


def test_const_element_kwlist_becomes_a_const_char_list():
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *args, PyObject *kw)\n{\n"
           "    PyObject *x;\n    char *const kwlist[] = {\"x\", NULL};\n"
           "    if (!PyArg_ParseTupleAndKeywords(args, kw, \"O\", kwlist, &x))\n        return NULL;\n"
           "    return PyObject_Repr(x);\n}\n"
           "static PyMethodDef methods[] = {{\"f\", (PyCFunction)f, METH_VARARGS | METH_KEYWORDS, NULL},\n"
           "                                {NULL}};\n")
    out = translate.translate_source(src, "m.c")
    assert "    const char *kwlist[] = {\"x\", NULL};" in out
    assert "CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, \"O\", kwlist, &x)" in out


def test_const_element_string_list_not_given_to_the_parser_stays():
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *unused)\n{\n"
           "    char *const names[] = {\"x\", NULL};\n    return PyUnicode_FromString(names[0]);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "    char *const names[] = {\"x\", NULL};" in out


STOCK_HELPER = ("static int has_base_doc(PyTypeObject *tp, PyObject *name)\n{\n"
                "    PyObject *d = tp->tp_base ? tp->tp_base->tp_dict : NULL;\n"
                "    if (d == NULL || d == Py_None)\n        return 0;\n"
                "    if (PyDict_Contains(d, name) < 0) {\n"
                "        if (!PyErr_ExceptionMatches(PyExc_TypeError))\n            PyErr_WriteUnraisable(name);\n"
                "        PyErr_Clear();\n    }\n    return 1;\n}\n")


def test_constants_in_a_function_that_stays_stock_stay_stock():
    src = "#include <Python.h>\n" + STOCK_HELPER
    body = _body(translate.translate_source(src, "m.c"), "has_base_doc")
    assert "PyExc_TypeError" in body and "CystckExc_" not in body
    assert "d == Py_None" in body


def test_constants_in_a_translated_function_become_handles():
    src = "#include <Python.h>\nstatic int f(PyObject *o) { return o == Py_None || PyErr_ExceptionMatches(PyExc_TypeError); }\n"
    out = translate.translate_source(src, "m.c")
    assert "Cystck_None" in out and "CystckExc_TypeError" in out


def test_stock_helper_is_lent_the_type_as_a_type_and_a_pointed_to_handle():
    src = ("#include <Python.h>\n" + STOCK_HELPER
           + "static int g(PyObject **op, PyObject *name)\n{\n"
           "    return has_base_doc(Py_TYPE(*op), name) + has_base_doc(Py_TYPE(name), *op);\n}\n"
           "static PyObject *f(PyObject *self, PyObject *name)\n{\n"
           "    PyObject *o = self;\n    return PyLong_FromLong(g(&o, name));\n}\n")
    body = _body(translate.translate_source(src, "m.c"), "g")
    assert ("has_base_doc((PyTypeObject *)Cystck_AsPyObject(S, CystckObject_Type(S, *op)), "
            "Cystck_AsPyObject(S, name))") in body
    # a PyObject * parameter takes the lent object without a cast
    assert "Cystck_AsPyObject(S, *op))" in body
    assert "(PyObject *)Cystck_AsPyObject" not in body


MODULE_CHECK = ("static int ours(PyObject *o)\n{\n    PyTypeObject *tp = Py_TYPE(o);\n"
                "    PyObject *m = PyType_GetModule(tp->tp_base);\n"
                "    return m != NULL && PyModule_GetDef(m) == &moduledef;\n}\n")


def test_stock_helper_compares_a_module_definition_with_the_one_cpython_knows():
    out = translate.translate_source(STATE + MODULE_CHECK, "m.c")
    assert "PyModule_GetDef(m) == /* cystck-migrate: escape hatch */ Cystck_AsPyModuleDef(&moduledef)" in out
    assert translate.translate_source(out, "m.c") == out


def test_translated_function_passes_its_module_definition_as_it_is():
    src = STATE + ("static PyObject *mod(PyObject *self, PyObject *unused)\n{\n"
                   "    return PyType_GetModuleByDef(Py_TYPE(self), &moduledef);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "CystckType_GetModuleByDef(S, CystckObject_Type(S, self), &moduledef)" in out
    assert "Cystck_AsPyModuleDef" not in out


UNWRAP = ("#include <Python.h>\n"
          "static int unwrap(PyObject **op)\n{\n"
          "    if (!PyTuple_Check(*op)) {\n        Py_INCREF(*op);\n        return 0;\n    }\n"
          "    *op = PySequence_GetItem(*op, 0);\n    return *op == NULL ? -1 : 0;\n}\n"
          "static PyObject *first(PyObject *self, PyObject *o)\n{\n"
          "    if (unwrap(&o) < 0)\n        return NULL;\n"
          "    PyObject *r = PyObject_Repr(o);\n    Py_DECREF(o);\n    return r;\n}\n")


def test_increment_through_an_in_out_parameter_gives_the_caller_a_handle_of_its_own():
    out = translate.translate_source(UNWRAP, "m.c")
    assert "        *op = Cystck_Dup(S, *op);\n        return 0;" in out
    assert "Cystck_Drop(S, o);" in out


def test_increment_of_a_plain_handle_parameter_still_goes():
    src = ("#include <Python.h>\n"
           "static PyObject *keep(PyObject *o)\n{\n    Py_INCREF(o);\n    return PyObject_Repr(o);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "Cystck_Dup" not in out and "INCREF" not in out


INPLACE = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD long v; } Acc;\n"
           "static PyObject *Acc_ilshift(PyObject *a, PyObject *b) { Py_INCREF(a); return a; }\n"
           "static PyObject *Acc_ipow(PyObject *a, PyObject *b, PyObject *c) { Py_INCREF(a); return a; }\n"
           "static PyObject *Acc_await(PyObject *a) { Py_INCREF(a); return a; }\n"
           "static PyType_Slot Acc_slots[] = {\n    {Py_nb_inplace_lshift, Acc_ilshift},\n"
           "    {Py_nb_inplace_power, Acc_ipow},\n    {Py_am_send, Acc_await},\n    {0, NULL}\n};\n"
           "static PyType_Spec Acc_spec = {\"m.Acc\", sizeof(Acc), 0, Py_TPFLAGS_DEFAULT, Acc_slots};\n")


def test_further_inplace_number_slots_are_slots():
    out = translate.translate_source(INPLACE, "m.c")
    assert "CYSTCK_DEF_SLOT(Acc_slots_nb_inplace_lshift, nb_inplace_lshift, Acc_ilshift)" in out
    assert "CYSTCK_DEF_SLOT(Acc_slots_nb_inplace_power, nb_inplace_power, Acc_ipow)" in out
    assert "static int Acc_ipow(Cystck_State *S, Cystck_Object a, Cystck_Object b, Cystck_Object c)" in out


def test_a_slot_the_runtime_lacks_is_still_reported():
    out = translate.translate_source(INPLACE, "m.c")
    assert "am_send" not in out.split("static CystckDef *Acc_slots[]")[1].split("};")[0]


def test_xincref_then_return_keeps_a_null_result_null():
    src = ("#include <Python.h>\n"
           "static PyObject *peek(PyObject *d)\n{\n    PyObject *v = PyDict_GetItemString(d, \"k\");\n"
           "    Py_XINCREF(v);\n    return v;\n}\n"
           "static PyObject *later(PyObject *d)\n{\n    PyObject *v = PyDict_GetItemString(d, \"k\");\n"
           "    Py_XINCREF(v);\n    PyErr_Clear();\n    return v;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "return (Cystck_IsNull(v) ? v : Cystck_Dup(S, v));" in _body(out, "peek")
    assert "return (Cystck_IsNull(v) ? v : Cystck_Dup(S, v));" in _body(out, "later")


def test_incref_then_return_dups_without_a_null_test():
    src = ("#include <Python.h>\n"
           "static PyObject *same(PyObject *o)\n{\n    Py_INCREF(o);\n    return o;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "return Cystck_Dup(S, o);" in out


CLASSMETHOD = ("#include <Python.h>\n"
               "typedef struct { PyObject_HEAD } Box;\n"
               "static PyObject *Box_class_getitem(PyObject *cls, PyObject *key)\n"
               "{\n    return Py_GenericAlias(cls, key);\n}\n"
               "static PyObject *Box_make(PyObject *unused, PyObject *args)\n{\n    Py_RETURN_NONE;\n}\n"
               "static PyObject *Box_size(PyObject *self, PyObject *unused)\n{\n    return PyLong_FromLong(0);\n}\n"
               "static PyMethodDef Box_methods[] = {\n"
               "    {\"__class_getitem__\", Box_class_getitem, METH_O | METH_CLASS, NULL},\n"
               "    {\"make\", Box_make, METH_VARARGS | METH_STATIC, NULL},\n"
               "    {\"size\", Box_size, METH_NOARGS, NULL},\n    {NULL}\n};\n")


def test_class_and_static_methods_keep_their_binding_flags():
    out = translate.translate_source(CLASSMETHOD, "m.c")
    assert ("CYSTCK_DEF_METH_FLAGS(Box_class_getitem_def, \"__class_getitem__\", Box_class_getitem, "
            "CYSTCK_O, METH_CLASS, NULL)") in out
    assert "CYSTCK_DEF_METH_FLAGS(Box_make_def, \"make\", Box_make, CYSTCK_VARARGS, METH_STATIC, NULL)" in out
    assert "static int Box_class_getitem(Cystck_State *S, Cystck_Object cls, Cystck_Object key)" in out
    assert "CYSTCK_DEF_METH(Box_size_def, \"size\", Box_size, CYSTCK_NOARGS, NULL)" in out
    assert translate.translate_source(out, "m.c") == out


def test_a_method_with_a_convention_cystck_lacks_is_still_reported():
    src = CLASSMETHOD.replace("METH_NOARGS", "METH_METHOD | METH_FASTCALL | METH_KEYWORDS")
    out = translate.translate_source(src, "m.c")
    assert "method \"size\" (METH_METHOD | METH_FASTCALL | METH_KEYWORDS) has no Cystck calling convention" in out


def test_a_stock_function_as_a_methods_implementation_calls_its_counterpart():
    src = ("#include <Python.h>\n"
           "static PyMethodDef Box_methods[] = {\n"
           "    {\"__class_getitem__\", Py_GenericAlias, METH_O | METH_CLASS, NULL},\n    {NULL}\n};\n")
    out = translate.translate_source(src, "m.c")
    assert ("static int class_getitem__Py_GenericAlias(Cystck_State *S, Cystck_Object self, Cystck_Object arg)\n"
            "{\n    return Cystck_Return(S, Cystck_GenericAlias(S, self, arg));\n}") in out
    assert translate.translate_source(out, "m.c") == out


def test_a_stock_function_without_a_counterpart_is_called_through_the_escape_hatch():
    src = ("#include <Python.h>\n"
           "static PyMethodDef Box_methods[] = {\n"
           "    {\"extend\", PySequence_InPlaceConcat, METH_O, NULL},\n    {NULL}\n};\n")
    out = translate.translate_source(src, "m.c")
    assert ("static int extend__PySequence_InPlaceConcat(Cystck_State *S, Cystck_Object self, Cystck_Object arg)\n"
            "{\n    return Cystck_Return(S, Cystck_FromNewPyObject(S, /* cystck-migrate: escape hatch */ "
            "PySequence_InPlaceConcat(Cystck_AsPyObject(S, self), Cystck_AsPyObject(S, arg))));\n}") in out
    assert translate.translate_source(out, "m.c") == out


def test_an_extension_function_defined_elsewhere_is_forwarded_with_the_state():
    src = ("#include <Python.h>\n"
           "PyObject *other_size(PyObject *self, PyObject *arg);\n"
           "static PyMethodDef Box_methods[] = {\n"
           "    {\"size\", other_size, METH_O, NULL},\n    {NULL}\n};\n")
    out = translate.translate_source(src, "m.c")
    assert "Cystck_FromNewPyObject" not in out


def test_function_and_method_types_are_constants():
    src = ("#include <Python.h>\n"
           "static PyObject *kind(PyObject *self, PyObject *f)\n{\n"
           "    if (PyCFunction_Check(f) || PyObject_IsInstance(f, (PyObject *)&PyFunction_Type))\n"
           "        return PyLong_FromLong(1);\n"
           "    return PyObject_CallFunctionObjArgs((PyObject *)&PyReversed_Type, f, NULL);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "CystckCFunction_Check(S, f) || CystckObject_IsInstance(S, f, CystckFunction_Type)" in out
    assert "CystckObject_CallFunctionObjArgs(S, CystckReversed_Type, f, Cystck_NULL)" in out
    assert "escape hatch" not in out


def test_a_builtin_type_without_a_handle_still_goes_through_the_escape_hatch():
    src = ("#include <Python.h>\n"
           "static PyObject *kind(PyObject *self, PyObject *f)\n{\n"
           "    return PyLong_FromLong(PyObject_IsInstance(f, (PyObject *)&PyProperty_Type));\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "Cystck_FromPyObject(S, /* cystck-migrate: escape hatch */ (PyObject *)&PyProperty_Type)" in out


def test_an_objects_address_as_an_integer_is_its_id():
    src = ("#include <Python.h>\n"
           "static PyObject *addr(PyObject *self, PyObject *o)\n{\n"
           "    char buf[32];\n    snprintf(buf, sizeof(buf), \"0x%zx\", (Py_uintptr_t)o);\n"
           "    return PyUnicode_FromString(buf);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "(Py_uintptr_t)CystckObject_Id(S, o)" in out
    assert "escape hatch" not in out


def test_a_c_pointer_as_an_integer_stays():
    src = ("#include <Python.h>\n"
           "static PyObject *addr(PyObject *self, PyObject *o)\n{\n"
           "    char buf[32];\n    snprintf(buf, sizeof(buf), \"0x%zx\", (Py_uintptr_t)buf);\n"
           "    return PyUnicode_FromString(buf);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "(Py_uintptr_t)buf)" in out and "CystckObject_Id" not in out


DEALLOC = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD PyObject *v; } Box;\n"
           "static void Box_dealloc(Box *self)\n{\n    PyTypeObject *tp = Py_TYPE(self);\n"
           "    Py_CLEAR(self->v);\n    tp->tp_free(self);\n"
           "    PyObject *exc = PyErr_GetRaisedException();\n    Py_DECREF(tp);\n"
           "    PyErr_SetRaisedException(exc);\n}\n"
           "static PyObject *Box_get(Box *self, PyObject *unused)\n{\n"
           "    PyObject *exc = PyErr_GetRaisedException();\n    PyErr_SetRaisedException(exc);\n"
           "    Py_RETURN_NONE;\n}\n"
           "static PyMethodDef Box_methods[] = {{\"get\", (PyCFunction)Box_get, METH_NOARGS, NULL}, {NULL}};\n"
           "static PyType_Slot Box_slots[] = {{Py_tp_dealloc, Box_dealloc}, {Py_tp_methods, Box_methods}, {0, NULL}};\n"
           "static PyType_Spec Box_spec = {\"m.Box\", sizeof(Box), 0, Py_TPFLAGS_DEFAULT, Box_slots};\n")


def test_calls_in_a_destructor_which_has_no_state_stay_stock():
    out = translate.translate_source(DEALLOC, "m.c")
    body = out.split("Box_dealloc(void *data)")[1].split("\n}\n")[0]
    assert "PyErr_GetRaisedException()" in body and "PyErr_SetRaisedException(exc)" in body
    assert "(S" not in body


def test_the_same_calls_in_a_method_are_translated():
    out = translate.translate_source(DEALLOC, "m.c")
    body = _body(out, "Box_get")
    assert "CystckErr_GetRaisedException(S)" in body and "CystckErr_SetRaisedException(S, exc)" in body


def test_stock_helpers_left_overs_say_why_they_stay_stock():
    from cystck.migrate import analysis
    unit = translate.translate_files({"m.c": "#include <Python.h>\n" + STOCK_HELPER})["m.c"]
    notes = [n.message for n in analysis.analyse(unit) if "PyDict_Contains" in n.message]
    assert notes and all("reads object internals" in n and "capsule" not in n for n in notes)


def test_left_overs_of_a_file_with_prototypes_and_stock_helpers():
    from cystck.migrate import analysis
    src = "#include <Python.h>\nstatic int has_base_doc(PyTypeObject *tp, PyObject *name);\n" + STOCK_HELPER
    unit = translate.translate_files({"m.c": src})["m.c"]
    assert any("reads object internals" in n.message for n in analysis.analyse(unit))
