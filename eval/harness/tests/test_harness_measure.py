"""The measurement loop on a fake port: a pure-Python "extension" installed
in one site directory per variant, each variant behaving differently."""

import sys
import textwrap

import pytest

from eval.harness import measure as measure_module
from eval.harness import profiler
from eval.harness.config import Plan
from eval.harness.measure import (SCALENE_METRICS, make_groups, measure, summarize_scalene,
                                  summarize_wall)
from eval.harness.runner import run
from eval.harness.ports import PortSpec, load_port, variant_states
from eval.harness.progress import Progress

EXTENSIONS = {
    "stock": "def add(a, b):\n    return a + b\n",
    "hpy_cpython": "def add(a, b):\n    return a + b + 1e-9\n",       # a wrong answer
    "cystck": "def add(a, b):\n    raise RuntimeError('boom')\n",      # a crash
}

HELPER = """
from pathlib import Path
ROOT = Path({root!r})
VARIANTS = ("stock", "hpy_cpython", "cystck", "hpy_universal")
BUILT = ("stock", "hpy_cpython", "cystck")

def wheel_path(variant):
    return ROOT / f"{{variant}}.whl" if variant in BUILT else None

def missing_reason(variant):
    return f"{{variant}} is not built (test)"

def ensure_site(variant):
    return ROOT / "sites" / variant
"""

WORKLOADS = '''
def total(module, repeat):
    """Add up `repeat` numbers."""
    result = 0.0
    for i in range(repeat):
        result = module.add(result, i * 0.5)
    return result

WORKLOADS = {"total": total}
SIZES = {False: {"total": 400000}, True: {"total": 200000}}
'''


@pytest.fixture
def port(tmp_path):
    for variant, source in EXTENSIONS.items():
        package = tmp_path / "sites" / variant / "fakeext"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(source)
    (tmp_path / "helper.py").write_text(HELPER.format(root=str(tmp_path)))
    (tmp_path / "workloads.py").write_text(textwrap.dedent(WORKLOADS))
    spec = PortSpec("fake", "Fake", "fakeext", str(tmp_path / "helper.py"),
                    str(tmp_path / "workloads.py"), "PicoNumPy")
    return load_port(spec, quick=True)


def test_port_loading(port):
    assert port.problem is None
    assert port.sizes == {"total": 200000}
    assert port.descriptions == {"total": "Add up `repeat` numbers."}
    states = variant_states(port)
    assert states["stock"].status == "ok"
    assert states["hpy_universal"].status == "missing"
    assert states["hpy_universal"].reason == "hpy_universal is not built (test)"


def test_wall_time_fails_wrong_and_crashing_variants_and_goes_on(port, tmp_path):
    plan = Plan(runs=3, dropped=1, quick=True)
    states = variant_states(port)
    groups = make_groups([port], {port.name: states})
    progress = Progress({("wall", g.key): plan.runs * len(g.combos) for g in groups})
    measure(groups, "wall", plan, progress, tmp_path / "work", timeout=60)
    summary = summarize_wall(groups[0], states, plan)

    assert summary["stock"]["status"] == "ok"
    assert len(summary["stock"]["runs"]) == 3
    assert summary["stock"]["seconds"]["n"] == 2
    assert summary["stock"]["ratio"] is None
    assert summary["hpy_cpython"]["status"] == "failed"
    assert "differs from the stock variant's" in summary["hpy_cpython"]["reason"]
    assert summary["cystck"]["status"] == "failed"
    assert summary["cystck"]["reason"].startswith("run 1 of 3 failed: exit status 1")
    assert "RuntimeError: boom" in summary["cystck"]["reason"]
    assert summary["cystck"]["runs"] == []
    assert summary["hpy_universal"] == {"status": "missing",
                                        "reason": "hpy_universal is not built (test)"}


def test_ratio_to_stock_pairs_runs_of_the_same_round(port, tmp_path):
    plan = Plan(runs=3, dropped=1, quick=True)
    states = variant_states(port)
    # The same correct extension under a second name: its ratio to stock is ~1.
    states["hpy_universal"] = states["stock"]
    groups = make_groups([port], {port.name: states})
    progress = Progress({("wall", g.key): plan.runs * len(g.combos) for g in groups})
    measure(groups, "wall", plan, progress, tmp_path / "work", timeout=60)
    ratio = summarize_wall(groups[0], states, plan)["hpy_universal"]["ratio"]
    assert ratio["n"] == 2
    assert 0.5 < ratio["median"] < 2.0
    assert ratio["ci95"][0] <= ratio["median"] <= ratio["ci95"][1]


def test_scalene_phase_profiles_the_driver(port, tmp_path):
    if profiler.version() is None:
        pytest.skip("scalene is not installed")
    plan = Plan(runs=2, dropped=1, quick=True, sampling_interval=0.002)
    states = {"stock": variant_states(port)["stock"]}
    groups = make_groups([port], {port.name: states})
    progress = Progress({("scalene", g.key): plan.runs for g in groups})
    measure(groups, "scalene", plan, progress, tmp_path / "work", timeout=120)
    entry = summarize_scalene(groups[0], states, plan, copy_available=True)["stock"]
    assert entry["status"] == "ok", entry.get("reason")
    parts = entry["python_s"]["median"] + entry["native_s"]["median"] + entry["system_s"]["median"]
    assert 0 < parts <= entry["total_s"]["median"] * 1.001
    assert entry["copy_mb_s"]["n"] == 1
    assert (tmp_path / "work" / "profiles" / "fake-total-stock.json").is_file()


FLAKY_PROFILER = """
import sys
from pathlib import Path
marker = Path({marker!r})
if not marker.exists():
    marker.write_text("failed once")
    sys.exit("the profiler fell over")
"""


def test_a_failed_profiled_run_is_tried_again_and_recorded(port, tmp_path, monkeypatch):
    """The first Scalene attempt fails (as Scalene now and then does); the
    second succeeds: the variant is measured and the retry is recorded."""
    flaky = tmp_path / "flaky.py"
    flaky.write_text(FLAKY_PROFILER.format(marker=str(tmp_path / "marker")))

    def flaky_profile(program, args, outfile, options, timeout):
        """The first call fails; every call runs the driver unprofiled."""
        run([sys.executable, str(flaky)], timeout)
        run([sys.executable, "-I", str(program), *args], timeout)
        return {metric: 1.0 for metric in SCALENE_METRICS} | {"copy_mb_s": None,
                                                              "attributed_percent": 100.0}

    monkeypatch.setattr(profiler, "profile", flaky_profile)
    monkeypatch.setattr(measure_module, "RETRIES", {"scalene": 1, "wall": 0})
    plan = Plan(runs=2, dropped=1, quick=True)
    states = {"stock": variant_states(port)["stock"], "cystck": variant_states(port)["cystck"]}
    groups = make_groups([port], {port.name: states})
    progress = Progress({("scalene", g.key): plan.runs * len(g.combos) for g in groups})
    measure(groups, "scalene", plan, progress, tmp_path / "work", timeout=60)
    summary = summarize_scalene(groups[0], states, plan, copy_available=False)

    # stock runs first in round 1 and meets the profiler's failure.
    assert summary["stock"]["status"] == "ok"
    assert len(summary["stock"]["runs"]) == 2
    assert len(summary["stock"]["retries"]) == 1
    assert summary["stock"]["retries"][0].startswith("run 1: exit status 1")
    assert "the profiler fell over" in summary["stock"]["retries"][0]
    # The crashing variant fails on every attempt: failed, saying how often.
    assert summary["cystck"]["status"] == "failed"
    assert summary["cystck"]["reason"].startswith("run 1 of 2 failed 2 times: exit status 1")
    assert "RuntimeError: boom" in summary["cystck"]["reason"]
    assert len(summary["cystck"]["retries"]) == 1
