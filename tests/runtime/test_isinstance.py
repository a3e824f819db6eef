"""CystckObject_IsInstance answers as isinstance() does.  It skips
CPython's o.__class__ lookup for instances of the core builtin types
(which cannot claim another class); everything else, and every class
that is not an exact `type` (an ABC, a metaclass with __instancecheck__),
goes through PyObject_IsInstance."""
import abc
import collections
import decimal
import enum
import numbers

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_isinstance", build_rt("rt_isinstance"))


class IntSub(int):
    pass


class ClaimsDecimal:
    """An object that claims to be a Decimal: isinstance() believes it."""
    @property
    def __class__(self):
        return decimal.Decimal


class Color(enum.Enum):
    RED = 1


class Meta(type):
    def __instancecheck__(cls, o):
        return isinstance(o, dict)


class AnyDict(metaclass=Meta):
    pass


OBJECTS = [{}, [], (), "s", 1, 1.5, True, False, None, b"b", bytearray(b"x"), IntSub(3),
           decimal.Decimal("1.5"), ClaimsDecimal(), Color.RED, collections.OrderedDict(), object()]
CLASSES = [dict, list, tuple, str, int, float, bool, bytes, type(None), object, IntSub, decimal.Decimal,
           enum.Enum, collections.OrderedDict, collections.abc.Mapping, collections.abc.Sequence,
           abc.ABC, AnyDict, numbers.Number]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_isinstance_answers_as_python(ext, cls):
    assert [ext.isinstance(o, cls) for o in OBJECTS] == [int(isinstance(o, cls)) for o in OBJECTS]


def test_isinstance_of_a_tuple_of_classes(ext):
    assert ext.isinstance([], (decimal.Decimal, list)) == 1
    assert ext.isinstance({}, (decimal.Decimal, list)) == 0


def test_isinstance_of_no_class_raises_as_python(ext):
    with pytest.raises(TypeError) as expected:
        isinstance({}, 3)
    with pytest.raises(TypeError) as got:
        ext.isinstance({}, 3)
    assert str(got.value) == str(expected.value)
