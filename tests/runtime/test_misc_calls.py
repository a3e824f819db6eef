"""Differential: stock calls that were escape hatches until T49 (each in
cbor2): PyByteArray_FromObject/CheckExact, PyAnySet_CheckExact,
PySet_GET_SIZE, PySet_Discard, PyFrozenSet_New, PyObject_DelAttrString,
PyUnicode_AsASCIIString, PyComplex_FromDoubles, stock and as cystck-migrate
translates them (their Cystck counterparts): the same results, exception
types and messages, in release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.build import load_extension
from differential import outcome


class Sub(bytearray):
    pass


class Obj:
    pass


def _cases():
    with_attr = Obj()
    with_attr.a = 1
    return [
        ("to_bytearray", (b"abc",)), ("to_bytearray", (memoryview(b"xy"),)), ("to_bytearray", ("str",)),
        ("to_bytearray", (3,)), ("to_bytearray", ([1, 2],)),
        ("kinds", (bytearray(b"a"),)), ("kinds", (Sub(),)), ("kinds", ({1, 2},)), ("kinds", (frozenset(),)),
        ("kinds", ([],)),
        ("discard", ({1, 2}, 1)), ("discard", ({1, 2}, 3)), ("discard", ({1}, [])), ("discard", ([1], 1)),
        ("discard", (frozenset({1}), 1)),
        ("frozen", ()), ("frozen", ([1, 1, 2],)), ("frozen", ("ab",)), ("frozen", (3,)),
        ("delattr", (with_attr, "a")), ("delattr", (Obj(), "missing")), ("delattr", (1, "real")),
        ("ascii", ("abc",)), ("ascii", ("é",)), ("ascii", (b"x",)),
        ("complex_of", (1.5, -2.0)), ("complex_of", (0.0, float("inf"))),
    ]


def _norm(r):
    return sorted(r) if isinstance(r, (set, frozenset)) else r


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("misc_calls")


@pytest.mark.parametrize("i", range(len(_cases())))
def test_same_as_stock(exts, i):
    stock, ported = exts
    name, args = _cases()[i]
    s = outcome(getattr(stock, name), *args)
    name, args = _cases()[i]
    p = outcome(getattr(ported, name), *args)
    assert (type(p), _norm(p)) == (type(s), _norm(s))


def test_translated_to_the_counterparts():
    from cystck.migrate import translate
    from conftest import EXT
    out = translate.translate_source((EXT / "st_misc_calls.c").read_text())
    assert "cystck-migrate: escape hatch" not in out
    for name in ("CystckByteArray_FromObject", "CystckByteArray_CheckExact", "CystckAnySet_CheckExact",
                 "CystckSet_GET_SIZE", "CystckSet_Discard", "CystckFrozenSet_New", "CystckObject_DelAttrString",
                 "CystckUnicode_AsASCIIString", "CystckComplex_FromDoubles"):
        assert name + "(S, " in out, name


def run_all(paths):
    stock, ported = (load_extension(name, path) for name, path in paths)
    for i in range(len(_cases())):
        name, args = _cases()[i]
        s = outcome(getattr(stock, name), *args)
        name, args = _cases()[i]
        p = outcome(getattr(ported, name), *args)
        assert (type(p), _norm(p)) == (type(s), _norm(s)), (name, args)


def test_same_in_debug_mode(exts, run_all_in_debug_mode):
    run_all_in_debug_mode("test_misc_calls", [(m.__name__, m.__file__) for m in exts])
