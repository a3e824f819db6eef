"""CystckType_GetFlags, and the type-flags-reads rule, against the stock
code they replace (docs/gaps.md T15).

tests/runtime/ext/st_type_flags.c reads types' flags with
``PyType_GetFlags`` and ``tp_flags``; it is built as it is (``st``) and as
cystck-migrate translates it (``rt``, with no escape hatch), and both must
answer alike, in release and in debug mode (a child interpreter with
CYSTCK_DEBUG=1)."""
import abc
import collections

from cystck.build import load_extension

# CPython sets and clears this bit as the type's attribute cache comes and goes
VALID_VERSION_TAG = 1 << 19


class Plain:
    pass


class Number(int):
    pass


class Abstract(abc.ABC):
    @abc.abstractmethod
    def f(self):
        pass


OBJECTS = [1, True, Number(2), "s", (), collections.namedtuple("P", "x")(1), None, object(), Plain(),
           len, ValueError(), Plain]
TYPES = [type(o) for o in OBJECTS] + [type, bool, Abstract, collections.OrderedDict]


def outcome(f, *args):
    """What f(*args) returns, or the type and message of what it raises."""
    try:
        return "returned", f(*args)
    except Exception as e:          # compared, never swallowed
        return type(e), str(e)


def stable(flags):
    return flags & ~VALID_VERSION_TAG if isinstance(flags, int) else flags


def run_all(paths):
    st, rt = (load_extension(name, path) for name, path in paths)
    for o in OBJECTS:
        s, r = st.flags_of(o), rt.flags_of(o)
        assert (stable(r[0]),) + r[1:] == (stable(s[0]),) + s[1:], o
        assert r[0] & ~VALID_VERSION_TAG == type(o).__flags__ & ~VALID_VERSION_TAG, o
    for t in TYPES:
        assert stable(rt.type_flags(t)) == stable(st.type_flags(t)), t
    assert rt.flags_of(Number(2))[1:] == (1, 1, 0, 1) and rt.type_flags(Abstract) == "abstract"
    assert stable(rt.int_flags()) == stable(st.int_flags()) == stable(int.__flags__)
    assert outcome(rt.type_flags, 1) == outcome(st.type_flags, 1) == (TypeError, "not a type")


def _paths(stock_and_ported):
    st, rt = stock_and_ported("type_flags")
    return [(st.__name__, st.__file__), (rt.__name__, rt.__file__)]


def test_stock_and_ported_agree(stock_and_ported):
    run_all(_paths(stock_and_ported))


def test_the_same_in_debug_mode(stock_and_ported, run_all_in_debug_mode):
    run_all_in_debug_mode("test_type_flags", _paths(stock_and_ported))


def test_the_translation_uses_the_api_not_the_escape_hatch(ext_dir):
    from cystck.migrate import translate
    from cystck.migrate.rules.escape import MARK
    ported = translate.translate_source((ext_dir / "st_type_flags.c").read_text())
    assert MARK not in ported and "->tp_flags" not in ported
    assert ported.count("CystckType_GetFlags(S, ") == 8
