"""``type->tp_alloc(type, n)`` with a count: stock's generic tp_alloc
(PyType_GenericAlloc) allocates ``basicsize + (n + 1) * itemsize`` bytes,
zeroed, so for a type with no items (``tp_itemsize == 0``) the count changes
nothing: the instance is a plain zeroed one.  The translation made every
such call ``Cystck_NewVar``, which refuses a type without items
(TypeError), so code allocating through a count that is 0 for its own type
and not for a variable-size subclass failed where stock worked.  Such calls
(and ``PyType_GenericAlloc(type, n)``) now become
``CystckType_GenericAlloc(S, type, n)``, the type's tp_alloc with the count
as stock calls it; ``PyObject_NewVar``/``PyObject_GC_NewVar`` (a
variable-size type by definition) stay ``Cystck_NewVar``."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
typedef struct { PyObject_HEAD long a; double b; char name[8]; } Box;
typedef struct { PyObject_VAR_HEAD long first; long items[1]; } Row;
static PyTypeObject BoxType;
static PyTypeObject RowType;

/* The count is asked for: Box(n) allocates with it. */
static PyObject *Box_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Py_ssize_t n = 0;
    if (!PyArg_ParseTuple(args, "|n", &n))
        return NULL;
    return type->tp_alloc(type, n);
}

static PyObject *Box_fill(Box *self, PyObject *unused)
{
    self->a = 0x5a5a5a5aL;
    self->b = 2.5;
    memcpy(self->name, "garbage", 8);
    Py_RETURN_NONE;
}

static PyObject *Box_read(Box *self, PyObject *unused)
{
    return Py_BuildValue("(iiy#)", (int)(self->a == 0), (int)(self->b == 0.0), self->name,
                         (Py_ssize_t)8);
}

static PyMethodDef Box_methods[] = {
    {"fill", (PyCFunction)Box_fill, METH_NOARGS, NULL},
    {"read", (PyCFunction)Box_read, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "counted.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_methods = Box_methods,
    .tp_new = Box_new,
};

static PyObject *Row_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "n", &n))
        return NULL;
    return type->tp_alloc(type, n);
}

static PyObject *Row_read(Row *self, PyObject *unused)
{
    Py_ssize_t i, zero = 0;
    for (i = 0; i < Py_SIZE(self); i++)
        zero += self->items[i] == 0;
    return Py_BuildValue("(nn)", Py_SIZE(self), zero);
}

static PyMethodDef Row_methods[] = {
    {"read", (PyCFunction)Row_read, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject RowType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "counted.Row",
    .tp_basicsize = offsetof(Row, items),
    .tp_itemsize = sizeof(long),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Row_methods,
    .tp_new = Row_new,
};

static PyObject *generic_alloc(PyObject *mod, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    return PyType_GenericAlloc(&BoxType, n);
}

static PyMethodDef module_methods[] = {
    {"generic_alloc", generic_alloc, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "counted", NULL, -1, module_methods};

PyMODINIT_FUNC PyInit_counted(void)
{
    PyObject *m;
    if (PyType_Ready(&BoxType) < 0 || PyType_Ready(&RowType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0)
        return NULL;
    Py_INCREF(&RowType);
    if (PyModule_AddObject(m, "Row", (PyObject *)&RowType) < 0)
        return NULL;
    return m;
}
'''

# Blocks of Box's size are filled, freed and allocated again with a count:
# each new Box reads zero, as after stock's tp_alloc.
SCRIPT = '''
out = []
class Sub(m.Box):
    pass
makers = [lambda: m.Box(), lambda: m.Box(3), lambda: m.Box(1000), lambda: Sub(5),
          lambda: m.generic_alloc(4), lambda: m.generic_alloc(0)]
for make in makers:
    xs = [m.Box() for _ in range(64)]
    for x in xs:
        x.fill()
    del xs, x
    ys = [make() for _ in range(64)]
    out.append((sorted(set(y.read() for y in ys)), type(ys[0]).__name__))
    del ys
out.append([m.Row(n).read() for n in (0, 1, 5)])
print(repr(out))
'''


def test_a_count_goes_to_the_types_own_allocation():
    src = ("#include <Python.h>\n"
           "static PyTypeObject BoxType;\n"
           "static PyObject *f(PyTypeObject *type, PyObject *self, Py_ssize_t n)\n{\n"
           "    PyObject *a = type->tp_alloc(type, n);\n"
           "    PyObject *b = Py_TYPE(self)->tp_alloc(Py_TYPE(self), n + 1);\n"
           "    PyObject *c = PyType_GenericAlloc(type, 2);\n"
           "    PyObject *d = BoxType.tp_alloc(&BoxType, n);\n"
           "    return PyTuple_Pack(4, a, b, c, d);\n}\n")
    out = translate.translate_source(src, "count.c")
    assert "Cystck_Object a = CystckType_GenericAlloc(S, type, n);" in out
    assert "Cystck_Object b = CystckType_GenericAlloc(S, CystckObject_Type(S, self), n + 1);" in out
    assert "Cystck_Object c = CystckType_GenericAlloc(S, type, 2);" in out
    assert "Cystck_Object d = CystckType_GenericAlloc(S, Cystck_deref(S, BoxType), n);" in out
    assert "Cystck_NewVar" not in out


def test_object_new_var_stays_new_var():
    """Near miss: ``PyObject_GC_NewVar`` names a variable-size type."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_VAR_HEAD PyObject *items[1]; } Node;\n"
           "static PyObject *f(PyTypeObject *type, Py_ssize_t n)\n{\n"
           "    Node *a = PyObject_GC_NewVar(Node, type, n);\n"
           "    return (PyObject *)a;\n}\n")
    out = translate.translate_source(src, "newvar.c")
    assert "Cystck_NewVar(S, type, n, NULL)" in out
    assert "CystckType_GenericAlloc" not in out


def test_a_count_for_a_type_without_items_allocates_as_stock(same_as_stock):
    want = same_as_stock("counted", SRC, SCRIPT)
    zero = [(1, 1, b"\0" * 8)]
    assert want[:6] == [(zero, "Box"), (zero, "Box"), (zero, "Box"), (zero, "Sub"),
                        (zero, "Box"), (zero, "Box")]
    assert want[6] == [(0, 0), (1, 1), (5, 5)]
