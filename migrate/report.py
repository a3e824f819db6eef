"""The migration report: per-rule counts, per-file transformations, the
paper's Tables 4-8 columns (additions, deletions, files modified, number of
transformations), warnings and left-overs with file:line, the unified diff.
As a dict (written as JSON with --report) and as text for the terminal."""
import bisect
import difflib
import re
from collections import Counter
from functools import lru_cache


WARNING_KINDS = {"exception", "unchecked", "loop-overflow", "integer", "custom-type", "cost", "removed", "cppcheck"}
# What the analysis inferred (the custom types): information, shown with -v.
INFO_KINDS = {"inferred-type"}


class _AnchoredMatcher(difflib.SequenceMatcher):
    """difflib's matcher made fast on long files (patience diff): lines that
    occur once in each side and in the same order anchor the match, and
    difflib matches only the stretches between anchors.  Autojunk stays
    off: its popular-line heuristic misaligns long files (blank lines and
    braces stop anchoring the match), which shows unchanged lines as
    deleted and added again and inflates the counts."""

    def __init__(self, a, b):
        super().__init__(None, a, b, autojunk=False)

    def get_matching_blocks(self):
        if self.matching_blocks is None:
            blocks = []
            self._match(0, len(self.a), 0, len(self.b), blocks)
            merged = []
            for i, j, n in blocks:
                if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
                    merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + n)
                else:
                    merged.append((i, j, n))
            merged.append((len(self.a), len(self.b), 0))
            self.matching_blocks = [difflib.Match(*m) for m in merged]
        return self.matching_blocks

    def _match(self, alo, ahi, blo, bhi, out):
        a, b = self.a, self.b
        while alo < ahi and blo < bhi and a[alo] == b[blo]:        # common head
            out.append((alo, blo, 1))
            alo, blo = alo + 1, blo + 1
        tail = []
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:   # common tail
            ahi, bhi = ahi - 1, bhi - 1
            tail.append((ahi, bhi, 1))
        anchors = _unique_common(a, alo, ahi, b, blo, bhi)
        if anchors:
            i0, j0 = alo, blo
            for i, j in anchors:
                self._match(i0, i, j0, j, out)
                out.append((i, j, 1))
                i0, j0 = i + 1, j + 1
            self._match(i0, ahi, j0, bhi, out)
        elif alo < ahi and blo < bhi:
            inner = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            out += [(alo + i, blo + j, n) for i, j, n in inner.get_matching_blocks() if n]
        out += reversed(tail)


def _unique_common(a, alo, ahi, b, blo, bhi):
    """Pairs (i, j), a[i] == b[j], of lines occurring once in a[alo:ahi] and
    once in b[blo:bhi], the longest run of them in the same order in both."""
    def once(seq, lo, hi):
        seen = {}
        for k in range(lo, hi):
            seen[seq[k]] = -1 if seq[k] in seen else k
        return seen
    in_a, in_b = once(a, alo, ahi), once(b, blo, bhi)
    pairs = [(i, in_b[line]) for line, i in in_a.items()
             if i >= 0 and in_b.get(line, -1) >= 0]
    pairs.sort()
    # longest increasing run of j (patience sorting)
    tops, top_js, back = [], [], {}
    for i, j in pairs:
        k = bisect.bisect_left(top_js, j)
        back[(i, j)] = tops[k - 1] if k else None
        if k == len(tops):
            tops.append((i, j))
            top_js.append(j)
        else:
            tops[k], top_js[k] = (i, j), j
    run, node = [], tops[-1] if tops else None
    while node is not None:
        run.append(node)
        node = back[node]
    return run[::-1]


def _matcher(a, b):
    return _AnchoredMatcher(a, b)


@lru_cache(maxsize=8)
def _line_blocks(before, after):
    """The matching blocks of the lines (with their ends) of two texts:
    the diffstat and the diff of a unit share them."""
    return tuple(_matcher(before.splitlines(keepends=True), after.splitlines(keepends=True)).get_matching_blocks())


def _line_matcher(before, after):
    """A matcher of the lines (with their ends) of two texts, matched once."""
    m = _matcher(before.splitlines(keepends=True), after.splitlines(keepends=True))
    m.matching_blocks = list(_line_blocks(before, after))
    return m


# The line breaks of str.splitlines other than "\n".
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def _newline_ended(text):
    """Does every line of ``text`` end in "\n" alone?  Then its lines
    compare alike with and without their ends."""
    return text.endswith("\n") and not _OTHER_BREAKS.search(text)


def line_changes(a, b):
    """(additions, deletions) between two lists of lines."""
    return _counted_changes(_matcher(a, b))


def _counted_changes(matcher):
    adds = dels = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            dels += i2 - i1
            adds += j2 - j1
    return adds, dels


def _hunk_range(start, stop):
    """``start,length`` of a hunk header (one-based; an empty range names
    the line before it)."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"


def _diff_line(mark, line):
    if line.endswith("\n"):
        return mark + line
    return mark + line + "\n\\ No newline at end of file\n"


def unified_diff(unit, context=3):
    """The unit's change as a unified diff with ``context`` lines around
    each change, as ``diff -u`` and ``patch`` know it."""
    matcher = _line_matcher(unit.original, unit.text)
    a, b = matcher.a, matcher.b
    out = []
    for group in matcher.get_grouped_opcodes(context):
        if not out:
            out += [f"--- a/{unit.path}\n", f"+++ b/{unit.path}\n"]
        first, last = group[0], group[-1]
        out.append(f"@@ -{_hunk_range(first[1], last[2])} +{_hunk_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [_diff_line(" ", line) for line in a[i1:i2]]
                continue
            out += [_diff_line("-", line) for line in a[i1:i2]]
            out += [_diff_line("+", line) for line in b[j1:j2]]
    return "".join(out)


def diffstat(unit):
    if unit.text == unit.original:
        return 0, 0
    if _newline_ended(unit.original) and _newline_ended(unit.text):
        return _counted_changes(_line_matcher(unit.original, unit.text))
    return line_changes(unit.original.splitlines(), unit.text.splitlines())


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
        "inferred": [n.to_dict() for n in ordered if n.kind in INFO_KINDS],
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
    if verbose and report["inferred"]:
        out.append(f"Inferred custom types ({len(report['inferred'])}):")
        out += [f"  {w['file']}:{w['line']}: {w['message']}" for w in report["inferred"]]
        out.append("")
    if report["warnings"]:
        out.append(f"Warnings ({s['warnings']}):")
        out += [f"  {w['file']}:{w['line']}: [{w['kind']}] {w['message']}" for w in report["warnings"]]
        out.append("")
    if report["leftovers"]:
        out.append(f"Left for a human ({len(report['leftovers'])}):")
        out += [f"  {w['file']}:{w['line']}: {w['message']}" for w in report["leftovers"]]
        out.append("")
    out.append(f"cppcheck: {report['cppcheck']}")
    if report.get("check") is not None:
        c = report["check"]
        errors = sum(len(f["errors"]) for f in c["failures"])
        out.append(f"check: {c['passed']} of {c['total']} translated files compile against Cystck.h"
                   + (f"; {errors} error{'s' * (errors != 1)}:" if c["failures"] else ""))
        for f in c["failures"]:
            out += [f"  {line}" for line in f["errors"]]
    if show_diff and report["diff"]:
        out += ["", report["diff"].rstrip("\n")]
    return "\n".join(out) + "\n"
