"""Differential: PyErr_Fetch and PyErr_Restore (CystckErr_Fetch and
CystckErr_Restore once translated) around a failing call: the same
exceptions, with the same messages, and no reference lost or leaked
(the restored exception is raised again many times)."""
import sys

import pytest


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("err_fetch")


class Custom(Exception):
    pass


def _outcome(ext, f):
    try:
        return ext.call_with_context(f)
    except Exception as e:       # the exception is part of the outcome
        return type(e), str(e), e.args


def raise_str():
    raise ValueError("bad")      # unnormalized from C, an instance here


def raise_custom():
    raise Custom(1, 2)


def raise_from_c():
    return int("x")


@pytest.mark.parametrize("f", [raise_str, raise_custom, raise_from_c, lambda: 42])
def test_same_as_stock(exts, f):
    stock, ported = exts
    assert _outcome(ported, f) == _outcome(stock, f)


def test_restored_exception_keeps_its_references(exts):
    _, ported = exts
    exc = Custom("kept")

    def raise_it():
        raise exc
    before = sys.getrefcount(exc)
    for _ in range(1000):
        with pytest.raises(Custom) as info:
            ported.call_with_context(raise_it)
        assert info.value is exc
        del info
    assert sys.getrefcount(exc) == before
