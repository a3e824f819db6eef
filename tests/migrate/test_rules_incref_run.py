"""Increments grouped before the stealing calls, ``Py_INCREF(obj);
Py_INCREF(fp); PyTuple_SET_ITEM(t, 0, obj); PyTuple_SET_ITEM(t, 1, fp);``
(cbor2 5.9.0's ``dumps``, docs/gaps.md T27), with ``fp`` used and released
afterwards: the incref rule paired an increment only with the very next
statement, so both increments went and ``CystckTuple_SET_ITEM`` consumed
``fp``'s own handle, which the code then read ("the handle passed was
released").  Each stealing call of the run now gets a handle of its own.
Stock and translated builds answer alike, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
wrap(PyObject *self, PyObject *obj)
{
    PyObject *fp, *t, *ret = NULL;
    fp = PyList_New(0);
    if (fp == NULL)
        return NULL;
    t = PyTuple_New(3);
    if (t != NULL) {
        Py_INCREF(obj);
        Py_INCREF(fp);
        Py_INCREF(obj);
        PyTuple_SET_ITEM(t, 0, obj);
        PyTuple_SET_ITEM(t, 1, fp);
        PyTuple_SET_ITEM(t, 2, obj);
    }
    if (t != NULL) {
        if (PyList_Append(fp, obj) == 0)
            ret = t;
        else
            Py_DECREF(t);
    }
    Py_DECREF(fp);
    return ret;
}

static PyMethodDef methods[] = {
    {"wrap", wrap, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "increfrun", NULL, -1, methods};

PyMODINIT_FUNC PyInit_increfrun(void) { return PyModule_Create(&moddef); }
'''


def test_each_stealing_call_of_the_run_gets_a_handle_of_its_own():
    out = translate.translate_source(SRC, "increfrun.c")
    assert "CystckTuple_SET_ITEM(S, t, 1, Cystck_Dup(S, fp));" in out
    assert out.count("Cystck_Dup(S, obj)") == 2
    assert "Py_INCREF" not in out


def test_a_run_that_steals_another_object_is_left_alone():
    """Negative: the run hands the stealing calls other objects, not the
    incremented one, which keeps its own handle (no call gets a copy)."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    PyObject *t = PyTuple_New(2), *a, *b;\n"
           "    if (t == NULL)\n        return NULL;\n"
           "    a = PyLong_FromLong(1);\n    b = PyLong_FromLong(2);\n"
           "    Py_INCREF(o);\n"
           "    PyTuple_SET_ITEM(t, 0, a);\n    PyTuple_SET_ITEM(t, 1, b);\n"
           "    return PyTuple_Pack(2, t, o);\n}\n")
    out = translate.translate_source(src, "increfnear.c")
    assert "CystckTuple_SET_ITEM(S, t, 0, a);" in out and "CystckTuple_SET_ITEM(S, t, 1, b);" in out
    assert "Cystck_Dup(S, o)" not in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    script = ("import sys\n"
              "o = object()\n"
              "r = [m.wrap(o) for _ in range(50)]\n"
              "print(repr([len(r), all(t[0] is o and t[2] is o and t[1] == [o] for t in r),\n"
              "            sys.getrefcount(r[0][1]), sys.getrefcount(o) - 150]))\n")
    want = same_as_stock("increfrun", SRC, script)
    assert want[:2] == [50, True]


SRC_KEPT = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <assert.h>

static PyObject *store;

static void
keep(PyObject *value)
{
    if (value) {
        Py_INCREF(value);  // PyList_SetItem steals the reference
#ifndef NDEBUG
        int ret =
#endif
        PyList_SetItem(store, 0, value);
        assert(!ret);
    }
}

static PyObject *
put(PyObject *self, PyObject *arg)
{
    PyObject *v, *ret;
    v = PyLong_FromLong(PyLong_AsLong(arg) * 1000003);
    if (v == NULL)
        return NULL;
    keep(v);
    ret = PyTuple_Pack(2, v, PyList_GET_ITEM(store, 0));
    Py_DECREF(v);
    return ret;
}

static PyMethodDef methods[] = {
    {"put", put, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "increfkept", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_increfkept(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    store = Py_BuildValue("[O]", Py_None);
    if (store == NULL || PyModule_AddObject(m, "store", store) < 0)
        return NULL;
    Py_INCREF(store);
    return m;
}
'''


def test_a_call_behind_a_directive_keeping_its_result_gets_a_handle_of_its_own():
    """The stealing call is the initializer of a local declared behind
    ``#ifndef NDEBUG`` (cbor2's ``set_shareable``): the helper's parameter
    is the caller's handle, which consuming it would release."""
    out = translate.translate_source(SRC_KEPT, "increfkept.c")
    assert "CystckList_SetItem(S, Cystck_deref(S, store), 0, Cystck_Dup(S, value));" in out


def test_the_kept_value_translation_behaves_like_the_stock_build(same_as_stock):
    script = ("import sys\n"
              "r = [m.put(i) for i in range(50)]\n"
              "print(repr([r[3], all(a is b for a, b in r[-1:]), m.store[0] == 49 * 1000003,\n"
              "            sys.getrefcount(m.store[0]), sys.getrefcount(r[10][0])]))\n")
    want = same_as_stock("increfkept", SRC_KEPT, script)
    assert want[:3] == [(3000009, 3000009), True, True]
