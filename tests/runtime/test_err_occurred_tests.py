"""PyErr_Occurred() compared with NULL (tests/runtime/ext/st_err_occurred.c),
built stock and as cystck-migrate translates it with -Wall -Werror: the
translation compiles (CystckErr_Occurred answers an int, which must not be
compared with a null pointer) and answers as stock does."""
import pytest


@pytest.fixture(scope="module")
def modules(stock_and_ported):
    return stock_and_ported("err_occurred", ported_flags=["-Wall", "-Werror"])


@pytest.mark.parametrize("name, expected", [("real", (0, 1)), ("missing", (1, 1))])
def test_translated_tests_answer_as_stock(modules, name, expected):
    class Obj:
        real = 1

    stock, ported = modules
    assert stock.probe(Obj(), name) == expected
    assert ported.probe(Obj(), name) == expected
