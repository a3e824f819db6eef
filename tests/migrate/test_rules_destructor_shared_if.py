"""A destructor whose API calls and native releases share one ``if``
(docs/gaps.md T14): the destructor-split rule splits the ``if`` too, the
test in both parts, where the test reads only what the API calls cannot
change (migrate/destructors.py, ``_stable_test``): the object's members
that hold no object and that no code but ``tp_new`` and the destructor
writes.  Before, such a destructor stayed whole, its API calls errors
(the output did not build).  A small extension is built stock and
translated and run the same, in release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.migrate import translate

STOCK = r"""
#include <Python.h>

/* Buffers allocated and not yet freed. */
static Py_ssize_t live_buffers;

typedef struct {
    PyObject_HEAD
    PyObject *log;
    char *buf;
    int owns;
    struct { int kind; } info;
} Bag;

/* Append `what` to the bag's log, a list. */
static int
Bag_note(Bag *self, const char *what)
{
    PyObject *s = PyUnicode_FromString(what);
    int r;
    if (s == NULL)
        return -1;
    r = PyList_Append(self->log, s);
    Py_DECREF(s);
    return r;
}

static PyObject *
Bag_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *log;
    int owns, kind = 1;
    Bag *self;
    if (!PyArg_ParseTuple(args, "Op|i", &log, &owns, &kind))
        return NULL;
    self = (Bag *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_INCREF(log);
    self->log = log;
    self->owns = owns;
    self->info.kind = kind;
    if (owns) {
        self->buf = (char *)PyObject_Malloc(1 << 16);
        if (self->buf == NULL) {
            Py_DECREF(self);
            return PyErr_NoMemory();
        }
        memset(self->buf, 1, 1 << 16);
        live_buffers++;
    }
    return (PyObject *)self;
}

static void
Bag_dealloc(Bag *self)
{
    Bag_note(self, "dealloc");
    if (self->owns && self->info.kind != 0) {
        if (Bag_note(self, "release") < 0)
            PyErr_WriteUnraisable((PyObject *)self);
        PyObject_Free(self->buf);
        live_buffers--;
    }
    Py_XDECREF(self->log);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
live(PyObject *module, PyObject *unused)
{
    return PyLong_FromSsize_t(live_buffers);
}

static PyTypeObject BagType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sharedif.Bag",
    .tp_basicsize = sizeof(Bag),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_dealloc = (destructor)Bag_dealloc,
    .tp_new = Bag_new,
};

static PyMethodDef methods[] = {
    {"live", live, METH_NOARGS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "sharedif", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_sharedif(void)
{
    PyObject *m;
    if (PyType_Ready(&BagType) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BagType);
    if (PyModule_AddObject(m, "Bag", (PyObject *)&BagType) < 0) {
        Py_DECREF(&BagType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
"""

SCRIPT = """
import tracemalloc
log, out = [], []
def step():
    out.append((list(log), m.live()))
    log.clear()
b = m.Bag(log, True); step(); del b; step()
b = m.Bag(log, False); del b; step()
b = m.Bag(log, True, 0); del b; step()
class B(m.Bag):
    def __del__(self):
        log.append("B __del__")
b = B(log, True); del b; step()
tracemalloc.start()
before = tracemalloc.get_traced_memory()[0]
for _ in range(40):
    m.Bag(log, True)
grown = tracemalloc.get_traced_memory()[0] - before
tracemalloc.stop()
out.append((grown < 1 << 20, m.live(), log.count("release")))
print(out)
"""
EXPECTED = [([], 1), (["dealloc", "release"], 0), (["dealloc"], 0), (["dealloc"], 1),
            (["B __del__", "dealloc", "release"], 1), (True, 1, 40)]


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("sharedif", STOCK.replace("#include <Python.h>",
                                                           "#include <Python.h>\n#include <string.h>"))


def test_stock(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translated_as_stock(built, run_script, debug):
    assert run_script(SCRIPT, built[1], debug) == EXPECTED


def _split(src):
    return translate.translate_files({"m.c": src})["m.c"]


def test_the_shared_if_is_in_both_parts():
    result = _split(STOCK)
    assert ("    Bag_note(S, self, \"dealloc\");\n"
            "    if (Bag_AsStruct(S, self)->owns && Bag_AsStruct(S, self)->info.kind != 0) {\n"
            "        if (Bag_note(S, self, \"release\") < 0)\n") in result.text
    assert ("    Bag *self = (Bag *)data;\n    if (self->owns && self->info.kind != 0) {\n"
            "        PyObject_Free(self->buf);\n        live_buffers--;\n    }\n}\n") in result.text
    assert not [n for n in result.notes if "destructor calls" in n.message]


@pytest.mark.parametrize("change", [
    # the member is written by a function the API calls may run
    ("    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n",
     "    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
     "static PyObject *\nBag_disown(Bag *self, PyObject *unused)\n{\n    self->owns = 0;\n    Py_RETURN_NONE;\n}\n"),
    # ... or through its address
    ("    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n",
     "    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
     "static void\nBag_set(Bag *self)\n{\n    int *p = &self->info.kind;\n    *p = 0;\n}\n"),
    # ... or by the API part of the if itself
    ("        if (Bag_note(self, \"release\") < 0)\n", "        self->owns = 0;\n        if (Bag_note(self, \"release\") < 0)\n"),
    # a test reading a member that holds an object (the runtime releases it between the parts)
    ("if (self->owns && self->info.kind != 0) {", "if (self->log != NULL) {"),
    # a test calling a function
    ("if (self->owns && self->info.kind != 0) {", "if (PyList_GET_SIZE(self->log) > 0) {"),
    # a test reading a global
    ("if (self->owns && self->info.kind != 0) {", "if (live_buffers > 0) {"),
    # an else
    ("        live_buffers--;\n    }\n", "        live_buffers--;\n    }\n    else\n        live_buffers++;\n"),
    # an API call after the if (the native part would move past it)
    ("    Py_XDECREF(self->log);\n", "    Bag_note(self, \"after\");\n    Py_XDECREF(self->log);\n"),
], ids=["method-writes", "address", "written-inside", "object-member", "call", "global", "else", "api-after"])
def test_a_shared_if_whose_test_may_change_is_not_split(change):
    """Negative: the destructor stays whole, its API calls reported."""
    old, new = change
    assert old in STOCK
    result = _split(STOCK.replace(old, new, 1))
    assert "Bag_dealloc_finalize" not in result.text
    assert [n for n in result.notes if "destructor calls Bag_note" in n.message]
