import pytest

from eval.harness import profiler
from eval.harness.config import FULL, QUICK
from eval.harness.runner import RunError


def line(python=0.0, native=0.0, system=0.0, copy=0.0):
    return {"n_cpu_percent_python": python, "n_cpu_percent_c": native,
            "n_sys_percent": system, "n_copy_mb_s": copy}


def test_metrics_are_percentages_of_the_elapsed_time_over_every_file():
    profile = {
        "elapsed_time_sec": 2.0,
        "memory": True,
        "files": {
            "a.py": {"lines": [line(python=25, native=10, copy=100.0), line(system=5)]},
            "b.py": {"lines": [line(python=15, native=40, system=5, copy=20.0)]},
        },
    }
    result = profiler.metrics(profile)
    assert result["python_s"] == pytest.approx(0.8)
    assert result["native_s"] == pytest.approx(1.0)
    assert result["system_s"] == pytest.approx(0.2)
    assert result["total_s"] == 2.0
    assert result["copy_mb_s"] == pytest.approx(120.0)
    assert result["attributed_percent"] == pytest.approx(100.0)


def test_copy_volume_needs_memory_profiling():
    profile = {"elapsed_time_sec": 1.0, "memory": False,
               "files": {"a.py": {"lines": [line(python=50, native=50)]}}}
    assert profiler.metrics(profile)["copy_mb_s"] is None


def test_an_empty_profile_is_an_error():
    with pytest.raises(RunError, match="empty profile"):
        profiler.metrics({})


def test_quick_plan_samples_faster_and_full_uses_scalene_default():
    assert "--cpu-sampling-rate" not in FULL.scalene_options
    assert "--cpu-sampling-rate" in QUICK.scalene_options
    for options in (FULL.scalene_options, QUICK.scalene_options):
        assert "--no-stacks" in options and "--memory" in options


def test_scalene_measures_copy_volume_here(tmp_path):
    # The real thing: the installed Scalene, with our options, on a program
    # that copies a known volume.  Fails if a Scalene upgrade breaks copy
    # sampling again (2.4.0 needs --no-stacks) or changes its JSON.
    if profiler.version() is None:
        pytest.skip("scalene is not installed")
    probe = profiler.probe_copy_volume(tmp_path, QUICK.scalene_options, timeout=120)
    assert probe["available"], probe["reason"]
    assert probe["copied_mb"] / 2 < probe["measured_mb"] < probe["copied_mb"] * 3
