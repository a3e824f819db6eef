#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

static PyObject *RingError;

/* ---------- Ring: a GC container type ---------- */
typedef struct {
    PyObject_HEAD
    PyObject **items;
    Py_ssize_t cap, len, head;
    PyObject *on_evict;       /* callable or NULL */
    PyObject *weakreflist;
    int frozen;
} RingObject;

static PyTypeObject RingType;

static int
Ring_traverse(RingObject *self, visitproc visit, void *arg)
{
    Py_ssize_t i;
    for (i = 0; i < self->len; i++)
        Py_VISIT(self->items[(self->head + i) % self->cap]);
    Py_VISIT(self->on_evict);
    return 0;
}

static int
Ring_clear(RingObject *self)
{
    Py_ssize_t i;
    for (i = 0; i < self->len; i++)
        Py_CLEAR(self->items[(self->head + i) % self->cap]);
    self->len = 0;
    Py_CLEAR(self->on_evict);
    return 0;
}

static void
Ring_dealloc(RingObject *self)
{
    PyObject_GC_UnTrack(self);
    if (self->weakreflist != NULL)
        PyObject_ClearWeakRefs((PyObject *)self);
    Ring_clear(self);
    PyMem_Free(self->items);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Ring_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    RingObject *self;
    Py_ssize_t cap = 8;
    PyObject *on_evict = NULL;
    static char *kwlist[] = {"capacity", "on_evict", NULL};

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|nO:Ring", kwlist, &cap, &on_evict))
        return NULL;
    if (cap <= 0) {
        PyErr_SetString(PyExc_ValueError, "capacity must be positive");
        return NULL;
    }
    if (on_evict == Py_None)
        on_evict = NULL;
    if (on_evict != NULL && !PyCallable_Check(on_evict)) {
        PyErr_Format(PyExc_TypeError, "on_evict must be callable, not %.100s",
                     Py_TYPE(on_evict)->tp_name);
        return NULL;
    }
    self = (RingObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->items = PyMem_Calloc(cap, sizeof(PyObject *));
    if (self->items == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->cap = cap;
    Py_XINCREF(on_evict);
    self->on_evict = on_evict;
    return (PyObject *)self;
}

static PyObject *
Ring_push(RingObject *self, PyObject *item)
{
    if (self->frozen) {
        PyErr_SetString(RingError, "ring is frozen");
        return NULL;
    }
    if (self->len == self->cap) {
        PyObject *old = self->items[self->head];
        self->items[self->head] = NULL;
        self->head = (self->head + 1) % self->cap;
        self->len--;
        if (self->on_evict) {
            PyObject *r = PyObject_CallFunctionObjArgs(self->on_evict, old, NULL);
            Py_DECREF(old);
            if (r == NULL)
                return NULL;
            Py_DECREF(r);
        } else {
            Py_DECREF(old);
        }
    }
    Py_INCREF(item);
    self->items[(self->head + self->len) % self->cap] = item;
    self->len++;
    Py_RETURN_NONE;
}

static PyObject *
Ring_pop(RingObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *item;
    if (self->len == 0) {
        PyErr_SetString(PyExc_IndexError, "pop from empty ring");
        return NULL;
    }
    self->len--;
    item = self->items[(self->head + self->len) % self->cap];
    self->items[(self->head + self->len) % self->cap] = NULL;
    return item;   /* the ring's reference passes to the caller */
}

static PyObject *
Ring_extend(RingObject *self, PyObject *iterable)
{
    PyObject *it, *item;
    it = PyObject_GetIter(iterable);
    if (it == NULL)
        return NULL;
    while ((item = PyIter_Next(it)) != NULL) {
        PyObject *r = Ring_push(self, item);
        Py_DECREF(item);
        if (r == NULL) {
            Py_DECREF(it);
            return NULL;
        }
        Py_DECREF(r);
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
Ring_tolist(RingObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(self->len);
    Py_ssize_t i;
    if (!list)
        return NULL;
    for (i = 0; i < self->len; i++) {
        PyObject *o = self->items[(self->head + i) % self->cap];
        Py_INCREF(o);
        PyList_SET_ITEM(list, i, o);
    }
    return list;
}

static PyObject *
Ring_stats(RingObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"verbose", NULL};
    int verbose = 0;
    PyObject *d;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|p", kwlist, &verbose))
        return NULL;
    d = PyDict_New();
    if (d == NULL)
        return NULL;
    if (PyDict_SetItemString(d, "len", PyLong_FromSsize_t(self->len)) < 0)
        goto error;
    if (verbose) {
        PyObject *cap = PyLong_FromSsize_t(self->cap);
        if (cap == NULL || PyDict_SetItemString(d, "capacity", cap) < 0) {
            Py_XDECREF(cap);
            goto error;
        }
        Py_DECREF(cap);
    }
    return d;
error:
    Py_DECREF(d);
    return NULL;
}

static Py_ssize_t
Ring_length(RingObject *self)
{
    return self->len;
}

static PyObject *
Ring_item(RingObject *self, Py_ssize_t i)
{
    PyObject *o;
    if (i < 0 || i >= self->len) {
        PyErr_SetString(PyExc_IndexError, "ring index out of range");
        return NULL;
    }
    o = self->items[(self->head + i) % self->cap];
    Py_INCREF(o);
    return o;
}

static int
Ring_contains(RingObject *self, PyObject *value)
{
    Py_ssize_t i;
    for (i = 0; i < self->len; i++) {
        int cmp = PyObject_RichCompareBool(self->items[(self->head + i) % self->cap], value, Py_EQ);
        if (cmp != 0)
            return cmp;
    }
    return 0;
}

static PyObject *
Ring_richcompare(RingObject *a, PyObject *b, int op)
{
    PyObject *la, *lb, *res;
    if (!PyObject_TypeCheck(b, &RingType) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    la = Ring_tolist(a, NULL);
    if (la == NULL)
        return NULL;
    lb = Ring_tolist((RingObject *)b, NULL);
    if (lb == NULL) {
        Py_DECREF(la);
        return NULL;
    }
    res = PyObject_RichCompare(la, lb, op);
    Py_DECREF(la);
    Py_DECREF(lb);
    return res;
}

static PyObject *
Ring_repr(RingObject *self)
{
    PyObject *l = Ring_tolist(self, NULL), *r;
    if (l == NULL)
        return NULL;
    r = PyUnicode_FromFormat("Ring(%R, capacity=%zd)", l, self->cap);
    Py_DECREF(l);
    return r;
}

static PyObject *
Ring_get_full(RingObject *self, void *closure)
{
    return PyBool_FromLong(self->len == self->cap);
}

static PyObject *
Ring_get_on_evict(RingObject *self, void *closure)
{
    if (self->on_evict == NULL)
        Py_RETURN_NONE;
    Py_INCREF(self->on_evict);
    return self->on_evict;
}

static int
Ring_set_on_evict(RingObject *self, PyObject *value, void *closure)
{
    PyObject *tmp;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete on_evict");
        return -1;
    }
    if (value != Py_None && !PyCallable_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "on_evict must be callable");
        return -1;
    }
    tmp = self->on_evict;
    if (value == Py_None) {
        self->on_evict = NULL;
    } else {
        Py_INCREF(value);
        self->on_evict = value;
    }
    Py_XDECREF(tmp);
    return 0;
}

static PyMethodDef Ring_methods[] = {
    {"push", (PyCFunction)Ring_push, METH_O, "Append an item."},
    {"pop", (PyCFunction)Ring_pop, METH_NOARGS, "Remove the newest item."},
    {"extend", (PyCFunction)Ring_extend, METH_O, "Append every item."},
    {"tolist", (PyCFunction)Ring_tolist, METH_NOARGS, "The items as a list."},
    {"stats", (PyCFunction)(void(*)(void))Ring_stats, METH_VARARGS | METH_KEYWORDS, "Statistics."},
    {NULL, NULL, 0, NULL}
};

static PyMemberDef Ring_members[] = {
    {"capacity", T_PYSSIZET, offsetof(RingObject, cap), READONLY, "capacity"},
    {"frozen", T_BOOL, offsetof(RingObject, frozen), 0, "frozen flag"},
    {NULL}
};

static PyGetSetDef Ring_getset[] = {
    {"full", (getter)Ring_get_full, NULL, "whether the ring is full", NULL},
    {"on_evict", (getter)Ring_get_on_evict, (setter)Ring_set_on_evict, "eviction callback", NULL},
    {NULL}
};

static PySequenceMethods Ring_as_sequence = {
    (lenfunc)Ring_length,        /* sq_length */
    0,                           /* sq_concat */
    0,                           /* sq_repeat */
    (ssizeargfunc)Ring_item,     /* sq_item */
    0, 0, 0,
    (objobjproc)Ring_contains,   /* sq_contains */
};

static PyTypeObject RingType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ring.Ring",
    .tp_basicsize = sizeof(RingObject),
    .tp_dealloc = (destructor)Ring_dealloc,
    .tp_repr = (reprfunc)Ring_repr,
    .tp_as_sequence = &Ring_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A ring buffer.",
    .tp_traverse = (traverseproc)Ring_traverse,
    .tp_clear = (inquiry)Ring_clear,
    .tp_richcompare = (richcmpfunc)Ring_richcompare,
    .tp_weaklistoffset = offsetof(RingObject, weakreflist),
    .tp_methods = Ring_methods,
    .tp_members = Ring_members,
    .tp_getset = Ring_getset,
    .tp_new = Ring_new,
};

/* ---------- module functions ---------- */
static PyObject *
ring_word_counts(PyObject *module, PyObject *args)
{
    const char *text;
    Py_ssize_t n, i, start = -1;
    PyObject *counts;
    if (!PyArg_ParseTuple(args, "s#:word_counts", &text, &n))
        return NULL;
    counts = PyDict_New();
    if (counts == NULL)
        return NULL;
    for (i = 0; i <= n; i++) {
        int sep = (i == n) || text[i] == ' ';
        if (!sep && start < 0)
            start = i;
        else if (sep && start >= 0) {
            PyObject *w = PyUnicode_FromStringAndSize(text + start, i - start);
            PyObject *c, *nc;
            long v = 0;
            if (w == NULL)
                goto fail;
            c = PyDict_GetItemWithError(counts, w);
            if (c == NULL && PyErr_Occurred()) {
                Py_DECREF(w);
                goto fail;
            }
            if (c != NULL)
                v = PyLong_AsLong(c);
            nc = PyLong_FromLong(v + 1);
            if (nc == NULL || PyDict_SetItem(counts, w, nc) < 0) {
                Py_DECREF(w);
                Py_XDECREF(nc);
                goto fail;
            }
            Py_DECREF(w);
            Py_DECREF(nc);
            start = -1;
        }
    }
    return counts;
fail:
    Py_DECREF(counts);
    return NULL;
}

static PyObject *
ring_sorted_items(PyObject *module, PyObject *d)
{
    PyObject *key, *value, *list;
    Py_ssize_t pos = 0;
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "expected a dict");
        return NULL;
    }
    list = PyList_New(0);
    if (list == NULL)
        return NULL;
    while (PyDict_Next(d, &pos, &key, &value)) {
        PyObject *t = PyTuple_Pack(2, key, value);
        if (t == NULL || PyList_Append(list, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(t);
    }
    if (PyList_Sort(list) < 0) {
        Py_DECREF(list);
        return NULL;
    }
    return list;
}

static PyObject *
ring_scale(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"values", "factor", "offset", NULL};
    PyObject *values, *seq, *out;
    double factor, offset = 0.0;
    Py_ssize_t i, n;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Od|d:scale", kwlist, &values, &factor, &offset))
        return NULL;
    seq = PySequence_Fast(values, "values must be a sequence");
    if (seq == NULL)
        return NULL;
    n = PySequence_Fast_GET_SIZE(seq);
    out = PyTuple_New(n);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        double x = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (x == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, PyFloat_FromDouble(x * factor + offset));
    }
    Py_DECREF(seq);
    return out;
}

static PyObject *
ring_describe(PyObject *module, PyObject *obj)
{
    const char *kind;
    if (PyLong_Check(obj))
        kind = "int";
    else if (PyUnicode_Check(obj))
        kind = "str";
    else if (PyBytes_Check(obj))
        kind = "bytes";
    else if (PyList_Check(obj) || PyTuple_Check(obj))
        kind = "sequence";
    else
        kind = Py_TYPE(obj)->tp_name;
    return Py_BuildValue("(sn)", kind, PyObject_Length(obj) < 0 ? (PyErr_Clear(), (Py_ssize_t)-1) : PyObject_Length(obj));
}

static PyObject *
ring_join_bytes(PyObject *module, PyObject *args)
{
    PyObject *a, *b, *res;
    char *buf;
    if (!PyArg_ParseTuple(args, "SS", &a, &b))
        return NULL;
    res = PyBytes_FromStringAndSize(NULL, PyBytes_GET_SIZE(a) + PyBytes_GET_SIZE(b));
    if (res == NULL)
        return NULL;
    buf = PyBytes_AS_STRING(res);
    memcpy(buf, PyBytes_AS_STRING(a), PyBytes_GET_SIZE(a));
    memcpy(buf + PyBytes_GET_SIZE(a), PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b));
    return res;
}

static PyObject *
ring_call_with(PyObject *module, PyObject *args)
{
    PyObject *func, *rest, *result;
    if (PyTuple_GET_SIZE(args) < 1) {
        PyErr_SetString(PyExc_TypeError, "call_with needs a callable");
        return NULL;
    }
    func = PyTuple_GET_ITEM(args, 0);
    rest = PyTuple_GetSlice(args, 1, PyTuple_GET_SIZE(args));
    if (rest == NULL)
        return NULL;
    result = PyObject_Call(func, rest, NULL);
    Py_DECREF(rest);
    return result;
}

static PyObject *
ring_getattr_default(PyObject *module, PyObject *args)
{
    PyObject *obj, *name, *dflt = Py_None, *v;
    if (!PyArg_ParseTuple(args, "OU|O", &obj, &name, &dflt))
        return NULL;
    v = PyObject_GetAttr(obj, name);
    if (v == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        Py_INCREF(dflt);
        return dflt;
    }
    return v;
}

static PyMethodDef ring_methods[] = {
    {"word_counts", ring_word_counts, METH_VARARGS, "Count words."},
    {"sorted_items", ring_sorted_items, METH_O, "Sorted items of a dict."},
    {"scale", (PyCFunction)(void(*)(void))ring_scale, METH_VARARGS | METH_KEYWORDS, "Scale values."},
    {"describe", ring_describe, METH_O, "Describe an object."},
    {"join_bytes", ring_join_bytes, METH_VARARGS, "Concatenate two bytes."},
    {"call_with", ring_call_with, METH_VARARGS, "Call with the rest."},
    {"getattr_default", ring_getattr_default, METH_VARARGS, "getattr with default."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef ringmodule = {
    PyModuleDef_HEAD_INIT, "ring", "A ring buffer and helpers over dicts, sequences and bytes.", -1, ring_methods
};

PyMODINIT_FUNC
PyInit_ring(void)
{
    PyObject *m;
    if (PyType_Ready(&RingType) < 0)
        return NULL;
    m = PyModule_Create(&ringmodule);
    if (m == NULL)
        return NULL;
    RingError = PyErr_NewException("ring.RingError", NULL, NULL);
    Py_XINCREF(RingError);
    if (PyModule_AddObject(m, "RingError", RingError) < 0) {
        Py_XDECREF(RingError);
        Py_CLEAR(RingError);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&RingType);
    if (PyModule_AddObject(m, "Ring", (PyObject *)&RingType) < 0) {
        Py_DECREF(&RingType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "VERSION", 3);
    PyModule_AddStringConstant(m, "AUTHOR", "nobody");
    return m;
}
