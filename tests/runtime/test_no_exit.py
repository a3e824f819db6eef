"""Issue #2: nothing in the runtime calls exit or abort; errors become
Python exceptions.  A source check, since such a call sits on an error path
that tests rarely reach."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNTIME = sorted((ROOT / "cystck" / "src").glob("*.[ch]")) + sorted((ROOT / "include").rglob("*.h"))
FORBIDDEN = re.compile(r"\b(abort|exit|_exit|_Exit|quick_exit|Py_FatalError|Py_Exit|assert)\s*\(")
COMMENT_OR_STRING = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"', re.S)


def calls_that_end_the_process(text):
    code = COMMENT_OR_STRING.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    return [(code.count("\n", 0, m.start()) + 1, m.group(1)) for m in FORBIDDEN.finditer(code)]


def test_the_check_finds_a_call():
    assert calls_that_end_the_process('/* abort() */ x = "exit(1)"; if (bad) abort();') == [(1, "abort")]


def test_the_runtime_never_exits_or_aborts():
    assert len(RUNTIME) > 10
    found = [f"{p.relative_to(ROOT)}:{line}: {name}()"
             for p in RUNTIME for line, name in calls_that_end_the_process(p.read_text())]
    assert not found, "\n".join(found)
