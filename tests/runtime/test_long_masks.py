"""CystckLong_AsUnsignedLongMask and CystckLong_AsUnsignedLongLongMask
against the stock functions (called through ctypes): the same values
modulo 2**N, __index__ for other objects, the same exceptions."""
import ctypes

import pytest

from cystck.build import load_extension


class Index:
    def __index__(self):
        return -3


class BadIndex:
    def __index__(self):
        raise ValueError("no index")


VALUES = [0, 1, -1, 2**64 + 5, -(2**70), 2**63, 12345678901234567890123, True, Index()]
BAD = ["1", 1.5, None, BadIndex()]


def stock(name, restype):
    f = getattr(ctypes.pythonapi, name)
    f.argtypes, f.restype = [ctypes.py_object], restype
    return f


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_longmask", build_rt("rt_longmask"))


@pytest.mark.parametrize("method,stock_name,restype", [
    ("mask", "PyLong_AsUnsignedLongMask", ctypes.c_ulong),
    ("mask_ll", "PyLong_AsUnsignedLongLongMask", ctypes.c_ulonglong)])
def test_masks_match_the_stock_functions(ext, method, stock_name, restype):
    ours, theirs = getattr(ext, method), stock(stock_name, restype)
    for v in VALUES:
        assert ours(v) == theirs(v), v
    for v in BAD:
        with pytest.raises(Exception) as got:
            ours(v)
        with pytest.raises(Exception) as expected:
            theirs(v)
        assert (type(got.value), str(got.value)) == (type(expected.value), str(expected.value))
