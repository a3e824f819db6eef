"""Cystck_Mark / Cystck_ReleaseSince (tests/runtime/ext/rt_loop_mark.c), in
release and debug mode: a loop of more iterations than the handle limit
stays flat; and a mark whose chunk a Cystck_Drop of older handles emptied
releases none of the handles made before it, also when the next chunk
is other memory.  Cystck_ReleaseSinceKeep carries an accumulator from one
iteration to the next (and a null handle stays null)."""
import subprocess
import sys

import pytest

SCRIPT = """
import sys
sys.path.insert(0, {path!r})
import rt_loop_mark as m
print(m.per_iteration(5000), m.after_drops(lambda: m.fill(400)), m.after_drops(lambda: None), m.carried(5000))
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_mark_releases_only_what_came_after_it(build_rt, debug):
    path = build_rt("rt_loop_mark")
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(path=str(path.parent))], capture_output=True,
                         text=True, env={"CYSTCK_DEBUG": debug, "CYSTCK_HANDLE_LIMIT": "4096", "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["10000", str(sum(range(80))), str(sum(range(80))), str(sum(range(5000)))]
