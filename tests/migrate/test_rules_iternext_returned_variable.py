"""A ``tp_iternext`` that returns a variable, ``value = next_value(it);
return value;``, where NULL with no exception set ends the iteration
(bitarray 3.12.3's decode iterators: ``symbol = binode_traverse(...);
return symbol;``), became ``return Cystck_Return(S, value);``: the null
handle pushed, a SystemError where stock ends the iteration.  It now
returns ``Cystck_IsNull(value) ? -1 : Cystck_Return(S, value)``: -1 with
the exception set by the call that gave NULL, or, with none set, the end
of the iteration.  A method returning the same variable keeps
``Cystck_Return`` (NULL with no exception is stock's SystemError there).
Stock and translated builds answer alike, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    PyObject_HEAD
    long i, n, fail_at;
} CountIter;

static PyTypeObject CountIter_Type;

/* the next value; NULL with no exception set at the end, NULL with an
   exception set at fail_at */
static PyObject *
next_value(CountIter *it)
{
    if (it->i == it->fail_at) {
        PyErr_Format(PyExc_ValueError, "failed at %ld", it->i);
        return NULL;
    }
    if (it->i >= it->n)
        return NULL;
    return PyLong_FromLong(it->i++);
}

static PyObject *
countiter_next(CountIter *it)
{
    PyObject *value;

    value = next_value(it);
    return value;
}

static PyObject *
countiter_peek(CountIter *it, PyObject *unused)
{
    PyObject *value;

    value = next_value(it);
    if (value != NULL)
        it->i--;
    return value;
}

static PyMethodDef countiter_methods[] = {
    {"peek", (PyCFunction) countiter_peek, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject CountIter_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "iterret.CountIter",
    .tp_basicsize = sizeof(CountIter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc) countiter_next,
    .tp_methods = countiter_methods,
};

static PyObject *
count(PyObject *self, PyObject *args)
{
    long n, fail_at = -1;
    CountIter *it;

    if (!PyArg_ParseTuple(args, "l|l", &n, &fail_at))
        return NULL;
    it = PyObject_New(CountIter, &CountIter_Type);
    if (it == NULL)
        return NULL;
    it->i = 0;
    it->n = n;
    it->fail_at = fail_at;
    return (PyObject *) it;
}

static PyMethodDef methods[] = {
    {"count", count, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "iterret", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_iterret(void)
{
    if (PyType_Ready(&CountIter_Type) < 0)
        return NULL;
    return PyModule_Create(&moddef);
}
'''


def test_the_iterator_returns_minus_one_for_a_null_value():
    out = translate.translate_source(SRC, "iterret.c")
    assert "return Cystck_IsNull(value) ? -1 : Cystck_Return(S, value);" in out


def test_a_method_returning_the_same_variable_pushes_it():
    out = translate.translate_source(SRC, "iterret.c")
    peek = out[out.index("countiter_peek(Cystck_State"):]
    assert "return Cystck_Return(S, value);" in peek[:peek.index("}")]


def test_translation_compiles_and_behaves_like_the_stock_build(tmp_path, stock_and_translated_tree,
                                                               run_script):
    stock_dir = tmp_path / "stock"
    stock_dir.mkdir()
    (stock_dir / "iterret.c").write_text(SRC)
    stock, ported = stock_and_translated_tree("iterret", stock_dir)
    script = ("out = [list(m.count(4)), list(m.count(0))]\n"
              "it = m.count(5, 2)\n"
              "try:\n    out.append(list(it))\n"
              "except Exception as e:\n    out.append((type(e).__name__, str(e)))\n"
              "out.append(m.count(3).peek())\n"
              "out.append([next(m.count(3), 'end') for _ in range(2)])\n"
              "it = m.count(1)\n"
              "out.append((next(it), next(it, 'end'), next(it, 'end')))\n"
              "print(repr(out))\n")
    want = run_script(script, stock)
    assert want[:3] == [[0, 1, 2, 3], [], ("ValueError", "failed at 2")]
    assert run_script(script, ported) == want
    assert run_script(script, ported, debug=True) == want
