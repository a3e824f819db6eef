"""The report matches a unit's lines once for its diffstat and its diff
(issue #19: the translator's time per file), and counts what it counted
when each matched them on its own."""
from cystck.migrate import engine, project as proj, report

BEFORE = "int a;\nint b;\nint c;\nint d;\n"
AFTER = "int a;\nint B;\nint c;\nint d;\nint e;\n"


def _unit(before, after):
    unit = engine.Unit("m.c", before, proj.build({"m.c": before}))
    unit.text = after
    return unit


def _build(units):
    return report.build({u.path: u for u in units}, [], input_path="in", output_path="out",
                        elapsed=0.0, cppcheck_status="skipped")


def test_diffstat_and_diff_share_one_match(monkeypatch):
    matches = []
    real = report._AnchoredMatcher._match

    def counted(self, alo, ahi, blo, bhi, out):
        if (alo, blo) == (0, 0) and (ahi, bhi) == (len(self.a), len(self.b)):
            matches.append(ahi)         # a whole match, not a stretch of one
        return real(self, alo, ahi, blo, bhi, out)
    monkeypatch.setattr(report._AnchoredMatcher, "_match", counted)
    rep = _build([_unit(BEFORE, AFTER)])       # texts no other test reports on
    assert (rep["summary"]["additions"], rep["summary"]["deletions"]) == (2, 1)
    assert "-int b;\n+int B;\n" in rep["diff"]
    assert matches == [4]


def test_lines_ended_otherwise_are_counted_without_their_ends():
    # no final newline, CRLF: "int d;" and "int d;\n" are the same line for
    # the diffstat (as line_changes counts), not for the diff
    for before, after in ((BEFORE, AFTER.rstrip("\n")), (BEFORE.replace("\n", "\r\n"), AFTER + "int f;\n")):
        rep = _build([_unit(before, after)])
        expected = report.line_changes(before.splitlines(), after.splitlines())
        assert (rep["summary"]["additions"], rep["summary"]["deletions"]) == expected
