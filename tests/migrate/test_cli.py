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
    # a write through an item array: no counterpart, kept through the escape hatch
    f.write_text(STOCK.replace("return o;", "PySequence_Fast_ITEMS(o)[0] = o; return o;"))
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


# ---- no input file is ever written but with --in-place ----

def _one_line_error(capsys, *words):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert all(w in err for w in words), err
    return err


def test_output_that_would_overwrite_the_input_is_refused(tmp_path, capsys, monkeypatch):
    f = tmp_path / "geom.c"
    f.write_text(STOCK)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["geom.c", "-o", ".", "--force", "--no-cppcheck"]) == 2
    _one_line_error(capsys, "geom.c", "input")
    assert f.read_text() == STOCK and sorted(p.name for p in tmp_path.iterdir()) == ["geom.c"]
    # through another spelling of the same directory
    assert cli.main([str(f), "-o", str(tmp_path / "." / ""), "--force", "--no-cppcheck"]) == 2
    assert f.read_text() == STOCK


def test_report_that_would_overwrite_the_input_is_refused(tmp_path, capsys):
    f = tmp_path / "geom.c"
    f.write_text(STOCK)
    for extra in (["-o", str(tmp_path / "out")], ["--in-place"]):
        assert cli.main([str(f), *extra, "--report", str(f), "--no-cppcheck", "-q"]) == 2
        _one_line_error(capsys, "input")
        assert f.read_text() == STOCK and not (tmp_path / "out").exists()
    # --in-place keeps backups: one that is the file itself is refused too
    assert cli.main([str(f), "--in-place", "--backup-suffix", "", "--no-cppcheck", "-q"]) == 2
    _one_line_error(capsys, "input")
    assert f.read_text() == STOCK
    assert cli.main([str(f), "--report", str(tmp_path / "no" / "r.json"), "--no-cppcheck", "-q"]) == 2
    _one_line_error(capsys, "no such directory")
    # negative: a backup left by an earlier run is no source, and is replaced
    (tmp_path / "geom.c.orig").write_text("old")
    assert cli.main([str(tmp_path), "--in-place", "--no-cppcheck", "-q"]) == 0
    assert (tmp_path / "geom.c.orig").read_text() == STOCK


def test_output_that_is_a_file_is_refused(tmp_path, capsys):
    f = tmp_path / "geom.c"
    f.write_text(STOCK)
    other = tmp_path / "other.txt"
    other.write_text("keep")
    for force in ([], ["--force"]):
        assert cli.main([str(f), "-o", str(other), *force, "--no-cppcheck"]) == 2
        _one_line_error(capsys, "other.txt", "not a directory")
        assert other.read_text() == "keep"
    assert cli.main([str(f), "-o", str(other / "sub"), "--no-cppcheck"]) == 2
    _one_line_error(capsys, "not a directory")


# ---- no sources ----

@pytest.mark.parametrize("files", [{}, {"setup.py": "print(1)\n", "README": "x"}])
def test_directory_without_sources(tmp_path, capsys, files):
    src = tmp_path / "src"
    src.mkdir()
    for name, text in files.items():
        (src / name).write_text(text)
    assert cli.main([str(src), "--no-cppcheck"]) == 2
    _one_line_error(capsys, "no C or C++ sources under", str(src))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


# ---- what the scanner cannot read: file:line, nothing written ----

HEAD = "#include <Python.h>\nstatic PyObject *f(PyObject *self, PyObject *o)\n{\n"


@pytest.mark.parametrize("body,line,message", [
    ("    /* never closed\n    return o;\n}\n", 4, "unterminated comment"),
    ('    const char *s = "open;\n    return o;\n}\n', 4, 'missing terminating " character'),
    ("    char c = 'x;\n    return o;\n}\n", 4, "missing terminating ' character"),
    ("    return g(o;\n}\n", 5, "unbalanced '}': the '(' of line 4 is not closed"),
    ("    return a[0)];\n}\n", 4, "unbalanced ')': the '[' of line 4 is not closed"),
    ("    return o;\n", 3, "unclosed '{'"),
    ("#ifdef X\n    return o;\n}\n", 4, "unterminated #if"),
    ("    return o;\n}\n#endif\n", 6, "#endif without #if"),
    ("    return o;\n}\n#else\n", 6, "#else without #if"),
])
def test_unscannable_input_names_file_and_line(tmp_path, capsys, body, line, message):
    f = tmp_path / "m.c"
    f.write_text(HEAD + body)
    assert cli.main([str(f), "--no-cppcheck"]) == 2
    _one_line_error(capsys, f"m.c:{line}: {message}")
    assert not (tmp_path / "m-cystck").exists()


def test_stray_quotes_that_compilers_accept_are_not_errors(tmp_path):
    """Negative: an apostrophe in an #error line or an #if 0 group, and
    quotes inside comments and other literals."""
    f = tmp_path / "m.c"
    f.write_text("#ifndef Py_PYTHON_H\n#error Python.h isn't included\n#endif\n#if 0\nit's off\n#endif\n"
                 + HEAD + "    /* it's \" fine */\n    const char *s = \"'\";\n    char q = '\"';\n    return o;\n}\n")
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--no-cppcheck", "-q"]) == 0



def test_comment_inside_a_multiline_macro_keeps_it_one_directive(tmp_path):
    """A block comment spanning lines of a #define (each ending in a
    backslash) does not end the directive: the braces of the macro body
    after it stay part of the macro, not unbalanced code."""
    f = tmp_path / "m.c"
    f.write_text("#define PICK(x, y)                  \\\n    do {                                \\\n"
                 "        /* a comment over           \\\n           two lines */             \\\n"
                 "        if (x) { y = 1; }           \\\n    } while (0)\n\n" + HEAD + "    return o;\n}\n")
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--no-cppcheck", "-q"]) == 0


# ---- output a human reads ----

def test_list_rules_one_plain_entry_per_rule(capsys):
    from cystck.migrate import engine
    assert cli.main(["--list-rules"]) == 0
    out = capsys.readouterr().out
    assert "``" not in out
    entries = [ln for ln in out.splitlines() if not ln.startswith(" " * 8)]
    assert [e.split()[1] for e in entries] == [r.name for r in engine.all_rules()]
    assert all(len(ln) <= 100 for ln in out.splitlines())
    assert not any("  " in ln.strip() for ln in out.splitlines() if ln.startswith(" " * 8))
    incref = out[out.index("incref [refcount]"):out.index("decref [refcount]")].rsplit("\n", 1)[0]
    assert incref.endswith("take their own reference.")     # the first sentence only


def test_check_prints_every_compile_error_and_the_count(tmp_path, capsys):
    f = tmp_path / "m.c"
    f.write_text(STOCK.replace("return o;", "undeclared_one = 1;\n    undeclared_two = 2;\n    return o;"))
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--no-cppcheck", "--check",
                     "--report", str(tmp_path / "r.json")]) == 1
    out = capsys.readouterr().out
    assert "undeclared_one" in out and "undeclared_two" in out
    assert "0 of 1 translated files compile against Cystck.h; 2 errors" in out
    failure, = json.loads((tmp_path / "r.json").read_text())["check"]["failures"]
    assert len(failure["errors"]) == 2


def test_warning_count_is_the_same_in_terminal_and_json(tmp_path, capsys):
    import pathlib
    shapes = pathlib.Path(__file__).parent / "corpus" / "shapes" / "shapes.c"
    for verbose in ([], ["-v"]):
        assert cli.main([str(shapes), "-o", str(tmp_path / "o"), "--force", "--no-cppcheck",
                         "--report", str(tmp_path / "r.json"), *verbose]) == 0
        out = capsys.readouterr().out
        report = json.loads((tmp_path / "r.json").read_text())
        count = report["summary"]["warnings"]
        assert count == len(report["warnings"])
        assert (f"Warnings ({count}):" in out) if count else ("Warnings" not in out)
        assert sum(1 for ln in out.splitlines() if ln.startswith("  shapes.c:") and "] " in ln) == count
        assert ("Inferred" in out) == bool(verbose) and report["inferred"]


def test_diff_is_an_ordinary_patch(tmp_path, capsys):
    """3 lines of context around each change, unchanged lines never shown
    as changed (difflib's autojunk would, in files over 200 lines, where
    blank lines and braces are 'popular'), and a last line without a
    newline marked so that patch(1) applies the diff."""
    import shutil
    import subprocess
    filler = "".join(f"static int plain{i}(int a)\n{{\n\n    return a + {i};\n}}\n\n" for i in range(40))
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.c").write_text(STOCK + filler + STOCK.replace("f(", "g(").rstrip("\n"))
    assert cli.main([str(src), "-o", str(tmp_path / "o"), "--no-cppcheck", "-q", "--diff"]) == 0
    diff = capsys.readouterr().out
    body = [ln for ln in diff.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    assert not any("plain" in ln or "return a +" in ln or ln[1:] in ("{", "}") for ln in body)
    assert diff.count("\n@@ ") + diff.startswith("@@") == 2
    assert "\\ No newline at end of file" in diff
    if shutil.which("patch"):
        copy = tmp_path / "copy"
        shutil.copytree(src, copy)
        subprocess.run(["patch", "-p1", "--batch", "-s", "-d", str(copy)], input=diff, text=True, check=True)
        assert (copy / "m.c").read_text() == (tmp_path / "o" / "m.c").read_text()


def test_warning_excerpts_end_at_a_word_boundary(tmp_path):
    f = tmp_path / "m.c"
    f.write_text(HEAD + '    PyErr_SetString(PyExc_ValueError, "bad");\n'
                 "    counter_of_things = compute_the_following_value(o, 12345678);\n    return o;\n}\n")
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--no-cppcheck", "-q",
                     "--report", str(tmp_path / "r.json")]) == 0
    warning, = [w for w in json.loads((tmp_path / "r.json").read_text())["warnings"] if w["kind"] == "exception"]
    shown = warning["message"].rsplit("(", 1)[1]
    assert shown.startswith("counter_of_things =") and shown.endswith("...)")
    last_word = shown[:-len("...)")].split()[-1]
    assert last_word in "counter_of_things = compute_the_following_value(o, 12345678);".replace("(", " ").split()


def test_check_fails_on_what_current_compilers_reject(tmp_path, capsys):
    """A pointer of the wrong kind only warns in GCC 12 but builds code that
    misbehaves; --check counts it as an error, as GCC 14 does."""
    f = tmp_path / "m.c"
    f.write_text(STOCK.replace("return o;", "int *wrong = (double *)0;\n    (void)wrong;\n    return o;"))
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--no-cppcheck", "--check"]) == 1
    assert "incompatible-pointer-types" in capsys.readouterr().out


def test_check_compiles_in_the_dialect_of_the_build(tmp_path, capsys):
    """A system header included before Python.h fixes the feature macros
    before pyconfig.h can: under strict ISO C (-std=c11) <limits.h> then
    has no SSIZE_MAX, which PY_SSIZE_T_MAX names.  setuptools passes no
    -std (the compiler's GNU dialect), so the stock and the translated
    builds compile; --check compiles as they do."""
    f = tmp_path / "m.c"
    f.write_text("#include <stdio.h>\n" + STOCK.replace("return o;", "(void)(Py_ssize_t)PY_SSIZE_T_MAX;\n    return o;"))
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--no-cppcheck", "--check"]) == 0, capsys.readouterr().out


def test_check_passes_code_with_other_warnings(tmp_path):
    f = tmp_path / "m.c"
    f.write_text(STOCK.replace("return o;", "int unused_but_fine;\n    return o;"))
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "-q", "--no-cppcheck", "--check"]) == 0


def test_report_diff_is_a_valid_edit_script_on_any_input():
    """The anchored matcher behind the +/- counts and --diff: its opcodes
    turn the original into the translation, whatever the lines."""
    from hypothesis import given, settings, strategies as st
    from cystck.migrate import report

    lines = st.lists(st.sampled_from(["{", "}", "", "a;", "b;", "c;", "return x;", "int f(void)"]), max_size=40)

    @settings(max_examples=300, deadline=None)
    @given(lines, lines)
    def check(a, b):
        matcher = report._matcher(a, b)
        rebuilt = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                assert a[i1:i2] == b[j1:j2]
                rebuilt += a[i1:i2]
            else:
                rebuilt += b[j1:j2]
        assert rebuilt == b
        adds, dels = report.line_changes(a, b)
        assert adds - dels == len(b) - len(a)

    check()


def test_report_counts_a_one_line_change_in_a_long_file_as_one_line():
    from cystck.migrate import report
    a = [f"line {i};" if i % 3 else "}" for i in range(3000)]
    b = list(a)
    b[1500] = "changed;"
    assert report.line_changes(a, b) == (1, 1)


def test_backslashes_in_a_comment_outside_a_directive_are_text(tmp_path):
    """A doc comment quoting a multi-line #define (its lines ending in a
    backslash) is not a directive: the function after it keeps its own
    start, and its return type is rewritten, not the comment."""
    f = tmp_path / "m.c"
    comment = "/* Example:\n *   #define INIT(p) \\\n *       int k = 0; \\\n *       int n = 1\n */\n"
    f.write_text("#include <Python.h>\n" + comment
                 + "\nstatic PyObject *\nhelper(PyObject *o)\n{\n    return PyLong_FromLong(1);\n}\n")
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--no-cppcheck", "-q"]) == 0
    out = (tmp_path / "o" / "m.c").read_text()
    assert comment in out
    assert "static Cystck_Object\nhelper(Cystck_State *S, Cystck_Object o)\n" in out


SPLIT_ELSE = ("static PyObject *\ncheck(PyObject *o)\n{\n    if (PyLong_Check(o)) {\n        return o;\n    }\n"
              "#if PY_MAJOR_VERSION < 3\n    else if (!PyInt_Check(o)) {\n#else\n    else {\n#endif\n"
              "        return NULL;\n    }\n    return o;\n}\n")


def test_functions_defined_once_per_branch_are_all_translated(tmp_path):
    """A conditional whose branches each balance keeps them all in the
    structure, even when another conditional's branches do not (an
    ``else if`` opened differently per branch): both versions of a
    function defined for old and new Pythons are translated."""
    f = tmp_path / "m.c"
    f.write_text("#include <Python.h>\n" + SPLIT_ELSE
                 + "#if PY_VERSION_HEX >= 0x030E0000\nstatic PyObject *\nnew_list(PyObject *o)\n{\n"
                 "    return PyList_New(0);\n}\n#else\nstatic PyObject *\nnew_list(PyObject *o)\n{\n"
                 "    return PyList_New(1);\n}\n#endif\n")
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--no-cppcheck", "-q"]) == 0
    out = (tmp_path / "o" / "m.c").read_text()
    assert out.count("static Cystck_Object\nnew_list(Cystck_State *S, Cystck_Object o)\n") == 2
    assert "CystckList_New(S, 0)" in out and "CystckList_New(S, 1)" in out


def test_a_conditional_that_splits_a_block_keeps_its_first_branch_only(tmp_path):
    """The branches of a conditional that opens a block differently in
    each (``else if (...) {`` / ``else {``) cannot all be scanned: the
    function is read through the first branch, and the #else branch is
    left as it is."""
    f = tmp_path / "m.c"
    f.write_text("#include <Python.h>\n" + SPLIT_ELSE)
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--no-cppcheck", "-q"]) == 0
    out = (tmp_path / "o" / "m.c").read_text()
    assert "static Cystck_Object\ncheck(Cystck_State *S, Cystck_Object o)\n" in out
    assert "#else\n    else {\n#endif\n" in out


def test_rules_bring_what_they_need_and_say_so(tmp_path, capsys):
    """--rules handle-conditions also runs api-calls, whose Cystck calls it
    tests (without, it would find nothing); --exclude api-calls also
    leaves out handle-conditions; --list-rules names what a rule needs."""
    f = tmp_path / "m.c"
    f.write_text("#include <Python.h>\nstatic int f(PyObject *d)\n{\n    if (PyDict_GetItemString(d, \"k\"))\n"
                 "        return 1;\n    return 0;\n}\n")
    assert cli.main([str(f), "-o", str(tmp_path / "o"), "--rules", "handle-conditions", "--no-cppcheck"]) == 0
    assert "also running api-calls" in capsys.readouterr().err
    assert "!Cystck_IsNull(CystckDict_GetItemString(S, d, \"k\"))" in (tmp_path / "o" / "m.c").read_text()
    assert cli.main([str(f), "-o", str(tmp_path / "p"), "--exclude", "api-calls", "--no-cppcheck"]) == 0
    assert "also leaving out handle-conditions" in capsys.readouterr().err
    assert cli.main(["--list-rules"]) == 0
    out = capsys.readouterr().out
    assert "Needs: api-calls." in " ".join(out[out.index("handle-conditions ["):].split()[:60])


def test_check_compiles_a_file_included_by_another_as_part_of_it(tmp_path, capsys):
    """A unity build: part.c is compiled only through main.c, which
    includes it after what it uses; alone it does not compile (not in stock
    either), so --check compiles main.c for both."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.c").write_text(STOCK + '#include "part.c"\n')
    (src / "part.c").write_text("static PyObject *g(PyObject *self, PyObject *o)\n{\n    return f(self, o);\n}\n")
    assert cli.main([str(src), "-o", str(tmp_path / "o"), "--no-cppcheck", "--check",
                     "--report", str(tmp_path / "r.json")]) == 0
    check = json.loads((tmp_path / "r.json").read_text())["check"]
    assert check["total"] == 1 and not check["failures"]
    # an error in the included file is found through its includer
    (src / "part.c").write_text("static PyObject *g(PyObject *self, PyObject *o)\n{\n"
                                "    undeclared_one = 1;\n    return f(self, o);\n}\n")
    assert cli.main([str(src), "-o", str(tmp_path / "o"), "--force", "--no-cppcheck", "--check",
                     "--report", str(tmp_path / "r.json")]) == 1
    failure, = json.loads((tmp_path / "r.json").read_text())["check"]["failures"]
    assert failure["file"] == "main.c" and "part.c" in failure["errors"][0]
    assert "undeclared_one" in capsys.readouterr().out
