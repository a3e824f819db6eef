"""Two type objects declared ahead in one declaration, ``static
PyTypeObject BoxType, RowType;``, stayed stock while each definition
became a ``Cystck_Ref``: "conflicting types for 'BoxType'" (docs/gaps.md
T16).  The declaration now declares both references, ``static Cystck_Ref
BoxType, RowType;``; in a file that only declares them (a header), a name
no file of the extension defines keeps its stock declaration of its own.
Stock and translated builds answer alike, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject_HEAD long v; } Box;
typedef struct { PyObject_HEAD long n; } Row;

static PyTypeObject BoxType, RowType;

static PyObject *
Box_row(Box *self, PyObject *unused)
{
    Row *r = PyObject_New(Row, &RowType);
    if (r == NULL)
        return NULL;
    r->n = self->v + 1;
    return (PyObject *)r;
}

static PyObject *
Row_n(Row *self, PyObject *unused)
{
    return PyLong_FromLong(self->n);
}

static PyMethodDef Box_methods[] = {
    {"row", (PyCFunction)Box_row, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyMethodDef Row_methods[] = {
    {"n", (PyCFunction)Row_n, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyObject *
Box_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Box *b = (Box *)type->tp_alloc(type, 0);
    if (b != NULL)
        b->v = 41;
    return (PyObject *)b;
}

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "twotypes.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Box_methods,
    .tp_new = Box_new,
};

static PyTypeObject RowType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "twotypes.Row",
    .tp_basicsize = sizeof(Row),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Row_methods,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "twotypes", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_twotypes(void)
{
    PyObject *m;
    if (PyType_Ready(&BoxType) < 0 || PyType_Ready(&RowType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
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

HEADER = "extern PyTypeObject BoxType, PyOther_Type;\n"


def test_one_declaration_of_two_types_declares_both_references():
    out = translate.translate_source(SRC, "twotypes.c")
    assert "static Cystck_Ref BoxType, RowType;" in out
    assert "PyTypeObject" not in out
    assert out.count("Cystck_Ref BoxType") == 1 and out.count("Cystck_Ref RowType") == 0


def test_a_header_declaring_a_type_defined_elsewhere_splits_the_declaration():
    out = translate.translate_files({"twotypes.c": SRC, "types.h": HEADER})["types.h"].text
    assert "extern Cystck_Ref BoxType; extern PyTypeObject PyOther_Type;" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("twotypes", SRC, "b = m.Box()\nprint(repr([b.row().n(), type(b.row()).__name__, "
                                          "outcome(type(b.row()))]))\n")
    assert want[:2] == [42, "Row"]
