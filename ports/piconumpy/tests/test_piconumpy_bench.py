"""Tests of the benchmark itself: its statistics, its workload, its report."""

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from eval.results import schema
from ports.piconumpy import callgrind_ops, workloads
from ports.piconumpy import piconumpy_variants as pv

PORT_DIR = Path(__file__).resolve().parent.parent


def _in_stock(code):
    if pv.wheel_path("stock") is None:
        pytest.fail(pv.missing_reason("stock"))
    result = subprocess.run(
        pv.variant_command("stock", code, str(PORT_DIR / "workloads.py")),
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_sled_stays_on_the_ground_and_moves_downhill():
    # The solver integrates y and vy although the physics ties them to x
    # and vx: if the equations were wrong the sled would leave the ground.
    out = _in_stock("""
import importlib.util, json
spec = importlib.util.spec_from_file_location("piconumpy_workloads", sys.argv[1])
workloads = importlib.util.module_from_spec(spec)
spec.loader.exec_module(workloads)
state, travelled = workloads.simulate_sled(piconumpy, 2.0, 1.0, 0.08, 0.002)
print(json.dumps([state.tolist(), travelled, workloads.ground(state[0])[0]]))
""")
    (x, y, vx, vy), travelled, ground_y = json.loads(out)
    assert abs(y - ground_y) < 1e-3
    assert x > 2.0 and vx > 0.0
    assert travelled >= x - 2.0


def test_quick_run_reports_every_variant_and_missing_ones(tmp_path):
    built, _ = pv.select_variants()
    assert "stock" in built, pv.missing_reason("stock")
    output = tmp_path / "piconumpy.json"
    requested = built + ["not_a_variant"]
    run = subprocess.run(
        [sys.executable, str(PORT_DIR / "bench.py"), "--quick", "--rounds", "2",
         "--variants", ",".join(requested), "--output", str(output)],
        capture_output=True, text=True, timeout=600,
    )
    # A requested variant that is not built makes the run fail, after the
    # others have been measured and reported.
    assert run.returncode == 1, run.stderr
    assert "not_a_variant" in run.stdout and "missing" in run.stdout
    report = json.loads(output.read_text())
    assert report["quick"] is True
    assert report["variants"] == built
    assert list(report["missing"]) == ["not_a_variant"]
    assert report["failed"] == [] and report["checksums_disagree"] == {}
    for workload in ("board", "ops"):
        times = report["times"][workload]
        assert set(times) == set(built)
        for variant in built:
            assert len(times[variant]["runs"]) == 2
            assert all(t > 0 for t in times[variant]["runs"])
        ratios = report["ratios"][workload]
        assert ratios["stock"] == 1.0
        for variant in built:
            assert math.isclose(ratios[variant],
                                times[variant]["median"] / times["stock"]["median"])
        paired = report["paired_ratios"][workload]
        assert set(paired) == set(built) - {"stock"}
        for variant, summary in paired.items():
            assert summary["runs"] == [t / s for t, s in zip(times[variant]["runs"],
                                                             times["stock"]["runs"],
                                                             strict=True)]
    # The summary every port writes (eval/results/schema.py).
    assert schema.validate(report) == []
    assert report["summary"]["workloads"]["ops"]["stock"]["samples"] == times["stock"]["runs"]


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_instruction_counts_are_reproducible():
    # The point of counting instructions is that, unlike times, they do not
    # move between runs: two counts of the same operation must agree.
    if pv.wheel_path("stock") is None:
        pytest.fail(pv.missing_reason("stock"))
    first = callgrind_ops.operation_instructions("stock", "getitem", calls=2000)
    second = callgrind_ops.operation_instructions("stock", "getitem", calls=2000)
    loop = callgrind_ops.operation_instructions("stock", "loop", calls=2000)
    assert abs(first - second) <= 1, (first, second)
    # a[1] is an interpreter instruction, a call into the extension and a
    # float: some hundreds of instructions, well above the empty loop's.
    assert loop + 50 < first < loop + 2000, (loop, first)
