"""``tp_dictoffset = offsetof(Foo, dict)`` of an object member gives the
type ``CYSTCK_DEF_DICT``: instances (and those of Python subclasses) keep
their attributes in that field, as stock.  Before, the offset was
reported and dropped: no ``__dict__`` on instances, and a Python subclass
made a dict of its own (lazy-object-proxy's first contact:
``vars(proxy)`` of a subclassed proxy differed from stock)."""
from cystck.migrate import translate

DICT = r'''#include <Python.h>
#include "structmember.h"

typedef struct {
    PyObject_HEAD
    PyObject *dict;
    PyObject *value;
} Holder;

static PyObject *Holder_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Holder *self = (Holder *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->dict = PyDict_New();
    if (self->dict == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    self->value = NULL;
    return (PyObject *)self;
}

static int Holder_traverse(Holder *self, visitproc visit, void *arg)
{
    Py_VISIT(self->dict);
    Py_VISIT(self->value);
    return 0;
}

static int Holder_clear(Holder *self)
{
    Py_CLEAR(self->dict);
    Py_CLEAR(self->value);
    return 0;
}

static void Holder_dealloc(Holder *self)
{
    PyObject_GC_UnTrack(self);
    Holder_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject HolderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dictslot.Holder",
    .tp_basicsize = sizeof(Holder),
    .tp_dealloc = (destructor)Holder_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)Holder_traverse,
    .tp_clear = (inquiry)Holder_clear,
    .tp_dictoffset = offsetof(Holder, dict),
    .tp_new = Holder_new,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "dictslot", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_dictslot(void)
{
    if (PyType_Ready(&HolderType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&HolderType);
    if (PyModule_AddObject(m, "Holder", (PyObject *)&HolderType) < 0)
        return NULL;
    return m;
}
'''


def test_the_dict_offset_becomes_the_dict_member():
    out = translate.translate_source(DICT, "dictslot.c")
    assert "CYSTCK_DEF_DICT(HolderType_dict, Holder, dict)\n" in out
    assert "&HolderType_dict," in out


def test_a_dict_offset_that_is_a_number_is_still_reported():
    """Negative: ``tp_dictoffset = 16`` names no member: reported."""
    out, = [translate.translate_source(DICT.replace("offsetof(Holder, dict)", "16"), "dictslot.c")]
    assert "CYSTCK_DEF_DICT" not in out


def test_instance_dicts_behave_like_the_stock_build(same_as_stock):
    script = ("import gc\n"
              "h = m.Holder()\nh.a = 1\n"
              "class Sub(m.Holder):\n    pass\n"
              "s = Sub()\ns.b = 2\ns.me = s\n"
              "r = [h.a, outcome(getattr, h, 'z'), s.b, s.me is s, '__dict__' in Sub.__dict__]\n"
              "del s\ngc.collect()\n"
              "print(repr(r))\n")
    want = same_as_stock("dictslot", DICT, script)
    assert want == [1, ("AttributeError", "'dictslot.Holder' object has no attribute 'z'"), 2, True, False]
