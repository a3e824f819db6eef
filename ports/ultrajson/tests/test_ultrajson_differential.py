"""Differential check: the HPy and Cystck builds of ujson behave like stock.

Hypothesis generates Python objects (with every dumps option) and JSON
documents, strings and byte strings (valid, mutated and arbitrary, so most
are invalid JSON).  Each input goes to a worker process per variant
(diff_worker.py); each answer must be identical to stock's: the same dumps output,
the same loads result (same types, same dict order, NaN and -0.0 included),
or the same exception type with the same message.  (One stock bug is set
aside: see _STALE_EXCEPTION; and for the HPy builds _message and
_carries_on_after_error.)

The number of generated examples is ULTRAJSON_DIFF_EXAMPLES (default
10,000), split over the tests below in the proportions of EXAMPLE_SHARES;
each test checks that it really ran its share.  The inputs are the same on
every run (derandomized), so a test run cannot fail on inputs no earlier
run saw; ULTRAJSON_DIFF_RANDOM=1 draws fresh ones, to look for new bugs.
"""

import decimal
import json
import math
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ports.ultrajson import diff_worker as dw
from ports.ultrajson import ujson_port as port

TOTAL_EXAMPLES = int(os.environ.get("ULTRAJSON_DIFF_EXAMPLES", "10000"))
EXAMPLE_SHARES = {"dumps": 0.4, "loads_json": 0.25, "loads_text": 0.15, "loads_bytes": 0.2}
FRESH_INPUTS = os.environ.get("ULTRAJSON_DIFF_RANDOM") == "1"


def examples(test):
    return max(1, round(TOTAL_EXAMPLES * EXAMPLE_SHARES[test]))


def hypothesis_settings(test):
    return settings(max_examples=examples(test), deadline=None, database=None,
                    derandomize=not FRESH_INPUTS,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def run_counted(check, test):
    """Run `check`, a Hypothesis test with `test`'s settings, and fail
    unless it ran at least the examples it asked for: a strategy Hypothesis
    exhausts or filters away would otherwise pass with few or none."""
    inner, ran = check.hypothesis.inner_test, 0

    def counted(*args, **kwargs):
        nonlocal ran
        ran += 1
        return inner(*args, **kwargs)

    check.hypothesis.inner_test = counted
    check()
    assert ran >= examples(test), f"{test}: ran {ran} examples of {examples(test)}"


@pytest.fixture(scope="module")
def workers():
    for variant in port.VARIANTS:
        if port.wheel_path(variant) is None:
            pytest.fail(port.missing_reason(variant), pytrace=False)
    started = {variant: dw.start(variant) for variant in port.VARIANTS}
    yield started
    for worker in started.values():
        worker.close()


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


# CPython's complaint when Python code is called with an exception already
# set.  Both builds inherit ujson's habit of carrying on after a failed
# conversion (Decimal('sNaN') to float, for one), and the exception left
# pending then trips the next call into Python, which may come in a later
# dumps in the same process: the answer depends on what the worker ran
# before, not only on the input.
_STALE_EXCEPTION = "returned a result with an exception set"


# Two messages the HPy builds cannot word exactly like CPython's C API, so
# HPy answers are compared with both sides normalized: hpy's argument parser
# (HPyArg_ParseKeywords) prefixes CPython's message with "function ", and
# HPyType_GetName gives a static type's short name where tp_name has its
# module ("got Decimal" for "got decimal.Decimal").
_HPY_ARGPARSE = re.compile(r"^function (?=signed integer is (greater|less) than (maximum|minimum)$)")
_TYPE_NAME = re.compile(r"(should return [\w ]+, got )(?:\w+\.)+(\w+)$")


def _message(text, hpy=False):
    text = _ADDRESS.sub("0x?", text)
    return _TYPE_NAME.sub(r"\1\2", _HPY_ARGPARSE.sub("", text)) if hpy else text


def _carries_on_after_error(x, sort_keys):
    """Whether dumps(x) makes stock ujson carry on with an exception pending
    (the stock bug _STALE_EXCEPTION is about): a Decimal('sNaN'), whose
    conversion to float fails, or with sort_keys a dict whose keys do not
    sort (whatever the comparison raises: TypeError, or InvalidOperation
    for a Decimal against a float NaN).  What happens next depends on which
    of the later steps go through Python's call protocol, which checks for a pending exception: the HPy
    builds make some calls that way (list.sort, str.encode for lone
    surrogates) where the C API has direct functions, so their answer to
    such an input may differ from stock's (whose own answer can be a
    SystemError, the pending exception, or a truncated result); so may the
    Cystck build's, seen once in 10,000 examples.  For those inputs the
    ported builds only have to answer without crashing."""
    if isinstance(x, decimal.Decimal):
        return x.is_snan()
    if isinstance(x, (list, tuple)):
        return any(_carries_on_after_error(i, sort_keys) for i in x)
    if isinstance(x, dict):
        if sort_keys:
            try:
                sorted(dw.materialize(k) for k in x)
            except Exception:   # TypeError, or Decimal's InvalidOperation against a NaN
                return True
        return any(_carries_on_after_error(v, sort_keys) for v in x.values())
    if isinstance(x, (dw.ToDict, dw.JSONMethod)):
        return _carries_on_after_error(x.result, sort_keys)
    return False


def _ask_all(workers, op, arg, kwargs):
    return {variant: worker.call(op, arg, **kwargs) for variant, worker in workers.items()}


def check_same(workers, op, arg, **kwargs):
    """Send one request to every variant and compare each answer with stock's."""
    answers = _ask_all(workers, op, arg, kwargs)
    if any(a[0] == "raised" and _STALE_EXCEPTION in a[2] for a in answers.values()):
        # Ask again in fresh processes, so all start from the same history.
        for variant in list(workers):
            workers[variant].close()
            workers[variant] = dw.start(variant)
        answers = _ask_all(workers, op, arg, kwargs)
    stock = answers[port.REFERENCE]
    pending_exception = op == "dumps" and _carries_on_after_error(arg, kwargs.get("sort_keys"))
    for variant, other in answers.items():
        if pending_exception:
            continue          # stock's own answer is undefined there (see above)
        detail = (f"{op}({arg!r:.2000}, **{kwargs!r:.500})\n"
                  f"  stock:  {stock!r:.2000}\n  {variant}: {other!r:.2000}")
        assert stock[0] == other[0], detail
        if stock[0] == "ok":
            assert dw.same(stock[1], other[1]), detail
        else:
            assert stock[1] == other[1], detail                       # exception type
            hpy = variant in port.HPY_ABI
            assert _message(stock[2], hpy) == _message(other[2], hpy), detail
    return stock


# ---------------------------------------------------------------------------
# dumps
# ---------------------------------------------------------------------------

# Strings with lone surrogates too (dumps encodes with surrogatepass).
any_text = st.text() | st.text(st.characters(codec=None, categories=None), max_size=8)
small_ints = st.integers(min_value=-(2**64) - 5, max_value=2**64 + 5)
keys = st.one_of(any_text, st.binary(max_size=6), small_ints, st.floats(), st.booleans(),
                 st.none(), st.decimals(places=2, allow_nan=False), st.builds(dw.Opaque, st.just("K")))
scalars = st.one_of(
    st.none(), st.booleans(), small_ints, st.integers(), st.floats(), any_text,
    st.binary(max_size=12),
    st.decimals(allow_nan=True, allow_infinity=True),
    st.builds(dw.JSONMethod, st.one_of(st.text(max_size=10), st.binary(max_size=10),
                                       st.integers(), st.none())),
    st.builds(dw.Opaque, st.sampled_from(["Opaque()", "<é>", "x" * 40])),
)


def _extend(children):
    return st.one_of(
        st.lists(children, max_size=6),
        st.lists(children, max_size=6).map(tuple),
        st.dictionaries(keys, children, max_size=6),
        st.builds(dw.ToDict, st.dictionaries(any_text, children, max_size=4)
                  | children),
    )


documents = st.recursive(scalars, _extend, max_leaves=40)

dumps_options = st.fixed_dictionaries({}, optional={
    "ensure_ascii": st.booleans(),
    "encode_html_chars": st.booleans(),
    "escape_forward_slashes": st.booleans(),
    "sort_keys": st.booleans(),
    "indent": st.integers(min_value=-3, max_value=6) | st.sampled_from([1001, 2**40, "2"]),
    "allow_nan": st.booleans(),
    "reject_bytes": st.booleans(),
    "default": st.none() | st.builds(dw.Default, st.sampled_from(sorted(dw._DEFAULTS))),
    "separators": st.none() | st.tuples(st.text(max_size=3), st.text(max_size=3))
                  | st.sampled_from([(",",), [",", ":"], (1, ":"), (",", b":")]),
})


def test_dumps_identical(workers):
    @hypothesis_settings("dumps")
    @given(documents, dumps_options)
    # keys that do not sort: comparing a Decimal with a float NaN raises
    @example({math.nan: None, decimal.Decimal("0.00"): None}, {"sort_keys": True})
    def check(obj, options):
        check_same(workers, "dumps", obj, **options)

    run_counted(check, "dumps")


# ---------------------------------------------------------------------------
# loads
# ---------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | any_text,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(any_text, children, max_size=6),
    max_leaves=40)

# Characters that matter to a JSON parser, for the mutations.
json_chars = st.sampled_from(list('{}[]:,"\\/ \t\n\r0123456789.eE+-tfnulrasINaiy')
                             + ["\x00", "é", "\ud800", "\U0001f600"])


@st.composite
def json_documents(draw):
    """Valid JSON text (stdlib json, any formatting), then maybe mutated."""
    value = draw(json_values)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()),
                      indent=draw(st.none() | st.integers(0, 3)), allow_nan=True)
    for _ in range(draw(st.integers(0, 3))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        op = draw(st.sampled_from(["insert", "delete", "replace", "truncate"]))
        if op == "insert":
            text = text[:i] + draw(json_chars) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "replace":
            text = text[:i] + draw(json_chars) + text[i + 1:]
        else:
            text = text[:i]
    padding = draw(st.sampled_from(["", " ", "\n", "\t ", " x", "[]"]))
    return text + padding if draw(st.booleans()) else padding.strip("x[]") + text


def _encoded(text, how):
    if how == "str":
        return text
    data = text.encode("utf-8", "surrogatepass")
    return data if how == "bytes" else bytearray(data)


def test_loads_json_identical(workers):
    @hypothesis_settings("loads_json")
    @given(json_documents(), st.sampled_from(["str", "bytes", "bytearray"]))
    def check(text, how):
        check_same(workers, "loads", _encoded(text, how))

    run_counted(check, "loads_json")


def test_loads_text_identical(workers):
    @hypothesis_settings("loads_text")
    @given(st.one_of(any_text, st.text(json_chars), st.integers(), st.none(),
                     st.lists(st.integers(), max_size=2)))
    def check(arg):
        check_same(workers, "loads", arg)

    run_counted(check, "loads_text")


def test_loads_bytes_identical(workers):
    @hypothesis_settings("loads_bytes")
    @given(st.one_of(st.binary(), st.binary().map(bytearray),
                     st.tuples(json_documents(), st.binary(max_size=4), st.integers(0, 10**6))
                     .map(lambda t: _splice(*t))))
    def check(data):
        check_same(workers, "loads", data)

    run_counted(check, "loads_bytes")


def _splice(text, junk, where):
    """Valid-looking JSON bytes with arbitrary (mostly invalid UTF-8) bytes inside."""
    data = text.encode("utf-8", "surrogatepass")
    i = where % (len(data) + 1)
    return data[:i] + junk + data[i:]


# ---------------------------------------------------------------------------
# the checker itself
# ---------------------------------------------------------------------------

def test_same_tells_values_apart():
    """The comparison the checks rely on distinguishes what must differ."""
    assert dw.same([1, {"a": 1.0}], [1, {"a": 1.0}])
    assert dw.same(math.nan, math.nan)
    assert not dw.same(1, 1.0)
    assert not dw.same(True, 1)
    assert not dw.same(0.0, -0.0)
    assert not dw.same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not dw.same([1, [2]], [1, (2,)])
    assert not dw.same("1", b"1")


def test_run_counted_fails_a_test_that_ran_too_few_examples():
    @hypothesis_settings("loads_text")
    @given(st.integers())
    def enough(_):
        pass

    @hypothesis_settings("loads_text")
    @given(st.booleans())     # two values: Hypothesis stops when it has tried both
    def exhausted(_):
        pass

    run_counted(enough, "loads_text")
    with pytest.raises(AssertionError, match="loads_text: ran 2 examples of"):
        run_counted(exhausted, "loads_text")


def test_workers_are_the_two_variants(workers):
    """Each worker imports its own variant's build, from its own site."""
    for variant, worker in workers.items():
        status, path = worker.call("file", None)
        assert status == "ok"
        assert Path(path).parent == port.site_dir(variant), path


@pytest.mark.parametrize("obj", [
    # A dict from toDict() whose first value leaves no item behind and whose
    # next one fails: the key slot of every dict context must start empty
    # (found by test_dumps_identical, 2026-11-23).
    dw.ToDict({"a": (), "c": {1: dw.Opaque("Opaque()")}}),
    dw.ToDict({"a": [], "b": dw.ToDict({"c": {}}), "d": 1}),
    {"a": dw.ToDict({"b": (), "c": [dw.Opaque("x")]})},
], ids=["todict-error", "todict-nested", "todict-in-dict"])
def test_dumps_todict_dicts(workers, obj):
    check_same(workers, "dumps", obj)
