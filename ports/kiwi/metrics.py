"""Migration metrics of the kiwisolver port, into eval/results/migration.json ("kiwi").

    python ports/kiwi/metrics.py [--output FILE]

Three trees of the translated folder ``py/src``: the release (upstream,
``build/kiwi/upstream``), the translator's output (``build/kiwi/cystck/
translated``) and the final, working port (``build/kiwi/cystck/src``: the
output with ``manual.patch`` applied).  Build the cystck wheel first
(``make kiwi-wheels``), which leaves all three.

Coverage is the project's shared definition (``eval/harness/coverage.py``,
DESIGN.md "Ports"): of the lines that differ between the release and the
final port, the share the translator produced by itself, counted as
(changed lines release -> final - changed lines output -> final) / changed
lines release -> final.  Its figures cover the C++ sources; the residual
patch's size is counted on ``manual.patch`` itself, so it includes the
one-word ``setup.py`` change.  The translator's own report (rules fired,
constructs left for a human, warnings) is summarised alongside.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
import tempfile
from pathlib import Path

from ports.kiwi import kiwi_port as kp


def patch_size(text: str) -> dict:
    added = removed = hunks = 0
    files = set()
    for line in text.splitlines():
        if line.startswith("+++ "):
            files.add(line[4:].split("\t")[0])
        elif line.startswith("--- "):
            continue
        elif line.startswith("@@"):
            hunks += 1
        elif line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return {"changed_lines": added + removed, "added": added, "removed": removed,
            "hunks": hunks, "files": len(files)}


def translator_summary(report_path: Path) -> dict:
    report = json.loads(report_path.read_text())
    leftovers = {}
    for item in report.get("leftovers", []):
        leftovers[item["message"]] = leftovers.get(item["message"], 0) + 1
    return {
        "summary": report.get("summary"),
        "rules": report.get("rules"),
        "leftovers": len(report.get("leftovers", [])),
        "leftovers_by_message": dict(sorted(leftovers.items(), key=lambda kv: -kv[1])),
        "warnings": len(report.get("warnings", [])),
        "cppcheck": report.get("cppcheck"),
        # Not the translator's run time: it varies from run to run, and this
        # record is committed (`make test` rewrites it).
    }


def update_json(path: Path, key: str, value: dict) -> None:
    """Replace ``key`` in the JSON object at ``path``, keeping the other
    ports' keys; atomic (and locked against our own concurrent runs), since
    other ports write there too."""
    path.parent.mkdir(parents=True, exist_ok=True)
    kp.BUILD_ROOT.mkdir(parents=True, exist_ok=True)
    with open(kp.BUILD_ROOT / "results.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = json.loads(path.read_text()) if path.is_file() and path.read_text().strip() else {}
        data[key] = value
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w") as out:
            out.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path,
                        default=kp.REPO_ROOT / "eval" / "results" / "migration.json")
    args = parser.parse_args(argv)

    vdir = kp.variant_dir("cystck")
    upstream, translated, final = kp.ensure_upstream(), vdir / "translated", vdir / "src"
    report = vdir / "migrate-report.json"
    if not (translated.is_dir() and final.is_dir() and report.is_file()):
        raise SystemExit("no translated/final trees in build/kiwi/cystck: run `make kiwi-wheels` first")
    # A finished build: the final tree is exactly the output + manual.patch.
    if not (vdir / "build.signature").is_file():
        raise SystemExit("build/kiwi/cystck has no finished build: run `make kiwi-wheels` first")

    from eval.harness import coverage

    rel = kp.TRANSLATED_DIR
    shared = coverage.metrics(upstream / rel, translated / rel, final / rel, report)
    result = {
        "upstream": f"{kp.PROJECT} {kp.VERSION} (PyPI sdist, sha256 {kp.SDIST_SHA256})",
        "translated": rel,
        **shared,
        "manual_patch": patch_size(kp.MANUAL_PATCH.read_text()),
        "translator": translator_summary(report),
        "targets": {"coverage": ">= 0.95", "manual_patch_changed_lines": "<= 80"},
    }
    update_json(args.output, "kiwi", result)
    port = result["final_port"]
    print(f"kiwi: {port['additions'] + port['deletions']} lines differ from the release in "
          f"{rel}; coverage {100 * result['coverage']:.1f}%; manual.patch "
          f"{result['manual_patch']['changed_lines']} changed lines "
          f"(+{result['manual_patch']['added']} -{result['manual_patch']['removed']}); "
          f"the translator left {result['translator']['leftovers']} constructs for a human")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
