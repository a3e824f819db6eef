/* The stock C API counterpart of rt_types.c, where CPython defines the
 * behaviour: instantiation and the module of a type. */
#include <Python.h>
#include <structmember.h>

/* A type from a spec without Py_tp_new: it inherits object's. */
typedef struct {
    PyObject_HEAD
    long n;
} PlainObject;

static PyMemberDef Plain_members[] = {
    {"n", T_LONG, offsetof(PlainObject, n), 0, "a number"},
    {NULL}
};
static PyType_Slot Plain_slots[] = {
    {Py_tp_members, Plain_members},
    {Py_tp_doc, "no tp_new"},
    {0, NULL}
};
static PyType_Spec Plain_spec = {
    "st_types.Plain", sizeof(PlainObject), 0, Py_TPFLAGS_DEFAULT, Plain_slots
};

/* The idiom for a type only the module creates. */
static PyTypeObject SealedType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "st_types.Sealed",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "made by sealed()",
    .tp_new = PyType_GenericNew,
};

/* A static type named without its module. */
static PyTypeObject BareType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "Bare",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "made by bare()",
};

static PyObject *sealed(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    return PyObject_New(PyObject, &SealedType);
}

static PyObject *bare(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    return PyObject_New(PyObject, &BareType);
}

static PyMethodDef methods[] = {
    {"sealed", sealed, METH_NOARGS, "a new Sealed"},
    {"bare", bare, METH_NOARGS, "a new Bare"},
    {NULL}
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "st_types", "Stock counterpart of rt_types.", -1, methods
};

PyMODINIT_FUNC PyInit_st_types(void)
{
    PyObject *m, *plain;
    if (PyType_Ready(&SealedType) < 0 || PyType_Ready(&BareType) < 0)
        return NULL;
    SealedType.tp_new = NULL;
    m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    plain = PyType_FromSpec(&Plain_spec);
    if (plain == NULL || PyModule_AddObject(m, "Plain", plain) < 0 ||
        PyModule_AddType(m, &SealedType) < 0 || PyModule_AddType(m, &BareType) < 0) {
        Py_XDECREF(plain);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
