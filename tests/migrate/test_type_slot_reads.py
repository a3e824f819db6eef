"""Reads of type slots through a handle go through the escape hatch
(type-slot-reads); what is not such a read is left alone."""
from cystck.migrate import analysis, translate

SRC = ("#include <Python.h>\n"
       "typedef struct { int tp_count; } Stats;\n"
       "static PyObject *f(PyTypeObject *type, PyObject *o, Stats *st)\n{\n"
       "    if (type->tp_dict && (type->tp_basicsize > 16))\n"
       "        st->tp_count++;\n"
       "    type->tp_doc = \"changed\";\n"
       "    if (type->tp_descr_set == NULL)\n        return NULL;\n"
       "    if (type->tp_descr_set(o, o, NULL) < 0)\n        return NULL;\n"
       "    return PyLong_FromLong(st->tp_count);\n}\n")


def _translate(src):
    unit = translate.translate_files({"m.c": src})["m.c"]
    notes = unit.finish_notes() + analysis.analyse(unit)
    return unit.text, [n for n in notes if n.kind == "leftover"]


def test_slot_reads_are_kept_through_the_escape_hatch_and_reported():
    """A truth test or flag reads the slot as it is, a slot function returning
    a C value is called with its handles lent (NULL stays NULL); each read
    is reported with its line.  (A type's own tp_descr_set, called for
    another object: the descr-slot rules port only Py_TYPE(d)'s for d.)"""
    out, notes = _translate(SRC)
    assert ("if (/* cystck-migrate: escape hatch */ ((PyTypeObject *)Cystck_AsPyObject(S, type))->tp_dict && "
            "(/* cystck-migrate: escape hatch */ ((PyTypeObject *)Cystck_AsPyObject(S, type))->tp_basicsize"
            " > 16))") in out
    assert ("if (/* cystck-migrate: escape hatch */ ((PyTypeObject *)Cystck_AsPyObject(S, type))"
            "->tp_descr_set((Cystck_IsNull(o) ? NULL : Cystck_AsPyObject(S, o)), "
            "(Cystck_IsNull(o) ? NULL : Cystck_AsPyObject(S, o)), NULL) < 0)") in out
    slots = sorted((n.line, n.message.split()[5]) for n in notes if "type slot" in n.message)
    assert slots == [(5, "tp_basicsize"), (5, "tp_dict"), (8, "tp_descr_set"), (10, "tp_descr_set")]
    assert translate.translate_source(out, "m.c") == out


def test_slot_stores_and_plain_struct_members_are_left_alone():
    """Negative: a store into a type slot stays (the compiler reports it),
    and a member named tp_... of a plain C struct is no type slot."""
    out, _ = _translate(SRC)
    assert "    type->tp_doc = \"changed\";\n" in out
    assert "        st->tp_count++;\n" in out
    assert "CystckLong_FromLong(S, st->tp_count)" in out


def test_cast_of_a_handle_read_through_a_pointer():
    """``(Foo *)*out`` (``out`` a ``PyObject **``) is the handle ``*out``;
    negative: a cast of a dereferenced plain pointer stays."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD PyObject *v; } Foo;\n"
           "static int f(PyObject **out, void **raw)\n{\n"
           "    Foo *foo = (Foo *)*out;\n    char *c = (char *)*raw;\n"
           "    return foo->v == NULL && c != NULL;\n}\n")
    out, _ = _translate(src)
    assert "Cystck_Object foo = *out;" in out
    assert "char *c = (char *)*raw;" in out


def test_builtin_type_without_a_handle():
    """``&PyProperty_Type`` (Cystck has no CystckProperty_Type) in a function
    gets a handle through the escape hatch, reported; negative: in a static
    initialiser, where there is no state, it stays and is reported."""
    src = ("#include <Python.h>\n"
           "static PyTypeObject *bases[] = {&PyProperty_Type, NULL};\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    return PyBool_FromLong(PyObject_IsInstance(o, (PyObject *)&PyProperty_Type) == 1);\n}\n"
           "static PyMethodDef methods[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    out, notes = _translate(src)
    assert "static PyTypeObject *bases[] = {&PyProperty_Type, NULL};" in out
    assert ("CystckObject_IsInstance(S, o, Cystck_FromPyObject(S, /* cystck-migrate: escape hatch */ "
            "(PyObject *)&PyProperty_Type)) == 1") in out
    reported = {(n.line, n.message.startswith("escape hatch")) for n in notes if "PyProperty_Type" in n.message}
    assert reported == {(2, False), (5, True)}
    assert translate.translate_source(out, "m.c") == out


def test_object_cast_of_a_handle_argument_in_a_macro_body():
    """In a macro body the casts rule does not reach, ``(PyObject *)(t)``
    passed for a handle parameter of a translated call goes; negative: the
    cast in an argument of a stock call without a counterpart stays."""
    src = ("#include <Python.h>\n"
           "#define ADD(m, t) do { if (PyModule_AddObjectRef((m), \"T\", (PyObject *)(t)) < 0) return -1; } while (0)\n"
           "#define LINE(o) PyFile_GetLine((PyObject *)(o), 0)\n"
           "static int f(PyObject *m, PyObject *t)\n{\n    ADD(m, t);\n    return 0;\n}\n")
    out, _ = _translate(src)
    assert "CystckModule_AddObjectRef(S, (m), \"T\", (t))" in out
    assert "PyFile_GetLine((PyObject *)(o), 0)" in out


def test_null_tests_of_a_handle_read_through_a_pointer():
    """``if (*out)``, ``!*out``, ``*out == NULL`` and ``*out = NULL`` on a
    ``PyObject **`` are handle tests and stores; negative: the same on a
    ``char **`` and a product ``n * k == 0`` stay."""
    src = ("#include <Python.h>\n"
           "static int get(PyObject *o, PyObject **out, char **s, int n, int k)\n{\n"
           "    *out = PyObject_GetAttrString(o, \"x\");\n"
           "    if (*out)\n        return 1;\n"
           "    if (!*out && *out == NULL && !*s && *s == NULL && n * k == 0)\n        *out = NULL;\n"
           "    return 0;\n}\n")
    out, _ = _translate(src)
    assert "    if (!Cystck_IsNull(*out))\n        return 1;\n" in out
    assert "if (Cystck_IsNull(*out) && Cystck_IsNull(*out) && !*s && *s == NULL && n * k == 0)\n" \
           "        *out = Cystck_NULL;\n" in out
