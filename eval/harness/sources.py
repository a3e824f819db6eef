"""Results that other parts of `make eval` write and the report shows:
the micro-benchmarks (eval/results/micro.json, eval/micro/README.md) and
the ports' migration metrics (eval/results/migration.json, written by
eval/harness/coverage.py; PORT_INTERFACE.md) and the porting corpus
(eval/results/corpus.json, written by eval/corpus/run.py).  Each comes back with a status: "ok", "missing" (the
file or entry does not exist) or "failed" (it exists but cannot be read as
documented), and the reason."""

from __future__ import annotations

import json
from pathlib import Path

from .config import REPO_ROOT, RESULTS_DIR

MICRO_FILE = RESULTS_DIR / "micro.json"
MIGRATION_FILE = RESULTS_DIR / "migration.json"
CORPUS_FILE = RESULTS_DIR / "corpus.json"
MICRO_SCHEMA = "cystck-micro/1"
CORPUS_SCHEMA = "cystck-corpus/1"
# What the report reads of an entry written by coverage.py:
# the final port's diff from upstream (the paper's "manual port") and the
# translator's output's diff from upstream (its "automated port").
MIGRATION_FIELDS = {
    "final_port": ("additions", "deletions", "files_modified"),
    "tool": ("additions", "deletions", "files_modified", "transformations"),
}


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def _read_json(path: Path) -> tuple[dict | None, dict | None]:
    """(data, None) or (None, status) when the file is absent or unreadable."""
    if not path.is_file():
        return None, {"status": "missing", "reason": f"{_shown(path)} does not exist"}
    try:
        return json.loads(path.read_text()), None
    except (OSError, ValueError) as error:
        return None, {"status": "failed", "reason": f"{_shown(path)} is not readable JSON: {error}"}


def micro(path: Path = MICRO_FILE) -> dict:
    """The micro-benchmark results the report shows (ns per call and ratios)."""
    data, problem = _read_json(path)
    if problem:
        return {**problem, "file": _shown(path)}
    if data.get("schema") != MICRO_SCHEMA:
        return {"status": "failed", "file": _shown(path),
                "reason": f"schema {data.get('schema')!r}, expected {MICRO_SCHEMA!r}"}
    try:
        return {
            "status": "ok",
            "file": _shown(path),
            "date": data["date"],
            "quick": data["quick"],
            "variants": {v: {"status": s["status"], "reason": s.get("reason")}
                         for v, s in data["variants"].items()},
            "benchmarks": {
                name: {"stmt": bench["stmt"],
                       "results": {v: {"median_ns": r["median_ns"], "ci95_ns": r["ci95_ns"]}
                                   for v, r in bench["results"].items()}}
                for name, bench in data["benchmarks"].items()
            },
            "ratios": {
                v: {"geomean": r["geomean"],
                    "per_benchmark": {b: {"ratio": x["ratio"], "ci95": x["ci95"]}
                                      for b, x in r["per_benchmark"].items()}}
                for v, r in data["ratios"].items()
            },
        }
    except (KeyError, TypeError, AttributeError) as error:
        return {"status": "failed", "file": _shown(path),
                "reason": f"does not follow {MICRO_SCHEMA}: {type(error).__name__} {error}"}


def migration(port_names: list[str], path: Path = MIGRATION_FILE) -> dict[str, dict]:
    """Each port's migration metrics, or why there are none."""
    data, problem = _read_json(path)
    if problem:
        return {name: problem for name in port_names}
    result = {}
    for name in port_names:
        entry = data.get(name)
        if entry is None:
            result[name] = {"status": "missing", "reason": f"no {name!r} entry in {_shown(path)}"}
            continue
        if not isinstance(entry, dict):
            entry = {}
        absent = [f"{side}.{field}" for side, fields in MIGRATION_FIELDS.items()
                  for field in fields
                  if not isinstance(entry.get(side), dict)
                  or not isinstance(entry[side].get(field), int)]
        coverage = entry.get("coverage", "absent")
        # None: no line differs from upstream, so there is no share to give.
        if coverage is not None and (not isinstance(coverage, (int, float))
                                     or not 0 <= coverage <= 1):
            absent.append("coverage (a fraction from 0 to 1, or null)")
        if absent:
            result[name] = {"status": "failed",
                            "reason": f"the {name!r} entry of {_shown(path)} lacks "
                                      + ", ".join(absent) + " (see eval/harness/PORT_INTERFACE.md)"}
            continue
        result[name] = {"status": "ok", "manual": entry["final_port"], "automated": entry["tool"],
                        "coverage": coverage}
    return result


def _passes(tests: dict | None) -> bool:
    """A test session that finished on the compiled module with no failure."""
    return bool(tests and tests.get("finished") and tests.get("compiled_imported")
                and tests.get("failed") == 0)


def corpus(path: Path = CORPUS_FILE) -> dict:
    """The corpus in one line's numbers: of its extensions, how many build
    untouched with Cystck, and how many of those pass their own tests in
    release and debug mode."""
    data, problem = _read_json(path)
    if problem:
        return {**problem, "file": _shown(path)}
    if data.get("schema") != CORPUS_SCHEMA:
        return {"status": "failed", "file": _shown(path),
                "reason": f"schema {data.get('schema')!r}, expected {CORPUS_SCHEMA!r}"}
    try:
        builds = passes = 0
        for entry in data["extensions"].values():
            cystck = entry.get("cystck") or {}
            if (cystck.get("build") or {}).get("ok"):
                builds += 1
                passes += _passes(cystck.get("release")) and _passes(cystck.get("debug"))
        return {"status": "ok", "file": _shown(path), "date": data["date"],
                "quick": data["quick"], "extensions": len(data["extensions"]),
                "build_untouched": builds, "pass": passes}
    except (KeyError, TypeError, AttributeError) as error:
        return {"status": "failed", "file": _shown(path),
                "reason": f"does not follow {CORPUS_SCHEMA}: {type(error).__name__} {error}"}
