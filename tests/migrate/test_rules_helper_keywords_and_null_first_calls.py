"""Three shapes of sysv_ipc 1.2.0 (docs/gaps.md T47), each a build error of
the untouched translation before:

* ``PyArg_ParseTupleAndKeywords(args, kw, fmt, lists[i], ...)`` in a helper
  handed its caller's tuple and keyword dict (the entry points pass
  ``CystckTuple_FromArray(S, args, nargs)`` and a keyword dict): the call
  stayed stock on handles ("incompatible type for argument 1", 7 ``--check``
  errors).  parse-args makes it ``CystckArg_ParseTupleAndKeywordsObject(S,
  t, kw, ...)`` (a runtime function: the tuple's items get handles, the
  general keyword parser takes the dict), an ``O&`` converter translated
  as the entry points' are; a table of keyword lists, ``char
  *lists[3][3]``, is declared ``const char *`` as a single list is.
* ``NULL == f(x)``, one of the extension's functions returning a handle
  tested with the NULL first ("invalid operands to binary =="): null-handles
  tests it as ``f(x) == NULL``, ``Cystck_IsNull(f(S, x))``.
* ``Py_None == f(x)``: handle-identity compares the call's handle,
  ``Cystck_Is(S, Cystck_None, f(S, x))``.

The translation behaves as the stock build (results, exception types and
messages), in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import engine, translate

SOURCE = r'''#include <Python.h>

typedef struct { int is_none; long value; } Limit;

static int
convert_limit(PyObject *o, void *out)
{
    Limit *limit = (Limit *)out;
    if (o == Py_None) {
        limit->is_none = 1;
        return 1;
    }
    limit->value = PyLong_AsLong(o);
    if (limit->value == -1 && PyErr_Occurred())
        return 0;
    limit->is_none = 0;
    return 1;
}

enum KIND { KIND_BOTH = 0, KIND_DELTA };

static PyObject *
perform(enum KIND kind, PyObject *args, PyObject *keywords)
{
    Limit limit;
    short delta = 1;
    PyObject *tag = NULL;
    int rc = 0;
    char *lists[2][4] = {
        {"limit", "delta", "tag", NULL},
        {"delta", NULL},
    };
    limit.is_none = 1;
    limit.value = 0;
    switch (kind) {
    case KIND_BOTH:
        rc = PyArg_ParseTupleAndKeywords(args, keywords, "|O&hO:both", lists[KIND_BOTH],
                                         convert_limit, &limit, &delta, &tag);
        break;
    case KIND_DELTA:
        rc = PyArg_ParseTupleAndKeywords(args, keywords, "|h", lists[KIND_DELTA], &delta);
        break;
    }
    if (!rc)
        return NULL;
    return Py_BuildValue("(OlhO)", limit.is_none ? Py_True : Py_False, limit.value, delta,
                         tag == NULL ? Py_None : tag);
}

static PyObject *
both(PyObject *self, PyObject *args, PyObject *keywords)
{
    return perform(KIND_BOTH, args, keywords);
}

static PyObject *
delta(PyObject *self, PyObject *args, PyObject *keywords)
{
    return perform(KIND_DELTA, args, keywords);
}

static PyObject *
none_if_positive(PyObject *o)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    if (v > 0)
        Py_RETURN_NONE;
    return PyLong_FromLong(v);
}

static PyObject *
classify(PyObject *self, PyObject *o)
{
    if (NULL == none_if_positive(o))
        return NULL;
    if (Py_None == none_if_positive(o))
        return PyUnicode_FromString("positive");
    if (none_if_positive(o) != Py_None)
        return PyUnicode_FromString("not positive");
    return PyUnicode_FromString("unreached");
}

static PyMethodDef methods[] = {
    {"both", (PyCFunction)both, METH_VARARGS | METH_KEYWORDS, NULL},
    {"delta", (PyCFunction)delta, METH_VARARGS | METH_KEYWORDS, NULL},
    {"classify", classify, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "helperkw", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_helperkw(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_the_helpers_parser_and_the_null_first_tests_are_translated():
    out = translate.translate_source(SOURCE, "helperkw.c")
    assert "CystckArg_ParseTupleAndKeywordsObject(S, args, keywords, \"|O&hO:both\", lists[KIND_BOTH]," in out
    assert "CystckArg_ParseTupleAndKeywordsObject(S, args, keywords, \"|h\", lists[KIND_DELTA], &delta)" in out
    assert "const char *lists[2][4] = {" in out
    assert "if (Cystck_IsNull(none_if_positive(S, o)))" in out
    assert "if (Cystck_Is(S, Cystck_None, none_if_positive(S, o)))" in out
    assert "if (!Cystck_Is(S, none_if_positive(S, o), Cystck_None))" in out


def test_near_misses_are_left_alone():
    """A call returning no handle tested with the NULL first, or compared
    with a pointer that is no handle constant; a keyword parse of a tuple
    that is no handle (a C pointer) is reported, not rewritten."""
    rules = [r() for r in engine.all_rules() if r.name in ("null-handles", "handle-identity")]
    src = ("static int f(char *p, char *q)\n{\n"
           "    return NULL == strchr(p, 'x') || q == strchr(p, 'y');\n}\n")
    assert translate.translate_source(src, "near.c", rules) == src


def test_the_translation_behaves_like_the_stock_build(same_as_stock):
    script = ("print(repr([outcome(m.both), outcome(m.both, 5), outcome(m.both, None, 3, 'x'),"
              " outcome(m.both, limit=7, tag=[1]), outcome(m.both, delta=2),"
              " outcome(m.both, 'x'), outcome(m.both, 1, 2, 3, 4), outcome(m.both, nope=1),"
              " outcome(m.both, 1, limit=2), outcome(m.both, delta=1 << 20),"
              " outcome(m.delta), outcome(m.delta, 4), outcome(m.delta, delta=-3), outcome(m.delta, limit=1),"
              " outcome(m.classify, 3), outcome(m.classify, -3), outcome(m.classify, 'x')]))\n")
    got = same_as_stock("helperkw", SOURCE, script)
    assert got[0] == (True, 0, 1, None) and got[2] == (True, 0, 3, "x")
    assert got[14:16] == ["positive", "not positive"] and got[16][0] == "TypeError"
