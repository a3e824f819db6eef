"""Argument Clinic's generated parsers (cbitstruct 1.2.0's
``clinic/_cbitstruct.c.38.h``, docs/gaps.md T33): a static
``_PyArg_Parser`` holding the format and the keyword names, passed by
address to ``_PyArg_ParseStackAndKeywords`` (a METH_FASTCALL|METH_KEYWORDS
method) or ``_PyArg_ParseTupleAndKeywordsFast`` (a tp_init), and the
method table listing ``FOO_METHODDEF`` macros.  Before, the table rules
did not see the macro elements (the methods were missing from the
translated type and their functions stayed helpers) and the parser calls
went through the escape hatch with handles where CPython takes
``PyObject **`` (errors).  Now the elements are written out
(table-entry-macros) and each call becomes
``CystckArg_ParseTupleAndKeywords`` (clinic-parsers).  Built stock and
translated, run the same, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

STOCK = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    PyObject_HEAD
    long total;
    PyObject *label;
} CounterObject;

/* the generated part, as Clinic writes it */
static int
Counter___init___impl(CounterObject *self, long start, PyObject *label);

static int
Counter___init__(PyObject *self, PyObject *args, PyObject *kwargs)
{
    int return_value = -1;
    static const char * const _keywords[] = {"start", "label", NULL};
    static _PyArg_Parser _parser = {.format="l|O:Counter", .keywords=_keywords, .fname=0};
    long start;
    PyObject *label = Py_None;

    if (!_PyArg_ParseTupleAndKeywordsFast(args, kwargs, &_parser,
        &start, &label)) {
        goto exit;
    }
    return_value = Counter___init___impl((CounterObject *)self, start, label);

exit:
    return return_value;
}

#define COUNTER_ADD_METHODDEF    \
    {"add", (PyCFunction)(void(*)(void))Counter_add, METH_FASTCALL|METH_KEYWORDS, NULL},

static PyObject *
Counter_add_impl(CounterObject *self, long n, int scale);

static PyObject *
Counter_add(CounterObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *return_value = NULL;
    static const char * const _keywords[] = {"n", "scale", NULL};
    static _PyArg_Parser _parser = {"l|i:add", _keywords, 0};
    long n;
    int scale = 1;

    if (!_PyArg_ParseStackAndKeywords(args, nargs, kwnames, &_parser,
        &n, &scale)) {
        goto exit;
    }
    return_value = Counter_add_impl(self, n, scale);

exit:
    return return_value;
}

/* the hand-written part */
static int
Counter___init___impl(CounterObject *self, long start, PyObject *label)
{
    self->total = start;
    Py_INCREF(label);
    Py_XSETREF(self->label, label);
    return 0;
}

static PyObject *
Counter_add_impl(CounterObject *self, long n, int scale)
{
    self->total += n * scale;
    return Py_BuildValue("(lO)", self->total, self->label);
}

static void
Counter_dealloc(CounterObject *self)
{
    Py_XDECREF(self->label);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Counter_methods[] = {
    COUNTER_ADD_METHODDEF
    {NULL, NULL}
};

static PyTypeObject CounterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "clinicp.Counter",
    .tp_basicsize = sizeof(CounterObject),
    .tp_dealloc = (destructor)Counter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Counter_methods,
    .tp_init = Counter___init__,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "clinicp", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_clinicp(void)
{
    PyObject *m;
    if (PyType_Ready(&CounterType) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&CounterType);
    if (PyModule_AddObject(m, "Counter", (PyObject *)&CounterType) < 0) {
        Py_DECREF(&CounterType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
"""

SCRIPT = """
C = m.Counter
c = C(10, "a")
out = [c.add(1), c.add(2, 3), c.add(n=4), c.add(5, scale=2), c.add(scale=3, n=1),
       C(start=7).add(0), C(1, label=None).add(1),
       outcome(c.add), outcome(c.add, 1, 2, 3), outcome(c.add, "x"), outcome(c.add, 1, bogus=2),
       outcome(c.add, 1, n=2), outcome(C), outcome(C, 1, 2, 3), outcome(C, "s"), outcome(C, 1, lab=2),
       "add" in dir(C)]
print(out)
"""


def test_clinic_parsers_and_methoddef_macros_are_translated():
    text = translate.translate_source(STOCK, "clinicp.c")
    assert "_PyArg_Parser" not in text and "_PyArg_Parse" not in text
    assert text.count("CystckArg_ParseTupleAndKeywords(S, ") == 2
    assert '"l|i:add", _keywords' in text and '"l|O:Counter", _keywords' in text
    assert "COUNTER_ADD_METHODDEF\n" not in text.split("Counter_methods")[-1]
    assert "escape hatch */ _PyArg" not in text


def test_clinic_parsers_behave_as_stock(same_as_stock):
    out = same_as_stock("clinicp", STOCK, SCRIPT)
    assert out[:7] == [(11, "a"), (17, "a"), (21, "a"), (31, "a"), (34, "a"), (7, None), (2, None)]
    assert out[7][0] == "TypeError" and out[-1] is True
