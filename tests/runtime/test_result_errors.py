"""Differential: functions that break the result convention
(tests/runtime/ext/st_result_errors.c), a value returned with an exception
set or NULL returned with none, built stock and as cystck-migrate translates
it.  CPython checks a method's result (_Py_CheckFunctionResult: SystemError
"<callable> returned a result with an exception set", chained from the
pending one, or "... returned NULL without setting an exception") in its
generic calls; its specialized calls of METH_O and METH_FASTCALL functions
skip the check, and every CYSTCK_VARARGS method is METH_FASTCALL.  The
runtime checks a method's result in every call where the check costs the
success path nothing (docs/runtime.md, "Results and exceptions"): NULL
with no exception set, and a value returned after an exception was raised
through the API in the call (CystckErr_SetString, CystckErr_Format,
CystckErr_NoMemory, the runtime's own errors: the frame notes it).  Slots
and getters return what the function gave, as stock ones do.  Each case is
called from a fresh code object (unspecialized, as CPython's first calls
are), in release and with CYSTCK_DEBUG=1 (where a value returned with an
exception set raises that exception, as debug mode does for every
function)."""
import ctypes

import pytest

from cystck.build import load_extension

METHODS = {"noargs": "m.noargs()", "o": "m.o(1)", "varargs": "m.varargs()",
           "keywords": "m.keywords(a=1)", "fastcall": "m.fastcall(1)", "meth": "b.meth()"}
SLOTS = {"repr": "repr(b)", "add": "b + 1", "call": "b()", "getitem": "b[0]", "next": "next(b)",
         "prop": "b.prop", "lt": "b < 1"}
# 1, 4, 5: a value with an exception raised (PyErr_SetString, PyErr_Format,
# PyErr_NoMemory); 2: NULL with none
RAISED = (1, 4, 5)
CASES = [(mode, expr) for mode in (*RAISED, 2) for expr in {**METHODS, **SLOTS}.values()]


def surface():
    """Raise the exception pending in the error indicator, if any: ctypes
    checks it after each call of a pythonapi function."""
    ctypes.pythonapi.Py_IsInitialized()


def call(m, expr, times=1):
    """The outcomes of evaluating expr `times` times in one fresh code object:
    the value, or the exception's type, message (the module's name spelled
    MOD), its cause's type and message, and whether its context is its
    cause; or "LEAKED" and the type of the exception that was left pending
    after the call instead."""
    b = m.Box()
    f = eval(compile("lambda: " + expr, "<case>", "eval"), {"m": m, "b": b})
    out = []
    for _ in range(times):
        try:
            try:
                r = ("value", f())
            except Exception as e:
                c = e.__cause__
                r = (type(e).__name__, str(e).replace(m.__name__, "MOD"),
                     c and type(c).__name__, c and str(c), e.__context__ is c)
            surface()
        except Exception as e:
            r = ("LEAKED", type(e).__name__)
        out.append(r)
    return out


def compare(stock, ported, mode, expr, times=1):
    got = []
    for m in (stock, ported):
        m.set_mode(mode)
        try:
            got.append(call(m, expr, times))
        finally:
            m.set_mode(0)
    return None if got[0] == got[1] else (mode, expr, *got)


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("result_errors")


@pytest.mark.parametrize("mode, expr", CASES)
def test_same_as_stock(exts, mode, expr):
    assert compare(*exts, mode, expr) is None


def test_the_comparison_compares_something(exts):
    for m in exts:
        m.set_mode(1)
        assert call(m, "m.o(1)") == [(
            "SystemError", "<built-in function o> returned a result with an exception set",
            "ValueError", "left pending", True)]
        assert call(m, "b.meth()") == [(
            "SystemError", "<method 'meth' of 'MOD.Box' objects> returned a result with an "
            "exception set", "ValueError", "left pending", True)]
        m.set_mode(2)
        assert call(m, "m.fastcall()") == [(
            "SystemError", "<built-in function fastcall> returned NULL without setting an "
            "exception", None, None, True)]
        m.set_mode(0)


@pytest.mark.parametrize("expr", [METHODS["varargs"], METHODS["keywords"]])
@pytest.mark.parametrize("mode", [*RAISED, 2])
def test_varargs_checked_in_every_call_as_stock(exts, mode, expr):
    """Stock METH_VARARGS functions are never specialized: every call is
    checked.  Their translation, METH_FASTCALL, was specialized after a few
    calls, and the exception surfaced later (LEAKED), or NULL with none gave
    ceval's "error return without exception set"."""
    assert compare(*exts, mode, expr, times=20) is None


@pytest.mark.parametrize("expr", METHODS.values())
@pytest.mark.parametrize("mode", [*RAISED, 3])
def test_every_method_call_checked(exts, mode, expr):
    """Where stock's specialized calls skip the check (METH_O, METH_FASTCALL,
    a type's methods: the exception surfaces later), the runtime still
    checks a raise it saw: SystemError in each of 20 calls (3: the runtime's
    own error, a null handle passed to CystckObject_Length)."""
    _, ported = exts
    ported.set_mode(mode)
    try:
        out = call(ported, expr, times=20)
    finally:
        ported.set_mode(0)
    assert {o[0] for o in out} == {"SystemError"}, out
    assert {o[1].endswith("returned a result with an exception set") for o in out} == {True}
    assert {o[2] for o in out} == {{1: "ValueError", 3: "SystemError", 4: "KeyError", 5: "MemoryError"}[mode]}


def run_all(paths):
    """Debug mode: the same, but for a function (method, slot or getter)
    that returns a value with an exception set, which debug mode reports at
    the call by raising that exception (typically a misuse it reported and
    the function ignored: docs/debug.md), in every call."""
    stock, ported = (load_extension(name, path) for name, path in paths)
    pending = {1: "ValueError", 4: "KeyError", 5: "MemoryError"}
    for mode, expr in CASES:
        if mode in RAISED:
            ported.set_mode(mode)
            times = 20 if expr in METHODS.values() else 3
            assert {o[0] for o in call(ported, expr, times)} == {pending[mode]}, (mode, expr)
            ported.set_mode(0)
        else:
            assert compare(stock, ported, mode, expr) is None, (mode, expr)
    for expr in (METHODS["varargs"], METHODS["keywords"]):
        assert compare(stock, ported, 2, expr, times=20) is None, expr


def test_debug_mode(exts, run_all_in_debug_mode):
    run_all_in_debug_mode("test_result_errors", [(m.__name__, m.__file__) for m in exts])
