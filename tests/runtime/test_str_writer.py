"""The pointer str writer (CystckStrWriter, the counterpart of CPython
3.14's PyUnicodeWriter).  Our CPython has no PyUnicodeWriter to run side by
side, so each result is compared with the str the same Python string
operations build (str(), repr(), slicing, chr, decoding), down to its size
in memory (the narrowest PEP 393 kind, no spare room).  The checks run
again in a child interpreter under CYSTCK_DEBUG=1 (run_all)."""
import os
import sys
import tracemalloc

import pytest

from cystck.build import load_extension


class Shouty(str):
    def __str__(self):
        return "SHOUT"


# (parts, the str Python builds from them): see write_part in
# tests/runtime/ext/rt_str_writer.c for what each kind of part calls.
CASES = {
    "empty": ([], ""),
    "ascii": ([b"plain ", "ascii ", 0x41], "plain ascii A"),
    "latin1": ([b"caf", 0xE9, " cr\u00e8me"], "caf\u00e9 cr\u00e8me"),
    "widen to UCS2": ([b"ab", 0xE9, 0x3B1, "\u4e2d"], "ab\u00e9\u03b1\u4e2d"),
    "widen to UCS4": ([b"ab", 0x3B1, 0x1F600, b"z"], "ab\u03b1\U0001F600z"),
    "substring": ([("x\u00e9\u03b1\U0001F600y", 0, 1), ("\u00e9abc", 1, 4), ("\u03b1bc", 1, 1)], "xabc"),
    "wide substring": ([("a\U0001F600b", 1, 3)], "\U0001F600b"),
    "str()": ([3, " ", 2.5, " ", None, " ", Shouty("quiet")], chr(3) + " " + str(2.5) + " None SHOUT"),
    "repr()": ([("repr", "a'b"), ("repr", [1, "\u00e9"]), ("repr", None)], repr("a'b") + repr([1, "\u00e9"]) + "<NULL>"),
    "utf8": ([("utf8", "caf\u00e9 \U0001F600".encode()), ("utf8", b"ascii")], "caf\u00e9 \U0001F600ascii"),
    "ucs4": ([("ucs4", [0x61, 0xE9, 0x1F600]), ("ucs4", [])], "a\u00e9\U0001F600"),
    "wide": ([("wide", [0x61, 0x3B1, 0x4E2D])], "a\u03b1\u4e2d"),
    "large": ([b"x" * 100_000, 0x10348, "\u1234" * 1000], "x" * 100_000 + "\U00010348" + "\u1234" * 1000),
}

ERRORS = [
    ([0x110000], ValueError, "not in range"),               # as CPython's WriteChar
    ([b"caf\xc3\xa9"], ValueError, "not ASCII"),
    ([("utf8", b"bad \xff")], UnicodeDecodeError, "invalid start byte"),
    ([("ucs4", [0x61, 0x110000])], ValueError, "not in range"),
    ([("ucs4", [0x61, 0x10FFFF + 0x80000000])], ValueError, "not in range"),
    ([("wide", [0x61, 0x110000])], ValueError, "not in range"),
    ([("abc", -1, 2)], ValueError, "invalid start argument"),
    (["x", ("abc", 2, 1)], ValueError, "invalid start argument"),
    ([("abc", 0, 4)], ValueError, "invalid end argument"),
    ([(b"abc", 0, 1)], TypeError, "expected a str, got bytes"),
]


def same_str(result, expected):
    assert type(result) is str and result == expected and hash(result) == hash(expected)
    assert sys.getsizeof(result) == sys.getsizeof("".join(list(expected)))  # kind, no spare room


def check_built_in_one_call(m):
    for parts, expected in CASES.values():
        for length in (0, 1, len(expected), 1000):
            same_str(m.build(parts, length), expected)


def check_kept_across_calls(m):
    # created in one call, written in others, finished in yet another: the
    # str lives in the writer, not in the frame of the call that made it
    for parts, expected in CASES.values():
        m.start(4)
        for part in parts:
            m.add([part])
        same_str(m.finish(), expected)


def check_errors(m):
    for parts, error, match in ERRORS:
        with pytest.raises(error, match=match):
            m.build(parts, 0)
    with pytest.raises(ValueError, match="length must be positive"):
        m.build([], -1)


def check_a_failed_write_leaves_the_writer_usable(m):
    m.start(0)
    m.add(["ok "])
    for parts, error, _ in ERRORS:
        with pytest.raises(error):
            m.add(parts[-1:])
    m.add(["still ok"])
    same_str(m.finish(), "ok still ok")


def check_no_writer_raises(m):
    # Finish consumes the writer, as Discard does: the extension forgets
    # its pointer, and a NULL writer is refused (CPython would crash)
    m.start(0)
    m.discard()
    m.discard()                 # Discard(NULL) does nothing, as CPython's
    with pytest.raises(SystemError, match="not initialized, or already finished"):
        m.finish()
    m.start(0)
    m.finish()
    with pytest.raises(SystemError, match="not initialized, or already finished"):
        m.add(["x"])


def check_use_after_the_end_raises_in_debug_mode(m):
    # in release mode the writer is freed memory, as CPython's; in debug
    # mode it is kept (quarantined), marked ended
    if not os.environ.get("CYSTCK_DEBUG"):
        return
    for how in range(4):
        with pytest.raises(SystemError, match="not initialized, or already finished"):
            m.use_after_end(how)


def check_nothing_leaks(m):
    big = ["x" * 10_000, "\u1234" * 5_000]
    for _ in range(10):
        m.build(big, 0)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(1000):
            m.build(big, 100)                         # finished
            with pytest.raises(ValueError):
                m.build(big + [0x110000], 0)          # discarded after an error
            m.start(10)
            m.add(big)
            m.discard()                               # discarded from another call
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 3_000_000                          # 60 MB if each str leaked


CHECKS = [check_built_in_one_call, check_kept_across_calls, check_errors,
          check_a_failed_write_leaves_the_writer_usable, check_no_writer_raises,
          check_use_after_the_end_raises_in_debug_mode, check_nothing_leaks]


def run_all(paths):
    """The checks, for run_all_in_debug_mode (paths: [(name, path)])."""
    m = load_extension(*paths[0])
    for check in CHECKS:
        check(m)


@pytest.fixture(scope="session")
def path(build_rt):
    return build_rt("rt_str_writer")


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_str_writer(path, check):
    check(load_extension("rt_str_writer", path))


def test_str_writer_in_debug_mode(path, run_all_in_debug_mode):
    run_all_in_debug_mode("test_str_writer", [("rt_str_writer", str(path))])
