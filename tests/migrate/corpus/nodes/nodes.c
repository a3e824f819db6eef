/* Variable-size nodes whose items are objects stored inline (the HAMT
 * idiom): PyObject_VAR_HEAD, PyObject *items[1], PyObject_GC_NewVar,
 * Py_SIZE, two types sharing their slots through a macro, type objects
 * declared in a header. */
#include "nodes.h"

typedef struct {
    PyObject_VAR_HEAD
    long tag;
    PyObject *items[1];
} Node;

static PyObject *
node_new(PyTypeObject *type, Py_ssize_t n, long tag)
{
    Node *node = PyObject_GC_NewVar(Node, type, n);
    Py_ssize_t i;
    if (node == NULL)
        return NULL;
    for (i = 0; i < n; i++)
        node->items[i] = NULL;
    node->tag = tag;
    PyObject_GC_Track(node);
    return (PyObject *)node;
}

static PyObject *
make(PyObject *module, PyObject *args)
{
    Py_ssize_t i, n = PyTuple_GET_SIZE(args);
    Node *node = (Node *)node_new(&Row_Type, n, 100 + (long)n);
    if (node == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(args, i);
        Py_INCREF(v);
        node->items[i] = v;
    }
    return (PyObject *)node;
}

static PyObject *
node_get(Node *self, PyObject *arg)
{
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= Py_SIZE(self)) {
        PyErr_SetString(PyExc_IndexError, "node index out of range");
        return NULL;
    }
    PyObject *v = self->items[i];
    Py_INCREF(v);
    return v;
}

static PyObject *
node_size(Node *self, PyObject *unused)
{
    return PyLong_FromSsize_t(Py_SIZE(self));
}

static PyObject *
node_tag(Node *self, PyObject *unused)
{
    return PyLong_FromLong(self->tag);
}

/* A copy with item i replaced: the nodes are immutable. */
static PyObject *
node_with(Node *self, PyObject *args)
{
    Py_ssize_t i, k;
    PyObject *v;
    Node *copy;
    if (!PyArg_ParseTuple(args, "nO", &i, &v))
        return NULL;
    if (i < 0 || i >= Py_SIZE(self)) {
        PyErr_SetString(PyExc_IndexError, "node index out of range");
        return NULL;
    }
    copy = (Node *)node_new(&Col_Type, Py_SIZE(self), self->tag + 1);
    if (copy == NULL)
        return NULL;
    for (k = 0; k < Py_SIZE(self); k++) {
        Py_INCREF(self->items[k]);
        copy->items[k] = self->items[k];
    }
    Py_INCREF(v);
    Py_SETREF(copy->items[i], v);
    return (PyObject *)copy;
}

static int
node_traverse(Node *self, visitproc visit, void *arg)
{
    Py_ssize_t i;
    for (i = Py_SIZE(self); --i >= 0; ) {
        Py_VISIT(self->items[i]);
    }
    return 0;
}

static int
node_clear(Node *self)
{
    Py_ssize_t i;
    for (i = 0; i < Py_SIZE(self); i++) {
        Py_CLEAR(self->items[i]);
    }
    return 0;
}

static void
node_dealloc(Node *self)
{
    PyObject_GC_UnTrack(self);
    (void)node_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef node_methods[] = {
    {"get", (PyCFunction)node_get, METH_O, NULL},
    {"size", (PyCFunction)node_size, METH_NOARGS, NULL},
    {"tag", (PyCFunction)node_tag, METH_NOARGS, NULL},
    {"with_item", (PyCFunction)node_with, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

#define NODE_TYPE_SLOTS                                         \
    .tp_basicsize = sizeof(Node) - sizeof(PyObject *),          \
    .tp_itemsize = sizeof(PyObject *),                          \
    .tp_dealloc = (destructor)node_dealloc,                     \
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,        \
    .tp_traverse = (traverseproc)node_traverse,                 \
    .tp_clear = (inquiry)node_clear,                            \
    .tp_methods = node_methods,

PyTypeObject Row_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    "nodes.Row",
    NODE_TYPE_SLOTS
};

PyTypeObject Col_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    "nodes.Col",
    NODE_TYPE_SLOTS
};

static PyMethodDef module_methods[] = {
    {"make", (PyCFunction)make, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef nodes_module = {
    PyModuleDef_HEAD_INIT, "nodes", NULL, -1, module_methods
};

PyMODINIT_FUNC
PyInit_nodes(void)
{
    PyObject *m;
    if (PyType_Ready(&Row_Type) < 0 || PyType_Ready(&Col_Type) < 0)
        return NULL;
    m = PyModule_Create(&nodes_module);
    if (m == NULL)
        return NULL;
    return m;
}
