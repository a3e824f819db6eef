import pytest


def check_made_by_the_module(m):
    c = m.cursor([1, "two"])
    out = [c.next(), c.next(), m.token(7).id]
    with pytest.raises(IndexError):
        c.next()
    return out


def check_not_instantiable(m):
    messages = []
    for t in (m.Cursor, type(m.cursor([])), m.Token, type(m.token(1))):
        with pytest.raises(TypeError) as e:
            t()
        messages.append(str(e.value))
    return messages


def check_instantiable(m):
    return type(m.Box()).__name__


CHECKS = [check_made_by_the_module, check_not_instantiable, check_instantiable]
