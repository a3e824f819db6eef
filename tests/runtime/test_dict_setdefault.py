"""Differential: CystckDict_SetDefault and PyDict_SetDefault, the same
calls on the same values: the same result (the very object), the same
dict afterwards, the same exception type and message."""
import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def exts(build, build_rt, ext_dir):
    stock = build("st_dict_setdefault", [ext_dir / "st_dict_setdefault.c"], use_cystck=False,
                  extra_compile_args=["-Wall", "-Werror"])
    return (load_extension("st_dict_setdefault", stock),
            load_extension("rt_dict_setdefault", build_rt("rt_dict_setdefault")))


class Unhashable:
    __hash__ = None


def _outcome(ext, d, key, dflt):
    try:
        r = ext.setdefault(d, key, dflt)
    except Exception as e:       # the exception is part of the outcome
        return type(e), str(e), d
    return r, d


EXISTING, NEW = object(), object()


@pytest.mark.parametrize("d, key, dflt", [
    ({"k": EXISTING}, "k", NEW),       # present: the stored value
    ({"k": EXISTING}, "other", NEW),   # missing: dflt, stored
    ({}, Unhashable(), NEW),
    ([], "k", NEW),                    # not a dict
])
def test_same_as_stock(exts, d, key, dflt):
    stock, ported = exts
    got = _outcome(ported, dict(d) if isinstance(d, dict) else list(d), key, dflt)
    want = _outcome(stock, dict(d) if isinstance(d, dict) else list(d), key, dflt)
    assert got[:-1] == want[:-1] and got[-1] == want[-1]
    assert all(a is b for a, b in zip(got[:-1], want[:-1]) if not isinstance(a, (str, type)))
