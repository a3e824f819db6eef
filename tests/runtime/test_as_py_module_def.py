"""Cystck_AsPyModuleDef(&def): the PyModuleDef that PyModule_GetDef gives
for the modules made from def (what stock code kept through the escape
hatch compares with), NULL for a definition no module was made from.  Run
in release and debug mode."""
import subprocess
import sys

import pytest

SCRIPT = """
import sys
sys.path.insert(0, {path!r})
import rt_moddef
assert rt_moddef.made_from_here(rt_moddef) is True
assert rt_moddef.made_from_here(sys) is False
assert rt_moddef.made_from_here(42) is False
assert rt_moddef.never_made_is_null() is True
print("ok")
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_module_definition_as_cpython_knows_it(build_rt, debug):
    path = build_rt("rt_moddef")
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(path=str(path.parent))],
                         capture_output=True, text=True, env={"CYSTCK_DEBUG": debug, "PATH": ""})
    assert out.stdout.strip() == "ok", out.stderr
