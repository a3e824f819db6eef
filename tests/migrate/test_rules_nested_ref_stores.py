"""A store into a reference whose value is a store into another
reference, ``g1 = (g2 = f(x))`` (globals, members of a struct a global
holds), stores both: the inner store is translated as a store whose value
is used (``(g2 = cystck_migrate_xref(S, ...), g2 ? Cystck_deref(S, g2) :
Cystck_NULL)``) inside the outer one, each reference taking a reference of
its own.  Before, the inner store stayed a stock assignment of a handle to
a ``Cystck_Ref`` inside ``Cystck_ref(S, (g2 = ...))``, which does not
compile.  A nested store into a local handle is valid as it is and stays.
The translation builds and behaves as the stock build, in release and with
CYSTCK_DEBUG=1."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *g1, *g2, *g3;

typedef struct { PyObject *a; PyObject *b; } pair_t;
static pair_t P;

static PyObject *
both(PyObject *self, PyObject *o)
{
    Py_CLEAR(g1);
    Py_CLEAR(g2);
    g1 = (g2 = PyObject_Repr(o));
    if (g1 == NULL)
        return NULL;
    Py_INCREF(g1);
    Py_RETURN_NONE;
}

static PyObject *
pair(PyObject *self, PyObject *o)
{
    Py_CLEAR(P.a);
    Py_CLEAR(P.b);
    if (!(P.a = (P.b = PyObject_Str(o))))
        return NULL;
    Py_INCREF(P.a);
    Py_RETURN_NONE;
}

/* a nested store into a local handle: valid as it is */
static PyObject *
local(PyObject *self, PyObject *o)
{
    PyObject *h;
    Py_CLEAR(g3);
    g3 = (h = PyObject_Repr(o));
    if (g3 == NULL)
        return NULL;
    return PyLong_FromSsize_t(PyObject_Length(h));
}

static PyObject *
clear(PyObject *self, PyObject *unused)
{
    Py_CLEAR(g1);
    Py_CLEAR(g2);
    Py_CLEAR(g3);
    Py_CLEAR(P.a);
    Py_CLEAR(P.b);
    Py_RETURN_NONE;
}

static PyObject *
get(PyObject *self, PyObject *unused)
{
    return Py_BuildValue("OOOO", g1 ? g1 : Py_None, g2 ? g2 : Py_None, P.a ? P.a : Py_None,
                         P.b ? P.b : Py_None);
}

static PyMethodDef methods[] = {
    {"both", both, METH_O, NULL},
    {"pair", pair, METH_O, NULL},
    {"local", local, METH_O, NULL},
    {"clear", clear, METH_NOARGS, NULL},
    {"get", get, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "nestedrefs", NULL, -1, methods};

PyMODINIT_FUNC PyInit_nestedrefs(void) { return PyModule_Create(&moddef); }
'''

SCRIPT = r"""
def churn():
    return [str(i) for i in range(1000)]

k = "k" * 30
base = sys.getrefcount(k)

class R:
    def __repr__(self):
        return k
    __str__ = __repr__

class Bad:
    def __repr__(self):
        return 1 / 0
    __str__ = __repr__

out = []
m.both(12); m.pair(5); churn()
out.append(m.get())
for i in range(10):
    m.both(R()); m.pair(R())
churn()
out.append(sys.getrefcount(k) - base)
for f in (m.both, m.pair):
    try:
        f(Bad())
    except ZeroDivisionError:
        out.append("zero")
out.append(m.get())
out.append(m.local([1, 2]))
m.clear()
out.append(sys.getrefcount(k) - base)
print(out)
"""
EXPECTED = [("12", "12", "5", "5"), 4, "zero", "zero", (None, None, None, None), 6, 0]


def test_a_store_into_a_reference_of_a_store_into_another():
    out = translate.translate_source(SRC)
    assert ("    g1 = Cystck_ref(S, (g2 = cystck_migrate_xref(S, CystckObject_Repr(S, o)), "
            "g2 ? Cystck_deref(S, g2) : Cystck_NULL));\n") in out
    assert ("    if (!(P.a = cystck_migrate_xref(S, (P.b = cystck_migrate_xref(S, CystckObject_Str(S, o)), "
            "P.b ? Cystck_deref(S, P.b) : Cystck_NULL))))\n") in out


def test_a_nested_store_into_a_local_handle_stays():
    out = translate.translate_source(SRC)
    # negative: a local handle's store is a value as it is
    assert "    g3 = Cystck_ref(S, (h = CystckObject_Repr(S, o)));\n" in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    # before: Cystck_ref(S, (g2 = ...)) stored a handle into a Cystck_Ref
    return stock_and_translated("nestedrefs", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    assert run_script(SCRIPT, built[1], debug) == EXPECTED
