"""``return PyIter_Next(inner);`` in a ``tp_iternext`` slot: the call's
NULL with no exception set ends the iteration, but ``Cystck_Return`` of a
null handle raised ``SystemError`` (zope.proxy's ``wrap_iternext``,
``test___iter___next_when_returned_by_iterable``).  The Returns rule takes
the call's value into a handle and returns -1 (the end, or the error set)
when it is null, as it does for ``return item;`` of a local."""
from cystck.migrate import translate

ITER = r'''#include <Python.h>

typedef struct {
    PyObject_HEAD
    PyObject *inner;
} Wrap;

static PyObject *
Wrap_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *o;
    Wrap *self;
    if (!PyArg_ParseTuple(args, "O", &o))
        return NULL;
    o = PyObject_GetIter(o);
    if (o == NULL)
        return NULL;
    self = (Wrap *)type->tp_alloc(type, 0);
    if (self == NULL) {
        Py_DECREF(o);
        return NULL;
    }
    self->inner = o;
    return (PyObject *)self;
}

static void
Wrap_dealloc(Wrap *self)
{
    Py_XDECREF(self->inner);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Wrap_next(Wrap *self)
{
    return PyIter_Next(self->inner);
}

static PyTypeObject WrapType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "iternextcall.Wrap",
    .tp_basicsize = sizeof(Wrap),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Wrap_new,
    .tp_dealloc = (destructor)Wrap_dealloc,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)Wrap_next,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "iternextcall", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_iternextcall(void)
{
    PyObject *m;
    if (PyType_Ready(&WrapType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&WrapType);
    if (PyModule_AddObject(m, "Wrap", (PyObject *)&WrapType) < 0)
        return NULL;
    return m;
}
'''


def test_a_returned_call_in_iternext_ends_the_iteration_on_null():
    out = translate.translate_source(ITER, "iternextcall.c")
    assert "{ Cystck_Object next_ = CystckIter_Next(S, " in out
    assert "return Cystck_IsNull(next_) ? -1 : Cystck_Return(S, next_); }" in out


def test_a_returned_call_in_another_slot_is_returned_as_before():
    """Negative: outside tp_iternext a call's value is returned as it is."""
    src = ITER.replace("    .tp_iternext = (iternextfunc)Wrap_next,\n",
                       "    .tp_repr = (reprfunc)Wrap_next,\n")
    out = translate.translate_source(src, "iternextcall.c")
    assert "next_" not in out and "return Cystck_Return(S, CystckIter_Next(S, " in out


def test_the_iteration_behaves_like_the_stock_build(same_as_stock):
    script = ("def gen():\n    yield 1\n    yield 2\n    raise KeyError('k')\n"
              "print(repr([list(m.Wrap([1, 2, 3])), list(m.Wrap('')), outcome(list, m.Wrap(gen()))[0]]))\n")
    assert same_as_stock("iternextcall", ITER, script) == [[1, 2, 3], [], "KeyError"]
