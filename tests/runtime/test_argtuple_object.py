"""Differential: PyArg_ParseTuple of a tuple that is no argument array,
with a format known at run time only (bitarray 3.12.3's
``binary_function(args, "O!O!:count_and", ...)``, which stayed a stock call
on handles: 4 --check errors), translated to CystckArg_ParseTupleObject:
the same results, and the same exception type and message, as the stock
build, in release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.build import load_extension
from differential import outcome

CASES = [
    ("add", (1, 2)), ("add", (1,)), ("add", (1, 2, 3)), ("add", (1, "x")), ("add", ()),
    ("add_opt", (5,)), ("add_opt", (5, 6)), ("add_opt", ("5",)),
    ("numbers", ((1, 2.5, "o"), "ld|O:numbers")), ("numbers", ((1, 2.5), "ld|O")),
    ("numbers", ((1,), "ld")), ("numbers", (("x", 1.0), "ld:numbers")),
    ("numbers", ([1, 2.0], "ld")),          # no tuple: SystemError, as stock
    ("many", (tuple(range(18)), "O" * 18)), ("many", (tuple(range(17)), "O" * 16 + "|OO")),
    ("many", (tuple(range(19)), "O" * 18)),
]


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("argtuple")


@pytest.mark.parametrize("name, args", CASES)
def test_same_as_stock(exts, name, args):
    stock, ported = exts
    assert outcome(getattr(ported, name), *args) == outcome(getattr(stock, name), *args)


def test_translated_to_the_tuple_parser():
    from cystck.migrate import translate
    from conftest import EXT
    out = translate.translate_source((EXT / "st_argtuple.c").read_text())
    assert "CystckArg_ParseTupleObject(S, args, format, CystckLong_Type, &a, CystckLong_Type, &b)" in out
    assert "CystckArg_ParseTupleObject(S, t, format, &n, &d, &o)" in out


def run_all(paths):
    stock, ported = (load_extension(name, path) for name, path in paths)
    for name, args in CASES:
        assert outcome(getattr(ported, name), *args) == outcome(getattr(stock, name), *args), (name, args)


def test_same_in_debug_mode(exts, run_all_in_debug_mode):
    run_all_in_debug_mode("test_argtuple_object", [(m.__name__, m.__file__) for m in exts])
