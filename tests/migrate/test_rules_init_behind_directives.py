"""A module init written for Python 2 and 3 (docs/gaps.md T33)::

    PyMODINIT_FUNC
    #if PY_MAJOR_VERSION >= 3
    #define INIT_ERROR NULL
    PyInit_spam(void) {
    #else
    #define INIT_ERROR
    initspam(void) {
    #endif

The name stands after preprocessor lines: the init was not found (no
state in its body: ``'S' undeclared``).  proj.INIT_FUNCTION sees through
whole preprocessor lines now; the modinit rule keeps them and drops
``PyMODINIT_FUNC``'s line; the Python 2 branch stays as it was, never
compiled.  ``return INIT_ERROR;``, an object-like macro that every live
definition makes NULL, is a null return (the returns rule; before,
``Cystck_Return(S, INIT_ERROR)``, which did not compile).  Stock and
translated builds answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *spam_error;

static PyObject *
fail(PyObject *self, PyObject *arg)
{
    PyErr_SetObject(spam_error, arg);
    return NULL;
}

static PyMethodDef methods[] = {
    {"fail", fail, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

#if PY_MAJOR_VERSION >= 3
static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "initdirectives", NULL, -1, methods};
#endif

#ifndef PyMODINIT_FUNC
#define PyMODINIT_FUNC void
#endif
PyMODINIT_FUNC
#if PY_MAJOR_VERSION >= 3
#define INIT_ERROR NULL
PyInit_initdirectives(void) {
#else
#define INIT_ERROR
initinitdirectives(void) {
#endif
    PyObject *module;
#if PY_MAJOR_VERSION >= 3
    module = PyModule_Create(&moduledef);
#else
    module = Py_InitModule("initdirectives", methods);
#endif
    if (module == NULL)
        return INIT_ERROR;
    spam_error = PyErr_NewException("initdirectives.Error", NULL, NULL);
    if (spam_error == NULL)
        return INIT_ERROR;
    Py_INCREF(spam_error);
    if (PyModule_AddObject(module, "Error", spam_error) < 0)
        return INIT_ERROR;
#if PY_MAJOR_VERSION >= 3
    return module;
#endif
}
'''

SCRIPT = r'''
print(repr([m.Error.__name__, m.Error.__module__, outcome(m.fail, "boom"), issubclass(m.Error, Exception)]))
'''


def test_the_init_behind_preprocessor_lines_is_the_init():
    out = translate.translate_source(SRC)
    assert "#if PY_MAJOR_VERSION >= 3\n#define INIT_ERROR NULL\nCYSTCK_MODINIT(initdirectives) {\n#else\n" in out
    assert "PyMODINIT_FUNC\n#if" not in out
    assert "initinitdirectives(void) {\n#endif" in out           # never compiled, as it was
    assert "return -1;" in out and "Cystck_Return(S, INIT_ERROR)" not in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("initdirectives", SRC, SCRIPT)
    assert want == ["Error", "initdirectives", ("Error", "boom"), True]
