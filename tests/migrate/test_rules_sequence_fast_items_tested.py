"""sequence-fast-items and an item pointer tested for NULL, or whose
sequence is set to NULL after the pointer's last read (zfec's
``fastinblocksitems = PySequence_Fast_ITEMS(fastinblocks); if
(!fastinblocksitems) goto err;`` ... ``err: Py_XDECREF(fastinblocks);
fastinblocks = NULL;``).  Either kept the pointer a stock ``PyObject **``
through the escape hatch (a handle per item read).  The NULL test of the
pointer is a test of the sequence (``if (!fast)``), and a write of the
sequence after the pointer's last mention, outside any loop around it and
with no ``goto`` back before it, leaves every read before it: the pointer
goes and its items are read from the sequence.  Left alone: the pointer
compared in an expression, the sequence written in a loop that reads the
items, or before a ``goto`` back to a label before the reads.  Stock and
translated builds compared, release and debug, at a small handle limit."""
from cystck.migrate import translate

SOURCE = r'''#include <Python.h>

static PyObject *
total(PyObject *self, PyObject *args)
{
    PyObject *arg, *fast = NULL, *result = NULL;
    PyObject **items;
    Py_ssize_t i, n;
    long sum = 0;
    if (!PyArg_ParseTuple(args, "O", &arg))
        return NULL;
    fast = PySequence_Fast(arg, "not a sequence");
    if (!fast)
        goto err;
    n = PySequence_Fast_GET_SIZE(fast);
    if (n == 0) {
        result = PyLong_FromLong(0);
        goto cleanup;
    }
    items = PySequence_Fast_ITEMS(fast);
    if (!items)
        goto err;
    for (i = 0; i < n; i++) {
        if (!PyLong_Check(items[i])) {
            PyErr_SetString(PyExc_TypeError, "ints only");
            goto err;
        }
        sum += PyLong_AsLong(items[i]);
    }
    result = PyLong_FromLong(sum);
    goto cleanup;
  err:
    Py_XDECREF(result);
    result = NULL;
  cleanup:
    Py_XDECREF(fast);
    fast = NULL;
    return result;
}

static PyObject *
first(PyObject *self, PyObject *arg)
{
    PyObject *fast = PySequence_Fast(arg, "not a sequence"), *r;
    PyObject **items;
    if (fast == NULL)
        return NULL;
    if (PySequence_Fast_GET_SIZE(fast) == 0) {
        Py_DECREF(fast);
        Py_RETURN_NONE;
    }
    items = PySequence_Fast_ITEMS(fast);
    if (items == NULL) {
        Py_DECREF(fast);
        return NULL;
    }
    r = items[0];
    Py_INCREF(r);
    Py_CLEAR(fast);
    return r;
}

static PyMethodDef methods[] = {
    {"total", total, METH_VARARGS, NULL},
    {"first", first, METH_O, NULL},
    {NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
'''

SCRIPT = r'''
print(repr((m.total([1, 2, 3]), m.total((4, 5)), m.total([]), m.total(list(range(300))),
            outcome(m.total, [1, "x"]), outcome(m.total, 5), m.first([7, 8]), m.first(()), m.first("ab"),
            outcome(m.first, 3))))
'''


def test_a_tested_item_pointer_and_a_sequence_cleared_after_are_the_sequence(stock_and_translated, run_script):
    stock, ported = stock_and_translated("fastnull", SOURCE.replace("NAME", "fastnull"))
    want = run_script(SCRIPT, stock)
    assert want[:4] == (6, 9, 0, 44850) and want[6:9] == (7, None, "a")
    for debug in (False, True):
        assert run_script(SCRIPT, ported, debug=debug, env={"CYSTCK_HANDLE_LIMIT": "64"}) == want
    out = translate.translate_source(SOURCE.replace("NAME", "fastnull"), "fastnull.c")
    assert "PyObject **" not in out and "escape hatch" not in out


LEFT_ALONE = SOURCE[SOURCE.index("static PyObject *\ntotal"):SOURCE.index("static PyObject *\nfirst")]


def test_a_sequence_written_where_the_items_may_be_read_again_keeps_the_pointer_stock():
    cases = {
        # written in the loop that reads the items
        "loop": LEFT_ALONE.replace("        sum += PyLong_AsLong(items[i]);\n",
                                   "        sum += PyLong_AsLong(items[i]);\n        if (sum > 100)\n"
                                   "            fast = arg;\n"),
        # a goto after the write back to a label before the reads
        "goto back": LEFT_ALONE.replace("    for (i = 0; i < n; i++) {", "  again:\n    for (i = 0; i < n; i++) {")
                               .replace("    fast = NULL;\n    return result;",
                                        "    fast = NULL;\n    if (sum < 0)\n        goto again;\n    return result;"),
        # the pointer compared in an expression, not an if's test
        "compared": LEFT_ALONE.replace("    if (!items)\n        goto err;\n",
                                       "    sum = items == NULL;\n"),
    }
    for what, src in cases.items():
        out = translate.translate_source("#include <Python.h>\n" + src, "f.c")
        assert "/* cystck-migrate: escape hatch */ PyObject **items;" in out, what
