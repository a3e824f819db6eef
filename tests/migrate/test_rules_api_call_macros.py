"""A macro that is one API call of its parameters, ``#define TYPE_OF(o)
(Py_TYPE(o))`` (a spelling kept for older Pythons), hid the call from
every rule: its body became ``CystckObject_Type(S, o)``, which a
destructor (no state) cannot expand, and ``TYPE_OF(self)->tp_free(self)``
stayed a slot call on a handle (build errors).  Rule api-call-macros
writes the call out at the uses; ``Py_TYPE(self)->tp_free(self)`` of a
half-made instance in ``tp_new`` then goes with object-frees (the runtime
releases it with its last handle, running its destructor).  Stock and
translated builds answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

#ifndef LEGACY_TYPE_OF
#define TYPE_OF(Obj) (Py_TYPE(Obj))
#else
#define TYPE_OF(Obj) ((Obj)->ob_type)
#endif
#define NAME_OF(o, n) PyObject_GetAttrString((o), (n))

typedef struct {
    PyObject_HEAD
    long *buf;
} Box;

static void
Box_dealloc(Box *self)
{
    free(self->buf);
    TYPE_OF(self)->tp_free((PyObject *)self);
}

static PyObject *
Box_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    long n = 0;
    Box *self;
    if (!PyArg_ParseTuple(args, "l", &n))
        return NULL;
    self = (Box *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "negative");
        TYPE_OF(self)->tp_free((PyObject *)self);
        return NULL;
    }
    self->buf = malloc(sizeof(long));
    if (self->buf == NULL) {
        TYPE_OF(self)->tp_free((PyObject *)self);
        return PyErr_NoMemory();
    }
    *self->buf = n;
    return (PyObject *)self;
}

static PyObject *
Box_value(Box *self, PyObject *unused)
{
    PyObject *name = NAME_OF((PyObject *)TYPE_OF(self), "__name__");
    PyObject *res;
    if (name == NULL)
        return NULL;
    res = Py_BuildValue("(Ol)", name, *self->buf);
    Py_DECREF(name);
    return res;
}

static PyMethodDef Box_methods[] = {
    {"value", (PyCFunction)Box_value, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyType_Slot Box_slots[] = {
    {Py_tp_dealloc, (destructor)Box_dealloc},
    {Py_tp_methods, Box_methods},
    {Py_tp_new, Box_new},
    {0, 0},
};

static PyType_Spec Box_spec = {"aliases.Box", sizeof(Box), 0, Py_TPFLAGS_DEFAULT, Box_slots};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "aliases", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_aliases(void)
{
    PyObject *m = PyModule_Create(&moddef);
    PyObject *t;
    if (m == NULL)
        return NULL;
    t = PyType_FromSpec(&Box_spec);
    if (t == NULL || PyModule_AddObject(m, "Box", t) < 0) {
        Py_XDECREF(t);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''


def test_the_uses_are_written_out_and_the_frees_go():
    unit = translate.translate_files({"aliases.c": SRC})["aliases.c"]
    out = unit.text
    assert "TYPE_OF(self)" not in out and "NAME_OF(" not in out.split("#define NAME_OF")[1]
    assert "->tp_free" not in out.split("Box_new")[1]
    assert out.count("tp_free(self) went: the runtime releases the object") == 2
    assert any(n.rule == "object-frees" for n in unit.finish_notes())
    # the other definition of TYPE_OF no longer applies: reported (one in
    # the branch of an #if on an older Python is not: that branch is dead)
    assert any(n.rule == "api-call-macros" and "TYPE_OF" in n.message for n in unit.finish_notes())


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("aliases", SRC, "print(repr([outcome(lambda a: m.Box(a).value(), a) for a in (5, -1, 'x', 9)]))\n")
    assert want == [("Box", 5), ("ValueError", "negative"),
                    ("TypeError", "'str' object cannot be interpreted as an integer"), ("Box", 9)]
