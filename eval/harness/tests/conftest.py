"""The harness is the package eval.harness, imported from the repository
root (it is not installed); pytest's own entry point does not put the root
on sys.path.  Appended, so that the installed cystck comes first and not the
source tree's cystck/ folder."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[3])
if ROOT not in sys.path:
    sys.path.append(ROOT)
