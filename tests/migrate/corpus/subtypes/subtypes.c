/* A subtype whose instance struct starts with its base type's struct, and
 * reads of type slots (the descriptor protocol, the MRO), written with the
 * stock C API. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    PyObject_HEAD
    PyObject *value;
} BaseObject;

typedef struct {
    BaseObject base;
    PyObject *extra;
} SubObject;

static struct PyModuleDef subtypes_module;
static PyTypeObject BaseType;
static PyTypeObject SubType;

static PyObject *
Base_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *value = Py_None;
    BaseObject *self;
    if (!PyArg_ParseTuple(args, "|O", &value))
        return NULL;
    self = (BaseObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_INCREF(value);
    self->value = value;
    return (PyObject *)self;
}

static int
Base_traverse(BaseObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->value);
    return 0;
}

static void
Base_dealloc(BaseObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->value);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A helper of the base type, given the base part of a subtype's instance. */
static PyObject *
base_describe(BaseObject *self)
{
    if (self->value == NULL)
        return PyUnicode_FromString("empty");
    return PyObject_Repr(self->value);
}

static PyObject *
Sub_describe(SubObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *inner = base_describe(&self->base);
    PyObject *result;
    if (inner == NULL)
        return NULL;
    if (self->extra == NULL)
        result = PyTuple_Pack(1, inner);
    else
        result = PyTuple_Pack(2, inner, self->extra);
    Py_DECREF(inner);
    return result;
}

static PyObject *
Sub_keep(SubObject *self, PyObject *arg)
{
    /* extra takes the old value; value takes the argument */
    Py_XSETREF(self->extra, Py_NewRef(self->base.value));
    Py_SETREF(self->base.value, Py_NewRef(arg));
    Py_RETURN_NONE;
}

/* The subtype's tp_new: the base's, then its own member. */
static PyObject *
Sub_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    SubObject *self = (SubObject *)Base_new(type, args, kwds);
    if (self == NULL)
        return NULL;
    self->extra = PyUnicode_FromString("new");
    if (self->extra == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int
Sub_traverse(SubObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->base.value);
    Py_VISIT(self->extra);
    return 0;
}

static void
Sub_dealloc(SubObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->base.value);
    Py_CLEAR(self->extra);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Sub_methods[] = {
    {"describe", (PyCFunction)Sub_describe, METH_NOARGS, "the value's repr and the kept one"},
    {"keep", (PyCFunction)Sub_keep, METH_O, "keep a new value"},
    {NULL}
};

static PyTypeObject BaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "subtypes.Base",
    .tp_basicsize = sizeof(BaseObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = Base_new,
    .tp_dealloc = (destructor)Base_dealloc,
    .tp_traverse = (traverseproc)Base_traverse,
};

static PyTypeObject SubType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "subtypes.Sub",
    .tp_basicsize = sizeof(SubObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = Sub_new,
    .tp_dealloc = (destructor)Sub_dealloc,
    .tp_traverse = (traverseproc)Sub_traverse,
    .tp_methods = Sub_methods,
};

/* bind(descriptor, instance): descriptor.__get__(instance, type(instance)),
 * called through the descriptor's type slot; a non-descriptor as it is. */
static PyObject *
bind(PyObject *module, PyObject *args)
{
    PyObject *descr, *instance;
    if (!PyArg_ParseTuple(args, "OO", &descr, &instance))
        return NULL;
    if (Py_TYPE(descr)->tp_descr_get == NULL)
        return Py_NewRef(descr);
    return (Py_TYPE(descr)->tp_descr_get)(descr, instance, (PyObject *)Py_TYPE(instance));
}

/* unbound(descriptor, type): descriptor.__get__(None, type), passing NULL
 * for the absent instance as the interpreter does for class access. */
static PyObject *
unbound(PyObject *module, PyObject *args)
{
    PyObject *descr, *type;
    if (!PyArg_ParseTuple(args, "OO", &descr, &type))
        return NULL;
    if (Py_TYPE(descr)->tp_descr_get == NULL)
        return Py_NewRef(descr);
    return (Py_TYPE(descr)->tp_descr_get)(descr, NULL, type);
}

/* mro_names(type): the names of the classes in type's MRO whose own
 * dict (tp_dict) defines `name`, read from the type slots. */
static PyObject *
mro_names(PyObject *module, PyObject *args)
{
    PyTypeObject *type;
    PyObject *name, *mro, *out;
    Py_ssize_t i, n;
    if (!PyArg_ParseTuple(args, "O!O", &PyType_Type, &type, &name))
        return NULL;
    mro = type->tp_mro;
    if (mro == NULL)
        return PyList_New(0);
    out = PyList_New(0);
    if (out == NULL)
        return NULL;
    n = PyTuple_GET_SIZE(mro);
    for (i = 0; i < n; i++) {
        PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        PyObject *dict = t->tp_dict;
        if (dict == NULL || !PyDict_Contains(dict, name))
            continue;
        if (PyList_Append(out, PyTuple_GET_ITEM(mro, i)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* kind(o): which builtin callable type o is, through type objects that
 * have no Cystck handle of their own. */
static PyObject *
kind(PyObject *module, PyObject *o)
{
    int check = PyObject_IsInstance(o, (PyObject *)&PyFunction_Type);
    if (check < 0)
        return NULL;
    if (check)
        return PyUnicode_FromString("function");
    if (PyObject_TypeCheck(o, &PyMethod_Type))
        return PyUnicode_FromString("method");
    if (Py_IS_TYPE(o, &PyClassMethod_Type))
        return PyUnicode_FromString("classmethod");
    return PyUnicode_FromString("other");
}

/* address(o): the object's address, as id() gives it. */
static PyObject *
address(PyObject *module, PyObject *o)
{
    return PyLong_FromSize_t((size_t)(Py_uintptr_t)o);
}

/* shifted(*args): the arguments, without a leading None. */
static PyObject *
shifted(PyObject *module, PyObject *args)
{
    PyObject *rest = NULL, *result, *first;
    if (PyTuple_GET_SIZE(args) == 0)
        return PyTuple_New(0);
    first = PyTuple_GetItem(args, 0);
    if (first == NULL)
        return NULL;
    if (first == Py_None) {
        rest = PyTuple_GetSlice(args, 1, PyTuple_GET_SIZE(args));
        if (rest == NULL)
            return NULL;
        args = rest;
    }
    result = PyTuple_GetSlice(args, 0, PyTuple_GET_SIZE(args));
    Py_XDECREF(rest);
    return result;
}

static PyMethodDef module_methods[] = {
    {"shifted", shifted, METH_VARARGS, "the arguments without a leading None"},
    {"address", address, METH_O, "the object's address"},
    {"kind", kind, METH_O, "the kind of callable"},
    {"bind", bind, METH_VARARGS, "bind a descriptor to an instance"},
    {"unbound", unbound, METH_VARARGS, "a descriptor read from a class"},
    {"mro_names", mro_names, METH_VARARGS, "classes of the MRO defining a name"},
    {NULL}
};

static struct PyModuleDef subtypes_module = {
    PyModuleDef_HEAD_INIT, "subtypes", NULL, -1, module_methods
};

PyMODINIT_FUNC
PyInit_subtypes(void)
{
    PyObject *m;
    if (PyType_Ready(&BaseType) < 0)
        return NULL;
    SubType.tp_base = &BaseType;
    if (PyType_Ready(&SubType) < 0)
        return NULL;
    m = PyModule_Create(&subtypes_module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddType(m, &BaseType) < 0 || PyModule_AddType(m, &SubType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
