"""A keyword list passed as ``&kwlist[0]`` (bitstruct 8.24.0's spelling,
docs/gaps.md T25) is found like one passed by name: its declaration
becomes ``static const char *kwlist[]``, the type the Cystck parser takes
(before, the ``char **`` argument made ``--check`` fail with an
incompatible-pointer-types error).  The same list is shorter than its
format (``"O|OO"`` with two names): CPython's parser binds what the names
reach and succeeds while the call gives fewer values, raises SystemError
when the last named value is given and TypeError for more; the Cystck
parser rejected every call.  Built stock and translated (with
``--check``), both behave alike, in release and with CYSTCK_DEBUG=1."""

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
unpack(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"data", "offset", NULL};
    PyObject *data, *offset = NULL, *extra = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO", &keywords[0], &data, &offset, &extra))
        return NULL;
    return Py_BuildValue("(OO)", data, offset == NULL ? Py_None : offset);
}

static PyMethodDef methods[] = {
    {"unpack", (PyCFunction)(void (*)(void))unpack, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "kwaddr", NULL, -1, methods};

PyMODINIT_FUNC PyInit_kwaddr(void) { return PyModule_Create(&moddef); }
'''

SCRIPT = r"""
out = [m.unpack(1), m.unpack(data=2)]
for args, kw in [((1, 2), {}), ((1,), {"offset": 2}), ((1, 2, 3), {}), ((1,), {"other": 2})]:
    try:
        out.append(m.unpack(*args, **kw))
    except Exception as e:
        out.append((type(e).__name__, str(e)))
print(out)
"""


def test_the_list_passed_by_address_becomes_const():
    out = translate.translate_source(SRC)
    assert "static const char *keywords[]" in out
    assert "&keywords[0]" in out


def test_translation_behaves_like_the_stock_build(same_as_stock):
    out = same_as_stock("kwaddr", SRC, SCRIPT)
    assert out[:2] == [(1, None), (2, None)]
    assert out[2][0] == "SystemError" and "remaining format:'O'" in out[2][1]
    assert out[4][0] == "TypeError"
