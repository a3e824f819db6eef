"""Test functions run against both the stock and the migrated build; each
returns a value, and the two builds must return the same values."""
import pytest


def check_conventions(m):
    assert m.noargs() is None
    return [m.negate(5), m.add(2, 3), m.count_args(1, 2, 3), m.count_args(),
            m.first_or_none(), m.first_or_none("x", "y"), m.is_none(None), m.is_none(0), m.ANSWER]


def check_typed_errors(m):
    """add() becomes a typed method (rule typed-entry): the same exceptions
    and messages as PyArg_ParseTuple's."""
    out = []
    for call in (lambda: m.add(1), lambda: m.add(1, 2, 3), lambda: m.add("x", 1),
                 lambda: m.add(1, 2**70), lambda: m.add(a=1, b=2), lambda: m.add(True, 2.0)):
        try:
            out.append(call())
        except (TypeError, OverflowError) as e:
            out.append((type(e).__name__, str(e)))
    return out


def check_keywords(m):
    out = [m.describe("a"), m.describe("b", 3), m.describe("c", flag=True), m.describe(name="d", count=7)]
    with pytest.raises(TypeError):
        m.describe()
    with pytest.raises(TypeError):
        m.describe("a", nope=1)
    return out


def check_exceptions(m):
    with pytest.raises(ValueError, match="must not be zero"):
        m.fail(0)
    with pytest.raises(m.BasicsError) as info:
        m.fail(7)
    assert issubclass(m.BasicsError, RuntimeError)
    with pytest.raises(TypeError):
        m.add(1)
    with pytest.raises(TypeError):
        m.sum_list((1, 2))
    return str(info.value)


def check_iteration(m):
    return [m.sum_list([1.0, 2.5, 3]), m.invert_dict({"a": 1, "b": 2}), m.squares(6), len(m.squares(100000))]


def check_callbacks(m):
    calls = []

    def f(x):
        calls.append(x)
        return x * 2
    result = m.apply_twice(f, 3)
    with pytest.raises(ZeroDivisionError):
        m.apply_twice(lambda x: 1 / 0, 1)
    with pytest.raises(TypeError):
        m.apply_twice(3, 3)
    return [result, calls]


CHECKS = [check_conventions, check_typed_errors, check_keywords, check_exceptions, check_iteration, check_callbacks]
