"""Differential: a METH_VARARGS | METH_KEYWORDS method that gives its
keyword dict to a helper (``merge(self->id, into, kwds)``), built as it is
and as cystck-migrate translates it, called with the same keyword
arguments: the same dict afterwards, the same exceptions.  (The translated
method got the keyword names tuple where the helper reads a dict: a
SystemError, immutables' ``MapMutation.update(**kw)``.)"""
import pytest


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("kwargs_helper")


def _outcome(ext, extra, kwargs):
    into = {}
    try:
        r = ext.Mut().update(into, *extra, **kwargs)
    except Exception as e:       # the exception is part of the outcome
        return type(e), str(e), into
    return r, into


@pytest.mark.parametrize("extra, kwargs", [
    ((), {"z": 2}),
    ((), {}),
    ((), {"a": 1, "b": 2}),
    ((2,), {"a": 1}),             # too many positional arguments
])
def test_same_as_stock(exts, extra, kwargs):
    stock, ported = exts
    got, want = _outcome(ported, extra, kwargs), _outcome(stock, extra, kwargs)
    assert got == want
