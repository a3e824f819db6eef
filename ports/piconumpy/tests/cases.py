"""Behaviour every PicoNumPy variant must have.

Each ``case_*`` function receives the variant's ``piconumpy`` module and
raises (usually through ``assert``) if the variant misbehaves.  The cases
run inside a fresh interpreter per variant -- see test_piconumpy.py, which
turns each (variant, case) pair into one pytest test -- so this module must
not import piconumpy itself: it gets the module it should test.

`raises` stands in for pytest.raises: importing pytest would add 0.2 s to
each of those interpreters, more than the cases themselves take.
"""

import operator
import sys
from contextlib import contextmanager


@contextmanager
def raises(exc_type, match=None):
    """Assert that the block raises exc_type with `match` in its message."""
    try:
        yield
    except exc_type as exc:
        if match is not None and match not in str(exc):
            raise AssertionError(
                f"{exc_type.__name__} message {str(exc)!r} lacks {match!r}") from exc
    else:
        raise AssertionError(f"{exc_type.__name__} not raised")


class Other:
    """An operand the arrays do not know; it handles the reflected operators,
    so Python only reaches these if the array returned NotImplemented."""

    def __radd__(self, other):
        return "radd"

    def __rsub__(self, other):
        return "rsub"

    def __rmul__(self, other):
        return "rmul"

    def __rtruediv__(self, other):
        return "rtruediv"


# -- construction ----------------------------------------------------------

def case_construct_from_list_of_ints_and_floats(piconumpy):
    a = piconumpy.array([1, 2.5, -3, 0.0])
    assert type(a) is piconumpy.array
    assert a.tolist() == [1.0, 2.5, -3.0, 0.0]
    assert all(type(x) is float for x in a.tolist())


def case_construct_from_other_iterables(piconumpy):
    assert piconumpy.array((1.5, 2)).tolist() == [1.5, 2.0]
    assert piconumpy.array(range(4)).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert piconumpy.array(x / 2 for x in range(3)).tolist() == [0.0, 0.5, 1.0]


def case_construct_empty_sequence(piconumpy):
    a = piconumpy.array([])
    assert a.size == 0
    assert len(a) == 0
    assert a.tolist() == []


def case_construct_copies_the_data(piconumpy):
    values = [1.0, 2.0]
    a = piconumpy.array(values)
    values[0] = 100.0
    assert a[0] == 1.0


def case_construct_errors(piconumpy):
    with raises(TypeError, match="iterable of numbers"):
        piconumpy.array(5)
    with raises(TypeError):
        piconumpy.array([1.0, "2"])
    with raises(TypeError):
        piconumpy.array([None])
    with raises(TypeError):
        piconumpy.array()
    with raises(TypeError):
        piconumpy.array([1], [2])
    with raises(TypeError, match="keyword"):
        piconumpy.array(data=[1])
    with raises(TypeError, match="keyword"):
        piconumpy.array([1], data=[1])
    with raises(OverflowError):
        piconumpy.array([10 ** 400])

    def failing():
        yield 1.0
        raise KeyError("from the iterable")

    with raises(KeyError, match="from the iterable"):
        piconumpy.array(failing())


def case_type_identity(piconumpy):
    assert piconumpy.array.__name__ == "array"
    assert piconumpy.array.__module__ == "piconumpy"
    with raises(TypeError):
        class Sub(piconumpy.array):  # the type is deliberately final
            pass


# -- size and len ----------------------------------------------------------

def case_size_and_len(piconumpy):
    a = piconumpy.array([1, 2, 3])
    assert a.size == 3
    assert type(a.size) is int
    assert len(a) == 3


def case_size_is_read_only(piconumpy):
    a = piconumpy.array([1, 2, 3])
    with raises(AttributeError):
        a.size = 5
    with raises(AttributeError):
        del a.size
    assert a.size == 3


# -- indexing --------------------------------------------------------------

def case_getitem(piconumpy):
    a = piconumpy.array([10, 20.5, 30])
    assert a[0] == 10.0 and type(a[0]) is float
    assert a[1] == 20.5
    assert a[2] == 30.0
    # Negative indices count from the end, as for Python sequences.
    assert a[-1] == 30.0
    assert a[-3] == 10.0


def case_getitem_errors(piconumpy):
    a = piconumpy.array([10, 20, 30])
    for index in (3, 4, 10 ** 6, -4, -10 ** 6):
        with raises(IndexError, match="out of range"):
            a[index]
    with raises(IndexError):
        piconumpy.array([])[0]
    with raises(TypeError):
        a[1.0]
    with raises(TypeError):
        a["0"]


def case_setitem(piconumpy):
    a = piconumpy.array([0, 0, 0])
    a[0] = 1.5
    a[1] = 2          # ints are stored as floats
    a[-1] = -3.25
    assert a.tolist() == [1.5, 2.0, -3.25]
    assert type(a[1]) is float


def case_setitem_errors(piconumpy):
    a = piconumpy.array([1, 2, 3])
    for index in (3, -4):
        with raises(IndexError, match="out of range"):
            a[index] = 0.0
    with raises(TypeError):
        a[0] = "x"
    with raises(TypeError):
        a[0] = None
    with raises(TypeError):
        del a[0]
    assert a.tolist() == [1.0, 2.0, 3.0]


# -- arithmetic ------------------------------------------------------------

def case_add_and_subtract(piconumpy):
    a = piconumpy.array([1, 2, 3])
    b = piconumpy.array([0.5, -1, 10])
    s = a + b
    d = a - b
    assert type(s) is piconumpy.array and type(d) is piconumpy.array
    assert s.tolist() == [1.5, 1.0, 13.0]
    assert d.tolist() == [0.5, 3.0, -7.0]
    assert (a - a).tolist() == [0.0, 0.0, 0.0]
    # Results are new arrays; the operands are untouched.
    assert s is not a and s is not b
    assert a.tolist() == [1.0, 2.0, 3.0] and b.tolist() == [0.5, -1.0, 10.0]
    e = piconumpy.array([])
    assert (e + e).tolist() == [] and (e - e).tolist() == []


def case_add_and_subtract_size_mismatch(piconumpy):
    a = piconumpy.array([1, 2, 3])
    b = piconumpy.array([1, 2])
    with raises(ValueError, match="different sizes"):
        a + b
    with raises(ValueError, match="different sizes"):
        b - a


def case_add_and_subtract_other_operands(piconumpy):
    a = piconumpy.array([1, 2])
    for other in (1, 1.0, [1.0, 2.0], None):
        for operation in (operator.add, operator.sub):
            with raises(TypeError):
                operation(a, other)
            with raises(TypeError):
                operation(other, a)
    with raises(TypeError, match="unsupported operand"):
        a + 1.0
    # NotImplemented, not an error: Python then asks the other operand.
    assert a + Other() == "radd"
    assert a - Other() == "rsub"


def case_multiply_by_scalar(piconumpy):
    a = piconumpy.array([1, -2.5, 0])
    for factor in (2, 2.0, -0.5, True, 0):
        expected = [x * factor for x in (1.0, -2.5, 0.0)]
        left = a * factor
        right = factor * a
        assert type(left) is piconumpy.array and type(right) is piconumpy.array
        assert left.tolist() == expected, (factor, left.tolist())
        assert right.tolist() == expected, (factor, right.tolist())
    assert a.tolist() == [1.0, -2.5, 0.0]


def case_multiply_errors(piconumpy):
    a = piconumpy.array([1, 2])
    for other in ("2", None, [2.0], 1j):
        with raises(TypeError):
            a * other
        with raises(TypeError):
            other * a
    with raises(TypeError, match="unsupported operand"):
        a * a
    with raises(OverflowError):
        a * 10 ** 400
    with raises(OverflowError):
        10 ** 400 * a
    assert a * Other() == "rmul"


def case_divide_by_scalar(piconumpy):
    a = piconumpy.array([1, -3, 4.5])
    for divisor in (2, 2.0, -0.25, 3):
        result = a / divisor
        assert type(result) is piconumpy.array
        assert result.tolist() == [x / divisor for x in (1.0, -3.0, 4.5)]
    assert a.tolist() == [1.0, -3.0, 4.5]


def case_divide_errors(piconumpy):
    a = piconumpy.array([1, 2])
    with raises(ZeroDivisionError):
        a / 0
    with raises(ZeroDivisionError):
        a / 0.0
    with raises(ZeroDivisionError):
        a / -0.0
    for other in (2, 2.0):
        with raises(TypeError, match="unsupported operand"):
            other / a
    with raises(TypeError, match="unsupported operand"):
        a / a
    with raises(TypeError):
        a / "2"
    with raises(OverflowError):
        a / 10 ** 400
    assert a / Other() == "rtruediv"


def case_matches_python_float_arithmetic(piconumpy):
    # Every element operation is one IEEE-754 double operation, exactly what
    # Python floats do, so the results must be equal bit for bit.
    from hypothesis import given, settings, strategies as st

    finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
    nonzero = finite.filter(lambda x: x != 0.0)

    @settings(max_examples=200, database=None, derandomize=True, deadline=None)
    @given(st.lists(st.tuples(finite, finite), max_size=12), finite, nonzero)
    def check(pairs, factor, divisor):
        xs = [x for x, _ in pairs]
        ys = [y for _, y in pairs]
        a = piconumpy.array(xs)
        b = piconumpy.array(ys)

        def same(result, expected):
            # float.hex tells -0.0 from 0.0, which == does not.
            assert [x.hex() for x in result.tolist()] == [x.hex() for x in expected]

        same(a + b, [x + y for x, y in pairs])
        same(a - b, [x - y for x, y in pairs])
        same(a * factor, [x * factor for x in xs])
        same(factor * a, [factor * x for x in xs])
        same(a / divisor, [x / divisor for x in xs])
        assert [a[i] for i in range(len(xs))] == xs
        assert [a[i - len(xs)] for i in range(len(xs))] == xs

    check()


# -- tolist and empty ------------------------------------------------------

def case_tolist_returns_a_new_list(piconumpy):
    a = piconumpy.array([1, 2])
    first = a.tolist()
    first.append(3.0)
    assert a.tolist() == [1.0, 2.0]
    assert a.tolist() is not a.tolist()
    with raises(TypeError):
        a.tolist(1)


def case_empty(piconumpy):
    for n in (0, 1, 4, 1000):
        a = piconumpy.empty(n)
        assert type(a) is piconumpy.array
        assert a.size == n and len(a) == n
        assert a.tolist() == [0.0] * n
    a = piconumpy.empty(3)
    a[1] = 5
    assert (a + piconumpy.array([1, 1, 1])).tolist() == [1.0, 6.0, 1.0]


def case_empty_errors(piconumpy):
    with raises(ValueError, match="negative"):
        piconumpy.empty(-1)
    with raises(TypeError):
        piconumpy.empty(2.0)
    with raises(TypeError):
        piconumpy.empty("2")
    with raises(TypeError):
        piconumpy.empty()
    with raises(OverflowError):
        piconumpy.empty(10 ** 30)
    with raises(MemoryError):
        piconumpy.empty(sys.maxsize)


# -- memory ----------------------------------------------------------------

def case_large_arrays(piconumpy):
    # More elements than Cystck lets one call hold handles (2**20 by
    # default): a port that kept one handle per element alive in its loops
    # would fail here with MemoryError; the others must of course work too.
    n = (1 << 20) + 100
    values = [float(i % 7) for i in range(n)]
    a = piconumpy.array(values)
    assert a.size == n and a[n - 1] == values[-1]
    assert piconumpy.array(tuple(values)).tolist() == values
    b = (a + a) * 0.5 - a / 1.0
    assert b.tolist() == [0.0] * n
    assert a.tolist() == values


def case_operations_do_not_leak(piconumpy):
    # A reference leaked on an operand or a result would keep objects alive
    # (refcounts grow, allocated blocks pile up).  Error paths are included:
    # that is where leaks usually hide.
    a = piconumpy.array([1.0, 2.0, 3.0])
    b = piconumpy.array([4.0, 5.0, 6.0])
    short = piconumpy.array([1.0])
    factor = 1.2345e10      # not a cached constant, its refcount is exact

    def workload():
        for i in range(2000):
            a + b
            a - b
            a * factor
            factor * a
            a / factor
            a.tolist()
            a[1]
            a[-1] = 3.0
            piconumpy.array([1, 2.5, i])
            piconumpy.array(x for x in (1.0, 2.0))
            piconumpy.empty(4)
            for bad in (lambda: a + short, lambda: a[5], lambda: a * "x",
                        lambda: a / 0, lambda: piconumpy.array(["x"])):
                try:
                    bad()
                except (ValueError, IndexError, TypeError, ZeroDivisionError):
                    pass

    workload()              # warm up caches and free lists
    refs = [sys.getrefcount(x) for x in (a, b, short, factor, piconumpy.array)]
    blocks = sys.getallocatedblocks()
    workload()
    growth = sys.getallocatedblocks() - blocks
    assert [sys.getrefcount(x) for x in (a, b, short, factor, piconumpy.array)] == refs
    # 2000 iterations each creating a dozen objects: a leak of even one
    # object per iteration shows up as thousands of blocks.
    assert growth < 200, f"{growth} memory blocks still allocated"
