"""Run the sdist's own test suite (tests/test_ujson.py) against one variant.

    python ports/ultrajson/upstream_tests.py [--variants stock,cystck] [-- PYTEST ARGS]

The suite runs unchanged, from the unpacked sdist, with the sdist's own
conftest.py and pytest configuration, in an interpreter that sees only the
variant's installed wheel (ujson_port.variant_command).  The outcome of every
test is collected by a small plugin and returned as {nodeid: outcome} with
outcome one of passed, failed, skipped, xfailed, xpassed, error.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ports.ultrajson import ujson_port as port

# Runs in the variant's interpreter after the bootstrap has imported ujson.
_RUNNER = r"""
import json, pytest
out_path, rootdir, *extra = sys.argv[1:]

class Outcomes:
    def __init__(self):
        self.outcomes = {}

    def pytest_runtest_logreport(self, report):
        nodeid = report.nodeid
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            if hasattr(report, "wasxfail"):
                outcome = "xfailed" if report.outcome == "skipped" else "xpassed"
            elif report.outcome == "failed" and report.when != "call":
                outcome = "error"
            else:
                outcome = report.outcome
            self.outcomes[nodeid] = outcome
        elif report.when == "teardown" and report.outcome == "failed":
            self.outcomes[nodeid] = "error"

plugin = Outcomes()
os.chdir(rootdir)
status = pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", rootdir,
                      "tests/test_ujson.py", *extra], plugins=[plugin])
with open(out_path, "w") as f:
    json.dump({"status": int(status), "ujson": ujson.__file__, "outcomes": plugin.outcomes}, f)
"""


def run(variant: str, extra_args=(), timeout: float = 900, env=None) -> dict:
    """Run the suite against ``variant``: {"status", "outcomes", "output"}.
    ``env``: extra environment variables (e.g. CYSTCK_DEBUG=1)."""
    with tempfile.TemporaryDirectory() as tmp:
        out_path = Path(tmp) / "outcomes.json"
        command = port.variant_command(variant, _RUNNER, str(out_path),
                                       str(port.UPSTREAM_DIR), *extra_args)
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                env={**os.environ, **(env or {})})
        if not out_path.is_file():
            raise RuntimeError(
                f"the upstream suite did not finish on {variant} (exit status "
                f"{result.returncode})\n--- stdout ---\n{result.stdout[-10000:]}\n"
                f"--- stderr ---\n{result.stderr[-10000:]}")
        data = json.loads(out_path.read_text())
    data["output"] = result.stdout + result.stderr
    return data


def summary(outcomes: dict) -> str:
    counts = collections.Counter(outcomes.values())
    order = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
    return ", ".join(f"{counts[k]} {k}" for k in order if counts[k])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default=",".join(port.VARIANTS))
    parser.add_argument("--debug", action="store_true", help="run with CYSTCK_DEBUG=1")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args()
    failed = False
    for variant in [v for v in args.variants.split(",") if v]:
        data = run(variant, args.pytest_args, env={"CYSTCK_DEBUG": "1"} if args.debug else None)
        print(f"{variant}: {summary(data['outcomes'])}")
        bad = sorted(k for k, v in data["outcomes"].items() if v in ("failed", "error"))
        for nodeid in bad:
            print(f"  {data['outcomes'][nodeid]}: {nodeid}")
        failed |= bool(bad) or data["status"] != 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
