"""One C function listed in a method table under two calling conventions
(``__copy__`` METH_NOARGS and ``__deepcopy__`` METH_O, the second
argument ignored): the function keeps the first entry's signature and the
other entry calls it through a forwarder; before, both
``CYSTCK_DEF_METH`` lines declared it, with two signatures (bitarray
3.12.3, 1 --check error).  The stock and translated builds answer alike."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
same(PyObject *self)
{
    return Py_BuildValue("(Oi)", self, 0);
}

static PyObject *
with_arg(PyObject *self, PyObject *arg)
{
    return Py_BuildValue("(Oi)", self, arg == NULL);
}

static PyMethodDef methods[] = {
    {"copy", (PyCFunction) same, METH_NOARGS, NULL},
    {"deepcopy", (PyCFunction) same, METH_O, NULL},
    {"extra", (PyCFunction) same, METH_VARARGS, NULL},
    {"one", (PyCFunction) with_arg, METH_O, NULL},
    {"none", (PyCFunction) with_arg, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "twoconv", NULL, -1, methods};

PyMODINIT_FUNC PyInit_twoconv(void) { return PyModule_Create(&moddef); }
'''


def test_the_other_convention_goes_through_a_forwarder():
    out = translate.translate_source(SRC, "twoconv.c")
    assert "CYSTCK_DEF_METH(same_def, \"copy\", same, CYSTCK_NOARGS, NULL)" in out
    assert ("static int same__deepcopy(Cystck_State *S, Cystck_Object self, Cystck_Object arg)\n"
            "{\n    return same(S, self);\n}") in out
    assert "return same(S, self);\n}" in out.split("same__extra(")[1]
    assert ("static int with_arg__none(Cystck_State *S, Cystck_Object self)\n"
            "{\n    return with_arg(S, self, Cystck_NULL);\n}") in out


def test_one_convention_per_function_has_no_forwarder():
    src = SRC.replace('    {"deepcopy", (PyCFunction) same, METH_O, NULL},\n', "")
    src = src.replace('    {"extra", (PyCFunction) same, METH_VARARGS, NULL},\n', "")
    src = src.replace('    {"none", (PyCFunction) with_arg, METH_NOARGS, NULL},\n', "")
    out = translate.translate_source(src, "twoconv.c")
    assert "__" not in out.split("static CystckDef")[0].split("CYSTCK_DEF_METH(")[1]


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    assert same_as_stock("twoconv", SRC, "print(repr([m.copy() == (m, 0), m.deepcopy({}) == (m, 0),"
                         " m.extra(1, 2) == (m, 0), m.one(5) == (m, 0), m.none() == (m, 1)]))\n") == [True] * 5
