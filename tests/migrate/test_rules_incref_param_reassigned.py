"""A method whose parameter one branch replaces by a new object and the
other increments, both released at the end: ``if (naive) value =
make(value); else Py_INCREF(value); ... Py_DECREF(value);`` (cbor2
5.9.0's ``encode_datetime``, docs/gaps.md T27), and that C code of the
extension also calls directly with a handle of its own.  The incref rule
gave a parameter a handle of its own only in a helper (no entry role):
in the method the increment went and the release dropped the argument's
handle, the caller's, which the caller then released again (a SystemError
in debug mode; in release the caller's handle silently null).  A
parameter that the function also assigns now gets ``value =
Cystck_Dup(S, value);`` in any function.  Stock and translated builds
answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
conv(PyObject *self, PyObject *value)
{
    PyObject *ret = NULL;
    if (PyLong_Check(value)) {
        value = PyNumber_Float(value);
    } else {
        // a new reference, to release both the same way
        Py_INCREF(value);
    }
    if (value) {
        ret = PyObject_Repr(value);
        Py_DECREF(value);
    }
    return ret;
}

static PyObject *
outer(PyObject *self, PyObject *arg)
{
    PyObject *v = PyTuple_Pack(1, arg), *r, *both = NULL;
    if (v == NULL)
        return NULL;
    r = conv(self, v);
    if (r != NULL)
        both = PyTuple_Pack(2, r, v);
    Py_XDECREF(r);
    Py_DECREF(v);
    return both;
}

static PyMethodDef methods[] = {
    {"conv", conv, METH_O, NULL},
    {"outer", outer, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "increfparam", NULL, -1, methods};

PyMODINIT_FUNC PyInit_increfparam(void) { return PyModule_Create(&moddef); }
'''


def test_the_incremented_parameter_gets_a_handle_of_its_own():
    out = translate.translate_source(SRC, "increfparam.c")
    assert "value = Cystck_Dup(S, value);" in out


def test_a_parameter_never_assigned_in_an_entry_is_left_alone():
    """Negative: an entry point's parameter that nothing assigns keeps the
    rule's old answer (the increment goes)."""
    src = SRC.replace("        value = PyNumber_Float(value);\n", "        ret = PyNumber_Float(value);\n")
    out = translate.translate_source(src, "increfparam.c")
    assert "value = Cystck_Dup(S, value);" not in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    script = ("print(repr([m.conv(5), m.conv('a'), [m.outer(i) for i in range(3)], m.outer('b'),\n"
              "            [m.conv(x) for x in ('p', 7, None)]]))\n")
    want = same_as_stock("increfparam", SRC, script)
    assert want[0] == "5.0" and want[1] == "'a'"
