/* Stock code reading types' flags (PyType_GetFlags; the tp_flags member
 * through a variable, of Py_TYPE(o), of a cast object; a stock type's
 * flags): tests/runtime/test_type_flags.py builds it as it is and as
 * cystck-migrate translates it, and compares the two. */
#include <Python.h>

/* A helper that reads only flags: ported with the rest, not kept stock. */
static int
is_heap_type(PyTypeObject *tp)
{
    return (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0;
}

static PyObject *
flags_of(PyObject *self, PyObject *o)
{
    PyTypeObject *tp = Py_TYPE(o);
    unsigned long flags = PyType_GetFlags(tp);
    return Py_BuildValue("(kiiii)", flags,
                         (PyType_GetFlags(Py_TYPE(o)) & Py_TPFLAGS_LONG_SUBCLASS) != 0,
                         (tp->tp_flags & Py_TPFLAGS_BASETYPE) != 0,
                         (Py_TYPE(o)->tp_flags & Py_TPFLAGS_TUPLE_SUBCLASS) != 0,
                         is_heap_type(tp));
}

static PyObject *
type_flags(PyObject *self, PyObject *t)
{
    if (!PyType_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "not a type");
        return NULL;
    }
    if (((PyTypeObject *)t)->tp_flags & Py_TPFLAGS_IS_ABSTRACT)
        return PyUnicode_FromString("abstract");
    return PyLong_FromUnsignedLong(((PyTypeObject *)t)->tp_flags);
}

static PyObject *
int_flags(PyObject *self, PyObject *unused)
{
    return PyLong_FromUnsignedLong(PyType_GetFlags(&PyLong_Type));
}

static PyMethodDef methods[] = {
    {"flags_of", flags_of, METH_O, NULL},
    {"type_flags", type_flags, METH_O, NULL},
    {"int_flags", int_flags, METH_NOARGS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
