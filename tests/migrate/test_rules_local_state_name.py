"""A local variable or parameter named ``S`` in a function that gets the
state: the translation adds ``Cystck_State *S`` as the first parameter
and passes ``S`` to every API call, so ``unsigned long H, M, S;`` was
redeclared (a compile error), and a parameter named ``S`` became a second
``S`` in the list.  Rule ``local-state-name`` renames such a variable
``S_`` in the function (with more underscores if that is taken), as
``macro-state-param`` does for a macro parameter.  Stock and translated
builds answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static int S_seen = 0;   /* a global whose name starts with S */

static PyObject *
seconds(PyObject *self, PyObject *args)
{
    unsigned long H, M, S, total;
    if (!PyArg_ParseTuple(args, "kkk", &H, &M, &S))
        return NULL;
    total = H * 3600 + M * 60 + S;   /* "S" in a comment */
    S_seen++;
    return Py_BuildValue("(ks)", total, "S");
}

static PyObject *
scaled(PyObject *o, long S)
{
    return PyNumber_Multiply(o, PyLong_FromLong(S));
}

static PyObject *
twice(PyObject *self, PyObject *o)
{
    for (long S = 0; S < 1; S++)
        o = scaled(o, 2);
    return o;
}

static PyMethodDef methods[] = {
    {"seconds", seconds, METH_VARARGS, NULL},
    {"twice", twice, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "localstate", NULL, -1, methods};

PyMODINIT_FUNC PyInit_localstate(void) { return PyModule_Create(&moddef); }
'''


def test_the_variable_is_renamed():
    out = translate.translate_source(SRC, "localstate.c")
    assert "unsigned long H, M, S_, total;" in out
    assert "&M, &S_)" in out and "M * 60 + S_;" in out
    assert '"S" in a comment' in out and '"(ks)", total, "S")' in out
    assert "S_seen++;" in out
    assert "scaled(Cystck_State *S, Cystck_Object o, long S_)" in out
    assert "for (long S_ = 0; S_ < 1; S_++)" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("localstate", SRC, "print(repr([m.seconds(1, 2, 3), m.twice(21), m.twice('ab')]))\n")
    assert want == [(3723, "S"), 42, "abab"]
