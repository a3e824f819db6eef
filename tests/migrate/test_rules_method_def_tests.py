"""A builtin function's C function compared with one of the extension's
method implementations (``PyCFunction_GetFunction(f) == (PyCFunction)impl``,
a fast path for the extension's own function) becomes
``CystckCFunction_IsDef(S, f, &impl_def)``: after the port a function object
holds the definition's trampoline, so the stock comparison, kept through
the escape hatch, was always false.  The stock and translated builds give
the same answers, in release and with CYSTCK_DEBUG=1."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *twice(PyObject *self, PyObject *o);
static PyObject *self_(PyObject *self, PyObject *unused);

/* which of this module's functions is f? a comparison before the table */
static PyObject *
which(PyObject *self, PyObject *f)
{
    if (!PyCFunction_Check(f))
        return PyUnicode_FromString("no function");
    if (PyCFunction_GetFunction(f) == (PyCFunction)twice)
        return PyUnicode_FromString("twice");
    if ((PyCFunction)(void (*)(void))self_ == PyCFunction_GET_FUNCTION(f))
        return PyUnicode_FromString("self_");
    if (PyCFunction_GetFunction(f) != (PyCFunction)PyObject_Repr)
        return PyUnicode_FromString("other");
    return PyUnicode_FromString("never");
}

static PyObject *
twice(PyObject *self, PyObject *o)
{
    return PyNumber_Add(o, o);
}

static PyObject *
self_(PyObject *self, PyObject *unused)
{
    return Py_NewRef(self);
}

/* unchecked: PyCFunction_GetFunction's SystemError for no function */
static PyObject *
is_twice(PyObject *self, PyObject *f)
{
    int r = PyCFunction_GetFunction(f) == (PyCFunction)twice;
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return PyUnicode_FromString("error");
    }
    return PyBool_FromLong(r);
}

static PyMethodDef methods[] = {
    {"which", which, METH_O, NULL},
    {"twice", twice, METH_O, NULL},
    {"double", twice, METH_O, NULL},
    {"self_", self_, METH_NOARGS, NULL},
    {"is_twice", is_twice, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "cfuncs", NULL, -1, methods};

PyMODINIT_FUNC PyInit_cfuncs(void) { return PyModule_Create(&moddef); }
'''

SCRIPT = r"""
fs = [m.twice, m.double, m.self_, m.which, len, repr, 3, lambda x: x]
print([m.which(f) for f in fs] + [m.is_twice(f) for f in fs])
"""
EXPECTED = ['twice', 'twice', 'self_', 'other', 'other', 'other', 'no function', 'no function',
            True, True, False, False, False, False, 'error', 'error']


def test_comparisons_with_a_method_test_its_definitions():
    out = translate.translate_source(SRC)
    # a definition that comes later is declared ahead, once
    assert out.count("static CystckDef twice_def;\nstatic CystckDef twice__double_def;\n"
                     "static CystckDef self__def;\nstatic int\nwhich(") == 1
    assert out.count("static CystckDef twice_def;") == 1
    assert "if (CystckCFunction_IsDef(S, f, &twice_def) || CystckCFunction_IsDef(S, f, &twice__double_def))" in out
    assert ("int r = (CystckCFunction_IsDef(S, f, &twice_def) || CystckCFunction_IsDef(S, f, &twice__double_def));"
            in out)
    assert "if (CystckCFunction_IsDef(S, f, &self__def))" in out
    # negative: a stock function is no method of the extension
    assert "PyCFunction_GetFunction(Cystck_AsPyObject(S, f)) != (PyCFunction)PyObject_Repr" in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


def test_a_method_this_file_does_not_define_is_reported():
    # its table is in another file: the comparison stays, reported
    src = ("#include <Python.h>\nextern PyObject *helper(PyObject *, PyObject *);\n"
           "static PyObject *is_helper(PyObject *self, PyObject *f)\n{\n"
           "    return PyBool_FromLong(PyCFunction_GetFunction(f) == (PyCFunction)helper);\n}\n"
           "static PyMethodDef methods[] = {\n    {\"is_helper\", is_helper, METH_O, NULL},\n    {NULL}\n};\n")
    other = ("#include <Python.h>\nPyObject *helper(PyObject *self, PyObject *o) { return Py_NewRef(o); }\n"
             "static PyMethodDef more[] = {\n    {\"helper\", helper, METH_O, NULL},\n    {NULL}\n};\n")
    unit = translate.translate_files({"a.c": src, "b.c": other})["a.c"]
    assert "CystckCFunction_IsDef" not in unit.text
    assert [n.rule for n in unit.finish_notes() if "compared with the method helper" in n.message] == \
        ["method-def-tests"]


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("cfuncs", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_answers_as_the_stock_build(built, run_script, debug):
    # before: the comparisons stayed stock and were always false
    assert run_script(SCRIPT, built[1], debug) == EXPECTED
