"""CystckNumber_InPlace* and CystckNumber_MatrixMultiply behave as the
stock functions, which Python's operator module calls (operator.iadd is
PyNumber_InPlaceAdd): the same results, the same object mutated in place,
the same exceptions."""
import operator

import pytest

from cystck.build import load_extension

OPS = [operator.iadd, operator.isub, operator.imul, operator.imatmul, operator.itruediv,
       operator.ifloordiv, operator.imod, operator.ipow, operator.ilshift, operator.irshift,
       operator.iand, operator.ior, operator.ixor, operator.matmul]


class Matrix:
    """@ and @= (no builtin type has them)."""
    def __init__(self, v):
        self.v = v

    def __matmul__(self, other):
        return Matrix(self.v * other.v)

    def __imatmul__(self, other):
        self.v *= other.v
        return self

    def __eq__(self, other):
        return isinstance(other, Matrix) and other.v == self.v


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_inplace", build_rt("rt_inplace"))


def _operands(i):
    if OPS[i] in (operator.imatmul, operator.matmul):
        return Matrix(3), Matrix(4)
    return 12, 5


@pytest.mark.parametrize("i", range(len(OPS)), ids=[op.__name__ for op in OPS])
def test_operator_matches_stock(ext, i):
    a, b = _operands(i)
    expected = OPS[i](*_operands(i))
    assert ext.apply(i, a, b) == expected


@pytest.mark.parametrize("i", range(len(OPS)), ids=[op.__name__ for op in OPS])
def test_errors_match_stock(ext, i):
    with pytest.raises(TypeError) as stock:
        OPS[i](object(), "x")
    with pytest.raises(TypeError) as ours:
        ext.apply(i, object(), "x")
    assert str(ours.value) == str(stock.value)


def test_in_place_mutates_the_same_object(ext):
    items, extra = [1], [2]
    assert ext.apply(0, items, extra) is items and items == [1, 2]
    m = Matrix(2)
    assert ext.apply(3, m, Matrix(5)) is m and m.v == 10
    assert ext.apply(13, m, Matrix(2)) is not m
