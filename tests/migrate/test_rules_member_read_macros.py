"""A macro of a header that reads an object member through a cast of its
parameter, ``#define Box_GET(ob) (((Box *)(ob))->obj)``, used as a value:
kept a macro, its body stayed a struct member (a ``Cystck_Field``) where
the uses wanted a handle (zope.proxy's ``Proxy_GET_OBJECT``, first
contact: 50 of its 104 ``--check`` errors, "incompatible types when
assigning to type 'Cystck_Object' from type 'Cystck_Field'").  The
member-read-macros rule writes it out at each use, a member access the
struct-access rule translates."""
from cystck.migrate import translate

HEADER = r'''typedef struct {
    PyObject_HEAD
    PyObject *obj;
} Box;

#define Box_GET(ob)   (((Box *)(ob))->obj)
'''

BOX = r'''#include <Python.h>
#include "box.h"

static PyTypeObject BoxType;

static PyObject *
Box_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *o;
    Box *self;
    if (!PyArg_ParseTuple(args, "O", &o))
        return NULL;
    self = (Box *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_INCREF(o);
    self->obj = o;
    return (PyObject *)self;
}

static int
Box_traverse(PyObject *self, visitproc visit, void *arg)
{
    PyObject *ob = Box_GET(self);
    if (ob != NULL)
        return visit(ob, arg);
    else
        return 0;
}

static int
Box_clear(Box *self)
{
    Py_CLEAR(self->obj);
    return 0;
}

static void
Box_dealloc(Box *self)
{
    PyObject_GC_UnTrack(self);
    Box_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Box_repr(PyObject *self)
{
    return PyObject_Repr(Box_GET(self));
}

static PyObject *
unwrap(PyObject *module, PyObject *o)
{
    while (PyObject_TypeCheck(o, &BoxType))
        o = Box_GET(o);
    Py_INCREF(o);
    return o;
}

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "membermacro.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = Box_new,
    .tp_traverse = Box_traverse,
    .tp_clear = (inquiry)Box_clear,
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_repr = Box_repr,
};

static PyMethodDef methods[] = {
    {"unwrap", unwrap, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "membermacro", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_membermacro(void)
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


def _translated():
    return translate.translate_files({"box.h": HEADER, "membermacro.c": BOX})


def test_a_member_read_macro_is_written_out_at_its_uses():
    units = _translated()
    out = units["membermacro.c"].text
    assert "CystckObject_Repr(S, (CystckField_Load(S, self, Box_AsStruct(S, self)->obj)))" in out
    assert "o = (CystckField_Load(S, o, Box_AsStruct(S, o)->obj));" in out
    assert "Box_GET(" not in out
    # the header keeps its macro, for the extensions that include it
    assert "#define Box_GET(ob)   (((Box *)(ob))->obj)" in units["box.h"].text


def test_a_traverse_local_given_the_member_points_at_the_field():
    """The traverse function's ``PyObject *ob = Box_GET(self);``, only
    tested and visited (destroy-traverse): a pointer to the field."""
    out = _translated()["membermacro.c"].text
    assert "    Cystck_Field *ob = &(((Box *)self)->obj);\n    if (!CystckField_IsNull(*ob))\n" \
           "        return visit(ob, arg);\n" in out


def test_a_traverse_local_used_otherwise_stays():
    """Negative: a local also passed to another call is no field pointer."""
    src = BOX.replace("    if (ob != NULL)\n        return visit(ob, arg);",
                      "    if (ob != NULL && Py_REFCNT(ob) > 0)\n        return visit(ob, arg);")
    out = translate.translate_files({"box.h": HEADER, "membermacro.c": src})["membermacro.c"].text
    assert "Cystck_Field *ob" not in out


def test_a_macro_written_to_is_left_alone():
    """Negative: ``Box_GET(o) = v`` makes the macro an lvalue; it stays."""
    src = BOX.replace("    Py_INCREF(o);\n    return o;\n}", "    Py_INCREF(o);\n    return o;\n}\n"
                      "static void put(PyObject *b, PyObject *v) { Box_GET(b) = v; }")
    out = translate.translate_files({"box.h": HEADER, "membermacro.c": src})["membermacro.c"].text
    assert "Box_GET(self)" in out and "Box_GET(b) = v" in out


def test_member_read_macros_behave_like_the_stock_build(same_as_stock, tmp_path):
    # the fixture builds one file: the header goes inline
    src = BOX.replace('#include "box.h"\n', HEADER)
    script = ("import gc, weakref\n"
              "b = m.Box(m.Box([1, 'x']))\n"
              "class C: pass\n"
              "c = C(); c.box = m.Box(c); r = weakref.ref(c); del c; gc.collect()\n"
              "print(repr([repr(b), m.unwrap(b), m.unwrap(3), outcome(m.Box)[0], r() is None]))\n")
    want = same_as_stock("membermacro", src, script)
    assert want == ["[1, 'x']", [1, "x"], 3, "TypeError", True]
