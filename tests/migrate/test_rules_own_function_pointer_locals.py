"""A local of a stock function-pointer type given the extension's own
functions, ``unaryfunc own = Box_neg; ... own(o)`` (rule
own-function-pointer-locals): declared with the translated functions'
pointer type, called with ``S``, an entry point's push count taken as a
handle (``Cystck_PopResult``).  Before, ``--check`` failed: the local kept
the stock type (docs/gaps.md T41, the last item)."""
from cystck.migrate import translate

OWN = r'''#include <Python.h>

typedef struct {
    PyObject_HEAD
    long v;
} Box;

static PyTypeObject BoxType;

static PyObject *Box_make(long v)
{
    Box *b = PyObject_New(Box, &BoxType);
    if (b != NULL)
        b->v = v;
    return (PyObject *)b;
}

static PyObject *Box_neg(PyObject *self)
{
    return Box_make(-((Box *)self)->v);
}

static PyObject *Box_inv(PyObject *self)
{
    if (((Box *)self)->v == 0) {
        PyErr_SetString(PyExc_ValueError, "zero");
        return NULL;
    }
    return Box_make(~((Box *)self)->v);
}

static PyObject *Box_value(PyObject *self, PyObject *unused)
{
    return PyLong_FromLong(((Box *)self)->v);
}

static PyObject *twice(PyObject *o)
{
    return PyNumber_Add(o, o);
}

static PyObject *square(PyObject *o)
{
    return PyNumber_Multiply(o, o);
}

static PyNumberMethods Box_as_number = {
    .nb_negative = Box_neg,
    .nb_invert = Box_inv,
};

static PyMethodDef Box_methods[] = {
    {"value", Box_value, METH_NOARGS, NULL},
    {NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ownfp.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_as_number = &Box_as_number,
    .tp_methods = Box_methods,
};

/* an entry point's slot functions through a local */
static PyObject *apply(PyObject *self, PyObject *args)
{
    PyObject *o;
    int which;
    unaryfunc own;
    if (!PyArg_ParseTuple(args, "iO!", &which, &BoxType, &o))
        return NULL;
    own = Box_neg;
    if (which)
        own = Box_inv;
    PyObject *r = own(o);
    if (r == NULL)
        return NULL;
    PyObject *again = (*own)(r);
    Py_DECREF(r);
    return again;
}

/* helpers through a local */
static PyObject *compute(PyObject *self, PyObject *args)
{
    PyObject *o;
    int which;
    if (!PyArg_ParseTuple(args, "iO", &which, &o))
        return NULL;
    unaryfunc f = twice;
    if (which)
        f = square;
    return f(o);
}

static PyObject *make(PyObject *self, PyObject *arg)
{
    return Box_make(PyLong_AsLong(arg));
}

static PyMethodDef methods[] = {
    {"apply", apply, METH_VARARGS, NULL},
    {"compute", compute, METH_VARARGS, NULL},
    {"make", make, METH_O, NULL},
    {NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "ownfp", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_ownfp(void)
{
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    return PyModule_Create(&moddef);
}
'''


def test_locals_take_the_translated_pointer_type():
    out = translate.translate_source(OWN, "ownfp.c")
    assert "int (*own)(Cystck_State *, Cystck_Object);" in out
    assert "Cystck_Object r = Cystck_PopResult(S, own(S, o));" in out
    assert "Cystck_Object again = Cystck_PopResult(S, (*own)(S, r));" in out
    assert "Cystck_Object (*f)(Cystck_State *, Cystck_Object) = twice;" in out
    assert "return Cystck_Return(S, f(S, o));" in out


def test_a_local_also_given_something_else_is_left_alone():
    """Negative: a local given a helper and an entry point, or handed on,
    keeps its stock type."""
    mixed = OWN.replace("f = square;", "f = Box_neg;")
    assert "unaryfunc f = twice;" in translate.translate_source(mixed, "ownfp.c")
    handed = OWN.replace("return f(o);", "return PyLong_FromLong(f == twice);")
    handed = handed.replace("    unaryfunc f = twice;", "    unaryfunc f = twice;\n    unaryfunc *p = &f;\n    (void)p;")
    assert "unaryfunc f = twice;" in translate.translate_source(handed, "ownfp.c")


def test_calls_through_the_locals_behave_like_the_stock_build(same_as_stock):
    script = ("b = m.make(5)\n"
              "r = [m.apply(0, b).value(), m.apply(1, b).value(), outcome(m.apply, 1, m.make(0)),\n"
              "     m.apply(0, m.make(0)).value(), m.compute(0, 7), m.compute(1, 7), m.compute(0, 'ab'),\n"
              "     outcome(m.compute, 1, 'ab')]\n"
              "print(repr(r))\n")
    want = same_as_stock("ownfp", OWN, script)
    assert want[:2] == [5, 5] and want[2] == ("ValueError", "zero") and want[4:7] == [14, 49, "abab"]
