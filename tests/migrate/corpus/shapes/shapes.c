/* A custom type with slots, members, getsets, methods and a GC-tracked
 * object member, written with the stock C API (static PyTypeObject). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "structmember.h"

typedef struct {
    PyObject_HEAD
    double w;
    double h;
    PyObject *tag;
} RectObject;

static PyTypeObject RectType;

static PyObject *
Rect_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"w", "h", "tag", NULL};
    double w = 0.0, h = 0.0;
    PyObject *tag = Py_None;
    RectObject *self;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|ddO", kwlist, &w, &h, &tag))
        return NULL;
    self = (RectObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->w = w;
    self->h = h;
    Py_INCREF(tag);
    self->tag = tag;
    return (PyObject *)self;
}

static int
Rect_traverse(RectObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->tag);
    return 0;
}

static int
Rect_clear(RectObject *self)
{
    Py_CLEAR(self->tag);
    return 0;
}

static void
Rect_dealloc(RectObject *self)
{
    PyObject_GC_UnTrack(self);
    Rect_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Rect_repr(RectObject *self)
{
    return PyUnicode_FromFormat("Rect(%d x %d, %R)", (int)self->w, (int)self->h, self->tag);
}

static PyObject *
Rect_area(RectObject *self, PyObject *Py_UNUSED(ignored))
{
    return PyFloat_FromDouble(self->w * self->h);
}

static PyObject *
Rect_scaled(RectObject *self, PyObject *arg)
{
    double k = PyFloat_AsDouble(arg);
    RectObject *r;
    if (k == -1.0 && PyErr_Occurred())
        return NULL;
    r = PyObject_GC_New(RectObject, &RectType);
    if (r == NULL)
        return NULL;
    r->w = self->w * k;
    r->h = self->h * k;
    r->tag = NULL;
    r->tag = Py_NewRef(self->tag);
    PyObject_GC_Track(r);
    return (PyObject *)r;
}

static PyObject *
Rect_get_tag(RectObject *self, void *closure)
{
    Py_INCREF(self->tag);
    return self->tag;
}

static int
Rect_set_tag(RectObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete tag");
        return -1;
    }
    Py_INCREF(value);
    Py_XDECREF(self->tag);
    self->tag = value;
    return 0;
}

static PyObject *
Rect_add(PyObject *a, PyObject *b)
{
    RectObject *x, *y, *r;
    if (!PyObject_TypeCheck(a, &RectType) || !PyObject_TypeCheck(b, &RectType))
        Py_RETURN_NOTIMPLEMENTED;
    x = (RectObject *)a;
    y = (RectObject *)b;
    r = (RectObject *)PyType_GenericAlloc(&RectType, 0);
    if (r == NULL)
        return NULL;
    r->w = x->w + y->w;
    r->h = x->h > y->h ? x->h : y->h;
    Py_INCREF(Py_None);
    r->tag = Py_None;
    return (PyObject *)r;
}

static Py_ssize_t
Rect_length(RectObject *self)
{
    return (Py_ssize_t)(2 * (self->w + self->h));
}

static PyMethodDef Rect_methods[] = {
    {"area", (PyCFunction)Rect_area, METH_NOARGS, "w * h"},
    {"scaled", (PyCFunction)Rect_scaled, METH_O, "a scaled copy"},
    {NULL}
};

static PyMemberDef Rect_members[] = {
    {"w", T_DOUBLE, offsetof(RectObject, w), 0, "width"},
    {"h", T_DOUBLE, offsetof(RectObject, h), READONLY, "height"},
    {NULL}
};

static PyGetSetDef Rect_getset[] = {
    {"tag", (getter)Rect_get_tag, (setter)Rect_set_tag, "any object", NULL},
    {NULL}
};

static PyNumberMethods Rect_as_number = {
    .nb_add = Rect_add,
};

static PySequenceMethods Rect_as_sequence = {
    .sq_length = (lenfunc)Rect_length,
};

static PyTypeObject RectType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shapes.Rect",
    .tp_basicsize = sizeof(RectObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A rectangle with a tag.",
    .tp_new = Rect_new,
    .tp_dealloc = (destructor)Rect_dealloc,
    .tp_traverse = (traverseproc)Rect_traverse,
    .tp_clear = (inquiry)Rect_clear,
    .tp_repr = (reprfunc)Rect_repr,
    .tp_as_number = &Rect_as_number,
    .tp_as_sequence = &Rect_as_sequence,
    .tp_methods = Rect_methods,
    .tp_members = Rect_members,
    .tp_getset = Rect_getset,
};

static struct PyModuleDef shapes_module = {
    PyModuleDef_HEAD_INIT, "shapes", NULL, -1, NULL
};

PyMODINIT_FUNC
PyInit_shapes(void)
{
    PyObject *m;
    if (PyType_Ready(&RectType) < 0)
        return NULL;
    m = PyModule_Create(&shapes_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&RectType);
    if (PyModule_AddObject(m, "Rect", (PyObject *)&RectType) < 0) {
        Py_DECREF(&RectType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
