/* Deallocators that call the API and free memory the object points at,
 * and a type with a finalizer of its own: what the translator must keep.
 * Block's deallocator notes its death in a list (the API), then frees its
 * buffer (PyObject_Malloc'd: tracemalloc sees it).  Closer has its own
 * finalizer (tp_finalize), which its deallocator calls first, then notes
 * its death and frees its buffer.  Both can be subclassed in Python. */
#include <Python.h>
#include <string.h>

/* Buffers allocated and not yet freed. */
static Py_ssize_t live_buffers;

/* Append `what` to `log`, a list (None: no log). */
static int
note(PyObject *log, const char *what)
{
    PyObject *s;
    int r;
    if (log == NULL || log == Py_None)
        return 0;
    s = PyUnicode_FromString(what);
    if (s == NULL)
        return -1;
    r = PyList_Append(log, s);
    Py_DECREF(s);
    return r;
}

typedef struct {
    PyObject_HEAD
    PyObject *log;
    char *buf;
} Block;

static int
Block_note(Block *self, const char *what)
{
    return note(self->log, what);
}

static PyObject *
Block_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *log;
    Py_ssize_t size;
    Block *self;
    if (!PyArg_ParseTuple(args, "On", &log, &size))
        return NULL;
    self = (Block *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_INCREF(log);
    self->log = log;
    self->buf = (char *)PyObject_Malloc((size_t)size + 1);
    if (self->buf == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    memset(self->buf, 1, (size_t)size + 1);
    live_buffers++;
    return (PyObject *)self;
}

static int
Block_traverse(Block *self, visitproc visit, void *arg)
{
    Py_VISIT(self->log);
    return 0;
}

static int
Block_clear(Block *self)
{
    Py_CLEAR(self->log);
    return 0;
}

static void
Block_dealloc(Block *self)
{
    PyObject_GC_UnTrack(self);
    if (Block_note(self, "Block dealloc") < 0)
        PyErr_WriteUnraisable((PyObject *)self);
    Py_CLEAR(self->log);
    PyObject_Free(self->buf);
    live_buffers--;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject BlockType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "releases.Block",
    .tp_basicsize = sizeof(Block),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_dealloc = (destructor)Block_dealloc,
    .tp_traverse = (traverseproc)Block_traverse,
    .tp_clear = (inquiry)Block_clear,
    .tp_new = Block_new,
};

typedef struct {
    PyObject_HEAD
    PyObject *log;
    char *buf;
} Closer;

static int
Closer_note(Closer *self, const char *what)
{
    return note(self->log, what);
}

static PyObject *
Closer_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *log;
    Closer *self;
    if (!PyArg_ParseTuple(args, "O", &log))
        return NULL;
    self = (Closer *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_INCREF(log);
    self->log = log;
    self->buf = (char *)PyMem_Malloc(64);
    if (self->buf == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    live_buffers++;
    return (PyObject *)self;
}

static int
Closer_traverse(Closer *self, visitproc visit, void *arg)
{
    Py_VISIT(self->log);
    return 0;
}

static int
Closer_clear(Closer *self)
{
    Py_CLEAR(self->log);
    return 0;
}

static void
Closer_finalize(PyObject *op)
{
    Closer *self = (Closer *)op;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (Closer_note(self, "Closer finalize") < 0)
        PyErr_WriteUnraisable(op);
    PyErr_Restore(type, value, tb);
}

static void
Closer_dealloc(PyObject *op)
{
    Closer *self = (Closer *)op;
    if (PyObject_CallFinalizerFromDealloc(op) < 0)
        return;
    PyObject_GC_UnTrack(op);
    if (Closer_note(self, "Closer dealloc") < 0)
        PyErr_WriteUnraisable(op);
    Py_CLEAR(self->log);
    PyMem_Free(self->buf);
    live_buffers--;
    Py_TYPE(op)->tp_free(op);
}

static PyTypeObject CloserType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "releases.Closer",
    .tp_basicsize = sizeof(Closer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_dealloc = Closer_dealloc,
    .tp_traverse = (traverseproc)Closer_traverse,
    .tp_clear = (inquiry)Closer_clear,
    .tp_finalize = Closer_finalize,
    .tp_new = Closer_new,
};

static PyObject *
live(PyObject *module, PyObject *unused)
{
    return PyLong_FromSsize_t(live_buffers);
}

static PyMethodDef module_methods[] = {
    {"live", live, METH_NOARGS, "Buffers not yet freed."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "releases", "Deallocators calling the API, a finalizer.", -1, module_methods
};

PyMODINIT_FUNC
PyInit_releases(void)
{
    PyObject *m;
    if (PyType_Ready(&BlockType) < 0 || PyType_Ready(&CloserType) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BlockType);
    if (PyModule_AddObject(m, "Block", (PyObject *)&BlockType) < 0) {
        Py_DECREF(&BlockType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&CloserType);
    if (PyModule_AddObject(m, "Closer", (PyObject *)&CloserType) < 0) {
        Py_DECREF(&CloserType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
