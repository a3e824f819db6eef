import pytest


def check_cpp(m):
    with pytest.raises(TypeError):
        m.join("a", 1)
    return [m.join(), m.join("a", "b", "c"), m.evens(9), m.evens(0)]


CHECKS = [check_cpp]
