/* Stock code reading a type's MRO and dict and calling descriptor slots
 * (tests/runtime/test_type_descr.py builds it as it is and as
 * cystck-migrate translates it, and compares both with rt_type_descr.c). */
#include <Python.h>

static PyObject *
mro(PyObject *self, PyObject *t)
{
    PyObject *m;
    if (!PyType_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "not a type");
        return NULL;
    }
    m = ((PyTypeObject *)t)->tp_mro;
    Py_INCREF(m);
    return m;
}

static PyObject *
dict(PyObject *self, PyObject *t)
{
    PyObject *d;
    if (!PyType_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "not a type");
        return NULL;
    }
    d = ((PyTypeObject *)t)->tp_dict;
    Py_INCREF(d);
    return d;
}

static PyObject *
has_get(PyObject *self, PyObject *o)
{
    return PyBool_FromLong(Py_TYPE(o)->tp_descr_get != NULL);
}

static PyObject *
has_set(PyObject *self, PyObject *o)
{
    if (Py_TYPE(o)->tp_descr_set)
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* None stands for NULL. */
static PyObject *
or_null(PyObject *o)
{
    return o == Py_None ? NULL : o;
}

static PyObject *
get(PyObject *self, PyObject *args)
{
    PyObject *d, *obj, *type;
    if (!PyArg_ParseTuple(args, "OOO", &d, &obj, &type))
        return NULL;
    if (Py_TYPE(d)->tp_descr_get == NULL) {
        PyErr_SetString(PyExc_TypeError, "not a descriptor");
        return NULL;
    }
    return Py_TYPE(d)->tp_descr_get(d, or_null(obj), or_null(type));
}

static PyObject *
set(PyObject *self, PyObject *args)
{
    PyObject *d, *obj, *v;
    if (!PyArg_ParseTuple(args, "OOO", &d, &obj, &v))
        return NULL;
    if (!Py_TYPE(d)->tp_descr_set) {
        PyErr_SetString(PyExc_TypeError, "not a data descriptor");
        return NULL;
    }
    if ((Py_TYPE(d)->tp_descr_set)(d, obj, v) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
delete(PyObject *self, PyObject *args)
{
    PyObject *d, *obj;
    if (!PyArg_ParseTuple(args, "OO", &d, &obj))
        return NULL;
    if (Py_TYPE(d)->tp_descr_set == NULL) {
        PyErr_SetString(PyExc_TypeError, "not a data descriptor");
        return NULL;
    }
    if (Py_TYPE(d)->tp_descr_set(d, obj, NULL) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* What _PyType_Lookup does: the first entry for name in the dicts of t's
 * MRO, or None. */
static PyObject *
lookup(PyObject *self, PyObject *args)
{
    PyObject *type, *name, *mro;
    Py_ssize_t i, n;
    if (!PyArg_ParseTuple(args, "O!U", &PyType_Type, &type, &name))
        return NULL;
    mro = ((PyTypeObject *)type)->tp_mro;
    if (mro == NULL)
        Py_RETURN_NONE;
    n = PyTuple_GET_SIZE(mro);
    for (i = 0; i < n; i++) {
        PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        PyObject *dict = t->tp_dict;
        PyObject *entry;
        if (dict == NULL)
            continue;
        entry = PyDict_GetItemWithError(dict, name);
        if (entry != NULL)
            return Py_NewRef(entry);
        if (PyErr_Occurred())
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"mro", mro, METH_O, NULL},
    {"dict", dict, METH_O, NULL},
    {"has_get", has_get, METH_O, NULL},
    {"has_set", has_set, METH_O, NULL},
    {"get", get, METH_VARARGS, NULL},
    {"set", set, METH_VARARGS, NULL},
    {"delete", delete, METH_VARARGS, NULL},
    {"lookup", lookup, METH_VARARGS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
