"""The migration report: per-rule counts, per-file transformations, the
paper's Tables 4-8 columns (additions, deletions, files modified, number of
transformations), warnings and left-overs with file:line, the unified diff.
As a dict (written as JSON with --report) and as text for the terminal."""
import difflib
from collections import Counter


KIND_ORDER = ["leftover", "exception", "unchecked", "loop-overflow", "integer", "custom-type",
              "cost", "removed", "cppcheck"]
WARNING_KINDS = {"exception", "unchecked", "loop-overflow", "integer", "custom-type", "cost", "removed", "cppcheck"}


def unified_diff(unit):
    return "".join(difflib.unified_diff(
        unit.original.splitlines(keepends=True), unit.text.splitlines(keepends=True),
        fromfile=f"a/{unit.path}", tofile=f"b/{unit.path}"))


def diffstat(unit):
    adds = dels = 0
    if unit.text == unit.original:
        return 0, 0
    for line in difflib.unified_diff(unit.original.splitlines(), unit.text.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            adds += 1
        elif line.startswith("-") and not line.startswith("---"):
            dels += 1
    return adds, dels


def build(units, notes, *, input_path, output_path, elapsed, cppcheck_status, check=None):
    """The report as a JSON-ready dict."""
    rules = Counter()
    files = []
    total_add = total_del = modified = 0
    for unit in units.values():
        rules.update(unit.counts)
        adds, dels = diffstat(unit)
        changed = unit.text != unit.original
        modified += changed
        total_add += adds
        total_del += dels
        files.append({"path": unit.path, "modified": changed, "additions": adds, "deletions": dels,
                      "transformations": sum(unit.counts.values()), "rules": dict(sorted(unit.counts.items()))})
    ordered = sorted(notes, key=lambda n: (n.path, n.line, n.kind))
    return {
        "tool": "cystck-migrate",
        "input": str(input_path),
        "output": str(output_path),
        "seconds": round(elapsed, 3),
        "summary": {
            "files_scanned": len(units),
            "files_modified": modified,
            "additions": total_add,
            "deletions": total_del,
            "transformations": sum(rules.values()),
            "warnings": sum(1 for n in notes if n.kind in WARNING_KINDS),
            "leftovers": sum(1 for n in notes if n.kind == "leftover"),
        },
        "rules": dict(sorted(rules.items(), key=lambda kv: (-kv[1], kv[0]))),
        "files": files,
        "warnings": [n.to_dict() for n in ordered if n.kind in WARNING_KINDS],
        "leftovers": [n.to_dict() for n in ordered if n.kind == "leftover"],
        "cppcheck": cppcheck_status,
        "check": check,
        "diff": "".join(unified_diff(u) for u in units.values() if u.text != u.original),
    }


def render(report, *, show_diff=False, verbose=False):
    """The report as text for a terminal."""
    s = report["summary"]
    out = [f"cystck-migrate: {report['input']} -> {report['output']} ({report['seconds']:.2f} s)", ""]
    out.append("  Metric (paper Tables 4-8)     Value")
    out.append(f"  Additions (+)                 {s['additions']}")
    out.append(f"  Deletions (-)                 {s['deletions']}")
    out.append(f"  Files modified (#)            {s['files_modified']} of {s['files_scanned']}")
    out.append(f"  Number of transformations     {s['transformations']}")
    out.append("")
    if report["rules"]:
        out.append("Rules fired:")
        width = max(len(k) for k in report["rules"])
        out += [f"  {k.ljust(width)}  {v}" for k, v in report["rules"].items()]
        out.append("")
    changed = [f for f in report["files"] if f["modified"]]
    if changed:
        out.append("Files:")
        for f in changed:
            out.append(f"  {f['path']}: {f['transformations']} transformations, +{f['additions']} -{f['deletions']}")
        out.append("")
    shown = report["warnings"] if verbose else [w for w in report["warnings"] if w["kind"] != "custom-type"]
    if shown:
        out.append(f"Warnings ({len(shown)}):")
        out += [f"  {w['file']}:{w['line']}: [{w['kind']}] {w['message']}" for w in shown]
        out.append("")
    if report["leftovers"]:
        out.append(f"Left for a human ({len(report['leftovers'])}):")
        out += [f"  {w['file']}:{w['line']}: {w['message']}" for w in report["leftovers"]]
        out.append("")
    out.append(f"cppcheck: {report['cppcheck']}")
    if report.get("check") is not None:
        c = report["check"]
        out.append(f"check: {c['passed']} of {c['total']} translated files compile against Cystck.h")
        for f in c["failures"]:
            out.append(f"  FAILED {f['file']}: {f['first_error']}")
    if show_diff and report["diff"]:
        out += ["", report["diff"].rstrip("\n")]
    return "\n".join(out) + "\n"
