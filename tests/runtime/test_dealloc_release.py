"""Deallocators in two parts (CYSTCK_DEF_DEALLOC), through the
rt_dealloc_release test extension: the part calling the API runs in
tp_dealloc, where a stock deallocator calls the API (after the collector
cleared the fields of an object in a cycle; for a Python subclass's
instances whatever their __del__), with the object alive for the call,
then the destructor."""
import gc

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="session")
def rt(build_rt):
    return load_extension("rt_dealloc_release", build_rt("rt_dealloc_release"))


def _destroyed(rt):
    return rt.counts()[1]


def test_release_then_destructor_when_the_object_dies(rt):
    log, before = [], _destroyed(rt)
    n = rt.Note(log, "a")
    del n
    assert log == ["a"] and _destroyed(rt) == before + 1


def test_no_finalizer_is_seen_from_python(rt):
    """As a stock deallocator: no tp_finalize, so no __del__."""
    assert not hasattr(rt.Note, "__del__") and not hasattr(rt.Count, "__del__")


def test_in_a_cycle_the_collector_clears_the_fields_first(rt):
    log, before = [], _destroyed(rt)
    n = rt.Note(log, "x")
    n.__init__(log, n)
    del n
    gc.collect()
    assert log == [] and _destroyed(rt) == before + 1


@pytest.mark.parametrize("with_del", [False, True], ids=["plain", "__del__"])
def test_a_python_subclass_runs_the_release(rt, with_del):
    log, before = [], _destroyed(rt)

    class Sub(rt.Note):
        if with_del:
            def __del__(self):
                log.append("__del__")
    n = Sub(log, "sub")
    del n
    gc.collect()
    assert log == (["__del__"] if with_del else []) + ["sub"] and _destroyed(rt) == before + 1


def test_a_failing_release_is_reported_as_unraisable(rt, monkeypatch):
    seen = []       # not the hook's argument, which holds the object (keeping it alive)
    monkeypatch.setattr("sys.unraisablehook", lambda u: seen.append((u.exc_type, str(u.exc_value))))
    log, before = [], _destroyed(rt)
    n = rt.Note(log, None)
    del n
    assert log == [] and seen == [(ValueError, "a Note tagged None")] and _destroyed(rt) == before + 1


def test_a_pending_exception_survives_a_release(rt):
    log = []
    n = rt.Note(log, "x")
    try:
        try:
            raise KeyError("pending")
        finally:
            del n
    except KeyError as exc:
        assert exc.args == ("pending",)
    assert log == ["x"]


def test_an_object_brought_back_to_life_stays_whole(rt):
    log, before = [], _destroyed(rt)
    n = rt.Note(log, "r", keep=True)
    del n
    assert len(log) == 1 and type(log[0]) is rt.Note and _destroyed(rt) == before
    del log[0]              # its last reference: it dies for good
    gc.collect()
    assert log == ["r"] and _destroyed(rt) == before + 1


def test_a_type_without_fields_or_destructor(rt):
    class Sub(rt.Count):
        def __del__(self):
            pass
    before = rt.counts()[0]
    c = rt.Count()
    del c
    c = Sub()
    del c
    gc.collect()
    assert rt.counts()[0] == before + 2
