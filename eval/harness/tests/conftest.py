"""The harness is the package eval.harness, imported from the repository
root (it is not installed); pytest's own entry point does not put the root
on sys.path."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[3])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
