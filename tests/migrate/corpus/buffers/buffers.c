/* A buffer of doubles in native memory with a list of Python objects
 * beside it.  Its deallocator does both: it calls a helper that uses the
 * API (tells its owner, empties the list), then frees the native memory.
 * The translator splits it (destructor-split): the helper's call becomes
 * a finalizer, the free() stays in the destructor. */
#include <Python.h>
#include <stdlib.h>

/* Native buffers allocated and not yet freed. */
static Py_ssize_t live_buffers;

typedef struct {
    PyObject_HEAD
    PyObject *items;
    PyObject *on_close;
    double *data;
    Py_ssize_t size;
} Buffer;

/* Call on_close with the number of items, then empty the list. */
static int
Buffer_release_items(Buffer *self)
{
    if (self->items == NULL)
        return 0;
    if (self->on_close != NULL && self->on_close != Py_None) {
        PyObject *r = PyObject_CallFunction(self->on_close, "n", PyList_GET_SIZE(self->items));
        if (r == NULL)
            return -1;
        Py_DECREF(r);
    }
    return PyList_SetSlice(self->items, 0, PyList_GET_SIZE(self->items), NULL);
}

static PyObject *
Buffer_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"size", "on_close", NULL};
    Py_ssize_t size;
    PyObject *on_close = Py_None;
    Buffer *self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "n|O", kwlist, &size, &on_close))
        return NULL;
    if (size < 1) {
        PyErr_SetString(PyExc_ValueError, "size must be positive");
        return NULL;
    }
    self = (Buffer *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->items = PyList_New(0);
    if (self->items == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    Py_INCREF(on_close);
    self->on_close = on_close;
    self->data = calloc((size_t)size, sizeof(double));
    if (self->data == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    live_buffers++;
    self->size = size;
    return (PyObject *)self;
}

static int
Buffer_traverse(Buffer *self, visitproc visit, void *arg)
{
    Py_VISIT(self->items);
    Py_VISIT(self->on_close);
    return 0;
}

static int
Buffer_clear(Buffer *self)
{
    Py_CLEAR(self->items);
    Py_CLEAR(self->on_close);
    return 0;
}

static void
Buffer_dealloc(Buffer *self)
{
    PyObject_GC_UnTrack(self);
    /* tell the owner and let go of the items first */
    if (Buffer_release_items(self) < 0)
        PyErr_WriteUnraisable((PyObject *)self);
    Buffer_clear(self);
    if (self->data != NULL) {
        free(self->data);
        live_buffers--;
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Buffer_append(Buffer *self, PyObject *item)
{
    if (PyList_Append(self->items, item) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
Buffer_fill(Buffer *self, PyObject *arg)
{
    double v = PyFloat_AsDouble(arg);
    Py_ssize_t i;
    if (v == -1.0 && PyErr_Occurred())
        return NULL;
    for (i = 0; i < self->size; i++)
        self->data[i] = v * (double)(i + 1);
    Py_RETURN_NONE;
}

static PyObject *
Buffer_total(Buffer *self, PyObject *unused)
{
    double t = 0.0;
    Py_ssize_t i;
    for (i = 0; i < self->size; i++)
        t += self->data[i];
    return PyFloat_FromDouble(t);
}

static PyObject *
Buffer_close(Buffer *self, PyObject *unused)
{
    if (Buffer_release_items(self) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef Buffer_methods[] = {
    {"append", (PyCFunction)Buffer_append, METH_O, "Keep an object with the buffer."},
    {"fill", (PyCFunction)Buffer_fill, METH_O, "Set item i to v * (i + 1)."},
    {"total", (PyCFunction)Buffer_total, METH_NOARGS, "The sum of the items."},
    {"close", (PyCFunction)Buffer_close, METH_NOARGS, "Tell the owner, let go of the objects."},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "buffers.Buffer",
    .tp_basicsize = sizeof(Buffer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_dealloc = (destructor)Buffer_dealloc,
    .tp_traverse = (traverseproc)Buffer_traverse,
    .tp_clear = (inquiry)Buffer_clear,
    .tp_methods = Buffer_methods,
    .tp_new = Buffer_new,
};

static PyObject *
live(PyObject *module, PyObject *unused)
{
    return PyLong_FromSsize_t(live_buffers);
}

static PyMethodDef module_methods[] = {
    {"live", live, METH_NOARGS, "Native buffers not yet freed."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "buffers", "Buffers of doubles beside lists of objects.", -1, module_methods
};

PyMODINIT_FUNC
PyInit_buffers(void)
{
    PyObject *m;
    if (PyType_Ready(&BufferType) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BufferType);
    if (PyModule_AddObject(m, "Buffer", (PyObject *)&BufferType) < 0) {
        Py_DECREF(&BufferType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
