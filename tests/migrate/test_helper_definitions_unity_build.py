"""The translator's helpers (``cystck_migrate_steal``, ``_result``,
``_xref``, ...) are static inline functions defined in each file that
calls them, after its ``#include "Cystck.h"``.  In a unity build (one .c
file including others) that failed two ways: a file with no include of its
own got no definition (the helper was undeclared), and two files with
includes both defined it (a redefinition).  Now each definition is under a
guard (``#ifndef CYSTCK_MIGRATE_STEAL_DEFINED``) and a file without the
Cystck.h include gets it after its last include before the first call, or
at its top.  Both builds compile and behave as the stock build, reference
counts included, in release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.migrate import translate

STORE_C = r'''/* a file of the unity build: unitysteal.c includes it after Python.h */
%s
typedef struct cell {
    PyObject *value;
    long swaps;
} cell;

static cell *cell_new(PyObject *v)
{
    cell *c = (cell *)PyMem_Malloc(sizeof(cell));
    if (c == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    Py_INCREF(v);
    c->value = v;
    c->swaps = 0;
    return c;
}

/* the old value, a new reference: the cell's own, taken over */
static PyObject *cell_swap(cell *c, PyObject *v)
{
    PyObject *old = c->value;
    Py_INCREF(v);
    c->value = v;
    c->swaps++;
    return old;
}
'''

TAKE = r'''
/* the cell freed, its value returned (the cell's reference, taken over) */
static PyObject *take(PyObject *mod, PyObject *unused)
{
    PyObject *v;
    if (the_cell == NULL)
        Py_RETURN_NONE;
    v = the_cell->value;
    PyMem_Free(the_cell);
    the_cell = NULL;
    return v;
}
'''

MAIN_C = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "store.c"

static cell *the_cell = NULL;

static PyObject *swap(PyObject *mod, PyObject *v)
{
    if (the_cell == NULL && (the_cell = cell_new(Py_None)) == NULL)
        return NULL;
    return cell_swap(the_cell, v);
}
%s
static PyMethodDef methods[] = {
    {"swap", swap, METH_O, NULL},
    %s
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "unitysteal", NULL, -1, methods};

PyMODINIT_FUNC PyInit_unitysteal(void)
{
    return PyModule_Create(&moddef);
}
'''

# (1) only the included file, which has no include, calls the helper;
# (2) both files call it, and both have includes (so both a Cystck.h include)
CASES = {
    "included_file_alone": (STORE_C % "", MAIN_C % ("", "")),
    "both_files": (STORE_C % "#include <Python.h>\n", MAIN_C % (TAKE, '{"take", take, METH_NOARGS, NULL},')),
}

SCRIPT = '''
a, b = object(), object()
ra, rb = sys.getrefcount(a), sys.getrefcount(b)
out = [m.swap(a) is None, sys.getrefcount(a) - ra]
x = m.swap(b)
out += [x is a]
del x
out += [sys.getrefcount(a) - ra, sys.getrefcount(b) - rb]
if hasattr(m, "take"):
    x = m.take()
    out += [x is b]
    del x
else:
    m.swap(None)
out += [sys.getrefcount(b) - rb]
print(repr(out))
'''


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_file_that_calls_the_helper_defines_it_under_its_guard(case):
    store, main = CASES[case]
    units = translate.translate_files({"store.c": store, "unitysteal.c": main})
    guard = "#ifndef CYSTCK_MIGRATE_STEAL_DEFINED\n#define CYSTCK_MIGRATE_STEAL_DEFINED\n"
    out = units["store.c"].text
    assert out.count(guard) == 1 and "cystck_migrate_steal(S, &c->value)" in out
    # before its first call, after the file's include (if any)
    assert out.index(guard) < out.index("cystck_migrate_steal(S, &c->value)")
    if case == "both_files":
        assert out.index('#include "Cystck.h"') < out.index(guard)
        assert units["unitysteal.c"].text.count(guard) == 1
    else:
        assert out.startswith("\n" + guard)
        assert "cystck_migrate_steal" not in units["unitysteal.c"].text


@pytest.fixture(scope="module")
def builds(tmp_path_factory, stock_and_translated_tree):
    out = {}
    for case, (store, main) in CASES.items():
        stock = tmp_path_factory.mktemp(case) / "stock"
        stock.mkdir()
        (stock / "store.c").write_text(store)
        (stock / "unitysteal.c").write_text(main)
        out[case] = stock_and_translated_tree("unitysteal", stock, check=False)
    return out


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("debug", [False, True])
def test_the_unity_build_compiles_and_behaves_like_stock(builds, run_script, case, debug):
    stock, ported = builds[case]
    want = run_script(SCRIPT, stock)
    assert want == [True, 1, True, 0, 1] + ([True] if case == "both_files" else []) + [0]
    assert run_script(SCRIPT, ported, debug=debug) == want
