"""``PyBuffer_IsContiguous(view, order)`` (docs/gaps.md T33) had no Cystck
counterpart: the escape hatch kept it.  ``CystckBuffer_IsContiguous(S,
view, order)`` (cystck/apitable.py) is its counterpart, and the api-calls
rule ports the call.  A differential test: views of bytes, of strided and
multi-dimensional memoryviews, in the orders 'C', 'F', 'A' and one that is none,
answer alike from the stock and the translated build, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
contiguous(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *orders;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "Os", &o, &orders))
        return NULL;
    if (PyObject_GetBuffer(o, &view, PyBUF_FULL_RO) < 0)
        return NULL;
    PyObject *res = PyList_New(0);
    for (const char *c = orders; res != NULL && *c; c++) {
        PyObject *b = PyBool_FromLong(PyBuffer_IsContiguous(&view, *c));
        if (b == NULL || PyList_Append(res, b) < 0)
            Py_CLEAR(res);
        Py_XDECREF(b);
    }
    PyBuffer_Release(&view);
    return res;
}

static PyMethodDef methods[] = {
    {"contiguous", contiguous, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "contig", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_contig(void)
{
    return PyModule_Create(&moduledef);
}
'''

SCRIPT = r'''
grid = memoryview(bytes(range(24))).cast("B", (4, 6))
cases = [b"abc", b"", bytearray(8), memoryview(b"abcdef")[::2], grid, grid[::2],
         memoryview(bytes(range(24))).cast("B", (1, 24)), 5]
print(repr([outcome(m.contiguous, c, "CFAx") for c in cases]))
'''


def test_the_call_is_ported():
    out = translate.translate_source(SRC)
    assert "CystckBuffer_IsContiguous(S, &view, *c)" in out
    assert "escape hatch" not in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("contig", SRC, SCRIPT)
    assert want[0] == [True, True, True, False]
    assert want[3] == [False, False, False, False]
    assert want[4] == [True, False, True, False]       # row-major, 4 by 6
    assert want[5] == [False, False, False, False]     # every other row
    assert want[7][0] == "TypeError"
