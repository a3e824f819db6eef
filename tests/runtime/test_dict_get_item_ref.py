"""CystckDict_GetItemRef behaves as PyDict_GetItemRef (Python 3.13) does:
1 and a new reference, 0 and NULL for a missing key, -1 and NULL with the
exception of the key's __hash__/__eq__ or SystemError for a non-dict."""
import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_dict_ref", build_rt("rt_dict_ref"))


class Unhashable:
    __hash__ = None


def test_found_and_missing(ext):
    value = object()
    d = {"k": value}
    status, got = ext.get_ref(d, "k")
    assert status == 1 and got is value
    assert ext.get_ref(d, "other") == (0, None)


def test_error_from_the_key_gives_null(ext):
    with pytest.raises(TypeError):
        ext.get_ref({}, Unhashable())


def test_not_a_dict_is_a_system_error(ext):
    with pytest.raises(SystemError):
        ext.get_ref([], "k")
