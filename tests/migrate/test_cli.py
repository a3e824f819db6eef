"""The command: options, reports, and bad input (one line, status 2,
nothing written)."""
import json

import pytest

from cystck.migrate import cli

STOCK = '#include <Python.h>\nstatic PyObject *f(PyObject *self, PyObject *o)\n{\n    Py_INCREF(o);\n    return o;\n}\n'


def test_default_output_beside_input_and_input_untouched(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.c").write_text(STOCK)
    (src / "plain.c").write_text("int add(int a, int b) { return a + b; }\n")
    (src / "notes.txt").write_text("hello")
    assert cli.main([str(src), "--no-cppcheck", "--report", str(tmp_path / "r.json")]) == 0
    out = tmp_path / "src-cystck"
    assert (src / "m.c").read_text() == STOCK
    assert '#include "Cystck.h"' in (out / "m.c").read_text()
    assert (out / "plain.c").read_text() == "int add(int a, int b) { return a + b; }\n"
    assert (out / "notes.txt").read_text() == "hello"
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["files_modified"] == 1
    assert report["rules"]["include-header"] == 1
    assert {"additions", "deletions", "files_modified", "transformations"} <= set(report["summary"])
    assert "Number of transformations" in capsys.readouterr().out


def test_in_place_keeps_backups(tmp_path):
    f = tmp_path / "m.c"
    f.write_text(STOCK)
    assert cli.main([str(f), "--in-place", "-q", "--no-cppcheck"]) == 0
    assert (tmp_path / "m.c.orig").read_text() == STOCK
    assert "Cystck_Object" in f.read_text()


def test_rule_selection_and_diff(tmp_path, capsys):
    f = tmp_path / "m.c"
    f.write_text(STOCK)
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--rules", "include-header", "--diff", "-q",
                     "--no-cppcheck"]) == 0
    diff = capsys.readouterr().out
    assert '+#include "Cystck.h"' in diff and "Cystck_Object" not in diff
    assert "PyObject *f" in (tmp_path / "o" / "m.c").read_text()
    assert cli.main([str(f), "-o", str(tmp_path / "p"), "--exclude", "refcount", "-q", "--no-cppcheck"]) == 0
    assert "Py_INCREF" in (tmp_path / "p" / "m.c").read_text()


def test_check_mode_fails_on_code_that_does_not_compile(tmp_path):
    f = tmp_path / "m.c"
    f.write_text(STOCK.replace("return o;", "return PySequence_Fast_ITEMS(o)[0];"))
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "-q", "--no-cppcheck", "--check"]) == 1


@pytest.mark.parametrize("content,message", [
    (b"\xff\xfe#include <Python.h>\n", "not UTF-8"),
    (b"#include <Python.h>\nint f(void) { PyObject *x; \n", "unclosed '{'"),
    (b"#include <Python.h>\nint f(void) } \n", "unbalanced '}'"),
])
def test_bad_input(tmp_path, capsys, content, message):
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.c").write_bytes(content)
    assert cli.main([str(src), "--no-cppcheck"]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "src-cystck").exists()


def test_missing_path_and_output_inside_input(tmp_path, capsys):
    assert cli.main([str(tmp_path / "nope"), "--no-cppcheck"]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "m.c").write_text(STOCK)
    assert cli.main([str(tmp_path), "-o", str(tmp_path / "out"), "--no-cppcheck"]) == 2
    assert "inside the input" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_unreadable_file(tmp_path, capsys):
    import os
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    f = tmp_path / "m.c"
    f.write_text(STOCK)
    f.chmod(0)
    assert cli.main([str(f), "--no-cppcheck"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_cppcheck_findings_join_the_report(tmp_path):
    f = tmp_path / "m.c"
    f.write_text(STOCK.replace("return o;", "int a[2]; a[3] = 1; return o;"))
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "-q", "--report", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    if report["cppcheck"] != "ran":
        pytest.skip(report["cppcheck"])
    assert any(w["kind"] == "cppcheck" and "arrayIndexOutOfBounds" in w["message"] for w in report["warnings"])
