"""PyErr_Fetch ... PyErr_Restore where the code reads the value it
fetched: tests/runtime/ext/st_err_value.c, built as it is and as
cystck-migrate translates it, sees the same value (un-normalized, as
PyErr_Fetch gives it: err-fetch-restore leaves these calls to their
counterparts CystckErr_Fetch/CystckErr_Restore instead of taking the
exception as one normalized object)."""
import pytest


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("err_value")


@pytest.mark.parametrize("container, key", [({}, "k"), ([], 3), ({"k": 1}, "k")])
def test_value_read_as_stock_reads_it(exts, container, key):
    stock, ported = exts
    assert ported.describe_error(container, key) == stock.describe_error(container, key)


def test_no_value_read_as_stock_reads_it(exts):
    stock, ported = exts
    assert ported.describe_none() == stock.describe_none()
