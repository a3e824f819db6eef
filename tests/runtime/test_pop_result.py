"""Cystck_PopResult(S, pushed): the result of an implementation called
directly from C (what the translator writes for a stock entry point
called by another function), from the count it returned: the value it
pushed, None for none, its exception for -1, and a SystemError with the
values dropped (no reference left behind) for more than one."""
import sys

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_pop_result", build_rt("rt_pop_result"))


def test_one_value_pushed_is_the_result(ext):
    o = object()
    assert ext.call(1, o) is o
    assert ext.stack_after() == 0


def test_nothing_pushed_is_none(ext):
    assert ext.call(0, object()) is None
    assert ext.stack_after() == 0


def test_an_error_keeps_its_exception(ext):
    with pytest.raises(ValueError, match="the implementation failed"):
        ext.call(-1, object())
    assert ext.stack_after() == 0


@pytest.mark.parametrize("n", [2, 5])
def test_several_values_are_a_system_error_and_dropped(ext, n):
    o = object()
    before = sys.getrefcount(o)
    with pytest.raises(SystemError, match=f"pushed {n} values"):
        ext.call(n, o)
    assert ext.stack_after() == 0
    assert sys.getrefcount(o) == before
