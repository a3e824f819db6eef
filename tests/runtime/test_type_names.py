"""CystckType_GetNameObject, CystckType_GetQualName, CystckType_HasFeature
and CystckType_GetName against the stock code they replace.

tests/runtime/ext/st_type_names.c reads ``tp_name``, a heap type's
``ht_name``/``ht_qualname`` and tests flags with ``PyType_HasFeature``; it
is built as it is (``st``) and as cystck-migrate translates it (``rt``,
with no escape hatch: the type-name-reads rule), and both must answer
alike, in release and in debug mode (a child interpreter with
CYSTCK_DEBUG=1)."""
import array
import collections

from cystck.build import load_extension


class Plain:
    class Inner:
        pass


class Flag(int):
    pass


Odd = type("Ünïcode", (), {})       # a non-ASCII name: tp_name is its UTF-8

OBJECTS = [1, "s", None, object(), Plain(), Plain.Inner(), Flag(3), Odd(), array.array("b"),
           collections.OrderedDict(), ValueError(), len, Plain]
TYPES = [type(o) for o in OBJECTS] + [type, collections.OrderedDict]


def outcome(f, *args):
    """What f(*args) returns, or the type and message of what it raises."""
    try:
        return "returned", f(*args)
    except Exception as e:          # compared, never swallowed
        return type(e), str(e)


def run_all(paths):
    st, rt = (load_extension(name, path) for name, path in paths)
    for o in OBJECTS:
        assert st.name_of(o) == rt.name_of(o) == type(o).__name__, o
        assert outcome(rt.refuse, o) == outcome(st.refuse, o), o
    for t in TYPES:
        assert rt.qualname(t) == st.qualname(t), t
        assert rt.flags(t) == st.flags(t), t
    assert rt.qualname(Plain.Inner) == "Plain.Inner" and rt.flags(Flag) == (1, 1, 1)
    assert outcome(rt.qualname, 1) == outcome(st.qualname, 1) == (TypeError, "not a type")


def _paths(stock_and_ported):
    st, rt = stock_and_ported("type_names")
    return [(st.__name__, st.__file__), (rt.__name__, rt.__file__)]


def test_stock_and_ported_agree(stock_and_ported):
    run_all(_paths(stock_and_ported))


def test_the_same_in_debug_mode(stock_and_ported, run_all_in_debug_mode):
    run_all_in_debug_mode("test_type_names", _paths(stock_and_ported))


def test_the_translation_uses_the_api_not_the_escape_hatch(ext_dir):
    from cystck.migrate import translate
    from cystck.migrate.rules.escape import MARK
    ported = translate.translate_source((ext_dir / "st_type_names.c").read_text())
    assert MARK not in ported
    for name in ("CystckType_GetNameObject", "CystckType_GetQualName", "CystckType_HasFeature",
                 "CystckType_GetName"):
        assert name + "(S, " in ported, name
