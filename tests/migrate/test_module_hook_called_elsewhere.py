"""A module's ``m_clear`` goes with the module definition (the runtime
releases the references), but one that the module's init also calls, to
reset its globals on a failed init (``error: mod_clear(NULL);``), was
dropped while the call stayed: an undefined symbol at import.  Such a
hook is now kept as a helper, like a ``tp_clear`` other code calls.
Stock and translated builds answer alike, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static struct { PyObject *error; PyObject *cache; } globals;

static int
hook_traverse(PyObject *module, visitproc visit, void *arg)
{
    Py_VISIT(globals.error);
    Py_VISIT(globals.cache);
    return 0;
}

static int
hook_clear(PyObject *module)
{
    Py_CLEAR(globals.error);
    Py_CLEAR(globals.cache);
    return 0;
}

static void
hook_free(void *module)
{
    hook_clear((PyObject *)module);
}

static PyObject *
fail(PyObject *self, PyObject *arg)
{
    PyErr_SetObject(globals.error, arg);
    return NULL;
}

static PyMethodDef methods[] = {
    {"fail", fail, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "modhook",
    .m_size = -1,
    .m_methods = methods,
    .m_traverse = hook_traverse,
    .m_clear = hook_clear,
    .m_free = hook_free,
};

PyMODINIT_FUNC
PyInit_modhook(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        goto error;
    globals.error = PyErr_NewException("modhook.Error", NULL, NULL);
    if (globals.error == NULL)
        goto error;
    globals.cache = PyDict_New();
    if (globals.cache == NULL)
        goto error;
    return m;
error:
    hook_clear(NULL);
    Py_XDECREF(m);
    return NULL;
}
'''


def test_a_module_clear_the_init_calls_is_kept_as_a_helper():
    out = translate.translate_source(SRC, "modhook.c")
    assert "hook_clear(Cystck_State *S, Cystck_Object module)" in out
    assert "    hook_clear(S, Cystck_NULL);" in out
    assert "hook_traverse" not in out


def test_translation_imports_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("modhook", SRC, "print(repr([outcome(m.fail, a) for a in ('x', 3)]))\n")
    assert want == [("Error", "x"), ("Error", "3")]
