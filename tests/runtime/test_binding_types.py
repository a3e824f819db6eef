"""CystckFunction_Type, CystckCFunction_Type, CystckMethod_Type,
CystckClassMethod_Type, CystckStaticMethod_Type and CystckReversed_Type are
the types Python names so, and CystckCFunction_Check tells builtin
functions as PyCFunction_Check does; CystckObject_Id(S, h) is id(o) through
any handle; Cystck_GenericAlias makes what a generic class's
__class_getitem__ returns.  Run in release and debug mode."""
import subprocess
import sys

import pytest

SCRIPT = """
import sys, types
sys.path.insert(0, {path!r})
import rt_binding_types as m
assert m.types() == (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                     classmethod, staticmethod, reversed), m.types()
assert m.is_cfunction(len) and m.is_cfunction([].append) and m.is_cfunction(m.types)
assert not m.is_cfunction(lambda: 0) and not m.is_cfunction(42) and not m.is_cfunction(str.join)
o = object()
assert m.same_id(o) == id(o)
alias = m.Box[int]
assert isinstance(alias, types.GenericAlias) and alias.__origin__ is m.Box and alias.__args__ == (int,)
print("ok")
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_function_and_method_types(build_rt, debug):
    path = build_rt("rt_binding_types")
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(path=str(path.parent))],
                         capture_output=True, text=True, env={"CYSTCK_DEBUG": debug, "PATH": ""})
    assert out.stdout.strip() == "ok", out.stderr
