"""Running one measured program in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess

# Variables that could put other code on the measured interpreter's path or
# change how it runs.
_SCRUBBED = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONMALLOC",
             "LD_PRELOAD")


class RunError(RuntimeError):
    """A measured program failed; the message says how, for the report."""


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def tail(text: str, lines: int = 8) -> str:
    kept = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def run(command: list[str], timeout: float) -> None:
    """Run `command`; RunError with the end of its output if it fails."""
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                   env=clean_env(), check=False)
    except subprocess.TimeoutExpired:
        raise RunError(f"timed out after {timeout:.0f} s") from None
    if completed.returncode != 0:
        status = (f"killed by signal {-completed.returncode}" if completed.returncode < 0
                  else f"exit status {completed.returncode}")
        output = tail(completed.stderr) or tail(completed.stdout) or "(no output)"
        raise RunError(f"{status}: {output}")
