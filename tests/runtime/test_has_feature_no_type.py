"""CystckType_HasFeature answers 1 or 0: for an object that is no type, 0
with a TypeError set, so that the truth test stock code makes of
PyType_HasFeature (``if (!PyType_HasFeature(t, F))``, translated as it
is) reads "not set".  It answered -1 there, which such a test read as
"set"."""
import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def ext(build_rt):
    return load_extension("rt_has_feature", build_rt("rt_has_feature"))


@pytest.mark.parametrize("t, expected", [(object, True), (list, True), (bool, False), (type(None), False)])
def test_types(ext, t, expected):
    assert ext.is_base_type(t) is expected
    assert ext.last() == int(expected)


@pytest.mark.parametrize("value", [3, "s", object(), [1]])
def test_no_type_reads_not_set_with_a_type_error(ext, value):
    with pytest.raises(TypeError):
        ext.is_base_type(value)
    assert ext.last() == 0
