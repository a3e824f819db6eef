import gc
import weakref


class Item:
    pass


def check_objects_and_memory_freed_with_the_buffer(m):
    log = []
    before = m.live()
    b = m.Buffer(4, log.append)
    items = [Item() for _ in range(3)]
    refs = [weakref.ref(i) for i in items]
    for i in items:
        b.append(i)
    b.fill(2.5)
    out = [b.total(), m.live() - before]
    del items
    out.append(sum(r() is not None for r in refs))
    del b
    out += [log, sum(r() is not None for r in refs), m.live() - before]
    return out


def check_cycle_through_an_item_is_collected(m):
    log = []
    before = m.live()
    b = m.Buffer(2, log.append)
    it = Item()
    it.buffer = b
    b.append(it)
    dead = weakref.ref(it)
    del b, it
    gc.collect()
    # not the log: a finalizer runs before the collector clears the fields
    # (PEP 442), the stock deallocator after (tests/migrate/test_rules_destructor_split.py)
    return [dead() is None, m.live() - before]


def check_closed_buffer_and_subclass(m):
    log = []
    before = m.live()

    class Sub(m.Buffer):
        pass

    b = Sub(3, log.append)
    b.append(1)
    b.close()
    b.append(2)
    b.fill(1.0)
    total = b.total()
    del b
    return [total, log, m.live() - before]


CHECKS = [check_objects_and_memory_freed_with_the_buffer, check_cycle_through_an_item_is_collected,
          check_closed_buffer_and_subclass]
