"""Two idioms of older extensions, found in pyrsistent 0.20.0's full
translation (before its file was kept stock, docs/gaps.md T21):

* ``o->ob_type`` (the object head's member, what ``Py_TYPE(o)`` expands
  to) on a handle, usually in ``o->ob_type->tp_name`` for a message:
  the ob-type-member rule makes it ``Py_TYPE(o)``, which the py-type rule
  ports.  Before, ``->`` was applied to a handle (2 --check errors).
* Two object fields compared, ``self->a != self->b`` (object identity):
  ``Cystck_Is`` of the two loads (handle-identity).  Before, two
  ``CystckField_Load`` were compared with ``!=`` (4 errors).

Both build and behave as the stock build, the messages included, in
release and with CYSTCK_DEBUG=1."""

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject_HEAD PyObject *a; PyObject *b; } Pair;

static PyObject *
Pair_same(Pair *self, PyObject *unused)
{
    if (self->a == self->b)
        Py_RETURN_TRUE;
    return PyBool_FromLong(self->a != self->b && 0);
}

static PyObject *
Pair_set(Pair *self, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b))
        return NULL;
    if (!PyLong_Check(a)) {
        PyErr_Format(PyExc_TypeError, "first must be an int, not %.200s", a->ob_type->tp_name);
        return NULL;
    }
    if (((PyObject *)b)->ob_type == &PyFloat_Type) {
        PyErr_Format(PyExc_TypeError, "second must not be a %s", ((PyObject *)b)->ob_type->tp_name);
        return NULL;
    }
    Py_INCREF(a);
    Py_XSETREF(self->a, a);
    Py_INCREF(b);
    Py_XSETREF(self->b, b);
    Py_RETURN_NONE;
}

static void
Pair_dealloc(Pair *self)
{
    Py_XDECREF(self->a);
    Py_XDECREF(self->b);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Pair_methods[] = {
    {"same", (PyCFunction)Pair_same, METH_NOARGS, NULL},
    {"set", (PyCFunction)Pair_set, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject PairType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "obtype.Pair",
    .tp_basicsize = sizeof(Pair),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Pair_dealloc,
    .tp_methods = Pair_methods,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "obtype", NULL, -1, NULL};

PyMODINIT_FUNC PyInit_obtype(void)
{
    PyObject *m;
    if (PyType_Ready(&PairType) < 0)
        return NULL;
    if (!(m = PyModule_Create(&moddef)))
        return NULL;
    Py_INCREF(&PairType);
    if (PyModule_AddObject(m, "Pair", (PyObject *)&PairType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

SCRIPT = r"""
p = m.Pair()
out = [p.same()]
for a, b in (("x", 1), (1, 2.5), (1, "y")):
    try:
        out.append(p.set(a, b))
    except TypeError as e:
        out.append(str(e))
out.append(p.same())
o = object()
p.set(7, 7)
out.append(p.same())
print(out)
"""
EXPECTED = [True, "first must be an int, not str", "second must not be a float", None, False, True]


def test_ob_type_and_field_comparisons_are_ported():
    out = translate.translate_source(SRC)
    assert "ob_type" not in out
    assert 'CystckType_GetName(S, CystckObject_Type(S, a)))' in out
    assert "if (Cystck_TypeIs(S, b, CystckFloat_Type))" in out
    assert ("if (Cystck_Is(S, CystckField_Load(S, self, Pair_AsStruct(S, self)->a), "
            "CystckField_Load(S, self, Pair_AsStruct(S, self)->b)))") in out
    assert ("!Cystck_Is(S, CystckField_Load(S, self, Pair_AsStruct(S, self)->a), "
            "CystckField_Load(S, self, Pair_AsStruct(S, self)->b))") in out
    assert "escape hatch" not in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


def test_translation_behaves_like_the_stock_build(same_as_stock):
    assert same_as_stock("obtype", SRC, SCRIPT) == EXPECTED
