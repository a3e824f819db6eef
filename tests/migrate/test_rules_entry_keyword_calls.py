"""A function that calls a ``METH_VARARGS | METH_KEYWORDS`` entry point of
its own directly, with a tuple it built (``dumps(self, argtuple, kwargs)``,
UltraJSON's ``dump()`` and ``load()``), was left as that call with ``S``
added: the entry point now takes an argument array, their count and the
keyword names and returns a push count, so the output did not compile.
The call now goes through ``Cystck_CallImplKw``, which unpacks the tuple,
passes the keywords (the caller's own, a dict, or none) as a call from
Python gives them (a dict's keys made a names tuple) and returns the
result as a handle.  Stock and
translated builds answer alike (values, error types and messages), in
release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* fmt(value, width=0, fill=" "): str(value) right-aligned */
static PyObject *
fmt(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"value", "width", "fill", NULL};
    PyObject *value, *s, *r;
    Py_ssize_t width = 0;
    const char *fill = " ";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|ns", kwlist, &value, &width, &fill))
        return NULL;
    s = PyObject_Str(value);
    if (s == NULL)
        return NULL;
    r = PyUnicode_FromFormat("%s|%zd|%U", fill, width, s);
    Py_DECREF(s);
    return r;
}

/* fmt_into(value, sink, **kw): sink.append(fmt(value, **kw)), as a file
 * writer forwards its keyword arguments to the function that formats */
static PyObject *
fmt_into(PyObject *self, PyObject *args, PyObject *kwargs)
{
    PyObject *value, *sink, *argtuple, *text, *r;
    if (!PyArg_ParseTuple(args, "OO", &value, &sink))
        return NULL;
    argtuple = PyTuple_Pack(1, value);
    if (argtuple == NULL)
        return NULL;
    text = fmt(self, argtuple, kwargs);
    Py_DECREF(argtuple);
    if (text == NULL)
        return NULL;
    r = PyObject_CallMethod(sink, "append", "O", text);
    Py_DECREF(text);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_NONE;
}

/* wide(value): fmt(value, width=8, fill="*"), the keywords a dict made here */
static PyObject *
wide(PyObject *self, PyObject *value)
{
    PyObject *argtuple, *kw, *r;
    argtuple = PyTuple_Pack(1, value);
    if (argtuple == NULL)
        return NULL;
    kw = Py_BuildValue("{s:n,s:s}", "width", (Py_ssize_t)8, "fill", "*");
    if (kw == NULL) {
        Py_DECREF(argtuple);
        return NULL;
    }
    r = fmt(self, argtuple, kw);
    Py_DECREF(kw);
    Py_DECREF(argtuple);
    return r;
}

/* badkw(value): fmt(value, **{1: 2}), a keyword that is no string */
static PyObject *
badkw(PyObject *self, PyObject *value)
{
    PyObject *argtuple, *kw, *r;
    argtuple = PyTuple_Pack(1, value);
    if (argtuple == NULL)
        return NULL;
    kw = Py_BuildValue("{i:i}", 1, 2);
    if (kw == NULL) {
        Py_DECREF(argtuple);
        return NULL;
    }
    r = fmt(self, argtuple, kw);
    Py_DECREF(kw);
    Py_DECREF(argtuple);
    return r;
}

/* plain(*values): fmt(*values) without keywords, the result returned */
static PyObject *
plain(PyObject *self, PyObject *args)
{
    PyObject *t = PySequence_Tuple(args);
    PyObject *r;
    if (t == NULL)
        return NULL;
    r = fmt(self, t, NULL);
    Py_DECREF(t);
    return r;
}

/* again(value, **kw): fmt(value, **kw) returned straight from the call, the
 * tuple made in the call (the stock build leaks it; the translation's handle
 * goes with the frame) */
static PyObject *
again(PyObject *self, PyObject *args, PyObject *kwargs)
{
    PyObject *value;
    if (!PyArg_ParseTuple(args, "O", &value))
        return NULL;
    return fmt(self, PyTuple_GetSlice(args, 0, 1), kwargs);
}

static PyMethodDef methods[] = {
    {"fmt", (PyCFunction)(void (*)(void))fmt, METH_VARARGS | METH_KEYWORDS, NULL},
    {"fmt_into", (PyCFunction)(void (*)(void))fmt_into, METH_VARARGS | METH_KEYWORDS, NULL},
    {"wide", wide, METH_O, NULL},
    {"badkw", badkw, METH_O, NULL},
    {"plain", plain, METH_VARARGS, NULL},
    {"again", (PyCFunction)(void (*)(void))again, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "kwentry", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_kwentry(void)
{
    return PyModule_Create(&moddef);
}
'''

SCRIPT = r"""
sink = []
results = [
    m.fmt(1), m.fmt(2, 3), m.fmt(3, width=4, fill="-"),
    m.fmt_into(4, sink), m.fmt_into(5, sink, width=6), m.fmt_into(6, sink, fill="+", width=7),
    m.wide(7), m.plain(8), m.plain(9, 10, "#"), m.again(10), m.again(11, fill="=", width=1),
    outcome(m.fmt_into, 1, sink, nope=1), outcome(m.fmt_into, 1, sink, width="x"),
    outcome(m.fmt_into, 1, None), outcome(m.plain), outcome(m.plain, 1, 2, 3, 4),
    outcome(m.plain, *range(12)), outcome(m.fmt_into, 1, sink, k1=1, k2=2, k3=3, k4=4, k5=5, k6=6, k7=7, k8=8),
    outcome(m.badkw, 1),
    outcome(m.again, 1, value=2), outcome(m.again, 1, **{"width": 2, "fill": 3}),
]
print(repr([results, sink]))
"""


def _translated():
    return translate.translate_files({"kwentry.c": SRC})["kwentry.c"]


def test_direct_calls_with_a_packed_tuple_go_through_the_runtime():
    res = _translated()
    out = res.text
    assert "text = Cystck_CallImplKw(S, fmt, self, argtuple, args, nargs, kwargs);" in out
    assert "r = Cystck_CallImplKw(S, fmt, self, argtuple, NULL, 0, kw);" in out
    assert "r = Cystck_CallImplKw(S, fmt, self, t, NULL, 0, Cystck_NULL);" in out
    assert "return Cystck_Return(S, Cystck_CallImplKw(S, fmt, self, CystckTuple_GetSlice(S, " in out
    assert "direct call of entry point" not in "".join(n.message for n in res.notes)


def test_translation_calls_as_the_stock_build(same_as_stock):
    want = same_as_stock("kwentry", SRC, SCRIPT)
    results, sink = want
    assert results[:3] == [" |0|1", " |3|2", "-|4|3"]
    assert sink == [" |0|4", " |6|5", "+|7|6"]
    assert results[6:11] == ["*|8|7", " |0|8", "#|10|9", " |0|10", "=|1|11"]
    assert results[11][0] == "TypeError"
    # more than the runtime's inline array (8): the heap one
    assert results[16] == ("TypeError", "function takes at most 3 arguments (12 given)")
    assert results[18] == ("TypeError", "keywords must be strings")
