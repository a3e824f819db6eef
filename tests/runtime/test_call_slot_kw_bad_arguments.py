"""Differential: Cystck_CallSlotKw (what the translator writes for a
stock tp_new/tp_init/tp_call function called directly with a tuple and
keywords) given bad arguments, against the stock functions called
directly with the same values: a tuple and a dict, NULL keywords, an
empty dict, a keyword given twice or unknown, a key that is no str, an
argument tuple or keywords of the wrong type (SystemError, bad argument
to internal function, in both: the message names the C file and line
that raised it, which differ), and a slot that raises.  The same results,
exception types and messages, in release and with CYSTCK_DEBUG=1 (no
reference left behind).

Where Cystck_CallSlotKw's documented contract differs from a stock call,
it is not compared: a null argument tuple is no positional arguments (a
stock slot given NULL parses nothing), and a tuple as keywords is the
caller's own keyword names (their values after the positional ones)."""
import re

import pytest

from cystck.build import load_extension

CASES = [
    (("a",), None), (("a", 3), None), (("a",), {"size": 4}), ((), {"label": "k", "size": 0}),
    (("a",), {}), (("a", 2), {}),
    # the slot raises: its own exception, the parser's
    (("a", -1), None), ((), {"label": "k", "size": -5}), ((), None), (("a", 1, 2), None),
    (("a", "x"), None), (("a",), {"size": "x"}), (("a",), {"label": "b"}), (("a",), {"nope": 1}),
    (("a",), {1: 2}),
    # wrong types: no tuple, no dict
    (["a"], None), ("a", None), (("a",), [("size", 2)]), (("a",), "size"), (("a",), 3),
]


def _outcome(f, *args):
    try:
        return f(*args)
    except Exception as e:       # the exception is part of the outcome
        return type(e).__name__, re.sub(r"^\S+:\d+: ", "", str(e))


@pytest.fixture(scope="module")
def exts(build, build_rt, ext_dir):
    stock = build("st_call_slot_kw", [ext_dir / "st_call_slot_kw.c"], use_cystck=False,
                  extra_compile_args=["-Wall", "-Werror"])
    return (load_extension("st_call_slot_kw", stock),
            load_extension("rt_call_slot_kw", build_rt("rt_call_slot_kw")))


@pytest.mark.parametrize("fn", ["call", "init"])
@pytest.mark.parametrize("argtuple, kw", CASES)
def test_same_as_stock(exts, fn, argtuple, kw):
    stock, ported = exts
    want = _outcome(getattr(stock, fn), argtuple, kw)
    assert _outcome(getattr(ported, fn), argtuple, kw) == want


def test_the_stock_answers_are_what_they_seem(exts):
    stock, _ = exts
    assert _outcome(stock.call, ("a",), {"size": 4}) == ("a", 4)
    assert _outcome(stock.call, ("a", -1), None) == ("ValueError", "size must not be negative")
    assert _outcome(stock.call, ["a"], None) == ("SystemError", "bad argument to internal function")
    assert _outcome(stock.init, ("a",), 3) == ("SystemError", "bad argument to internal function")


def test_the_documented_differences(exts):
    stock, ported = exts
    # a null argument tuple: no positional arguments (stock: the parser's SystemError)
    assert ported.call(None, {"label": "k"}) == ("k", 1) and ported.init(None, {"label": "k"}) is None
    assert _outcome(ported.call, None, None) == ("TypeError", "impl() missing required argument 'label' (pos 1)")
    assert _outcome(stock.call, None, {"label": "k"}) == ("SystemError", "bad argument to internal function")
    # a tuple of keyword names with no values after the positional ones
    assert _outcome(ported.call, ("a",), ("size",)) == ("SystemError", "bad argument to internal function")


def run_all(paths):
    stock, ported = (load_extension(name, path) for name, path in paths)
    for fn in ("call", "init"):
        for argtuple, kw in CASES:
            got, want = _outcome(getattr(ported, fn), argtuple, kw), _outcome(getattr(stock, fn), argtuple, kw)
            assert got == want, (fn, argtuple, kw, got, want)


def test_same_in_debug_mode(exts, run_all_in_debug_mode):
    run_all_in_debug_mode("test_call_slot_kw_bad_arguments", [(m.__name__, m.__file__) for m in exts])
