"""Entry points of a type declared in a header without ``static`` and
called from another file (cbor2 5.9.0: its module functions make an
encoder with ``CBOREncoder_new(&CBOREncoderType, NULL, NULL)`` and
``CBOREncoder_init(self, args, kwargs)``, both defined in encoder.c).

Two things did not compile (a keywords method of another file called
with a tuple, ``Box_grown(box, t, kwargs)``, already did).  The entry-linkage rule made the slot
functions' definitions ``static`` (CYSTCK_DEF_SLOT declares its
implementation static) after the header's non-static prototype ("static
declaration follows non-static"); now such a function keeps its external
linkage and the slot calls it through a static forwarder.  And a direct
call of a keyword slot (``tp_init``, ``tp_new``, ``tp_call``, whose
``kw`` is a dict) with a tuple and keywords of the caller's making stayed
a stock call; it now goes through ``Cystck_CallSlotKw``, which unpacks the
tuple and passes the keywords as the dict the slot gets from Python.
Stock and translated builds answer alike (values, error types and
messages), in release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.build import build_extension
from cystck.migrate import cli, translate

HEADER = r'''#ifndef BOX_H
#define BOX_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    PyObject_HEAD
    PyObject *label;
    Py_ssize_t size;
} BoxObject;

PyObject *Box_new(PyTypeObject *type, PyObject *args, PyObject *kwargs);
int Box_init(BoxObject *self, PyObject *args, PyObject *kwargs);
PyObject *Box_call(BoxObject *self, PyObject *args, PyObject *kwargs);
PyObject *Box_grown(BoxObject *self, PyObject *args, PyObject *kwargs);
int box_add_type(PyObject *module);

#endif
'''

BOX = r'''#include "box.h"

PyObject *
Box_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    BoxObject *self = (BoxObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_INCREF(Py_None);
    self->label = Py_None;
    self->size = 0;
    return (PyObject *)self;
}

/* Box(label, size=1) */
int
Box_init(BoxObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"label", "size", NULL};
    PyObject *label, *tmp;
    Py_ssize_t size = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|n", kwlist, &label, &size))
        return -1;
    if (size < 0) {
        PyErr_SetString(PyExc_ValueError, "size must not be negative");
        return -1;
    }
    tmp = self->label;
    Py_INCREF(label);
    self->label = label;
    Py_XDECREF(tmp);
    self->size = size;
    return 0;
}

/* box(*items, sep=label) -> label and the items joined with sep, size times */
PyObject *
Box_call(BoxObject *self, PyObject *args, PyObject *kwargs)
{
    PyObject *sep = NULL, *parts, *joined, *r;
    Py_ssize_t i;
    if (kwargs != NULL) {
        sep = PyDict_GetItemString(kwargs, "sep");
        if (PyDict_Size(kwargs) != (sep != NULL)) {
            PyErr_SetString(PyExc_TypeError, "only sep is a keyword");
            return NULL;
        }
    }
    parts = PyList_New(0);
    if (parts == NULL)
        return NULL;
    if (PyList_Append(parts, self->label) < 0)
        goto fail;
    for (i = 0; i < PyTuple_GET_SIZE(args); i++)
        if (PyList_Append(parts, PyTuple_GET_ITEM(args, i)) < 0)
            goto fail;
    joined = PyUnicode_Join(sep != NULL ? sep : self->label, parts);
    Py_DECREF(parts);
    if (joined == NULL)
        return NULL;
    r = PySequence_Repeat(joined, self->size);
    Py_DECREF(joined);
    return r;
fail:
    Py_DECREF(parts);
    return NULL;
}

static void
Box_dealloc(BoxObject *self)
{
    Py_XDECREF(self->label);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Box_get_label(BoxObject *self, void *closure)
{
    Py_INCREF(self->label);
    return self->label;
}

static PyObject *
Box_get_size(BoxObject *self, void *closure)
{
    return PyLong_FromSsize_t(self->size);
}

/* box.grown(by=1, label=None): the size grown, the label kept or replaced */
PyObject *
Box_grown(BoxObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"by", "label", NULL};
    Py_ssize_t by = 1;
    PyObject *label = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|nO", kwlist, &by, &label))
        return NULL;
    return Py_BuildValue("(On)", label == Py_None ? self->label : label, self->size + by);
}

static PyMethodDef Box_methods[] = {
    {"grown", (PyCFunction)(void (*)(void))Box_grown, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL}
};

static PyGetSetDef Box_getset[] = {
    {"label", (getter)Box_get_label, NULL, NULL, NULL},
    {"size", (getter)Box_get_size, NULL, NULL, NULL},
    {NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Box",
    .tp_basicsize = sizeof(BoxObject),
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = Box_new,
    .tp_init = (initproc)Box_init,
    .tp_call = (ternaryfunc)Box_call,
    .tp_methods = Box_methods,
    .tp_getset = Box_getset,
};

int
box_add_type(PyObject *module)
{
    if (PyType_Ready(&BoxType) < 0)
        return -1;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(module, "Box", (PyObject *)&BoxType) < 0) {
        Py_DECREF(&BoxType);
        return -1;
    }
    return 0;
}
'''

MODULE = r'''#include "box.h"

/* make(cls, *args, **kw): a cls made as a serializer's module function
 * makes its worker: tp_new without arguments, then tp_init with the
 * caller's own arguments after the first and its keywords */
static PyObject *
make(PyObject *module, PyObject *args, PyObject *kwargs)
{
    PyObject *cls, *rest;
    BoxObject *self;
    if (PyTuple_GET_SIZE(args) < 1) {
        PyErr_SetString(PyExc_TypeError, "make needs a class");
        return NULL;
    }
    cls = PyTuple_GET_ITEM(args, 0);
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "make needs a class");
        return NULL;
    }
    rest = PyTuple_GetSlice(args, 1, PyTuple_GET_SIZE(args));
    if (rest == NULL)
        return NULL;
    self = (BoxObject *)Box_new((PyTypeObject *)cls, NULL, NULL);
    if (self) {
        if (Box_init(self, rest, kwargs) < 0)
            Py_CLEAR(self);
    }
    Py_DECREF(rest);
    return (PyObject *)self;
}

/* sized(box, n): a new box of box's type, its label, size n: tp_new and
 * tp_init given a tuple and a dict made here */
static PyObject *
sized(PyObject *module, PyObject *args)
{
    PyObject *box, *n, *t, *kw;
    BoxObject *self;
    if (!PyArg_ParseTuple(args, "OO", &box, &n))
        return NULL;
    t = PyTuple_Pack(1, ((BoxObject *)box)->label);
    if (t == NULL)
        return NULL;
    kw = Py_BuildValue("{s:O}", "size", n);
    if (kw == NULL) {
        Py_DECREF(t);
        return NULL;
    }
    self = (BoxObject *)Box_new(Py_TYPE(box), t, kw);
    if (self != NULL && Box_init(self, t, kw) < 0)
        Py_CLEAR(self);
    Py_DECREF(kw);
    Py_DECREF(t);
    return (PyObject *)self;
}

/* call(box, *items, **kw): box(*items, **kw), the items a tuple made here */
static PyObject *
call(PyObject *module, PyObject *args, PyObject *kwargs)
{
    PyObject *rest, *r;
    if (PyTuple_GET_SIZE(args) < 1) {
        PyErr_SetString(PyExc_TypeError, "call needs a box");
        return NULL;
    }
    rest = PyTuple_GetSlice(args, 1, PyTuple_GET_SIZE(args));
    if (rest == NULL)
        return NULL;
    r = Box_call((BoxObject *)PyTuple_GET_ITEM(args, 0), rest, kwargs);
    Py_DECREF(rest);
    return r;
}

/* plain(box): box() with no keywords */
static PyObject *
plain(PyObject *module, PyObject *box)
{
    PyObject *t = PyTuple_New(0);
    PyObject *r;
    if (t == NULL)
        return NULL;
    r = Box_call((BoxObject *)box, t, NULL);
    Py_DECREF(t);
    return r;
}

/* labelled(box, text=..., **kw): a box of box's type, text its label, the
 * other keywords to tp_init: the caller takes a keyword out of its own
 * dict before it passes the dict on (a dump(obj=...) taking its object
 * out of the keywords) */
static PyObject *
labelled(PyObject *module, PyObject *args, PyObject *kwargs)
{
    PyObject *box, *text = NULL, *t;
    BoxObject *self;
    if (PyTuple_GET_SIZE(args) != 1) {
        PyErr_SetString(PyExc_TypeError, "labelled takes one box");
        return NULL;
    }
    box = PyTuple_GET_ITEM(args, 0);
    if (kwargs)
        text = PyDict_GetItemString(kwargs, "text");
    if (text == NULL) {
        PyErr_SetString(PyExc_TypeError, "labelled needs text=");
        return NULL;
    }
    t = PyTuple_Pack(1, text);
    if (t == NULL)
        return NULL;
    if (PyDict_DelItemString(kwargs, "text") < 0) {
        Py_DECREF(t);
        return NULL;
    }
    self = (BoxObject *)Box_new(Py_TYPE(box), NULL, NULL);
    if (self != NULL && Box_init(self, t, kwargs) < 0)
        Py_CLEAR(self);
    Py_DECREF(t);
    return (PyObject *)self;
}

/* reinit(box, label, size=1): box.__init__(label, size=...) called
 * directly, the arguments after the box shifted into args itself (a
 * dump(obj, fp, **kw) passing the rest on) */
static PyObject *
reinit(PyObject *module, PyObject *args, PyObject *kwargs)
{
    PyObject *box;
    int r;
    if (PyTuple_GET_SIZE(args) < 1) {
        PyErr_SetString(PyExc_TypeError, "reinit needs a box");
        return NULL;
    }
    box = PyTuple_GET_ITEM(args, 0);
    args = PyTuple_GetSlice(args, 1, PyTuple_GET_SIZE(args));
    if (args == NULL)
        return NULL;
    r = Box_init((BoxObject *)box, args, kwargs);
    Py_DECREF(args);
    if (r < 0)
        return NULL;
    return Py_BuildValue("(On)", ((BoxObject *)box)->label, ((BoxObject *)box)->size);
}

/* grown_twice(box, **kw): box.grown(2, **kw), a method of another file
 * called with a tuple made here */
static PyObject *
grown_twice(PyObject *module, PyObject *args, PyObject *kwargs)
{
    PyObject *box, *t, *r;
    if (!PyArg_ParseTuple(args, "O", &box))
        return NULL;
    t = Py_BuildValue("(i)", 2);
    if (t == NULL)
        return NULL;
    r = Box_grown((BoxObject *)box, t, kwargs);
    Py_DECREF(t);
    return r;
}

static PyMethodDef methods[] = {
    {"make", (PyCFunction)(void (*)(void))make, METH_VARARGS | METH_KEYWORDS, NULL},
    {"sized", sized, METH_VARARGS, NULL},
    {"call", (PyCFunction)(void (*)(void))call, METH_VARARGS | METH_KEYWORDS, NULL},
    {"plain", plain, METH_O, NULL},
    {"labelled", (PyCFunction)(void (*)(void))labelled, METH_VARARGS | METH_KEYWORDS, NULL},
    {"grown_twice", (PyCFunction)(void (*)(void))grown_twice, METH_VARARGS | METH_KEYWORDS, NULL},
    {"reinit", (PyCFunction)(void (*)(void))reinit, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    if (box_add_type(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

NAME = "xentries"
FILES = {"box.h": HEADER, "box.c": BOX.replace("NAME", NAME), "mod.c": MODULE.replace("NAME", NAME)}

SCRIPT = r"""
Box = m.Box
class Sub(Box):
    pass
b = m.make(Box, "a", size=3)
s = m.make(Sub, "s")
results = [
    (b.label, b.size, type(b).__name__), (s.label, s.size, type(s).__name__),
    outcome(m.make, Box), outcome(m.make, Box, "x", size=-1), outcome(m.make, Box, "x", nope=1),
    outcome(m.make, Box, "x", 2, 3), outcome(m.make, 1),
    outcome(lambda: (lambda z: (z.label, z.size, type(z).__name__))(m.sized(b, 4))),
    outcome(lambda: (lambda z: (z.label, z.size, type(z).__name__))(m.sized(s, 2))),
    outcome(m.sized, b, -2), outcome(m.sized, b, "x"),
    m.call(b, "x", "y"), m.call(b, "x", sep="-"), m.call(s), outcome(m.call, b, 1), outcome(m.call, b, "x", end=1),
    outcome(m.call, b, "x", sep="-", end=1), m.plain(b), m.plain(m.make(Box, "q", size=0)),
    b("x", sep="+"), Box("direct", 2)("y"),
    outcome(lambda: (lambda z: (z.label, z.size, type(z).__name__))(m.labelled(s, text="t", size=2))),
    outcome(lambda: (lambda z: (z.label, z.size))(m.labelled(b, text="u"))),
    outcome(m.labelled, b), outcome(m.labelled, b, text="v", size="x"), outcome(m.labelled, b, text="v", label=1),
    m.grown_twice(b), m.grown_twice(s, label="w"), outcome(m.grown_twice, b, by=3), b.grown(), b.grown(label=5),
    m.reinit(Box("r"), "r2", size=7), m.reinit(Box("r"), "r3", 4), outcome(m.reinit, b), outcome(m.reinit, b, 1, x=1),
]
print(repr(results))
"""


def _translated():
    return translate.translate_files(FILES)


def test_slot_functions_declared_in_a_header_keep_their_linkage():
    units = _translated()
    box, header = units["box.c"].text, units["box.h"].text
    assert "int Box_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args, Cystck_ssize_t nargs, " \
           "Cystck_Object kwargs);" in header
    assert "static int\nBox_new" not in box and "\nint\nBox_new(Cystck_State *S" in box
    assert "\nint\nBox_init(Cystck_State *S" in box and "\nint\nBox_call(Cystck_State *S" in box
    # the slot goes through a static forwarder calling the external function
    assert "CYSTCK_DEF_SLOT(BoxType_tp_new, tp_new, Box_new__BoxType_tp_new)" in box
    assert "return Box_new(S, type, args, nargs, kw);" in box


def test_direct_calls_of_keyword_slots_go_through_the_runtime():
    res = _translated()["mod.c"]
    out = res.text
    assert "Cystck_CallSlotKw(S, Box_init, self, rest, args, nargs, kwargs) < 0" in out
    assert "Cystck_CallSlotKw(S, Box_init, self, t, NULL, 0, kw) < 0" in out
    assert "Cystck_CallSlotKw(S, Box_new, " in out and "Cystck_CallSlotKw(S, Box_call, " in out
    assert "direct call of entry point" not in "".join(n.message for n in res.notes)
    # args shifted in place: a tuple throughout, but the keyword values
    # follow the original array
    assert "Cystck_CallSlotKw(S, Box_init, box, args_tuple, args, nargs, kwargs);" in out
    assert "if (Cystck_IsNull(args_tuple))" in out
    # a keywords method of another file
    assert "r = Cystck_CallImplKw(S, Box_grown, box, t, args, nargs, kwargs);" in out
    # a method that reads its keywords as a dict makes one, then passes it
    labelled = out[out.index("\nlabelled("):]
    assert "if (cystck_migrate_kwargs_dict(S, args, nargs, &kwargs) < 0)" in labelled
    assert "Cystck_CallSlotKw(S, Box_init, self, t, args, nargs, kwargs) < 0" in labelled


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    root = tmp_path_factory.mktemp(NAME)
    stock = root / "stock"
    stock.mkdir()
    for path, text in FILES.items():
        (stock / path).write_text(text)
    assert cli.main([str(stock), "-o", str(root / "cystck"), "-q", "--no-cppcheck", "--check"]) == 0
    built = {}
    for kind, folder in (("stock", stock), ("cystck", root / "cystck")):
        built[kind] = build_extension(NAME, [folder / "box.c", folder / "mod.c"], root / f"build-{kind}",
                                      use_cystck=kind == "cystck", include_dirs=[str(folder)])
    return built


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_the_translation_behaves_as_the_stock_build(builds, run_script, debug):
    want = run_script(SCRIPT, builds["stock"])
    assert want[:2] == [("a", 3, "Box"), ("s", 1, "Sub")]
    assert want[3] == ("ValueError", "size must not be negative")
    assert want[11:13] == ["aaxayaaxayaaxay", "a-xa-xa-x"]
    assert want[-4:-2] == [("r2", 7), ("r3", 4)]
    assert want[-14:-11] == [("t", 2, "Sub"), ("u", 1), ("TypeError", "labelled needs text=")]
    assert want[-9:-6] == [("a", 5), ("w", 3),
                           ("TypeError", "argument for function given by name ('by') and position (1)")]
    assert run_script(SCRIPT, builds["cystck"], debug=debug) == want
