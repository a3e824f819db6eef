"""CYSTCK_RICHCOMPARE (Cystck.h), what the translator writes for
Py_RETURN_RICHCOMPARE, gives the stock macro's answer for each of the six
comparisons, NaN included."""
import itertools
import math

import pytest

from cystck.build import load_extension

OPS = range(6)          # Py_LT, Py_LE, Py_EQ, Py_NE, Py_GT, Py_GE
VALUES = (-1.5, 0.0, 2.0, math.nan)


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_richcmp", build_rt("rt_richcmp"))


@pytest.mark.parametrize("op", OPS)
def test_richcompare_macro_answers_as_the_stock_one(ext, op):
    for a, b in itertools.product(VALUES, repeat=2):
        ours, stock = ext.both(a, b, op)
        assert ours is stock, (a, b, op)
