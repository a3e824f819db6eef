"""Mistakes in slot definitions give one readable compile error."""
import shutil
import subprocess
import sysconfig

import pytest

import cystck

SNIPPET = """#include "Cystck.h"
typedef struct { long v; } Box;
CYSTCK_DEF_SLOT(Box_frob, tp_frobnicate, Box_frob_impl)
static int Box_frob_impl(Cystck_State *S, Cystck_Object self)
{
    return Cystck_Return(S, self);
}
CYSTCK_DEF_SLOT(Box_repr, tp_repr, Box_repr_impl)
static int Box_repr_impl(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_ReturnString(S, "Box");
}
static CystckDef *Box_defines[] = {&Box_frob, &Box_repr, NULL};
CystckType_Spec Box_spec = {"m.Box", sizeof(Box), 0, 0, Box_defines, NULL};
"""


def compile_errors(tmp_path, compiler, suffix, source):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    src = tmp_path / f"snippet{suffix}"
    src.write_text(source)
    out = subprocess.run([compiler, "-fsyntax-only", "-I", cystck.get_include(),
                          "-I", sysconfig.get_paths()["include"], str(src)],
                         capture_output=True, text=True)
    return out.returncode, [line for line in out.stderr.splitlines() if "error" in line]


@pytest.mark.parametrize("compiler, suffix", [("gcc", ".c"), ("g++", ".cpp")])
def test_an_unknown_slot_is_one_error_naming_it(tmp_path, compiler, suffix):
    returncode, errors = compile_errors(tmp_path, compiler, suffix, SNIPPET)
    assert returncode != 0
    assert len(errors) == 1, errors
    assert "tp_frobnicate" in errors[0] and "CYSTCK_DEF_SLOT" in errors[0]


@pytest.mark.parametrize("compiler, suffix", [("gcc", ".c"), ("g++", ".cpp")])
def test_known_slots_still_compile(tmp_path, compiler, suffix):
    source = SNIPPET.replace("tp_frobnicate", "tp_str")
    assert compile_errors(tmp_path, compiler, suffix, source) == (0, [])
