"""Differential: PyByteArray_AS_STRING/PyByteArray_GET_SIZE (the macro
forms), PyByteArray_Resize and PyBytes_FromObject, stock and as
cystck-migrate translates them (CystckByteArray_AS_STRING, ..._GET_SIZE,
CystckByteArray_Resize, CystckBytes_FromObject; before T49 each call was an
escape hatch): the same results, exception types and messages, in release
and with CYSTCK_DEBUG=1."""
import array

import pytest

from cystck.build import load_extension
from differential import outcome


def _cases():
    return [
        ("upper", (bytearray(b"hello, World"),)), ("upper", (bytearray(),)), ("upper", (b"bytes",)),
        ("resize", (bytearray(b"abc"), 6)), ("resize", (bytearray(b"abcdef"), 2)),
        ("resize", (bytearray(b"abc"), 0)), ("resize", (bytearray(), 3)),
        ("resize", (bytearray(b"abc"), 3)), ("resize_viewed", (bytearray(b"abc"), 5)),
        ("grow", ("xyz",)), ("grow", ("",)), ("grow", ("a" * 1000,)),
        ("to_bytes", (b"abc",)), ("to_bytes", (bytearray(b"abc"),)), ("to_bytes", (memoryview(b"xy"),)),
        ("to_bytes", (array.array("B", [1, 2, 3]),)), ("to_bytes", ([65, 66],)), ("to_bytes", ((),)),
        ("to_bytes", ("str",)), ("to_bytes", (3,)), ("to_bytes", (None,)), ("to_bytes", ([256],)),
        ("to_bytes", ([-1],)), ("to_bytes", (["a"],)),
    ]


def _run(ext, name, args):
    args = tuple(bytearray(a) if isinstance(a, bytearray) else a for a in args)  # a fresh copy each call
    if name == "resize_viewed":  # BufferError while a memoryview holds the buffer
        with memoryview(args[0]):
            return outcome(ext.resize, *args), args
    return outcome(getattr(ext, name), *args), args


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("bytearray")


@pytest.mark.parametrize("name, args", _cases())
def test_same_as_stock(exts, name, args):
    stock, ported = exts
    assert _run(ported, name, args) == _run(stock, name, args)


def test_translated_to_the_counterparts():
    from cystck.migrate import translate
    from conftest import EXT
    out = translate.translate_source((EXT / "st_bytearray.c").read_text())
    for name in ("CystckByteArray_AS_STRING(S, ", "CystckByteArray_GET_SIZE(S, ", "CystckByteArray_Resize(S, ",
                 "CystckBytes_FromObject(S, "):
        assert name in out, name
    assert "cystck-migrate: escape hatch" not in out
    for stock in ("PyByteArray_AS_STRING", "PyByteArray_GET_SIZE", "PyByteArray_Resize", "PyBytes_FromObject"):
        assert stock + "(" not in out, stock


def test_resize_of_another_type_raises(exts):
    """The stock function is undefined there (it reads the object as a
    bytearray); CystckByteArray_Resize raises SystemError."""
    with pytest.raises(SystemError, match="CystckByteArray_Resize: argument of the wrong type"):
        exts[1].resize(b"abc", 2)


def run_all(paths):
    stock, ported = (load_extension(name, path) for name, path in paths)
    for name, args in _cases():
        assert _run(ported, name, args) == _run(stock, name, args), (name, args)


def test_same_in_debug_mode(exts, run_all_in_debug_mode):
    run_all_in_debug_mode("test_bytearray", [(m.__name__, m.__file__) for m in exts])
