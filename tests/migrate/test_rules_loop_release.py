"""loop-release: loops that make handles every iteration release, as the
next iteration starts, what the previous one made (Cystck_Mark /
Cystck_ReleaseSince), where no handle outlives its iteration; and the
incref rule's move of a lent result that another local takes over.
tests/runtime/test_big_loops.py runs both past the handle limit."""
from cystck.migrate import translate

HEAD = "#include <Python.h>\n"
MARK = "{ Cystck_Scope cystck_mark_ = Cystck_Mark(S);\n"


def _translate(src, path="m.c"):
    return translate.translate_source(HEAD + src, path)


def test_dict_loop_with_a_coerced_key_is_released_per_iteration():
    """The key replaced by a new object that Py_CLEAR releases at the end
    of the body, the value given to a helper of the extension."""
    out = _translate(
        "static int use(PyObject *v) { return PyObject_Size(v) < 0 ? -1 : 0; }\n"
        "static PyObject *f(PyObject *self, PyObject *d)\n{\n"
        "    Py_ssize_t pos = 0;\n    PyObject *key, *value, *coerced = NULL;\n"
        "    while (PyDict_Next(d, &pos, &key, &value)) {\n"
        "        if (!PyUnicode_Check(key)) {\n            coerced = PyObject_Str(key);\n"
        "            if (coerced == NULL)\n                return NULL;\n            key = coerced;\n        }\n"
        "        if (use(value) < 0) {\n            Py_XDECREF(coerced);\n            return NULL;\n        }\n"
        "        Py_CLEAR(coerced);\n    }\n    Py_RETURN_NONE;\n}\n")
    assert ("    " + MARK +
            "    while ((Cystck_ReleaseSince(S, &cystck_mark_), CystckDict_Next(S, d, &pos, &key, &value))) {\n"
            ) in out
    assert "        Cystck_Drop(S, coerced); coerced = Cystck_NULL;\n    } }\n" in out


def test_for_loop_with_an_item_local_to_the_body():
    out = _translate(
        "static PyObject *f(PyObject *self, PyObject *l)\n{\n    Py_ssize_t n = 0;\n"
        "    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {\n"
        "        PyObject *item = PyList_GET_ITEM(l, i);\n        n += PyObject_Size(item);\n    }\n"
        "    return PyLong_FromSsize_t(n);\n}\n")
    assert ("    " + MARK + "    for (Py_ssize_t i = 0; (Cystck_ReleaseSince(S, &cystck_mark_), "
            "i < CystckList_GET_SIZE(S, l)); i++) {\n"
            "        Cystck_Object item = CystckList_GET_ITEM(S, l, i);\n") in out
    assert "        n += CystckObject_Size(S, item);\n    } }\n" in out


def test_iterator_loop_and_a_macro_that_calls_a_helper():
    """item = PyIter_Next(it) in the condition is written every iteration;
    a macro whose replacement calls a function of the extension counts as
    that function."""
    out = _translate(
        "static int emit(PyObject *o) { return PyObject_Size(o) < 0 ? -1 : 0; }\n"
        "#define EMIT(v) emit(v)\n"
        "static PyObject *f(PyObject *self, PyObject *it)\n{\n    PyObject *item;\n"
        "    while ((item = PyIter_Next(it)) != NULL) {\n        int r = EMIT(item);\n"
        "        Py_DECREF(item);\n        if (r < 0)\n            return NULL;\n    }\n"
        "    if (PyErr_Occurred())\n        return NULL;\n    Py_RETURN_NONE;\n}\n")
    assert "while ((Cystck_ReleaseSince(S, &cystck_mark_), " in out
    assert out.count("Cystck_Mark(S)") == 1


def test_loops_whose_handles_outlive_the_iteration_are_left_alone():
    """Negative: a handle kept in an outer variable (read after the loop),
    given to a call that may keep it (a C++ container, an unknown
    function), stored through a pointer, a variable cleared at the end
    of the body that a continue skips, a slot-reusing call, a handle made
    in a for's increment, an output of the condition read after the
    loop: no mark, no release."""
    cases = [
        ("    PyObject *last = NULL;\n    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {\n"
         "        PyObject *item = PyList_GET_ITEM(l, i);\n        if (PyObject_IsTrue(item))\n"
         "            last = item;\n    }\n    return last ? PyObject_Repr(last) : NULL;\n"),
        ("    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {\n"
         "        PyObject *item = PyList_GET_ITEM(l, i);\n        keep(item);\n    }\n    Py_RETURN_NONE;\n"),
        ("    PyObject **out = slots;\n    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {\n"
         "        *out = PyList_GET_ITEM(l, i);\n        out++;\n    }\n    Py_RETURN_NONE;\n"),
        ("    PyObject *s = NULL;\n    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {\n"
         "        s = PyObject_Str(PyList_GET_ITEM(l, i));\n        if (s == NULL) return NULL;\n"
         "        if (PyUnicode_GET_LENGTH(s) == 0)\n            continue;\n        Py_CLEAR(s);\n    }\n"
         "    Py_XDECREF(s);\n    Py_RETURN_NONE;\n"),   # the last one's s, read after the loop
        ("    PyObject *item;\n    for (item = PyIter_Next(l); item != NULL; item = PyIter_Next(l)) {\n"
         "        if (PyObject_Size(PyObject_Str(item)) < 0) return NULL;\n        Py_DECREF(item);\n    }\n"
         "    Py_RETURN_NONE;\n"),
        ("    PyObject *key, *value;\n    Py_ssize_t pos = 0;\n"
         "    while (PyDict_Next(l, &pos, &key, &value)) {\n        if (PyObject_Size(PyObject_Str(value)) < 0)\n"
         "            break;\n    }\n    return PyObject_Repr(key);\n"),
    ]
    for body in cases:
        out = _translate("static PyObject *slots[4];\n"
                         "static PyObject *f(PyObject *self, PyObject *l)\n{\n" + body + "}\n")
        assert "Cystck_Mark" not in out and "Cystck_ReleaseSince" not in out, body
    into = translate.translate_source(
        '#include "Cystck.h"\n'
        "static int f(Cystck_State *S, Cystck_Object self, Cystck_Object d)\n{\n"
        "    Cystck_Object key = Cystck_NULL, value = Cystck_NULL;\n    Cystck_ssize_t pos = 0;\n"
        "    while (CystckDict_NextInto(S, d, &pos, &key, &value)) {\n"
        "        if (CystckObject_Size(S, CystckObject_Str(S, value)) < 0)\n            return -1;\n    }\n"
        "    return 0;\n}\n", "m.c")
    assert "Cystck_Mark" not in into
    cpp = _translate("#include <vector>\n"
                     "struct Item { PyObject *o; Item(PyObject *o) : o(o) {} };\n"
                     "static PyObject *f(PyObject *self, PyObject *d)\n{\n    std::vector<Item> items;\n"
                     "    PyObject *key, *value;\n    Py_ssize_t pos = 0;\n"
                     "    while (PyDict_Next(d, &pos, &key, &value)) {\n        items.push_back(Item(value));\n"
                     "    }\n    Py_RETURN_NONE;\n}\n", "m.cpp")
    assert "Cystck_Mark" not in cpp


def test_lent_result_taken_over_by_another_local_moves_its_handle():
    """y = PyDict_SetDefault(...); Py_INCREF(y); Py_DECREF(x); x = y;
    with y unused afterwards: x takes y's handle (no Cystck_Dup, which
    would live until the call returns)."""
    src = ("static int add(PyObject *shared, PyObject *d, PyObject *key, PyObject *value)\n{\n"
           "    Py_INCREF(key);\n"
           "    PyObject *shared_key = PyDict_SetDefault(shared, key, key);\n"
           "    if (shared_key == NULL) {\n        Py_DECREF(key);\n        return -1;\n    }\n"
           "    Py_INCREF(shared_key);\n    Py_DECREF(key);\n    key = shared_key;\n"
           "    int rc = PyDict_SetItem(d, key, value);\n    Py_DECREF(key);\n    return rc;\n}\n")
    out = _translate(src)
    assert "    Cystck_Drop(S, key);\n    key = shared_key;\n" in out
    assert "Cystck_Dup" not in out.split("SetDefault")[-1].split("CystckDict_SetItem")[0]


def test_lent_result_still_read_or_not_lent_keeps_its_own_handle():
    """Negative: y read after x took it over (x's release would drop it),
    or y a new reference of its own: x gets a handle of its own."""
    read_after = _translate(
        "static int add(PyObject *shared, PyObject *d, PyObject *key)\n{\n    PyObject *k;\n"
        "    PyObject *shared_key = PyDict_SetDefault(shared, key, key);\n"
        "    if (shared_key == NULL)\n        return -1;\n"
        "    Py_INCREF(shared_key);\n    k = shared_key;\n    Py_DECREF(k);\n"
        "    return PyDict_SetItem(d, shared_key, Py_None);\n}\n")
    assert "k = Cystck_Dup(S, shared_key);" in read_after
    new_ref = _translate(
        "static int add(PyObject *d, PyObject *key)\n{\n"
        "    PyObject *s = PyObject_Str(key);\n    if (s == NULL)\n        return -1;\n"
        "    Py_INCREF(s);\n    Py_DECREF(key);\n    key = s;\n    Py_DECREF(s);\n"
        "    int rc = PyDict_SetItem(d, key, Py_None);\n    Py_DECREF(key);\n    return rc;\n}\n")
    assert "key = Cystck_Dup(S, s);" in new_ref


def test_analysis_reports_only_the_loops_left_unreleased():
    """A loop released per iteration is no loop-overflow; one the rule
    left alone (its item kept after the loop) still is."""
    from cystck.migrate import analysis
    src = (HEAD + "static PyObject *f(PyObject *self, PyObject *l)\n{\n    PyObject *last = NULL;\n"
           "    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {\n"
           "        PyObject *item = PyList_GET_ITEM(l, i);\n        if (PyObject_Size(item) < 0)\n"
           "            return NULL;\n    }\n"
           "    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {\n"
           "        PyObject *item = PyList_GET_ITEM(l, i);\n        last = item;\n    }\n"
           "    return PyObject_Repr(last);\n}\n")
    unit = translate.translate_files({"m.c": src})["m.c"]
    assert unit.text.count("Cystck_Mark(S)") == 1
    lines = [n.line for n in analysis.analyse(unit) if n.kind == "loop-overflow"]
    assert lines == [unit.text[:unit.text.index("        last = item;")].count("\n") - 1]


def test_fetched_value_read_keeps_fetch_and_restore():
    """err-fetch-restore: a value read as PyErr_Fetch gave it (maybe not
    normalized) keeps the counterparts CystckErr_Fetch/CystckErr_Restore;
    read after PyErr_NormalizeException, or only released, the exception
    is taken as one object."""
    def fetch(middle):
        return _translate("static PyObject *f(PyObject *self, PyObject *o)\n{\n    PyObject *t, *v, *tb, *r;\n"
                          "    PyErr_Fetch(&t, &v, &tb);\n" + middle +
                          "    PyErr_Restore(t, v, tb);\n    return r;\n}\n")
    read = fetch("    r = v == NULL ? NULL : PyObject_Repr(v);\n")
    assert "    CystckErr_Fetch(S, &t, &v, &tb);\n" in read and "CystckErr_Restore(S, t, v, tb);" in read
    normalized = fetch("    PyErr_NormalizeException(&t, &v, &tb);\n    r = PyObject_Repr(v);\n")
    assert "    v = CystckErr_GetRaisedException(S);\n    r = CystckObject_Repr(S, v);\n" in normalized
    assert "cystck_migrate_restore(S, v);" in normalized


def test_loop_that_only_raises_is_left_alone():
    """Negative: PyErr_Format returns the null handle and makes none; a
    loop with nothing else gets no mark."""
    out = _translate("static PyObject *f(PyObject *self, PyObject *o)\n{\n    int i;\n"
                     "    for (i = 0; i < 10; i++) {\n        if (g(i) < 0)\n"
                     "            return PyErr_Format(PyExc_ValueError, \"bad %d\", i);\n    }\n"
                     "    Py_RETURN_NONE;\n}\n")
    assert "CystckErr_Format(S, " in out and "Cystck_Mark" not in out


def test_reference_taken_by_a_declared_alias_is_a_handle_of_its_own():
    """Py_INCREF(y); PyObject *k = y; ... Py_DECREF(k); with y used after:
    k gets a handle of its own, as with k = y; (releasing k must not
    release y's handle)."""
    out = _translate("static int f(PyObject *d, PyObject *key)\n{\n"
                     "    PyObject *y = PyDict_GetItem(d, key);\n    if (y == NULL)\n        return -1;\n"
                     "    Py_INCREF(y);\n    PyObject *k = y;\n    Py_DECREF(k);\n"
                     "    return PyDict_SetItem(d, y, Py_None);\n}\n")
    assert "    Cystck_Object k = Cystck_Dup(S, y);\n    Cystck_Drop(S, k);\n" in out


# A parser's and an escaper's per-character loops (UltraJSON's decode_string
# and Buffer_EscapeStringValidated): the helper that records an error returns
# an object (always NULL), and is called only on the way out.
_SET_ERROR = ("static PyObject *set_error(const char **err, const char *m)\n"
              "{\n    *err = m;\n    return NULL;\n}\n")


def test_loop_whose_maker_calls_all_return_gets_no_mark():
    """Before: `return set_error(...)` and `set_error(...); return -1;` in a
    loop over characters made the loop take a mark and release it at every
    character.  After: those calls run once per run of the loop at most;
    the loop is translated as it stands."""
    out = _translate(_SET_ERROR +
                     "static PyObject *parse(const char *s, const char **err)\n{\n"
                     "    for (;;) {\n        switch (*s) {\n"
                     "        case '\\0': return set_error(err, \"unterminated\");\n"
                     "        case '\"': return PyUnicode_FromString(s);\n"
                     "        default: s++;\n        }\n    }\n}\n"
                     "static int escape(const char *s, const char **err)\n{\n    int n = 0;\n"
                     "    while (*s) {\n        if ((unsigned char) *s >= 0xf8) {\n"
                     "            set_error(err, \"bad byte\");\n            return -1;\n        }\n"
                     "        n++;\n        s++;\n    }\n    return n;\n}\n")
    assert "return set_error(S, err, \"unterminated\");" in out
    assert "            set_error(S, err, \"bad byte\");\n            return -1;\n" in out
    assert "    for (;;) {\n" in out and "    while (*s) {\n" in out
    assert "Cystck_Mark" not in out and "Cystck_ReleaseSince" not in out


def test_loop_whose_maker_call_only_breaks_keeps_its_mark():
    """Negative: `f(...); break;` may leave only a switch, and a maker
    called in the middle of the body runs every iteration: those loops
    still release per iteration."""
    out = _translate(_SET_ERROR +
                     "static int scan(const char *s, const char **err)\n{\n    int n = 0;\n"
                     "    while (*s) {\n        switch (*s) {\n"
                     "        case 'x': set_error(err, \"x\"); break;\n        default: n++;\n        }\n"
                     "        s++;\n    }\n    return n;\n}\n"
                     "static int count(PyObject *l)\n{\n    int n = 0;\n"
                     "    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {\n"
                     "        PyObject *s = PyObject_Str(PyList_GET_ITEM(l, i));\n"
                     "        if (s == NULL)\n            return -1;\n        n += PyUnicode_GET_LENGTH(s);\n"
                     "        Py_DECREF(s);\n    }\n    return n;\n}\n")
    assert out.count("Cystck_Mark(S)") == 2
    assert "while ((Cystck_ReleaseSince(S, &cystck_mark_), *s))" in out
