"""CystckArg_ParseTuple(AndKeywords) against PyArg_ParseTuple(AndKeywords).

Two extensions expose the same formats (argparse_cases.py writes both from
one list): every documented format unit, alone and in formats that test
counts, keywords and names, is called through both with the same good and
bad arguments, and the converted values, or the exceptions' types and
messages, must be the same.  The units Cystck does not implement must raise
SystemError naming the unit and the format, with no output written.
"""
import array
import re
import sys

import pytest

from cystck.build import build_extension, load_extension

import argparse_cases as ac
from argparse_cases import Case

WARNINGS = ["-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter"]


class Index:
    def __index__(self):
        return 7


class IntSub(int):
    """An int that is not exact: 'n' takes it through PyNumber_Index, which
    returns its int value without calling __index__."""
    def __index__(self):
        return 7


class Float:
    def __float__(self):
        return 2.5


class Complex:
    def __complex__(self):
        return 1 + 2j


class Falsy:
    def __bool__(self):
        raise RuntimeError("no truth value")


OBJ = object()
VALUES = [
    0, 1, -1, 127, 128, 255, 256, -129, 32767, 32768, -32769, 2**31 - 1, 2**31, -2**31 - 1,
    2**32, 2**63 - 1, 2**63, 2**64, -2**63 - 1, 10**30, True, 1.5, -0.0, float("inf"), 1 + 2j,
    2**30 - 1, 2**30, -2**30, -2**30 - 1, IntSub(12),
    Index(), Float(), Complex(), Falsy(), "", "a", "abc", "\xe9", "a\0b", "\udc80",
    b"", b"a", b"abc", b"a\0b", bytearray(b"a"), bytearray(b"ab"), memoryview(b"abc"),
    memoryview(b"abcd")[::2], array.array("b", b"xy"), None, OBJ, [1], (1,),
]

SINGLE = ([Case(f"pos_{i}", u + ":f") for i, u in enumerate(ac.SUPPORTED)]
          + [Case(f"anon_{i}", u) for i, u in enumerate(ac.SUPPORTED)]
          + [Case(f"kw_{i}", u, ["a"]) for i, u in enumerate(ac.SUPPORTED)]
          + [Case(f"kwf_{i}", u + ":g", ["a"]) for i, u in enumerate(ac.SUPPORTED)])

POSITIONAL = ["", "ii", "ii:f", "i|i:f", "|ii", "ii;custom message", "O|O", "i|s*:f",
              "O!|O&:f"]
KEYWORD = [
    ("O", ["obj"]), ("O:loads", ["obj"]), ("O|O:f", ["a", "b"]), ("O|O", ["a", "b"]),
    ("O|i$i:f", ["a", "b", "c"]), ("|O$O", ["a", "b"]), ("i$i", ["a", "b"]),
    ("$O:f", ["a"]), ("OO|O:f", ["", "a", "b"]), ("O|O", ["", "b"]), ("|O", [""]),
    ("i|i;custom message", ["a", "b"]), ("s*|y*:f", ["a", "b"]), ("|ldO:f", ["a", "b", "c"]),
    # Keyword lists shorter than the format, its last values optional: CPython
    # parses until a call gives the last named value (then a SystemError
    # where no '|' or '$' follows it).
    ("O|OO", ["a", "b"]), ("O|iO:f", ["a", "b"]), ("OO|O:f", ["a", "b"]),
    ("O|O$O:f", ["a", "b"]), ("|OO", ["a"]), ("|O", []),
    # ... and shorter than its required units: every call fails in CPython.
    ("OO", ["a"]), ("OO|O:f", ["a"]), ("OOO:f", ["a", "b"]),
]
MULTI = ([Case(f"mpos_{i}", fmt) for i, fmt in enumerate(POSITIONAL)]
         + [Case(f"mkw_{i}", fmt, kw) for i, (fmt, kw) in enumerate(KEYWORD)])

UNSUPPORTED = ([Case(f"upos_{i}", "i" + u + ":f") for i, u in enumerate(ac.UNSUPPORTED)]
               + [Case(f"ukw_{i}", "i|" + u, ["a", "b"]) for i, u in enumerate(ac.UNSUPPORTED)])
# Units that are no units, or modifiers a unit does not take.
MALFORMED = [Case("bad_w", "iw"), Case("bad_hash", "ii#"), Case("bad_u", "iu"),
             Case("bad_Z", "iZ#"), Case("bad_x", "ix", ["a", "b"])]

# "(...)" units: one value, a sequence whose items the units inside convert.
NESTED = [Case(f"npos_{i}", fmt) for i, fmt in enumerate(
    ["(dd)i:linspace", "(ii)s", "((ii)O):f", "|(dd)", "(s#y*)", "O(O!O&)|(Lp):f",
     "((ii)((d)S));custom message", "(zz*D)|(c)"])]
NESTED += [Case(f"nkw_{i}", fmt, kw) for i, (fmt, kw) in enumerate([
    ("(dd)", ["a"]), ("(dd)|(ii):f", ["a", "b"]), ("i|(dd)$(s*O)O:f", ["a", "b", "c", "d"]),
    ("|((ii)O)i", ["a", "b"]), ("|(ii)", ["a"])])]

CASES = SINGLE + MULTI + NESTED

# Hand-written: the lifetime of a w* buffer.  hold(buffer, release, probe):
# writes 'W' at buffer[0], releases the view if asked (twice: the second
# must do nothing), then returns probe(), called while the frame is open.
HOLD = r'''
CYSTCK_DEF_METH(hold_def, "hold", hold, CYSTCK_VARARGS, "")
static int hold(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Py_buffer view;
    int release;
    Cystck_Object probe;
    if (!CystckArg_ParseTuple(S, args, nargs, "w*pO:hold", &view, &release, &probe))
        return -1;
    ((char *)view.buf)[0] = 'W';
    if (release) {
        CystckBuffer_Release(S, &view);
        if (view.obj != NULL) {
            CystckErr_SetString(S, CystckExc_SystemError, "the released view still has an obj");
            return -1;
        }
        CystckBuffer_Release(S, &view);
    }
    return Cystck_Return(S, CystckObject_CallNoArgs(S, probe));
}

/* hold_scoped(buffer, probe): the buffer parsed in a scope, probe() called
 * after the scope closed. */
CYSTCK_DEF_METH(hold_scoped_def, "hold_scoped", hold_scoped, CYSTCK_VARARGS, "")
static int hold_scoped(Cystck_State *S, Cystck_Object self, const Cystck_Object *args,
                       Cystck_ssize_t nargs)
{
    Py_buffer view;
    Cystck_Object probe;
    Cystck_Scope sc = Cystck_OpenScope(S);
    if (!CystckArg_ParseTuple(S, args, nargs, "w*O:hold_scoped", &view, &probe))
        return -1;
    Cystck_CloseScope(S, sc);
    return Cystck_Return(S, CystckObject_CallNoArgs(S, probe));
}
'''


@pytest.fixture(scope="module")
def exts(tmp_path_factory):
    d = tmp_path_factory.mktemp("argparse")
    stock_c, cystck_c = d / "ap_stock.c", d / "ap_cystck.c"
    stock_c.write_text(ac.stock_source("ap_stock", CASES))
    cystck_c.write_text(ac.cystck_source("ap_cystck", CASES + UNSUPPORTED + MALFORMED,
                                         HOLD, ["hold_def", "hold_scoped_def"]))
    stock = build_extension("ap_stock", [stock_c], d, use_cystck=False,
                            extra_compile_args=WARNINGS)
    cystck = build_extension("ap_cystck", [cystck_c], d, extra_compile_args=WARNINGS)
    return load_extension("ap_stock", stock), load_extension("ap_cystck", cystck)


@pytest.fixture(scope="module")
def shared_cache_ext(tmp_path_factory):
    """The Cystck extension without per-call-site parsers: every keyword
    parse goes through the runtime's shared parser cache."""
    d = tmp_path_factory.mktemp("argparse_shared")
    source = d / "ap_shared.c"
    source.write_text(ac.cystck_source("ap_shared", CASES + UNSUPPORTED + MALFORMED))
    path = build_extension("ap_shared", [source], d, extra_compile_args=WARNINGS,
                           define_macros=[("CYSTCK_NO_SITE_PARSERS", None)])
    return load_extension("ap_shared", path)


def outcome(f, *args, **kwargs):
    try:
        return ("ok", f(*args, **kwargs))
    except Exception as e:         # the type and message are what is compared
        return (type(e).__name__, str(e))


def keyword_index(case):
    """The index of a keyword case for Caller()."""
    return [c.name for c in CASES + UNSUPPORTED + MALFORMED
            if c.kwlist is not None].index(case.name)


def compare(stock, cystcks, case, args, kwargs):
    """The outcome of stock's case, and the same through each Cystck
    extension, called both with a keyword tuple (vectorcall) and, for
    keyword cases, a dict."""
    expected = outcome(getattr(stock, case.name), *args, **kwargs)
    got = []
    for cystck in cystcks:
        got.append(outcome(getattr(cystck, case.name), *args, **kwargs))
        if case.kwlist is not None:
            got.append(outcome(cystck.Caller(), keyword_index(case), *args, **kwargs))
    return expected, got


def differences(stock, cystcks, case, args, kwargs):
    """compare()'s outcomes that differ from stock's, with the call."""
    expected, got = compare(stock, cystcks, case, args, kwargs)
    return [(args, kwargs, expected, g) for g in got if g != expected]


@pytest.mark.parametrize("case", SINGLE, ids=lambda c: f"{c.fmt}/{c.kwlist}")
def test_each_unit_converts_like_cpython(exts, shared_cache_ext, case):
    stock, cystck = exts
    mismatches = []
    for value in VALUES:
        calls = [((value,), {})] if case.kwlist is None else [((value,), {}), ((), {"a": value})]
        calls += [((), {}), ((value, value), {})]
        for args, kwargs in calls:
            mismatches += differences(stock, [cystck, shared_cache_ext], case, args, kwargs)
    assert mismatches == []


MULTI_CALLS = [
    ((), {}), ((1,), {}), ((1, 2), {}), ((1, 2, 3), {}), ((1, 2, 3, 4), {}),
    (("x",), {}), ((1, "x"), {}), ((b"ab", b"cd"), {}), ((1, 2.5, 3), {}),
    ((), {"a": 1}), ((), {"b": 2}), ((), {"a": 1, "b": 2}), ((1,), {"a": 2}),
    ((1,), {"b": 2}), ((1,), {"c": 3}), ((1,), {"d": 4}), ((1, 2), {"c": 3}),
    ((1, 2), {"a": 3}), ((1, 2, 3), {"c": 4}), ((), {"a": 1, "b": 2, "c": 3, "d": 4}),
    ((), {"obj": "[1]"}), (("[1]",), {"precise_float": True}), (("1", "2"), {}),
    ((1,), {"b": "x"}), ((), {"c": 1}), ((1,), {"b": 2, "e": 5}), (("x",), {"e": 5}),
    ((), {"a": "x", "b": b"y"}), ((1, 2.5), {"c": None}), ((5,), {"c": 2.5}),
]


@pytest.mark.parametrize("case", MULTI, ids=lambda c: f"{c.fmt}/{c.kwlist}")
def test_counts_keywords_and_names_like_cpython(exts, shared_cache_ext, case):
    stock, cystck = exts
    mismatches = []
    for _ in range(2):             # the second time through the cached parsers
        for args, kwargs in MULTI_CALLS:
            if case.kwlist is None and kwargs:
                # Refused before parsing, by the method object: its message
                # depends on the calling convention (METH_VARARGS names the
                # function bare, fastcall ones qualified), not the parser.
                continue
            if case.fmt.startswith("O!"):
                args = (5,) + args[1:] if args else args
            mismatches += differences(stock, [cystck, shared_cache_ext], case, args, kwargs)
    assert mismatches == []


def test_issue_18_examples(exts):
    stock, cystck = exts
    loads = [c for c in MULTI if c.fmt == "O:loads"][0].name
    f = [c for c in SINGLE if c.fmt == "s*:f"][0].name
    g = [c for c in SINGLE if c.fmt == "y*:f"][0].name
    n = [c for c in SINGLE if c.fmt == "n:f"][0].name
    assert getattr(cystck, f)("foo") == getattr(stock, f)("foo") == [b"foo", 1]
    assert getattr(cystck, g)(b"foo") == [b"foo", 1]
    for m in exts:
        with pytest.raises(TypeError, match=r"^loads\(\) takes at most 1 argument \(2 given\)$"):
            getattr(m, loads)("[1]", precise_float=True)
        with pytest.raises(TypeError, match="^'float' object cannot be interpreted as an integer$"):
            getattr(m, n)(1.5)


@pytest.mark.parametrize("case", UNSUPPORTED + MALFORMED, ids=lambda c: c.fmt)
def test_unsupported_units_raise_before_any_output(exts, shared_cache_ext, case):
    unit = ac.split_units(case.fmt)[1]
    for cystck in [exts[1], shared_cache_ext]:
        calls = [getattr(cystck, case.name)]
        if case.kwlist is not None:
            calls.append(lambda *a: cystck.Caller()(keyword_index(case), *a))
        for f in calls:
            for args in [(1, "x"), (1, (2, 3)), (1,)]:
                with pytest.raises(SystemError) as e:
                    f(*args)
                assert f"format unit '{unit}'" in str(e.value)
                assert f'format "{case.fmt}"' in str(e.value)
                assert cystck.last_untouched() == 1


def resize_probe(buffer):
    def probe():
        try:
            buffer.append(0)
        except BufferError:
            return "held"
        buffer.pop()
        return "free"
    return probe


def test_buffer_is_held_until_the_frame_closes(exts):
    _, cystck = exts
    buffer = bytearray(b"abc")
    before = sys.getrefcount(buffer)
    assert cystck.hold(buffer, False, resize_probe(buffer)) == "held"
    assert buffer == bytearray(b"Wbc")
    assert resize_probe(buffer)() == "free"          # released with the frame
    assert sys.getrefcount(buffer) == before


def test_buffer_released_with_the_scope_it_was_parsed_in(exts):
    _, cystck = exts
    buffer = bytearray(b"abc")
    assert cystck.hold_scoped(buffer, resize_probe(buffer)) == "free"


def test_buffer_released_explicitly(exts):
    _, cystck = exts
    buffer = bytearray(b"abc")
    before = sys.getrefcount(buffer)
    for _ in range(3):
        assert cystck.hold(buffer, True, resize_probe(buffer)) == "free"
    assert buffer == bytearray(b"Wbc")
    assert sys.getrefcount(buffer) == before


def test_buffer_released_when_a_later_unit_fails(exts):
    _, cystck = exts
    buffer = bytearray(b"abc")
    before = sys.getrefcount(buffer)
    with pytest.raises(RuntimeError, match="no truth value"):
        cystck.hold(buffer, Falsy(), None)
    assert resize_probe(buffer)() == "free"
    assert sys.getrefcount(buffer) == before


def test_buffer_units_do_not_leak(exts):
    stock, cystck = exts
    names = {c.fmt: c.name for c in SINGLE}
    data = bytearray(b"abc")
    text = "text"
    before = sys.getrefcount(data), sys.getrefcount(text)
    for _ in range(100):
        for fmt in ["s*:f", "z*:f", "y*:f", "w*:f"]:
            outcome(getattr(cystck, names[fmt]), data)
            outcome(getattr(cystck, names[fmt]), text)
    assert (sys.getrefcount(data), sys.getrefcount(text)) == before


class Reenter:
    """An index whose __index__ calls the function converting it again,
    positionally: the inner call binds the same parser to other sources."""
    def __init__(self, f):
        self.f = f

    def __index__(self):
        self.inner = outcome(self.f, 1, 3.0)
        return 7


def test_conversion_reentering_its_own_parser(exts, shared_cache_ext):
    """|ldO binds inline, except an `l` that is no exact int: its
    conversion runs __index__, which calls the same function with other
    arguments.  The outer call must go on binding from its own sources."""
    case = next(c for c in MULTI if (c.fmt, c.kwlist) == ("|ldO:f", ["a", "b", "c"]))
    stock = getattr(exts[0], case.name)
    expected = outcome(stock, b=2.0, a=Reenter(stock))
    assert expected[0] == "ok"
    for cystck in (exts[1], shared_cache_ext):
        f = getattr(cystck, case.name)
        assert outcome(f, b=2.0, a=Reenter(f)) == expected


class BadItem:
    """A sequence of two whose second item raises."""
    def __len__(self):
        return 2

    def __getitem__(self, i):
        if i:
            raise KeyError(i)
        return 1


NESTED_VALUES = [
    (1.5, 2), [1, 2.5], (1, 2, 3), (1,), (), 5, None, b"ab", "ab", bytearray(b"ab"), range(2),
    ((1, 2), OBJ), ([3, 4], b"x"), ((1, "y"), OBJ), ((1, 2, 3), OBJ), (5, OBJ), ((1, 2),),
    ("s", b"y"), (b"s", bytearray(b"y")), (None, "x"), (OBJ, (7, 5)), (OBJ, (7, None)),
    (OBJ, ("7", 5)), ((1, 2), ((2.5,), b"s")), ((1, 2), ((2.5,), "s")), ((1, 2), (("x",), b"s")),
    ((1, 2), (2.5, b"s")), (None, None, 1j), ("a", "b", 1j), (b"c",), ("c",),
    (2**40, 1), (2**63, True), BadItem(), {1: 2, 3: 4},
]


@pytest.mark.parametrize("case", NESTED, ids=lambda c: f"{c.fmt}/{c.kwlist}")
def test_nested_units_like_cpython(exts, shared_cache_ext, case):
    """Not a sequence, bytes, the wrong length, an item of the wrong type,
    at each level: the message names the argument and the items."""
    stock, cystck = exts
    mismatches = []
    n = len(case.units)
    for _ in range(2):             # the second time through the cached parsers
        for value in NESTED_VALUES:
            calls = [(tuple([value] * k), {}) for k in range(n + 2)]
            calls += [((value,) * (n - 1), {}), ((7, value, value), {}), ((OBJ, value), {}),
                      ((OBJ, value, value), {})]
            if case.kwlist is not None:
                calls += [((), {name: value}) for name in case.kwlist]
                calls += [((), dict.fromkeys(case.kwlist, value)), ((7,), {"b": value})]
            for args, kwargs in calls:
                mismatches += differences(stock, [cystck, shared_cache_ext], case, args, kwargs)
    assert mismatches == []


def test_unit_inside_parentheses_unsupported(tmp_path):
    """A unit Cystck does not implement inside "(...)" is named, before any
    output is written."""
    cases = [Case("inner_pos", "i(iw):f"), Case("inner_kw", "i|(is)(w)", ["a", "b", "c"]),
             Case("unclosed", "(ii:f")]
    source = tmp_path / "ap_inner.c"
    source.write_text(ac.cystck_source("ap_inner", cases))
    m = load_extension("ap_inner", build_extension("ap_inner", [source], tmp_path,
                                                   extra_compile_args=WARNINGS + [
                                                       "-Wno-unused-function"]))
    for name, unit in [("inner_pos", "w"), ("inner_kw", "w"), ("unclosed", "(ii:f")]:
        with pytest.raises(SystemError, match=f"format unit '{re.escape(unit)}'"):
            getattr(m, name)(1, (2, "x"))
        assert m.last_untouched() == 1
