"""A block stored into a list and then written through (an output buffer
made of bytes blocks: ``PyList_SET_ITEM(list, 0, b); next_out =
PyBytes_AS_STRING(b);``, stock borrowing ``b`` from the list) read a
handle that ``CystckList_SET_ITEM`` had consumed: a SystemError ("the
handle passed was released") on every use.  The read-after-consume rule
hands the stealing call a handle of its own.  Stock and translated
builds answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static PyObject *
blocks(PyObject *self, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg), i;
    PyObject *list, *b;
    char *out;
    if (n < 0)
        return NULL;
    list = PyList_New(2);
    if (list == NULL)
        return NULL;
    for (i = 0; i < 2; i++) {
        b = PyBytes_FromStringAndSize(NULL, n);
        if (b == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, b);
        out = PyBytes_AS_STRING(b);
        memset(out, 'a' + (int)i, (size_t)n);
    }
    return list;
}

static PyObject *
pair(PyObject *self, PyObject *arg)
{
    PyObject *t = PyTuple_New(1), *v;
    if (t == NULL)
        return NULL;
    v = PyLong_FromLong(PyLong_AsLong(arg) + 1);
    if (v == NULL) {
        Py_DECREF(t);
        return NULL;
    }
    PyTuple_SET_ITEM(t, 0, v);
    v = NULL;
    return t;
}

static PyMethodDef methods[] = {
    {"blocks", blocks, METH_O, NULL},
    {"pair", pair, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "readconsumed", NULL, -1, methods};

PyMODINIT_FUNC PyInit_readconsumed(void) { return PyModule_Create(&moddef); }
'''


def test_a_consumed_local_read_afterwards_is_duplicated_for_the_call():
    out = translate.translate_source(SRC, "readconsumed.c")
    assert "CystckList_SET_ITEM(S, list, i, Cystck_Dup(S, b));" in out


def test_a_consumed_local_assigned_again_is_left_alone():
    out = translate.translate_source(SRC, "readconsumed.c")
    assert "CystckTuple_SET_ITEM(S, t, 0, v);" in out


def test_a_read_in_another_branch_is_no_read_after_the_call():
    """Negative: the local is read after the call only in the other branch
    of an ``if``, which never runs after it."""
    src = ("#include <Python.h>\n"
           "static PyObject *put(PyObject *list, PyObject *root, PyObject *v)\n{\n"
           "    PyObject *r = PyNumber_Negative(v);\n    if (r == NULL)\n        return NULL;\n"
           "    if (list != NULL) {\n        if (PyList_SetItem(list, 0, r) < 0)\n            return NULL;\n    }\n"
           "    else {\n        Py_DECREF(root);\n        root = r;\n    }\n    return root;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "CystckList_SetItem(S, list, 0, r)" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("readconsumed", SRC, "print(repr([m.blocks(3), m.blocks(0), m.pair(4)]))\n")
    assert want[:3] == [[b"aaa", b"bbb"], [b"", b""], (5,)]
