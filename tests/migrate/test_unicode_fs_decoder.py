"""``PyUnicode_FSDecoder``, called directly (``PyUnicode_FSDecoder(o,
&str)``) or given to ``PyArg_ParseTuple`` after ``O&``, is
``CystckUnicode_FSDecoder``: a runtime function on handles that gives the
str a handle of the frame, as ``CystckUnicode_FSConverter`` does for
``PyUnicode_FSConverter``.  Before, the stock function got the handles
(a build error called directly; a crash as a converter, which the Cystck
parser calls with the state).  Stock and translated builds answer alike,
messages included, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
decoded(PyObject *self, PyObject *arg)
{
    PyObject *s = NULL, *r;
    if (!PyUnicode_FSDecoder(arg, &s))
        return NULL;
    r = PyUnicode_Concat(s, s);
    Py_DECREF(s);
    return r;
}

static PyObject *
parsed(PyObject *self, PyObject *args)
{
    PyObject *s = NULL;
    int n = 0;
    if (!PyArg_ParseTuple(args, "O&|i", PyUnicode_FSDecoder, &s, &n))
        return NULL;
    return Py_BuildValue("(Ni)", s, n);
}

static PyMethodDef methods[] = {
    {"decoded", decoded, METH_O, NULL},
    {"parsed", parsed, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "fsdec", NULL, -1, methods};

PyMODINIT_FUNC PyInit_fsdec(void) { return PyModule_Create(&moddef); }
'''

SCRIPT = r"""
import pathlib
name = "/tmp/n" + "x" * 20
before = sys.getrefcount(name)
out = [m.decoded("/q\u00e9"), m.decoded(b"/b"), m.decoded(pathlib.PurePosixPath("/p")),
       outcome(m.decoded, "a\0b"), outcome(m.decoded, 3), outcome(m.decoded, b"a\0b")]
out.append([m.parsed("/q"), m.parsed(b"/r", 2), outcome(m.parsed, 3), outcome(m.parsed, "a\0b", 1)])
for i in range(50):
    m.decoded(name)
    m.parsed(name)
out.append(sys.getrefcount(name) - before)
print(out)
"""


def test_translation():
    out = translate.translate_source(SRC, "fsdec.c")
    assert "CystckUnicode_FSDecoder(S, arg, &s)" in out
    assert '"O&|i", CystckUnicode_FSDecoder, &s, &n)' in out


def test_same_as_stock(same_as_stock):
    want = same_as_stock("fsdec", SRC, SCRIPT)
    assert want[:3] == ["/q\u00e9/q\u00e9", "/b/b", "/p/p"]
    assert want[3][0] == "ValueError" and want[4][0] == "TypeError"
    assert want[6][:2] == [("/q", 0), ("/r", 2)]
    assert want[-1] == 0
