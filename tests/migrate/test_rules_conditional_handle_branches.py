"""A NULL that is a branch of a conditional expression whose other branch
is a handle (``t = r ? PyTuple_Pack(2, a, b) : NULL;``, ``PyObject *u =
r ? NULL : h;``, a call's argument) is the null handle: it stayed
``NULL``, and C rejected the conditional ("type mismatch in conditional
expression").  A return's value is the returns rule's (an entry point's
null branch returns -1).  Stock and translated builds answer alike, in
release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
packed(PyObject *a, PyObject *b, int r)
{
    PyObject *t = r ? PyTuple_Pack(2, a, b) : NULL;
    PyObject *u = r > 1 ? NULL : t;
    if (u != NULL)
        return u;
    return t;
}

static PyObject *
pair(PyObject *self, PyObject *args)
{
    PyObject *a, *b, *t;
    int r;
    if (!PyArg_ParseTuple(args, "OOi", &a, &b, &r))
        return NULL;
    t = r > 0 ? PyTuple_Pack(2, a, b) : (r < 0 ? a : NULL);
    if (t == NULL)
        Py_RETURN_NONE;
    if (r < 0)
        Py_INCREF(t);
    return t;
}

static PyObject *
helper(PyObject *self, PyObject *args)
{
    PyObject *a, *b, *t;
    int r;
    if (!PyArg_ParseTuple(args, "OOi", &a, &b, &r))
        return NULL;
    t = packed(a, b, r);
    if (t == NULL)
        return PyUnicode_FromString("none");
    return t;
}

static PyObject *
length(PyObject *self, PyObject *args)
{
    PyObject *a, *b;
    int r;
    if (!PyArg_ParseTuple(args, "OOi", &a, &b, &r))
        return NULL;
    return PyLong_FromSsize_t(r > 0 ? PyObject_Length(r ? b : NULL) : PyObject_Length(r ? NULL : a));
}

static PyMethodDef methods[] = {
    {"pair", pair, METH_VARARGS, NULL},
    {"helper", helper, METH_VARARGS, NULL},
    {"length", length, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "condbranch", NULL, -1, methods};

PyMODINIT_FUNC PyInit_condbranch(void) { return PyModule_Create(&moddef); }
'''


def test_a_null_next_to_a_handle_is_the_null_handle():
    out = translate.translate_source(SRC, "condbranch.c")
    assert "Cystck_Object t = r ? CystckTuple_Pack(S, 2, a, b) : Cystck_NULL;" in out
    assert "Cystck_Object u = r > 1 ? Cystck_NULL : t;" in out
    assert "t = r > 0 ? CystckTuple_Pack(S, 2, a, b) : (r < 0 ? a : Cystck_NULL);" in out
    assert "CystckObject_Length(S, r ? b : Cystck_NULL) : CystckObject_Length(S, r ? Cystck_NULL : a)" in out


def test_a_null_next_to_a_c_value_stays():
    # negative: the other branch is a C pointer
    src = ("static const char *f(PyObject *o, const char *s, int r)\n{\n"
           "    const char *p = r ? s : NULL;\n    PyObject *q = o;\n    return p;\n}\n")
    out = translate.translate_source(src, "condc.c")
    assert "const char *p = r ? s : NULL;" in out


def test_a_null_next_to_a_stock_call_kept_stock_stays():
    # negative: PyObject_New has a counterpart of another signature, so a
    # macro's call of it stays stock, a PyObject *
    src = ("#include <Python.h>\nint fail(void);\n"
           "#define NEW_CHECKED(...) (fail() ? NULL : PyObject_New(__VA_ARGS__))\n"
           "static PyObject *f(PyObject *o) { return PyObject_Repr(o); }\n")
    out = translate.translate_source(src, "condstock.c")
    assert "(fail() ? NULL : PyObject_New(__VA_ARGS__))" in out, out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC, "condbranch.c")
    assert translate.translate_source(out, "condbranch.c") == out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("condbranch", SRC,
                         "print(repr([m.pair(1, 2, 1), m.pair(1, 2, 0), m.pair(1, 2, -1), m.helper(1, 2, 1),"
                         " m.helper(1, 2, 0), m.helper(3, 4, 2), m.length(1, [5, 6], 1), m.length([1, 2, 3], [5], 0)]))\n")
    assert want[:6] == [(1, 2), None, 1, (1, 2), "none", (3, 4)]
    assert want[6:] == [2, 3]
