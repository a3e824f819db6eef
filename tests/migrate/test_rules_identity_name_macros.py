"""A macro that is its argument, ``#define F(name) name``, around an API
name: the use becomes the name, so the call is translated (before:
``F(PyTuple_GetItem)(t, 0)`` stayed a stock call on a handle, a compile
error); another definition of the macro is reported."""
from cystck.migrate import translate

COMMON_H = """#include <Python.h>
#ifdef FAULTS
#   include "faults.h"
#else
#   define F(name) name
#endif
"""

FAULTS_H = """#include <Python.h>
#define F(name) name##_custom
#define PyTuple_GetItem_custom(...) (fail() ? NULL : PyTuple_GetItem(__VA_ARGS__))
"""

MODULE_C = """#include <Python.h>
#include "common.h"
static PyObject *first(PyObject *self, PyObject *t)
{
    PyObject *item = F(PyTuple_GetItem)(t, 0);
    if (item == NULL)
        return NULL;
    return F(PyNumber_Index)(item);
}
static int twice(int n) { return F(helper)(n); }
"""


def test_api_calls_through_the_macro_are_translated():
    units = translate.translate_files({"common.h": COMMON_H, "faults.h": FAULTS_H, "module.c": MODULE_C})
    out = units["module.c"].text
    assert "F(Py" not in out
    assert "CystckTuple_GetItem(S, t, 0)" in out
    assert "CystckNumber_Index(S, item)" in out
    # another name through it stays
    assert "return F(helper)(n);" in out
    # the other definition is reported where it is
    notes = [n for n in units["faults.h"].finish_notes() if n.rule == "identity-name-macros"]
    assert len(notes) == 1 and notes[0].line == 2


def test_a_macro_that_is_not_its_argument_stays():
    other = MODULE_C.replace('#include "common.h"', "#define F(name) name##_v2")
    out = translate.translate_files({"module.c": other})["module.c"].text
    assert "F(PyTuple_GetItem)(t, 0)" in out
