/* Functions that break the result convention: a value returned with an
 * exception set, or NULL (-1) with none, through each kind of entry point.
 * tests/runtime/test_result_errors.py builds it stock and translated and
 * compares what Python sees. */
#include <Python.h>

/* 0: fine; 1: a value with an exception set; 2: NULL with none; 3: a value
 * with the exception of a failed call set (PyObject_Length(NULL): its
 * message is the runtime's own); 4, 5: a value with an exception set by
 * PyErr_Format, by PyErr_NoMemory */
static int mode;

static PyObject *
result(void)
{
    if (mode == 1) {
        PyErr_SetString(PyExc_ValueError, "left pending");
        return PyLong_FromLong(-1);
    }
    if (mode == 2)
        return NULL;
    if (mode == 3)
        return PyLong_FromSsize_t(PyObject_Length(NULL));
    if (mode == 4) {
        PyErr_Format(PyExc_KeyError, "key %d", 4);
        return PyLong_FromLong(-1);
    }
    if (mode == 5) {
        PyErr_NoMemory();
        return PyLong_FromLong(-1);
    }
    return PyLong_FromLong(7);
}

static PyObject *set_mode(PyObject *m, PyObject *arg)
{
    (void)m;
    mode = (int)PyLong_AsLong(arg);
    if (mode == -1 && PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *f_noargs(PyObject *m, PyObject *unused) { (void)m; return result(); }
static PyObject *f_o(PyObject *m, PyObject *a) { (void)m; (void)a; return result(); }
static PyObject *f_varargs(PyObject *m, PyObject *args)
{
    (void)m;
    if (!PyArg_ParseTuple(args, "|O", &m))
        return NULL;
    return result();
}
static PyObject *f_keywords(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", NULL};
    PyObject *a = NULL;
    (void)m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &a))
        return NULL;
    return result();
}
static PyObject *f_fastcall(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    (void)m; (void)args; (void)n;
    return result();
}

typedef struct { PyObject_HEAD } Box;

static PyObject *Box_repr(PyObject *self) { (void)self; return result(); }
static PyObject *Box_add(PyObject *a, PyObject *b) { (void)a; (void)b; return result(); }
static PyObject *Box_call(PyObject *self, PyObject *args, PyObject *kw) { (void)self; (void)args; (void)kw; return result(); }
static PyObject *Box_getitem(PyObject *self, PyObject *k) { (void)self; (void)k; return result(); }
static PyObject *Box_iternext(PyObject *self) { (void)self; return result(); }
static PyObject *Box_get(PyObject *self, void *c) { (void)self; (void)c; return result(); }
static PyObject *Box_meth(PyObject *self, PyObject *unused) { (void)self; return result(); }
static PyObject *Box_richcompare(PyObject *a, PyObject *b, int op) { (void)a; (void)b; (void)op; return result(); }

static PyGetSetDef Box_getset[] = {
    {"prop", Box_get, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}
};
static PyMethodDef Box_methods[] = {
    {"meth", Box_meth, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};
static PyNumberMethods Box_as_number = {.nb_add = Box_add};
static PyMappingMethods Box_as_mapping = {.mp_subscript = Box_getitem};

static PyTypeObject Box_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_repr = Box_repr,
    .tp_as_number = &Box_as_number,
    .tp_as_mapping = &Box_as_mapping,
    .tp_call = Box_call,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = Box_iternext,
    .tp_richcompare = Box_richcompare,
    .tp_methods = Box_methods,
    .tp_getset = Box_getset,
};

static PyMethodDef methods[] = {
    {"set_mode", set_mode, METH_O, NULL},
    {"noargs", f_noargs, METH_NOARGS, NULL},
    {"o", f_o, METH_O, NULL},
    {"varargs", f_varargs, METH_VARARGS, NULL},
    {"keywords", (PyCFunction)(void (*)(void))f_keywords, METH_VARARGS | METH_KEYWORDS, NULL},
    {"fastcall", (PyCFunction)(void (*)(void))f_fastcall, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&Box_Type) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&Box_Type);
    if (PyModule_AddObject(m, "Box", (PyObject *)&Box_Type) < 0) {
        Py_DECREF(&Box_Type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
