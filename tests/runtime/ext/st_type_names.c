/* Stock code reading a type's names and flags (tp_name, a heap type's
 * ht_name and ht_qualname, PyType_HasFeature): tests/runtime/
 * test_type_names.py builds it as it is and as cystck-migrate translates
 * it, and compares the two. */
#include <Python.h>
#include <string.h>

/* The name of obj's type as type(obj).__name__ spells it. */
static const char *
short_name(PyObject *obj)
{
    PyTypeObject *tp = Py_TYPE(obj);
    const char *dot;
    if (PyType_HasFeature(tp, Py_TPFLAGS_HEAPTYPE)) {
        PyObject *name = ((PyHeapTypeObject *)tp)->ht_name;
        if (PyUnicode_IS_ASCII(name))
            return (const char *)PyUnicode_DATA(name);
        return tp->tp_name;
    }
    dot = strrchr(tp->tp_name, '.');
    return dot == NULL ? tp->tp_name : dot + 1;
}

static PyObject *
name_of(PyObject *self, PyObject *o)
{
    return PyUnicode_FromString(short_name(o));
}

static PyObject *
refuse(PyObject *self, PyObject *o)
{
    PyErr_Format(PyExc_TypeError, "cannot take %.100s", short_name(o));
    return NULL;
}

static PyObject *
qualname(PyObject *self, PyObject *t)
{
    PyObject *q;
    if (!PyType_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "not a type");
        return NULL;
    }
    if (!PyType_HasFeature((PyTypeObject *)t, Py_TPFLAGS_HEAPTYPE))
        return PyUnicode_FromString(((PyTypeObject *)t)->tp_name);
    q = ((PyHeapTypeObject *)t)->ht_qualname;
    Py_INCREF(q);
    return q;
}

static PyObject *
flags(PyObject *self, PyObject *t)
{
    PyTypeObject *tp;
    if (!PyType_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "not a type");
        return NULL;
    }
    tp = (PyTypeObject *)t;
    return Py_BuildValue("(iii)", PyType_HasFeature(tp, Py_TPFLAGS_HEAPTYPE),
                         PyType_HasFeature(tp, Py_TPFLAGS_BASETYPE),
                         PyType_HasFeature(tp, Py_TPFLAGS_LONG_SUBCLASS));
}

static PyMethodDef methods[] = {
    {"name_of", name_of, METH_O, NULL},
    {"refuse", refuse, METH_O, NULL},
    {"qualname", qualname, METH_O, NULL},
    {"flags", flags, METH_O, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
