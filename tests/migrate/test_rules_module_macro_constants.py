"""``PyModule_AddIntMacro``/``PyModule_AddStringMacro`` (CPython macros that
stringify their second argument) are written out as the constant functions
they expand to, which Cystck has: the blind test of T35 found the first one
kept through the escape hatch."""
from cystck.migrate import translate

SOURCE = r'''
#include <Python.h>
#define MAX_PARTS 1000
#define FLAVOUR "plain"

static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m = PyModule_Create(&def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntMacro(m, MAX_PARTS) < 0 || PyModule_AddStringMacro(m, FLAVOUR) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

SCRIPT = r'''
print(repr([m.MAX_PARTS, m.FLAVOUR, sorted(k for k in vars(m) if not k.startswith("__"))]))
'''


def test_macro_constants(same_as_stock):
    assert same_as_stock("macroconst", SOURCE.replace("NAME", "macroconst"), SCRIPT) == \
        [1000, "plain", ["FLAVOUR", "MAX_PARTS"]]


def test_macro_constants_are_written_out():
    out = translate.translate_source(SOURCE.replace("NAME", "macroconst"), "macroconst.c")
    assert 'CystckModule_AddIntConstant(S, m, "MAX_PARTS", MAX_PARTS)' in out
    assert 'CystckModule_AddStringConstant(S, m, "FLAVOUR", FLAVOUR)' in out
    assert "escape hatch" not in out
