"""A pytest plugin that records what an extension's own test session did:
the outcome of every test, and whether each compiled module the recipe
names was really imported from the tree under test, as a shared library
(not a pure-Python fallback, not an installed copy elsewhere).

Loaded with ``-p corpus_probe`` (its folder on PYTHONPATH) into the
upstream suite's own session, so the check is about the interpreter that
ran the tests.  Reads CORPUS_PROBE_OUT (where to write the JSON),
CORPUS_COMPILED (comma-separated module names) and CORPUS_TREE (the
folder the modules must come from).  Nothing here changes how the tests
run.
"""

import collections
import importlib.machinery
import json
import os
import sys

_outcomes = collections.Counter()


def pytest_runtest_logreport(report):
    if type(report).__name__ == "SubtestReport":
        # pytest's summary counts subtests apart ("144 subtests passed"):
        # so do we, and a failed one counts as a failure.
        _outcomes[f"subtest_{report.outcome}"] += 1
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.outcome == "skipped" else "xpassed"
        elif report.outcome == "failed" and report.when != "call":
            outcome = "error"
        else:
            outcome = report.outcome
        _outcomes[outcome] += 1
    elif report.when == "teardown" and report.outcome == "failed":
        _outcomes["error"] += 1


def pytest_collectreport(report):
    # A module that skips itself (pytest.skip(allow_module_level=True)) is
    # one skipped test in pytest's summary; one that fails to import, an error.
    if report.failed:
        _outcomes["collection_error"] += 1
    elif report.skipped:
        _outcomes["skipped"] += 1


def module_origin(name, tree):
    """Whether the module `name` was imported from a shared library under
    `tree`: (True, path) or (False, the reason)."""
    module = sys.modules.get(name)
    if module is None:
        return False, "never imported by the test session"
    path = getattr(module, "__file__", None)
    if not path:
        return False, f"imported without a file ({module!r})"
    path = os.path.realpath(path)
    if not path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
        return False, f"imported from {path}, not a shared library"
    if not path.startswith(os.path.join(os.path.realpath(tree), "")):
        return False, f"imported from {path}, outside the tree under test"
    return True, path


def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("CORPUS_PROBE_OUT")
    if not out:
        return
    tree = os.environ.get("CORPUS_TREE", os.getcwd())
    modules = {}
    for name in filter(None, os.environ.get("CORPUS_COMPILED", "").split(",")):
        ok, where = module_origin(name, tree)
        modules[name] = {"compiled": ok, "where" if ok else "reason": where}
    with open(out, "w") as f:
        json.dump({"exitstatus": int(exitstatus), "outcomes": dict(_outcomes),
                   "modules": modules}, f)
