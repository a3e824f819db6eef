"""An API function passed by name to one of the extension's functions whose
parameter is a function pointer over objects (``binaryfunc op``, a typedef
of ``PyObject *(*)(PyObject *)``): that pointer takes the state and handles
once translated, so the stock name stayed and did not compile (zope.proxy's
first contact: "passing argument 6 of 'check2' from incompatible pointer
type", 28 errors, "PyNumber_Add kept: the rule that translates it did not
match this use").  The api-function-values rule passes the Cystck
counterpart, which has the pointer's signature."""
from cystck.migrate import translate

OPS = r'''#include <Python.h>

typedef PyObject *(*function1)(PyObject *);

static PyObject *
apply1(PyObject *a, function1 operation)
{
    return operation(a);
}

static PyObject *
apply2(PyObject *a, PyObject *b, binaryfunc operation)
{
    PyObject *result = operation(a, b);
    return result;
}

#define BINOP(NAME, CALL) \
        static PyObject *op_##NAME(PyObject *self, PyObject *args) \
        { PyObject *a, *b; \
          if (!PyArg_ParseTuple(args, "OO", &a, &b)) return NULL; \
          return apply2(a, b, CALL); }

BINOP(add, PyNumber_Add)
BINOP(inplace_or, PyNumber_InPlaceOr)

static PyObject *
op_neg(PyObject *self, PyObject *a)
{
    return apply1(a, PyNumber_Negative);
}

static PyMethodDef methods[] = {
    {"add", op_add, METH_VARARGS, NULL},
    {"inplace_or", op_inplace_or, METH_VARARGS, NULL},
    {"neg", op_neg, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "apivalues", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_apivalues(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_api_functions_given_to_object_function_pointers_are_their_counterparts():
    out = translate.translate_source(OPS, "apivalues.c")
    assert "apply2(S, a, b, CystckNumber_Add)" in out
    assert "apply2(S, a, b, CystckNumber_InPlaceOr)" in out
    assert "apply1(S, a, CystckNumber_Negative)" in out
    assert "did not match this use" not in out


def test_api_function_values_behave_like_the_stock_build(same_as_stock):
    script = ("print(repr([m.add(2, 3), m.add('a', 'b'), m.inplace_or({1}, {2}), m.neg(4),\n"
              "             outcome(m.add, 1, 'x'), outcome(m.neg, 'x')]))\n")
    want = same_as_stock("apivalues", OPS, script)
    assert want[:4] == [5, "ab", {1, 2}, -4]
    assert want[4][0] == want[5][0] == "TypeError"
