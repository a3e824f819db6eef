"""CystckUnicode_AsEncodedString, CystckUnicode_AsUTF8String,
CystckUnicode_DecodeUTF8 and CystckUnicode_FromStringAndSize give what the
stock functions give (called through ctypes, side by side): the same
bytes or str (same PEP 393 representation), a new object each time except
CPython's own cached ones, and the same exceptions.  The runtime copies
ASCII itself (an ASCII str's bytes with the default encoding; ASCII text
of 64 bytes or more into a new str after a vectorized check) and leaves
the rest to CPython."""
import sys
import ctypes

import pytest

from cystck.build import load_extension

STOCK_ENCODED = ctypes.pythonapi.PyUnicode_AsEncodedString
STOCK_ENCODED.restype = ctypes.py_object
STOCK_ENCODED.argtypes = [ctypes.py_object, ctypes.c_char_p, ctypes.c_char_p]
STOCK_UTF8 = ctypes.pythonapi.PyUnicode_AsUTF8String
STOCK_UTF8.restype = ctypes.py_object
STOCK_UTF8.argtypes = [ctypes.py_object]
STOCK_DECODE = ctypes.pythonapi.PyUnicode_DecodeUTF8
STOCK_DECODE.restype = ctypes.py_object
STOCK_DECODE.argtypes = [ctypes.c_char_p, ctypes.c_ssize_t, ctypes.c_char_p]
STOCK_FROM = ctypes.pythonapi.PyUnicode_FromStringAndSize
STOCK_FROM.restype = ctypes.py_object
STOCK_FROM.argtypes = [ctypes.c_char_p, ctypes.c_ssize_t]

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


# Around the 64-byte threshold and the 64-byte scan steps, a non-ASCII byte
# first, in the middle, last; invalid UTF-8; an embedded NUL.
TEXTS = [b"", b"a", b"x" * 63, b"x" * 64, b"x" * 65, b"y" * 1000, b"\0" * 70, b"a" * 64 + "\u00e9".encode(),
         "\u00e9".encode() + b"a" * 100, b"a" * 127 + "\u4e2d".encode() + b"b" * 10, b"a" * 100 + b"\xff",
         b"a" * 100 + b"\xed\xb2\x80" + b"z" * 64, b"q" * 200 + b"\x80"]


def same_str(a, b):
    """Equal, both exact str, the same representation (size in memory)."""
    return (type(a) is str and type(b) is str and a == b and sys.getsizeof(a) == sys.getsizeof(b)
            and a.isascii() == b.isascii())


@pytest.mark.parametrize("errors", [None, "strict", "replace", "surrogatepass", "surrogateescape"])
def test_decode_utf8_as_stock(ext, errors):
    for text in TEXTS:
        got, expected = outcome(ext.decode_utf8, text, errors), outcome(STOCK_DECODE, text, len(text), enc(errors))
        if got[0] == "ok" and expected[0] == "ok":
            assert same_str(got[1], expected[1]), (text, errors)
        else:
            assert got == expected, (text, errors)


def test_from_string_and_size_as_stock(ext):
    for text in TEXTS:
        got, expected = outcome(ext.from_string_and_size, text), outcome(STOCK_FROM, text, len(text))
        if got[0] == "ok" and expected[0] == "ok":
            assert same_str(got[1], expected[1]), text
        else:
            assert got == expected, text
    assert outcome(ext.from_string_and_size, b"x" * 100, -1) == outcome(STOCK_FROM, b"x" * 100, -1)


def test_decoded_ascii_is_a_new_str_but_one_character_is_cached(ext):
    text = b"k" * 100
    assert ext.decode_utf8(text) is not ext.decode_utf8(text)
    assert ext.decode_utf8(b"k") is STOCK_DECODE(b"k", 1, None)


# A str that is not compact ASCII is encoded by the runtime (runs of ASCII
# 16 code points a step) unless it holds a surrogate.  Every kind (Latin-1,
# UCS-2, UCS-4), each width of UTF-8 (1 to 4 bytes), a non-ASCII code point
# before, inside and after a 16-code-point block, lengths around the 512
# bytes encoded on the C stack, lone surrogates early and late, a str
# subclass (not compact), and the error handlers a port passes.
WIDE = ["\u00e9", "\u00ff", "\u0100", "\u07ff", "\u0800", "\u4e2d", "\uffff", "\U00010000", "\U0010ffff"]


def texts_of_every_kind():
    for wide in WIDE:
        for n in (1, 15, 16, 17, 31, 32, 33, 100, 127, 128, 129, 170, 171, 255, 256, 257, 1000):
            yield wide * n
            for at in (0, 1, 15, 16, 17, n // 2, n - 1, n):
                yield "a" * at + wide + "b" * (n - at)
                yield wide + "x" * at + "\u00e9" + "y" * (n - at)
    yield "caf\u00e9 " * 3000 + "\U0001f600"
    yield ("ascii " * 40 + "\u4e2d") * 100
    for sur in ("\ud800", "\udbff", "\udc00", "\udfff", "\ud83d\ude00"):
        for base in ("\u00e9", "\u4e2d", "\U0001f600"):
            yield base + sur
            yield base + "a" * 40 + sur + "b" * 600
            yield sur + base * 300


class Sub(str):
    pass


@pytest.mark.parametrize("errors", [None, "strict", "surrogatepass", "surrogateescape", "replace", "bogus"])
def test_non_ascii_str_encodes_as_stock(ext, errors):
    for s in texts_of_every_kind():
        for o in (s, Sub(s)):
            got, expected = outcome(ext.as_encoded, o, None, errors), outcome(STOCK_ENCODED, o, None, enc(errors))
            assert got == expected, (o[:40], len(o), errors)
            assert got[0] != "ok" or type(got[1]) is bytes
    for s in texts_of_every_kind():
        assert outcome(ext.as_utf8, s) == outcome(STOCK_UTF8, s), (s[:40], len(s))


def test_non_ascii_str_encodes_to_a_new_bytes(ext):
    for s in ("caf\u00e9", "\u4e2d" * 300, "\U0001f600" * 2):
        first, second = ext.as_utf8(s), ext.as_utf8(s)
        assert first == second == s.encode() and first is not second


_DEV_MODE_CHECK = """
import sys, ctypes
from cystck.build import load_extension
ext = load_extension("rt_encode", sys.argv[1])
stock = ctypes.pythonapi.PyUnicode_AsEncodedString
stock.restype = ctypes.py_object
stock.argtypes = [ctypes.py_object, ctypes.c_char_p, ctypes.c_char_p]
def outcome(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:
        return (type(e).__name__, str(e))
for s in ("caf\\u00e9", "\\u4e2d" * 300, "key", "", "x" * 1000):
    got, expected = outcome(ext.as_encoded, s, None, "bogus"), outcome(stock, s, None, b"bogus")
    assert got == expected and expected[0] == "LookupError", (got, expected)
print("ok")
"""


def test_unknown_error_handler_in_development_mode_as_stock(build_rt):
    """-X dev: CPython looks the handler's name up before encoding, even
    text that needs no handler (ASCII, non-ASCII with no surrogate); the
    runtime leaves such calls to it."""
    import subprocess
    path = build_rt("rt_encode")
    run = subprocess.run([sys.executable, "-X", "dev", "-c", _DEV_MODE_CHECK, str(path)],
                         capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


def mixed_ucs2_texts():
    """UCS-2 text changing width every few code points (1, 2 and 3 bytes of
    UTF-8, the widest and narrowest of each), blocks of eight code points
    at every offset, lone surrogates at every position of a block: seeded,
    the same on every run."""
    import random
    rng = random.Random(21)
    alphabet = ["a", "~", "\x00", "\x7f", "\u0080", "\u00e9", "\u07ff", "\u0800", "\u4e2d", "\ud7ff",
                "\ue000", "\uffff"]
    for n in list(range(0, 40)) + [100, 171, 172, 173, 500, 2000]:
        for _ in range(3):
            yield "".join(rng.choice(alphabet) for _ in range(n)) + "\u0100"
    for at in range(0, 20):
        for sur in ("\ud800", "\udfff"):
            base = "".join(rng.choice(alphabet) for _ in range(24)) + "\u0100"
            yield base[:at] + sur + base[at:]


def test_mixed_ucs2_text_encodes_as_stock(ext):
    for s in mixed_ucs2_texts():
        for errors in (None, "surrogatepass"):
            got, expected = outcome(ext.as_encoded, s, None, errors), outcome(STOCK_ENCODED, s, None, enc(errors))
            assert got == expected, (s, errors)
