"""A module init defined with the plain return type ``PyObject *`` rather
than ``PyMODINIT_FUNC`` (an older Python 3 template's spelling; CPython
finds the function by its name, ``PyInit_<module>``, and a shared library
exports it unless told otherwise): it is the module's init all the same,
and becomes ``CYSTCK_MODINIT(name)`` (rule modinit).  Before, it kept its
stock signature while its body was translated, so the body used a state
``S`` it did not have (ed25519 1.5's glue module: its one build error at
first contact, docs/gaps.md T23).

Only a definition or prototype at the start of a line is one: a call, a
cast of another module's init, a ``static`` function named like one
(CPython cannot find it) are not (tests/migrate/test_rules_leave_alone.py)."""

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *Failed;

static PyObject *
twice(PyObject *self, PyObject *args)
{
    const char *data;
    Py_ssize_t len;
    if (!PyArg_ParseTuple(args, "y#", &data, &len))
        return NULL;
    if (len == 0) {
        PyErr_SetString(Failed, "nothing to double");
        return NULL;
    }
    return Py_BuildValue("(y#y#)", data, len, data, len);
}

static PyMethodDef methods[] = {
    {"twice", twice, METH_VARARGS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT,
    "NAME",
    NULL,
    -1,
    methods,
};

PyObject *PyInit_NAME(void);

PyObject *
PyInit_NAME(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return m;
    if (Failed == NULL) {
        Failed = PyErr_NewException("NAME.Failed", NULL, NULL);
        if (Failed == NULL)
            return NULL;
    }
    Py_INCREF(Failed);
    PyModule_AddObject(m, "Failed", Failed);
    PyModule_AddIntConstant(m, "SIZE", 32);
    return m;
}
'''

SCRIPT = r"""
out = [m.twice(b"ab"), m.SIZE, m.Failed.__name__, issubclass(m.Failed, Exception)]
try:
    m.twice(b"")
except m.Failed as e:
    out.append(str(e))
print(out)
"""
EXPECTED = [(b"ab", b"ab"), 32, "Failed", True, "nothing to double"]


def test_an_init_returning_pyobject_pointer_is_the_module_init():
    out = translate.translate_source(SRC.replace("NAME", "objinit"))
    assert "CYSTCK_MODINIT(objinit)\n{" in out
    assert "PyInit_objinit" not in out          # the prototype goes, as PyMODINIT_FUNC's
    assert "return Cystck_Return(S, m);" in out
    assert "escape hatch" not in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC.replace("NAME", "objinit"))
    assert translate.translate_source(out) == out


def test_translation_behaves_like_the_stock_build(same_as_stock):
    assert same_as_stock("objinit", SRC.replace("NAME", "objinit"), SCRIPT) == EXPECTED
