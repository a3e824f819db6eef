"""Cystck_New after Cystck_TypeIs / CystckObject_TypeCheck: the type tests
tell the compiler that a type equal to an object's type is a type, which
drops Cystck_New's own PyType_Check on that path (Point.__add__ in
eval/micro).  The results must not change: the tests still answer as
type(o) is t / isinstance, and Cystck_New still makes an instance
(tests/runtime/ext/rt_type_new.c)."""
import pathlib
import subprocess
import sys

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_type_new", build_rt("rt_type_new"))


class Plain:
    pass


class Sub(Plain):
    pass


class WithInit:
    def __init__(self):
        raise AssertionError("Cystck_New allocates: no __init__")


@pytest.mark.parametrize("exact", [True, False], ids=["TypeIs", "TypeCheck"])
def test_new_after_a_type_test(ext, exact):
    assert type(ext.new_if_type_is(Plain(), Plain, exact)) is Plain
    assert ext.new_if_type_is(3, Plain, exact) is None
    # not a type: no object's type is 5, and nothing is made
    assert ext.new_if_type_is(3, 5, exact) is None
    # a subclass instance passes the subtype test only
    r = ext.new_if_type_is(Sub(), Plain, exact)
    assert (r is None) if exact else (type(r) is Plain)


def test_new_of_the_objects_own_type(ext):
    for cls in (Plain, Sub):
        assert type(ext.new_of_type_of(cls())) is cls
    o = object.__new__(WithInit)
    assert type(ext.new_of_type_of(o)) is WithInit


def test_new_of_a_type_that_is_not_plain(ext):
    # A Python class (GC, CPython's tp_alloc): Cystck_New's general case,
    # which takes no frame state; the handles after it still work.
    a, b = ext.new_pair(Plain)
    assert type(a) is Plain and a is b
    o = object()
    before = sys.getrefcount(o)
    for _ in range(3):
        with pytest.raises(TypeError, match=r"^Cystck_New: expected a type, got object$"):
            ext.new_pair(o)
    assert sys.getrefcount(o) == before


def test_in_debug_mode(ext):
    script = (f"import sys; sys.path.insert(0, {str(pathlib.Path(ext.__file__).parent)!r})\n"
              "import rt_type_new as m\n"
              "class P: pass\n"
              "class Q(P): pass\n"
              "assert type(m.new_if_type_is(P(), P, True)) is P\n"
              "assert type(m.new_if_type_is(Q(), P, False)) is P\n"
              "assert m.new_if_type_is(Q(), P, True) is None\n"
              "assert m.new_if_type_is(3, 5, False) is None\n"
              "assert type(m.new_of_type_of(Q())) is Q\n"
              "a, b = m.new_pair(P)\n"
              "assert type(a) is P and a is b\n"
              "try:\n"
              "    m.new_pair(3)\n"
              "except TypeError as e:\n"
              "    assert str(e) == 'Cystck_New: expected a type, got int', e\n"
              "else:\n"
              "    raise AssertionError('no TypeError')\n"
              "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={"CYSTCK_DEBUG": "1", "PATH": ""})
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("debug", ["0", "1"])
def test_new_at_the_handle_limit(ext, debug):
    """Cystck_New whose handle cannot be made (the handle limit, made small
    here): the null handle, MemoryError and *data NULL, in release and in
    debug mode.  *data used to be set before the handle was made, and so
    pointed into the object released on that failure."""
    limit = 64
    script = (f"import sys; sys.path.insert(0, {str(pathlib.Path(ext.__file__).parent)!r})\n"
              "import rt_type_new as m\n"
              "class P: pass\n"
              "out = []\n"
              f"for k in range({limit} - 8, {limit} + 8):\n"
              "    try:\n"
              "        r = m.new_after(P, k)\n"
              "    except MemoryError:\n"
              "        r = 'dup'\n"
              "    out.append(r if isinstance(r, str) else type(r).__name__)\n"
              "print(' '.join(out))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={"CYSTCK_DEBUG": debug, "CYSTCK_HANDLE_LIMIT": str(limit), "PATH": ""})
    assert out.returncode == 0, out.stderr
    seen = out.stdout.split()
    assert set(seen) <= {"P", "limit", "dup"}, seen    # not "data_set"
    assert "P" in seen and "limit" in seen, seen
