"""The bytes writer (CystckBytesWriter): C code writes into the storage of
the bytes or str it returns.  Each result is compared with what CPython
builds from the same bytes (b"".join, bytes.decode), down to its size in
memory: the writer's over-allocation is given back and a str has the
narrowest PEP 393 kind."""
import sys
import tracemalloc

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="session")
def w(build_rt):
    return load_extension("rt_writers", build_rt("rt_writers"))


TEXTS = {
    "empty": "",
    "ascii": "plain ASCII, as JSON with ensure_ascii",
    "latin1": "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e",
    "bmp": "\u03b1\u03b2\u03b3 \u4e2d\u6587 \u20ac",
    "astral": "emoji \U0001F600 and \U00010348",
    "mixed": "a\u00e9\u03b1\U0001F600z",
    "large ascii": "x" * 300_000,
    "large bmp": "\u1234" * 100_000 + "tail",
}

# How the bytes arrive: all at once, in small pieces, one at a time.
SPLITS = [None, 7, 1]


def pieces(data, split):
    if split is None:
        return [data]
    return [data[i:i + split] for i in range(0, len(data), split)] or [b""]


def same_object_as_cpython(result, expected):
    assert type(result) is type(expected) and result == expected
    assert hash(result) == hash(expected)
    assert sys.getsizeof(result) == sys.getsizeof(expected)   # kind, length, no spare room


@pytest.mark.parametrize("name", TEXTS)
@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("size", [0, 1, 64, 1 << 20])
def test_str_is_what_decoding_the_bytes_builds(w, name, split, size):
    text = TEXTS[name][:5_000] if split == 1 else TEXTS[name]   # a Grow per byte: keep it short
    data = text.encode()
    same_object_as_cpython(w.build(pieces(data, split), size, True), text)
    if size <= 4096:            # starting in a buffer on the C stack
        same_object_as_cpython(w.build(pieces(data, split), size, True, None, True), text)


@pytest.mark.parametrize("name", TEXTS)
@pytest.mark.parametrize("size", [0, 5, 1 << 20])
def test_bytes_is_what_join_builds(w, name, size):
    data = TEXTS[name].encode()
    parts = pieces(data, 7)
    same_object_as_cpython(w.build(parts, size, False), b"".join(parts))
    same_object_as_cpython(w.build(parts, min(size, 4096), False, None, True), b"".join(parts))


def test_lone_surrogates_pass_with_surrogatepass(w):
    data = "a\ud800b\udfff".encode("utf-8", "surrogatepass")
    assert w.build([data], 0, True, "surrogatepass") == data.decode("utf-8", "surrogatepass")


@pytest.mark.parametrize("data", [b"ok \xff", b"\xe9t\xe9", b"trunc \xe2\x82", b"\xed\xa0\x80",
                                  b"\xc0\xaf", b"x" * 100 + b"\x80"])
def test_invalid_utf8_raises_what_cpython_raises(w, data):
    with pytest.raises(UnicodeDecodeError) as expected:
        data.decode("utf-8")
    with pytest.raises(UnicodeDecodeError) as got:
        w.build([data], 16, True)
    assert str(got.value) == str(expected.value)
    assert w.build([data], 16, True, "replace") == data.decode("utf-8", "replace")
    with pytest.raises(UnicodeDecodeError) as got:
        w.build([data], 4096, True, None, True)          # still in the stack buffer
    assert str(got.value) == str(expected.value)


def test_ascii_str_and_bytes_are_built_in_place(w):
    assert w.in_place(b"in place", True)
    assert w.in_place(b"in place", False)
    assert w.in_place("caf\u00e9".encode(), False)
    # non-ASCII bytes are decoded into a new str: the one copy
    assert not w.in_place("caf\u00e9".encode(), True)


def test_negative_size_raises(w):
    with pytest.raises(ValueError, match="negative size -1"):
        w.build([], -1, True)


@pytest.mark.parametrize("how, match", [
    (0, "not initialized, or already finished"),
    (1, "not initialized, or already finished"),
    (2, "not initialized, or already finished"),
    (3, "outside the writer's storage"),
    (4, "outside the writer's storage"),
    (5, "negative size"),
])
def test_misuse_raises_system_error(w, how, match):
    with pytest.raises(SystemError, match=match):
        w.misuse(how)


def test_an_abandoned_writer_leaks_nothing(w):
    parts = [b"x" * 10_000, "not bytes"]        # fails after writing 10 kB
    for _ in range(10):
        with pytest.raises(TypeError):
            w.build(parts, 0, True)
        with pytest.raises(TypeError):
            w.build(parts, 64, True, None, True)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(1000):
            for as_str in (True, False):
                with pytest.raises(TypeError):
                    w.build(parts, 0, as_str)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 3_000_000                     # 20 MB if each abandoned object leaked


def test_a_non_ascii_character_anywhere_is_seen(w):
    # the ASCII check reads 64 bytes a step: try every place in and after the steps
    for at in range(0, 140):
        text = "a" * at + "\u00e9" + "b" * (140 - at)
        assert w.build([text.encode()], 0, True) == text


# ---- CystckUnicodeWriter_WriteUTF8: ASCII goes straight into the str ----

@pytest.fixture(scope="session")
def g(grow_path):
    return load_extension("rt_grow", grow_path)


@pytest.mark.parametrize("parts, expected", [
    ([(b"plain",)], "plain"),
    ([(b"x" * 1000,), (b"",), (b"y",)], "x" * 1000 + "y"),
    ([0xE9, (b"ascii into latin-1",)], "\u00e9ascii into latin-1"),
    ([0x3B1, (b"ascii into UCS-2",)], "\u03b1ascii into UCS-2"),
    ([0x1F600, (b"ascii into UCS-4",), ("\u00e9".encode(),)], "\U0001F600ascii into UCS-4\u00e9"),
])
def test_unicode_writer_utf8_is_what_decoding_builds(g, parts, expected):
    result = g.build_str(parts)
    assert result == expected and hash(result) == hash(expected)
    assert sys.getsizeof(result) == sys.getsizeof("".join(list(expected)))   # narrowest kind
