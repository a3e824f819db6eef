"""tp_descr_get (CYSTCK_DEF_SLOT(..., tp_descr_get, f)): f gets the
descriptor, the instance (null through the class) and the owner type (null
when __get__ is called without it), as CPython passes them; its pushed
value is the attribute, -1 raises.  Run in release and debug mode."""
import subprocess
import sys

import pytest

SCRIPT = """
import sys
sys.path.insert(0, {path!r})
import rt_descr
class Owner:
    attr = rt_descr.Desc()
o = Owner()
assert Owner.attr == (None, Owner), Owner.attr
assert o.attr == (o, Owner), o.attr
d = Owner.__dict__["attr"]
assert d.__get__(o) == (o, None)
assert d.__get__(None, Owner) == (None, Owner)
o.fail = True
try:
    o.attr
except ValueError as e:
    assert str(e) == "asked to fail"
else:
    raise AssertionError("no error")
print("ok")
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_descriptor_gets_instance_and_owner(build_rt, debug):
    path = build_rt("rt_descr")
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(path=str(path.parent))],
                         capture_output=True, text=True, env={"CYSTCK_DEBUG": debug, "PATH": ""})
    assert out.stdout.strip() == "ok", out.stderr
