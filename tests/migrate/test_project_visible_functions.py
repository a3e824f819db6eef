"""Functions of one name in two files: each file's calls mean the definition
visible from it (its own static one first, else another file's external
one), so a ``void`` helper of one file is not taken for another file's
static helper of the same name that returns an object (UltraJSON's two
``SetError``s gave every per-character loop a handle release)."""
from cystck.migrate import translate

CALLER = """#include <Python.h>
static void SetError(const char *m) { (void)m; }
PyObject *scan(PyObject *self, PyObject *arg)
{
    Py_ssize_t i, n = PyLong_AsSsize_t(arg);
    for (i = 0; i < n; i++) {
        if (i > 100)
            SetError("big");
    }
    return PyLong_FromSsize_t(n);
}
"""

OTHER = """#include <Python.h>
static PyObject *SetError(const char *m)
{
    PyErr_SetString(PyExc_ValueError, m);
    return NULL;
}
PyObject *fail(PyObject *self, PyObject *arg)
{
    return SetError("no");
}
"""


def test_a_files_own_static_function_is_the_one_it_calls():
    units = translate.translate_files({"a.c": CALLER, "b.c": OTHER})
    assert "Cystck_Mark" not in units["a.c"].text
    assert "static Cystck_Object SetError(Cystck_State *S, const char *m)" in units["b.c"].text


def test_another_files_external_function_is_seen():
    # no definition of its own: the caller's loop calls b.c's function,
    # which makes a handle each iteration
    caller = CALLER.replace('static void SetError(const char *m) { (void)m; }\n',
                            "PyObject *SetError(const char *m);\n")
    other = OTHER.replace("static PyObject *SetError", "PyObject *SetError")
    units = translate.translate_files({"a.c": caller, "b.c": other})
    assert "Cystck_Mark(S)" in units["a.c"].text
