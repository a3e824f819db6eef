"""Loops over more items than a call may hold handles (the handle limit):
tests/runtime/ext/st_bigloops.c, a stock extension that walks a dict
(PyDict_Next, the key replaced by a coerced copy) and a list (an item
read into a local of the body) calling a helper per item, and builds a
dict through an interning dict (PyDict_SetDefault's borrowed key taken
with Py_INCREF), gives the same results built as it is and as
cystck-migrate translates it, in release mode at the default limit and in
debug mode at a small one.  Before the loop-release rule and the
incref rule's move of a borrowed result, the translation raised
MemoryError (handle limit exceeded) on each of the three."""
import os
import subprocess
import sys

import pytest

DEFAULT_LIMIT = 1 << 20

SCRIPT = """
import sys
sys.path[:0] = {paths!r}
import st_bigloops, rt_bigloops
n = {n}
d = {{i: str(i) for i in range(n)}}
d["s"] = 0
l = list(range(n))
cases = {{"walk_dict": lambda m: m.walk_dict(d), "walk_list": lambda m: m.walk_list(l),
         "build_dict": lambda m: (len(m.build_dict(n)), m.build_dict(3))}}
for case, run in cases.items():
    got = []
    for m in (st_bigloops, rt_bigloops):
        try:
            got.append(run(m))
        except MemoryError as e:
            got.append("MemoryError")
    print(case, *got, sep="|")
"""


@pytest.fixture(scope="module")
def paths(stock_and_ported):
    st, rt = stock_and_ported("bigloops", ported_flags=["-Wall", "-Werror"])
    return [os.path.dirname(st.__file__), os.path.dirname(rt.__file__)]


@pytest.mark.parametrize("debug, limit", [("0", DEFAULT_LIMIT), ("1", 4096)])
def test_loops_past_the_handle_limit_as_stock(paths, debug, limit):
    n = limit + 64
    env = {"CYSTCK_DEBUG": debug, "CYSTCK_HANDLE_LIMIT": str(limit), "PATH": ""}
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(paths=paths, n=n)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    results = [line.split("|") for line in out.stdout.splitlines()]
    assert [r[0] for r in results] == ["walk_dict", "walk_list", "build_dict"]
    assert [(r[0], r[2]) for r in results if r[1] != r[2]] == []
