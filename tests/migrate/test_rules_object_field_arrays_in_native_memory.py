"""An instance that owns a growable array of objects in native memory,
``PyObject **items`` allocated with ``PyMem_Calloc`` and visited item by
item by the type's traverse (a ring buffer, a deque, a small vector: the
usual container layout).  The translator kept ``PyObject **`` and wrote
handles into it ("incompatible types when assigning to type ‘PyObject *’
from type ‘Cystck_Object’"), so the output did not build.  Such a member
is an array of fields: ``Cystck_Field *items``, its items stored, loaded
and cleared with the field API like an inline ``PyObject *items[N]``, the
allocation sized for fields; the runtime finds them through the type's
own traverse, which bounds the loop.  Stock and translated builds answer
alike, in release and with CYSTCK_DEBUG=1 (objects released when the ring
dies, and when the cycle collector breaks a ring that holds itself).  Its
``repr`` calls the ``tolist`` method directly in a declarator, ``PyObject
*items = Ring_tolist(self, NULL), *text;``: the push count becomes the
handle through ``Cystck_PopResult`` there too (it was left as it was, an
invalid initializer)."""
from cystck.migrate import translate

SOURCE = r'''#include <Python.h>

typedef struct {
    PyObject_HEAD
    PyObject **items;
    Py_ssize_t cap, len;
} RingObject;

static int
Ring_traverse(RingObject *self, visitproc visit, void *arg)
{
    Py_ssize_t i;
    for (i = 0; i < self->len; i++)
        Py_VISIT(self->items[i]);
    return 0;
}

static int
Ring_clear(RingObject *self)
{
    Py_ssize_t i;
    for (i = 0; i < self->len; i++)
        Py_CLEAR(self->items[i]);
    return 0;
}

static void
Ring_dealloc(RingObject *self)
{
    PyObject_GC_UnTrack(self);
    Ring_clear(self);
    PyMem_Free(self->items);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Ring_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    RingObject *self;
    Py_ssize_t cap;
    if (!PyArg_ParseTuple(args, "n", &cap))
        return NULL;
    self = (RingObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->items = (PyObject **)PyMem_Calloc(cap, sizeof(PyObject *));
    if (self->items == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->cap = cap;
    return (PyObject *)self;
}

static PyObject *
Ring_push(RingObject *self, PyObject *item)
{
    PyObject *evicted = NULL;
    if (self->len == self->cap) {
        Py_ssize_t i;
        evicted = self->items[0];
        for (i = 1; i < self->len; i++)
            self->items[i - 1] = self->items[i];
        self->items[--self->len] = NULL;
    }
    Py_INCREF(item);
    self->items[self->len++] = item;
    if (evicted == NULL)
        Py_RETURN_NONE;
    return evicted;               /* the ring's reference passes on */
}

static PyObject *
Ring_pop(RingObject *self, PyObject *unused)
{
    PyObject *item;
    if (self->len == 0) {
        PyErr_SetString(PyExc_IndexError, "pop from an empty ring");
        return NULL;
    }
    item = self->items[--self->len];
    self->items[self->len] = NULL;
    return item;
}

static PyObject *
Ring_tolist(RingObject *self, PyObject *unused)
{
    Py_ssize_t i;
    PyObject *list = PyList_New(self->len);
    if (list == NULL)
        return NULL;
    for (i = 0; i < self->len; i++) {
        Py_INCREF(self->items[i]);
        PyList_SET_ITEM(list, i, self->items[i]);
    }
    return list;
}

static PyObject *
Ring_repr(RingObject *self)
{
    PyObject *items = Ring_tolist(self, NULL), *text;
    if (items == NULL)
        return NULL;
    text = PyUnicode_FromFormat("Ring(%R)", items);
    Py_DECREF(items);
    return text;
}

static int
Ring_contains(RingObject *self, PyObject *value)
{
    Py_ssize_t i;
    for (i = 0; i < self->len; i++) {
        int cmp = PyObject_RichCompareBool(self->items[i], value, Py_EQ);
        if (cmp != 0)
            return cmp;
    }
    return 0;
}

static Py_ssize_t
Ring_length(RingObject *self)
{
    return self->len;
}

static PyObject *
Ring_item(RingObject *self, Py_ssize_t i)
{
    if (i < 0 || i >= self->len) {
        PyErr_SetString(PyExc_IndexError, "ring index out of range");
        return NULL;
    }
    Py_INCREF(self->items[i]);
    return self->items[i];
}

static PyMethodDef Ring_methods[] = {
    {"push", (PyCFunction)Ring_push, METH_O, NULL},
    {"pop", (PyCFunction)Ring_pop, METH_NOARGS, NULL},
    {"tolist", (PyCFunction)Ring_tolist, METH_NOARGS, NULL},
    {NULL}
};

static PySequenceMethods Ring_as_sequence = {
    .sq_length = (lenfunc)Ring_length,
    .sq_item = (ssizeargfunc)Ring_item,
    .sq_contains = (objobjproc)Ring_contains,
};

static PyTypeObject RingType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Ring",
    .tp_basicsize = sizeof(RingObject),
    .tp_dealloc = (destructor)Ring_dealloc,
    .tp_repr = (reprfunc)Ring_repr,
    .tp_as_sequence = &Ring_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)Ring_traverse,
    .tp_clear = (inquiry)Ring_clear,
    .tp_methods = Ring_methods,
    .tp_new = Ring_new,
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&RingType) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&RingType);
    if (PyModule_AddObject(m, "Ring", (PyObject *)&RingType) < 0) {
        Py_DECREF(&RingType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

SCRIPT = r'''
import gc, weakref
class Token:
    pass
r = m.Ring(3)
out = [r.push(i * 10) for i in range(5)]
out.append(r.tolist())
out.append((len(r), r[0], outcome(lambda: r[7]), repr(r), 30 in r, 0 in r))
out.append([r.pop(), r.pop(), r.pop(), outcome(r.pop)])
t = Token()
alive = weakref.ref(t)
r.push(t); del t
out.append(alive() is not None)
del r
out.append(alive() is None)          # released with the ring
c = m.Ring(2)
t = Token()
alive = weakref.ref(t)
c.push(c); c.push(t); del t, c
gc.collect()
out.append(alive() is None)          # a ring holding itself, collected
print(repr(out))
'''


def test_owned_object_array_in_native_memory(same_as_stock):
    want = same_as_stock("fieldarray", SOURCE.replace("NAME", "fieldarray"), SCRIPT)
    assert want[-2:] == [True, True] and want[-3] is True


def test_the_array_is_declared_as_fields():
    out = translate.translate_source(SOURCE.replace("NAME", "fieldarray"), "fieldarray.c")
    assert "Cystck_Field *items;" in out
    assert "PyObject **" not in out
    assert "sizeof(Cystck_Field)" in out


def test_a_pointer_array_no_traverse_visits_is_left_alone():
    """A ``PyObject **`` member that no traverse visits (borrowed
    references into another object's storage, say) is no array of fields."""
    src = SOURCE.replace("NAME", "fieldarray").replace("Py_VISIT(self->items[i]);", "(void)visit;")
    out = translate.translate_source(src, "fieldarray.c")
    assert "Cystck_Field *items;" not in out
