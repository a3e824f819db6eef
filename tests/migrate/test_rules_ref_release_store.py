"""A reference (a global, a member of a struct a global holds) released
and then stored into, ``Py_XDECREF(g); ...; g = v;``, replaces its object
(the ref-release-store rule): the old reference is released once the new
one is stored.  Before, the release was dropped, so every store kept the
object it replaced alive (CYSTCK_DEBUG=1 named them at exit as references
never released).  A release with no store after it stays dropped (the
reference is the extension's, whatever the stock code balanced).  The
translation builds and behaves as the stock build, objects' reference
counts included, in release and with CYSTCK_DEBUG=1."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *cache, *last, *opt;
static long stores;

typedef struct { PyObject *cb; int n; } holder;
static holder H;

typedef struct { PyObject *value; } slot_t;
static slot_t table[4];

static PyObject *
set_cache(PyObject *self, PyObject *v)
{
    Py_XDECREF(cache);
    Py_INCREF(v);
    cache = v;
    Py_RETURN_NONE;
}

/* statements between the release and the store */
static PyObject *
set_cb(PyObject *self, PyObject *v)
{
    Py_ssize_t n;
    Py_XDECREF(H.cb);
    n = PyObject_Length(v);
    if (n < 0)
        PyErr_Clear();
    H.n = (int)n;
    stores++;
    H.cb = v;
    Py_INCREF(v);
    Py_RETURN_NONE;
}

static PyObject *
put(PyObject *self, PyObject *args)
{
    int i;
    PyObject *v;
    if (!PyArg_ParseTuple(args, "iO", &i, &v))
        return NULL;
    if (i < 0 || i >= 4) {
        PyErr_SetString(PyExc_IndexError, "slot");
        return NULL;
    }
    Py_XDECREF(table[i].value);
    Py_INCREF(v);
    table[i].value = v;
    Py_RETURN_NONE;
}

/* a store whose value is tested */
static PyObject *
remember(PyObject *self, PyObject *o)
{
    Py_XDECREF(last);
    if (!(last = PyObject_Repr(o)))
        return NULL;
    Py_INCREF(last);
    return last;
}

/* a store in each branch */
static PyObject *
set_opt(PyObject *self, PyObject *v)
{
    Py_XDECREF(opt);
    if (v != Py_None) {
        Py_INCREF(v);
        opt = v;
    }
    else
        opt = NULL;
    Py_RETURN_NONE;
}

/* a reference taken for the call and released: no store follows */
static PyObject *
call_cache(PyObject *self, PyObject *arg)
{
    PyObject *r;
    if (cache == NULL)
        Py_RETURN_NONE;
    Py_INCREF(cache);
    r = PyObject_CallOneArg(cache, arg);
    Py_DECREF(cache);
    return r;
}

static PyObject *
drop_all(PyObject *self, PyObject *unused)
{
    int i;
    Py_XDECREF(cache);
    cache = NULL;
    Py_XDECREF(H.cb);
    H.cb = NULL;
    Py_CLEAR(last);
    for (i = 0; i < 4; i++)
        Py_CLEAR(table[i].value);
    Py_RETURN_NONE;
}

static PyObject *
get(PyObject *self, PyObject *unused)
{
    return Py_BuildValue("OOOOl", cache ? cache : Py_None, H.cb ? H.cb : Py_None,
                         table[1].value ? table[1].value : Py_None, opt ? opt : Py_None, stores);
}

static PyMethodDef methods[] = {
    {"set_cache", set_cache, METH_O, NULL},
    {"set_cb", set_cb, METH_O, NULL},
    {"put", put, METH_VARARGS, NULL},
    {"remember", remember, METH_O, NULL},
    {"set_opt", set_opt, METH_O, NULL},
    {"call_cache", call_cache, METH_O, NULL},
    {"drop_all", drop_all, METH_NOARGS, NULL},
    {"get", get, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "relstore", NULL, -1, methods};

PyMODINIT_FUNC PyInit_relstore(void) { return PyModule_Create(&moddef); }
'''

# Each store of o replaces o itself or another object: whatever the count,
# o holds one reference from the extension at most, none once dropped.
SCRIPT = r"""
out = []
o, p, k = object(), object(), "k" * 30

def counts():
    return [sys.getrefcount(o), sys.getrefcount(p), sys.getrefcount(k)]

base = counts()

def held():
    return [n - b for n, b in zip(counts(), base)]

for f in (m.set_cache, m.set_cb, lambda v: m.put(1, v), m.set_opt):
    for i in range(20):
        f(o); f(p)
    out.append(held())
    f(None)
    out.append(held())
m.set_cache(len)
out.append([m.call_cache("abc"), m.call_cache([1, 2])])

class R:
    def __repr__(self):
        return k

for i in range(10):
    m.remember(R())
out.append(held())
try:
    m.remember(type("Bad", (), {"__repr__": lambda self: 1 / 0})())
except ZeroDivisionError:
    out.append(held())
m.drop_all()
out.append(m.get())
print(out)
"""
EXPECTED = [[0, 1, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0], [3, 2],
            [0, 0, 1], [0, 0, 0], (None, None, None, None, 41)]


def test_a_release_then_a_store_replaces_the_reference():
    out = translate.translate_source(SRC)
    assert ("    { Cystck_Object new_ = v; Cystck_Ref old_ = cache; cache = cystck_migrate_xref(S, new_); "
            "Cystck_unref(S, old_); }\n") in out
    # statements between: the old reference goes once the new one is stored
    assert ("    stores++;\n    { Cystck_Object new_ = v; Cystck_Ref old_ = H.cb; H.cb = cystck_migrate_xref(S, new_); "
            "Cystck_unref(S, old_); }\n") in out
    assert "Cystck_Ref old_ = table[i].value; table[i].value = cystck_migrate_xref(S, new_);" in out
    # the value is tested, or stored in a nested block: released where it was
    assert ("    Cystck_unref(S, last); last = NULL;\n"
            "    if (!(last = cystck_migrate_xref(S, CystckObject_Repr(S, o))))\n") in out
    assert "    Cystck_unref(S, opt); opt = NULL;\n    if (!Cystck_Is(S, v, Cystck_None)) {\n" in out
    # a store of NULL clears
    assert "    Cystck_unref(S, cache); cache = NULL;\n" in out
    assert "    Cystck_unref(S, H.cb); H.cb = NULL;\n" in out


def test_a_release_with_no_store_after_it_stays_dropped():
    out = translate.translate_source(SRC)
    # negative: the reference taken for the call is the extension's own
    assert ("    Cystck_Object r = Cystck_NULL;\n" in out or "    Cystck_Object r;\n" in out)
    assert "    r = CystckObject_CallOneArg(S, Cystck_deref(S, cache), arg);\n    return Cystck_Return(S, r);" in out
    assert out.count("Cystck_unref(S, cache)") == 1


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


@pytest.mark.parametrize("src, what", [
    # the index changes between: another element is stored
    ("    Py_XDECREF(table[i].value);\n    i++;\n    Py_INCREF(v);\n    table[i].value = v;\n", "index"),
    # read between: the store would pair with the wrong object
    ("    Py_XDECREF(cache);\n    n = PyObject_Length(cache);\n    cache = v;\n", "read"),
    # a call between, the store no statement of the release's block
    ("    Py_XDECREF(cache);\n    n = PyObject_Length(v);\n    if (n)\n        cache = v;\n", "call"),
])
def test_releases_it_cannot_pair_stay_dropped(src, what):
    text = ("static PyObject *cache;\ntypedef struct { PyObject *value; } slot_t;\nstatic slot_t table[4];\n"
            "static PyObject *f(PyObject *v, int i)\n{\n    Py_ssize_t n = 0;\n" + src + "    return NULL;\n}\n")
    out = translate.translate_source(text)
    assert "Cystck_unref" not in out and "Py_XDECREF" not in out, what


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("relstore", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    # before: each store kept the replaced object (o held 20 references)
    assert run_script(SCRIPT, built[1], debug) == EXPECTED
