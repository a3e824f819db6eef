"""``PyModule_GetDef(m)`` whose result is kept (``PyModuleDef *def =
PyModule_GetDef(m)``) and later compared with the extension's own
definition: the call stays stock (the escape hatch: the stock definition,
right for every module, its fields readable), and so must the definition
it is compared with, ``Cystck_AsPyModuleDef(&moduledef)``.  Before, the
comparison was with the ``CystckModuleDef`` the modules rule made of
``moduledef``: it built (distinct pointer types, a warning) and was never
equal (docs/gaps.md T15)."""
import pytest

from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

STOCK = r"""
#include <Python.h>

static struct PyModuleDef moduledef;
static PyModuleDef *last_seen;
static struct { int calls; PyModuleDef *def; } seen;

/* 2 for a module made from this extension's definition, the definition's
 * name for another module made from one, 0 for a module made without. */
static PyObject *
kind(PyObject *self, PyObject *m)
{
    PyModuleDef *def = PyModule_GetDef(m);
    if (def == NULL)
        return PyErr_Occurred() ? NULL : PyLong_FromLong(0);
    last_seen = def;
    seen.def = def;
    if (def == &moduledef)
        return PyLong_FromLong(2);
    return PyUnicode_FromString(def->m_name);
}

static PyObject *
last_was_ours(PyObject *self, PyObject *unused)
{
    return Py_BuildValue("(ii)", &moduledef == last_seen, seen.def != &moduledef);
}

static PyObject *
same_def(PyObject *self, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b))
        return NULL;
    return PyBool_FromLong(PyModule_GetDef(a) == PyModule_GetDef(b));
}

static PyMethodDef methods[] = {
    {"kind", kind, METH_O, NULL},
    {"last_was_ours", last_was_ours, METH_NOARGS, NULL},
    {"same_def", same_def, METH_VARARGS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "defkept", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_defkept(void)
{
    return PyModule_Create(&moduledef);
}
"""

SCRIPT = """
import json, math
out = [m.kind(m), m.last_was_ours(), m.kind(math), m.last_was_ours(), m.kind(json), m.same_def(m, m),
       m.same_def(m, math), m.same_def(math, math)]
try:
    m.kind(1)
except TypeError as e:
    out.append("TypeError")
print(out)
"""
EXPECTED = [2, (1, 0), "math", (0, 1), 0, True, False, True, "TypeError"]


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("defkept", STOCK)


def test_stock(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translated_as_stock(built, run_script, debug):
    assert run_script(SCRIPT, built[1], debug) == EXPECTED


def test_the_kept_definition_is_compared_with_the_one_cpython_knows():
    result = translate.translate_files({"m.c": STOCK})["m.c"]
    assert f"if (def == {MARK} Cystck_AsPyModuleDef(&moduledef))" in result.text
    assert (f"Cystck_BuildValue(S, \"(ii)\", {MARK} Cystck_AsPyModuleDef(&moduledef) == last_seen, "
            f"seen.def != {MARK} Cystck_AsPyModuleDef(&moduledef))") in result.text
    assert [n for n in result.notes if n.rule == "stock-module-defs"]


def test_the_definition_passed_or_compared_with_no_stock_pointer_stays():
    """Negative: ``&moduledef`` handed to the API, and a ``PyModuleDef *``
    of another function (here a name of a handle), are no stock
    definitions compared with it."""
    src = ("#include <Python.h>\nstatic struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, \"m\", NULL, -1, NULL};\n"
           "static int f(PyObject *m, PyModuleDef *other)\n{\n    PyModuleDef *def = PyModule_GetDef(m);\n"
           "    return def == other;\n}\n"
           "static PyObject *g(PyObject *def)\n{\n    return def != NULL ? def : PyModule_Create(&moduledef);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "Cystck_AsPyModuleDef" not in out
    assert "CystckModule_Create(S, &moduledef)" in out
