"""Stock idioms met in the porting corpus (issue #19), each with the
construct the rule must leave alone."""
from cystck.migrate import translate

HEAD = "#include <Python.h>\n"
TYPE = ("typedef struct {\n    PyObject_HEAD\n    long n;\n} CountObject;\n"
        "typedef struct {\n    PyObject_HEAD\n    long n;\n} TallyObject;\n")


def test_function_macros_are_expanded_into_ordinary_functions():
    """A macro whose body is one function definition (its name pasted
    from a parameter) is written out at each top-level use: the generated
    methods get their role's signature and struct accessors, the helper
    gets S and its callers pass it."""
    src = (HEAD + TYPE +
           "#define DEFINE_BUMP(type) \\\n"
           "static void type##_bump(type##Object *self, long by) \\\n"
           "{ \\\n    self->n += by; \\\n    if (PyErr_Occurred()) return; \\\n}\n"
           "#define DEFINE_GET(type, label) \\\n"
           "static PyObject *type##_get(type##Object *self) \\\n"
           "{ \\\n    type##_bump(self, 1); /* counted */ \\\n"
           "    return PyUnicode_FromFormat(#type \" %s %ld\", label, self->n); \\\n}\n"
           "DEFINE_BUMP(Count)\nDEFINE_GET(Count, \"c\")\nDEFINE_BUMP(Tally)\nDEFINE_GET(Tally, \"t\");\n"
           "static PyMethodDef count_methods[] = {\n"
           "    {\"get\", (PyCFunction)Count_get, METH_NOARGS, NULL},\n    {NULL}\n};\n"
           "static PyMethodDef tally_methods[] = {\n"
           "    {\"get\", (PyCFunction)Tally_get, METH_NOARGS, NULL},\n    {NULL}\n};\n")
    out = translate.translate_source(src, "m.c")
    assert "#define DEFINE" not in out
    assert ("/* DEFINE_GET(Count, \"c\"), expanded by cystck-migrate */\n"
            "static int Count_get(Cystck_State *S, Cystck_Object self)\n{\n"
            "    Count_bump(S, self, 1); /* counted */\n"
            "    return Cystck_Return(S, CystckUnicode_FromFormat(S, \"Count\" \" %s %ld\", \"c\", "
            "CountObject_AsStruct(S, self)->n));\n}\n") in out
    assert ("/* DEFINE_BUMP(Tally), expanded by cystck-migrate */\n"
            "static void Tally_bump(Cystck_State *S, Cystck_Object self, long by)\n{\n"
            "    TallyObject_AsStruct(S, self)->n += by;\n") in out
    assert "DEFINE_GET(Tally, \"t\"), expanded by cystck-migrate */\nstatic int Tally_get(" in out
    assert translate.translate_source(out, "m.c") == out


def test_other_macros_are_not_expanded():
    """Left alone: a macro that is an expression, a function macro used
    inside a function, and one whose function uses no Python API."""
    src = (HEAD +
           "#define FIRST(t) PyTuple_GET_ITEM(t, 0)\n"
           "#define DEFINE_TWICE(name) static long name##_twice(long x) { return 2 * x; }\n"
           "DEFINE_TWICE(num)\n"
           "#define DEFINE_NONE(name) static PyObject *name(void) { Py_RETURN_NONE; }\n"
           "static void use(void)\n{\n    DEFINE_NONE(inner)\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "#define FIRST(t) " in out
    assert "#define DEFINE_TWICE(name) static long name##_twice(long x) { return 2 * x; }\nDEFINE_TWICE(num)\n" in out
    assert "#define DEFINE_NONE(name)" in out and "    DEFINE_NONE(inner)\n" in out
    assert "expanded by cystck-migrate" not in out


def test_thread_locks_and_vectorcall_nargs_stay_stock():
    """PyThread_* locks and PyVectorcall_NARGS touch no object: kept as
    they are, neither escaped nor reported.  (Negative: a stock function
    without counterpart that takes an object, PyObject_GC_IsTracked, still
    goes through the escape hatch and is reported.)"""
    from cystck.migrate import analysis
    src = (HEAD + "static PyThread_type_lock lock;\n"
           "static PyObject *f(PyObject *self, PyObject *const *args, size_t nargsf)\n{\n"
           "    Py_ssize_t n = PyVectorcall_NARGS(nargsf);\n"
           "    if (lock == NULL) lock = PyThread_allocate_lock();\n"
           "    PyThread_acquire_lock(lock, WAIT_LOCK);\n    PyThread_release_lock(lock);\n"
           "    return PyLong_FromSsize_t((Py_ssize_t)PyObject_GC_IsTracked(args[0]) + n);\n}\n")
    unit = translate.translate_files({"m.c": src})["m.c"]
    notes = [n.message for n in unit.notes + analysis.analyse(unit) if n.kind == "leftover"]
    out = unit.text
    assert "    Py_ssize_t n = PyVectorcall_NARGS(nargsf);\n" in out
    assert "lock = PyThread_allocate_lock();\n    PyThread_acquire_lock(lock, WAIT_LOCK);\n" \
           "    PyThread_release_lock(lock);\n" in out
    assert "PyObject_GC_IsTracked(Cystck_AsPyObject(S, args[0]))" in out
    assert not [m for m in notes if "PyThread" in m or "PyVectorcall" in m]
    assert [m for m in notes if "PyObject_GC_IsTracked" in m]


def test_null_tests_through_pointers_to_handles():
    """``*out = NULL`` and ``if (*out)`` where out points at handles (an
    output parameter ``PyObject **out``) test and set the null handle.
    (Negative: a ``char **`` and a product stay as they are.)"""
    src = (HEAD + "static int get(PyObject *d, PyObject **out, char **s, int *n)\n{\n"
           "    *out = NULL;\n    *s = NULL;\n    if (*out || !*out || *out == NULL)\n        return 1;\n"
           "    if (*s && *n * *n)\n        *out = PyDict_GetItemString(d, \"k\");\n"
           "    return *out != NULL;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert ("    *out = Cystck_NULL;\n    *s = NULL;\n"
            "    if (!Cystck_IsNull(*out) || Cystck_IsNull(*out) || Cystck_IsNull(*out))\n        return 1;\n"
            "    if (*s && *n * *n)\n") in out
    assert "    return !Cystck_IsNull(*out);\n" in out


def test_buffer_filled_by_hand_owns_its_object():
    """A Py_buffer filled by hand owns a reference to its obj (which
    PyBuffer_Release drops): it gets one through the escape hatch, the
    increment beside the store goes (before or after it), and a second
    translation changes nothing.  (Negative: obj set to NULL and the other
    members stay.)"""
    src = (HEAD + "static int fill(PyObject *o, Py_buffer *view, int first)\n{\n"
           "    if (first) {\n        view->obj = (PyObject *)o;\n        Py_INCREF(o);\n    } else {\n"
           "        Py_INCREF(o);\n        view->obj = o;\n    }\n"
           "    view->len = PyBytes_GET_SIZE(o);\n    return 0;\n}\n"
           "static void clear(Py_buffer *view)\n{\n    view->obj = NULL;\n    PyBuffer_Release(view);\n}\n")
    out = translate.translate_source(src, "m.c")
    kept = "view->obj = /* cystck-migrate: escape hatch */ Py_NewRef(Cystck_AsPyObject(S, o));\n"
    assert f"    if (first) {{\n        {kept}    }} else {{\n        {kept}    }}\n" in out
    assert "    view->len = CystckBytes_GET_SIZE(S, o);\n" in out
    assert "    view->obj = NULL;\n" in out
    assert translate.translate_source(out, "m.c") == out


def test_vectorcall_set_on_a_type_with_tp_new_is_dropped():
    """``tp_vectorcall`` set on a type made from a spec with a Py_tp_new
    slot goes (reported): calls go through tp_new.  (Negative: on a type
    whose spec has no tp_new, calling it would fail, so the statement stays
    and is reported for a human.)"""
    src = (HEAD +
           "static PyType_Slot A_slots[] = {{Py_tp_new, A_new}, {0, NULL}};\n"
           "static PyType_Spec A_spec = {.name = \"m.A\", .slots = A_slots};\n"
           "static PyType_Slot B_slots[] = {{Py_tp_init, B_init}, {0, NULL}};\n"
           "static PyType_Spec B_spec = {.name = \"m.B\", .slots = B_slots};\n"
           "static int exec(PyObject *m)\n{\n"
           "    PyObject *a = PyType_FromModuleAndSpec(m, &A_spec, NULL);\n"
           "    ((PyTypeObject *)a)->tp_vectorcall = A_vectorcall;\n"
           "    PyObject *b = PyType_FromModuleAndSpec(m, &B_spec, NULL);\n"
           "    ((PyTypeObject *)b)->tp_vectorcall = B_vectorcall;\n"
           "    return 0;\n}\n")
    from cystck.migrate import analysis
    unit = translate.translate_files({"m.c": src})["m.c"]
    notes = [n.message for n in unit.notes + analysis.analyse(unit) if n.kind == "leftover"]
    assert "    /* cystck-migrate: tp_vectorcall = A_vectorcall dropped: calls go through tp_new */\n" in unit.text
    assert "->tp_vectorcall = A_vectorcall" not in unit.text
    assert "->tp_vectorcall = B_vectorcall;" in unit.text
    assert any(m.startswith("tp_vectorcall = A_vectorcall dropped") for m in notes)
    assert any(m.startswith("tp_vectorcall = B_vectorcall: no Cystck counterpart") for m in notes)


def test_tp_alloc_through_the_type_is_not_reported_as_left():
    """``Py_TYPE(self)->tp_alloc(Py_TYPE(self), 0)`` becomes Cystck_NewZeroed
    (object-new): nothing is left of it to report.  (Negative: another
    slot called through Py_TYPE that no rule ports is still reported;
    ``tp_free`` is object-frees'.)"""
    from cystck.migrate import analysis
    src = (HEAD + TYPE +
           "static PyObject *copy(CountObject *self)\n{\n"
           "    CountObject *p = (CountObject *)Py_TYPE(self)->tp_alloc(Py_TYPE(self), 0);\n"
           "    if (p == NULL) return NULL;\n"
           "    Py_TYPE(self)->tp_finalize((PyObject *)self);\n"
           "    return (PyObject *)p;\n}\n"
           "static PyMethodDef methods[] = {{\"copy\", (PyCFunction)copy, METH_NOARGS, NULL}, {NULL}};\n")
    unit = translate.translate_files({"m.c": src})["m.c"]
    notes = [n.message for n in unit.notes + analysis.analyse(unit) if n.kind == "leftover"]
    assert "    Cystck_Object p = Cystck_NewZeroed(S, CystckObject_Type(S, self), NULL);\n" in unit.text
    assert not [m for m in notes if m.startswith("tp_alloc")]
    assert [m for m in notes if m.startswith("tp_finalize called through Py_TYPE(self)")]
