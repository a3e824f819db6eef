import importlib.util


def check_exec_slots_ran_in_order(m):
    return [m.answer, m.order, m.twice(21), m.__doc__]


def check_each_module_object_is_initialized_anew(m):
    """A multi-phase module makes a new module object, created and
    executed again, for every spec it is loaded from."""
    other = importlib.util.module_from_spec(m.__spec__)
    m.__spec__.loader.exec_module(other)
    other.order.append("mine")
    return [other is not m, other.order, m.order, other.module_name(), type(other).__name__]


CHECKS = [check_exec_slots_ran_in_order, check_each_module_object_is_initialized_anew]
