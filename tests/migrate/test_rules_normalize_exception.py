"""``PyErr_NormalizeException(&t, &v, &tb)`` on what ``PyErr_Fetch`` gave
(cbor2 5.9.0's ``raise_from`` before 3.12, docs/gaps.md T27): the three
are handles after the port, and the escape hatch cannot lend a handle's
address, so the stock call on ``Cystck_Object *`` did not compile.  It is
``CystckErr_NormalizeException(S, &t, &v, &tb)`` now: each object the
normalizing replaces gets a new handle, stored through its pointer.
Stock and translated builds answer alike, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
normalized(PyObject *self, PyObject *arg)
{
    PyObject *type, *value, *tb, *ret;
    PyErr_SetObject(PyExc_ValueError, arg);
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    ret = Py_BuildValue("(OOO)", type, (PyObject *)Py_TYPE(value), value);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return ret;
}

static PyMethodDef methods[] = {
    {"normalized", normalized, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "normexc", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_normexc(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_the_call_takes_the_handles_addresses():
    out = translate.translate_source(SRC, "normexc.c")
    assert "CystckErr_NormalizeException(S, &type, &value, &tb);" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    script = ("r = [m.normalized('bad') for _ in range(3)]\n"
              "t, k, v = r[0]\n"
              "print(repr([t is ValueError, k is ValueError, isinstance(v, ValueError), v.args,\n"
              "            m.normalized(ValueError('x'))[2].args, type(m.normalized((1, 2))[2]).__name__,\n"
              "            m.normalized((1, 2))[2].args]))\n")
    want = same_as_stock("normexc", SRC, script)
    assert want == [True, True, True, ("bad",), ("x",), "ValueError", (1, 2)]


def test_a_replaced_value_stays_alive_in_the_new_exception(same_as_stock):
    """The normalizing makes the exception from the fetched value (here a
    message string that only the indicator holds) and consumes the reference
    it was given: the runtime once released the old object a second time,
    so the new exception's args held a freed string (cbor2's suite crashed
    in a later garbage collection, docs/gaps.md T27)."""
    script = ("import gc, sys\n"
              "kept = [m.normalized('m%d' % i)[2] for i in range(200)]\n"
              "junk = ['x%d' % i for i in range(2000)]\n"
              "gc.collect()\n"
              "print(repr([[e.args for e in kept[:3]], all(e.args == ('m%d' % i,) for i, e in enumerate(kept)),\n"
              "            sorted({sys.getrefcount(e.args[0]) for e in kept})]))\n")
    want = same_as_stock("normexc", SRC, script)
    assert want[0] == [("m0",), ("m1",), ("m2",)] and want[1] is True
