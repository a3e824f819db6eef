"""Differential: type-specific API functions (list, tuple, bytes, str,
dict) given an object of another type (tests/runtime/ext/st_wrong_types.c,
stock and translated): the same value, or the same exception type and
message (CPython's SystemError "bad argument to internal function", or its
TypeError), in release and with CYSTCK_DEBUG=1.  PyDict_Contains crashes
stock (no type check); its counterpart raises SystemError."""
import pytest

from cystck.build import load_extension
from differential import outcome

NCASES = 22
STOCK_CRASHES = {18}         # PyDict_Contains
VALUES = [None, 1, "s", b"b", [], [1], (), (1,), {}, {None: 1}, bytearray(b"x")]


def fresh(v):
    return v.copy() if hasattr(v, "copy") else v


def differences(stock, ported):
    return [(i, v, outcome(stock.call, i, fresh(v)), outcome(ported.call, i, fresh(v)))
            for i in range(NCASES) if i not in STOCK_CRASHES for v in VALUES
            if outcome(stock.call, i, fresh(v)) != outcome(ported.call, i, fresh(v))]


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("wrong_types")


def test_same_as_stock(exts):
    assert differences(*exts) == []


def test_the_comparison_compares_something(exts):
    for m in exts:
        exc, msg = outcome(m.call, 0, None)     # CPython's file and line, then the message
        assert exc is SystemError and msg.endswith("bad argument to internal function")
        assert outcome(m.call, 8, "s") == (TypeError, "expected bytes, str found")
        assert outcome(m.call, 5, (1,)) == 1


def check_stock_crash_raises(ported):
    for v in VALUES:
        got = outcome(ported.call, 18, fresh(v))
        assert got in (0, 1) if isinstance(v, dict) else got[0] is SystemError, (v, got)


def test_where_stock_crashes_the_port_raises(exts):
    check_stock_crash_raises(exts[1])


def run_all(paths):
    stock, ported = (load_extension(name, path) for name, path in paths)
    assert differences(stock, ported) == []
    check_stock_crash_raises(ported)


def test_debug_mode(exts, run_all_in_debug_mode):
    run_all_in_debug_mode("test_wrong_types", [(m.__name__, m.__file__) for m in exts])
