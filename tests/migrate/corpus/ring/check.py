import gc
import weakref


def outcome(f, *args, **kwargs):
    try:
        return f(*args, **kwargs)
    except Exception as e:
        return type(e).__name__, str(e)


def check_ring_evicts_into_its_callback(m):
    evicted = []
    r = m.Ring(3, on_evict=evicted.append)
    for i in range(6):
        r.push(i)
    return [r.tolist(), evicted, len(r), r[1], outcome(lambda: r[9]), 4 in r, 9 in r, repr(r),
            r.full, r.capacity, [r.pop(), r.pop()], r.full]


def check_ring_arguments_and_errors(m):
    r = m.Ring(2)
    out = [outcome(m.Ring, 0), outcome(m.Ring, 2, 5), outcome(m.Ring, capacity="x"),
           r.stats(), r.stats(verbose=True), outcome(r.stats, 1, 2), outcome(r.pop)]
    r.frozen = True
    out.append(outcome(r.push, 1))
    r.frozen = False
    out.append(outcome(r.push, 1))
    return out


def check_ring_callback_attribute(m):
    r = m.Ring(1)
    out = [r.on_evict]
    r.on_evict = print
    out.append(r.on_evict is print)
    r.on_evict = None
    out += [r.on_evict, outcome(setattr, r, "on_evict", 5), outcome(delattr, r, "on_evict")]
    r.on_evict = lambda x: 1 / 0
    r.push(1)
    out.append(outcome(r.push, 2))
    return out


def check_ring_compares_extends_and_subclasses(m):
    a, b = m.Ring(3), m.Ring(3)
    a.extend([1, 2])
    b.extend(iter([1, 2]))

    class Sub(m.Ring):
        pass
    s = Sub(2)
    s.extend(range(5))
    return [a == b, a != b, a == 5, outcome(a.extend, 5), s.tolist(), type(s).__name__]


def check_ring_objects_released(m):
    class Token:
        pass
    r = m.Ring(2)
    t = Token()
    alive = weakref.ref(t)
    r.push(t)
    del t
    out = [alive() is not None]
    del r
    out.append(alive() is None)
    cycle = m.Ring(2)
    t = Token()
    alive = weakref.ref(t)
    cycle.push(cycle)
    cycle.push(t)
    ref = weakref.ref(cycle)
    del t, cycle
    gc.collect()
    out += [alive() is None, ref() is None]
    return out


def check_module_functions(m):
    return [m.word_counts("a b a  c b a"), m.sorted_items({"b": 2, "a": 1}), outcome(m.sorted_items, 5),
            m.scale([1, 2.5], 2), m.scale(values=(1,), factor=3, offset=1), outcome(m.scale, [1, "x"], 2),
            outcome(m.scale, 5, 2), outcome(m.scale, [1]),
            [m.describe(x) for x in (1, "ab", b"abc", [1], (1, 2), 2.5)],
            m.join_bytes(b"ab", b"cd"), outcome(m.join_bytes, "ab", b"cd"),
            m.call_with(max, 3, 9, 4), outcome(m.call_with),
            m.getattr_default(1, "real"), m.getattr_default(1, "nope", 7), m.getattr_default(1, "nope"),
            outcome(m.getattr_default, 1, 5), m.VERSION, m.AUTHOR, issubclass(m.RingError, Exception)]


CHECKS = [check_ring_evicts_into_its_callback, check_ring_arguments_and_errors, check_ring_callback_attribute,
          check_ring_compares_extends_and_subclasses, check_ring_objects_released, check_module_functions]
