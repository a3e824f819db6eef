"""REPORT.md and the charts from a small, hand-made results.json."""

import json

import pytest

from eval.harness import __main__ as harness
from eval.harness import charts, paper, report, sources
from eval.harness.report import estimate


def est(middle, half=None, n=10):
    return {"median": middle, "ci95": None if half is None else [middle - half, middle + half],
            "ci_coverage": 0.9785, "n": n}


def scalene_ok(total, copy):
    return {"status": "ok", "runs": [], "python_s": est(total * 0.5, 0.01),
            "native_s": est(total * 0.3, 0.01), "system_s": est(total * 0.2, 0.01),
            "total_s": est(total, 0.02), "copy_mb_s": copy, "attributed_percent": 100.0}


CRASH = "run 2 of 15 failed: killed by signal 11: Segmentation fault"
NOT_BUILT = "the port has no cystck variant (not in ports/x.py's VARIANTS)"


@pytest.fixture
def results():
    states = {"stock": {"status": "ok", "reason": None},
              "hpy_cpython": {"status": "ok", "reason": None},
              "hpy_universal": {"status": "ok", "reason": None},
              "cystck": {"status": "missing", "reason": NOT_BUILT}}
    workload = {
        "repeat": 180,
        "description": "Simulate sleds.",
        "scalene": {
            "stock": scalene_ok(1.234, est(523.0, 12.0)),
            "hpy_cpython": {"status": "failed", "reason": CRASH, "runs": []},
            "hpy_universal": scalene_ok(1.5, est(400.0, 20.0)),
            "cystck": {"status": "missing", "reason": NOT_BUILT},
        },
        "wall": {
            "stock": {"status": "ok", "runs": [], "seconds": est(1.0, 0.05), "ratio": None},
            "hpy_cpython": {"status": "failed", "reason": CRASH, "runs": []},
            "hpy_universal": {"status": "ok", "runs": [], "seconds": est(1.2, 0.05),
                              "ratio": est(1.2, 0.04)},
            "cystck": {"status": "missing", "reason": NOT_BUILT},
        },
    }
    return {
        "schema": harness.SCHEMA,
        "created": "2026-01-01T00:00:00+00:00",
        "quick": False,
        "plan": {"runs": 15, "dropped": 5, "confidence": 0.95},
        "machine": {"platform": "Linux", "cpu": "CPU", "cpu_count": 2, "python": "3.11.7",
                    "load_average": [0, 0, 0]},
        "scalene": {"version": "2.4.0", "options": [],
                    "copy_probe": {"available": True, "reason": None, "copied_mb": 512,
                                   "measured_mb": 530.0}},
        "variants": ["stock", "hpy_cpython", "hpy_universal", "cystck"],
        "ports": {
            "piconumpy": {"title": "PicoNumPy", "paper_row": "PicoNumPy", "status": "ok",
                          "reason": None, "variants": states, "workloads": {"board": workload}},
            "kiwi": {"title": "Kiwisolver", "paper_row": "Kiwisolver", "status": "missing",
                     "reason": "ports/kiwi/bench.py does not exist",
                     "variants": {v: {"status": "missing",
                                      "reason": "ports/kiwi/bench.py does not exist"}
                                  for v in states},
                     "workloads": {}},
        },
        "micro": {"status": "missing", "reason": "eval/results/micro.json does not exist",
                  "file": "eval/results/micro.json"},
        "migration": {
            "piconumpy": {"status": "ok", "coverage": 0.5,
                          "manual": {"additions": 140, "deletions": 190, "files_modified": 1},
                          "automated": {"additions": 70, "deletions": 95, "files_modified": 1,
                                        "transformations": 31}},
            "kiwi": {"status": "missing", "reason": "no 'kiwi' entry in migration.json"},
        },
        "paper": paper.load(),
    }


def cells(markdown, first_cell):
    """The cells of the table row that starts with first_cell."""
    for line in markdown.splitlines():
        if line.startswith(f"| {first_cell} |"):
            return [c.strip() for c in line.strip("|").split("|")]
    raise AssertionError(f"no row {first_cell!r}")


def test_estimates_keep_three_significant_digits_of_the_median():
    assert estimate(est(0.00493, 0.000164)) == "0.00493 [0.00477, 0.00509]"
    assert estimate(est(523.4, 395.2)) == "523 [128, 919]"
    assert estimate(est(1.5)) == "1.50"


def test_table2_shows_failures_and_missing_variants_with_reasons(results):
    text = report.render(results)
    row = cells(text[text.index("## Time under Scalene"):], "PicoNumPy `board`")
    # Native: stock, hpy_cpython, hpy_universal, cystck; then system, python, total.
    assert row[1] == "0.370 [0.360, 0.380]"
    assert row[2].startswith("failed [") and row[4].startswith("missing [")
    assert row[13] == "1.23 [1.21, 1.25]"
    assert CRASH in text and NOT_BUILT in text
    # The paper's figures for the same extensions, as printed there.
    paper_table = text[text.index("The paper's Table 2"):]
    assert cells(paper_table, "PicoNumPy")[1:] == ["0.03", "0.02", "0.12", "0.03", "0.06", "0.76",
                                            "0.22", "0.21", "1.12", "0.28", "0.29", "2"]


def test_every_note_is_cited_and_listed_once(results):
    text = report.render(results)
    notes = text[text.index("## Notes"):]
    assert notes.count(CRASH) == 1
    for line in notes.splitlines()[2:]:
        number = line.split(".", 1)[0]
        assert f"[{number}]" in text[:text.index("## Notes")]


def test_copy_volume_unavailable_shows_no_number(results):
    results["scalene"]["copy_probe"] = {"available": False, "copied_mb": 512,
                                        "reason": "Scalene reported no copying"}
    for variant in ("stock", "hpy_universal"):
        results["ports"]["piconumpy"]["workloads"]["board"]["scalene"][variant]["copy_mb_s"] = None
    text = report.render(results)
    assert "Copy volume is unavailable on this machine" in text
    section = text[text.index("## Copy volume"):text.index("## Wall time")]
    assert "523" not in section
    assert cells(section, "PicoNumPy `board`")[1] == "unavailable"


def test_wall_time_and_migration_sections(results):
    text = report.render(results)
    assert cells(text, "PicoNumPy `board` | HPy (universal ABI)")[3] == "1.200 [1.160, 1.240]"
    assert cells(text, "Additions (+)") == ["Additions (+)", "140", "70", "128", "85"]
    assert cells(text, "Coverage") == ["Coverage", "", "50%", "", "≈33%"]
    assert "No micro-benchmark results: missing [" in text


def test_retried_profiled_runs_are_listed(results):
    entry = results["ports"]["piconumpy"]["workloads"]["board"]["scalene"]["stock"]
    entry["retries"] = ["run 2: Scalene wrote no profile"]
    text = report.render(results)
    assert ("Profiled runs that failed and were tried again (eval/README.md, \"Retries\"): "
            "PicoNumPy `board` C API, run 2: Scalene wrote no profile.") in text


def test_write_produces_report_results_and_charts(results, tmp_path):
    harness.write(results, tmp_path)
    assert json.loads((tmp_path / "results.json").read_text())["ports"].keys() == {"piconumpy",
                                                                                   "kiwi"}
    assert (tmp_path / "REPORT.md").read_text() == report.render(results)
    for chart in report.CHARTS.values():
        data = (tmp_path / chart).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5000
    assert harness.failures(results) == [f"piconumpy/board hpy_cpython (scalene): {CRASH}",
                                         f"piconumpy/board hpy_cpython (wall): {CRASH}"]


def test_migration_entries_are_validated(tmp_path):
    path = tmp_path / "migration.json"
    # As eval/harness/coverage.py writes them (plus keys the report ignores).
    path.write_text(json.dumps({
        "good": {"final_port": {"additions": 1, "deletions": 2, "files_modified": 1},
                 "tool": {"additions": 1, "deletions": 1, "files_modified": 1,
                          "transformations": 3},
                 "residual_patch": {"changed_lines": 1}, "coverage": 0.5},
        "empty": {"final_port": {"additions": 0, "deletions": 0, "files_modified": 0},
                  "tool": {"additions": 0, "deletions": 0, "files_modified": 0,
                           "transformations": 0}, "coverage": None},
        "bad": {"final_port": {"additions": 1}, "coverage": 2},
    }))
    result = sources.migration(["good", "empty", "bad", "absent"], path)
    assert result["good"] == {"status": "ok", "coverage": 0.5,
                              "manual": {"additions": 1, "deletions": 2, "files_modified": 1},
                              "automated": {"additions": 1, "deletions": 1, "files_modified": 1,
                                            "transformations": 3}}
    assert result["empty"]["status"] == "ok" and result["empty"]["coverage"] is None
    assert result["bad"]["status"] == "failed"
    assert "final_port.deletions" in result["bad"]["reason"]
    assert "tool.transformations" in result["bad"]["reason"]
    assert "coverage" in result["bad"]["reason"]
    assert result["absent"]["status"] == "missing"
    assert sources.migration(["x"], tmp_path / "none.json")["x"]["status"] == "missing"


def test_micro_results_are_read_or_reported_missing(tmp_path):
    assert sources.micro(tmp_path / "none.json")["status"] == "missing"
    (tmp_path / "micro.json").write_text(json.dumps({"schema": "other"}))
    assert sources.micro(tmp_path / "micro.json")["status"] == "failed"


def test_the_report_opens_with_the_verdict(results):
    results["quick"] = True
    results["ports"]["piconumpy"]["workloads"]["board"]["wall"]["cystck"] = {
        "status": "ok", "runs": [], "seconds": est(0.8, 0.05), "ratio": est(0.8, 0.1)}
    text = report.render(results)
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections[0] == "## Verdict"
    verdict = text[text.index("## Verdict"):text.index(sections[1])]
    # The quick-mode warning comes before the first table.
    assert verdict.index(report.QUICK_WARNING) < verdict.index("| Workload |")
    assert text.index("| Workload |") == text.index("|")  # the report's first table
    assert cells(verdict, "Workload") == ["Workload", "Cystck ÷ C API (95% interval)",
                                          "HPy (CPython ABI) ÷ C API",
                                          "HPy (universal ABI) ÷ C API"]
    row = cells(verdict, "PicoNumPy `board`")
    assert row[1] == "0.800 [0.700, 0.900]"
    assert row[2].startswith("failed [")
    assert row[3] == "1.200 [1.160, 1.240]"


def test_the_verdict_shows_a_missing_variant_as_missing(results):
    text = report.render(results)
    assert report.QUICK_WARNING not in text
    row = cells(text, "PicoNumPy `board`")  # the verdict's row comes first
    assert row[1].startswith("missing [")
    assert NOT_BUILT in text[text.index("## Notes"):]


def test_the_verdict_gives_micro_and_corpus_with_their_source(results, tmp_path):
    corpus = tmp_path / "corpus.json"
    passed = {"finished": True, "compiled_imported": True, "passed": 5, "failed": 0,
              "skipped": 0}
    corpus.write_text(json.dumps({"schema": "cystck-corpus/1", "date": "2026-01-02",
                                  "quick": False, "extensions": {
        "good": {"cystck": {"build": {"ok": True}, "release": passed, "debug": passed}},
        "debug_fails": {"cystck": {"build": {"ok": True}, "release": passed,
                                   "debug": {**passed, "failed": 1}}},
        "no_build": {"cystck": {"build": {"ok": False}}},
        "setup_failed": {"setup_error": "download failed"}}}))
    results["corpus"] = sources.corpus(corpus)
    results["micro"] = {"status": "ok", "file": "eval/results/micro.json", "date": "2026-01-03",
                        "quick": False, "variants": {}, "benchmarks": {},
                        "ratios": {"cystck": {"geomean": 1.031, "per_benchmark": {}},
                                   "hpy_universal": {"geomean": 1.78, "per_benchmark": {}}}}
    text = report.render(results)
    verdict = text[:text.index("## How these numbers were made")]
    assert ("Cystck 1.03; HPy (CPython ABI) missing; HPy (universal ABI) 1.78 "
            "(`eval/results/micro.json`, 2026-01-03)") in verdict
    assert "of 4 extensions, 2 build untouched with Cystck" in verdict
    assert "1 pass their own tests" in verdict
    assert f"(`{corpus}`, 2026-01-02;" in verdict
    assert sources.corpus(tmp_path / "none.json")["status"] == "missing"


def ratio_axes(figure):
    """The axes of a ratio chart, checked for a log scale and the 1.0 line."""
    (ax,) = figure.axes
    assert ax.get_yscale() == "log"
    assert any(list(line.get_ydata()) == [1.0, 1.0] for line in ax.get_lines())
    assert any(text.get_text() == "1.0 =\nC API" for text in ax.texts)
    return ax


def quick_warning_shown(figure):
    return any(report.QUICK_WARNING.replace("`", "") in text.get_text()
               for text in figure.texts)


@pytest.mark.parametrize("quick", [False, True])
def test_ratio_charts_are_log_scale_with_the_reference_line(results, tmp_path, quick):
    results["quick"] = quick
    for chart in (charts.walltime, charts.table2):
        figure = chart(results, tmp_path / "chart.png")
        ax = ratio_axes(figure)
        assert quick_warning_shown(figure) == quick
    # The HPy (universal ABI) bar of walltime: from 1.0 to its ratio, 1.2.
    bars = [p for p in charts.walltime(results, tmp_path / "w.png").axes[0].patches
            if p.get_height() != 0]
    assert [(b.get_y(), round(b.get_y() + b.get_height(), 6)) for b in bars] == [(1.0, 1.2)]
    # table2: ours (total 1.5 / 1.234) beside the paper's PicoNumPy row, one axis.
    ax = charts.table2(results, tmp_path / "t.png").axes[0]
    tops = sorted(round(p.get_y() + p.get_height(), 3) for p in ax.patches)
    table = paper.table2("PicoNumPy")
    assert tops == sorted([round(1.5 / 1.234, 3)]
                          + [round(table[api]["total"] / table["C API"]["total"], 3)
                             for api in ("HPy", "CyStck")])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["PicoNumPy\nboard",
                                                            "PicoNumPy\n(paper, Table 2)"]


def test_micro_chart_is_a_ratio_chart_marked_by_its_own_mode(results, tmp_path):
    ratio = {"ratio": 1.5, "ci95": [1.4, 1.6]}
    results["micro"] = {"status": "ok", "file": "eval/results/micro.json", "date": "2026-01-03",
                        "quick": True, "variants": {},
                        "benchmarks": {"noargs": {"stmt": "f()", "results": {}}},
                        "ratios": {v: {"geomean": 1.5, "per_benchmark": {"noargs": ratio}}
                                   for v in ("hpy_cpython", "hpy_universal", "cystck")}}
    figure = charts.micro(results, tmp_path / "micro.png")
    ratio_axes(figure)
    assert quick_warning_shown(figure)
