"""Issue #2's rule for bad input, checked for the whole API table: every
function that takes a handle, given the null handle for each handle it
requires, returns its error value with an exception set and does not crash.

The test generates one extension from cystck/apitable.py: case i calls the
i-th such function with Cystck_NULL for its handles and harmless values for
everything else, then reports whether the result was the error value and
which exception was set.  The cases run in a child interpreter, so a crash
names the function that caused it instead of killing the test session.
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
}

# Hand-written functions whose error value is not gen_api.error_value's.
ERROR_VALUE = {
    # As PyDict_Next: 0 ends the loop, and the exception tells an error.
    "CystckDict_Next": "0",
    "CystckDict_NextInto": "0",
}

WARNINGS = ["-Wall", "-Wextra", "-Werror", "-Wno-unused-variable"]


def _required_handles(f):
    return [p for p in f.params if p.ctype in ("h", "h!")]


def cases():
    return [f for f in gen_api.parse() if _required_handles(f) and f.name not in NOT_AN_ERROR]


def _argument(p):
    """A harmless C expression for a parameter that is not a handle."""
    t = p.ctype
    if p.is_handle:
        return "Cystck_NULL"
    if t == "const char*":
        return '""' if p.name == "fmt" else '"x"'
    if t == "FILE*":
        return "stderr"
    if t == "PyObject*":
        return "Py_None"
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
    return f"r == {ERROR_VALUE.get(f.name) or gen_api.error_value(f.ret)}"


def _case(i, f):
    args = ", ".join(["S"] + [_argument(p) for p in f.params if p.ctype != "..."] +
                     (["Cystck_NULL"] if f.variadic else []))
    ret = "Cystck_Object" if f.ret == "h" else f.ret
    if f.ret == "void":
        body = f"{f.name}({args}); ok = 1;"
    else:
        body = f"{ret} r = {f.name}({args}); ok = {_check(f)};"
    return f'    case {i}: {{ name = "{f.name}"; {body} break; }}'


def render(functions):
    switch = "\n".join(_case(i, f) for i, f in enumerate(functions))
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
            if (Cystck_PushString(S, name) < 0 || Cystck_PushBool(S, ok) < 0 ||
                    Cystck_PushString(S, exc ? ((PyTypeObject *)exc)->tp_name : "") < 0)
                return -1;
            PyErr_Clear();
            return 3;
        }

        static CystckDef *defines[] = {&call_def, NULL};
        static CystckModuleDef module_def = {"null_handles", "null handles to every API function", 0, defines};
        CYSTCK_MODINIT(null_handles) { return Cystck_Return(S, CystckModule_Create(S, &module_def)); }
        """).replace("@SWITCH@", switch)


CHILD = """
import json, sys
from cystck.build import load_extension
m = load_extension("null_handles", sys.argv[1])
for i in range(int(sys.argv[2])):
    print(json.dumps(m.call(i)), flush=True)
"""


@pytest.fixture(scope="module")
def null_handles(build, tmp_path_factory):
    functions = cases()
    source = tmp_path_factory.mktemp("null_handles") / "null_handles.c"
    source.write_text(render(functions))
    return build("null_handles", [source], extra_compile_args=WARNINGS), functions


@pytest.mark.parametrize("debug", ["0", "1"], ids=["release", "debug"])
def test_every_function_given_null_handles_returns_its_error_value(null_handles, debug):
    path, functions = null_handles
    env = dict(os.environ, CYSTCK_DEBUG=debug)
    child = subprocess.run([sys.executable, "-c", CHILD, str(path), str(len(functions))],
                           capture_output=True, text=True, env=env, timeout=300)
    results = [json.loads(line) for line in child.stdout.splitlines()]
    if child.returncode != 0:
        pytest.fail(f"the interpreter died ({child.returncode}) in {functions[len(results)].name}:\n"
                    f"{child.stderr[-2000:]}")
    assert [r[0] for r in results] == [f.name for f in functions]
    wrong = [f"{name}: {'returned its error value' if ok else 'did not return its error value'}, "
             f"exception {exc or 'none'}" for name, ok, exc in results if not ok or exc != "SystemError"]
    assert not wrong, "\n".join(wrong)


def test_the_sweep_covers_most_of_the_table():
    # A guard against a parser change silently emptying the sweep.
    assert len(cases()) >= 200
