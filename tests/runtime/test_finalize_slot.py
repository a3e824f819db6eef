"""Finalizers (CYSTCK_DEF_SLOT tp_finalize, PEP 442), through the
rt_finalize test extension: they run once, with a state, before the object
dies, like a Python class's __del__ (CPython's own finalizer), which each
scenario runs beside them."""
import gc

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="session")
def rt_finalize(build_rt):
    return load_extension("rt_finalize", build_rt("rt_finalize"))


class PySink:
    """The stock behaviour: a Python class whose __del__ does what the
    Sink's finalizer does."""

    def __init__(self, log, tag, keep=False):
        self.log, self.tag, self.keep = log, tag, keep

    def __del__(self):
        if self.tag is None:
            raise ValueError("a Sink tagged None")
        self.log.append(self if self.keep else self.tag)


@pytest.fixture(params=["cystck", "python"])
def sink(request, rt_finalize):
    return rt_finalize.Sink if request.param == "cystck" else PySink


def test_finalizer_runs_when_the_object_dies(sink):
    log = []
    s = sink(log, "a")
    assert log == []
    del s
    assert log == ["a"]


def test_finalizer_runs_before_the_cycle_collector_clears_the_fields(sink):
    log = []
    s = sink(log, "x")
    s.__init__(log, s)      # its own tag: a cycle, which only the collector frees
    del s
    assert log == []
    gc.collect()
    assert len(log) == 1 and type(log[0]) is sink     # the tag field was still set


def test_a_failing_finalizer_is_reported_as_unraisable(sink, monkeypatch):
    seen = []
    monkeypatch.setattr("sys.unraisablehook", seen.append)
    log = []
    s = sink(log, None)
    del s
    assert log == [] and len(seen) == 1
    assert seen[0].exc_type is ValueError and str(seen[0].exc_value) == "a Sink tagged None"


def test_a_pending_exception_survives_a_finalizer(sink):
    log = []
    s = sink(log, "x")
    try:
        try:
            raise KeyError("pending")
        finally:
            del s
    except KeyError as exc:
        assert exc.args == ("pending",)
    assert log == ["x"]


def test_a_resurrected_object_lives_and_is_not_finalized_again(sink):
    log = []
    s = sink(log, "r", keep=True)
    del s
    assert len(log) == 1 and type(log[0]) is sink
    log.append("after")
    del log[0]              # its last reference: it dies for good, not finalized again
    gc.collect()
    assert log == ["after"]


def test_a_python_subclass_runs_the_finalizer_once(rt_finalize):
    class Sub(rt_finalize.Sink):
        pass
    log = []
    s = Sub(log, "sub")
    del s
    gc.collect()
    assert log == ["sub"]


def test_a_type_without_fields_runs_its_finalizer_once(rt_finalize):
    class Sub(rt_finalize.Tally):
        pass
    before = rt_finalize.tallies_finalized()
    t = rt_finalize.Tally()
    del t
    assert rt_finalize.tallies_finalized() == before + 1
    t = Sub()
    del t
    gc.collect()
    assert rt_finalize.tallies_finalized() == before + 2
