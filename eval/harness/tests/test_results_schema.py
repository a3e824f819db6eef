"""Every committed eval/results/*.json follows its schema: the ports' files
the shared one of eval/results/schema.py, the others their own (listed in
schema.OTHER_SCHEMAS, so that a new file cannot slip past unchecked)."""

import json

import pytest

from eval.harness.config import RESULTS_DIR
from eval.harness.ports import PORTS
from eval.results import schema

PORT_FILES = [f"{port.name}.json" for port in PORTS]


def test_every_results_file_has_a_known_schema():
    committed = sorted(p.name for p in RESULTS_DIR.glob("*.json"))
    assert committed == sorted(PORT_FILES + list(schema.OTHER_SCHEMAS))


@pytest.mark.parametrize("name", PORT_FILES)
def test_port_results_follow_the_schema(name):
    data = json.loads((RESULTS_DIR / name).read_text())
    assert schema.validate(data) == []
    assert data["summary"]["reference"] == data["reference"]


def sample_summary():
    return schema.port_summary(
        "seconds", "stock",
        {"w": {"stock": [2.0, 2.2, 1.8], "cystck": [3.0, 3.3, 2.7]}},
        {"w": {"stock": 100.0, "cystck": 150.0}}, "instructions per call")


def test_port_summary_has_medians_intervals_ratios_and_counts():
    summary = sample_summary()
    assert schema.validate({"summary": summary}) == []
    cystck = summary["workloads"]["w"]["cystck"]
    assert cystck["median"] == 3.0 and cystck["ci95"] == [2.7, 3.3]
    assert cystck["ci_coverage"] == 0.75
    assert cystck["ratio"] == pytest.approx(1.5) and cystck["instructions"] == 150.0
    assert summary["workloads"]["w"]["stock"]["ratio"] == 1.0


@pytest.mark.parametrize("spoil, message", [
    (lambda s: s["workloads"]["w"]["cystck"].update(ratio=1.4), "w.cystck: ratio 1.4"),
    (lambda s: s["workloads"]["w"]["cystck"].update(median=3.1), "w.cystck: median 3.1"),
    (lambda s: s["workloads"]["w"]["cystck"].update(ci95=[2.0, 4.0]), "w.cystck: ci95"),
    (lambda s: s["workloads"]["w"]["stock"].pop("instructions"), "w.stock: keys must be"),
    (lambda s: s["workloads"]["w"]["cystck"].update(instructions=0), "w.cystck: instructions"),
    (lambda s: s["workloads"]["w"].pop("stock"), "w.cystck: a ratio without the reference"),
    (lambda s: s.update(instructions_unit=None), "summary.instructions_unit"),
    (lambda s: s.update(schema="other/1"), "summary.schema"),
])
def test_validate_names_what_is_wrong(spoil, message):
    summary = sample_summary()
    spoil(summary)
    errors = schema.validate({"summary": summary})
    assert any(e.startswith(message) for e in errors), errors


def test_a_results_file_without_summary_is_rejected():
    assert schema.validate({"reference": "stock", "ratios": {}}) == ["no summary"]
