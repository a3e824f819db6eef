"""``case 23: return Py_INCREF(x), x;`` in a helper (cbor2's decoder, its
``undefined`` singleton): the comma-incref rule left an increment after
a case label alone, so the escape hatch kept ``Py_INCREF`` on what had
become a ``Cystck_Ref`` (memory corrupted: the suite crashed, SIGSEGV).
A case label is passed over as an unbraced header is:
``case 23: return Cystck_Dup(S, Cystck_deref(S, x));``.  Stock and
translated builds answer alike, release and debug."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>

static PyObject *cache;

static PyObject *
pick(int n)
{
    switch (n) {
        case 1: return Py_INCREF(Py_None), Py_None;
        case 2: return Py_INCREF(cache), cache;
        default: return PyLong_FromLong(n);
    }
}

static PyObject *
get(PyObject *self, PyObject *o)
{
    long n = PyLong_AsLong(o);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    return pick((int)n);
}

static PyMethodDef methods[] = {{"get", get, METH_O, NULL}, {NULL}};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "caseinc", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_caseinc(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    cache = PyUnicode_FromString("cached");
    if (cache == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''


def test_an_increment_after_a_case_label_is_ported():
    out = translate.translate_source(SRC, "caseinc.c")
    assert "case 1: return Cystck_Dup(S, Cystck_None);" in out
    assert "case 2: return Cystck_Dup(S, Cystck_deref(S, cache));" in out
    assert "Py_INCREF" not in out


def test_translation_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("caseinc", SRC, "print(repr([[m.get(i) for i in (1, 2, 3)] for _ in range(3)]))\n")
    assert want[0] == [None, "cached", 3]
