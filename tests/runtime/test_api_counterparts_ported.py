"""Differential: PyUnicode_FromWideChar, PyUnicode_AsWideChar,
PyUnicode_AsWideCharString, PyUnicode_GetDefaultEncoding, PyUnicode_Decode,
PyUnicode_AsUCS4(Copy), Py_ReprEnter/Py_ReprLeave, PySuper_Type,
PyArg_ValidateKeywordArguments and
exception constants (OSError's aliases PyExc_IOError and
PyExc_EnvironmentError, the less common builtin exceptions), and stock
names without objects the translator keeps (Py_UNICODE_IS_SURROGATE,
Py_BLOCK_THREADS), in tests/runtime/ext/st_api_counterparts.c, built stock
and as cystck-migrate translates it: the same results, the same
exceptions, the very same exception types; the translation keeps none of
them through the escape hatch."""
import builtins

import pytest

from cystck.migrate import translate
from differential import outcome


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("api_counterparts")


def test_the_translation_maps_every_call_and_constant(ext_dir):
    out = translate.translate_source((ext_dir / "st_api_counterparts.c").read_text())
    assert "escape hatch" not in out and "PyExc_" not in out and "PyUnicode_" not in out.replace(
        "PyUnicode_4BYTE_KIND", "")
    assert "Py_ReprEnter" not in out and "&PySuper_Type" not in out
    assert out.count("CystckExc_OSError") == 4


@pytest.mark.parametrize("s", ["", "abc", "h\u00e9llo", "\u20ac\U0001F600x", "a\0b", 42, b"abc"])
def test_wide_round_trip(exts, s):
    stock, ported = exts
    assert outcome(ported.wide_round_trip, s) == outcome(stock.wide_round_trip, s)


@pytest.mark.parametrize("s, size", [("abc", 8), ("abcdefghij", 4), ("\U0001F600\u20ac", 8),
                                     ("abc", 0), (None, 3), (b"abc", 3)])
def test_wide_into_buffer(exts, s, size):
    stock, ported = exts
    assert outcome(ported.wide_into_buffer, s, size) == outcome(stock.wide_into_buffer, s, size)


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


@pytest.mark.parametrize("args", [(b"abc", "ascii"), (b"h\xc3\xa9", "utf-8"), (b"\xe9", "latin-1"),
                                  (b"\xff", "ascii"), (b"\xff", "ascii", "replace"), (b"x", "no-such"),
                                  (b"\xff", "utf-8", "no-such-handler")])
def test_decode(exts, args):
    stock, ported = exts
    assert outcome(ported.decode, *args) == outcome(stock.decode, *args)


@pytest.mark.parametrize("s, size", [("abc", 8), ("", 1), ("h\u00e9\U0001F600", 4), ("abc", 3),
                                     ("abcdefghij", 8)])
def test_ucs4(exts, s, size):
    stock, ported = exts
    assert outcome(ported.ucs4, s, size) == outcome(stock.ucs4, s, size)


@pytest.mark.parametrize("o", [b"abc", 3, None])
def test_ucs4_of_an_object_that_is_no_str_raises(exts, o):
    # (the stock functions read it as a str: they crash, or not)
    _, ported = exts
    with pytest.raises(SystemError, match="CystckUnicode_AsUCS4Copy: argument of the wrong type"):
        ported.ucs4(o, 8)


def test_guarded_repr(exts):
    for ext in exts:
        class R:
            def __repr__(self):
                return "R(" + ext.guarded_repr(self) + ")"
        assert ext.guarded_repr(R()) == "R(...)"
    stock, ported = exts
    # list's repr guards itself with Py_ReprEnter too: the same guard
    assert ported.guarded_repr([1, 2]) == stock.guarded_repr([1, 2]) == "[...]"
    assert outcome(ported.guarded_repr, None) == outcome(stock.guarded_repr, None)


def test_super(exts):
    class A:
        def f(self):
            return "A"

    class B(A):
        def f(self):
            return "B"
    b = B()
    for ext in exts:
        s = ext.make_super(B, b)
        assert type(s) is super and s.f() == "A" and s.__self__ is b
    stock, ported = exts
    assert outcome(ported.make_super, B, 1) == outcome(stock.make_super, B, 1)


@pytest.mark.parametrize("c", [0x41, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0x1F600])
def test_code_point_tests(exts, c):
    stock, ported = exts
    assert ported.is_surrogate(c) == stock.is_surrogate(c)


@pytest.mark.parametrize("n", [0, 10, 1000, -1, "x"])
def test_gil_taken_back_to_raise(exts, n):
    stock, ported = exts
    assert outcome(ported.sum_below, n) == outcome(stock.sum_below, n)


@pytest.mark.parametrize("d", [{}, {"a": 1, "b": 2}, {"a": 1, 2: 3}, {b"a": 1}, [("a", 1)], None])
def test_valid_keywords(exts, d):
    stock, ported = exts
    assert outcome(ported.valid_keywords, d) == outcome(stock.valid_keywords, d)


@pytest.mark.parametrize("kw", [{}, {"a": 1}, {"a": 1, "b": 2}])
def test_keywords_of_a_keywords_method_validated(exts, kw):
    # (a METH_KEYWORDS method's dict, made from the names and values of a
    # CYSTCK_KEYWORDS call once translated)
    stock, ported = exts
    assert outcome(lambda: ported.count_keywords(1, 2, **kw)) == \
        outcome(lambda: stock.count_keywords(1, 2, **kw)) == len(kw)
