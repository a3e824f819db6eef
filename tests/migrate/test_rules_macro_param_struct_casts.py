"""A macro casting its parameter to a custom struct, ``#define RO(o)
(((Box *) o)->ro)``, whose every use passes a handle, reaches the struct
through the typed accessor: the cast of a handle stayed (``cannot
convert to a pointer type`` at each use)."""
from cystck.migrate import translate

HEAD = ("#include <Python.h>\ntypedef struct { PyObject_HEAD int ro; } Box;\n"
        "#define RO(o) (((Box *) o)->ro)\n")
ENTRY = ("static PyObject *f(Box *self, PyObject *x)\n{\n    if (RO(self))\n        return NULL;\n"
         "    return PyNumber_Negative(x);\n}\n")
TABLE = "static PyMethodDef m[] = {{\"f\", (PyCFunction)f, METH_O, NULL}, {NULL}};\n"


def test_cast_of_a_macro_parameter_that_is_always_a_handle_is_the_accessor():
    out = translate.translate_source(HEAD + ENTRY + TABLE, "m.c")
    assert "#define RO(o) (Box_AsStruct(S, o)->ro)\n" in out
    assert "    if (RO(self))\n        return -1;\n" in out


def test_a_macro_also_given_a_plain_pointer_keeps_its_cast():
    """Negative: one use passes a ``void *`` (no handle): the cast stays."""
    other = ("static PyObject *g(PyObject *self, PyObject *x)\n{\n    void *p = PyCapsule_GetPointer(x, NULL);\n"
             "    return PyLong_FromLong(RO(p));\n}\n")
    out = translate.translate_source(HEAD + ENTRY + other + TABLE, "m.c")
    assert "#define RO(o) (((Box *) o)->ro)\n" in out



# Py_SIZE(a) keeps ``a`` a handle in the macro (so the uses pass handles).
UNCAST = ("#include <Python.h>\ntypedef struct { PyObject_VAR_HEAD char *buf; } Box;\n"
          "static int f(Box *self, Box *other)\n{\n"
          "#define IN(a, p) (a->buf <= p && p < (a)->buf + Py_SIZE(a))\n"
          "    return IN(self, other->buf) || IN(other, self->buf);\n#undef IN\n}\n"
          "static PyObject *g(Box *self, PyObject *x)\n{\n    return PyLong_FromLong(f(self, (Box *)x));\n}\n"
          "static PyMethodDef m[] = {{\"g\", (PyCFunction)g, METH_O, NULL}, {NULL}};\n")


def test_a_macro_reading_a_parameter_struct_without_a_cast_gets_the_accessor():
    out = translate.translate_source(UNCAST, "m.c")
    assert ("#define IN(a, p) (Box_AsStruct(S, a)->buf <= p && p < Box_AsStruct(S, a)->buf"
            " + CystckVar_Size(S, a))\n") in out
    assert "    return IN(self, Box_AsStruct(S, other)->buf) || IN(other, Box_AsStruct(S, self)->buf);" in out


def test_an_uncast_member_read_given_a_plain_pointer_stays():
    """Negative: a use passing a plain struct's pointer (no handle) keeps
    ``a->``."""
    src = UNCAST.replace("    return IN(self, other->buf)",
                         "    struct { char *buf; } c = {0}, *cp = &c;\n"
                         "    return IN(cp, other->buf) || IN(self, other->buf)")
    out = translate.translate_source(src, "m.c")
    assert "(a->buf <= p && p < (a)->buf + " in out


# A macro that only reaches the struct of its parameter, as a lock helper
# does: macro-struct-args gives it the struct at each use.
LOCKED = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "pythread.h"

typedef struct { PyObject_HEAD PyThread_type_lock lock; long n; } Counter;

#define ACQUIRE(obj) do {                          \
    if (!PyThread_acquire_lock((obj)->lock, 0)) {  \
        Py_BEGIN_ALLOW_THREADS                     \
        PyThread_acquire_lock((obj)->lock, 1);     \
        Py_END_ALLOW_THREADS                       \
    } } while (0)
#define RELEASE(obj) PyThread_release_lock((obj)->lock)

static PyObject *
Counter_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Counter *self = (Counter *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->lock = PyThread_allocate_lock();
    if (self->lock == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static void
Counter_dealloc(Counter *self)
{
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Counter_bump(Counter *self, PyObject *unused)
{
    long n;
    ACQUIRE(self);
    n = ++self->n;
    RELEASE(self);
    return PyLong_FromLong(n);
}

static PyMethodDef Counter_methods[] = {
    {"bump", (PyCFunction)Counter_bump, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject CounterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "lockmacro.Counter",
    .tp_basicsize = sizeof(Counter),
    .tp_dealloc = (destructor)Counter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Counter_methods,
    .tp_new = Counter_new,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "lockmacro", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_lockmacro(void)
{
    if (PyType_Ready(&CounterType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&CounterType);
    if (PyModule_AddObject(m, "Counter", (PyObject *)&CounterType) < 0)
        return NULL;
    return m;
}
'''


def test_a_struct_only_parameter_gets_the_struct_once():
    """Before: both the macro's body (Counter_AsStruct(S, obj)->lock) and
    its uses (ACQUIRE(Counter_AsStruct(S, self))) were given the accessor:
    a struct pointer where the body expected a handle, a build error.  Now
    only the uses are (macro-struct-args), and the body reads a struct."""
    out = translate.translate_source(LOCKED, "lockmacro.c")
    assert "PyThread_acquire_lock((obj)->lock, 0)" in out
    assert "#define RELEASE(obj) PyThread_release_lock((obj)->lock)" in out
    assert "    ACQUIRE(Counter_AsStruct(S, self));" in out


def test_the_locking_macro_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("lockmacro", LOCKED, "c = m.Counter()\nprint(repr([c.bump() for _ in range(3)]))\n")
    assert want == [1, 2, 3]


# A macro handing its parameter, cast to the struct, to a helper that now
# takes the handle (lazy-object-proxy's first contact: `cannot convert to
# a pointer type` and `incompatible type for argument 2` at every use),
# and testing a helper's handle with `!`.
UNWRAP = r'''#include <Python.h>

typedef struct { PyObject_HEAD PyObject *wrapped; } Box;
static PyTypeObject BoxType;

static PyObject *unwrap(Box *self)
{
    if (self->wrapped == NULL) {
        PyErr_SetString(PyExc_ValueError, "empty box");
        return NULL;
    }
    return self->wrapped;
}

#define UNWRAP_OR_FAIL(object) \
    if (PyObject_TypeCheck(object, &BoxType)) { \
        object = unwrap((Box *)(object)); \
        if (!object) return NULL; \
    }
#define ENSURE(self) if (!unwrap(self)) return NULL;

static PyObject *Box_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *wrapped = NULL;
    Box *self;
    if (!PyArg_ParseTuple(args, "|O", &wrapped))
        return NULL;
    self = (Box *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_XINCREF(wrapped);
    self->wrapped = wrapped;
    return (PyObject *)self;
}

static int Box_traverse(Box *self, visitproc visit, void *arg)
{
    Py_VISIT(self->wrapped);
    return 0;
}

static void Box_dealloc(Box *self)
{
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->wrapped);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Box_add(PyObject *a, PyObject *b)
{
    UNWRAP_OR_FAIL(a);
    UNWRAP_OR_FAIL(b);
    return PyNumber_Add(a, b);
}

static PyObject *Box_str(Box *self)
{
    ENSURE(self);
    return PyObject_Str(self->wrapped);
}

static PyNumberMethods Box_as_number = { .nb_add = Box_add };

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "unwrapmacro.Box",
    .tp_basicsize = sizeof(Box),
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)Box_traverse,
    .tp_as_number = &Box_as_number,
    .tp_str = (reprfunc)Box_str,
    .tp_new = Box_new,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "unwrapmacro", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_unwrapmacro(void)
{
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0)
        return NULL;
    return m;
}
'''


def test_a_parameter_cast_that_reaches_no_member_is_the_handle():
    out = translate.translate_source(UNWRAP, "unwrapmacro.c")
    assert "object = unwrap(S, (object));" in out
    assert "if (Cystck_IsNull(unwrap(S, self))) return -1;" in out


def test_a_parameter_cast_reaching_a_member_is_not_dropped():
    """Negative: ``((Box *)(o))->wrapped`` keeps its cast (it reaches a
    member: dropping the cast would leave ``(o)->wrapped`` on a handle)."""
    src = UNWRAP.replace("#define ENSURE(self)", "#define INNER(o) (((Box *)(o))->wrapped)\n#define ENSURE(self)")
    out = translate.translate_source(src, "unwrapmacro.c")
    assert "#define INNER(o) (((Box *)(o))->wrapped)" in out


def test_the_unwrapping_macros_behave_like_the_stock_build(same_as_stock):
    script = ("B = m.Box\nr = [B(2) + B(3), B(2) + 5, str(B('s'))]\n"
              "try:\n    str(B())\nexcept ValueError as e:\n    r.append(str(e))\n"
              "try:\n    B() + 1\nexcept ValueError as e:\n    r.append(str(e))\n"
              "print(repr(r))\n")
    want = same_as_stock("unwrapmacro", UNWRAP, script)
    assert want == [5, 7, "s", "empty box", "empty box"]
