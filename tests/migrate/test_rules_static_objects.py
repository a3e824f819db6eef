"""A statically allocated object, ``PyObject marker_obj = {
_PyObject_EXTRA_INIT 1, &marker_type };`` of one of the extension's static
types, reached through ``#define marker (&marker_obj)`` from another file
(declared ``extern PyObject marker_obj;`` in a header), compared with
``==``, returned through a macro (``return Py_INCREF(marker), marker``)
and added to the module (cbor2 5.9.0's ``break_marker`` and
``undefined``, docs/gaps.md T27): before, the object stayed stock beside
its type made a ``Cystck_Ref`` (its initialiser took the address of the
reference) and every use was a ``PyObject *`` among handles, which did not
compile.  The static-objects rule makes it a global made where its type is
readied, a ``Cystck_Ref`` made once at init; identity tests are
``Cystck_Is``.  Stock and translated builds answer alike, in release and
with CYSTCK_DEBUG=1."""
import pytest

from cystck.migrate import translate

HEADER = """#include <Python.h>
extern PyObject _marker_obj;
#define marker (&_marker_obj)
#define RETURN_MARKER return Py_INCREF(marker), marker
PyObject *find(PyObject *seq);
"""

MODULE_C = r'''#include <Python.h>
#include "mod.h"

static PyObject *
marker_repr(PyObject *op)
{
    return PyUnicode_FromString("marker");
}

static void
marker_dealloc(PyObject *ignore)
{
    Py_FatalError("deallocating marker");
}

static PyObject *
marker_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    if (PyTuple_GET_SIZE(args) || (kwargs && PyDict_Size(kwargs))) {
        PyErr_SetString(PyExc_TypeError, "marker_type takes no arguments");
        return NULL;
    }
    Py_INCREF(marker);
    return marker;
}

static int
marker_bool(PyObject *v)
{
    return 0;
}

static PyNumberMethods marker_as_number = {
    .nb_bool = (inquiry) marker_bool,
};

PyTypeObject marker_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "marker_type",
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = marker_new,
    .tp_dealloc = marker_dealloc,
    .tp_repr = marker_repr,
    .tp_as_number = &marker_as_number,
};

PyObject _marker_obj = {
    _PyObject_EXTRA_INIT
    1, &marker_type
};

static PyObject *
is_marker(PyObject *self, PyObject *o)
{
    if (o == marker)
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyObject *
first(PyObject *self, PyObject *seq)
{
    return find(seq);
}

static PyMethodDef methods[] = {
    {"is_marker", is_marker, METH_O, NULL},
    {"first", first, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&marker_type) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(marker);
    if (PyModule_AddObject(m, "marker", marker) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

FIND_C = r'''#include <Python.h>
#include "mod.h"

PyObject *
find(PyObject *seq)
{
    Py_ssize_t i, n = PySequence_Size(seq);
    if (n < 0)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *it = PySequence_GetItem(seq, i);
        if (it == NULL)
            return NULL;
        if (it == marker) {
            Py_DECREF(it);
            RETURN_MARKER;
        }
        Py_DECREF(it);
    }
    Py_RETURN_NONE;
}
'''


def _files(name):
    return {"mod.h": HEADER, "m.c": MODULE_C.replace("NAME", name), "find.c": FIND_C}


def test_the_object_is_a_reference_made_where_its_type_is_readied():
    units = translate.translate_files(_files("statics"))
    m, find, header = units["m.c"].text, units["find.c"].text, units["mod.h"].text
    assert "Cystck_Ref _marker_obj = NULL;" in m
    assert "extern Cystck_Ref _marker_obj;" in header
    assert "_PyObject_EXTRA_INIT" not in m and "&_marker_obj" not in m + find + header
    made = m.index("(_marker_obj = cystck_migrate_xref(S, Cystck_NewZeroed(S, Cystck_deref(S, marker_type), NULL)))")
    assert m.index("marker_type = Cystck_ref(S, CystckType_FromSpec(") < made
    assert "Cystck_Is(S, o, Cystck_deref(S, _marker_obj))" in m
    assert "Cystck_Is(S, it, Cystck_deref(S, _marker_obj))" in find
    assert "return Cystck_Dup(S, Cystck_deref(S, _marker_obj));" in find
    assert 'CystckModule_AddObject(S, m, "marker", Cystck_deref(S, _marker_obj))' in m


@pytest.fixture(scope="module")
def builds(stock_and_translated_files):
    name = "rt_static_objects"
    return stock_and_translated_files(name, _files(name), ["m.c", "find.c"])


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_both_builds_answer_alike(builds, run_script, debug):
    script = ("k = m.marker\n"
              "print(repr([m.is_marker(k), m.is_marker(None), m.first([1, k, 2]) is k, m.first([1, 2]),\n"
              "            type(k)() is k, outcome(type(k), 1), bool(k), repr(k), type(k).__name__,\n"
              "            sys.getrefcount(k) > 2]))\n")
    want = run_script(script, builds["stock"])
    assert want == [True, False, True, None, True, ("TypeError", "marker_type takes no arguments"),
                    False, "marker", "marker_type", True]
    assert run_script(script, builds["cystck"], debug=debug) == want
