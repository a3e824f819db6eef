"""A plain struct that a global holds (``static holder H;``, an array of
them, a pointer to one, ``static struct { PyObject *last; } memo;``)
outlives the call, so its object members are references (``Cystck_Ref``),
stored and read as the global-refs rule does for a ``static PyObject *``:
a handle stored there would outlive its frame.  A store into a reference
whose value is tested or used (``if (!(g = f(x)))``, ``x = g = y``) stores
the null reference for a null value, and ``Py_XSETREF`` of a reference
releases the old one.  The translation builds and behaves as the stock
build, in release and with CYSTCK_DEBUG=1."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject *cb; int n; } holder;
static holder H;

typedef struct { PyObject *value; long hits; } slot_t;
static slot_t table[4];

typedef struct { PyObject *name; int id; } entry_t;
static entry_t entries_storage;
static entry_t *current = &entries_storage;

static struct { PyObject *last; int calls; } memo;

typedef struct { PyObject *tmp; } scratch;

typedef struct { PyObject *tag; } tagbox;
typedef struct { int k; tagbox box; } outer_t;
static outer_t O;

static PyObject *g_mod, *g_str, *g_attr;

static PyObject *
set_cb(PyObject *self, PyObject *cb)
{
    Py_XDECREF(H.cb);
    Py_INCREF(cb);
    H.cb = cb;
    H.n++;
    Py_RETURN_NONE;
}

static PyObject *
call_cb(PyObject *self, PyObject *arg)
{
    if (H.cb == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "no callback");
        return NULL;
    }
    return PyObject_CallOneArg(H.cb, arg);
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
    Py_INCREF(v);
    Py_XSETREF(table[i].value, v);
    table[i].hits++;
    Py_RETURN_NONE;
}

static PyObject *
get(PyObject *self, PyObject *arg)
{
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= 4 || !table[i].value)
        Py_RETURN_NONE;
    Py_INCREF(table[i].value);
    return table[i].value;
}

static PyObject *
set_name(PyObject *self, PyObject *name)
{
    PyObject *old = current->name;
    Py_INCREF(name);
    current->name = name;
    Py_XDECREF(old);
    current->id++;
    Py_RETURN_NONE;
}

static PyObject *
get_name(PyObject *self, PyObject *unused)
{
    if (!current->name)
        Py_RETURN_NONE;
    return Py_BuildValue("Oi", current->name, current->id);
}

static PyObject *
remember(PyObject *self, PyObject *o)
{
    scratch s;
    Py_XDECREF(memo.last);
    if (!(memo.last = PyObject_Repr(o)))
        return NULL;
    memo.calls++;
    s.tmp = memo.last;
    return Py_BuildValue("Oi", s.tmp, memo.calls);
}

static PyObject *
recall(PyObject *self, PyObject *unused)
{
    if (memo.last == NULL)
        Py_RETURN_NONE;
    Py_INCREF(memo.last);
    return memo.last;
}

static PyObject *
load(PyObject *self, PyObject *name)
{
    PyObject *x;
    if (g_mod == NULL && (g_mod = PyImport_ImportModule("math")) == NULL)
        return NULL;
    Py_XDECREF(g_str);
    if (!(g_str = PyObject_Str(name)))
        return NULL;
    Py_XDECREF(g_attr);
    x = g_attr = PyObject_GetAttr(g_mod, g_str);
    if (x == NULL)
        return NULL;
    Py_INCREF(x);
    return x;
}

static PyObject *
tag(PyObject *self, PyObject *o)
{
    PyObject *old = O.box.tag;
    if (o != Py_None) {
        Py_INCREF(o);
        O.box.tag = o;
        O.k++;
        Py_XDECREF(old);
    }
    return Py_BuildValue("Oi", O.box.tag ? O.box.tag : Py_None, O.k);
}

static PyMethodDef methods[] = {
    {"tag", tag, METH_O, NULL},
    {"set_cb", set_cb, METH_O, NULL},
    {"call_cb", call_cb, METH_O, NULL},
    {"put", put, METH_VARARGS, NULL},
    {"get", get, METH_O, NULL},
    {"set_name", set_name, METH_O, NULL},
    {"get_name", get_name, METH_NOARGS, NULL},
    {"remember", remember, METH_O, NULL},
    {"recall", recall, METH_NOARGS, NULL},
    {"load", load, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "gstructs", NULL, -1, methods};

PyMODINIT_FUNC PyInit_gstructs(void) { return PyModule_Create(&moddef); }
'''

# Frames come and go between a store and its use: a handle kept past its
# call reads whatever its slot holds by then.
SCRIPT = r"""
def churn():
    return [str(i) for i in range(1000)]

out = []
try:
    m.call_cb(1)
except RuntimeError as e:
    out.append(str(e))
m.set_cb(str); churn(); out.append(m.call_cb(5))
m.set_cb(lambda x: x * 2); churn(); out.append(m.call_cb(5))
m.put(1, "one"); m.put(3, [3]); churn()
out.append([m.get(i) for i in range(4)])
m.put(1, "uno"); churn(); out.append(m.get(1))
out.append(m.get_name()); m.set_name("a"); churn(); m.set_name("b"); churn(); out.append(m.get_name())
out.append(m.recall()); out.append(m.remember(12)); churn(); out.append(m.remember((1,))); churn()
out.append(m.recall())
out.append(m.load("pi")); churn(); out.append(m.load("e"))
out.append(m.tag(None)); m.tag("t"); churn(); out.append(m.tag(None))
try:
    m.load("nothing")
except AttributeError as e:
    out.append("nothing" in str(e))
o = object()
before = sys.getrefcount(o)
for i in range(50):
    m.put(2, o)
m.put(2, None)
out.append(sys.getrefcount(o) - before)
print(out)
"""
EXPECTED = ['no callback', '5', 10, [None, 'one', None, [3]], 'uno', None, ('b', 2), None, ('12', 1),
            ('(1,)', 2), '(1,)', 3.141592653589793, 2.718281828459045, (None, 0), ('t', 1), True, 0]


def test_members_of_a_struct_a_global_holds_are_references():
    out = translate.translate_source(SRC)
    assert "typedef struct { Cystck_Ref cb; int n; } holder;" in out
    assert "typedef struct { Cystck_Ref value; long hits; } slot_t;" in out
    assert "typedef struct { Cystck_Ref name; int id; } entry_t;" in out
    assert "static struct { Cystck_Ref last; int calls; } memo;" in out
    assert "typedef struct { Cystck_Ref tag; } tagbox;" in out      # held by value in one
    assert "O.box.tag = Cystck_ref(S, o);" in out
    # Py_XDECREF(H.cb); ... H.cb = cb; releases the old reference (ref-release-store)
    assert "Cystck_Ref old_ = H.cb; H.cb = cystck_migrate_xref(S, new_); Cystck_unref(S, old_); }" in out
    assert "CystckObject_CallOneArg(S, Cystck_deref(S, H.cb), arg)" in out
    assert "return Cystck_Return(S, Cystck_deref(S, table[i].value));" in out
    # Py_XSETREF of a reference releases the old one after storing the new
    assert ("{ Cystck_Object new_ = v; Cystck_Ref old_ = table[i].value; "
            "table[i].value = cystck_migrate_xref(S, new_); Cystck_unref(S, old_); }") in out
    # a local taken from a reference and released later: a handle of its own
    assert ("Cystck_Object old = (current->name ? Cystck_Dup(S, Cystck_deref(S, current->name)) : Cystck_NULL);"
            in out)
    assert "current->name = Cystck_ref(S, name);" in out


def test_stores_into_references_whose_value_is_used():
    out = translate.translate_source(SRC)
    assert "if (!(memo.last = cystck_migrate_xref(S, CystckObject_Repr(S, o))))" in out
    assert ('if (g_mod == NULL && (g_mod = cystck_migrate_xref(S, CystckImport_ImportModule(S, "math"))) == NULL)'
            in out)
    assert out.count("static inline Cystck_Ref cystck_migrate_xref(") == 1
    # x = g_attr = ...: one store a statement
    assert ("{ Cystck_Object new_ = CystckObject_GetAttr(S, Cystck_deref(S, g_mod), Cystck_deref(S, g_str)); "
            "Cystck_Ref old_ = g_attr; g_attr = cystck_migrate_xref(S, new_); Cystck_unref(S, old_); } "
            "x = Cystck_deref(S, g_attr);") in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


def test_a_struct_no_global_holds_keeps_handles():
    out = translate.translate_source(SRC)
    # negative: a struct only a local holds lives for the call
    assert "typedef struct { Cystck_Object tmp; } scratch;" in out
    assert "s.tmp = Cystck_deref(S, memo.last);" in out
    # ... and a store that is a statement stays one
    assert "H.n++;" in out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("gstructs", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    # before: the members were handles kept past their call (release read
    # stale slots, debug raised), Py_XSETREF dropped a reference's handle
    assert run_script(SCRIPT, built[1], debug) == EXPECTED
