"""Tests of the port's own machinery: the handle bound, the benchmark, the
migration metrics and the recipe's checks."""

import json
import os
import subprocess
import sys

import pytest

from eval.results import schema
from ports.ultrajson import bench, metrics, recipe, workloads
from ports.ultrajson import ujson_port as port

PORT_DIR = port.PORT_DIR


def run_in(variant, code, env=None, timeout=300):
    if port.wheel_path(variant) is None:
        pytest.fail(port.missing_reason(variant), pytrace=False)
    result = subprocess.run(port.variant_command(variant, code), capture_output=True, text=True,
                            timeout=timeout, env={**os.environ, **(env or {})})
    return result


# ---------------------------------------------------------------------------
# the handle array stays bounded
# ---------------------------------------------------------------------------

_MANY_VALUES = r"""
import hashlib
doc = "[" + ",".join('{"id":%d,"name":"n\\u00e9%d","ok":true,"v":[1.5,null,"x"]}' % (i, i)
                     for i in range(100000)) + "]"
value = ujson.loads(doc)
big = {str(i): (i, "\u00e9" * 3, {b"k": [None, False]}) for i in range(50000)}
outputs = [ujson.dumps(value), ujson.dumps(value, sort_keys=True, indent=2, ensure_ascii=False),
           ujson.dumps(big, reject_bytes=False), ujson.dumps(big, sort_keys=True, reject_bytes=False),
           ujson.dumps(list(range(200000))), ujson.dumps(tuple(str(i) for i in range(200000)))]
print(len(value), hashlib.sha256("".join(outputs).encode()).hexdigest())
"""


def test_handle_array_stays_bounded():
    """Hundreds of thousands of values through loads and every dumps path
    with a limit of 64 live handles per call: nothing may accumulate per
    item.  The output must equal the stock build's."""
    stock = run_in("stock", _MANY_VALUES)
    cystck = run_in("cystck", _MANY_VALUES, env={"CYSTCK_HANDLE_LIMIT": "64"})
    assert stock.returncode == 0, stock.stderr
    assert cystck.returncode == 0, cystck.stderr
    assert cystck.stdout == stock.stdout


def test_handle_limit_is_enforced():
    """The control for the test above: the limit really applies (nesting
    holds handles per level, so 200 levels do not fit in 64)."""
    code = "ujson.dumps(eval('[' * 200 + ']' * 200))"
    result = run_in("cystck", code, env={"CYSTCK_HANDLE_LIMIT": "64"})
    assert result.returncode != 0
    assert "Cystck handle limit exceeded" in result.stderr
    assert run_in("cystck", code).returncode == 0


# ---------------------------------------------------------------------------
# benchmark
# ---------------------------------------------------------------------------

def test_harness_interface():
    """What eval/harness/PORT_INTERFACE.md asks of the workload module:
    stdlib-only at import, WORKLOADS and SIZES, the same checksum for every
    variant."""
    code = ("import importlib.util, sys\n"
            "spec = importlib.util.spec_from_file_location('w', sys.argv[1])\n"
            "w = importlib.util.module_from_spec(spec); spec.loader.exec_module(w)\n"
            "assert 'ujson_port' not in sys.modules\n"
            "print(sorted(w.SIZES[False]) == sorted(w.SIZES[True]) == sorted(w.WORKLOADS))\n"
            "for name, f in sorted(w.WORKLOADS.items()):\n"
            "    print(name, f.__doc__.splitlines()[0], f(ujson, 2))\n")
    outputs = {}
    for variant in port.VARIANTS:
        result = subprocess.run(port.variant_command(variant, code, str(PORT_DIR / "workloads.py")),
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        outputs[variant] = result.stdout
    assert outputs["stock"].startswith("True\n")
    for variant in port.VARIANTS:
        assert outputs[variant] == outputs["stock"], variant
    assert workloads.DOCUMENT_PATH == port.UPSTREAM_DIR / workloads.DOCUMENT


def test_ratios_are_variant_over_stock():
    r = bench.ratios([1.0, 2.0, 4.0], [1.1, 2.2, 4.4])
    assert r["ratio_of_medians"] == pytest.approx(1.1)
    assert r["median_paired_ratio"] == pytest.approx(1.1)
    by_variant = bench.ratios_by_variant({v: [1.0 + i, 2.0 + i] for i, v in enumerate(port.VARIANTS)})
    assert set(by_variant) == set(port.VARIANTS) - {port.REFERENCE}
    assert by_variant["cystck"]["ratio_of_medians"] == pytest.approx(4.5 / 1.5)


def test_parse_benchmark_output():
    text = ("Enabled ujson benchmarks\nArray with 256 doubles\nujson encode: 1,234.50 calls/sec\n"
            "ujson decode: 99.00 calls/sec\nComplex object\nujson encode: 10.00 calls/sec\n\n"
            "### Test machine\n\nLinux 6.1 x86_64 #1\n\n| | ujson |\n")
    assert bench.parse_benchmark_output(text) == {
        ("Array with 256 doubles", "encode"): 1234.5,
        ("Array with 256 doubles", "decode"): 99.0,
        ("Complex object", "encode"): 10.0,
    }


def test_quick_benchmark_runs(tmp_path):
    """bench.py --quick end to end (every variant, all three parts)."""
    for variant in port.VARIANTS:
        if port.wheel_path(variant) is None:
            pytest.fail(port.missing_reason(variant), pytrace=False)
    output = tmp_path / "ultrajson.json"
    result = subprocess.run([sys.executable, str(PORT_DIR / "bench.py"), "--quick",
                             "--output", str(output)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(output.read_text())
    assert report["quick"] is True and report["failed"] == []
    ld = report["loads_dumps"]
    assert ld["results_identical"]
    assert ld["document"]["bytes"] == 687492
    ported = set(port.VARIANTS) - {port.REFERENCE}
    for op in ("loads", "dumps"):
        for variant in port.VARIANTS:
            assert len(ld["workloads"][op]["seconds"][variant]["samples"]) == bench.ROUNDS[True]
        assert set(ld["workloads"][op]["ratio"]) == ported
        assert all(r["ratio_of_medians"] > 0 for r in ld["workloads"][op]["ratio"].values())
    assert len(report["benchmark_py"]["results"]) == 17
    assert set(report["benchmark_py"]["geometric_mean_ratio"]) == ported
    mem = report["memory"]
    assert mem["same_result"] and set(mem["peak_rss_mib"]) == {*port.VARIANTS, "cystck_handle_limit"}
    # The summary every port writes (eval/results/schema.py).
    assert schema.validate(report) == []
    for op in ("loads", "dumps"):
        for variant in ported:
            assert (report["summary"]["workloads"][op][variant]["ratio"]
                    == ld["workloads"][op]["ratio"][variant]["ratio_of_medians"])


def test_bench_summary_is_derived_from_the_results_alone():
    """summary_of() rebuilds the committed eval/results/ultrajson.json
    summary from that file's own data."""
    committed = json.loads((port.RESULTS_DIR / "ultrajson.json").read_text())
    assert bench.summary_of(committed) == committed["summary"]


# ---------------------------------------------------------------------------
# migration metrics
# ---------------------------------------------------------------------------

def test_metrics_match_the_patch():
    """The residual counted by the metrics is manual.patch, line for line."""
    if not port.PORT_SRC_DIR.is_dir():
        pytest.fail("build/ultrajson/cystck/port is missing: run `make ultrajson-wheels`",
                    pytrace=False)
    entry = metrics.compute()
    text = port.MANUAL_PATCH.read_text()
    added = sum(1 for ln in text.splitlines() if ln.startswith("+") and not ln.startswith("+++"))
    removed = sum(1 for ln in text.splitlines() if ln.startswith("-") and not ln.startswith("---"))
    residual = entry["residual_patch"]
    assert (residual["additions"], residual["deletions"]) == (added, removed)
    assert 0 < entry["coverage"] <= 1
    assert entry["tool"]["files_modified"] == len(port.MIGRATED_FILES)


# ---------------------------------------------------------------------------
# recipe
# ---------------------------------------------------------------------------

def test_sdist_hash_is_checked(tmp_path):
    fake = tmp_path / port.SDIST_NAME
    fake.write_bytes(b"not the sdist")
    with pytest.raises(SystemExit, match="does not match the pinned"):
        recipe.check_hash(fake)


def test_unified_diff_round_trips(tmp_path):
    """save-patch's diff applies with patch -p1 and reproduces the edit."""
    old, new = tmp_path / "old", tmp_path / "new"
    for root, text in ((old, "a\nb\nc\n"), (new, "a\nB\nc\nd\n")):
        (root / "src").mkdir(parents=True)
        (root / "src" / "f.c").write_text(text)
    patch_file = tmp_path / "p.patch"
    patch_file.write_text(recipe.unified_diff(old, new, ["src/f.c"]))
    subprocess.run(["patch", "-p1", "--batch", "-d", str(old), "-i", str(patch_file)],
                   check=True, capture_output=True)
    assert (old / "src" / "f.c").read_text() == "a\nB\nc\nd\n"
