"""A type object defined in one file and readied in another, declared in a
header (``extern PyTypeObject BoxType;``): the spec the type-object rule
writes was ``static``, so the init's file, which readies the type with
``CystckType_FromSpec(S, &BoxType_spec, ...)``, did not compile
("'BoxType_spec' undeclared", cbor2 5.9.0's three types, docs/gaps.md
T27).  A type that is not static and that another file declares gets a
spec as visible as itself, declared where the type is declared
(``extern CystckType_Spec BoxType_spec;``).  A static type, or one no
other file declares, keeps a static spec.  Stock and translated builds
answer alike, in release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.migrate import translate

HEADER = """#ifndef BOX_H
#define BOX_H
#include <Python.h>
typedef struct { PyObject_HEAD long v; } Box;
extern PyTypeObject BoxType;
PyObject *Box_make(long v);
#endif
"""

BOX_C = r'''#include <Python.h>
#include "box.h"

static PyObject *
Box_value(Box *self, PyObject *unused)
{
    return PyLong_FromLong(self->v);
}

static PyMethodDef Box_methods[] = {
    {"value", (PyCFunction)Box_value, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Box_methods,
    .tp_new = PyType_GenericNew,
};

static PyTypeObject HiddenType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Hidden",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
};

PyObject *
Box_make(long v)
{
    Box *b;
    if (PyType_Ready(&HiddenType) < 0)
        return NULL;
    b = PyObject_New(Box, &BoxType);
    if (b != NULL)
        b->v = v;
    return (PyObject *)b;
}
'''

MODULE_C = r'''#include <Python.h>
#include "box.h"

static PyObject *
make(PyObject *self, PyObject *arg)
{
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    return Box_make(v);
}

static PyMethodDef methods[] = {
    {"make", make, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0) {
        Py_DECREF(&BoxType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''


def _files(name):
    return {"box.h": HEADER, "box.c": BOX_C.replace("NAME", name), "mod.c": MODULE_C.replace("NAME", name)}


def test_the_spec_is_declared_where_the_type_is():
    units = translate.translate_files(_files("specs"))
    box, header = units["box.c"].text, units["box.h"].text
    assert "\nCystckType_Spec BoxType_spec = {" in box
    assert "extern Cystck_Ref BoxType; extern CystckType_Spec BoxType_spec;" in header
    # a static type, no other file declares it: its spec stays static
    assert "static CystckType_Spec HiddenType_spec = {" in box
    assert "CystckType_FromSpec(S, &BoxType_spec, Cystck_NULL)" in units["mod.c"].text


def test_a_type_no_other_file_declares_keeps_a_static_spec():
    files = _files("specs")
    files["box.h"] = HEADER.replace("extern PyTypeObject BoxType;\n", "")
    box = translate.translate_files(files)["box.c"].text
    assert "static CystckType_Spec BoxType_spec = {" in box


@pytest.fixture(scope="module")
def builds(stock_and_translated_files):
    name = "rt_spec_elsewhere"
    return stock_and_translated_files(name, _files(name), ["mod.c", "box.c"])


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_both_builds_answer_alike(builds, run_script, debug):
    script = ("b = m.make(41)\nprint(repr([b.value(), type(b).__name__, type(b) is m.Box, m.Box().value()]))\n")
    want = run_script(script, builds["stock"])
    assert want == [41, "Box", True, 0]
    assert run_script(script, builds["cystck"], debug=debug) == want
