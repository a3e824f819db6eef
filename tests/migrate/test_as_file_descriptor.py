"""``PyObject_AsFileDescriptor``: an int, or an object whose ``fileno()``
returns one (pyxattr 0.8.1 takes a file, a descriptor or a path so,
docs/gaps.md T36).  It had no Cystck counterpart and reached the escape
hatch; ``CystckObject_AsFileDescriptor`` takes a handle.  Built stock and
translated, run the same (CPython's messages: a negative descriptor, no
fileno(), a fileno() that returns no int), in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

STOCK = r"""
#include <Python.h>

/* fd(o): the descriptor of o, or the ValueError/TypeError it raises;
   fd_or_none(o): None where o is no descriptor (the error cleared) */
static PyObject *fd(PyObject *self, PyObject *o)
{
    int d = PyObject_AsFileDescriptor(o);
    if (d == -1)
        return NULL;
    return PyLong_FromLong(d);
}

static PyObject *fd_or_none(PyObject *self, PyObject *o)
{
    int d;
    if ((d = PyObject_AsFileDescriptor(o)) != -1)
        return PyLong_FromLong(d);
    PyErr_Clear();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"fd", fd, METH_O, NULL},
    {"fd_or_none", fd_or_none, METH_O, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "asfd", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_asfd(void)
{
    return PyModule_Create(&moduledef);
}
"""

SCRIPT = """
import tempfile
class NoInt:
    def fileno(self):
        return "3"
with tempfile.TemporaryFile() as f:
    print([m.fd(7), m.fd(f) == f.fileno(), outcome(m.fd, -2), outcome(m.fd, "path"),
           outcome(m.fd, NoInt()), outcome(m.fd, 2**40), m.fd_or_none("path"), m.fd_or_none(f) == f.fileno()])
"""


def test_as_file_descriptor_takes_a_handle():
    text = translate.translate_source(STOCK, "asfd.c")
    assert MARK not in text
    assert "int d = CystckObject_AsFileDescriptor(S, o);" in text


def test_as_file_descriptor_behaves_as_stock(same_as_stock):
    out = same_as_stock("asfd", STOCK, SCRIPT)
    assert out[0] == 7 and out[1] is True and out[2][0] == "ValueError" and out[3][0] == "TypeError"
    assert out[4][0] == "TypeError" and out[5][0] == "OverflowError" and out[6] is None and out[7] is True
