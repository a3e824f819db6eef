"""Differential: PyUnicode_FromWideChar, PyUnicode_AsWideChar,
PyUnicode_AsWideCharString, PyUnicode_GetDefaultEncoding and exception
constants (OSError's aliases PyExc_IOError and PyExc_EnvironmentError, the
less common builtin exceptions) in tests/runtime/ext/st_api_counterparts.c,
built stock and as cystck-migrate translates it: the same results, the
same exceptions, the very same exception types; the translation keeps
none of them through the escape hatch."""
import builtins

import pytest

from cystck.migrate import translate
from conftest import EXT


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("api_counterparts")


def _outcome(f, *args):
    try:
        return f(*args)
    except Exception as e:       # the exception is part of the outcome
        return type(e), str(e)


def test_the_translation_maps_every_call_and_constant():
    out = translate.translate_source((EXT / "st_api_counterparts.c").read_text())
    assert "escape hatch" not in out and "PyExc_" not in out and "PyUnicode_" not in out
    assert out.count("CystckExc_OSError") == 4


@pytest.mark.parametrize("s", ["", "abc", "h\u00e9llo", "\u20ac\U0001F600x", "a\0b", 42, b"abc"])
def test_wide_round_trip(exts, s):
    stock, ported = exts
    assert _outcome(ported.wide_round_trip, s) == _outcome(stock.wide_round_trip, s)


@pytest.mark.parametrize("s, size", [("abc", 8), ("abcdefghij", 4), ("\U0001F600\u20ac", 8),
                                     ("abc", 0), (None, 3), (b"abc", 3)])
def test_wide_into_buffer(exts, s, size):
    stock, ported = exts
    assert _outcome(ported.wide_into_buffer, s, size) == _outcome(stock.wide_into_buffer, s, size)


def test_wide_literal_and_default_encoding(exts):
    stock, ported = exts
    assert ported.wide_literal() == stock.wide_literal() == "h\u00e9 \u20ac"
    assert ported.default_encoding() == stock.default_encoding() == "utf-8"


def test_oserror_aliases(exts):
    stock, ported = exts
    for ext in exts:
        with pytest.raises(OSError, match="^disk$"):
            ext.raise_io_error("disk")
    for e in (OSError("x"), FileNotFoundError(), ValueError()):
        assert ported.is_environment_error(e) is stock.is_environment_error(e)


def test_exception_constants_are_the_builtin_types(exts):
    stock, ported = exts
    got, want = ported.exceptions(), stock.exceptions()
    assert len(got) == len(want) == 34
    assert all(a is b for a, b in zip(got, want))
    assert got[0] is got[1] is OSError
    assert all(t is getattr(builtins, t.__name__) for t in got)
