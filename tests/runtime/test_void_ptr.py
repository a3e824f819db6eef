"""Differential: PyLong_AsVoidPtr and PyLong_FromVoidPtr of a C pointer,
stock and as cystck-migrate translates them (CystckLong_AsVoidPtr,
CystckLong_FromPointer; before T49 both were escape hatches): the same
ints, exception types and messages, in release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.build import load_extension
from differential import outcome


class Index:
    def __index__(self):
        return 7

    def __repr__(self):     # a stable test id: xdist's workers must collect the same names
        return "Index()"


CASES = [0, 1, 4096, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -1, -2**63, -2**63 - 1, True, 3.5, "x", None, Index()]


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("void_ptr")


@pytest.mark.parametrize("value", CASES, ids=repr)
def test_roundtrip_same_as_stock(exts, value):
    stock, ported = exts
    assert outcome(ported.roundtrip, value) == outcome(stock.roundtrip, value)


def test_addresses_same_as_stock(exts):
    stock, ported = exts
    assert ported.addresses() == stock.addresses() == (5, 0)


def test_translated_to_the_counterparts():
    from cystck.migrate import translate
    from conftest import EXT
    out = translate.translate_source((EXT / "st_void_ptr.c").read_text())
    assert "CystckLong_AsVoidPtr(S, o)" in out and "CystckLong_FromPointer(S, p)" in out
    assert "cystck-migrate: escape hatch" not in out and "PyLong_FromVoidPtr(" not in out


def run_all(paths):
    stock, ported = (load_extension(name, path) for name, path in paths)
    for value in CASES:
        assert outcome(ported.roundtrip, value) == outcome(stock.roundtrip, value), value
    assert ported.addresses() == stock.addresses()


def test_same_in_debug_mode(exts, run_all_in_debug_mode):
    run_all_in_debug_mode("test_void_ptr", [(m.__name__, m.__file__) for m in exts])
