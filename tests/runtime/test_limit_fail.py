"""API functions that make handles fail cleanly at the handle limit
(tests/runtime/ext/st_limitfail.c, built as it is and as cystck-migrate
translates it): a translated `while (PyDict_Next(...))` loop stops at the
item the frame cannot hold and the call raises MemoryError, in release and
in debug mode, where the stock build gives its result.  Before the fix,
CystckDict_Next and CystckDict_NextInto answered 1 with null handles, so
the loop went on and the key check raised `TypeError: keys must be
strings` instead.  An exception kept aside around a cleanup call at the
limit is restored as stock restores it."""
import os
import subprocess
import sys

import pytest

LIMIT = 4096

SCRIPT = """
import sys
sys.path[:0] = {paths!r}
import st_limitfail, rt_limitfail
limit = {limit}

def run(call):
    try:
        return repr(call())
    except Exception as e:
        return type(e).__name__ + ": " + str(e).split(":")[0]

d = {{"k" * (i % 7 + 1) + str(i): i for i in range(limit)}}
print("longer_keys", run(lambda: st_limitfail.longer_keys(d)), run(lambda: rt_limitfail.longer_keys(d)), sep="|")
l = list(range(limit + 8))
small = {{"a": 1, "bb": 2}}
for k in range(limit - 40, limit + 4):
    print("keys_after", k, run(lambda: st_limitfail.keys_after(l, k, small)),
          run(lambda: rt_limitfail.keys_after(l, k, small)), sep="|")
for f in ("error_kept_aside", "error_type_read"):
    for k in range(limit - 40, limit + 4):
        print(f, k, run(lambda: getattr(st_limitfail, f)(l, k, 0)),
              run(lambda: getattr(rt_limitfail, f)(l, k, 0)), sep="|")
d3 = {{"a": 1, "b": 2}}
for k in range(limit - 40, limit + 4):
    print("items_after", k, run(lambda: st_limitfail.items_after(l, k, d3, "b", [3])),
          run(lambda: rt_limitfail.items_after(l, k, d3, "b", [3])), sep="|")
def reported(f, k):
    seen = []
    count = iter(range(1000))
    def cb():
        raise ValueError(next(count))
    def hook(u):
        e = u.exc_value
        seen.append(type(e).__name__ + ("<-" + type(e.__context__).__name__ + ":" + str(e.__context__)
                                        if e.__context__ is not None else ":" + str(e).split(":")[0]))
    sys.unraisablehook = hook
    try:
        r = run(lambda: f(l, k, cb, 20))
    finally:
        sys.unraisablehook = sys.__unraisablehook__
    return r + " " + ",".join(seen)
for f in ("errors_reported", "error_types_counted"):
    for k in range(limit - 40, limit + 4):
        print(f, k, reported(getattr(st_limitfail, f), k), reported(getattr(rt_limitfail, f), k), sep="|")
print("restore_nothing_clears", 0, run(lambda: st_limitfail.restore_nothing_clears(0)),
      run(lambda: rt_limitfail.restore_nothing_clears(0)), sep="|")
print("memory_error_replaced", 0, run(lambda: st_limitfail.memory_error_replaced(0)),
      run(lambda: rt_limitfail.memory_error_replaced(0)), sep="|")
"""


@pytest.fixture(scope="module")
def paths(stock_and_ported):
    st, rt = stock_and_ported("limitfail", ported_flags=["-Wall", "-Werror"])
    return [os.path.dirname(st.__file__), os.path.dirname(rt.__file__)]


def run_script(paths, debug):
    env = {"CYSTCK_DEBUG": debug, "CYSTCK_HANDLE_LIMIT": str(LIMIT), "PATH": ""}
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(paths=paths, limit=LIMIT)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return [line.split("|") for line in out.stdout.splitlines()]


@pytest.mark.parametrize("debug", ["0", "1"])
def test_dict_next_past_the_limit_raises_memory_error(paths, debug):
    """CystckDict_Next (longer_keys keeps every key: two new handles per
    item) and CystckDict_NextInto (keys_after: its first item, with the
    frame filled up to k handles before the loop)."""
    lines = run_script(paths, debug)
    name, stock, ported = lines[0]
    assert name == "longer_keys" and not stock.startswith(("MemoryError", "TypeError"))
    assert ported.startswith("MemoryError: Cystck handle limit exceeded"), ported
    results = {}
    for name, k, stock, ported in lines[1:]:
        if name != "keys_after":
            continue
        assert stock == "3", (k, stock)
        assert ported in ("3", "MemoryError: Cystck handle limit exceeded"), (k, ported)
        results[int(k)] = ported
    # the limit is reached inside the range of k: first in the dict loop,
    # then in the list loop before it
    assert results[LIMIT - 40] == "3" and results[LIMIT + 3] != "3"


@pytest.mark.parametrize("debug", ["0", "1"])
def test_exception_taken_at_the_limit_is_restored(paths, debug):
    """PyErr_Fetch ... PyErr_Restore around a cleanup call, translated as
    CystckErr_GetRaisedException (error_kept_aside) and as CystckErr_Fetch
    (error_type_read, which reads the type), with the frame filled up to k
    handles first: the exception is restored (AttributeError, as stock) or
    the filling failed (MemoryError).  Before the fix, a null handle for the
    exception read as "no exception", the restore cleared the indicator and
    the call raised SystemError (an error return without an exception)."""
    seen = {}
    for name, k, stock, ported in run_script(paths, debug)[1:]:
        if name in ("error_kept_aside", "error_type_read"):
            assert stock.startswith("AttributeError"), (name, k, stock)
            assert ported == stock or ported == "MemoryError: Cystck handle limit exceeded", (name, k, ported)
            seen.setdefault(name, set()).add(ported == stock)
    assert seen == {"error_kept_aside": {True, False}, "error_type_read": {True, False}}


@pytest.mark.parametrize("debug", ["0", "1"])
def test_error_raised_for_a_null_read_keeps_the_memory_error(paths, debug):
    """items_after reads d[key], d["a"] and l2[0] with the frame filled up
    to k handles: the read that finds the frame full gives a null handle,
    which the stock code reads as a missing key (KeyError, by
    CystckErr_Format and CystckErr_SetString) or as no int (TypeError, by
    CystckErr_SetObject).  Before the fix that error replaced the
    MemoryError; now the raise leaves it."""
    results = {}
    for name, k, stock, ported in run_script(paths, debug)[1:]:
        if name == "items_after":
            assert stock == "6", (k, stock)
            results[int(k)] = ported
    wrong = {k: r for k, r in results.items()
             if r not in ("6", "MemoryError: Cystck handle limit exceeded")}
    assert not wrong
    assert results[LIMIT - 40] == "6" and results[LIMIT + 3] != "6"


@pytest.mark.parametrize("debug", ["0", "1"])
def test_error_raised_over_another_memory_error_replaces_it(paths, debug):
    """A MemoryError that is not the handle limit's is replaced by a later
    raise, as in stock."""
    lines = [line for line in run_script(paths, debug) if line[0] == "memory_error_replaced"]
    assert lines == [["memory_error_replaced", "0", "ValueError: replaced", "ValueError: replaced"]]


@pytest.mark.parametrize("debug", ["0", "1"])
def test_exceptions_taken_past_the_reserve_are_kept(paths, debug):
    """errors_reported and error_types_counted take 20 exceptions out of the
    indicator at the limit (1 slot each through
    CystckErr_GetRaisedException, 3 through CystckErr_Fetch), more than the slots reserved for them past the limit:
    each is still reported, as it is (ValueError) or, once no slot is left,
    as the limit's MemoryError whose __context__ it is.  Before the fix,
    the null handles read as "no exception", the restore cleared the
    indicator and the errors went unreported."""
    seen = {}
    want = ["ValueError:%d" % i for i in range(20)]
    for name, k, stock, ported in run_script(paths, debug)[1:]:
        if name not in ("errors_reported", "error_types_counted"):
            continue
        result = "20" if name == "error_types_counted" else "None"
        assert stock == result + " " + ",".join(want), (name, k, stock)
        if ported.startswith("MemoryError: Cystck handle limit exceeded"):
            seen.setdefault(name, set()).add("fill failed")
            continue
        count, reports = ported.split(" ")
        reports = reports.split(",")
        assert len(reports) == 20, (name, k, ported)
        for w, r in zip(want, reports):
            assert r in (w, "MemoryError<-" + w), (name, k, ported)
        assert name != "error_types_counted" or int(count) == sum(r == w for w, r in zip(want, reports))
        seen.setdefault(name, set()).add("chained" if reports[-1] != want[-1] else "kept")
    # every exception held, some not held, the frame full before the loop
    # (error_types_counted needs 60 slots: more than the range of k)
    assert seen == {"errors_reported": {"fill failed", "chained", "kept"},
                    "error_types_counted": {"fill failed", "chained"}}


@pytest.mark.parametrize("debug", ["0", "1"])
def test_restoring_no_exception_clears_another_error(paths, debug):
    """What PyErr_Fetch took with nothing raised, restored, clears an error
    raised since that is not the handle limit's, as in stock."""
    lines = [line for line in run_script(paths, debug) if line[0] == "restore_nothing_clears"]
    assert lines == [["restore_nothing_clears", "0", "None", "None"]]
