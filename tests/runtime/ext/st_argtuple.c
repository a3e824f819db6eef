/* PyArg_ParseTuple of a tuple that is no method's own argument tuple, with
 * a format known at run time only (a helper given its caller's tuple and
 * format): built stock and as cystck-migrate translates it
 * (CystckArg_ParseTupleObject), by tests/runtime/test_argtuple_object.py. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
two_ints(PyObject *args, const char *format)
{
    PyObject *a, *b = NULL;
    if (!PyArg_ParseTuple(args, format, &PyLong_Type, &a, &PyLong_Type, &b))
        return NULL;
    if (b == NULL)
        return Py_NewRef(a);
    return PyNumber_Add(a, b);
}

static PyObject *
add(PyObject *self, PyObject *args)
{
    return two_ints(args, "O!O!:add");
}

static PyObject *
add_opt(PyObject *self, PyObject *args)
{
    return two_ints(args, "O!|O!:add_opt");
}

static PyObject *
numbers(PyObject *self, PyObject *args)
{
    PyObject *t, *fmt;
    const char *format;
    long n = -1;
    double d = -1.0;
    PyObject *o = NULL;
    if (!PyArg_ParseTuple(args, "OU", &t, &fmt))
        return NULL;
    if ((format = PyUnicode_AsUTF8(fmt)) == NULL)
        return NULL;
    if (!PyArg_ParseTuple(t, format, &n, &d, &o))
        return NULL;
    return Py_BuildValue("(ldO)", n, d, o == NULL ? Py_None : o);
}

static PyObject *
many(PyObject *self, PyObject *args)
{
    PyObject *t, *fmt, *o[18] = {NULL};
    const char *format;
    int i;
    if (!PyArg_ParseTuple(args, "OU", &t, &fmt))
        return NULL;
    if ((format = PyUnicode_AsUTF8(fmt)) == NULL)
        return NULL;
    if (!PyArg_ParseTuple(t, format, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10], &o[11], &o[12], &o[13], &o[14], &o[15], &o[16], &o[17]))
        return NULL;
    for (i = 0; i < 18 && o[i] != NULL; i++)
        ;
    return PyLong_FromLong(i);
}

static PyMethodDef methods[] = {
    {"many", many, METH_VARARGS, NULL},
    {"add", add, METH_VARARGS, NULL},
    {"add_opt", add_opt, METH_VARARGS, NULL},
    {"numbers", numbers, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_NAME(void)
{
    return PyModule_Create(&module);
}
