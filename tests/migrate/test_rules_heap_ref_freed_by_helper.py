"""A local that takes over the object of a member of allocated memory,
``v = n->value; ... node_free(n); return v;``, steals the member's
reference (``cystck_migrate_steal``) when the code frees the block before
returning the local.  A free function of the extension that touches
objects takes the state after the port, ``node_free(S, n)``, and that
spelling was not seen as freeing the block: the local kept a handle of the
reference, which nothing released (the object leaked; pyahocorasick's
``trie_remove_word``, which frees the node with ``trienode_free``).  The
stock and translated builds now agree on reference counts, in release and
with CYSTCK_DEBUG=1.  Near miss: a local read of a member whose block is
not freed, nor the member stored, stays a plain read."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct node {
    PyObject *key;
    PyObject *value;
    struct node *next;
} node;

static node *head = NULL;

/* frees one node and its key (not its value) */
static void node_free(node *n)
{
    Py_XDECREF(n->key);
    PyMem_Free(n);
}

static PyObject *push(PyObject *mod, PyObject *args)
{
    PyObject *k, *v;
    node *n;
    if (!PyArg_ParseTuple(args, "OO", &k, &v))
        return NULL;
    n = (node *)PyMem_Malloc(sizeof(node));
    if (n == NULL)
        return PyErr_NoMemory();
    Py_INCREF(k);
    n->key = k;
    Py_INCREF(v);
    n->value = v;
    n->next = head;
    head = n;
    Py_RETURN_NONE;
}

/* the head's value (its reference, taken over), the node freed */
static PyObject *pop(PyObject *mod, PyObject *unused)
{
    PyObject *v;
    node *n = head;
    if (n == NULL)
        Py_RETURN_NONE;
    v = n->value;
    head = n->next;
    node_free(n);
    return v;
}

/* near miss: the head's value, read; the node stays */
static PyObject *peek(PyObject *mod, PyObject *unused)
{
    PyObject *v;
    if (head == NULL)
        Py_RETURN_NONE;
    v = head->value;
    Py_INCREF(v);
    return v;
}

static PyMethodDef methods[] = {
    {"push", push, METH_VARARGS, NULL},
    {"pop", pop, METH_NOARGS, NULL},
    {"peek", peek, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "freedbyhelper", NULL, -1, methods};

PyMODINIT_FUNC PyInit_freedbyhelper(void)
{
    return PyModule_Create(&moddef);
}
'''

SCRIPT = '''
k, v = object(), object()
rk, rv = sys.getrefcount(k), sys.getrefcount(v)
m.push(k, v)
out = [sys.getrefcount(k) - rk, sys.getrefcount(v) - rv]
x = m.peek()
out += [x is v]
del x
out += [sys.getrefcount(v) - rv]
x = m.pop()
out += [x is v]
del x
out += [sys.getrefcount(k) - rk, sys.getrefcount(v) - rv, m.pop() is None]
print(repr(out))
'''


def test_a_free_function_taking_the_state_gives_the_block_up():
    out = translate.translate_source(SRC, "freedbyhelper.c")
    assert "v = cystck_migrate_steal(S, &n->value);" in out
    assert "node_free(S, n);" in out
    # near miss: the block stays, the read is a read
    assert "v = Cystck_Dup(S, Cystck_deref(S, head->value));" in out


def test_the_taken_object_is_not_leaked(same_as_stock):
    assert same_as_stock("freedbyhelper", SRC, SCRIPT) == [1, 1, True, 1, True, 0, 0, True]
