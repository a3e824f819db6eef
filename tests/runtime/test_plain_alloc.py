"""A type of one extension subclassed by a type of another
(tests/runtime/ext/rt_plain_base.c, rt_sub_of_other.c, st_alloc_base.c).
Each extension has its own copy of the runtime, so of _Cystck_PlainAlloc,
the allocator that marks the plain types Cystck_New allocates inline.  A
GC subtype inherited the base extension's copy, which its own
CystckType_FromSpec did not recognise, so the base's tp_new, with the base
extension's Cystck_New, allocated instances of the GC subtype inline,
without their GC header: the process crashed."""
import os
import subprocess
import sys

import pytest

SCRIPT = """
import gc, sys
sys.path[:0] = {paths!r}
import rt_plain_base, rt_sub_of_other, st_alloc_base
which = sys.argv[1]
if which == "gc":
    # the base's tp_new makes the instance; each keeps itself (a cycle that
    # only the collector frees)
    Sub = rt_sub_of_other.subclass(rt_plain_base.Base, True)
    gc.collect()
    gc.disable()
    for i in range(1000):
        o = Sub()
        assert type(o) is Sub and o.n == 7
        o.keep(o)
        del o
    print(gc.collect() >= 1000)
elif which == "plain":
    Sub = rt_sub_of_other.subclass(rt_plain_base.Base, False)
    print(all(type(o) is Sub and o.n == 7 for o in [Sub() for i in range(1000)]))
else:
    # a stock base's own allocator is inherited and kept
    Sub = rt_sub_of_other.subclass(st_alloc_base.Base, True)
    before = st_alloc_base.allocations()
    objs = [Sub() for i in range(10)]
    for o in objs:
        o.keep(o)
    print(st_alloc_base.allocations() - before == 10)
"""


@pytest.fixture(scope="module")
def paths(build, build_rt):
    stock = build("st_alloc_base", [os.path.join(os.path.dirname(__file__), "ext", "st_alloc_base.c")],
                  use_cystck=False, extra_compile_args=["-Wall", "-Werror"])
    return sorted({os.path.dirname(p) for p in (build_rt("rt_plain_base"), build_rt("rt_sub_of_other"), stock)})


def run(paths, which):
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(paths=paths), which],
                         capture_output=True, text=True, timeout=120)
    return out.returncode, out.stdout.strip(), out.stderr[-2000:]


def test_gc_subtype_of_another_extensions_plain_type(paths):
    """Instances of a GC type whose base, a plain type of another
    extension, makes them (its tp_new): allocated with the GC header,
    collected in cycles.  Before the fix: a crash."""
    assert run(paths, "gc") == (0, "True", "")


def test_plain_subtype_of_another_extensions_plain_type(paths):
    """A plain subtype stays plain, allocated by the base's tp_new."""
    assert run(paths, "plain") == (0, "True", "")


def test_stock_base_keeps_its_own_allocator(paths):
    """An allocator that is no Cystck extension's plain one is inherited
    as it is."""
    assert run(paths, "stock") == (0, "True", "")
