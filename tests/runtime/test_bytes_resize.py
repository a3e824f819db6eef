"""Differential: _PyBytes_Resize (a private function bitarray 3.12.3
calls on a handle's address, 4 --check errors) and CystckBytes_Resize,
which cystck-migrate translates it to: the same bytes, and the same
exception type on error (SystemError for an object that is no bytes or a
negative size; the message names the C file, so differs), in release and
with CYSTCK_DEBUG=1."""
import pytest

from cystck.build import load_extension
from differential import outcome

CASES = [
    ("repeat", (b"ab", 10, 4)), ("repeat", (b"xyz", 1000, 64)), ("repeat", (b"", 3, 8)),
    ("repeat", (b"q", 0, 16)),
    ("resize_to", (b"hello", 2)), ("resize_to", (b"hello", 8)), ("resize_to", (b"hello", 5)),
    ("resize_to", (b"hello", 0)), ("resize_to", (b"", 4)), ("resize_to", (b"hello", -1)),
    ("resize_other", ()),
]


def _outcome(ext, name, args):
    """outcome() of ext.NAME(*args) with the exception's type only (its
    message names the C file, so differs); a result is bytes, no tuple."""
    result = outcome(getattr(ext, name), *args)
    return result[0] if isinstance(result, tuple) else result


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("bytes_resize")


@pytest.mark.parametrize("name, args", CASES)
def test_same_as_stock(exts, name, args):
    stock, ported = exts
    assert _outcome(ported, name, args) == _outcome(stock, name, args)


def test_translated_to_the_counterpart():
    from cystck.migrate import translate
    from conftest import EXT
    out = translate.translate_source((EXT / "st_bytes_resize.c").read_text())
    assert "CystckBytes_Resize(S, out, CystckBytes_GET_SIZE(S, *out) + step)" in out
    assert "CystckBytes_Resize(S, &out, len)" in out
    assert "_PyBytes_Resize(" not in out


def run_all(paths):
    stock, ported = (load_extension(name, path) for name, path in paths)
    for name, args in CASES:
        assert _outcome(ported, name, args) == _outcome(stock, name, args), (name, args)


def test_same_in_debug_mode(exts, run_all_in_debug_mode):
    run_all_in_debug_mode("test_bytes_resize", [(m.__name__, m.__file__) for m in exts])
