"""``PyTuple_GetItem(args, i)`` on the argument tuple of a ``METH_VARARGS``
entry point checks its index: out of range it raises IndexError ("tuple
index out of range") and returns NULL, and stock code may rely on that
(an optional argument read without counting first).  The args-access rule
makes it ``CystckArg_GetItem(S, args, nargs, i)``, which does the same on
the argument array, unless a test of the count guards the read (an earlier
exit ``if (PyTuple_GET_SIZE(args) < 2) return NULL;``, an enclosing ``if
(n > 1)``, a loop ``for (i = 0; i < n; i++)``): then it stays the plain
read ``args[i]``.  Before, every such read was ``args[i]``, which read past
the array.  ``PyTuple_GET_ITEM`` does not check in stock code either: it
stays ``args[i]``.  The translation builds and raises what the stock build
raises, in release and with CYSTCK_DEBUG=1."""
import pytest
import regex

from cystck.migrate import translate

CHECKED = "CystckArg_GetItem(S, args, nargs, {})"


def _entry(body):
    return ("#include <Python.h>\n"
            "static PyObject *f(PyObject *self, PyObject *args)\n{\n"
            "    PyObject *a = NULL, *b = NULL, *x = NULL;\n    Py_ssize_t i;\n"
            f"{body}"
            "    return PyTuple_Pack(2, a, b);\n}\n"
            "static PyMethodDef m[] = {{\"f\", f, METH_VARARGS, NULL}, {NULL}};\n")


def _reads(body):
    """The reads of the argument array in f's translation, in order: the
    index of a plain one, or "checked <index>"."""
    out = translate.translate_source(_entry(body))
    found = regex.findall(r"CystckArg_GetItem\(S, args, nargs, ([^()]+)\)|\bargs\[([^\]]+)\]", out)
    return [f"checked {c}" if c else p for c, p in found]


# (name, body, the reads after translation)
CASES = [
    ("unguarded", "    a = PyTuple_GetItem(args, 0);\n", ["checked 0"]),
    ("unchecked-in-stock-too", "    a = PyTuple_GET_ITEM(args, 0);\n", ["0"]),
    ("after-an-exit-on-fewer",
     "    if (PyTuple_GET_SIZE(args) < 2) {\n        PyErr_SetString(PyExc_TypeError, \"two\");\n"
     "        return NULL;\n    }\n    a = PyTuple_GetItem(args, 0);\n    b = PyTuple_GetItem(args, 1);\n"
     "    x = PyTuple_GetItem(args, 2);\n",
     ["0", "1", "checked 2"]),
    ("after-an-exit-on-another-count",
     "    Py_ssize_t n = PyTuple_Size(args);\n    if (n != 2)\n        return NULL;\n"
     "    a = PyTuple_GetItem(args, 1);\n",
     ["1"]),
    ("one-of-the-exit-reasons",
     "    if (self == NULL || 1 > PyTuple_GET_SIZE(args))\n        goto fail;\n"
     "    a = PyTuple_GetItem(args, 0);\nfail:\n", ["0"]),
    ("only-with-another-test",
     "    if (self == NULL && PyTuple_GET_SIZE(args) < 1)\n        return NULL;\n"
     "    a = PyTuple_GetItem(args, 0);\n", ["checked 0"]),
    ("a-test-that-does-not-exit",
     "    if (PyTuple_GET_SIZE(args) < 1)\n        PyErr_Clear();\n    a = PyTuple_GetItem(args, 0);\n",
     ["checked 0"]),
    ("an-exit-only-sometimes",
     "    if (PyTuple_GET_SIZE(args) < 1) {\n        if (self) return NULL;\n    }\n"
     "    a = PyTuple_GetItem(args, 0);\n", ["checked 0"]),
    ("an-exit-in-a-block-that-ends-first",
     "    if (self != NULL) {\n        if (PyTuple_GET_SIZE(args) < 1)\n            return NULL;\n    }\n"
     "    a = PyTuple_GetItem(args, 0);\n", ["checked 0"]),
    ("an-else-if",
     "    if (self == NULL)\n        a = Py_None;\n    else if (PyTuple_GET_SIZE(args) < 1)\n        return NULL;\n"
     "    a = PyTuple_GetItem(args, 0);\n", ["checked 0"]),
    ("a-label-between",
     "    if (PyTuple_GET_SIZE(args) < 1)\n        return NULL;\nagain:\n    a = PyTuple_GetItem(args, 0);\n"
     "    if (a == NULL) goto again;\n", ["checked 0"]),
    ("a-count-changed-after-the-test",
     "    Py_ssize_t n = PyTuple_GET_SIZE(args);\n    if (n < 2)\n        return NULL;\n    n = 5;\n"
     "    a = PyTuple_GetItem(args, 1);\n", ["checked 1"]),
    ("inside-a-test-of-more",
     "    if (PyTuple_GET_SIZE(args) > 1 && self != NULL) {\n        b = PyTuple_GetItem(args, 1);\n    }\n"
     "    a = PyTuple_GetItem(args, 0);\n", ["1", "checked 0"]),
    ("inside-a-test-of-fewer",
     "    if (PyTuple_GET_SIZE(args) < 2)\n        b = Py_None;\n    else\n        b = PyTuple_GetItem(args, 1);\n"
     "    if (PyTuple_GET_SIZE(args) >= 1)\n        a = PyTuple_GetItem(args, 1);\n",
     ["1", "checked 1"]),
    ("a-loop-over-the-count",
     "    for (i = 0; i < PyTuple_GET_SIZE(args); i++) {\n        x = PyTuple_GetItem(args, i);\n    }\n",
     ["i"]),
    ("a-loop-that-moves-its-index",
     "    for (i = 0; i < PyTuple_GET_SIZE(args); i++) {\n        x = PyTuple_GetItem(args, i);\n        i++;\n    }\n",
     ["checked i"]),
    ("a-loop-from-an-unknown-start",
     "    for (i = PyLong_AsSsize_t(self); i < PyTuple_GET_SIZE(args); i++)\n        x = PyTuple_GetItem(args, i);\n",
     ["checked i"]),
    ("an-index-past-the-loop's",
     "    for (i = 0; i < PyTuple_GET_SIZE(args); i++)\n        x = PyTuple_GetItem(args, i + 1);\n",
     ["checked i + 1"]),
]


@pytest.mark.parametrize("body, reads", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_read_is_checked_unless_a_count_test_guards_it(body, reads):
    assert _reads(body) == reads


SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* the first argument, IndexError without one */
static PyObject *
first(PyObject *self, PyObject *args)
{
    PyObject *o = PyTuple_GetItem(args, 0);
    if (o == NULL)
        return NULL;
    Py_INCREF(o);
    return o;
}

/* the last argument: index -1 without any */
static PyObject *
last(PyObject *self, PyObject *args)
{
    PyObject *o = PyTuple_GetItem(args, PyTuple_GET_SIZE(args) - 1);
    if (o == NULL)
        return NULL;
    Py_INCREF(o);
    return o;
}

/* an optional second argument, read without counting first */
static PyObject *
second_or_none(PyObject *self, PyObject *args)
{
    PyObject *o = PyTuple_GetItem(args, 1);
    if (o == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Py_INCREF(o);
    return o;
}

/* counted first: plain reads */
static PyObject *
swap(PyObject *self, PyObject *args)
{
    if (PyTuple_GET_SIZE(args) != 2) {
        PyErr_SetString(PyExc_TypeError, "swap() takes two arguments");
        return NULL;
    }
    return PyTuple_Pack(2, PyTuple_GetItem(args, 1), PyTuple_GetItem(args, 0));
}

static PyObject *
total(PyObject *self, PyObject *args)
{
    Py_ssize_t i;
    long sum = 0;
    for (i = 0; i < PyTuple_GET_SIZE(args); i++) {
        sum += PyLong_AsLong(PyTuple_GetItem(args, i));
        if (PyErr_Occurred())
            return NULL;
    }
    return PyLong_FromLong(sum);
}

static PyMethodDef methods[] = {
    {"first", first, METH_VARARGS, NULL},
    {"last", last, METH_VARARGS, NULL},
    {"second_or_none", second_or_none, METH_VARARGS, NULL},
    {"swap", swap, METH_VARARGS, NULL},
    {"total", total, METH_VARARGS, NULL},
    {NULL}
};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "argreads", NULL, -1, methods};
PyMODINIT_FUNC PyInit_argreads(void) { return PyModule_Create(&moddef); }
'''

SCRIPT = r"""
print([outcome(m.first), m.first(1, 2), outcome(m.last), m.last(1, 2),
       m.second_or_none(1), m.second_or_none(1, 2), outcome(m.swap, 1), m.swap(1, 2),
       m.total(), m.total(1, 2, 3), outcome(m.total, 1, "x")])
"""


def test_the_reads_of_the_example():
    out = translate.translate_source(SRC)
    assert out.count("CystckArg_GetItem(") == 3         # first, last, second_or_none
    assert "CystckArg_GetItem(S, args, nargs, nargs - 1)" in out
    assert "args[1], args[0]" in out and "args[i]" in out


def test_too_few_arguments_raise_as_in_the_stock_build(same_as_stock):
    expected = same_as_stock("argreads", SRC, SCRIPT)
    assert expected[0] == ("IndexError", "tuple index out of range")
    assert expected[2] == ("IndexError", "tuple index out of range")
    assert expected[4] is None and expected[6][0] == "TypeError"
