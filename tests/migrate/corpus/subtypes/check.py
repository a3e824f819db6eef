import gc

import pytest


def check_subtype(m):
    s = m.Sub(5)
    first = s.describe()
    s.keep("x")
    with pytest.raises(TypeError):       # the base's tp_new, called by the subtype's
        m.Sub(1, 2)
    return [isinstance(s, m.Base), first, s.describe(), m.Sub().describe()]


def check_subtype_gc(m):
    gc.collect()
    s = m.Sub()
    s.keep(s)            # a cycle through the base part's field
    s.keep(s)            # and through the subtype's own
    del s
    return gc.collect() > 0


class _D:
    def __get__(self, obj, owner):
        return ("got", obj, owner.__name__)


class _C:
    def f(self):
        return "f"


def check_descriptor_slots(m):
    c = _C()
    return [m.bind(_D(), c)[0], m.bind(_C.f, c)(), m.bind(3, c),
            m.unbound(_D(), _C), m.unbound(_C.f, _C) is _C.f, m.unbound(classmethod(len), _C).__self__]


def check_mro_slots(m):
    class A:
        x = 1

    class B(A):
        pass

    class C(B):
        x = 2
    return [[t.__name__ for t in m.mro_names(C, "x")], m.mro_names(B, "y"), m.mro_names(int, "__add__")]


def check_builtin_types_without_handles(m):
    return [m.kind(check_mro_slots), m.kind(_C().f), m.kind(classmethod(len)), m.kind(len), m.kind(3)]


def check_object_address(m):
    o = object()
    return [m.address(o) == id(o), m.address(None) == id(None)]


def check_reassigned_args(m):
    return [m.shifted(None, 1, 2), m.shifted(1, None), m.shifted(), m.shifted(None)]


CHECKS = [check_reassigned_args, check_object_address, check_subtype, check_subtype_gc, check_descriptor_slots, check_mro_slots,
          check_builtin_types_without_handles]
