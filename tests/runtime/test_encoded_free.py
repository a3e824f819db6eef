"""Differential: the buffers of the encoded-string units (es et es# et#)
when a later value of the same call fails to convert
(tests/runtime/ext/st_encoded_free.c, stock and translated): the same
exception and message as stock, and the buffer freed (CPython's freelist;
the runtime's ParseArgs): the allocated blocks do not grow over a loop of
failing calls, in release and with CYSTCK_DEBUG=1."""
import sys

import pytest

from cystck.build import load_extension
from differential import outcome

CASES = [
    ("es_then_int", ("abc", 3), {}), ("es_then_int", ("abc", "x"), {}),
    ("es_then_int", ("é" * 40, None), {}), ("es_then_int", (1, 2), {}),
    ("et_size_then_float", ("abc", "de", 1.5), {}), ("et_size_then_float", ("abc", "de", "x"), {}),
    ("et_size_then_float", (b"abc", "\u20ac", 1.0), {}),
    ("et_size_then_float", ("a" * 100, "b" * 100), {"x": "no"}),
    ("et_size_then_float", ("a" * 100,), {"t": "b" * 100, "x": []}),
    ("long_then_es", (2 ** 70, "abc"), {}), ("long_then_es", (1, "abc", "x"), {}),
    ("long_then_es", (1, "abc", 2.5), {}), ("long_then_es", (1,), {"s": "abc", "x": "no"}),
    ("long_then_es", (), {"n": 2 ** 70, "s": "abc"}), ("long_then_es", (), {"n": 3, "s": "é", "x": 1.0}),
]


def compare(stock, ported, name, args, kwargs):
    expected = outcome(getattr(stock, name), *args, **kwargs)
    got = outcome(getattr(ported, name), *args, **kwargs)
    return None if got == expected else (name, args, kwargs, expected, got)


def growth(f, *args, **kwargs):
    """Allocated blocks gained over 2000 failing calls (a leaked buffer is
    one block per call: small ones come from pymalloc)."""
    for _ in range(50):
        outcome(f, *args, **kwargs)
    before = sys.getallocatedblocks()
    for _ in range(2000):
        outcome(f, *args, **kwargs)
    return sys.getallocatedblocks() - before


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("encoded_free")


@pytest.mark.parametrize("name, args, kwargs", CASES)
def test_same_as_stock(exts, name, args, kwargs):
    assert compare(*exts, name, args, kwargs) is None


def check_no_leak(m):
    assert growth(m.es_then_int, "abc" * 10, "x") < 200
    assert growth(m.et_size_then_float, "a" * 50, "b" * 50, "x") < 200
    assert growth(m.et_size_then_float, "a" * 50, t="b" * 50, x=None) < 200
    assert growth(m.long_then_es, 1, "a" * 50, "x") < 200
    assert growth(m.long_then_es, 1, s="a" * 50, x="x") < 200
    assert growth(m.long_then_es, 2 ** 70, "a" * 50) < 200


def test_buffers_freed_when_a_later_value_fails(exts):
    for m in exts:
        check_no_leak(m)


def run_all(paths):
    stock, ported = (load_extension(name, path) for name, path in paths)
    for name, args, kwargs in CASES:
        assert compare(stock, ported, name, args, kwargs) is None
    check_no_leak(ported)


def test_debug_mode(exts, run_all_in_debug_mode):
    run_all_in_debug_mode("test_encoded_free", [(m.__name__, m.__file__) for m in exts])
