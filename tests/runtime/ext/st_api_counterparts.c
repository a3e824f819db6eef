/* Stock calls the translator maps to Cystck counterparts: wchar_t and
 * UCS-4 strings, decoding, the default encoding, recursive-repr guards,
 * super, exception constants (among them the aliases of OSError), and
 * names it keeps (no object: code point tests, taking the GIL back)
 * (tests/runtime/test_api_counterparts_ported.py translates it and
 * compares it with itself built stock). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* o to wchar_t and back: the wide string's length and the str it makes */
static PyObject *
wide_round_trip(PyObject *self, PyObject *o)
{
    Py_ssize_t n;
    wchar_t *w = PyUnicode_AsWideCharString(o, &n);
    if (w == NULL)
        return NULL;
    PyObject *r = PyUnicode_FromWideChar(w, n);
    PyMem_Free(w);
    if (r == NULL)
        return NULL;
    PyObject *out = Py_BuildValue("(nO)", n, r);
    Py_DECREF(r);
    return out;
}

/* o copied into a buffer of `size` units (at most 8): what was copied */
static PyObject *
wide_into_buffer(PyObject *self, PyObject *args)
{
    PyObject *o;
    Py_ssize_t size;
    wchar_t buf[8];
    if (!PyArg_ParseTuple(args, "On", &o, &size))
        return NULL;
    if (size > 8)
        size = 8;
    Py_ssize_t n = PyUnicode_AsWideChar(o, buf, size);
    if (n < 0)
        return NULL;
    return PyUnicode_FromWideChar(buf, n < size ? n : size);
}

static PyObject *
wide_literal(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromWideChar(L"h\u00e9 \u20ac", -1);
}

static PyObject *
default_encoding(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(PyUnicode_GetDefaultEncoding());
}

static PyObject *
raise_io_error(PyObject *self, PyObject *msg)
{
    PyErr_SetObject(PyExc_IOError, msg);
    return NULL;
}

static PyObject *
is_environment_error(PyObject *self, PyObject *e)
{
    return PyBool_FromLong(PyErr_GivenExceptionMatches(e, PyExc_EnvironmentError));
}

static PyObject *
exceptions(PyObject *self, PyObject *unused)
{
    return PyTuple_Pack(34, PyExc_IOError, PyExc_EnvironmentError, PyExc_BlockingIOError,
                        PyExc_BrokenPipeError, PyExc_BytesWarning, PyExc_ChildProcessError,
                        PyExc_ConnectionAbortedError, PyExc_ConnectionError,
                        PyExc_ConnectionRefusedError, PyExc_ConnectionResetError,
                        PyExc_EncodingWarning, PyExc_FileExistsError, PyExc_FileNotFoundError,
                        PyExc_FutureWarning, PyExc_GeneratorExit, PyExc_ImportWarning,
                        PyExc_IndentationError, PyExc_InterruptedError, PyExc_IsADirectoryError,
                        PyExc_ModuleNotFoundError, PyExc_NotADirectoryError,
                        PyExc_PendingDeprecationWarning, PyExc_PermissionError,
                        PyExc_ProcessLookupError, PyExc_ResourceWarning, PyExc_StopAsyncIteration,
                        PyExc_SyntaxError, PyExc_SyntaxWarning, PyExc_SystemExit, PyExc_TabError,
                        PyExc_TimeoutError, PyExc_UnboundLocalError, PyExc_UnicodeTranslateError,
                        PyExc_UnicodeWarning);
}

static PyObject *
decode(PyObject *self, PyObject *args)
{
    const char *s, *encoding, *errors = NULL;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y#s|z", &s, &n, &encoding, &errors))
        return NULL;
    return PyUnicode_Decode(s, n, encoding, errors);
}

/* o's code points through a copy, and through a buffer of `size` (at
 * most 8) with a NUL after them */
static PyObject *
ucs4(PyObject *self, PyObject *args)
{
    PyObject *o, *whole, *part;
    Py_ssize_t size;
    Py_UCS4 buf[8];
    if (!PyArg_ParseTuple(args, "On", &o, &size))
        return NULL;
    if (size > 8)
        size = 8;
    Py_UCS4 *copy = PyUnicode_AsUCS4Copy(o);
    if (copy == NULL)
        return NULL;
    whole = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, copy, PyUnicode_GetLength(o));
    PyMem_Free(copy);
    if (whole == NULL)
        return NULL;
    if (PyUnicode_AsUCS4(o, buf, size, 1) == NULL) {
        Py_DECREF(whole);
        return NULL;
    }
    part = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, PyUnicode_GetLength(o));
    if (part == NULL) {
        Py_DECREF(whole);
        return NULL;
    }
    return Py_BuildValue("NN", whole, part);
}

/* repr(o), or "..." inside a repr of o already under way */
static PyObject *
guarded_repr(PyObject *self, PyObject *o)
{
    int r = Py_ReprEnter(o);
    if (r != 0)
        return r > 0 ? PyUnicode_FromString("...") : NULL;
    PyObject *s = PyObject_Repr(o);
    Py_ReprLeave(o);
    return s;
}

/* super(type, obj) */
static PyObject *
make_super(PyObject *self, PyObject *args)
{
    PyObject *type, *obj;
    if (!PyArg_ParseTuple(args, "OO", &type, &obj))
        return NULL;
    return PyObject_CallFunctionObjArgs((PyObject *)&PySuper_Type, type, obj, NULL);
}

static PyObject *
is_surrogate(PyObject *self, PyObject *o)
{
    long c = PyLong_AsLong(o);
    if (c == -1 && PyErr_Occurred())
        return NULL;
    return Py_BuildValue("(iii)", Py_UNICODE_IS_SURROGATE(c) != 0, Py_UNICODE_IS_HIGH_SURROGATE(c) != 0,
                         Py_UNICODE_IS_LOW_SURROGATE(c) != 0);
}

/* 0 + 1 + ... + (n - 1) without the GIL; a negative n raises, the GIL
 * taken back first */
static PyObject *
sum_below(PyObject *self, PyObject *o)
{
    long n = PyLong_AsLong(o), total = 0;
    if (n == -1 && PyErr_Occurred())
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (n < 0) {
        Py_BLOCK_THREADS
        PyErr_SetString(PyExc_ValueError, "negative");
        return NULL;
    }
    for (long i = 0; i < n; i++)
        total += i;
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(total);
}

/* are d's keys all strings (d as a tp_init's keywords) */
static PyObject *
valid_keywords(PyObject *self, PyObject *d)
{
    if (!PyArg_ValidateKeywordArguments(d))
        return NULL;
    Py_RETURN_TRUE;
}

/* the number of keyword arguments, checked as a tp_init would */
static PyObject *
count_keywords(PyObject *self, PyObject *args, PyObject *kwds)
{
    if (kwds == NULL)
        return PyLong_FromLong(0);
    if (!PyArg_ValidateKeywordArguments(kwds))
        return NULL;
    return PyLong_FromSsize_t(PyDict_Size(kwds));
}

static PyMethodDef methods[] = {
    {"wide_round_trip", wide_round_trip, METH_O, NULL},
    {"wide_into_buffer", wide_into_buffer, METH_VARARGS, NULL},
    {"wide_literal", wide_literal, METH_NOARGS, NULL},
    {"default_encoding", default_encoding, METH_NOARGS, NULL},
    {"raise_io_error", raise_io_error, METH_O, NULL},
    {"is_environment_error", is_environment_error, METH_O, NULL},
    {"exceptions", exceptions, METH_NOARGS, NULL},
    {"decode", decode, METH_VARARGS, NULL},
    {"ucs4", ucs4, METH_VARARGS, NULL},
    {"guarded_repr", guarded_repr, METH_O, NULL},
    {"make_super", make_super, METH_VARARGS, NULL},
    {"is_surrogate", is_surrogate, METH_O, NULL},
    {"sum_below", sum_below, METH_O, NULL},
    {"valid_keywords", valid_keywords, METH_O, NULL},
    {"count_keywords", (PyCFunction)(void (*)(void))count_keywords, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
