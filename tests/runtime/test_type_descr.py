"""CystckType_GetMRO, CystckType_GetDict, CystckObject_HasDescrGet/Set and
CystckDescr_Get/Set (docs/gaps.md T15) against the stock code they replace.

tests/runtime/ext/st_type_descr.c reads ``tp_mro``/``tp_dict`` and tests
and calls ``tp_descr_get``/``tp_descr_set``; it is built as it is (``st``),
as cystck-migrate translates it (``ported``), and compared with
rt_descr_api.c (``rt``), which calls the API directly.  Where the stock
code would crash (a descriptor slot missing), the API raises what Python's
``d.__get__``/``d.__set__``/``d.__delete__`` raise.  Every check runs in
release and in debug mode (a child interpreter with CYSTCK_DEBUG=1)."""
import collections
import pathlib
import sys

import pytest

from cystck.build import load_extension


class Base:
    x = 1

    def method(self):
        return self


class Derived(Base):
    y = 2


class GetOnly:
    def __get__(self, obj, owner=None):
        return ("get", obj, owner)


class SetOnly(GetOnly):
    def __set__(self, obj, value):
        obj.log.append(("set", value))


class Full(SetOnly):
    def __delete__(self, obj):
        obj.log.append(("delete",))


class Holder:
    __slots__ = ("slot", "log", "__dict__")

    def __init__(self):
        self.log = []
        self._p = 0

    def _get_p(self):
        return self._p

    def _set_p(self, v):
        if v < 0:
            raise ValueError("negative")
        self._p = v

    def _del_p(self):
        self._p = None

    prop = property(_get_p, _set_p, _del_p)


TYPES = [int, object, bool, dict, type, Base, Derived, collections.OrderedDict, Holder,
         ValueError]
DESCRIPTORS = [property(lambda self: 1), Base.method, classmethod(len), staticmethod(len),
               GetOnly(), SetOnly(), Full(), Holder.__dict__["slot"], Holder.prop,
               Holder.__dict__["__dict__"], int.real, 1, "s", None, [], Base]


def check_mro_and_dict(st, rt, ported):
    for t in TYPES:
        assert st.mro(t) is rt.mro(t) is ported.mro(t) is t.__mro__, t
        assert st.dict(t) is rt.dict(t) is ported.dict(t), t
        assert type(rt.dict(t)) is dict and rt.dict(t) == dict(t.__dict__), t
    for module in (rt, ported):
        for f in (module.mro, module.dict):
            with pytest.raises(TypeError):
                f(1)


def check_the_dict_is_live(rt):
    class C:
        pass
    d = rt.dict(C)
    C.attr = 5
    assert d["attr"] == 5


def check_predicates(st, rt, ported):
    for d in DESCRIPTORS:
        expected = (st.has_get(d), st.has_set(d))
        assert expected == (rt.has_get(d), rt.has_set(d)) == (ported.has_get(d), ported.has_set(d)), d
        assert expected == (hasattr(type(d), "__get__"), hasattr(type(d), "__set__")), d


def outcome(f, *args):
    """What f(*args) returns, or the type and message of what it raises."""
    try:
        return "returned", f(*args)
    except Exception as e:          # compared, never swallowed
        return type(e), str(e)


def check_get(st, rt, ported):
    h = Holder()
    h.slot = "in the slot"
    for d in DESCRIPTORS:
        if not st.has_get(d):
            continue
        for obj, owner in ((h, Holder), (h, None), (None, Holder)):
            expected = outcome(st.get, d, obj, owner)
            assert outcome(rt.get, d, obj, owner) == expected == outcome(ported.get, d, obj, owner), \
                (d, obj, owner)
    assert rt.get(Holder.prop, h, None) == 0
    assert outcome(rt.get, Holder.__dict__["slot"], Holder(), Holder) == \
        outcome(st.get, Holder.__dict__["slot"], Holder(), Holder)      # AttributeError: slot


def check_set_and_delete(st, rt, ported):
    for module in (st, rt, ported):
        h = Holder()
        module.set(Full(), h, 7)
        module.delete(Full(), h)
        assert h.log == [("set", 7), ("delete",)]
        module.set(Holder.prop, h, 3)
        assert h.prop == 3
        assert outcome(module.set, Holder.prop, h, -1) == (ValueError, "negative")
        module.delete(Holder.prop, h)
        assert h.prop is None
        module.set(Holder.__dict__["slot"], h, "s")
        assert h.slot == "s"
        module.delete(Holder.__dict__["slot"], h)
        assert not hasattr(h, "slot")
    # a __set__ without __delete__: the slot raises, the same in every build
    expected = outcome(st.delete, SetOnly(), Holder())
    assert expected[0] is AttributeError
    assert outcome(rt.delete, SetOnly(), Holder()) == expected == outcome(ported.delete, SetOnly(), Holder())


def python_error(f):
    try:
        f()
    except AttributeError as e:
        return AttributeError, str(e)
    raise AssertionError("no AttributeError")


def check_missing_slots_raise_what_python_raises(rt):
    h = Holder()
    for d in (1, "s", None, [], Base):
        if not hasattr(type(d), "__get__"):
            assert outcome(rt.get, d, h, Holder) == python_error(lambda: d.__get__)
            assert outcome(rt.get, d, None, None) == python_error(lambda: d.__get__)
        assert outcome(rt.set, d, h, 1) == python_error(lambda: d.__set__)
        assert outcome(rt.delete, d, h) == python_error(lambda: d.__delete__)
    assert outcome(rt.set, GetOnly(), h, 1) == python_error(lambda: GetOnly().__set__)


CHECKS = [check_mro_and_dict, check_predicates, check_get, check_set_and_delete]
RT_CHECKS = [check_the_dict_is_live, check_missing_slots_raise_what_python_raises]


def run_all(paths):
    st, rt, ported = (load_extension(name, path) for name, path in paths)
    for check in CHECKS:
        check(st, rt, ported)
    for check in RT_CHECKS:
        check(rt)


@pytest.fixture(scope="module")
def paths(build_rt, stock_and_ported):
    st, ported = stock_and_ported("type_descr")
    rt_path = build_rt("rt_descr_api")
    return [(st.__name__, st.__file__), ("rt_descr_api", str(rt_path)), (ported.__name__, ported.__file__)]


@pytest.fixture(scope="module")
def modules(paths):
    return [load_extension(name, path) for name, path in paths]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_stock_ported_and_api_agree(modules, check):
    check(*modules)


@pytest.mark.parametrize("check", RT_CHECKS, ids=lambda c: c.__name__)
def test_api(modules, check):
    check(modules[1])


def test_the_same_in_debug_mode(paths, run_all_in_debug_mode):
    run_all_in_debug_mode("test_type_descr", paths)


def test_the_translation_uses_the_api_not_the_escape_hatch(ext_dir):
    from cystck.migrate import translate
    from cystck.migrate.rules.escape import MARK
    ported = translate.translate_source((ext_dir / "st_type_descr.c").read_text())
    assert MARK not in ported
    for name in ("CystckType_GetMRO", "CystckType_GetDict", "CystckObject_HasDescrGet",
                 "CystckObject_HasDescrSet", "CystckDescr_Get", "CystckDescr_Set"):
        assert name + "(S, " in ported, name


def test_the_bad_handle_sweeps_cover_them():
    # tests/runtime/test_bad_handles.py calls each with null handles and
    # with None; the two predicates answer 0 (false) there, not -1.
    from cystck import gen_api
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import test_bad_handles
    swept = {f.name: f for f in test_bad_handles.checked_cases()}
    for name in ("CystckType_GetMRO", "CystckType_GetDict", "CystckObject_HasDescrGet",
                 "CystckObject_HasDescrSet", "CystckDescr_Get", "CystckDescr_Set"):
        assert name in swept, name
    for name in ("CystckObject_HasDescrGet", "CystckObject_HasDescrSet"):
        assert gen_api.function_error_value(swept[name]) == "(int)0", name
