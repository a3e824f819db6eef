"""Typed methods (include/cystck/typed.h, docs/typed.md).

typed_ext.c declares C signatures with CYSTCK_DEF_TYPED(_POSONLY);
typed_stock.c has the same functions parsed by the stock
PyArg_ParseTuple(AndKeywords) with the equivalent formats.  Every call below
must give the same result, or raise the same exception with the same
message, on both (and on the C++ build of typed_ext.c).
"""
import inspect
import shutil
import subprocess
import sys
import sysconfig

import pytest

import cystck
from cystck.build import load_extension

WARNINGS = ["-Wall", "-Wextra", "-Werror"]


@pytest.fixture(scope="module")
def stock(build, ext_dir):
    path = build("typed_stock", [ext_dir / "typed_stock.c"], use_cystck=False,
                 extra_compile_args=WARNINGS)
    return load_extension("typed_stock", path)


@pytest.fixture(scope="module", params=["c", "c++"])
def typed(request, build, ext_dir):
    if request.param == "c":
        path = build("typed_ext", [ext_dir / "typed_ext.c"], extra_compile_args=WARNINGS)
        return load_extension("typed_ext", path)
    path = build("typed_ext_cpp", [ext_dir / "typed_ext_cpp.cpp"], language="c++",
                 extra_compile_args=WARNINGS)
    return load_extension("typed_ext_cpp", path)


class Index:
    """An int-like object that is not an int: the converters' slow path."""
    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


class Truthy:
    def __bool__(self):
        raise RuntimeError("no truth")


class IntSub(int):
    pass


CALLS = [
    # kwargs(a, b, c=0, d=0): "ll|ll"
    "kwargs(1, 2)", "kwargs(1, 2, 3)", "kwargs(1, 2, 3, 4)", "kwargs(1, 2, c=3, d=4)",
    "kwargs(1, 2, d=4, c=3)", "kwargs(a=1, b=2)", "kwargs(b=2, a=1, d=4)", "kwargs(1, b=2)",
    "kwargs(-1, -2)", "kwargs(2**40, 1)", "kwargs(-2**40, 1)", "kwargs(True, False)",
    "kwargs(IntSub(5), 1)", "kwargs(Index(7), 1)", "kwargs(1, 2, **{'c': 3})",
    "kwargs()", "kwargs(1)", "kwargs(1, c=3)", "kwargs(b=2)", "kwargs(1, 2, 3, 4, 5)",
    "kwargs(1, 2, 3, d=4, c=5)", "kwargs(1, 2, a=1)", "kwargs(1, 2, e=5)", "kwargs(1, 2, c=3, e=5)",
    "kwargs(a=1, b=2, c=3, d=4, e=5)", "kwargs(e=1)", "kwargs(1, 2.5)", "kwargs('x', 2)",
    "kwargs(1, b='x')", "kwargs(None, c='x')", "kwargs(1, 2, c=1.0)", "kwargs(2**70, 1)",
    "kwargs(1, -2**70)", "kwargs(sys.maxsize, 1)", "kwargs(1.5, e=1)", "kwargs(1, 2, a=1, e=1)",
    "kwargs(1, 2, 3, 4, e=5)", "kwargs(1, c=2.5)", "kwargs(Index(2**80), 1)",
    # long_inc(n, /): "l"
    "long_inc(5)", "long_inc(-5)", "long_inc(0)", "long_inc(True)", "long_inc(2**40)",
    "long_inc(sys.maxsize)", "long_inc(2**70)", "long_inc(1.5)", "long_inc('3')", "long_inc(None)",
    "long_inc()", "long_inc(1, 2)", "long_inc(n=1)", "long_inc(Index(9))",
    # add_doubles(a, b, /): "dd"
    "add_doubles(1.5, 2.25)", "add_doubles(1, 2)", "add_doubles(True, 2**70)",
    "add_doubles(1.5)", "add_doubles(1, 2, 3)", "add_doubles()", "add_doubles('a', 1.0)",
    "add_doubles(1.0, None)", "add_doubles(2**2000, 1.0)", "add_doubles(Index(1), 1.0)",
    "add_doubles(a=1.0, b=2.0)",
    # mixed(s, n, x=1.5, flag=False, obj=None, big=-7, i=0): "sn|dpOLi"
    "mixed('a', 1)", "mixed('é', -3, 2.0, True, [1], 2**40, -5)",
    "mixed(s='a', n=1, i=7)", "mixed('a', 1, flag=[])", "mixed('a', 1, flag=[0])",
    "mixed('a', 1, flag=Truthy())", "mixed('a\\0b', 1)", "mixed(b'a', 1)", "mixed(None, 1)",
    "mixed('\\ud800', 1)", "mixed('a', 1.0)", "mixed('a', '1')", "mixed('a', 2**70)",
    "mixed('a', Index(3))", "mixed('a', 1, big=2**70)", "mixed('a', 1, big=1.0)",
    "mixed('a', 1, i=2**31)", "mixed('a', 1, i=-2**31 - 1)", "mixed('a', 1, i=2**31 - 1)",
    "mixed('a', 1, x='x')", "mixed('a', 1, obj=None)", "mixed('a', 1, 2, 3, 4, 5, 6, 7)",
    "mixed('a')", "mixed(n=1)", "mixed('a', n=1, s='b')", "mixed(1, 2, zz=3)",
    # results through the error convention: -1 is a value unless an exception is set
    "half(4)", "half(-2)", "half(3)", "half(2**31)", "half(n=6)", "half(m=6)", "half()",
    "check(True)", "check(0)", "check([])", "check(ok=1)", "check(Truthy())",
    "length([1, 2])", "length('abc')", "length(5)", "length(o=(1,))", "length()",
]


def outcome(module, call):
    namespace = {"sys": sys, "Index": Index, "Truthy": Truthy, "IntSub": IntSub}
    try:
        return ("ok", eval("m." + call, namespace, {"m": module}))
    except Exception as e:     # noqa: BLE001 - the exception is the result
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("call", CALLS)
def test_same_as_stock(typed, stock, call):
    assert outcome(typed, call) == outcome(stock, call)


def test_cached_keywords_then_other_calls(typed, stock):
    """The inline keyword path remembers the last keyword-names tuple: calls
    with other names, counts or errors in between must not be bound with it."""
    calls = ["kwargs(1, 2, c=3, d=4)", "kwargs(1, 2, c=3, d=4)", "kwargs(1, c=3, d=4)",
             "kwargs(1, 2, c=3, d=4)", "kwargs(1, 2, 3, c=3, d=4)", "kwargs(1, 2, c='x', d=4)",
             "kwargs(1, 2, c=3, d=4)", "kwargs(1, 2, d=3, c=4)", "kwargs(1, 2, c=3)",
             "kwargs(1, b=2, c=3, d=4)", "kwargs(1, 2, c=3, d=4)"]
    for _ in range(3):
        assert [outcome(typed, c) for c in calls] == [outcome(stock, c) for c in calls]


def test_text_signature(typed):
    assert typed.kwargs.__text_signature__ == "($self, a, b, c=0, d=0)"
    assert typed.long_inc.__text_signature__ == "($self, n, /)"
    assert str(inspect.signature(typed.kwargs)) == "(a, b, c=0, d=0)"
    assert str(inspect.signature(typed.add_doubles)) == "(a, b, /)"
    assert str(inspect.signature(typed.mixed)) == "(s, n, x=1.5, flag=0, obj=None, big=-7, i=0)"
    assert typed.kwargs.__doc__ == "the sum as a C long"


def test_machine_readable_signature(typed):
    sigs = typed.__cystck_signatures__
    assert set(sigs) == {"kwargs", "long_inc", "add_doubles", "mixed", "half", "check", "length"}
    kw = sigs["kwargs"]
    assert kw["return"] == "long" and kw["keywords"] is True and kw["format"] == "ll|ll"
    assert kw["params"] == (("a", "long", True), ("b", "long", True),
                            ("c", "long", False), ("d", "long", False))
    assert type(kw["impl"]).__name__ == "PyCapsule"
    assert sigs["long_inc"]["keywords"] is False
    assert sigs["add_doubles"]["return"] == "double"
    assert sigs["mixed"]["format"] == "sn|dpOLi"
    assert sigs["check"]["return"] == "None"
    assert cystck.typed_signature(typed.kwargs) == kw
    assert cystck.typed_signature(len) is None


def test_typed_method_of_a_type(typed):
    s = typed.Scaler()
    assert s.scaled(1.5) == (s, 3.0)
    assert s.scaled(k=2) == (s, 4.0)
    assert str(inspect.signature(typed.Scaler.scaled)) == "(self, /, k)"
    assert str(inspect.signature(s.scaled)) == "(k)"
    with pytest.raises(TypeError, match=r"^scaled\(\) missing required argument 'k' \(pos 1\)$"):
        s.scaled()
    sig = typed.Scaler.__cystck_signatures__["scaled"]
    assert sig["return"] == "object" and sig["format"] == "d"
    assert cystck.typed_signature(typed.Scaler.scaled) == sig
    assert cystck.typed_signature(s.scaled) == sig

    class Sub(typed.Scaler):
        def scaled(self, k):
            return k
    assert cystck.typed_signature(Sub().scaled) is None
    assert cystck.typed_signature(Sub.scaled) is None


MISMATCHED = r"""
#include "Cystck.h"
static long impl(Cystck_State *S, Cystck_Object self, long a, double b)
{ (void)S; (void)self; return a + (long)b; }
CYSTCK_DEF_TYPED(f_def, "f", impl, LONG, "", CYSTCK_ARG(LONG, a), CYSTCK_ARG(LONG, b))
"""
MATCHED = MISMATCHED.replace("double b", "long b")
WRONG_RESULT = MATCHED.replace("static long impl", "static double impl")


@pytest.mark.parametrize("compiler, suffix", [("gcc", ".c"), ("g++", ".cpp")])
@pytest.mark.parametrize("source, compiles", [(MATCHED, True), (MISMATCHED, False),
                                              (WRONG_RESULT, False)],
                         ids=["matched", "wrong-parameter", "wrong-result"])
def test_signature_mismatch_does_not_compile(tmp_path, compiler, suffix, source, compiles):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    src = tmp_path / f"mismatch{suffix}"
    src.write_text(source)
    r = subprocess.run([compiler, "-Wall", "-Wextra", "-Wno-unused-variable", "-Wno-unused-function",
                        "-fsyntax-only", "-I", cystck.get_include(),
                        "-I", sysconfig.get_paths()["include"], str(src)],
                       capture_output=True, text=True)
    assert (r.returncode == 0) == compiles, r.stderr
