"""Arrays of objects that outlive the call: a global ``static PyObject
*cache[N]`` and a member ``PyObject *items[N]`` of a plain struct a global
holds become arrays of references (``Cystck_Ref``), their elements stored,
read and released as the global-refs rule does a ``static PyObject *``;
the same member of a struct that lives for the call is an array of
handles.  Before, the arrays stayed ``PyObject *`` and the stores of
handles did not compile.  The translation builds and behaves as the stock
build, in release and with CYSTCK_DEBUG=1."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NCACHE 4
static PyObject *cache[NCACHE];
static PyObject *named[2] = {NULL, NULL};

typedef struct { PyObject *items[3]; int n; } ring_t;
static ring_t R;

static struct { PyObject *vals[2]; int set; } pair;

typedef struct { PyObject *parts[2]; } split_t;

static PyObject *
remember(PyObject *self, PyObject *args)
{
    int i;
    PyObject *v;
    if (!PyArg_ParseTuple(args, "iO", &i, &v))
        return NULL;
    if (i < 0 || i >= NCACHE) {
        PyErr_SetString(PyExc_IndexError, "slot");
        return NULL;
    }
    Py_INCREF(v);
    Py_XSETREF(cache[i], v);
    Py_RETURN_NONE;
}

static PyObject *
recall(PyObject *self, PyObject *arg)
{
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= NCACHE || cache[i] == NULL)
        Py_RETURN_NONE;
    Py_INCREF(cache[i]);
    return cache[i];
}

static PyObject *
name(PyObject *self, PyObject *arg)
{
    long i = PyLong_AsLong(arg) & 1;
    if (!named[i] && !(named[i] = PyUnicode_FromFormat("name%ld", i)))
        return NULL;
    return Py_NewRef(named[i]);
}

static PyObject *
push(PyObject *self, PyObject *v)
{
    int k = R.n % 3;
    Py_CLEAR(R.items[k]);
    Py_INCREF(v);
    R.items[k] = v;
    R.n++;
    Py_RETURN_NONE;
}

static PyObject *
items(PyObject *self, PyObject *unused)
{
    PyObject *l = PyList_New(0);
    int i;
    if (!l)
        return NULL;
    for (i = 0; i < 3; i++) {
        if (R.items[i] && PyList_Append(l, R.items[i]) < 0) {
            Py_DECREF(l);
            return NULL;
        }
    }
    return l;
}

static PyObject *
set_pair(PyObject *self, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b))
        return NULL;
    Py_INCREF(a);
    Py_XSETREF(pair.vals[0], a);
    Py_INCREF(b);
    Py_XSETREF(pair.vals[1], b);
    pair.set++;
    return PyTuple_Pack(2, pair.vals[1], pair.vals[0]);
}

static PyObject *
halves(PyObject *self, PyObject *s)
{
    split_t sp;
    Py_ssize_t n = PySequence_Length(s);
    PyObject *r;
    if (n < 0)
        return NULL;
    sp.parts[0] = PySequence_GetSlice(s, 0, n / 2);
    if (!sp.parts[0])
        return NULL;
    sp.parts[1] = PySequence_GetSlice(s, n / 2, n);
    if (!sp.parts[1]) {
        Py_DECREF(sp.parts[0]);
        return NULL;
    }
    r = PyTuple_Pack(2, sp.parts[1], sp.parts[0]);
    Py_DECREF(sp.parts[0]);
    Py_DECREF(sp.parts[1]);
    return r;
}

static PyObject *
clear(PyObject *self, PyObject *unused)
{
    int i;
    for (i = 0; i < 3; i++)
        Py_CLEAR(R.items[i]);
    for (i = 0; i < NCACHE; i++)
        Py_CLEAR(cache[i]);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"remember", remember, METH_VARARGS, NULL},
    {"recall", recall, METH_O, NULL},
    {"name", name, METH_O, NULL},
    {"push", push, METH_O, NULL},
    {"items", items, METH_NOARGS, NULL},
    {"set_pair", set_pair, METH_VARARGS, NULL},
    {"halves", halves, METH_O, NULL},
    {"clear", clear, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "refarrays", NULL, -1, methods};

PyMODINIT_FUNC PyInit_refarrays(void) { return PyModule_Create(&moddef); }
'''

# Frames come and go between a store and its use: a handle kept past its
# call reads whatever its slot holds by then.
SCRIPT = r"""
def churn():
    return [str(i) for i in range(1000)]

out = []
m.remember(1, "one"); m.remember(3, [3]); churn()
out.append([m.recall(i) for i in range(4)])
m.remember(1, "uno"); churn(); out.append(m.recall(1))
out.append([m.name(i) for i in range(3)])
for v in "abcd":
    m.push(v); churn()
out.append(m.items())
out.append(m.set_pair("x", "y")); churn(); out.append(m.set_pair(1, 2))
out.append(m.halves("abcdef"))
m.clear(); out.append((m.items(), m.recall(1)))
o = object()
before = sys.getrefcount(o)
for i in range(50):
    m.remember(2, o)
    m.push(o)
m.clear()
out.append(sys.getrefcount(o) - before)
print(out)
"""
EXPECTED = [[None, 'one', None, [3]], 'uno', ['name0', 'name1', 'name0'], ['d', 'b', 'c'], ('y', 'x'), (2, 1),
            ('def', 'abc'), ([], None), 0]


def test_arrays_that_outlive_the_call_hold_references():
    out = translate.translate_source(SRC)
    assert "static Cystck_Ref cache[NCACHE];" in out
    assert "static Cystck_Ref named[2] = {NULL, NULL};" in out
    assert "typedef struct { Cystck_Ref items[3]; int n; } ring_t;" in out
    assert "static struct { Cystck_Ref vals[2]; int set; } pair;" in out
    assert "R.items[k] = Cystck_ref(S, v);" in out
    assert "{ Cystck_unref(S, R.items[k]); R.items[k] = NULL; }" in out or \
        "Cystck_unref(S, R.items[k]); R.items[k] = NULL;" in out
    assert ("{ Cystck_Object new_ = v; Cystck_Ref old_ = cache[i]; "
            "cache[i] = cystck_migrate_xref(S, new_); Cystck_unref(S, old_); }") in out
    assert "return Cystck_Return(S, Cystck_deref(S, cache[i]));" in out
    assert "CystckList_Append(S, l, Cystck_deref(S, R.items[i]))" in out
    assert "Py_INCREF" not in out


def test_an_array_member_of_a_struct_living_for_the_call_holds_handles():
    out = translate.translate_source(SRC)
    # negative: no global holds split_t, its array lives for the call
    assert "typedef struct { Cystck_Object parts[2]; } split_t;" in out
    assert "sp.parts[0] = CystckSequence_GetSlice(S, s, 0, n / 2);" in out
    assert "Cystck_deref(S, sp.parts" not in out


def test_a_local_array_named_like_a_global_one_stays_a_local():
    src = SRC.replace("    split_t sp;\n", "    split_t sp;\n    PyObject *cache[2];\n").replace(
        "r = PyTuple_Pack(2, sp.parts[1], sp.parts[0]);",
        "cache[0] = sp.parts[1]; cache[1] = sp.parts[0];\n    r = PyTuple_Pack(2, cache[0], cache[1]);")
    out = translate.translate_source(src)
    assert "cache[0] = sp.parts[1]; cache[1] = sp.parts[0];" in out
    assert "r = CystckTuple_Pack(S, 2, cache[0], cache[1]);" in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("refarrays", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    # before: the arrays stayed PyObject *, and the stores of handles did
    # not compile (cystck-migrate --check failed)
    assert run_script(SCRIPT, built[1], debug) == EXPECTED


def test_an_array_of_references_used_whole_is_reported():
    # its items are Cystck_Ref: a PyObject ** use of it needs a human;
    # negative: sizeof and Py_ARRAY_LENGTH of it are fine
    src = SRC.replace("    for (i = 0; i < NCACHE; i++)\n        Py_CLEAR(cache[i]);\n",
                      "    memset(cache, 0, sizeof(cache));\n    fill(R.items, (int)Py_ARRAY_LENGTH(R.items));\n")
    unit = translate.translate_files({"m.c": src})["m.c"]
    line = unit.text[:unit.text.index("memset(cache")].count("\n") + 1      # a line of the output
    found = [(n.line, n.message.split(" is ")[0]) for n in unit.finish_notes() if "used whole" in n.message]
    assert found == [(line, "the array of references cache"), (line + 1, "the array of references items")]
