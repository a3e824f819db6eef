"""docs/tutorial.md cannot go stale: its C blocks, end to end, are built
with its own setup.py and command, its Python sessions are run as doctests
against the result, and its debug-mode session is replayed."""
import doctest
import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

TUTORIAL = pathlib.Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"


def blocks(language):
    """The fenced blocks of the tutorial in `language`, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", TUTORIAL.read_text(), re.M | re.S)


def console_commands():
    """(command, expected output) of each console block."""
    out = []
    for block in blocks("console"):
        lines = block.splitlines()
        assert lines[0].startswith("$ ")
        out.append((lines[0][2:], lines[1:]))
    return out


def run_command(command, cwd):
    """Run a console line of the tutorial: `[VAR=value ...] python args`."""
    words = shlex.split(command)
    env = dict(os.environ)
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    assert words[0] == "python"
    env["PYTHONPATH"] = str(cwd)
    return subprocess.run([sys.executable] + words[1:], cwd=cwd, env=env,
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The tutorial's module, built the tutorial's way: the directory."""
    where = tmp_path_factory.mktemp("tutorial")
    (where / "vectors.c").write_text("".join(blocks("c")))
    setup = [b for b in blocks("python") if "setup(" in b]
    assert len(setup) == 1
    (where / "setup.py").write_text(setup[0])
    command, _ = console_commands()[0]
    out = run_command(command, where)
    assert out.returncode == 0, out.stdout + out.stderr
    assert list(where.glob("vectors*.so")) or list(where.glob("vectors*.pyd"))
    return where


def test_the_python_sessions_run_as_shown(built):
    parser = doctest.DocTestParser()
    test = parser.get_doctest("".join(blocks("pycon")), {}, "tutorial", str(TUTORIAL), 0)
    assert len(test.examples) > 15
    sys.path.insert(0, str(built))
    try:
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
    finally:
        sys.path.remove(str(built))
        sys.modules.pop("vectors", None)
    assert runner.failures == 0, "a session of docs/tutorial.md does not run as shown (see above)"


def test_debug_mode_reports_the_planted_bug_as_shown(built):
    (command, expected), = [c for c in console_commands() if "CYSTCK_DEBUG=1" in c[0]]
    out = run_command(command, built)
    assert out.returncode != 0
    shown = expected[-1]
    pattern = ".*".join(re.escape(part) for part in shown.split("..."))
    assert re.fullmatch(pattern, out.stderr.strip().splitlines()[-1]), out.stderr
