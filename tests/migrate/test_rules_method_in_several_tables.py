"""One function listed alike in the method tables of several types (a
``__reduce__`` that refuses pickling, shared by every type of the
module) was defined once per table: the second table's definition was
named after the function and the method, and so was the third's, a
redefinition that did not compile (pyppmd, four types).  The definition
is written once now, with the first table; the others list it.  Stock and
translated builds answer alike, release and debug."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject_HEAD } Thing;

static PyObject *
cannot_pickle(PyObject *self, PyObject *unused)
{
    PyErr_Format(PyExc_TypeError, "cannot pickle %s object", Py_TYPE(self)->tp_name);
    return NULL;
}

static PyObject *
name_of(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(Py_TYPE(self)->tp_name);
}

static PyMethodDef A_methods[] = {
    {"__reduce__", (PyCFunction)cannot_pickle, METH_NOARGS, NULL},
    {"name", (PyCFunction)name_of, METH_NOARGS, "the type's name"},
    {NULL, NULL, 0, NULL}
};
static PyMethodDef B_methods[] = {
    {"__reduce__", (PyCFunction)cannot_pickle, METH_NOARGS, NULL},
    {"name", (PyCFunction)name_of, METH_NOARGS, "the type's name"},
    {NULL, NULL, 0, NULL}
};
static PyMethodDef C_methods[] = {
    {"__reduce__", (PyCFunction)cannot_pickle, METH_NOARGS, NULL},
    {"kind", (PyCFunction)name_of, METH_NOARGS, "the type's name"},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject AType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shared.A", .tp_basicsize = sizeof(Thing), .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = A_methods, .tp_new = PyType_GenericNew,
};
static PyTypeObject BType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shared.B", .tp_basicsize = sizeof(Thing), .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = B_methods, .tp_new = PyType_GenericNew,
};
static PyTypeObject CType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shared.C", .tp_basicsize = sizeof(Thing), .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = C_methods, .tp_new = PyType_GenericNew,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "shared", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_shared(void)
{
    PyObject *m;
    if (PyType_Ready(&AType) < 0 || PyType_Ready(&BType) < 0 || PyType_Ready(&CType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&AType);
    Py_INCREF(&BType);
    Py_INCREF(&CType);
    if (PyModule_AddObject(m, "A", (PyObject *)&AType) < 0 || PyModule_AddObject(m, "B", (PyObject *)&BType) < 0
            || PyModule_AddObject(m, "C", (PyObject *)&CType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''


def test_a_method_listed_alike_in_three_tables_is_defined_once():
    out = translate.translate_source(SRC, "shared.c")
    assert out.count('CYSTCK_DEF_METH(cannot_pickle_def, "__reduce__", cannot_pickle, CYSTCK_NOARGS, NULL)') == 1
    assert out.count("&cannot_pickle_def,") == 3
    assert out.count('CYSTCK_DEF_METH(name_of_def, "name", name_of') == 1
    assert out.count("&name_of_def,") == 2


def test_the_same_function_under_another_name_keeps_a_definition_of_its_own():
    out = translate.translate_source(SRC, "shared.c")
    assert out.count('"kind", name_of, CYSTCK_NOARGS') == 1
    assert out.count("&name_of__kind_def,") == 1


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("shared", SRC, "import pickle\n"
                                        "print(repr([(t().name() if t is not m.C else t().kind(), "
                                        "outcome(lambda: pickle.dumps(t()))) for t in (m.A, m.B, m.C)]))\n")
    assert want[0][0] == "shared.A" and "cannot pickle" in str(want[0][1])
