"""nb_inplace_remainder, _lshift, _rshift, _and, _or, _xor,
_matrix_multiply and _power as CYSTCK_DEF_SLOTs: Python's augmented
assignments call them with the instance and the operand (and None as
pow's modulo), they update the instance in place, and what they push is
the result, with the same values as Python's int operators.  Run in release
and debug mode."""
import subprocess
import sys

import pytest

SCRIPT = """
import sys
sys.path.insert(0, {path!r})
from rt_inplace_slots import Acc
cases = [("%=", lambda a, b: a % b), ("<<=", lambda a, b: a << b), (">>=", lambda a, b: a >> b),
         ("&=", lambda a, b: a & b), ("|=", lambda a, b: a | b), ("^=", lambda a, b: a ^ b),
         ("@=", lambda a, b: a * b), ("**=", lambda a, b: a ** b)]
for op, expected in cases:
    a = Acc(13)
    before = a
    exec(f"a {{op}} 3")
    assert a is before, op
    assert int(a) == expected(13, 3), (op, int(a))
try:
    a = Acc(1)
    a <<= "x"
except TypeError:
    pass
else:
    raise AssertionError("no error")
print("ok")
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_inplace_number_slots(build_rt, debug):
    path = build_rt("rt_inplace_slots")
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(path=str(path.parent))],
                         capture_output=True, text=True, env={"CYSTCK_DEBUG": debug, "PATH": ""})
    assert out.stdout.strip() == "ok", out.stderr
