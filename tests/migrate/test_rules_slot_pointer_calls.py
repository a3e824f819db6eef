"""A descriptor slot kept in a function pointer (docs/gaps.md T15):
``descrgetfunc f = Py_TYPE(d)->tp_descr_get; ... f(d, obj, type)``.  The
read goes through the escape hatch (type-slot-reads), and so, with the
slot-pointer-calls rule, does the call: before, the call passed handles
where the stock function takes ``PyObject *`` and the output did not
build.  Built stock and translated, run the same, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

STOCK = r"""
#include <Python.h>

/* d.__get__(obj, type(obj)), or d itself if it is no descriptor. */
static PyObject *
get(PyObject *self, PyObject *args)
{
    PyObject *d, *obj;
    descrgetfunc f;
    if (!PyArg_ParseTuple(args, "OO", &d, &obj))
        return NULL;
    f = Py_TYPE(d)->tp_descr_get;
    if (f == NULL) {
        Py_INCREF(d);
        return d;
    }
    return f(d, obj == Py_None ? NULL : obj, (PyObject *)Py_TYPE(obj));
}

/* d.__set__(obj, v), or d.__delete__(obj) for v None; False if d is no
 * data descriptor. */
static PyObject *
set(PyObject *self, PyObject *args)
{
    PyObject *d, *obj, *v;
    if (!PyArg_ParseTuple(args, "OOO", &d, &obj, &v))
        return NULL;
    descrsetfunc g = Py_TYPE(d)->tp_descr_set;
    if (g == NULL)
        Py_RETURN_FALSE;
    if (g(d, obj, v == Py_None ? NULL : v) < 0)
        return NULL;
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"get", get, METH_VARARGS, NULL},
    {"set", set, METH_VARARGS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "slotptr", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_slotptr(void)
{
    return PyModule_Create(&moduledef);
}
"""

SCRIPT = """
class Holder:
    def __init__(self):
        self.log = []
    def method(self):
        return "method"
    prop = property(lambda self: ("prop", len(self.log)),
                    lambda self, v: self.log.append(("set", v)),
                    lambda self: self.log.append("del"))
h = Holder()
out = [m.get(Holder.__dict__["method"], h)(), outcome(m.get, Holder.prop, h),
       m.get(Holder.prop, None) is Holder.prop, outcome(m.get, 7, h), m.get(classmethod(len), h).__self__ is Holder,
       outcome(m.set, Holder.prop, h, 3), outcome(m.set, Holder.prop, h, None), h.log,
       outcome(m.set, Holder.__dict__["method"], h, 1), outcome(m.set, property(), h, 1)]
print(out)
"""
EXPECTED = ["method", ("prop", 0), True, 7, True, True, True, [("set", 3), "del"], False,
            ("AttributeError", "property of 'Holder' object has no setter")]


def test_translated_as_stock(same_as_stock):
    assert same_as_stock("slotptr", STOCK, SCRIPT) == EXPECTED


def test_the_calls_are_kept_and_reported():
    result = translate.translate_files({"m.c": STOCK})["m.c"]
    assert f"Cystck_FromNewPyObject(S, {MARK} f((Cystck_IsNull(d) ? NULL : Cystck_AsPyObject(S, d))" in result.text
    assert f"if ({MARK} g((Cystck_IsNull(d) ? NULL" in result.text
    assert len([n for n in result.notes if n.rule == "slot-pointer-calls"]) == 2
