import gc

import pytest


def check_slots(m):
    r = m.Rect(2.0, 3.0, tag="t")
    s = m.Rect(1.0, 5.0)
    total = r + s
    with pytest.raises(TypeError):
        r + 1
    with pytest.raises(TypeError):       # nb_add with the Rect on the right
        1 + r
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


def _live_rects(m):
    return sum(1 for o in gc.get_objects() if type(o) is m.Rect)


def check_gc(m):
    gc.collect()
    before = _live_rects(m)
    r = m.Rect(1.0, 1.0)
    r.tag = r                      # a cycle through the object member
    assert _live_rects(m) == before + 1, "a Rect is tracked by the GC"
    del r
    gc.collect()
    assert _live_rects(m) == before, "the cycle through tag was collected"
    cycle = [m.Rect(1.0, 1.0) for _ in range(100)]
    for x in cycle:
        x.tag = x
    del cycle, x
    collected = gc.collect()
    return [collected >= 100, _live_rects(m) - before]


def check_subclass(m):
    class Sub(m.Rect):
        pass
    s = Sub(3.0, 1.0)
    return [s.area(), isinstance(s, m.Rect)]


CHECKS = [check_slots, check_members_and_getset, check_gc, check_subclass]
