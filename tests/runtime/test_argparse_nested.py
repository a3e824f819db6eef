"""Differential: "(...)" format units, a value that is a sequence whose
items the units inside convert (CPython's converttuple), in
PyArg_ParseTuple(AndKeywords) and their translation, CystckArg_ParseTuple
(AndKeywords): the same values, and the same exception types and messages
(not a sequence, wrong length, an item of the wrong type, nested), as the
stock build, in release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.build import load_extension
from differential import outcome


class Seq:
    """A sequence that is no tuple or list, one of whose items fails."""
    def __len__(self):
        return 2

    def __getitem__(self, i):
        if i == 1:
            raise KeyError(i)
        return 1.5


class BadLen:
    """A sequence whose len() raises."""
    def __len__(self):
        raise ValueError("no length")

    def __getitem__(self, i):
        return 0


class Float:
    def __float__(self):
        return 2.5


OBJ = object()

CASES = [
    ("linspace", ((0.5, 1.5), 3), {}), ("linspace", ([1, 2.5], 3), {}),
    ("linspace", ((Float(), 1), 3), {}), ("linspace", (5, 3), {}),
    ("linspace", (None, 3), {}), ("linspace", (b"ab", 3), {}), ("linspace", ((1.0,), 3), {}),
    ("linspace", ((1.0, 2.0, 3.0), 3), {}), ("linspace", (("a", 2.0), 3), {}),
    ("linspace", ((1.0, "b"), 3), {}), ("linspace", ((1.0, 2.0), "3"), {}),
    ("linspace", ("ab", 3), {}), ("linspace", (Seq(), 1), {}), ("linspace", (BadLen(), 1), {}),
    ("linspace", ((1.0, 2.0),), {}), ("linspace", (), {}), ("linspace", ({1: 2, 3: 4}, 1), {}),
    ("point_name", ((1, 2), "p"), {}), ("point_name", ((1, 2.5), "p"), {}),
    ("point_name", ((1, 2**40), "p"), {}), ("point_name", ((1, 2), 3), {}),
    ("point_name", (range(2), "r"), {}), ("point_name", ((1, 2, 3), "p"), {}),
    ("nested", (((1, 2), OBJ),), {}), ("nested", (([3, 4], "o"),), {}),
    ("nested", ((5, OBJ),), {}), ("nested", (((1,), OBJ),), {}),
    ("nested", (((1, "y"), OBJ),), {}), ("nested", (((1, 2),),), {}),
    ("nested", ((1, 2),), {}), ("nested", (5,), {}), ("nested", ((b"ab", OBJ),), {}),
    ("typed", (1, (b"b", "u")), {}), ("typed", (1, ("u", "u")), {}),
    ("typed", (1, (b"b", b"u")), {}), ("typed", (1, [b"b", None]), {}),
    ("typed", (1, (b"b",)), {}),
    ("optional", (), {}), ("optional", ((1.0, 2.0),), {}), ("optional", (1.0,), {}),
    ("optional", ((1.0, 2.0), 3), {}), ("optional", ((1.0, None),), {}),
    ("message", ((1, 2),), {}), ("message", (5,), {}), ("message", ((1,),), {}),
    ("message", ((1, b"x"),), {}),
    ("keywords", ((1.0, 2.0),), {}), ("keywords", ((1.0, 2.0), (3.0, 4.0), 5), {}),
    ("keywords", (), {"start": (1.0, 2.0)}), ("keywords", (), {"start": (1.0, 2.0), "num": 7}),
    ("keywords", ((1.0, 2.0),), {"num": 7}), ("keywords", ((1.0, 2.0),), {"ends": [3, 4]}),
    ("keywords", (), {"start": 5}), ("keywords", (), {"start": (1.0, 2.0), "ends": (1.0,)}),
    ("keywords", (), {"start": (1.0, 2.0), "ends": (1.0, "x")}),
    ("keywords", (), {"start": (1.0, 2.0), "ends": (1.0, 2.0), "num": "7"}),
    ("keywords", (), {"stop": (1.0, 2.0)}), ("keywords", (), {"start": (1.0, 2.0), "bad": 1}),
    ("keywords", ((1.0, 2.0),), {"start": (1.0, 2.0)}),
    ("keywords_only", (1,), {}), ("keywords_only", (1,), {"pair": (2, 3)}),
    ("keywords_only", (1,), {"obj": OBJ}), ("keywords_only", (1,), {"pair": (2, 3), "obj": OBJ}),
    ("keywords_only", (1,), {"pair": 2}), ("keywords_only", (1,), {"pair": (2, "x")}),
    ("keywords_only", (1, (2, 3)), {}),
]


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("argnested")


def compare(stock, ported, name, args, kwargs):
    expected = outcome(getattr(stock, name), *args, **kwargs)
    for _ in range(2):         # the second time through the cached parsers
        got = outcome(getattr(ported, name), *args, **kwargs)
        if got != expected:
            return (name, args, kwargs, expected, got)
    return None


@pytest.mark.parametrize("name, args, kwargs", CASES)
def test_same_as_stock(exts, name, args, kwargs):
    assert compare(*exts, name, args, kwargs) is None


def test_messages_name_the_item(exts):
    """Spot checks that the comparison compares something."""
    for m in exts:
        assert outcome(m.linspace, 5, 3) == (
            TypeError, "linspace() argument 1 must be 2-item sequence, not int")
        assert outcome(m.linspace, (1.0, 2.0, 3.0), 3) == (
            TypeError, "linspace() argument 1 must be sequence of length 2, not 3")
        assert outcome(m.nested, ((1, 2), b"o")) == (1, 2, b"o")
        assert outcome(m.nested, ((1, 2, 3), OBJ)) == (
            TypeError, "nested() argument 1, item 0 must be sequence of length 2, not 3")
        assert outcome(m.typed, 1, (b"b", None)) == (
            TypeError, "typed() argument 2, item 1 must be str, not None")


def test_object_items_keep_their_objects(exts):
    _, ported = exts
    o = object()
    assert ported.nested(((1, 2), o))[2] is o
    assert ported.keywords_only(1, obj=o, pair=[2, 3]) == (1, 2, 3, o)


def run_all(paths):
    stock, ported = (load_extension(name, path) for name, path in paths)
    for name, args, kwargs in CASES:
        assert compare(stock, ported, name, args, kwargs) is None


def test_same_in_debug_mode(exts, run_all_in_debug_mode):
    run_all_in_debug_mode("test_argparse_nested", [(m.__name__, m.__file__) for m in exts])
