"""The item array of a ``PySequence_Fast`` result (docs/gaps.md T1):
``PyObject **items = PySequence_Fast_ITEMS(seq);`` only indexed is an
alias of ``seq`` and goes (the sequence-fast-items rule); each
``items[i]`` reads item i, without a handle where it is the argument of
``PyFloat_AsDouble``/``PyLong_AsLong``.  Any other item pointer (walked,
passed on, written through) stays a stock ``PyObject **`` through the
escape hatch, reported, and still compiles.  Stock and translated builds
answer alike, in release and with CYSTCK_DEBUG=1, also for a list longer
than the handle limit."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
fsum(PyObject *self, PyObject *arg)
{
    PyObject *seq;
    PyObject **items;
    Py_ssize_t i, n;
    double total = 0;
    seq = PySequence_Fast(arg, "fsum needs a sequence");
    if (seq == NULL)
        return NULL;
    n = PySequence_Fast_GET_SIZE(seq);
    items = PySequence_Fast_ITEMS(seq);
    for (i = 0; i < n; i++) {
        double v = PyFloat_AsDouble(items[i]);
        if (v == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        total += v;
    }
    Py_DECREF(seq);
    return PyFloat_FromDouble(total);
}

static PyObject *
lsum(PyObject *self, PyObject *arg)
{
    PyObject *seq = PySequence_Fast(arg, "lsum needs a sequence");
    if (seq == NULL)
        return NULL;
    PyObject *first, **items = PySequence_Fast_ITEMS(seq);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    long total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(items[i]);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        total += v;
    }
    first = n ? *items : Py_None;
    Py_INCREF(first);
    Py_DECREF(seq);
    return Py_BuildValue("(lN)", total, first);
}

static PyObject *
hashes(PyObject *self, PyObject *arg)
{
    PyObject *seq = PySequence_Fast(arg, "hashes needs a sequence");
    if (seq == NULL)
        return NULL;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    Py_hash_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_hash_t h = PyObject_Hash(items[i]);
        if (h == -1) {
            Py_DECREF(seq);
            return NULL;
        }
        total = (total * 31 + h) % 1000003;
    }
    if (n && PyObject_Hash(PySequence_Fast_ITEMS(seq)[n - 1]) == -1) {
        Py_DECREF(seq);
        return NULL;
    }
    Py_DECREF(seq);
    return PyLong_FromSsize_t(total);
}

static PyObject *
walk(PyObject *self, PyObject *arg)
{
    PyObject *seq = PySequence_Fast(arg, "walk needs a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **p = PySequence_Fast_ITEMS(seq), **e = p + n;
    Py_hash_t total = 0;
    for (; p < e; p++) {
        Py_hash_t h = PyObject_Hash(*p);
        if (h == -1) {
            Py_DECREF(seq);
            return NULL;
        }
        total = (total * 31 + h) % 1000003;
    }
    Py_DECREF(seq);
    return PyLong_FromSsize_t(total);
}

static PyObject *
listsum(PyObject *self, PyObject *l)
{
    if (!PyList_Check(l)) {
        PyErr_SetString(PyExc_TypeError, "listsum needs a list");
        return NULL;
    }
    PyObject **items = &PyList_GET_ITEM(l, 0);
    long total = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {
        long v = PyLong_AsLong(items[i]);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        total += v + (long)PyObject_Length(items[i]) * 0;
        PyErr_Clear();
    }
    return PyLong_FromLong(total);
}

static PyObject *
tuplewalk(PyObject *self, PyObject *t)
{
    if (!PyTuple_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "tuplewalk needs a tuple");
        return NULL;
    }
    PyObject **p = &PyTuple_GET_ITEM(t, 0), **e = p + PyTuple_GET_SIZE(t);
    Py_hash_t total = 0;
    while (p < e) {
        Py_hash_t h = PyObject_Hash(*p++);
        if (h == -1)
            return NULL;
        total = (total * 31 + h) % 1000003;
    }
    return PyLong_FromSsize_t(total);
}

static PyMethodDef methods[] = {
    {"fsum", fsum, METH_O, NULL},
    {"lsum", lsum, METH_O, NULL},
    {"hashes", hashes, METH_O, NULL},
    {"walk", walk, METH_O, NULL},
    {"listsum", listsum, METH_O, NULL},
    {"tuplewalk", tuplewalk, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "fastitems", NULL, -1, methods};

PyMODINIT_FUNC PyInit_fastitems(void) { return PyModule_Create(&moddef); }
'''


def _body(out, name):
    start = out.index(f"\n{name}(")
    return out[start:out.index("\n}\n", start)]


def test_an_indexed_item_array_is_the_sequence():
    out = translate.translate_source(SRC, "fastitems.c")
    fsum = _body(out, "fsum")
    assert "items" not in fsum
    assert "double v = CystckSequence_Fast_GetItemAsDouble(S, seq, i);" in fsum
    lsum = _body(out, "lsum")
    assert "Cystck_Object first;" in lsum and "items" not in lsum
    assert "long v = CystckSequence_Fast_GetItemAsLong(S, seq, i);" in lsum
    assert "first = n ? CystckSequence_Fast_GET_ITEM(S, seq, 0) : Cystck_None;" in lsum   # *items

    hashes = _body(out, "hashes")
    assert "items" not in hashes
    assert "CystckObject_Hash(S, CystckSequence_Fast_GET_ITEM(S, seq, i))" in hashes
    assert "Cystck_ReleaseSince" in hashes      # a handle per item, released per iteration
    assert "CystckObject_Hash(S, CystckSequence_Fast_GET_ITEM(S, seq, n - 1)) == -1" in hashes
    assert "escape hatch" not in fsum + lsum + hashes
    listsum = _body(out, "listsum")
    assert "items" not in listsum
    assert "long v = CystckList_GetItemAsLong(S, l, i);" in listsum
    assert "CystckObject_Length(S, CystckList_GET_ITEM(S, l, i))" in listsum


def test_a_walked_item_pointer_stays_stock_and_is_reported():
    out = translate.translate_source(SRC, "fastitems.c")
    walk = _body(out, "walk")
    assert ("/* cystck-migrate: escape hatch */ PyObject **p = /* cystck-migrate: escape hatch */ "
            "PySequence_Fast_ITEMS(Cystck_AsPyObject(S, seq)), **e = p + n;") in walk
    assert "CystckObject_Hash(S, Cystck_FromPyObject(S, /* cystck-migrate: escape hatch */ *p))" in walk
    tuplewalk = _body(out, "tuplewalk")
    assert ("/* cystck-migrate: escape hatch */ PyObject **p = /* cystck-migrate: escape hatch */ "
            "PySequence_Fast_ITEMS(Cystck_AsPyObject(S, t))") in tuplewalk
    assert "CystckObject_Hash(S, Cystck_FromPyObject(S, /* cystck-migrate: escape hatch */ *p++))" in tuplewalk


def _translated(src):
    return translate.translate_source(src, "fastitems.c")


def test_a_write_through_the_array_is_left_to_the_escape_hatch():
    out = _translated("#include <Python.h>\nstatic PyObject *f(PyObject *self, PyObject *o)\n"
                      "{\n    PySequence_Fast_ITEMS(o)[0] = o;\n    return o;\n}\n")
    assert ("/* cystck-migrate: escape hatch */ PySequence_Fast_ITEMS(Cystck_AsPyObject(S, o))[0] = o;") in out


def test_near_misses_keep_the_item_pointer_stock():
    fsum = SRC[SRC.index("static PyObject *\nfsum"):SRC.index("static PyObject *\nlsum")]
    cases = {
        # written through
        "items[i] = NULL": fsum.replace("total += v;", "total += v;\n        items[i] = items[i];"),
        # the sequence assigned again after
        "seq again": fsum.replace("for (i = 0;", "seq = arg;\n    for (i = 0;"),
        # the pointer assigned again
        "items again": fsum.replace("for (i = 0;", "items = PySequence_Fast_ITEMS(arg);\n    for (i = 0;"),
        # set in an if without braces: dropping it would leave the if no body
        "if body": fsum.replace("    items = PySequence_Fast_ITEMS(seq);",
                                "    if (n)\n        items = PySequence_Fast_ITEMS(seq);"),
        # set in a comma expression
        "comma": fsum.replace("    n = PySequence_Fast_GET_SIZE(seq);\n    items = PySequence_Fast_ITEMS(seq);",
                              "    n = PySequence_Fast_GET_SIZE(seq), items = PySequence_Fast_ITEMS(seq);"),
        # passed on
        "passed": fsum.replace("total += v;", "total += v + (double)(items == NULL);"),
    }
    for what, src in cases.items():
        out = _translated("#include <Python.h>\n" + src)
        assert "/* cystck-migrate: escape hatch */ PyObject **items;" in out, what
        assert "CystckSequence_Fast_GetItemAsDouble" not in out, what
        assert "PySequence_Fast_ITEMS(Cystck_AsPyObject(S, seq))" in out, what


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock, stock_and_translated, run_script):
    script = ("print(repr([outcome(m.fsum, [1, 2.5, 3]), outcome(m.fsum, (1, 'x')), outcome(m.fsum, 3),"
              " outcome(m.lsum, [4, 5, 6]), outcome(m.lsum, []), outcome(m.lsum, [1, 2**80]),"
              " outcome(m.hashes, [7, 1, (2, 3)]), outcome(m.hashes, [[]]),"
              " outcome(m.walk, [7, 1, (2, 3)]), outcome(m.walk, [{}]),"
              " m.hashes(list(range(5000))), m.walk(list(range(5000))), m.fsum([0.5] * 5000),"
              " m.lsum(list(range(5000))), outcome(m.listsum, [1, 2, 3]), outcome(m.listsum, (1,)),"
              " outcome(m.listsum, [1, 'x']), m.listsum(list(range(5000))),"
              " outcome(m.tuplewalk, (7, 1, (2, 3))), outcome(m.tuplewalk, ([],)), m.tuplewalk(tuple(range(5000))),"
              " m.walk(list(range(5000))) == m.tuplewalk(tuple(range(5000)))]))\n")
    want = same_as_stock("fastitems", SRC, script)
    assert want[0] == 6.5 and want[3] == (15, 4) and want[4] == (0, None)
    assert want[2][0] == "TypeError" and want[5][0] == "OverflowError" and want[7][0] == "TypeError"
    assert want[6] == want[8] and want[10] == want[11]
    assert want[14] == 6 and want[15][0] == "TypeError" and want[16][0] == "TypeError"
    assert want[17] == sum(range(5000)) and want[18] == want[6] and want[19][0] == "TypeError" and want[21]
    # beyond the handle limit: each loop holds one iteration's handles
    stock, ported = stock_and_translated("fastitems", SRC)
    assert run_script(script, ported, env={"CYSTCK_HANDLE_LIMIT": "64"}) == want
    assert run_script(script, ported, debug=True, env={"CYSTCK_HANDLE_LIMIT": "64"}) == want
