"""Migration metrics of the UltraJSON port -> eval/results/migration.json.

    python ports/ultrajson/metrics.py [--output FILE]

Compares the three versions of the migrated files that recipe.py leaves in
build/ultrajson/cystck/ (run `recipe.py prepare --variants cystck` or `make
ultrajson-wheels` first): input/ (the upstream files, laid out as in the
sdist), translated/ (cystck-migrate's output) and port/ (the output with
manual.patch applied), with the metrics shared by every port
(eval/harness/coverage.py: coverage = (changed lines upstream->final -
changed lines translated->final) / changed lines upstream->final), and
writes them under "ultrajson" in eval/results/migration.json, keeping the
other ports' entries.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from eval.harness import coverage
from ports.ultrajson import ujson_port as port

WORK = port.BUILD_ROOT / "cystck"
UPSTREAM_FILES = WORK / "input"
TOOL_REPORT = WORK / "migrate-report.json"


def compute() -> dict:
    for d in (UPSTREAM_FILES, port.TRANSLATED_DIR, port.PORT_SRC_DIR):
        if not d.is_dir():
            raise SystemExit(f"{d} is missing: run `python ports/ultrajson/recipe.py prepare "
                             "--variants cystck` first")
    entry = coverage.metrics(UPSTREAM_FILES, port.TRANSLATED_DIR, port.PORT_SRC_DIR,
                             TOOL_REPORT if TOOL_REPORT.is_file() else None)
    entry["upstream"] = f"ujson {port.VERSION} (PyPI sdist, sha256 {port.SDIST_SHA256})"
    entry["migrated_files"] = list(port.MIGRATED_FILES)
    entry["residual_patch"]["file"] = "ports/ultrajson/manual.patch"
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=port.RESULTS_DIR / "migration.json")
    args = parser.parse_args()
    entry = compute()
    coverage.update_results(args.output, "ultrajson", entry)
    p = entry["residual_patch"]
    print(f"ultrajson: coverage {entry['coverage']:.1%}; residual patch +{p['additions']} "
          f"-{p['deletions']} ({p['changed_lines']} changed lines); wrote {args.output}")


if __name__ == "__main__":
    main()
