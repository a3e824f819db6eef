"""Cystck_New's inline path for a plain type (CystckType_FromSpec's types
without fields, GC or weak references) writes out _PyObject_New's steps
(_Cystck_PlainNew, include/cystck/runtime_api.h): the memory, the type,
the heap type's reference, the new reference (and tracemalloc's record).
Each is checked here on rt_dealloc's Lean, whose tp_new makes its instances
there, in release and debug mode: a new instance has one reference, holds
one on its type, is traced by tracemalloc where it is made, and an
allocation that fails raises MemoryError."""
import subprocess
import sys

import pytest

SCRIPT = """
import sys, tracemalloc, _testcapi
sys.path.insert(0, {path!r})
from rt_dealloc import Lean

before = sys.getrefcount(Lean)
objs = [Lean(float(i)) for i in range(10)]
assert [o.x for o in objs] == [float(i) for i in range(10)]
assert all(sys.getrefcount(o) == 3 for o in objs), [sys.getrefcount(o) for o in objs]  # objs, o, the call
assert sys.getrefcount(Lean) == before + 10
del objs
assert sys.getrefcount(Lean) == before

tracemalloc.start()
o = Lean(2.5); line = sys._getframe().f_lineno
tb = tracemalloc.get_object_traceback(o)
tracemalloc.stop()
assert tb is not None and tb[0].lineno == line, tb

x = 1.5
_testcapi.set_nomemory(0, 1)   # the next allocation fails: the instance
try:
    Lean(x)
except MemoryError:
    got = "MemoryError"
else:
    got = "no error"
finally:
    _testcapi.remove_mem_hooks()
assert got == "MemoryError", got
assert sys.getrefcount(Lean) == before + 1   # o
print("ok")
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_plain_instances_are_what_pyobject_new_makes(build_rt, debug):
    path = build_rt("rt_dealloc")
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(path=str(path.parent))],
                         capture_output=True, text=True, env={"CYSTCK_DEBUG": debug, "PATH": ""})
    assert out.stdout.strip() == "ok", out.stderr
