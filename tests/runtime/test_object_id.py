"""Differential: CystckLong_FromVoidPtr(S, h) and the stock id() (CPython's
builtin_id is PyLong_FromVoidPtr of the object) give the same int, for
the same object, whichever handle reaches it."""
import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_object_id", build_rt("rt_object_id"))


@pytest.mark.parametrize("value", [None, 1, 2 ** 100, "s", object(), [1], type])
def test_same_as_id(ext, value):
    got = ext.object_id(value)
    assert type(got) is int and got == id(value)


def test_distinct_objects_distinct_ids(ext):
    a, b = object(), object()
    assert ext.object_id(a) != ext.object_id(b)
