"""A static type's address as the only argument of a call, ``f(&FooType)``:
the uses of a type kept in a ``Cystck_Ref`` read ``Cystck_deref(S,
FooType)``, and the pattern that also takes ``(&FooType)`` in parentheses
of its own took the call's parentheses with it, so ``f(&FooType)`` became
``fCystck_deref(S, FooType)`` (a name that does not exist: the call was
neither translated nor compiled).  The parentheses of a call (after a name,
``)`` or ``]``) stay the call's; those after a cast, ``(PyObject
*)(&FooType)``, are still the expression's.  Stock and translated builds
answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject_HEAD long v; } BoxObject;

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "typeaddr.Box",
    .tp_basicsize = sizeof(BoxObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
};

static PyObject *
is_base(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(PyType_GetFlags(&BoxType) & Py_TPFLAGS_BASETYPE);
}

static PyObject *
qualname(PyObject *self, PyObject *unused)
{
    return PyType_GetQualName(&BoxType);
}

static PyObject *
same(PyObject *self, PyObject *o)
{
    PyObject *t = (PyObject *)(&BoxType);
    return PyBool_FromLong((PyObject *)Py_TYPE(o) == t);
}

static PyMethodDef methods[] = {
    {"is_base", is_base, METH_NOARGS, NULL},
    {"qualname", qualname, METH_NOARGS, NULL},
    {"same", same, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "typeaddr", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_typeaddr(void)
{
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0) {
        Py_DECREF(&BoxType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''


def test_the_call_keeps_its_parentheses():
    out = translate.translate_source(SRC, "typeaddr.c")
    assert "Cystck_deref(S, BoxType))" in out
    assert "GetFlagsCystck_deref" not in out and "QualNameCystck_deref" not in out
    assert "CystckType_GetFlags(S, Cystck_deref(S, BoxType))" in out
    assert "CystckType_GetQualName(S, Cystck_deref(S, BoxType))" in out
    assert "t = Cystck_deref(S, BoxType);" in out       # the cast's parentheses are the expression's


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("typeaddr", SRC, "print(repr([m.is_base(), m.qualname(), m.same(m.Box()), m.same(1)]))\n")
    assert want == [False, "Box", True, False]
