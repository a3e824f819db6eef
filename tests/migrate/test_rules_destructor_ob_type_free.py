"""A deallocator that frees the object through the head's type member,
``self->ob_type->tp_free(self)`` (the older spelling of
``Py_TYPE(self)->tp_free``): the destroy-traverse rule removed only
``ob_type->tp_free(self);`` and left ``self->`` behind, which did not
compile (zope.proxy's first contact: "expected identifier before '}'
token").  The whole call goes, as ``Py_TYPE(self)->tp_free`` does."""
from cystck.migrate import translate

BOX = r'''#include <Python.h>

typedef struct {
    PyObject_HEAD
    PyObject *obj;
} Box;

static int
Box_clear(PyObject *self)
{
    Py_CLEAR(((Box *)self)->obj);
    return 0;
}

static void
Box_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    (void) Box_clear(self);
    self->ob_type->tp_free(self);
}

static int
Box_traverse(Box *self, visitproc visit, void *arg)
{
    Py_VISIT(self->obj);
    return 0;
}

static int
Box_init(Box *self, PyObject *args, PyObject *kw)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O", &o))
        return -1;
    Py_INCREF(o);
    Py_XSETREF(self->obj, o);
    return 0;
}

static PyObject *
Box_get(Box *self, PyObject *unused)
{
    Py_INCREF(self->obj);
    return self->obj;
}

static PyMethodDef Box_methods[] = {
    {"get", (PyCFunction)Box_get, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "obtypefree.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Box_init,
    .tp_traverse = (traverseproc)Box_traverse,
    .tp_clear = Box_clear,
    .tp_dealloc = Box_dealloc,
    .tp_methods = Box_methods,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "obtypefree", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_obtypefree(void)
{
    PyObject *m;
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0)
        return NULL;
    return m;
}
'''


def test_the_free_through_ob_type_goes_whole():
    out = translate.translate_source(BOX, "obtypefree.c")
    body = out[out.index("Box_dealloc(void"):]
    body = body[:body.index("}")]
    assert "tp_free" not in body and "->" not in body


def test_the_destructor_behaves_like_the_stock_build(same_as_stock):
    script = ("import gc, weakref\n"
              "class C: pass\n"
              "c = C(); r = weakref.ref(c)\n"
              "b = m.Box(c); del c\n"
              "got = b.get() is r()\n"
              "b2 = m.Box([]); b2.get().append(b2)\n"
              "del b, b2; gc.collect()\n"
              "print(repr([got, r() is None]))\n")
    assert same_as_stock("obtypefree", BOX, script) == [True, True]
