/* Type-specific API functions given an object of another type
 * (tests/runtime/test_wrong_types.py builds it stock and translated): each
 * case returns what the function returned, or NULL with its exception. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
call(PyObject *m, PyObject *args)
{
    int i;
    PyObject *o, *r = NULL;
    Py_ssize_t n;
    (void)m;
    if (!PyArg_ParseTuple(args, "iO", &i, &o))
        return NULL;
    switch (i) {
    case 0: n = PyList_Size(o); return n < 0 ? NULL : PyLong_FromSsize_t(n);
    case 1: r = PyList_GetItem(o, 0); Py_XINCREF(r); return r;
    case 2: return PyList_Append(o, Py_None) < 0 ? NULL : PyLong_FromLong(0);
    case 3: return PyList_AsTuple(o);
    case 4: return PyList_Sort(o) < 0 ? NULL : PyLong_FromLong(0);
    case 5: n = PyTuple_Size(o); return n < 0 ? NULL : PyLong_FromSsize_t(n);
    case 6: r = PyTuple_GetItem(o, 0); Py_XINCREF(r); return r;
    case 7: return PyTuple_GetSlice(o, 0, 1);
    case 8: n = PyBytes_Size(o); return n < 0 ? NULL : PyLong_FromSsize_t(n);
    case 9: { char *s = PyBytes_AsString(o); return s == NULL ? NULL : PyLong_FromLong(1); }
    case 10: n = PyUnicode_GetLength(o); return n < 0 ? NULL : PyLong_FromSsize_t(n);
    case 11: { const char *s = PyUnicode_AsUTF8(o); return s == NULL ? NULL : PyLong_FromLong(1); }
    case 12: return PyUnicode_AsUTF8String(o);
    case 13: return PyUnicode_Concat(o, o);
    case 14: n = PyDict_Size(o); return n < 0 ? NULL : PyLong_FromSsize_t(n);
    case 15: return PyDict_SetItem(o, Py_None, Py_None) < 0 ? NULL : PyLong_FromLong(0);
    case 16: return PyDict_Keys(o);
    case 17: return PyDict_Copy(o);
    case 18: { int c = PyDict_Contains(o, Py_None); return c < 0 ? NULL : PyLong_FromLong(c); }
    case 19: return PyDict_DelItemString(o, "k") < 0 ? NULL : PyLong_FromLong(0);
    case 20: return PyDict_Update(o, o) < 0 ? NULL : PyLong_FromLong(0);
    case 21: r = PyDict_GetItemWithError(o, Py_None); Py_XINCREF(r);
             return r != NULL || PyErr_Occurred() ? r : PyLong_FromLong(-1);
    }
    PyErr_SetString(PyExc_IndexError, "no such case");
    return NULL;
}

static PyMethodDef methods[] = {
    {"call", call, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
