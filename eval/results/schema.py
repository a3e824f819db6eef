"""The schema every port's benchmark results share (eval/results/<port>.json).

Each port's benchmark measures in its own way and keeps its own sections,
but also writes a ``summary`` that is the same for all of them: per
workload and variant the samples, their median with its distribution-free
95% interval (eval/harness/stats.py), the ratio of that median to the
reference's (stock) median measured in the same run, and the instructions
the port counted for the workload (callgrind), or null when not counted.

    "summary": {
      "schema": "cystck-port-results/1",
      "unit": "<of the samples>", "instructions_unit": "<of the counts>",
      "reference": "stock",
      "workloads": {"<workload>": {"<variant>": {
          "samples": [...], "median": m, "ci95": [low, high], "ci_coverage": c,
          "ratio": m / m_stock, "instructions": n or null}}}}

port_summary() builds it (the ports' benchmarks call it), validate()
checks a results file against it (eval/harness/tests/test_results_schema.py
checks every committed one).  Standard library only.
"""

from __future__ import annotations

import math

from eval.harness.stats import median, median_ci

SCHEMA = "cystck-port-results/1"
ENTRY_KEYS = ("samples", "median", "ci95", "ci_coverage", "ratio", "instructions")

#: eval/results files with a schema of their own, written by other tools.
OTHER_SCHEMAS = {
    "micro.json": "cystck-micro/1, eval/micro/run.py (per benchmark, not per workload)",
    "corpus.json": "cystck-corpus/1, eval/corpus/run.py (translation coverage, no timings)",
    "migration.json": "the ports' metrics.py (lines changed by the migration, no timings)",
    "micro_callgrind.json": "eval/micro/callgrind.py --out (instructions per call), with the "
                            "same measurement before the last change as 'baseline'",
}


def port_summary(unit: str, reference: str, samples: dict, instructions: dict | None = None,
                 instructions_unit: str | None = None) -> dict:
    """The summary of `samples` ({workload: {variant: [value, ...]}}) and
    `instructions` ({workload: {variant: count}}, or None if not counted).
    A workload without the reference variant has no ratios (null)."""
    workloads = {}
    for workload, by_variant in samples.items():
        counts = (instructions or {}).get(workload) or {}
        reference_median = median(by_variant[reference]) if reference in by_variant else None
        entries = {}
        for variant, values in by_variant.items():
            (low, high), coverage = median_ci(values)
            middle = median(values)
            entries[variant] = {
                "samples": list(values), "median": middle, "ci95": [low, high],
                "ci_coverage": round(coverage, 4),
                "ratio": None if reference_median is None else middle / reference_median,
                "instructions": counts.get(variant),
            }
        workloads[workload] = entries
    return {"schema": SCHEMA, "unit": unit, "instructions_unit": instructions_unit,
            "reference": reference, "workloads": workloads}


def _close(a, b) -> bool:
    return isinstance(a, (int, float)) and math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0)


def _entry_errors(where: str, entry, reference_median) -> list[str]:
    if not isinstance(entry, dict) or set(entry) != set(ENTRY_KEYS):
        return [f"{where}: keys must be {', '.join(ENTRY_KEYS)}"]
    samples = entry["samples"]
    if (not isinstance(samples, list) or not samples
            or not all(isinstance(x, (int, float)) for x in samples)):
        return [f"{where}: samples must be a non-empty list of numbers"]
    errors = []
    (low, high), coverage = median_ci(samples)
    if not _close(entry["median"], median(samples)):
        errors.append(f"{where}: median {entry['median']!r} is not the median of the samples")
    if (not isinstance(entry["ci95"], list) or len(entry["ci95"]) != 2
            or not (_close(entry["ci95"][0], low) and _close(entry["ci95"][1], high))):
        errors.append(f"{where}: ci95 {entry['ci95']!r} is not median_ci of the samples")
    if not _close(entry["ci_coverage"], round(coverage, 4)):
        errors.append(f"{where}: ci_coverage {entry['ci_coverage']!r} is not {round(coverage, 4)}")
    if reference_median is None:
        if entry["ratio"] is not None:
            errors.append(f"{where}: a ratio without the reference variant")
    elif not _close(entry["ratio"], median(samples) / reference_median):
        errors.append(f"{where}: ratio {entry['ratio']!r} is not median / reference median")
    count = entry["instructions"]
    if count is not None and not (isinstance(count, (int, float)) and count > 0):
        errors.append(f"{where}: instructions must be a positive number or null")
    return errors


def validate(data) -> list[str]:
    """What is wrong with the port results `data` (empty when nothing)."""
    summary = data.get("summary") if isinstance(data, dict) else None
    if not isinstance(summary, dict):
        return ["no summary"]
    errors = []
    if summary.get("schema") != SCHEMA:
        errors.append(f"summary.schema is {summary.get('schema')!r}, not {SCHEMA!r}")
    for key in ("unit", "reference"):
        if not isinstance(summary.get(key), str):
            errors.append(f"summary.{key} must be a string")
    counted = any(isinstance(e, dict) and e.get("instructions") is not None
                  for entries in (summary.get("workloads") or {}).values()
                  if isinstance(entries, dict) for e in entries.values())
    if counted and not isinstance(summary.get("instructions_unit"), str):
        errors.append("summary.instructions_unit must say what the counts count")
    workloads = summary.get("workloads")
    if not isinstance(workloads, dict) or not workloads:
        return errors + ["summary.workloads must be a non-empty object"]
    reference = summary.get("reference")
    for workload, entries in workloads.items():
        if not isinstance(entries, dict) or not entries:
            errors.append(f"{workload}: no variants")
            continue
        reference_entry = entries.get(reference)
        reference_median = None
        if isinstance(reference_entry, dict) and reference_entry.get("samples"):
            reference_median = median(reference_entry["samples"])
        for variant, entry in entries.items():
            errors += _entry_errors(f"{workload}.{variant}", entry, reference_median)
    return errors
