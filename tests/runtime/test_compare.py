"""CystckUnicode_Compare, CystckUnicode_Tailmatch and
CystckErr_WriteUnraisable behave as the stock functions they wrap: the
results Python's own comparisons and str.startswith/endswith give, the
same TypeError, and the unraisable hook called with the exception and the
object."""
import sys

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_compare", build_rt("rt_compare"))


@pytest.mark.parametrize("a,b", [("a", "b"), ("b", "a"), ("\u00e9t\u00e9", "\u00e9t\u00e9"), ("", "x"),
                                 ("\U0001f600", "\uffff")])
def test_compare_orders_as_python(ext, a, b):
    assert ext.compare(a, b) == (a > b) - (a < b)


def test_compare_of_no_str_raises(ext):
    with pytest.raises(TypeError):
        ext.compare("a", 1)


@pytest.mark.parametrize("s,sub,start,end", [("wrapper", "wrap", 0, 7), ("wrapper", "per", 0, 7),
                                             ("wrapper", "rap", 1, 4), ("", "", 0, 0), ("ab", "abc", 0, 2)])
def test_tailmatch_is_startswith_and_endswith(ext, s, sub, start, end):
    assert ext.tailmatch(s, sub, start, end, -1) == s.startswith(sub, start, end)
    assert ext.tailmatch(s, sub, start, end, 1) == s.endswith(sub, start, end)


def test_tailmatch_of_no_str_raises(ext):
    with pytest.raises(TypeError):
        ext.tailmatch("a", 1, 0, 1, 1)


def test_write_unraisable_reports_and_clears(ext, monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    marker = object()
    assert ext.unraisable("lost", marker) is None
    assert ext.unraisable("no object") is None
    assert [(type(u.exc_value), str(u.exc_value)) for u in seen] == [(ValueError, "lost"), (ValueError, "no object")]
    assert seen[0].object is marker and seen[1].object is None
