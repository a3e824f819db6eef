"""Issue #2's rule for bad input, checked for the whole API table.

* Every function that takes a handle, given the null handle for each handle
  it requires, returns its error value with an exception set.
* No function that checks its arguments crashes when its handles hold an
  object of the wrong type (None): it raises or returns a value, as the
  stock function does.  The unchecked ones, like the stock macros they
  mirror, are left out.

Each test generates one extension from cystck/apitable.py: case i calls the
i-th function with those handles and harmless values for everything else,
then reports whether the result was the error value and which exception was
set.  The cases run in a child interpreter, so a crash names the function
that caused it instead of killing the test session.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from cystck import gen_api

# Functions for which a null handle is not an error, and why.
NOT_AN_ERROR = {
    "Cystck_IsNull": "asks whether the handle is null",
    "Cystck_Is": "compares handles; two null handles are the same",
    "Cystck_Drop": "releasing the null handle is a no-op (like Py_XDECREF)",
    "CystckField_Load": "the field is read from f, owner only names its holder; an empty field "
                        "gives the null handle with no exception",
    "CystckField_Store": "the field is written through f, owner only names its holder; "
                         "storing the null handle empties the field",
}

# Hand-written functions whose error value is not gen_api.function_error_value's.
ERROR_VALUE = {
    # As PyDict_Next: 0 ends the loop, and the exception tells an error.
    "CystckDict_Next": "0",
    "CystckDict_NextInto": "0",
    # An address: 0 is no object's (as Cystck_AsPyObject's NULL), -1 could be one.
    "CystckObject_Id": "0",
    # Read as truth values or bit sets by stock code, whose counterparts
    # cannot fail: 0 ("not set", "no flags", "another function"), the
    # exception tells an error.
    "CystckType_HasFeature": "0",
    "CystckType_GetFlags": "0",
    "CystckCFunction_IsDef": "0",
    "CystckArg_ValidateKeywordArguments": "0",
    # As PyArg_ParseTuple: 0 on failure.
    "CystckArg_ParseTupleObject": "0",
    "CystckArg_ParseTupleAndKeywordsObject": "0",
}

WARNINGS = ["-Wall", "-Wextra", "-Werror", "-Wno-unused-variable"]


def _required_handles(f):
    return [p for p in f.params if p.ctype in ("h", "h!")]


def cases():
    return [f for f in gen_api.parse() if _required_handles(f) and f.name not in NOT_AN_ERROR]


# Functions that return their error value for a null handle with no
# exception set, when none is: the null handle is what a failed call gave.
NO_EXCEPTION = {
    "Cystck_Return": "stock's `return NULL;` with no exception set: the trampoline "
                     "reports it as CPython does (tests/runtime/test_result_errors.py)",
}


# Hand-written functions that, like the stock macros they mirror (flag
# "macro" in the table), do not check the type of what they get.
UNCHECKED = {"CystckList_GetItemInto", "CystckTuple_GetItemInto"}


def checked_cases():
    return [f for f in cases() if "macro" not in f.flags and f.name not in UNCHECKED]


def _argument(p, handle):
    """A C expression for a parameter: handle for a handle, else harmless."""
    t = p.ctype
    if p.is_handle:
        return handle
    if t == "const char*":
        return '""' if p.name == "fmt" else '"x"'
    if t == "FILE*":
        return "stderr"
    if t == "PyObject*":
        return "Py_None"
    if t == "Cystck_Field":
        return "(Cystck_Field){NULL}"
    if t == "Cystck_Scope":
        return "Cystck_OpenScope(S)"
    if t in ("Cystck_Ref", "CystckMem_Finalizer", "PyCapsule_Destructor"):
        return "NULL"
    if t.endswith("*"):
        return f"({t})(void *)zeroes"   # a zeroed buffer of ample size
    if t in ("double", "float"):
        return "0.0"
    return f"({t})0"


def _check(f):
    """The C condition that r is f's error value."""
    if f.ret == "h":
        return "Cystck_IsNull(r)"
    return f"r == {ERROR_VALUE.get(f.name) or gen_api.function_error_value(f)}"


def _case(i, f, handle):
    # A variadic list of handles ends with the null handle.
    args = ", ".join(["S"] + [_argument(p, handle) for p in f.params if p.ctype != "..."] +
                     (["Cystck_NULL"] if f.variadic else []))
    ret = "Cystck_Object" if f.ret == "h" else f.ret
    if f.ret == "void":
        body = f"{f.name}({args}); ok = 1;"
    else:
        body = f"{ret} r = {f.name}({args}); ok = {_check(f)};"
    return f'    case {i}: {{ name = "{f.name}"; {body} break; }}'


def render(functions, module, handle):
    switch = "\n".join(_case(i, f, handle) for i, f in enumerate(functions))
    return textwrap.dedent("""\
        #include "Cystck.h"
        #include <stdio.h>

        static _Alignas(16) char zeroes[4096];

        CYSTCK_DEF_METH(call_def, "call", call, CYSTCK_O,
                        "call(i) -> (function name, returned its error value, exception type name)")
        static int call(Cystck_State *S, Cystck_Object self, Cystck_Object index)
        {
            const char *name = "";
            int ok = 0;
            PyObject *exc;
            (void)self;
            switch (CystckLong_AsLong(S, index)) {
        @SWITCH@
            default:
                CystckErr_SetString(S, CystckExc_IndexError, "no such case");
                return -1;
            }
            exc = PyErr_Occurred();
            while (Cystck_StackSize(S) > 0)     /* what a push function pushed */
                Cystck_Drop(S, Cystck_Pop(S));
            if (Cystck_PushString(S, name) < 0 || Cystck_PushBool(S, ok) < 0 ||
                    Cystck_PushString(S, exc ? ((PyTypeObject *)exc)->tp_name : "") < 0)
                return -1;
            PyErr_Clear();
            return 3;
        }

        static CystckDef *defines[] = {&call_def, NULL};
        static CystckModuleDef module_def = {"@MODULE@", "bad handles to every API function", 0, defines};
        CYSTCK_MODINIT(@MODULE@) { return Cystck_Return(S, CystckModule_Create(S, &module_def)); }
        """).replace("@SWITCH@", switch).replace("@MODULE@", module)


CHILD = """
import json, sys
from cystck.build import load_extension
m = load_extension(sys.argv[1], sys.argv[2])
for i in range(int(sys.argv[3])):
    print(json.dumps(m.call(i)), flush=True)
"""


def sweep(build, tmp_path_factory, module, functions, handle, debug="0"):
    """Run every case in a child interpreter: [(name, ok, exception)]."""
    source = tmp_path_factory.mktemp(module) / f"{module}.c"
    source.write_text(render(functions, module, handle))
    path = build(module, [source], extra_compile_args=WARNINGS)
    env = dict(os.environ, CYSTCK_DEBUG=debug)
    child = subprocess.run([sys.executable, "-c", CHILD, module, str(path), str(len(functions))],
                           capture_output=True, text=True, env=env, timeout=300)
    results = [json.loads(line) for line in child.stdout.splitlines()]
    if child.returncode != 0:
        pytest.fail(f"the interpreter died ({child.returncode}) in {functions[len(results)].name}:\n"
                    f"{child.stderr[-2000:]}")
    assert [r[0] for r in results] == [f.name for f in functions]
    return results


@pytest.mark.parametrize("debug", ["0", "1"], ids=["release", "debug"])
def test_every_function_given_null_handles_returns_its_error_value(build, tmp_path_factory, debug):
    results = sweep(build, tmp_path_factory, "null_handles", cases(), "Cystck_NULL", debug)
    wrong = [f"{name}: {'returned its error value' if ok else 'did not return its error value'}, "
             f"exception {exc or 'none'}" for name, ok, exc in results
             if not ok or exc != ("" if name in NO_EXCEPTION else "SystemError")]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("debug", ["0", "1"], ids=["release", "debug"])
def test_no_checked_function_crashes_on_an_object_of_the_wrong_type(build, tmp_path_factory, debug):
    results = sweep(build, tmp_path_factory, "wrong_types", checked_cases(), "Cystck_None", debug)
    # What each returns is the stock function's business (None has a repr,
    # is not a dict...), except where the table adds a type check that the
    # stock function lacks (check=...): there, SystemError.
    by_name = {name: (ok, exc) for name, ok, exc in results}
    added = [f.name for f in checked_cases() if any(fl.startswith("check=") for fl in f.flags)]
    assert added
    assert {name: by_name[name] for name in added} == {name: (True, "SystemError") for name in added}


def test_the_sweeps_cover_most_of_the_table():
    # A guard against a parser change silently emptying them.
    assert len(cases()) >= 200 and len(checked_cases()) >= 180


def test_predicates_that_cannot_fail_answer_false_after_an_invalid_handle():
    # `if (!PyList_Check(o))` and `if (Py_TYPE(o) != T)` translate to tests of
    # the truth value: -1 there would read as "is a list", "is a T".  The
    # sweep above checks that each function returns the value named here.
    by_name = {f.name: f for f in gen_api.parse()}
    for name in ("CystckList_Check", "CystckTuple_CheckExact", "Cystck_TypeIs", "CystckObject_TypeCheck",
                 "CystckCallable_Check", "CystckMapping_HasKey", "CystckCapsule_IsValid"):
        assert gen_api.function_error_value(by_name[name]) == "(int)0", name
    # Questions CPython's counterparts can fail keep -1.
    for name in ("CystckObject_IsInstance", "CystckDict_Contains", "CystckObject_IsTrue", "CystckDate_Check"):
        assert gen_api.function_error_value(by_name[name]) == "(int)-1", name
