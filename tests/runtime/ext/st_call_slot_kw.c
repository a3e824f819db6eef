/* A keyword slot's implementation called directly with a tuple and a
 * dict, as stock extensions call their tp_new/tp_init/tp_call functions:
 * against rt_call_slot_kw.c (Cystck_CallSlotKw). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* a tp_call: impl(label, size=1) -> (label, size); ValueError for a
 * negative size */
static PyObject *impl(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"label", "size", NULL};
    PyObject *label;
    Py_ssize_t size = 1;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|n:impl", kwlist, &label, &size))
        return NULL;
    if (size < 0) {
        PyErr_SetString(PyExc_ValueError, "size must not be negative");
        return NULL;
    }
    return Py_BuildValue("(On)", label, size);
}

/* a tp_init: the same arguments, 0 or -1 */
static int init_impl(PyObject *self, PyObject *args, PyObject *kw)
{
    PyObject *r = impl(self, args, kw);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* call(argtuple, kw): impl(module, argtuple, kw), None for NULL */
static PyObject *call(PyObject *self, PyObject *args)
{
    PyObject *t, *kw;
    if (!PyArg_ParseTuple(args, "OO", &t, &kw))
        return NULL;
    return impl(self, t == Py_None ? NULL : t, kw == Py_None ? NULL : kw);
}

/* init(argtuple, kw): None, or init_impl's exception */
static PyObject *init(PyObject *self, PyObject *args)
{
    PyObject *t, *kw;
    if (!PyArg_ParseTuple(args, "OO", &t, &kw))
        return NULL;
    if (init_impl(self, t == Py_None ? NULL : t, kw == Py_None ? NULL : kw) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"call", call, METH_VARARGS, NULL},
    {"init", init, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "st_call_slot_kw", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_st_call_slot_kw(void)
{
    return PyModule_Create(&moddef);
}
