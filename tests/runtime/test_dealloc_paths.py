"""Deallocation of types without fields (not GC), through the rt_dealloc
test extension: the runtime's plain dealloc (Lean) and the destructor
trampoline's inline path (Husk) test for a finalizer, GC and weak references
before they free.  Each scenario takes one of their branches: a finalizer
given to the type after it was made (resurrecting its object once), Python
subclasses, weak references, an instance whose death frees its class.
Every instance of a heap type holds a reference to it: each scenario checks
that they are released.  Run in release and debug mode."""
import subprocess
import sys

import pytest

SCRIPT = """
import gc, sys, weakref
sys.path.insert(0, {path!r})
import rt_dealloc
from rt_dealloc import Lean, Husk

def balanced(cls, make, n=50):
    # Instances die on their last reference and release their type.
    before = sys.getrefcount(cls)
    objs = [make() for _ in range(n)]
    assert sys.getrefcount(cls) == before + n, (cls, sys.getrefcount(cls), before)
    del objs
    gc.collect()
    assert sys.getrefcount(cls) == before, (cls, sys.getrefcount(cls), before)

def destroyed(run):
    before = rt_dealloc.husks_destroyed()
    run()
    return rt_dealloc.husks_destroyed() - before

assert destroyed(lambda: balanced(Lean, lambda: Lean(1.5))) == 0
assert destroyed(lambda: balanced(Husk, lambda: Husk(2))) == 50

# Python subclasses (GC types, as CPython makes every class): with
# __slots__ = () (no __dict__, no weak references) and without.
for ns in ({{"__slots__": ()}}, {{}}):
    SubLean = type("SubLean", (Lean,), dict(ns))
    SubHusk = type("SubHusk", (Husk,), dict(ns))
    assert destroyed(lambda: balanced(SubLean, lambda: SubLean(3.0))) == 0
    assert destroyed(lambda: balanced(SubHusk, lambda: SubHusk(4))) == 50
h = SubHusk(5)
r = weakref.ref(h)
assert destroyed(lambda: globals().pop("h")) == 1 and r() is None

# An instance holding the last reference to its class: the cycle collector
# clears the class first (its dict and MRO), then the instance's dict, and
# the instance's death frees the class, after the instance's memory.  Only
# freeing the class releases its base (tp_base, tp_bases); a weak reference
# would read None as soon as the count is 0.
for base in (Lean, Husk):
    gc.collect()
    before = sys.getrefcount(base)
    Sub = type("Sub", (base,), {{}})
    o = Sub(1)
    o.me, o.cls = o, Sub
    del Sub, o
    assert destroyed(gc.collect) == (base is Husk)
    assert sys.getrefcount(base) == before, (base, sys.getrefcount(base), before)

# A finalizer given to the type after it was made (tp_finalize set on the
# type, which the deallocs test first): it runs before anything is freed,
# and the object it resurrects lives on, holding its type.  (Whether a
# non-GC object's finalizer runs again at its next death is CPython's
# PyObject_CallFinalizer's business, not asserted here.)
def resurrect_once(cls, make, field):
    calls, kept = [], []
    def __del__(self):
        calls.append(getattr(self, field))
        if len(calls) == 1:
            kept.append(self)
    cls.__del__ = __del__
    try:
        before = sys.getrefcount(cls)
        o = make()
        del o
        assert calls == [getattr(kept[0], field)] and len(kept) == 1, (calls, kept)
        assert sys.getrefcount(cls) == before + 1
        kept.clear()
        gc.collect()
        assert sys.getrefcount(cls) == before and calls[0] == calls[-1], calls
    finally:
        del cls.__del__

assert destroyed(lambda: resurrect_once(Lean, lambda: Lean(6.5), "x")) == 0
assert destroyed(lambda: resurrect_once(Husk, lambda: Husk(7), "n")) == 1
# The finalizer removed again: the inline paths once more.
assert destroyed(lambda: balanced(Husk, lambda: Husk(8))) == 50
balanced(Lean, lambda: Lean(9.0))
print("ok")
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_types_without_fields_free_finalize_and_release_their_type(build_rt, debug):
    path = build_rt("rt_dealloc")
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(path=str(path.parent))],
                         capture_output=True, text=True, env={"CYSTCK_DEBUG": debug, "PATH": ""})
    assert out.stdout.strip() == "ok", out.stderr


C_SUBCLASSES = """
import gc, sys, weakref
sys.path.insert(0, {path!r})
import rt_dealloc
from rt_dealloc import Husk, SubHusk, WeakHusk

def deaths(make, n=20):
    gc.collect()
    before, refs = rt_dealloc.husks_destroyed(), sys.getrefcount(type(make()))
    gc.collect()
    objs = [make() for _ in range(n)]
    del objs
    gc.collect()
    assert sys.getrefcount(type(make())) == refs
    return rt_dealloc.husks_destroyed() - before - 2   # the two probes above

assert not gc.is_tracked(SubHusk(1)) and gc.is_tracked(WeakHusk(1))
assert deaths(lambda: SubHusk(3)) == 20
assert deaths(lambda: WeakHusk(4)) == 20
w = WeakHusk(5)
r = weakref.ref(w)
before = rt_dealloc.husks_destroyed()
del w
assert r() is None and rt_dealloc.husks_destroyed() == before + 1
# A Python subclass of a C subclass: subtype_dealloc, then the inherited one.
Py = type("Py", (WeakHusk,), {{}})
assert deaths(lambda: Py(6)) == 20
print("ok")
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_c_subclasses_without_a_deallocator_run_their_base_destructor(build_rt, debug):
    # A stock C subclass without tp_dealloc inherits its base's: the base's
    # destructor ran for none of these before (docs/gaps.md, T50).
    path = build_rt("rt_dealloc")
    out = subprocess.run([sys.executable, "-c", C_SUBCLASSES.format(path=str(path.parent))],
                         capture_output=True, text=True, env={"CYSTCK_DEBUG": debug, "PATH": ""})
    assert out.stdout.strip() == "ok", out.stderr

