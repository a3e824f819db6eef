"""CystckUnicode_FromFormatV formats the arguments a variadic function hands
on exactly as PyUnicode_FromFormatV does, with handles for %S %R %A
(tests/runtime/ext/rt_format_v.c runs each format both ways)."""
import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def fmtv(build_rt):
    path = build_rt("rt_format_v")
    return load_extension("rt_format_v", path)


def test_from_format_v_matches_stock(fmtv):
    c1, s1, c2, s2 = fmtv.both("h\u00e9llo \u20ac", (1, "k"))
    assert (c1, c2) == (s1, s2)
    assert c2 == "when serializing dict item (1, 'k') (7)"


def test_the_null_handle_is_an_error_not_a_crash(fmtv):
    with pytest.raises(SystemError, match="CystckUnicode_FromFormatV"):
        fmtv.null()
