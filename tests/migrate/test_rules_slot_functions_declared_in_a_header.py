"""Getters, setters, destructors, traverse and clear functions and a
module's exec function declared in a header without ``static``, defined
in one file and registered in another (the getset table, the type and
the module's slots in the module's file).  CYSTCK_DEF_GETSET,
CYSTCK_DEF_DESTROY, CYSTCK_DEF_SLOT(..., tp_traverse, ...) and
CYSTCK_DEF_MOD_EXEC declare their implementation ``static``, so the file
that registered them did not compile ("static declaration of
'Box_get_label' follows non-static declaration", five errors; docs/gaps.md
T27, left by the entries work, which did it for slot functions).  Such a
function now keeps its external linkage, and its definition calls it
through a static forwarder (functions.slot_implementation, one helper for
every CYSTCK_DEF_* that registers a function).  The tp_clear function,
called directly from the other file, stays a helper.  Stock and
translated builds answer alike (values, errors, a cycle through the
traverse function collected), in release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.migrate import translate

HEADER = r'''#ifndef BOX_H
#define BOX_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    PyObject_HEAD
    PyObject *label;
    double *buf;
} BoxObject;

extern PyTypeObject BoxType;
PyObject *Box_new(PyTypeObject *type, PyObject *args, PyObject *kwargs);
void Box_dealloc(BoxObject *self);
int Box_traverse(BoxObject *self, visitproc visit, void *arg);
int Box_clear(BoxObject *self);
PyObject *Box_get_label(BoxObject *self, void *closure);
int Box_set_label(BoxObject *self, PyObject *value, void *closure);
int box_exec(PyObject *module);
PyObject *box_reset(PyObject *module, PyObject *box);

#endif
'''

BOX_C = r'''#include "box.h"

PyObject *
Box_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    BoxObject *self = (BoxObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->buf = (double *)PyMem_Malloc(4 * sizeof(double));
    if (self->buf == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    Py_INCREF(Py_None);
    self->label = Py_None;
    return (PyObject *)self;
}

void
Box_dealloc(BoxObject *self)
{
    PyObject_GC_UnTrack(self);
    PyMem_Free(self->buf);
    Py_XDECREF(self->label);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

int
Box_traverse(BoxObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->label);
    return 0;
}

int
Box_clear(BoxObject *self)
{
    Py_CLEAR(self->label);
    return 0;
}

PyObject *
Box_get_label(BoxObject *self, void *closure)
{
    Py_INCREF(self->label);
    return self->label;
}

int
Box_set_label(BoxObject *self, PyObject *value, void *closure)
{
    PyObject *tmp;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete label");
        return -1;
    }
    if (PyLong_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "label must not be an int");
        return -1;
    }
    tmp = self->label;
    Py_INCREF(value);
    self->label = value;
    Py_XDECREF(tmp);
    return 0;
}

int
box_exec(PyObject *module)
{
    if (PyType_Ready(&BoxType) < 0)
        return -1;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(module, "Box", (PyObject *)&BoxType) < 0) {
        Py_DECREF(&BoxType);
        return -1;
    }
    return 0;
}

/* reset(box): the box's fields cleared through its tp_clear, called
 * directly */
PyObject *
box_reset(PyObject *module, PyObject *box)
{
    if (!PyObject_TypeCheck(box, &BoxType)) {
        PyErr_SetString(PyExc_TypeError, "reset needs a Box");
        return NULL;
    }
    Box_clear((BoxObject *)box);
    Py_RETURN_NONE;
}
'''

MOD_C = r'''#include "box.h"

static PyGetSetDef Box_getset[] = {
    {"label", (getter)Box_get_label, (setter)Box_set_label, NULL, NULL},
    {NULL}
};

PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Box",
    .tp_basicsize = sizeof(BoxObject),
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)Box_traverse,
    .tp_clear = (inquiry)Box_clear,
    .tp_new = Box_new,
    .tp_getset = Box_getset,
};

static PyMethodDef methods[] = {
    {"reset", box_reset, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, (void *)box_exec},
    {0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "NAME", NULL, 0, methods, slots};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModuleDef_Init(&moddef);
}
'''

NAME = "xlinked"
FILES = {"box.h": HEADER, "box.c": BOX_C.replace("NAME", NAME), "mod.c": MOD_C.replace("NAME", NAME)}

SCRIPT = r"""
import gc
Box = m.Box
b = Box()
results = [b.label]
b.label = "x"
results += [b.label, outcome(setattr, b, "label", 3), outcome(delattr, b, "label"), b.label]
results.append(m.reset(b))
b.label = "y"
results += [b.label, outcome(m.reset, 1)]
class Sub(Box):
    pass
s = Sub()
s.label = "s"
results.append((type(s).__name__, s.label))
# a cycle through the label: collected only through the traverse function
freed = []
class Mark:
    def __del__(self):
        freed.append(1)
c = Box()
c.label = [c, Mark()]
del c
gc.collect()
results.append(freed)
print(repr(results))
"""


def _translated():
    return translate.translate_files(FILES)


def test_the_registered_functions_keep_their_linkage():
    units = _translated()
    box, mod, header = units["box.c"].text, units["mod.c"].text, units["box.h"].text
    assert "int Box_get_label(Cystck_State *S, Cystck_Object self, void *closure);" in header
    assert "void Box_dealloc(void *data);" in header
    for func in ("Box_get_label", "Box_set_label", "Box_traverse", "box_exec"):
        assert f"\nint\n{func}(" in box, func
    assert "\nvoid\nBox_dealloc(void *data)" in box
    assert "CYSTCK_DEF_GETSET(Box_get_label_getset, \"label\", Box_get_label__Box_get_label_getset_get, " \
           "Box_set_label__Box_get_label_getset_set, NULL, NULL)" in mod
    assert "    return Box_set_label(S, self, value, closure);" in mod
    assert "CYSTCK_DEF_DESTROY(BoxType_tp_dealloc, Box_dealloc__BoxType_tp_dealloc)\n" \
           "static void Box_dealloc__BoxType_tp_dealloc(void *data)\n{\n    Box_dealloc(data);\n}" in mod
    assert "    return Box_traverse(data, visit, arg);" in mod
    assert "CYSTCK_DEF_MOD_EXEC(box_exec_def, box_exec__box_exec_def)" in mod
    assert "int Box_clear(Cystck_State *S, Cystck_Object self);" in header


@pytest.fixture(scope="module")
def builds(stock_and_translated_files):
    return stock_and_translated_files(NAME, FILES, ["box.c", "mod.c"])


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_both_builds_answer_alike(builds, run_script, debug):
    want = run_script(SCRIPT, builds["stock"])
    assert want[:5] == [None, "x", ("TypeError", "label must not be an int"),
                        ("AttributeError", "cannot delete label"), "x"]
    assert want[-1] == [1]
    assert run_script(SCRIPT, builds["cystck"], debug=debug) == want
