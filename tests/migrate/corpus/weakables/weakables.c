/* Types whose instances can be weakly referenced: a static type with
 * tp_weaklistoffset (its dealloc clears the weak references under a
 * guard), a type made from a spec that names its weak list with a
 * __weaklistoffset__ member, and, for contrast, a type without one. */
#include <Python.h>
#include <structmember.h>

/* Leaf's destructor counts here (a destructor has no state to call the
 * API with), so a check sees that weak-reference callbacks run before
 * the instance's native resources are released. */
static long leaves_freed;

typedef struct {
    PyObject_HEAD
    long value;
    PyObject *weakreflist;
} Node;

static PyObject *Node_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Node *self;
    long value = 0;
    if (!PyArg_ParseTuple(args, "|l", &value))
        return NULL;
    self = (Node *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->value = value;
    self->weakreflist = NULL;
    return (PyObject *)self;
}

static void Node_dealloc(Node *self)
{
    if (self->weakreflist != NULL)
        PyObject_ClearWeakRefs((PyObject *)self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Node_get_value(Node *self, void *closure)
{
    return PyLong_FromLong(self->value);
}

static PyGetSetDef Node_getset[] = {
    {"value", (getter)Node_get_value, NULL, "the value", NULL},
    {NULL}
};

static PyTypeObject NodeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "weakables.Node",
    .tp_basicsize = sizeof(Node),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_dealloc = (destructor)Node_dealloc,
    .tp_weaklistoffset = offsetof(Node, weakreflist),
    .tp_getset = Node_getset,
    .tp_new = Node_new,
};

typedef struct {
    PyObject_HEAD
    PyObject *weakrefs;
    double *samples;
} Leaf;

static PyObject *Leaf_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Leaf *self = (Leaf *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->samples = PyMem_Malloc(4 * sizeof(double));
    if (self->samples == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->samples[0] = 1.5;
    return (PyObject *)self;
}

static void Leaf_dealloc(Leaf *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_ClearWeakRefs((PyObject *)self);
    PyMem_Free(self->samples);
    leaves_freed++;
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

static PyObject *Leaf_first(Leaf *self, PyObject *unused)
{
    return PyFloat_FromDouble(self->samples[0]);
}

static PyMethodDef Leaf_methods[] = {
    {"first", (PyCFunction)Leaf_first, METH_NOARGS, "the first sample"},
    {NULL, NULL, 0, NULL}
};

static PyMemberDef Leaf_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(Leaf, weakrefs), READONLY},
    {NULL}
};

static PyType_Slot Leaf_slots[] = {
    {Py_tp_new, Leaf_new},
    {Py_tp_dealloc, Leaf_dealloc},
    {Py_tp_methods, Leaf_methods},
    {Py_tp_members, Leaf_members},
    {0, NULL}
};

static PyType_Spec Leaf_spec = {"weakables.Leaf", sizeof(Leaf), 0, Py_TPFLAGS_DEFAULT, Leaf_slots};

typedef struct {
    PyObject_HEAD
    long value;
} Plain;

static PyTypeObject PlainType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "weakables.Plain",
    .tp_basicsize = sizeof(Plain),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
};

static PyObject *freed(PyObject *self, PyObject *unused)
{
    return PyLong_FromLong(leaves_freed);
}

static PyMethodDef module_methods[] = {
    {"freed", (PyCFunction)freed, METH_NOARGS, "how many Leaf instances were freed"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "weakables", NULL, -1, module_methods,
};

PyMODINIT_FUNC PyInit_weakables(void)
{
    PyObject *m, *leaf;
    if (PyType_Ready(&NodeType) < 0 || PyType_Ready(&PlainType) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    if (PyModule_AddType(m, &NodeType) < 0 || PyModule_AddType(m, &PlainType) < 0)
        return NULL;
    leaf = PyType_FromSpec(&Leaf_spec);
    if (leaf == NULL || PyModule_AddObject(m, "Leaf", leaf) < 0)
        return NULL;
    return m;
}
