import gc
import weakref

import pytest


def check_weak_references_die_with_their_object(m):
    out = []
    for make in (lambda: m.Node(7), lambda: m.Leaf()):
        obj = make()
        r = weakref.ref(obj)
        out.append(r() is obj)
        del obj
        gc.collect()
        out.append(r() is None)
    return out


def check_callbacks_run_before_the_destructor(m):
    leaf = m.Leaf()
    first = leaf.first()
    before = m.freed()
    seen = []
    r = weakref.ref(leaf, lambda ref: seen.append(m.freed() - before))
    del leaf
    gc.collect()
    return [first, seen, m.freed() - before, r() is None]


def check_proxies_and_subclasses(m):
    node = m.Node(3)
    p = weakref.proxy(node)
    value = p.value

    class Sub(m.Node):
        pass

    sub = Sub(4)
    rs = weakref.ref(sub)
    alive = rs().value
    del node, sub
    gc.collect()
    with pytest.raises(ReferenceError):
        p.value
    return [value, alive, rs() is None, len(weakref.getweakrefs(m.Node(1)))]


def check_type_without_a_weak_list(m):
    with pytest.raises(TypeError) as e:
        weakref.ref(m.Plain())
    return str(e.value)


CHECKS = [check_weak_references_die_with_their_object, check_callbacks_run_before_the_destructor,
          check_proxies_and_subclasses, check_type_without_a_weak_list]
