"""Helpers of the differential tests, which call a stock extension and its
translation alike and compare what comes back.  A module, not a fixture:
a test module's run_all() imports it in the child interpreter of
run_all_in_debug_mode too (tests/runtime is on sys.path there and under
pytest)."""


def outcome(f, *args, **kw):
    """f(*args, **kw), or the type and message of the exception it raised:
    the exception is part of the outcome."""
    try:
        return f(*args, **kw)
    except Exception as e:
        return type(e), str(e)
