/* Stock calls the translator maps to Cystck counterparts: wchar_t strings
 * both ways, the default encoding, and exception constants, among them
 * the aliases of OSError (tests/runtime/test_api_counterparts_ported.py
 * translates it and compares it with itself built stock). */
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

static PyMethodDef methods[] = {
    {"wide_round_trip", wide_round_trip, METH_O, NULL},
    {"wide_into_buffer", wide_into_buffer, METH_VARARGS, NULL},
    {"wide_literal", wide_literal, METH_NOARGS, NULL},
    {"default_encoding", default_encoding, METH_NOARGS, NULL},
    {"raise_io_error", raise_io_error, METH_O, NULL},
    {"is_environment_error", is_environment_error, METH_O, NULL},
    {"exceptions", exceptions, METH_NOARGS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
