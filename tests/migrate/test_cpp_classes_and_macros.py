"""Constructs of C++ extensions over the stock API that the translator got
wrong (found porting python-rapidjson, issue #19): class members next to
inline member functions, names a nested block redeclares, references
read in the value stored into another, slot arrays declared with
``struct``, a stock type's own slot functions, the datetime C API
(a capsule's function table), a macro defined inside a function body."""
from cystck.migrate import translate


def cpp(text):
    return translate.translate_source("#include <Python.h>\n" + text, "example.cpp")


def c(text):
    return translate.translate_source("#include <Python.h>\n" + text, "example.c")


CLASS = (
    "class Stream {\n"
    "public:\n"
    "    Stream(PyObject* file) : file(file), chunk(NULL) {}\n"
    "    char Peek() { if (chunk == NULL) Read(); return 'x'; }\n"
    "private:\n"
    "    void Read() { chunk = PyObject_CallNoArgs(file); }\n"
    "    PyObject* file;\n"
    "    PyObject* chunk;\n"
    "    size_t pos;\n"
    "};\n")


def test_members_after_inline_member_functions_are_handles():
    """``PyObject* file;`` after ``void Read() { ... }`` (no ';' between)
    is a member holding an object."""
    out = cpp(CLASS)
    assert "    Cystck_Object file;\n    Cystck_Object chunk;\n    size_t pos;\n" in out


def test_methods_test_their_handle_members_as_handles():
    out = cpp(CLASS)
    assert "if (Cystck_IsNull(chunk)) Read();" in out


def test_constructor_initialises_handle_members_with_the_null_handle():
    out = cpp(CLASS)
    assert ": S(S), file(file), chunk(Cystck_NULL) {}" in out


def test_a_name_redeclared_in_a_block_is_that_blocks_alone():
    out = c("static PyObject *f(PyObject *o)\n{\n    int error = PyObject_IsTrue(o);\n"
            "    if (error) {\n        PyObject* error = PyLong_FromLong(1);\n"
            "        if (error != NULL)\n            return error;\n    }\n    return NULL;\n}\n")
    assert "    if (error) {\n" in out
    assert "if (!Cystck_IsNull(error))" in out


def test_a_reference_read_in_the_value_stored_into_another():
    out = c("static PyObject *tz_type = NULL;\nstatic PyObject *tz_utc = NULL;\n"
            "static int init(PyObject *m)\n{\n"
            "    tz_type = PyObject_GetAttrString(m, \"timezone\");\n"
            "    tz_utc = PyObject_GetAttrString(tz_type, \"utc\");\n    return 0;\n}\n")
    assert "tz_utc = Cystck_ref(S, CystckObject_GetAttrString(S, Cystck_deref(S, tz_type), \"utc\"));" in out


def test_slot_array_declared_with_struct():
    out = c("static int ex(PyObject *m) { return PyModule_AddIntConstant(m, \"x\", 1); }\n"
            "static struct PyModuleDef_Slot slots[] = {\n    {Py_mod_exec, (void*) ex},\n    {0, NULL}\n};\n"
            "static PyModuleDef mod = {PyModuleDef_HEAD_INIT, \"m\", NULL, 0, NULL, slots};\n"
            "PyMODINIT_FUNC PyInit_m(void) { return PyModuleDef_Init(&mod); }\n")
    assert "PyModuleDef_Slot" not in out
    assert "CYSTCK_DEF_MOD_EXEC(" in out


def test_a_stock_types_slot_function_lends_its_arguments():
    out = c("static PyObject *f(PyObject *o) { return PyLong_Type.tp_repr(o); }\n")
    assert ("Cystck_FromNewPyObject(S, /* cystck-migrate: escape hatch */ "
            "PyLong_Type.tp_repr((Cystck_IsNull(o) ? NULL : Cystck_AsPyObject(S, o))))") in out


def test_datetime_capsule_api_through_the_escape_hatch():
    """What has a counterpart uses it (tests/runtime/test_datetime_ported.py);
    a call through the capsule's table (a time with a tzinfo) is kept."""
    out = c("#include <datetime.h>\n"
            "static PyObject *f(PyObject *tz)\n{\n"
            "    PyObject *a = PyDateTime_FromDateAndTime(2020, 1, 2, 3, 4, 5, 6);\n"
            "    PyObject *b = PyDateTimeAPI->Time_FromTime(1, 2, 3, 4, tz, PyDateTimeAPI->TimeType);\n"
            "    return PyTuple_Pack(2, a, b);\n}\n")
    assert "Cystck_Object a = CystckDateTime_FromDateAndTime(S, 2020, 1, 2, 3, 4, 5, 6);" in out
    assert ("Cystck_Object b = Cystck_FromNewPyObject(S, /* cystck-migrate: escape hatch */ "
            "PyDateTimeAPI->Time_FromTime(1, 2, 3, 4, Cystck_AsPyObject(S, tz), PyDateTimeAPI->TimeType));") in out


def test_a_macro_defined_in_a_function_body_passes_the_state_once():
    out = c("static int walk(PyObject *o, int depth)\n{\n"
            "#define RECURSE(v) walk(v, depth + 1)\n"
            "    return depth > 3 ? PyObject_IsTrue(o) : RECURSE(o);\n}\n")
    assert "#define RECURSE(v) walk(S, v, depth + 1)" in out


def test_err_fetch_and_restore_have_counterparts():
    """A fetched type that is read (not only restored, which the
    err-fetch-restore rule turns into the raised exception) keeps
    PyErr_Fetch's meaning: CystckErr_Fetch (tests/runtime/test_err_fetch_ported.py)."""
    out = c("static PyObject *f(PyObject *o)\n{\n    PyObject *t, *v, *tb;\n"
            "    PyErr_Fetch(&t, &v, &tb);\n    if (v != NULL && PyUnicode_Check(v))\n"
            "        return PyErr_Format(t, \"at %d: %S\", 1, v);\n"
            "    PyErr_Restore(t, v, tb);\n    return NULL;\n}\n")
    assert "CystckErr_Fetch(S, &t, &v, &tb);" in out
    assert "CystckErr_Restore(S, t, v, tb);" in out


STEALING_HELPER = (
    "static int add(PyObject *list, PyObject *value)\n{\n"
    "    int rc = PyList_Append(list, value);\n    Py_DECREF(value);\n    return rc;\n}\n"
    "static PyObject *f(PyObject *list, PyObject **last)\n{\n"
    "    PyObject *d = PyDict_New();\n    if (d == NULL)\n        return NULL;\n"
    "    if (add(list, d) < 0)\n        return NULL;\n"
    "    Py_INCREF(d);\n    *last = d;\n    return PyLong_FromLong(1);\n}\n")


def test_a_helper_that_steals_gets_a_handle_of_its_own_where_the_caller_keeps_one():
    """``add`` releases its parameter (it steals it); the caller takes the
    reference back after the call (``Py_INCREF(d)``) to go on using
    ``d``: with handles, ``add`` gets ``Cystck_Dup(S, d)``, or its drop
    would release ``d``'s slot."""
    out = c(STEALING_HELPER)
    assert "    if (add(S, list, Cystck_Dup(S, d)) < 0)\n" in out
    assert "Py_INCREF" not in out


def test_a_helper_that_takes_its_own_reference_steals_nothing():
    out = c(STEALING_HELPER.replace("    int rc = PyList_Append(list, value);\n",
                                    "    Py_INCREF(value);\n    int rc = PyList_Append(list, value);\n"))
    assert "add(S, list, d)" in out


def test_a_reference_taken_for_a_helper_that_steals_it_next():
    """``Py_INCREF(value); return add(list, value);`` with ``value`` a
    constant (or the caller's): the helper gets a handle of its own to
    drop (dropping a constant is an error in debug mode)."""
    out = c(STEALING_HELPER + "static int g(PyObject *list, int b)\n{\n"
            "    PyObject *value = b ? Py_True : Py_False;\n    Py_INCREF(value);\n"
            "    return add(list, value);\n}\n")
    assert "    return add(S, list, Cystck_Dup(S, value));\n" in out
