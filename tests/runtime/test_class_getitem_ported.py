"""Differential: a stock type whose method table has METH_CLASS methods,
``__class_getitem__`` = ``Py_GenericAlias`` inside a version conditional,
and an entry compiled out by ``#ifdef``, built as it is and as
cystck-migrate translates it (Cystck_GenericAlias, CYSTCK_DEF_METH_FLAGS,
the conditionals kept around the definitions): the same results."""
import types

import pytest


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("class_getitem", ["-Wall", "-Werror"])


def _outcome(f):
    try:
        r = f()
    except Exception as e:       # the exception is part of the outcome
        return type(e), str(e)
    if isinstance(r, types.GenericAlias):
        return type(r), r.__origin__.__name__, r.__args__
    return r


@pytest.mark.parametrize("call", [
    lambda B: B[int],
    lambda B: B[int, str],
    lambda B: B.__class_getitem__(()),
    lambda B: B().__class_getitem__(int),     # bound to the class, not the instance
    lambda B: B.kind(),
    lambda B: B().kind(),
    lambda B: type(B.__dict__["__class_getitem__"]).__name__,
    lambda B: hasattr(B, "extra"),             # compiled out
    lambda B: B.__class_getitem__(),
])
def test_same_as_stock(exts, call):
    stock, ported = exts
    got = _outcome(lambda: call(ported.Box))
    assert got == _outcome(lambda: call(stock.Box))
