"""A module state's object members (Cystck_Refs once translated, stored by a
call, not during init) are released with the module: the stock extension
tests/runtime/ext/st_state_refs.c, built as it is and as cystck-migrate
translates it (the module-state-refs rule writes the traverse its
m_traverse/m_clear/m_free become), behaves the same."""
import gc
import subprocess
import sys
import weakref

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def paths(stock_and_ported):
    stock, ported = stock_and_ported("state_refs", ported_flags=["-Wall", "-Werror"])
    return {"st": stock.__file__, "rt": ported.__file__}


class Obj:
    pass


@pytest.mark.parametrize("kind", ["st", "rt"])
def test_released_when_the_module_is_freed(paths, kind):
    m = load_extension(f"{kind}_state_refs", paths[kind])
    obj = Obj()
    m.remember(obj)
    m.remember(Obj())              # kept: the first one stays
    assert m.recall() is obj
    alive = weakref.ref(obj)
    del obj
    gc.collect()
    assert alive() is not None
    sys.modules.pop(f"{kind}_state_refs", None)
    del m
    gc.collect()
    assert alive() is None


@pytest.mark.parametrize("kind", ["st", "rt"])
def test_a_cycle_through_the_state_is_collected(paths, kind):
    m = load_extension(f"{kind}_state_refs", paths[kind])
    obj = Obj()
    obj.module = m
    m.remember(obj)
    alive = weakref.ref(obj)
    del obj, m
    sys.modules.pop(f"{kind}_state_refs", None)
    gc.collect()
    assert alive() is None


def test_nothing_reported_at_exit_in_debug_mode(paths):
    code = ("from cystck.build import load_extension\n"
            f"m = load_extension('rt_state_refs', {paths['rt']!r})\n"
            "m.remember([1, 2])\nassert m.recall() == [1, 2]\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"CYSTCK_DEBUG": "1", "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert "never released" not in out.stderr
