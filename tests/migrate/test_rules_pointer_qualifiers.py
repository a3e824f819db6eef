"""Object pointers declared with a qualifier after the star (docs/gaps.md
T33): ``PyObject*restrict blocks;`` (``__restrict``, ``__restrict__``),
``PyObject *const one = ...``, ``PyObject *volatile v``.  The
declarations rule did not take them for declarations (the declarator
``*restrict blocks`` did not parse), so they stayed ``PyObject *`` beside
the handles they were assigned, and the build failed.  A handle is no
pointer: ``restrict`` goes, ``const`` and ``volatile`` qualify the handle
(``Cystck_Object const one``).  Stock and translated builds answer
alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
pair_sum(PyObject *self, PyObject *args)
{
    PyObject*restrict a;
    PyObject *__restrict b;
    PyObject *__restrict__ total = NULL;
    PyObject* volatile count = NULL;
    if (!PyArg_ParseTuple(args, "OO", &a, &b))
        return NULL;
    PyObject *const one = PyLong_FromLong(1);
    if (one == NULL)
        return NULL;
    total = PyNumber_Add(a, b);
    if (total == NULL)
        goto done;
    count = PyNumber_Add(total, one);
  done:
    Py_DECREF(one);
    Py_XDECREF(total);
    return count;
}

static PyMethodDef methods[] = {
    {"pair_sum", pair_sum, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "qualified", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_qualified(void)
{
    return PyModule_Create(&moduledef);
}
'''

SCRIPT = r'''
print(repr([outcome(m.pair_sum, 1, 2), outcome(m.pair_sum, "a", "b"), outcome(m.pair_sum, 1, "b"),
            outcome(m.pair_sum, 1), outcome(m.pair_sum, 2.5, 0.25)]))
'''


def test_qualified_object_pointers_are_handles():
    out = translate.translate_source(SRC)
    body = out.split("#include", 1)[1]
    assert "    Cystck_Object a;\n" in body
    assert "    Cystck_Object b;\n" in body
    assert "    Cystck_Object total = Cystck_NULL;\n" in body
    assert "    Cystck_Object volatile count = Cystck_NULL;\n" in body
    assert "    Cystck_Object const one = CystckLong_FromLong(S, 1);\n" in body
    assert "PyObject" not in body and "restrict" not in body


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("qualified", SRC, SCRIPT)
    assert want[0] == 4 and want[1][0] == "TypeError" and want[4] == 3.75
