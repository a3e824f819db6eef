import gc

import pytest


def check_slots(m):
    r = m.Rect(2.0, 3.0, tag="t")
    s = m.Rect(1.0, 5.0)
    total = r + s
    assert (r + 1) if False else True
    with pytest.raises(TypeError):
        r + 1
    return [repr(r), r.area(), len(r), repr(total), total.tag, r.scaled(2).area(), r.scaled(2).tag]


def check_members_and_getset(m):
    r = m.Rect(1.0, 2.0)
    r.w = 4.0
    with pytest.raises(AttributeError):
        r.h = 1.0
    r.tag = [1, 2]
    with pytest.raises(AttributeError):
        del r.tag
    return [r.w, r.h, r.tag, m.Rect.__doc__]


def check_gc(m):
    r = m.Rect(1.0, 1.0)
    r.tag = r                      # a cycle through the object member
    ref_count_before = len(gc.get_objects())
    del r
    gc.collect()
    cycle = [m.Rect(1.0, 1.0) for _ in range(100)]
    for x in cycle:
        x.tag = x
    del cycle, x
    collected = gc.collect()
    return [collected >= 100, ref_count_before > 0]


def check_subclass(m):
    class Sub(m.Rect):
        pass
    s = Sub(3.0, 1.0)
    return [s.area(), isinstance(s, m.Rect)]


CHECKS = [check_slots, check_members_and_getset, check_gc, check_subclass]
