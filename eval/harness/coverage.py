"""Migration metrics of a port: how much of it the translator did.

DESIGN.md ("Ports") defines coverage as: of the lines that differ between
the upstream source and the final working port, the share the translator
produced by itself.  With three trees (upstream, the translator's output,
the final port = output + residual patch):

    total   = changed lines (additions + deletions) from upstream to final
    manual  = changed lines from the translator's output to final
    coverage = (total - manual) / total

A residual-patch line counts as manual even when it merely adjusts a line
the tool wrote, so the figure never flatters the tool.

    python eval/harness/coverage.py NAME UPSTREAM TRANSLATED FINAL \\
        [--tool-report report.json] [--out eval/results/migration.json]

(a script, not ``-m``: from the repository root ``-m`` would put the source
tree's cystck/ ahead of the installed package, which alone holds
cystck.migrate) writes (or updates)
NAME's entry in the JSON file: the paper's Tables 4-8 columns for the tool
and for the final port, the residual patch's size and the coverage.
"""
import argparse
import json
import pathlib
import sys

from cystck.migrate.report import line_changes
from cystck.migrate.translate import SOURCE_SUFFIXES


def _sources(root):
    root = pathlib.Path(root)
    if root.is_file():
        return {root.name: root}
    return {str(p.relative_to(root)): p for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix in SOURCE_SUFFIXES}


def _lines(path):
    return path.read_text(encoding="utf-8", errors="surrogateescape").splitlines() if path else []


def diff_stats(old_root, new_root):
    """Additions, deletions and files modified between two trees of sources."""
    old, new = _sources(old_root), _sources(new_root)
    added = deleted = files = 0
    for name in sorted(set(old) | set(new)):
        a, b = _lines(old.get(name)), _lines(new.get(name))
        if a == b:
            continue
        files += 1
        adds, dels = line_changes(a, b)
        added += adds
        deleted += dels
    return {"additions": added, "deletions": deleted, "files_modified": files}


def metrics(upstream, translated, final, tool_report=None):
    """The migration metrics of one port (a dict, ready for JSON)."""
    tool = diff_stats(upstream, translated)
    port = diff_stats(upstream, final)
    residual = diff_stats(translated, final)
    total = port["additions"] + port["deletions"]
    manual = residual["additions"] + residual["deletions"]
    if tool_report is not None:
        report = json.loads(pathlib.Path(tool_report).read_text())
        tool["transformations"] = report["summary"]["transformations"]
    return {
        "tool": tool,
        "final_port": port,
        "residual_patch": {**residual, "changed_lines": manual},
        "coverage": round((total - manual) / total, 4) if total else None,
        "definition": "coverage = (changed lines upstream->final - changed lines "
                      "translated->final) / changed lines upstream->final",
    }


def update_results(path, name, entry):
    """Write `entry` under `name` in the JSON file at `path`, keeping the rest."""
    path = pathlib.Path(path)
    data = json.loads(path.read_text()) if path.exists() else {}
    data[name] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", help="the port's key in the results file")
    ap.add_argument("upstream", help="upstream sources (file or directory)")
    ap.add_argument("translated", help="cystck-migrate's output")
    ap.add_argument("final", help="the final port (output + residual patch)")
    ap.add_argument("--tool-report", help="cystck-migrate --report JSON (for the transformation count)")
    ap.add_argument("--out", help="results JSON to update (default: print)")
    args = ap.parse_args(argv)
    for p in (args.upstream, args.translated, args.final):
        if not pathlib.Path(p).exists():
            print(f"eval.harness.coverage: {p}: no such file or directory", file=sys.stderr)
            return 2
    entry = metrics(args.upstream, args.translated, args.final, args.tool_report)
    if args.out:
        update_results(args.out, args.name, entry)
    print(json.dumps({args.name: entry}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
