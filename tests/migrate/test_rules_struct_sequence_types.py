"""A struct-sequence type, ``PyTypeObject SimpleType;`` filled by
``PyStructSequence_InitType2(&SimpleType, &desc)``, its ``tp_new`` and
``tp_richcompare`` stored after (cbor2 5.9.0's ``CBORSimpleValueType``,
docs/gaps.md T27): the type-object rule made it a ``Cystck_Ref`` as if it
were a static type with a spec ("conflicting types" with the header's
stock declaration, and its slot functions translated for a type CPython
calls with ``PyObject *``).  Cystck makes no struct sequence: the type
stays a stock ``PyTypeObject`` (lent through the escape hatch where a
handle is wanted, ``Cystck_FromPyObject(S, (PyObject *)&SimpleType)``),
the functions stored in its slots keep their stock signatures and bodies,
and its items are read and filled with ``CystckStructSequence_GET_ITEM``/
``SET_ITEM`` (the stolen item consumed as ``PyStructSequence_SET_ITEM``
steals it).  Stock and translated builds answer alike, in release and
with CYSTCK_DEBUG=1."""
import pytest

from cystck.migrate import translate
from cystck.migrate.rules import escape

HEADER = """#include <Python.h>
extern PyTypeObject SimpleType;
"""

MODULE_C = r'''#include <Python.h>
#include "ss.h"
PyTypeObject SimpleType;
static PyStructSequence_Field SimpleFields[] = {{.name = "value"}, {NULL}};
static PyStructSequence_Desc SimpleDesc = {.name = "NAME.Simple", .doc = "a simple value", .fields = SimpleFields, .n_in_sequence = 1};

static PyObject *
Simple_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"value", NULL};
    PyObject *value = NULL, *ret;
    Py_ssize_t val;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "n", keywords, &val))
        return NULL;
    ret = PyStructSequence_New(type);
    if (ret) {
        value = PyLong_FromSsize_t(val);
        if (value)
            PyStructSequence_SET_ITEM(ret, 0, value);
    }
    return ret;
}

static PyObject *
Simple_richcompare(PyObject *a, PyObject *b, int op)
{
    switch (PyObject_IsInstance(b, (PyObject *) &SimpleType)) {
        case 1:
        return PyObject_RichCompare(PyStructSequence_GET_ITEM(a, 0), PyStructSequence_GET_ITEM(b, 0), op);
        case -1:
        return NULL;
    }
    Py_RETURN_NOTIMPLEMENTED;
}

static PyObject *
make_simple(long v)
{
    PyObject *tag, *ret = NULL;
    tag = PyStructSequence_New(&SimpleType);
    if (tag) {
        PyStructSequence_SET_ITEM(tag, 0, PyLong_FromLong(v));
        if (PyStructSequence_GET_ITEM(tag, 0)) {
            Py_INCREF(tag);
            ret = tag;
        }
        Py_DECREF(tag);
    }
    return ret;
}

static PyObject *
make(PyObject *self, PyObject *arg)
{
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    return make_simple(v);
}

static PyObject *
value_of(PyObject *self, PyObject *arg)
{
    PyObject *v;
    if (!PyObject_TypeCheck(arg, &SimpleType)) {
        PyErr_SetString(PyExc_TypeError, "not a Simple");
        return NULL;
    }
    v = PyStructSequence_GET_ITEM(arg, 0);
    Py_INCREF(v);
    return v;
}

static PyMethodDef methods[] = {
    {"make", make, METH_O, NULL},
    {"value_of", value_of, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    if (PyStructSequence_InitType2(&SimpleType, &SimpleDesc) == -1)
        goto error;
    Py_INCREF((PyObject *) &SimpleType);
    SimpleType.tp_new = Simple_new;
    SimpleType.tp_richcompare = Simple_richcompare;
    if (PyModule_AddObject(m, "Simple", (PyObject *) &SimpleType) == -1)
        goto error;
    return m;
error:
    Py_DECREF(m);
    return NULL;
}
'''


def _files(name):
    return {"ss.h": HEADER, "ss.c": MODULE_C.replace("NAME", name)}


def test_the_type_stays_stock():
    units = translate.translate_files(_files("structseq"))
    out, header = units["ss.c"].text, units["ss.h"].text
    assert "\nPyTypeObject SimpleType;" in out and "extern PyTypeObject SimpleType;" in header
    assert "Cystck_Ref SimpleType" not in out + header and "SimpleType_spec" not in out
    # the slot functions keep their stock signatures and bodies
    assert "Simple_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)" in out
    assert "PyObject_IsInstance(b, (PyObject *) &SimpleType)" in out
    assert "SimpleType.tp_new = Simple_new;" in out
    assert escape.MARK + " PyStructSequence_New(&SimpleType)" in out
    assert "CystckStructSequence_SET_ITEM(S, tag, 0, CystckLong_FromLong(S, v));" in out
    assert "Cystck_FromPyObject(S, " + escape.MARK + " (PyObject *)&SimpleType)" in out


@pytest.fixture(scope="module")
def builds(stock_and_translated_files):
    name = "rt_struct_sequence"
    return stock_and_translated_files(name, _files(name), ["ss.c"])


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_both_builds_answer_alike(builds, run_script, debug):
    script = ("a = m.make(5)\n"
              "print(repr([tuple(a), a.value, type(a).__name__, type(a) is m.Simple, a == m.Simple(5), a == 5,\n"
              "            a == m.make(6), a != 6, m.value_of(a), outcome(m.value_of, (5,)),\n"
              "            [m.make(i).value for i in range(300)] == list(range(300)), m.Simple(value=9).value,\n"
              "            outcome(m.Simple, 'x')[0], sys.getrefcount(m.make(7).value) > 0]))\n")
    want = run_script(script, builds["stock"])
    assert want[:10] == [(5,), 5, "Simple", True, True, False, False, True, 5, ("TypeError", "not a Simple")]
    assert run_script(script, builds["cystck"], debug=debug) == want
