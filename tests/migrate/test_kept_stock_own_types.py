"""Two kept-stock tests met in cbitstruct 1.2.0 (docs/gaps.md T33).

A subtype's struct that starts with the extension's own instance struct
named like a builtin's (``typedef struct { PyCompiledFormatObject super;
PyObject *names; } ...``) was taken for a builtin layout subtype, and the
whole file kept stock with a wrong reason: a base the extension defines is
its own type's, which the rules port (translate.builtin_layout_subtypes).

An instance struct declared by value as a local (``FooObject self;
memset(&self, 0, sizeof(self)); Foo_init_impl(&self, ...)``, a native
instance no object holds, given to the functions that take the type's
instances) has no Cystck form: the file is kept stock, with that reason
(translate.stack_instances), and builds and behaves as stock.  Both
built stock and translated and run the same, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate
from cystck.migrate.rules import escape

TYPES = r"""
#include <Python.h>

typedef struct {
    PyObject_HEAD
    long n;
} PyBoxObject;

typedef struct {
    PyBoxObject super;
    long m;
} PyPairObject;

static int
Box_init(PyBoxObject *self, PyObject *args, PyObject *kw)
{
    return PyArg_ParseTuple(args, "l", &self->n) ? 0 : -1;
}

static int
Pair_init(PyPairObject *self, PyObject *args, PyObject *kw)
{
    return PyArg_ParseTuple(args, "ll", &self->super.n, &self->m) ? 0 : -1;
}

static PyObject *
Box_get(PyBoxObject *self, PyObject *unused)
{
    return PyLong_FromLong(self->n);
}

static PyObject *
Pair_sum(PyPairObject *self, PyObject *unused)
{
    return PyLong_FromLong(self->super.n + self->m);
}

static PyMethodDef Box_methods[] = {{"get", (PyCFunction)Box_get, METH_NOARGS, NULL}, {NULL}};
static PyMethodDef Pair_methods[] = {{"sum", (PyCFunction)Pair_sum, METH_NOARGS, NULL}, {NULL}};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Box", .tp_basicsize = sizeof(PyBoxObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_methods = Box_methods, .tp_init = (initproc)Box_init, .tp_new = PyType_GenericNew,
};
static PyTypeObject PairType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Pair", .tp_basicsize = sizeof(PyPairObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Pair_methods, .tp_init = (initproc)Pair_init, .tp_new = PyType_GenericNew,
};
STACK
static PyMethodDef functions[] = {FUNCTIONS{NULL}};
static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, functions};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    PairType.tp_base = &BoxType;
    if (PyType_Ready(&BoxType) < 0 || PyType_Ready(&PairType) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    PyModule_AddObject(m, "Box", (PyObject *)&BoxType);
    Py_INCREF(&PairType);
    PyModule_AddObject(m, "Pair", (PyObject *)&PairType);
    return m;
}
"""

# a module function working on an instance struct on its stack
STACK = r"""
static PyObject *
doubled(PyObject *module, PyObject *args)
{
    PyBoxObject self;
    memset(&self, 0, sizeof(self));
    if (Box_init(&self, args, NULL) < 0)
        return NULL;
    self.n *= 2;
    return Box_get(&self, NULL);
}
"""

SCRIPT = """
p = m.Pair(3, 4)
print([m.Box(5).get(), p.get(), p.sum(), isinstance(p, m.Box), outcome(m.Pair, 1),
       outcome(getattr(m, "doubled", len), 21)])
"""


def _source(name, stack):
    return (TYPES.replace("STACK", STACK if stack else "")
            .replace("FUNCTIONS", '{"doubled", doubled, METH_VARARGS, NULL}, ' if stack else "")
            .replace("NAME", name))


def test_a_subtype_of_an_own_py_named_struct_is_translated(same_as_stock):
    name = "ownbase"
    text = translate.translate_source(_source(name, False), f"{name}.c")
    assert not text.startswith(escape.KEPT_MARK)
    assert "Cystck_State *S" in text
    out = same_as_stock(name, _source(name, False), SCRIPT)
    assert out[:4] == [5, 3, 7, True] and out[4][0] == "TypeError"


def test_an_instance_struct_on_the_stack_keeps_its_file_stock(same_as_stock):
    name = "stackinst"
    unit = translate.translate_files({f"{name}.c": _source(name, True)})[f"{name}.c"]
    assert unit.text.startswith(escape.KEPT_MARK)
    reasons = [n.message for n in unit.notes if n.rule == "kept-stock"]
    assert reasons and "'self' is an instance of 'PyBoxObject'" in reasons[0]
    out = same_as_stock(name, _source(name, True), SCRIPT)
    assert out == [5, 3, 7, True, out[4], 42]
