"""The stock C API's version of each misuse that has one, next to Cystck's.

The stock extensions (stock/*.c) run with PYTHONMALLOC=debug, which fills
freed memory with a poison byte: what would otherwise read stale memory
quietly (and usually "work") then crashes or gives a wrong value every time.
The same program against the Cystck version, in debug mode, gets a Python
exception instead; nothing is reported by the stock build.
"""
import signal

from debug_harness import DEBUG_TAG, run

POISON_FREED_MEMORY = {"PYTHONMALLOC": "debug"}


def assert_corrupted(r, correct):
    """The stock run did not give the correct result: it died from a signal
    or printed something else."""
    if r.crashed:
        assert -r.returncode in (signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT), r.describe()
    else:
        assert r.outcomes != [correct], r.describe()


def test_use_after_decref(ext):
    scenario = 'n = int("1" * 9)\noutcome(m.square, n)\n'
    correct = {"value": repr(int("1" * 9) ** 2)}
    assert_corrupted(run(ext["stock_use_after_decref"], scenario, debug=False,
                         env=POISON_FREED_MEMORY), correct)
    r = run(ext["dbg_use_after_drop"], scenario, debug=True, env=POISON_FREED_MEMORY)
    assert r.outcome["error"] == "SystemError", r.describe()
    assert r.outcome["message"].startswith("CystckLong_AsLongLong: handle used after it was released")


def test_borrowed_reference_outliving_its_owner(ext):
    # The list, and the int in it, die when keep_first returns.
    scenario = 'm.keep_first([int("1" * 21)])\noutcome(m.negate_kept)\n'
    correct = {"value": repr(-int("1" * 21))}
    assert_corrupted(run(ext["stock_borrowed"], scenario, debug=False, env=POISON_FREED_MEMORY),
                     correct)
    r = run(ext["dbg_keep_handle"], scenario, debug=True, env=POISON_FREED_MEMORY)
    assert r.outcome["error"] == "SystemError", r.describe()
    assert r.outcome["message"].startswith(
        "CystckNumber_Negative: handle used after the call that created it returned")


# remember() keeps the last 4 values: the first 2 of 6 are overwritten
# without being released, forget() releases the other 4.
LEAK = """values = [object() for i in range(6)]
before = [sys.getrefcount(x) for x in values]
for x in values:
    m.remember(x)
del x
m.forget()
after = [sys.getrefcount(x) for x in values]
emit("LEAKED", [a - b for a, b in zip(after, before)])
"""


def test_leaked_reference(ext):
    stock = run(ext["stock_leak"], LEAK, debug=False)
    assert stock.lines("LEAKED") == [[1, 1, 0, 0, 0, 0]], stock.describe()
    assert stock.returncode == 0 and stock.stderr == ""       # nothing tells
    cystck = run(ext["dbg_leaked_ref"], LEAK, debug=True)
    assert cystck.lines("LEAKED") == [[1, 1, 0, 0, 0, 0]], cystck.describe()
    assert cystck.returncode == 0
    reports = [line for line in cystck.stderr.splitlines()
               if line.startswith("ResourceWarning: Cystck reference never released")]
    assert len(reports) == 2 and all(line.endswith(DEBUG_TAG) for line in reports), cystck.stderr


def test_handles_do_not_leak(ext):
    # The stock bug is a missing Py_DECREF; its Cystck translation is a
    # missing Cystck_Drop, which is not a bug: the call releases its handles.
    scenario = ("x = object()\nbefore = sys.getrefcount(x)\n"
                "for i in range(100):\n    m.hold(x)\n"
                "emit('DELTA', sys.getrefcount(x) - before)\n")
    for debug in (False, True):
        r = run(ext["dbg_leaked_ref"], scenario, debug=debug)
        assert r.lines("DELTA") == [0] and r.stderr == "", r.describe()


def test_double_decref(ext):
    # The callback is also held by `holder`; one release too many frees it
    # while `holder` still points at it.
    scenario = """f = object()
holder = [f]
m.set_callback(f)
before = sys.getrefcount(f)
m.clear_callback()
outcome(m.clear_callback)
emit("RELEASED", before - sys.getrefcount(f))
del f
outcome(lambda: holder[0])
"""
    stock = run(ext["stock_double_decref"], scenario, debug=False, env=POISON_FREED_MEMORY)
    # Silently released twice: the count drops by 2 for one reference...
    assert stock.lines("RELEASED") == [2], stock.describe()
    assert stock.outcomes[:1] == [{"value": "None"}], stock.describe()
    # ...and the object is freed under `holder`.
    assert stock.crashed or not stock.outcomes[1]["value"].startswith("<object object at"), \
        stock.describe()

    cystck = run(ext["dbg_double_unref"], scenario, debug=True, env=POISON_FREED_MEMORY)
    assert cystck.returncode == 0, cystck.describe()
    first, second = cystck.outcomes
    assert first["error"] == "SystemError"
    assert first["message"].startswith("Cystck_unref: reference released twice")
    assert cystck.lines("RELEASED") == [1]
    assert second["value"].startswith("<object object at")
