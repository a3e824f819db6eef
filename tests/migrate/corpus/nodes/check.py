import gc
import weakref

import pytest


class Item:
    pass


def check_items_stored_inline(m):
    items = [Item() for _ in range(33)]
    row = m.make(*items)
    out = [row.size(), row.tag(), type(row).__name__, all(row.get(i) is items[i] for i in range(33))]
    with pytest.raises(IndexError):
        row.get(33)
    return out


def check_copy_with_an_item_replaced(m):
    row = m.make(1, 2, 3)
    col = row.with_item(1, "two")
    return [[row.get(i) for i in range(3)], [col.get(i) for i in range(3)], type(col).__name__,
            col.tag(), m.make().size()]


def check_items_released_with_the_node(m):
    items = [Item() for _ in range(5)]
    refs = [weakref.ref(i) for i in items]
    row = m.make(*items)
    col = row.with_item(0, 0)
    del items
    alive = [sum(r() is not None for r in refs)]
    del row
    alive.append(sum(r() is not None for r in refs))
    del col
    alive.append(sum(r() is not None for r in refs))
    return alive


def check_cycle_through_an_item_is_collected(m):
    it = Item()
    it.node = m.make(it, Item())
    dead = weakref.ref(it)
    del it
    gc.collect()
    return dead() is None


CHECKS = [check_items_stored_inline, check_copy_with_an_item_replaced,
          check_items_released_with_the_node, check_cycle_through_an_item_is_collected]
