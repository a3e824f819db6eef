"""Differential: PyObject_Vectorcall, PyObject_VectorcallMethod and
PyObject_CallOneArg (tests/runtime/ext/st_vectorcall.c) and their
translation, CystckObject_Vectorcall, CystckObject_VectorcallMethod and
CystckObject_CallOneArg, which read the argument handles as they are: the
same results and exceptions, positional and keyword arguments, more
arguments than the inline array holds, a local array with the
PY_VECTORCALL_ARGUMENTS_OFFSET slot, and no reference gained or lost by
the arguments or the callable; in release and debug mode."""
import sys

import pytest

from differential import outcome


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("vectorcall")


def echo(*args, **kw):
    return args, kw


class Obj:
    def m(self, *args, **kw):
        return self, args, kw


def boom(*args):
    raise ValueError(args)


def _cases(ext):
    o = Obj()
    many = tuple(range(12))     # past the inline array (8) on the ported side
    return [
        outcome(ext.call, echo),
        outcome(ext.call, echo, 1, "a"),
        outcome(ext.call, echo, *many),
        outcome(ext.call, boom, 1),
        outcome(ext.call, 42),
        outcome(ext.call),
        outcome(ext.call_kw, echo, 1, x=2, y=3),
        outcome(ext.call_kw, echo, *many, **{f"k{i}": i for i in range(3)}),
        outcome(ext.call_kw, echo),
        outcome(ext.call_pair, echo, 1, 2),
        outcome(ext.call_pair, boom, 1, 2),
        outcome(ext.call_method, "m", o, 1, 2) == (o, (1, 2), {}),
        outcome(ext.call_method, "m", o, *many) == (o, many, {}),
        outcome(ext.call_method, "nope", o),
        outcome(ext.call_method, "upper", "abc"),
        outcome(ext.call_one, echo, 5),
        outcome(ext.call_one, boom, 5),
        outcome(ext.call_one, echo),
        outcome(ext.call_names, echo, ("a", "b"), 1, 2),
        outcome(ext.call_names, echo, ()),
    ]


def run_all(paths):
    """The stock and the ported extension (name, path) give the same
    outcomes, and a thousand calls leave every argument's and the callable's
    reference count as it was (run again under CYSTCK_DEBUG=1 below)."""
    from cystck.build import load_extension
    stock, ported = (load_extension(name, path) for name, path in paths)
    assert _cases(ported) == _cases(stock)
    arg, kwval, o = object(), object(), Obj()
    watched = (echo, arg, kwval, o, Obj.m)
    before = [sys.getrefcount(x) for x in watched]
    for _ in range(1000):
        ported.call(echo, arg, arg)
        ported.call(echo, *([arg] * 10))
        ported.call_kw(echo, arg, k=kwval)
        ported.call_pair(echo, arg, kwval)
        ported.call_method("m", o, arg)
        ported.call_one(echo, arg)
        outcome(ported.call, boom, arg)
    assert [sys.getrefcount(x) for x in watched] == before


def test_same_as_stock(exts):
    stock, ported = exts
    assert _cases(ported) == _cases(stock)
    assert _cases(ported)[1] == ((1, "a"), {})      # not two errors alike


def test_what_stock_reads_unchecked_raises(exts):
    """Where CPython would read memory that is not there (a method call
    with no object, keyword names that are not a tuple), the translation
    raises SystemError."""
    _, ported = exts
    assert outcome(ported.method_of_nothing, "m") == (
        SystemError, "CystckObject_VectorcallMethod: no object to call the method on (args[0], counted in nargsf)")
    assert outcome(ported.call_names, echo, ["a"], 1) == (
        SystemError, "CystckObject_Vectorcall: kwnames must be a tuple of keyword names, not list")


def test_release_and_debug_mode(exts, run_all_in_debug_mode):
    paths = [(m.__name__, m.__file__) for m in exts]
    run_all(paths)
    run_all_in_debug_mode("test_vectorcall_ported", paths)


def test_the_translation_calls_with_handles(ext_dir):
    from cystck.migrate import translate
    from cystck.migrate.rules.escape import MARK
    ported = translate.translate_source((ext_dir / "st_vectorcall.c").read_text())
    assert MARK not in ported and "PyObject" not in ported.split("#include", 1)[1]
    assert ported.count("CystckObject_Vectorcall(S, ") == 4
    assert "CystckObject_VectorcallMethod(S, args[0], args + 1, nargs - 1, Cystck_NULL)" in ported
    assert "Cystck_Object none[1] = {Cystck_NULL};" in ported
    assert "CystckObject_CallOneArg(S, args[0], args[1])" in ported
    # the local array: handles, its free first slot the null handle
    assert "Cystck_Object stack[3] = {Cystck_NULL, b, a};" in ported
