"""CystckUnicode_AsEncodedString and CystckUnicode_AsUTF8String give what
the stock functions give (called through ctypes, side by side): the same
bytes, a new object each time except CPython's own cached ones, and the
same exceptions.  The runtime copies an ASCII str's bytes itself when the
encoding is the default, and leaves the rest to CPython."""
import ctypes

import pytest

from cystck.build import load_extension

STOCK_ENCODED = ctypes.pythonapi.PyUnicode_AsEncodedString
STOCK_ENCODED.restype = ctypes.py_object
STOCK_ENCODED.argtypes = [ctypes.py_object, ctypes.c_char_p, ctypes.c_char_p]
STOCK_UTF8 = ctypes.pythonapi.PyUnicode_AsUTF8String
STOCK_UTF8.restype = ctypes.py_object
STOCK_UTF8.argtypes = [ctypes.py_object]

STRINGS = ["", "a", "key", "x" * 1000, "caf\u00e9", "\u4e2d\u6587", "\U0001f600", "a\udc80b", "\udc80",
           "abc"[1:], "".join(["as", "cii"])]
ENCODINGS = [(None, None), (None, "surrogatepass"), (None, "strict"), ("utf-8", None), ("ascii", "replace"),
             ("latin-1", "surrogatepass"), ("utf-16", None)]


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_encode", build_rt("rt_encode"))


def outcome(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:
        return (type(e), str(e))


def enc(x):
    return None if x is None else x.encode()


@pytest.mark.parametrize("encoding,errors", ENCODINGS)
def test_as_encoded_string_as_stock(ext, encoding, errors):
    for s in STRINGS + [b"bytes", 3, None]:
        assert outcome(ext.as_encoded, s, encoding, errors) == \
            outcome(STOCK_ENCODED, s, enc(encoding), enc(errors)), (s, encoding, errors)


def test_as_utf8_string_as_stock(ext):
    for s in STRINGS + [b"bytes", 3]:
        assert outcome(ext.as_utf8, s) == outcome(STOCK_UTF8, s), s


def test_result_is_a_new_bytes_of_exact_type(ext):
    s = "".join(["dict", "key"])
    first, second = ext.as_encoded(s), ext.as_utf8(s)
    assert type(first) is bytes and type(second) is bytes
    assert first == second == b"dictkey" and first is not second
    assert ext.as_encoded("a") is STOCK_ENCODED("a", None, None)   # CPython's one-byte singletons
