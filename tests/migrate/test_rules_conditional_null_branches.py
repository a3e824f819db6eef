"""A NULL branch of a conditional is the null handle where the conditional's
value is a handle: the initializer of a handle declarator (``PyObject *s =
c ? PyDict_GetItemString(d, k) : NULL;``), a value assigned to a handle, a
returned value.  A NULL branch of a conditional that is an argument of a call
in such a value is none: ``Py_BuildValue("z", c ? NULL : "USD")`` passes a
``char *``.  The blind test of T35 found both: the first stayed ``NULL``
and the second became ``Cystck_NULL``, and neither compiled ("type mismatch
in conditional expression")."""
from cystck.migrate import translate

SOURCE = r'''
#include <Python.h>
static PyObject *reg = NULL;

static PyObject *
pick(PyObject *self, PyObject *arg)
{
    PyObject *sym = reg ? PyDict_GetItemString(reg, "x") : NULL, *other = (arg == Py_None) ? NULL : arg;
    PyObject *t;
    t = arg == Py_None ? NULL : PyObject_Repr(arg);
    if (t == NULL)
        return Py_BuildValue("(zz)", reg ? NULL : "unset", arg == Py_None ? "none" : NULL);
    Py_DECREF(t);
    if (sym == NULL || other == NULL)
        return Py_BuildValue("z", PyLong_Check(arg) ? NULL : "other");
    return PyErr_Occurred() ? NULL : PyObject_Str(arg);
}

static PyObject *
keep(PyObject *self, PyObject *arg)
{
    if (reg == NULL && (reg = PyDict_New()) == NULL)
        return NULL;
    if (PyDict_SetItemString(reg, "x", arg) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"pick", pick, METH_O, NULL},
    {"keep", keep, METH_O, NULL},
    {NULL}
};

static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&def);
}
'''

SCRIPT = r'''
out = [m.pick(None), m.pick(5), m.pick("s"), outcome(m.pick, 3.5)]
m.keep(1)
out += [m.pick(None), m.pick(5), m.pick("s"), outcome(m.pick, 3.5)]
print(repr(out))
'''


def test_null_branches(same_as_stock):
    want = same_as_stock("condnull", SOURCE.replace("NAME", "condnull"), SCRIPT)
    assert want[0] == ("unset", "none") and want[-2] == "s"


def test_null_branch_of_a_handle_value_is_the_null_handle():
    out = translate.translate_source(SOURCE.replace("NAME", "condnull"), "condnull.c")
    assert '"x") : Cystck_NULL, other = (Cystck_Is(S, arg, Cystck_None)) ? Cystck_NULL : arg;' in out
    assert "t = Cystck_Is(S, arg, Cystck_None) ? Cystck_NULL : CystckObject_Repr(S, arg);" in out


def test_null_branch_inside_an_argument_is_left_alone():
    out = translate.translate_source(SOURCE.replace("NAME", "condnull"), "condnull.c")
    assert 'reg ? NULL : "unset", Cystck_Is(S, arg, Cystck_None) ? "none" : NULL)' in out
    assert 'CystckLong_Check(S, arg) ? NULL : "other")' in out
