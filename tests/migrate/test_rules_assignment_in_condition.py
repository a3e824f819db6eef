"""An assignment to a handle whose value is the condition (``if (!(r =
PyObject_GetAttrString(o, "x")))``, ``while ((item = PyIter_Next(it)))``)
tests the handle it stores: ``Cystck_IsNull(r = ...)``.  The stock and the
translated builds behave the same."""
import importlib.util

import regex

from cystck.build import build_extension
from cystck.migrate import cli, translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject *cache; } Holder;

static PyObject *
attr_not(PyObject *self, PyObject *o)
{
    PyObject *r;
    if (!(r = PyObject_GetAttrString(o, "real")))
        return NULL;
    return r;
}

static PyObject *
attr_or(PyObject *self, PyObject *o)
{
    PyObject *r = NULL, *s = NULL;
    if (!(r = PyObject_GetAttrString(o, "real")) || !(s = PyObject_Str(r)))
        goto error;
    Py_DECREF(r);
    if ((r = PyObject_GetAttrString(o, "imag")) && PyLong_Check(r))
        Py_DECREF(r);
    else if (!(r = s))
        goto error;
    return s;
error:
    Py_XDECREF(r);
    return NULL;
}

static PyObject *
in_member(PyObject *self, PyObject *o)
{
    Holder h;
    if (!(h.cache = PyObject_Repr(o)))
        return NULL;
    return h.cache;
}

static PyObject *
ident(PyObject *x)
{
    return x;
}

static PyObject *
has_real(PyObject *self, PyObject *o)
{
    PyObject *r;
    int n = (r = PyObject_GetAttrString(o, "real")) ? 1 : 0;
    if (n)
        Py_DECREF(r);
    else
        PyErr_Clear();
    return PyBool_FromLong(n);
}

static PyObject *
argument(PyObject *self, PyObject *o)
{
    PyObject *r;
    return ident((r = PyObject_Repr(o)));
}

static PyObject *
count(PyObject *self, PyObject *o)
{
    PyObject *it, *item;
    Py_ssize_t n = 0, size;
    const char *env;
    if ((size = PyObject_Size(o)) < 0)
        return NULL;
    if (!(env = getenv("PATH")))
        env = "";
    if (!(it = PyObject_GetIter(o)))
        return NULL;
    while ((item = PyIter_Next(it))) {
        n++;
        Py_DECREF(item);
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return NULL;
    return Py_BuildValue("nn", n, size + (env == NULL));
}

static PyMethodDef methods[] = {
    {"attr_not", attr_not, METH_O, NULL},
    {"attr_or", attr_or, METH_O, NULL},
    {"in_member", in_member, METH_O, NULL},
    {"has_real", has_real, METH_O, NULL},
    {"argument", argument, METH_O, NULL},
    {"count", count, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "assigncond", NULL, -1, methods};

PyMODINIT_FUNC PyInit_assigncond(void) { return PyModule_Create(&moddef); }
'''


def test_assignment_tested_as_a_handle():
    out = translate.translate_source(SRC)
    assert 'if (Cystck_IsNull(r = CystckObject_GetAttrString(S, o, "real")))' in out
    assert ('if (Cystck_IsNull(r = CystckObject_GetAttrString(S, o, "real")) || '
            'Cystck_IsNull(s = CystckObject_Str(S, r)))') in out
    assert 'if (!Cystck_IsNull(r = CystckObject_GetAttrString(S, o, "imag")) && ' in out
    assert "else if (Cystck_IsNull(r = s))" in out
    assert "if (Cystck_IsNull(h.cache = CystckObject_Repr(S, o)))" in out
    # (the loop-release rule may put a release before the test)
    assert regex.search(r"while \((?:\(Cystck_ReleaseSince\(S, &\w+\), )?"
                        r"!Cystck_IsNull\(item = CystckIter_Next\(S, it\)\)\)", out)
    assert 'int n = !Cystck_IsNull(r = CystckObject_GetAttrString(S, o, "real")) ? 1 : 0;' in out


def test_assignment_of_no_handle_stays():
    out = translate.translate_source(SRC)
    # negatives: an integer result compared, a char pointer tested
    assert "if ((size = CystckObject_Size(S, o)) < 0)" in out
    assert 'if (!(env = getenv("PATH")))' in out
    # ... and an assignment passed as an argument is a value, not a test
    assert "ident(S, (r = CystckObject_Repr(S, o)))" in out


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_translation_compiles_and_behaves_like_the_stock_build(tmp_path):
    src = tmp_path / "stock"
    src.mkdir()
    (src / "assigncond.c").write_text(SRC)
    out = tmp_path / "migrated"
    # before: `!(r = CystckObject_GetAttrString(...))` applied `!` to a
    # handle, which does not compile
    assert cli.main([str(src), "-o", str(out), "-q", "--no-cppcheck", "--check"]) == 0
    stock = _load("assigncond", build_extension("assigncond", [src / "assigncond.c"], tmp_path / "b1",
                                                use_cystck=False))
    ported = _load("assigncond", build_extension("assigncond", [out / "assigncond.c"], tmp_path / "b2"))
    for module in (stock, ported):
        assert module.attr_not(3) == 3
        assert module.attr_or(5) == "5"
        assert module.in_member([1]) == "[1]"
        assert module.count([1, 2, 3])[0] == 3
        assert module.has_real(2) is True and module.has_real("x") is False
        assert module.argument(4) == "4"
        for f in (module.attr_not, module.attr_or):
            try:
                f(None)
            except AttributeError as e:
                assert "real" in str(e)
            else:
                raise AssertionError("no AttributeError")


FIELDS = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject_HEAD PyObject *cache; PyObject *last; } Box;

static int
Box_init(Box *self, PyObject *args, PyObject *kwds)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O", &o))
        return -1;
    if (!(self->cache = PyDict_New()))
        return -1;
    if ((self->last = PyObject_GetAttrString(o, "real")) == NULL)
        return -1;
    return 0;
}

static PyObject *
Box_swap(Box *self, PyObject *o)
{
    PyObject *old = self->last;
    if ((self->last = PyObject_Repr(o)) != NULL) {
        Py_DECREF(old);
        return PyLong_FromLong(PyDict_Size(self->cache));
    }
    self->last = old;
    return NULL;
}

static PyObject *
Box_get(Box *self, PyObject *unused)
{
    Py_INCREF(self->last);
    return self->last;
}

static void
Box_dealloc(Box *self)
{
    Py_XDECREF(self->cache);
    Py_XDECREF(self->last);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Box_methods[] = {
    {"swap", (PyCFunction)Box_swap, METH_O, NULL},
    {"get", (PyCFunction)Box_get, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "assignfield.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Box_init,
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_methods = Box_methods,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "assignfield", NULL, -1, NULL};

PyMODINIT_FUNC PyInit_assignfield(void)
{
    PyObject *m;
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    if (!(m = PyModule_Create(&moddef)))
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''


def test_object_field_assigned_in_a_condition_is_stored_then_tested():
    # before: the store was taken for a statement up to the next `;`,
    # swallowing `)) return -1` into CystckField_Store's arguments
    out = translate.translate_source(FIELDS)
    field = "Box_AsStruct(S, self)->"
    assert (f"if ((CystckField_Store(S, self, &{field}cache, CystckDict_New(S)), "
            f"CystckField_IsNull({field}cache)))\n        return -1;") in out
    assert (f'if ((CystckField_Store(S, self, &{field}last, CystckObject_GetAttrString(S, o, "real")), '
            f"CystckField_IsNull({field}last)))") in out
    assert (f"if ((CystckField_Store(S, self, &{field}last, CystckObject_Repr(S, o)), "
            f"!CystckField_IsNull({field}last))) {{") in out
    # negative: a store that is a statement stays one
    assert f"    CystckField_Store(S, self, &{field}last, old);\n" in out


def test_object_field_assignment_compiles_and_behaves_like_the_stock_build(tmp_path):
    src = tmp_path / "stock"
    src.mkdir()
    (src / "assignfield.c").write_text(FIELDS)
    out = tmp_path / "migrated"
    assert cli.main([str(src), "-o", str(out), "-q", "--no-cppcheck", "--check"]) == 0
    stock = _load("assignfield", build_extension("assignfield", [src / "assignfield.c"], tmp_path / "b1",
                                                 use_cystck=False))
    ported = _load("assignfield", build_extension("assignfield", [out / "assignfield.c"], tmp_path / "b2"))
    for module in (stock, ported):
        box = module.Box(7)
        assert box.get() == 7
        assert box.swap([2]) == 0
        assert box.get() == "[2]"
        try:
            module.Box(None)
        except AttributeError as e:
            assert "real" in str(e)
        else:
            raise AssertionError("no AttributeError")
