"""CystckUnicode_FromFormat and CystckErr_Format take handles for %S %R %A
%U %V, and format exactly as PyUnicode_FromFormat and PyErr_Format do with
the same objects (tests/runtime/ext/rt_format.c runs each case both ways)."""
import pytest

from cystck.build import load_extension


class BadRepr:
    def __repr__(self):
        raise KeyError("no repr")


@pytest.fixture(scope="module")
def fmt(build_rt):
    path = build_rt("rt_format")
    return load_extension("rt_format", path)


def test_from_format_matches_stock(fmt):
    cystck, stock, _, _ = fmt.cases("h\u00e9llo \u20ac", 12345, BadRepr())
    assert cystck == stock
    # the cases do reach the object conversions (not only errors)
    assert cystck[1] == "h\u00e9llo \u20ac|'h\u00e9llo \u20ac'|'h\\xe9llo \\u20ac'"
    assert cystck[3] == "fallback \u00e9"


def test_err_format_matches_stock(fmt):
    _, _, cystck, stock = fmt.cases("h\u00e9llo \u20ac", 12345, BadRepr())
    assert cystck == stock
    assert cystck[1] == ("ValueError", "h\u00e9llo \u20ac|'h\u00e9llo \u20ac'|'h\\xe9llo \\u20ac'")


def test_the_null_handle_is_an_error_not_a_crash(fmt):
    with pytest.raises(SystemError, match="CystckUnicode_FromFormat"):
        fmt.null()


def test_matches_stock_in_debug_mode(fmt):
    # Debug mode checks every handle the formatter reads.
    import pathlib
    import subprocess
    import sys
    script = (f"import sys; sys.path.insert(0, {str(pathlib.Path(fmt.__file__).parent)!r})\n"
              "import rt_format\n"
              "class R:\n    def __repr__(self): raise KeyError('no repr')\n"
              "a, b, c, d = rt_format.cases('h\\u00e9', 7, R())\n"
              "assert a == b and c == d, (a, b)\n"
              "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={"CYSTCK_DEBUG": "1", "PATH": ""})
    assert out.stdout.strip() == "ok", out.stderr


def test_err_format_releases_handles_made_by_its_arguments(fmt):
    # CystckErr_Format copies the frame's header after its arguments are
    # evaluated: handles they make are released when the frame closes.
    import sys
    o = object()
    before = sys.getrefcount(o)
    for _ in range(3):
        with pytest.raises(ValueError) as info:
            fmt.err_arg_handles(o)
        del info
    assert sys.getrefcount(o) == before
