"""Plain structs (no ``PyObject_HEAD``) in memory the extension allocates
itself (hash-table nodes from an allocator wrapping ``PyMem_Malloc``,
``calloc``'d list nodes, an
array of structs grown with ``PyMem_Resize``) whose block outlives the call
that allocates it keep their objects beyond the call: their ``PyObject *``
members become ``Cystck_Ref`` (project._collect_heap_structs), as those of a
struct a global holds.  Stores take a reference of their own, reads go
through ``Cystck_deref``, ``Py_DECREF``/``Py_XDECREF``/``Py_CLEAR`` of them
release it (``Cystck_unref``; ``NULL`` state in a destructor), a local that
takes a member's object over (``old = n->value; n->value = v;
Py_DECREF(old);``, or ``v = n->value; free(n); return v;``) steals the
reference, and a type's traverse visits them with ``Cystck_VISIT_REF`` (the
cyclic GC sees them; the runtime releases them when it clears or frees the
instance).  Before, the members were handles: stores kept a handle past its
call (stale in release, raising in debug mode), and a traverse visiting
them did not compile.  Near misses: a struct on the stack of one call and a
block allocated and freed in one call keep their handle members.  The
translation builds and behaves as the stock build, reference counts and
the collection of a cycle through a table included, in release and with
CYSTCK_DEBUG=1 (which raises nothing and reports no reference left)."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* (1) a hash table whose chained nodes are PyMem_Malloc'd, owned by an
 * instance: the nodes keep their key and value between calls */
typedef struct hnode {
    PyObject *key;
    PyObject *value;
    Py_hash_t hash;
    struct hnode *next;
} hnode;

#define NBUCKETS 8

typedef struct {
    PyObject_HEAD
    hnode **buckets;
    Py_ssize_t used;
} Table;

/* an allocator of the extension's own: its calls allocate too */
static void *
table_alloc(size_t size)
{
    return PyMem_Malloc(size);
}

static hnode *
node_new(PyObject *key, PyObject *value, Py_hash_t hash)
{
    hnode *n = (hnode *)table_alloc(sizeof(hnode));
    if (n == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    Py_INCREF(key);
    n->key = key;
    Py_INCREF(value);
    n->value = value;
    n->hash = hash;
    n->next = NULL;
    return n;
}

static PyObject *
Table_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Table *self = (Table *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->buckets = (hnode **)PyMem_Calloc(NBUCKETS, sizeof(hnode *));
    if (self->buckets == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->used = 0;
    return (PyObject *)self;
}

static int
Table_traverse(Table *self, visitproc visit, void *arg)
{
    Py_ssize_t i;
    hnode *n;
    if (self->buckets == NULL)
        return 0;
    for (i = 0; i < NBUCKETS; i++) {
        for (n = self->buckets[i]; n != NULL; n = n->next) {
            Py_VISIT(n->key);
            Py_VISIT(n->value);
        }
    }
    return 0;
}

static void
Table_dealloc(Table *self)
{
    Py_ssize_t i;
    PyObject_GC_UnTrack(self);
    if (self->buckets != NULL) {
        for (i = 0; i < NBUCKETS; i++) {
            hnode *n = self->buckets[i];
            while (n != NULL) {
                hnode *next = n->next;
                Py_XDECREF(n->key);
                Py_XDECREF(n->value);
                PyMem_Free(n);
                n = next;
            }
        }
        PyMem_Free(self->buckets);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static hnode *
lookup(Table *self, PyObject *key, Py_hash_t hash, int *err)
{
    hnode *n;
    *err = 0;
    for (n = self->buckets[hash & (NBUCKETS - 1)]; n != NULL; n = n->next) {
        if (n->hash == hash) {
            int eq = PyObject_RichCompareBool(n->key, key, Py_EQ);
            if (eq < 0) {
                *err = 1;
                return NULL;
            }
            if (eq)
                return n;
        }
    }
    return NULL;
}

static PyObject *
Table_set(Table *self, PyObject *args)
{
    PyObject *key, *value;
    Py_hash_t hash;
    hnode *n;
    int err;
    if (!PyArg_ParseTuple(args, "OO", &key, &value))
        return NULL;
    hash = PyObject_Hash(key);
    if (hash == -1)
        return NULL;
    n = lookup(self, key, hash, &err);
    if (err)
        return NULL;
    if (n != NULL) {
        PyObject *old = n->value;
        Py_INCREF(value);
        n->value = value;
        Py_DECREF(old);
        Py_RETURN_NONE;
    }
    n = node_new(key, value, hash);
    if (n == NULL)
        return NULL;
    n->next = self->buckets[hash & (NBUCKETS - 1)];
    self->buckets[hash & (NBUCKETS - 1)] = n;
    self->used++;
    Py_RETURN_NONE;
}

static PyObject *
Table_get(Table *self, PyObject *key)
{
    int err;
    Py_hash_t hash = PyObject_Hash(key);
    hnode *n;
    if (hash == -1)
        return NULL;
    n = lookup(self, key, hash, &err);
    if (err)
        return NULL;
    if (n == NULL) {
        PyErr_SetObject(PyExc_KeyError, key);
        return NULL;
    }
    Py_INCREF(n->value);
    return n->value;
}

static PyObject *
Table_pop(Table *self, PyObject *key)
{
    Py_hash_t hash = PyObject_Hash(key);
    hnode **link, *n;
    if (hash == -1)
        return NULL;
    for (link = &self->buckets[hash & (NBUCKETS - 1)]; (n = *link) != NULL; link = &n->next) {
        int eq;
        if (n->hash != hash)
            continue;
        eq = PyObject_RichCompareBool(n->key, key, Py_EQ);
        if (eq < 0)
            return NULL;
        if (eq) {
            PyObject *value = n->value;
            *link = n->next;
            Py_DECREF(n->key);
            PyMem_Free(n);
            self->used--;
            return value;
        }
    }
    PyErr_SetObject(PyExc_KeyError, key);
    return NULL;
}

static PyObject *
Table_items(Table *self, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    Py_ssize_t i;
    hnode *n;
    if (list == NULL)
        return NULL;
    for (i = 0; i < NBUCKETS; i++) {
        for (n = self->buckets[i]; n != NULL; n = n->next) {
            PyObject *pair = PyTuple_Pack(2, n->key, n->value);
            if (pair == NULL || PyList_Append(list, pair) < 0) {
                Py_XDECREF(pair);
                Py_DECREF(list);
                return NULL;
            }
            Py_DECREF(pair);
        }
    }
    if (PyList_Sort(list) < 0) {
        Py_DECREF(list);
        return NULL;
    }
    return list;
}

static Py_ssize_t
Table_len(Table *self)
{
    return self->used;
}

static PyMethodDef Table_methods[] = {
    {"set", (PyCFunction)Table_set, METH_VARARGS, NULL},
    {"get", (PyCFunction)Table_get, METH_O, NULL},
    {"pop", (PyCFunction)Table_pop, METH_O, NULL},
    {"items", (PyCFunction)Table_items, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PySequenceMethods Table_as_sequence = {
    .sq_length = (lenfunc)Table_len,
};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "heapstructs.Table",
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = Table_new,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_traverse = (traverseproc)Table_traverse,
    .tp_methods = Table_methods,
    .tp_as_sequence = &Table_as_sequence,
};

/* (1b) a linked list of calloc'd nodes under an instance of a type
 * without traverse (no GC) */
typedef struct snode {
    struct snode *below;
    PyObject *item;
} snode;

typedef struct {
    PyObject_HEAD
    snode *top;
    Py_ssize_t depth;
} Stack;

static void
stack_clear(Stack *self)
{
    while (self->top != NULL) {
        snode *n = self->top;
        self->top = n->below;
        Py_DECREF(n->item);
        free(n);
    }
}

static void
Stack_dealloc(Stack *self)
{
    stack_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Stack_clear(Stack *self, PyObject *unused)
{
    stack_clear(self);
    Py_RETURN_NONE;
}

static PyObject *
Stack_push(Stack *self, PyObject *item)
{
    snode *n = calloc(1, sizeof(*n));
    if (n == NULL)
        return PyErr_NoMemory();
    n->item = item;
    Py_INCREF(item);
    n->below = self->top;
    self->top = n;
    self->depth++;
    return PyLong_FromSsize_t(self->depth);
}

static PyObject *
Stack_pop(Stack *self, PyObject *unused)
{
    snode *n = self->top;
    PyObject *item;
    if (n == NULL) {
        PyErr_SetString(PyExc_IndexError, "pop from an empty stack");
        return NULL;
    }
    item = n->item;
    self->top = n->below;
    free(n);
    self->depth--;
    return item;
}

static PyObject *
Stack_peek(Stack *self, PyObject *unused)
{
    if (self->top == NULL)
        Py_RETURN_NONE;
    Py_INCREF(self->top->item);
    return self->top->item;
}

static PyMethodDef Stack_methods[] = {
    {"push", (PyCFunction)Stack_push, METH_O, NULL},
    {"pop", (PyCFunction)Stack_pop, METH_NOARGS, NULL},
    {"peek", (PyCFunction)Stack_peek, METH_NOARGS, NULL},
    {"clear", (PyCFunction)Stack_clear, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject StackType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "heapstructs.Stack",
    .tp_basicsize = sizeof(Stack),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Stack_dealloc,
    .tp_methods = Stack_methods,
};

/* (2) an array of structs, grown with PyMem_Resize */
typedef struct {
    PyObject *first;
    PyObject *second;
    long weight;
} pair_t;

typedef struct {
    PyObject_HEAD
    pair_t *items;
    Py_ssize_t n, cap;
} Pairs;

static int
Pairs_traverse(Pairs *self, visitproc visit, void *arg)
{
    Py_ssize_t i;
    for (i = 0; i < self->n; i++) {
        Py_VISIT(self->items[i].first);
        Py_VISIT(self->items[i].second);
    }
    return 0;
}

static void
Pairs_dealloc(Pairs *self)
{
    Py_ssize_t i;
    PyObject_GC_UnTrack(self);
    for (i = 0; i < self->n; i++) {
        Py_DECREF(self->items[i].first);
        Py_DECREF(self->items[i].second);
    }
    PyMem_Free(self->items);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Pairs_add(Pairs *self, PyObject *args)
{
    PyObject *a, *b;
    long w = 0;
    pair_t *p;
    if (!PyArg_ParseTuple(args, "OO|l", &a, &b, &w))
        return NULL;
    if (self->n == self->cap) {
        Py_ssize_t cap = self->cap ? 2 * self->cap : 2;
        pair_t *items = self->items;
        PyMem_Resize(items, pair_t, cap);
        if (items == NULL)
            return PyErr_NoMemory();
        self->items = items;
        self->cap = cap;
    }
    p = &self->items[self->n];
    Py_INCREF(a);
    p->first = a;
    p->second = PyObject_Repr(b);
    if (p->second == NULL) {
        Py_DECREF(a);
        return NULL;
    }
    p->weight = w;
    self->n++;
    return PyLong_FromSsize_t(self->n);
}

static PyObject *
Pairs_at(Pairs *self, PyObject *arg)
{
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= self->n) {
        PyErr_SetString(PyExc_IndexError, "pair index out of range");
        return NULL;
    }
    return Py_BuildValue("OOl", self->items[i].first, self->items[i].second, self->items[i].weight);
}

static PyObject *
Pairs_remove(Pairs *self, PyObject *arg)
{
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= self->n) {
        PyErr_SetString(PyExc_IndexError, "pair index out of range");
        return NULL;
    }
    Py_CLEAR(self->items[i].first);
    Py_XDECREF(self->items[i].second);
    memmove(&self->items[i], &self->items[i + 1], (self->n - i - 1) * sizeof(pair_t));
    self->n--;
    Py_RETURN_NONE;
}

static PyMethodDef Pairs_methods[] = {
    {"add", (PyCFunction)Pairs_add, METH_VARARGS, NULL},
    {"at", (PyCFunction)Pairs_at, METH_O, NULL},
    {"remove", (PyCFunction)Pairs_remove, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject PairsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "heapstructs.Pairs",
    .tp_basicsize = sizeof(Pairs),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Pairs_dealloc,
    .tp_traverse = (traverseproc)Pairs_traverse,
    .tp_methods = Pairs_methods,
};

/* (3) a near miss: a plain struct on the stack of one call, whose handle
 * members are fine */
typedef struct {
    PyObject *best;
    PyObject *key;
    long count;
} scan_t;

static PyObject *
longest(PyObject *self, PyObject *seq)
{
    scan_t st;
    Py_ssize_t i, n;
    st.best = NULL;
    st.count = 0;
    n = PySequence_Size(seq);
    if (n < 0)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(seq, i);
        if (item == NULL)
            return NULL;
        if (st.best == NULL || PyObject_Length(item) > PyObject_Length(st.best)) {
            Py_XDECREF(st.best);
            st.best = item;
        }
        else
            Py_DECREF(item);
        st.count++;
    }
    if (st.best == NULL)
        Py_RETURN_NONE;
    return Py_BuildValue("Nl", st.best, st.count);
}

/* ... and a block allocated and freed in one call (a parser state): it
 * lives for the call, its handle members are fine too */
typedef struct {
    PyObject *acc;
    Py_ssize_t n;
} sum_state;

static PyObject *
total(PyObject *self, PyObject *seq)
{
    PyObject *it, *item, *result;
    sum_state *st = (sum_state *)PyMem_Malloc(sizeof(sum_state));
    if (st == NULL)
        return PyErr_NoMemory();
    st->n = 0;
    st->acc = PyLong_FromLong(0);
    if (st->acc == NULL) {
        PyMem_Free(st);
        return NULL;
    }
    it = PyObject_GetIter(seq);
    if (it == NULL) {
        Py_XDECREF(st->acc);
        PyMem_Free(st);
        return NULL;
    }
    while ((item = PyIter_Next(it)) != NULL) {
        PyObject *next = PyNumber_Add(st->acc, item);
        Py_DECREF(item);
        Py_DECREF(st->acc);
        st->acc = next;
        if (next == NULL)
            break;
        st->n++;
    }
    Py_DECREF(it);
    if (st->acc == NULL || PyErr_Occurred()) {
        Py_XDECREF(st->acc);
        PyMem_Free(st);
        return NULL;
    }
    result = Py_BuildValue("On", st->acc, st->n);
    Py_DECREF(st->acc);
    PyMem_Free(st);
    return result;
}

static PyMethodDef module_methods[] = {
    {"total", total, METH_O, NULL},
    {"longest", longest, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "heapstructs", NULL, -1, module_methods};

PyMODINIT_FUNC
PyInit_heapstructs(void)
{
    PyObject *m;
    if (PyType_Ready(&TableType) < 0 || PyType_Ready(&PairsType) < 0 || PyType_Ready(&StackType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&TableType);
    if (PyModule_AddObject(m, "Table", (PyObject *)&TableType) < 0)
        return NULL;
    Py_INCREF(&StackType);
    if (PyModule_AddObject(m, "Stack", (PyObject *)&StackType) < 0)
        return NULL;
    Py_INCREF(&PairsType);
    if (PyModule_AddObject(m, "Pairs", (PyObject *)&PairsType) < 0)
        return NULL;
    return m;
}
'''

# Frames come and go between a store and its reads (churn).
SCRIPT = r"""
import gc

def churn():
    return [str(i) * 3 for i in range(2000)]

out = []
t = m.Table()
for i in range(20):
    t.set("k%d" % i, [i])
    churn()
out.append(len(t))
out.append([t.get("k%d" % i) for i in (0, 7, 19)])
t.set("k7", "seven"); churn()
out.append(t.get("k7"))
out.append(t.pop("k3")); churn()
try:
    t.get("k3")
except KeyError as e:
    out.append(repr(e))
out.append(len(t))
out.append(t.items()[:3])
# reference counts: storing, replacing and popping keep them balanced
o = object()
before = sys.getrefcount(o)
for i in range(30):
    t.set("o", o)
out.append(sys.getrefcount(o) - before)
t.pop("o")
out.append(sys.getrefcount(o) - before)
t.set("x", o); t.set(o, 1)
del t; gc.collect()
out.append(sys.getrefcount(o) - before)
# a cycle through a table: the collector sees and breaks it
t = m.Table(); s = object(); b0 = sys.getrefcount(s)
t.set("self", [t, s]); del t; gc.collect()
out.append(sys.getrefcount(s) - b0)

p = m.Pairs()
for i in range(10):
    out.append(p.add(("a", i), i * 1.5, i))
    churn()
out.append(p.at(4))
p.remove(0); p.remove(3); churn()
out.append([p.at(i) for i in range(3)])
try:
    p.at(8)
except IndexError as e:
    out.append(str(e))
before = sys.getrefcount(o)
for i in range(5):
    p.add(o, "r")
out.append(sys.getrefcount(o) - before)
for i in range(5):
    p.remove(8)
out.append(sys.getrefcount(o) - before)
p.add(o, o); del p; gc.collect()
out.append(sys.getrefcount(o) - before)
p = m.Pairs(); p.add(p, s); del p; gc.collect()
out.append(sys.getrefcount(s) - b0)

st = m.Stack()
out.append(st.peek())
for i in range(6):
    out.append(st.push({"n": i}))
    churn()
out.append(st.peek()); out.append(st.pop()); out.append(st.pop()); churn()
out.append(st.peek())
before = sys.getrefcount(o)
for i in range(4):
    st.push(o)
out.append(sys.getrefcount(o) - before)
st.pop(); st.pop()
out.append(sys.getrefcount(o) - before)
st.push(o); st.push(o); st.clear()
out.append(sys.getrefcount(o) - before)
out.append(st.peek())
st.push(o)
del st
out.append(sys.getrefcount(o) - before)
st = m.Stack()
try:
    st.pop()
except IndexError as e:
    out.append(str(e))
out.append(m.longest(["ab", "abcd", "a"]))
out.append(m.longest([]))
out.append(m.total([1, 2, 3.5])); out.append(m.total(range(100)))
try:
    m.total([1, "a"])
except TypeError as e:
    out.append(type(e).__name__)
print(out)
"""
EXPECTED = [20, [[0], [7], [19]], 'seven', [3], "KeyError('k3')", 19, [('k0', [0]), ('k1', [1]), ('k10', [10])], 1, 0, 0, 0,
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, (('a', 4), '6.0', 4), [(('a', 1), '1.5', 1), (('a', 2), '3.0', 2), (('a', 3), '4.5', 3)],
            'pair index out of range', 5, 0, 0, 0, None, 1, 2, 3, 4, 5, 6, {'n': 5}, {'n': 5}, {'n': 4}, {'n': 3}, 4, 2,
            0, None, 0, 'pop from an empty stack', ('abcd', 3), None, (6.5, 3), (4950, 100), 'TypeError']


@pytest.fixture(scope="module")
def out():
    return translate.translate_source(SRC)


def test_members_of_allocated_structs_are_references(out):
    assert "    Cystck_Ref key;\n    Cystck_Ref value;\n    Py_hash_t hash;" in out       # table_alloc(sizeof(hnode))
    assert "    struct snode *below;\n    Cystck_Ref item;" in out                       # calloc(1, sizeof(*n))
    assert "    Cystck_Ref first;\n    Cystck_Ref second;" in out                        # PyMem_Resize(items, pair_t, cap)
    assert "n->key = Cystck_ref(S, key);" in out and "n->item = Cystck_ref(S, item);" in out
    assert "CystckObject_RichCompareBool(S, Cystck_deref(S, n->key), key, Py_EQ)" in out
    assert "return Cystck_Return(S, Cystck_deref(S, Stack_AsStruct(S, self)->top->item));" in out
    assert "Cystck_deref(S, Pairs_AsStruct(S, self)->items[i].first)" in out


def test_releases_and_takeovers(out):
    assert "Cystck_unref(S, n->key); n->key = NULL;" in out
    assert ("Cystck_unref(S, Pairs_AsStruct(S, self)->items[i].second); "
            "Pairs_AsStruct(S, self)->items[i].second = NULL;") in out
    # old = n->value; n->value = value; Py_DECREF(old);
    assert "Cystck_Object old = cystck_migrate_steal(S, &n->value);\n        n->value = Cystck_ref(S, value);" in out
    # item = n->item; free(n); return item;
    assert "item = cystck_migrate_steal(S, &n->item);" in out
    assert out.count("static inline Cystck_Object cystck_migrate_steal(") == 1


def test_traverse_and_destructors(out):
    assert "Cystck_VISIT_REF(&n->key);" in out and "Cystck_VISIT_REF(&self->items[i].first);" in out
    # a destructor has no state; traverse may have released them already
    assert "Cystck_unref(NULL, n->value); n->value = NULL;" in out
    assert "Cystck_unref(NULL, self->items[i].first); self->items[i].first = NULL;" in out


def test_structs_living_for_one_call_keep_handles(out):
    assert "    Cystck_Object best;\n    Cystck_Object key;\n    long count;" in out     # on the stack
    assert "    Cystck_Object acc;\n    Py_ssize_t n;" in out                           # allocated and freed
    assert "Cystck_Drop(S, st->acc);" in out


def test_translating_the_translation_changes_nothing(out):
    assert translate.translate_source(out) == out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("heapstructs", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    value, stderr = run_script(SCRIPT, built[1], debug, stderr=True)
    assert value == EXPECTED
    assert "CYSTCK_DEBUG" not in stderr and "Error" not in stderr, stderr


FREED_BY_A_HELPER_C = """#include <Python.h>
typedef struct item { struct item *next; PyObject *value; } item;
static void item_free(item *it) { PyMem_Free(it); }
static item *item_new(PyObject *v) {
    item *it = (item *)PyMem_Malloc(sizeof(item));
    if (it == NULL) return NULL;
    Py_INCREF(v);
    it->value = v;
    it->next = NULL;
    return it;
}
static PyObject *item_take(item *it) {
    PyObject *v = it->value;
    item_free(it);
    return v;
}
static PyObject *item_peek(item *it) {
    PyObject *v = it->value;
    item_count(it);
    return v;
}
"""


def test_a_block_freed_by_a_function_that_takes_the_state_gives_its_reference_up():
    # v = n->value; item_free(n); return v; with item_free(S, n) once
    # state-calls ran: the local takes the reference over
    out = translate.translate_source(FREED_BY_A_HELPER_C)
    assert "    Cystck_Object v = cystck_migrate_steal(S, &it->value);\n    item_free(S, it);" in out
    # a function that is no free function leaves the reference to the block
    assert "    Cystck_Object v = Cystck_deref(S, it->value);\n    item_count(it);" in out


def test_the_steal_helper_of_a_file_without_the_cystck_include_follows_its_includes():
    # a unity build: item.c has no Python.h include of its own (its header
    # has), the helper goes after its last include, before its first use
    head, body = FREED_BY_A_HELPER_C.split("typedef", 1)
    files = {"item.h": head + "typedef" + body.split("static void item_free")[0],
             "item.c": '#include "item.h"\nstatic void item_free' + body.split("static void item_free")[1],
             "mod.c": '#include <Python.h>\n#include "item.c"\n'}
    out = translate.translate_files(files)["item.c"].text
    assert out.startswith('#include "item.h"\n\n#ifndef CYSTCK_MIGRATE_STEAL_DEFINED\n'
                          '#define CYSTCK_MIGRATE_STEAL_DEFINED\n/* cystck-migrate: a local that takes over')
    assert out.index("static inline Cystck_Object cystck_migrate_steal(") < out.index("item_take")
    assert "Cystck_Object v = cystck_migrate_steal(S, &it->value);" in out
