"""``return (NULL);``, the parenthesised spelling some code bases use for
every return, is the same failure as ``return NULL;``: -1 from an entry
point and ``Cystck_NULL`` from a helper returning a handle.  It stayed
``Cystck_Return(S, (NULL))`` and ``return (NULL);``, which do not compile
(a pointer where a handle is expected).  So did ``return
(other_entry(self, NULL));``, an entry point's direct call of another,
whose push count became the value pushed.  Stock and translated builds
answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
checked(PyObject *o)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return (NULL);
    if (v < 0) {
        PyErr_SetString(PyExc_ValueError, "negative");
        return ((NULL));
    }
    return (PyLong_FromLong(2 * v));
}

static PyObject *
doubled(PyObject *self, PyObject *o)
{
    PyObject *r = checked(o);
    if (r == NULL)
        return (NULL);
    return (r);
}

static PyObject *
seven(PyObject *self, PyObject *unused)
{
    return (PyLong_FromLong(7));
}

static PyObject *
seven_again(PyObject *self, PyObject *args)
{
    return (seven(self, NULL));
}

static PyMethodDef methods[] = {
    {"doubled", doubled, METH_O, NULL},
    {"seven", seven, METH_NOARGS, NULL},
    {"seven_again", seven_again, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "parenret", NULL, -1, methods};

PyMODINIT_FUNC PyInit_parenret(void) { return PyModule_Create(&moddef); }
'''


def test_a_parenthesised_null_is_the_failure():
    out = translate.translate_source(SRC, "parenret.c")
    assert "(NULL)" not in out
    assert out.count("return Cystck_NULL;") == 2
    assert "return -1;" in out
    assert "return Cystck_Return(S, (r));" in out
    assert "    return seven(S, self);" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("parenret", SRC, "print(repr([outcome(m.doubled, a) for a in (4, -3, 'x', 2**70)]"
                                          " + [m.seven(), m.seven_again()]))\n")
    assert want[:2] == [8, ("ValueError", "negative")] and want[-2:] == [7, 7]
