/* Calling conventions, keywords, exceptions, iteration, callbacks and a
 * module-level exception class, written with the stock C API. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *BasicsError;

static PyObject *
noargs(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    Py_RETURN_NONE;
}

static PyObject *
negate(PyObject *self, PyObject *arg)
{
    return PyNumber_Negative(arg);
}

static PyObject *
add(PyObject *self, PyObject *args)
{
    long a, b;
    if (!PyArg_ParseTuple(args, "ll:add", &a, &b))
        return NULL;
    return PyLong_FromLong(a + b);
}

static PyObject *
describe(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"name", "count", "flag", NULL};
    const char *name;
    long count = 1;
    int flag = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|lp:describe", kwlist, &name, &count, &flag))
        return NULL;
    return Py_BuildValue("(sli)", name, count, flag);
}

static PyObject *
count_args(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return PyLong_FromSsize_t(nargs);
}

static PyObject *
first_or_none(PyObject *self, PyObject *args)
{
    PyObject *item;
    if (PyTuple_GET_SIZE(args) == 0)
        Py_RETURN_NONE;
    item = PyTuple_GET_ITEM(args, 0);
    Py_INCREF(item);
    return item;
}

static PyObject *
fail(PyObject *self, PyObject *arg)
{
    long code = PyLong_AsLong(arg);
    if (code == -1 && PyErr_Occurred())
        return NULL;
    if (code == 0) {
        PyErr_SetString(PyExc_ValueError, "code must not be zero");
        return NULL;
    }
    PyErr_Format(BasicsError, "failure %ld for %S", code, arg);
    return NULL;
}

static PyObject *
sum_list(PyObject *self, PyObject *arg)
{
    Py_ssize_t i, n;
    double total = 0.0;
    if (!PyList_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "expected a list");
        return NULL;
    }
    n = PyList_GET_SIZE(arg);
    for (i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(arg, i);
        double v = PyFloat_AsDouble(item);
        if (v == -1.0 && PyErr_Occurred())
            return NULL;
        total += v;
    }
    return PyFloat_FromDouble(total);
}

static PyObject *
invert_dict(PyObject *self, PyObject *arg)
{
    PyObject *key, *value, *result;
    Py_ssize_t pos = 0;
    if (!PyDict_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "expected a dict");
        return NULL;
    }
    result = PyDict_New();
    if (result == NULL)
        return NULL;
    while (PyDict_Next(arg, &pos, &key, &value)) {
        if (PyDict_SetItem(result, value, key) < 0) {
            Py_DECREF(result);
            return NULL;
        }
    }
    return result;
}

static PyObject *
squares(PyObject *self, PyObject *arg)
{
    Py_ssize_t i, n = PyLong_AsSsize_t(arg);
    PyObject *list;
    if (n == -1 && PyErr_Occurred())
        return NULL;
    list = PyList_New(n);
    if (list == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *v = PyLong_FromSsize_t(i * i);
        if (v == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

static PyObject *
apply_twice(PyObject *self, PyObject *args)
{
    PyObject *func, *value, *once, *twice;
    if (!PyArg_ParseTuple(args, "OO", &func, &value))
        return NULL;
    if (!PyCallable_Check(func)) {
        PyErr_SetString(PyExc_TypeError, "func must be callable");
        return NULL;
    }
    once = PyObject_CallFunctionObjArgs(func, value, NULL);
    if (once == NULL)
        return NULL;
    twice = PyObject_CallOneArg(func, once);
    Py_DECREF(once);
    return twice;
}

static PyObject *
is_none(PyObject *self, PyObject *arg)
{
    if (arg == Py_None)
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyMethodDef basics_methods[] = {
    {"noargs", (PyCFunction)noargs, METH_NOARGS, "return None"},
    {"negate", (PyCFunction)negate, METH_O, "-x"},
    {"add", (PyCFunction)add, METH_VARARGS, "add(a, b)"},
    {"describe", (PyCFunction)(void (*)(void))describe, METH_VARARGS | METH_KEYWORDS, "describe(name, count=1, flag=False)"},
    {"count_args", (PyCFunction)(void (*)(void))count_args, METH_FASTCALL, "number of arguments"},
    {"first_or_none", (PyCFunction)first_or_none, METH_VARARGS, "first argument or None"},
    {"fail", (PyCFunction)fail, METH_O, "raise"},
    {"sum_list", (PyCFunction)sum_list, METH_O, "sum of a list of floats"},
    {"invert_dict", (PyCFunction)invert_dict, METH_O, "{v: k}"},
    {"squares", (PyCFunction)squares, METH_O, "[i*i for i in range(n)]"},
    {"apply_twice", (PyCFunction)apply_twice, METH_VARARGS, "f(f(x))"},
    {"is_none", (PyCFunction)is_none, METH_O, "x is None"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef basics_module = {
    PyModuleDef_HEAD_INIT,
    "basics",
    "stock C API corpus extension",
    -1,
    basics_methods
};

PyMODINIT_FUNC
PyInit_basics(void)
{
    PyObject *m = PyModule_Create(&basics_module);
    if (m == NULL)
        return NULL;
    BasicsError = PyErr_NewException("basics.BasicsError", PyExc_RuntimeError, NULL);
    if (BasicsError == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(BasicsError);
    if (PyModule_AddObject(m, "BasicsError", BasicsError) < 0) {
        Py_DECREF(BasicsError);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "ANSWER", 42) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
