"""Cystck_BuildValue builds what Py_BuildValue builds from the same format
and arguments, handles standing for objects (tests/runtime/ext/rt_build_value.c
runs each case both ways), `u`/`u#` (a wchar_t buffer) included."""
import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def bv(build_rt):
    path = build_rt("rt_build_value")
    return load_extension("rt_build_value", path)


def test_build_value_matches_stock(bv):
    o = object()
    cystck, stock = bv.cases(o)
    # (the last case, an unknown unit, raises with a message of its own)
    assert cystck[:-1] == stock[:-1]


def test_wide_strings_are_built(bv):
    cystck, _ = bv.cases(object())
    text = "h\u00e9llo \u20ac\U0001F600"
    assert cystck[:6] == [text, text[:3], text, "", None, None]
    assert cystck[8] == {text: text[:2]}


def test_an_unknown_format_unit_is_a_system_error(bv):
    cystck, stock = bv.cases(object())
    assert cystck[-1][0] == stock[-1][0] == "SystemError"
