"""loop-release and a handle variable of the function that each iteration
writes first: ``ret = encode_one(self, item); if (ret) Py_DECREF(ret);
else goto error;`` in a loop over a sequence, ``ret`` written again
after the loop before it is read. The rule wanted such a variable
cleared at the end of the body (``x = NULL;``), so the loop kept what
each iteration made, here in the helpers it calls (a bytes object and
the ``write`` callable loaded from the instance's field, per item): an
encoder given a list of more than 2^20 items raised MemoryError where
the stock extension succeeds. What the previous iteration left in the
variable is never read, so the loop is marked, and so is one that sets
it only to NULL (``ret = NULL; break;``) or whose item a list steals
when the function that made it is the extension's (which may leave
handles of its own behind). Left alone: a variable first written under
an ``if`` (a later iteration may read the last one's value) or read
after the loop before it is written on every way out (``if (n == 0) {
arg = ...; }`` then a read of ``arg``), and a loop whose condition hands
a context to a function of the extension (``cursor_next(seq, &c)``,
which keeps the item it makes in ``c``). Stock and translated builds
compared at a small handle limit, release and debug."""
from cystck.migrate import translate

SOURCE = r'''#include <Python.h>

typedef struct {
    PyObject_HEAD
    PyObject *write;
} EncObject;

static int
emit(EncObject *self, const char *buf, Py_ssize_t n)
{
    PyObject *bytes, *ret = NULL;
    bytes = PyBytes_FromStringAndSize(buf, n);
    if (bytes) {
        ret = PyObject_CallFunctionObjArgs(self->write, bytes, NULL);
        Py_XDECREF(ret);
        Py_DECREF(bytes);
    }
    return ret ? 0 : -1;
}

static PyObject *
encode_one(EncObject *self, PyObject *value)
{
    PyObject *s = PyObject_Str(value);
    int r;
    if (s == NULL)
        return NULL;
    r = emit(self, PyUnicode_AsUTF8(s), PyUnicode_GET_LENGTH(s));
    Py_DECREF(s);
    if (r == -1)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
Enc_encode(EncObject *self, PyObject *value)
{
    PyObject *fast, *ret = NULL;
    Py_ssize_t length, i;

    fast = PySequence_Fast(value, "argument must be iterable");
    if (fast) {
        length = PySequence_Fast_GET_SIZE(fast);
        for (i = 0; i < length; i++) {
            ret = encode_one(self, PySequence_Fast_GET_ITEM(fast, i));
            if (ret)
                Py_DECREF(ret);
            else
                goto error;
        }
        Py_INCREF(Py_None);
        ret = Py_None;
error:
        Py_DECREF(fast);
    }
    return ret;
}

static PyObject *
Enc_last_true(EncObject *self, PyObject *value)
{
    PyObject *fast, *ret = NULL;
    Py_ssize_t i;

    fast = PySequence_Fast(value, "argument must be iterable");
    if (fast == NULL)
        return NULL;
    for (i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        if (PyObject_IsTrue(item))
            ret = PyObject_Repr(item);
    }
    Py_DECREF(fast);
    if (ret == NULL)
        Py_RETURN_NONE;
    return ret;
}

static PyObject *
Enc_reprs(EncObject *self, PyObject *args)
{
    Py_ssize_t i, length;
    PyObject *array, *item, *ret = NULL;
    if (!PyArg_ParseTuple(args, "n", &length))
        return NULL;
    array = PyList_New(0);
    if (array) {
        ret = array;
        for (i = 0; i < length; ++i) {
            item = encode_one(self, Py_None);
            if (item) {
                if (PyList_Append(array, item) == -1) {
                    ret = NULL;
                    Py_DECREF(item);
                    break;
                }
                Py_DECREF(item);
            } else {
                ret = NULL;
                break;
            }
        }
        if (ret == NULL)
            Py_DECREF(array);
    }
    return ret;
}

static PyObject *
Enc_fill(EncObject *self, PyObject *args)
{
    Py_ssize_t i, length;
    PyObject *list, *item;
    if (!PyArg_ParseTuple(args, "n", &length))
        return NULL;
    list = PyList_New(length);
    if (list == NULL)
        return NULL;
    for (i = 0; i < length; ++i) {
        item = encode_one(self, Py_None);
        if (item)
            PyList_SET_ITEM(list, i, item);
        else {
            Py_DECREF(list);
            list = NULL;
            break;
        }
    }
    return list;
}

static PyObject *
Enc_pairs(EncObject *self, PyObject *args)
{
    Py_ssize_t i, length, n = 0;
    PyObject *key, *value;
    if (!PyArg_ParseTuple(args, "n", &length))
        return NULL;
    for (i = 0; i < length; ++i) {
        key = encode_one(self, Py_None);
        if (key) {
            value = PyObject_Repr(key);
            if (value) {
                n += PyUnicode_GET_LENGTH(value);
                Py_DECREF(value);
            }
            Py_DECREF(key);
        }
        else
            return NULL;
    }
    return PyLong_FromSsize_t(n);
}

static PyObject *
Enc_odd_reprs(EncObject *self, PyObject *args)
{
    Py_ssize_t i, length, n = 0;
    PyObject *s = NULL;
    if (!PyArg_ParseTuple(args, "n", &length))
        return NULL;
    for (i = 0; i < length; ++i) {
        if (i % 2) {
            s = PyObject_Repr(Py_None);
            if (s == NULL)
                return NULL;
        }
        n += s != NULL;
    }
    Py_XDECREF(s);
    return PyLong_FromSsize_t(n);
}

static PyObject *
Enc_pick(EncObject *self, PyObject *args)
{
    Py_ssize_t i, n = PyTuple_GET_SIZE(args);
    PyObject *arg = NULL;
    for (i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(args, i);
        if (PyObject_IsTrue(item)) {
            arg = PyObject_Repr(item);
            if (arg == NULL)
                return NULL;
        }
    }
    if (n == 0) {
        arg = PyUnicode_FromString("none");
    }
    if (arg == NULL)
        Py_RETURN_NONE;
    return arg;
}

typedef struct {
    Py_ssize_t i;
    PyObject *last;
} Cursor;

static int
cursor_next(PyObject *seq, Cursor *c)
{
    if (c->i >= PySequence_Size(seq))
        return 0;
    c->last = PySequence_GetItem(seq, c->i++);
    return c->last != NULL;
}

static PyObject *
Enc_count_true(EncObject *self, PyObject *seq)
{
    Cursor c = {0, NULL};
    Py_ssize_t n = 0;
    PyObject *item;
    while (cursor_next(seq, &c)) {
        item = c.last;
        n += PyObject_IsTrue(item) == 1;
        Py_DECREF(item);
    }
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromSsize_t(n);
}

static int
Enc_init(EncObject *self, PyObject *args, PyObject *kwds)
{
    PyObject *write;
    if (!PyArg_ParseTuple(args, "O", &write))
        return -1;
    Py_INCREF(write);
    Py_XSETREF(self->write, write);
    return 0;
}

static void
Enc_dealloc(EncObject *self)
{
    Py_XDECREF(self->write);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Enc_methods[] = {
    {"encode", (PyCFunction)Enc_encode, METH_O, NULL},
    {"last_true", (PyCFunction)Enc_last_true, METH_O, NULL},
    {"reprs", (PyCFunction)Enc_reprs, METH_VARARGS, NULL},
    {"fill", (PyCFunction)Enc_fill, METH_VARARGS, NULL},
    {"pairs", (PyCFunction)Enc_pairs, METH_VARARGS, NULL},
    {"pick", (PyCFunction)Enc_pick, METH_VARARGS, NULL},
    {"odd_reprs", (PyCFunction)Enc_odd_reprs, METH_VARARGS, NULL},
    {"count_true", (PyCFunction)Enc_count_true, METH_O, NULL},
    {NULL}
};

static PyTypeObject EncType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Enc",
    .tp_basicsize = sizeof(EncObject),
    .tp_dealloc = (destructor)Enc_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Enc_methods,
    .tp_init = (initproc)Enc_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&EncType) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&EncType);
    if (PyModule_AddObject(m, "Enc", (PyObject *)&EncType) < 0) {
        Py_DECREF(&EncType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

SCRIPT = r'''
out = []
e = m.Enc(out.append)
def fails(b):
    if b == b"7":
        raise ValueError("no sevens")
print(repr((outcome(e.encode, list(range(300))), len(out), out[299], outcome(e.encode, 5),
            outcome(m.Enc(fails).encode, [1, 7, 9]), e.last_true([0, 1, 0, 2, 0]),
            len(e.reprs(300)), len(out), outcome(m.Enc(lambda b: 1 / 0).reprs, 9),
            e.count_true([0, 1, 2] * 10), len(e.fill(300)), len(out), e.pairs(300), len(out), e.odd_reprs(9), e.pick(0, 5, 0, 7, 0), e.pick())))
'''


def test_a_loop_whose_variable_each_iteration_writes_first_releases(stock_and_translated, run_script):
    stock, ported = stock_and_translated("loopfirst", SOURCE.replace("NAME", "loopfirst"))
    want = run_script(SCRIPT, stock)
    assert want[:3] == (None, 300, b"299") and want[6:] == (300, 600, ("ZeroDivisionError", "division by zero"), 20, 300, 900, 1200, 1200, 8, "7", "none")
    for debug in (False, True):
        assert run_script(SCRIPT, ported, debug=debug, env={"CYSTCK_HANDLE_LIMIT": "64"}) == want


def test_a_variable_written_under_an_if_keeps_the_loop_unmarked():
    out = translate.translate_source(SOURCE.replace("NAME", "loopfirst"), "loopfirst.c")
    encode = out[out.index("Enc_encode("):out.index("Enc_last_true(")]
    last_true = out[out.index("Enc_last_true("):out.index("Enc_reprs(")]
    reprs = out[out.index("Enc_reprs("):out.index("Enc_fill(")]
    fill = out[out.index("Enc_fill("):out.index("Enc_pairs(")]
    pairs = out[out.index("Enc_pairs("):out.index("Enc_odd_reprs(")]
    odd_reprs = out[out.index("Enc_odd_reprs("):out.index("Enc_pick(")]
    pick = out[out.index("Enc_pick("):out.index("cursor_next(")]
    count_true = out[out.index("Enc_count_true("):out.index("Enc_init(")]
    assert "Cystck_ReleaseSince" in encode
    assert "Cystck_Mark" not in last_true
    # a null store where an append fails puts no handle in `ret`
    assert "Cystck_ReleaseSince" in reprs
    # the list steals each item, but encode_one leaves its own handles behind
    assert "Cystck_ReleaseSince" in fill
    # value is written first in the block that names it
    assert "Cystck_ReleaseSince" in pairs
    # s, written in a block, is read after it: an even iteration reads the last odd one's
    assert "Cystck_Mark" not in odd_reprs
    # arg is written after the loop only where n == 0: otherwise the last
    # iteration's value is returned
    assert "Cystck_Mark" not in pick
    # cursor_next keeps the item it makes in the cursor, read by the body
    assert "Cystck_Mark" not in count_true


ACCUMULATOR = r'''#include <Python.h>

typedef struct {
    PyObject *parts;         /* made by the first append, kept across items */
} Acc;

static int
acc_append(Acc *acc, PyObject *s)
{
    if (acc->parts == NULL && (acc->parts = PyList_New(0)) == NULL)
        return -1;
    return PyList_Append(acc->parts, s);
}

static PyObject *
join_reprs(PyObject *self, PyObject *seq)
{
    Acc acc = {NULL};
    Acc *rval = &acc;
    PyObject *item, *s;
    Py_ssize_t i;
    for (i = 0; i < PySequence_Size(seq); i++) {
        item = PySequence_GetItem(seq, i);
        if (item == NULL)
            return NULL;
        s = PyObject_Repr(item);
        Py_DECREF(item);
        if (s == NULL || acc_append(rval, s) < 0)
            return NULL;
        Py_DECREF(s);
    }
    return acc.parts;
}

static PyMethodDef methods[] = {{"join_reprs", join_reprs, METH_O, NULL}, {NULL}};
'''


def test_a_loop_handing_a_struct_pointer_to_the_extensions_function_keeps_unmarked():
    """acc_append keeps the list it makes in the struct: a mark would
    release it at the next iteration (simplejson's JSON_Accu, found by its
    test_accumulator in a fresh-clone CI run)."""
    out = translate.translate_source(ACCUMULATOR, "acc.c")
    loop = out[out.index("join_reprs("):out.index("CYSTCK_DEF_METH")]
    assert "Cystck_Mark" not in loop
