"""A keywords method that reads its ``kw`` as a dict first makes the dict
(the kwargs-dict rule); when that fails (the handle limit, memory), the
method returns its error value with the exception set, instead of going on
as if it had no keywords (before, it did: with the exception still set,
its result became a SystemError, or worse, a call made without the
keywords).  The failure is forced with a small CYSTCK_HANDLE_LIMIT and
many keywords (the dict takes a handle per name): the method does not
count a call without keywords, as it did before; otherwise the
translation answers as the stock build, in release and with
CYSTCK_DEBUG=1."""
import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static long without_keywords = 0;

static PyObject *
count_kw(PyObject *self, PyObject *args, PyObject *kw)
{
    if (kw == NULL) {
        without_keywords++;
        return PyLong_FromLong(-1);
    }
    return PyLong_FromSsize_t(PyDict_Size(kw));
}

static PyObject *
calls_without_keywords(PyObject *self, PyObject *unused)
{
    return PyLong_FromLong(without_keywords);
}

static PyMethodDef methods[] = {
    {"count_kw", (PyCFunction)(void (*)(void))count_kw, METH_VARARGS | METH_KEYWORDS, NULL},
    {"calls_without_keywords", calls_without_keywords, METH_NOARGS, NULL},
    {NULL}
};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "kwfail", NULL, -1, methods};
PyMODINIT_FUNC PyInit_kwfail(void) { return PyModule_Create(&moddef); }
'''

SCRIPT = r"""
print([m.count_kw(1), m.count_kw(1, a=2, b=3), outcome(m.count_kw, **{f"k{i}": i for i in range(200)}),
       m.calls_without_keywords()])
"""


def test_a_failed_dict_returns_the_error_value():
    out = translate.translate_source(SRC)
    assert ("    if (cystck_migrate_kwargs_dict(S, args, nargs, &kw) < 0)\n        return -1;\n"
            "    if (Cystck_IsNull(kw))") in out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("kwfail", SRC)


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_the_dict_or_its_failure(built, run_script, debug):
    stock, ported = built
    expected = run_script(SCRIPT, stock)
    assert expected == [-1, 2, 200, 1]
    assert run_script(SCRIPT, ported, debug=debug) == expected
    # the dict's 201 handles pass the limit: its MemoryError, and the
    # method does not go on without keywords
    short = run_script(SCRIPT, ported, debug=debug, env={"CYSTCK_HANDLE_LIMIT": "17"})
    assert short[:2] == [-1, 2] and short[3] == 1
    assert short[2][0] == "MemoryError" and short[2][1].startswith("Cystck handle limit exceeded")
