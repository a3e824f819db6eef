"""A local array of objects with a brace initializer, ``PyObject *argv[] =
{NULL, a, b}`` (the array a vectorcall takes, its free first slot for
PY_VECTORCALL_ARGUMENTS_OFFSET), is an array of handles, its NULL items
the null handle, and PyObject_Vectorcall/VectorcallMethod take it as
CystckObject_Vectorcall/VectorcallMethod.  Before, the declarations rule
did not see such a declaration (it stopped at the brace) and the calls
were left for a human."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>

static PyObject *
swap_call(PyObject *self, PyObject *args)
{
    PyObject *f, *a, *b;
    if (!PyArg_ParseTuple(args, "OOO", &f, &a, &b))
        return NULL;
    PyObject *argv[3] = {NULL, b, a};
    return PyObject_Vectorcall(f, argv + 1, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *
upper(PyObject *self, PyObject *s)
{
    PyObject *name = PyUnicode_FromString("upper");
    if (name == NULL)
        return NULL;
    PyObject *argv[] = {s};
    PyObject *r = PyObject_VectorcallMethod(name, argv, 1, NULL);
    Py_DECREF(name);
    return r;
}

static PyObject *
kw(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"a", NULL};
    int sizes[2] = {0, 0};
    PyObject *a;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &a))
        return NULL;
    return PyLong_FromLong(sizes[0]);
}

static PyMethodDef methods[] = {
    {"swap_call", swap_call, METH_VARARGS, NULL},
    {"upper", upper, METH_O, NULL},
    {"kw", (PyCFunction)(void (*)(void))kw, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL}
};
'''


def test_vectorcall_arrays_become_handle_arrays():
    out = translate.translate_source(SRC)
    assert "    Cystck_Object argv[3] = {Cystck_NULL, b, a};\n" in out
    assert ("return Cystck_Return(S, CystckObject_Vectorcall(S, f, argv + 1, "
            "2 | PY_VECTORCALL_ARGUMENTS_OFFSET, Cystck_NULL));") in out
    assert "    Cystck_Object argv[] = {s};\n" in out
    assert "CystckObject_VectorcallMethod(S, name, argv, 1, Cystck_NULL)" in out
    assert "PyObject" not in out.split("#include", 1)[1]


def test_arrays_of_other_types_keep_their_initializers():
    out = translate.translate_source(SRC)
    assert '{"a", NULL}' in out                    # a keyword list's end stays NULL
    assert "int sizes[2] = {0, 0};" in out         # not objects: 0 stays 0
