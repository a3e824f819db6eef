import pytest


def check_state(m):
    return [m.bump(), m.bump(), m.total([1, 2, 3]), m.bump()]


def check_iteration(m):
    with pytest.raises(TypeError):
        m.total(5)
    with pytest.raises(TypeError):
        m.total(["a"])

    def gen():
        yield 4
        raise KeyError("from the generator")
    with pytest.raises(KeyError):
        m.total(gen())
    countdown = m.Countdown(4)
    assert iter(countdown) is countdown
    return [list(countdown), list(countdown), list(m.Countdown(0)), m.total(m.Countdown(100)),
            m.total(range(10)), m.total(x * x for x in range(5))]


CHECKS = [check_state, check_iteration]
