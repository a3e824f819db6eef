/* PyArg_ParseTuple(AndKeywords) with "(...)" units, a value that is a
 * sequence whose items the units inside convert: built stock and as
 * cystck-migrate translates it (the formats pass through unchanged), by
 * tests/runtime/test_argparse_nested.py. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
linspace(PyObject *self, PyObject *args)
{
    double a = -1.0, b = -1.0;
    int n = -1;
    if (!PyArg_ParseTuple(args, "(dd)i:linspace", &a, &b, &n))
        return NULL;
    return Py_BuildValue("(ddi)", a, b, n);
}

static PyObject *
point_name(PyObject *self, PyObject *args)
{
    int x = -1, y = -1;
    const char *s = NULL;
    if (!PyArg_ParseTuple(args, "(ii)s", &x, &y, &s))
        return NULL;
    return Py_BuildValue("(iis)", x, y, s);
}

static PyObject *
nested(PyObject *self, PyObject *args)
{
    int x = -1, y = -1;
    PyObject *o;
    if (!PyArg_ParseTuple(args, "((ii)O):nested", &x, &y, &o))
        return NULL;
    return Py_BuildValue("(iiO)", x, y, o);
}

static PyObject *
typed(PyObject *self, PyObject *args)
{
    PyObject *b, *u;
    long n = -1;
    if (!PyArg_ParseTuple(args, "l(SU):typed", &n, &b, &u))
        return NULL;
    return Py_BuildValue("(lOO)", n, b, u);
}

static PyObject *
optional(PyObject *self, PyObject *args)
{
    double a = -1.0, b = -1.0;
    if (!PyArg_ParseTuple(args, "|(dd):optional", &a, &b))
        return NULL;
    return Py_BuildValue("(dd)", a, b);
}

static PyObject *
message(PyObject *self, PyObject *args)
{
    int x = -1, y = -1;
    if (!PyArg_ParseTuple(args, "(ii);a pair of ints, please", &x, &y))
        return NULL;
    return Py_BuildValue("(ii)", x, y);
}

static PyObject *
keywords(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"start", "ends", "num", NULL};
    double a = -1.0, b = -1.0, c = -1.0, d = -1.0;
    int n = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "(dd)|(dd)i:keywords", kwlist, &a, &b, &c, &d, &n))
        return NULL;
    return Py_BuildValue("(ddddi)", a, b, c, d, n);
}

static PyObject *
keywords_only(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"x", "pair", "obj", NULL};
    int x = -1, p = -1, q = -1;
    PyObject *o = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|$(ii)O", kwlist, &x, &p, &q, &o))
        return NULL;
    return Py_BuildValue("(iiiO)", x, p, q, o == NULL ? Py_None : o);
}

static PyMethodDef methods[] = {
    {"linspace", linspace, METH_VARARGS, ""},
    {"point_name", point_name, METH_VARARGS, ""},
    {"nested", nested, METH_VARARGS, ""},
    {"typed", typed, METH_VARARGS, ""},
    {"optional", optional, METH_VARARGS, ""},
    {"message", message, METH_VARARGS, ""},
    {"keywords", (PyCFunction)(void (*)(void))keywords, METH_VARARGS | METH_KEYWORDS, ""},
    {"keywords_only", (PyCFunction)(void (*)(void))keywords_only, METH_VARARGS | METH_KEYWORDS, ""},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods
};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
