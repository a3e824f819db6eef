"""kiwisolver's own test suite, run against each built wheel.

The suite is the sdist's ``py/tests``, unedited (checked against the
sdist), run by pytest in a fresh interpreter per variant that imports that
variant's installed wheel (``build/kiwi/<variant>/site``) and nothing else
called kiwisolver.  Nothing may fail, be skipped or be deselected: every
variant (stock, hpy_cpython, hpy_universal, cystck) must pass exactly the
tests the release has.  The Cystck wheel runs the suite a second time in
the runtime's debug mode, the HPy universal wheel in HPy's debug mode
(which also checks that no handle leaks).

Build the wheels first: ``make kiwi-wheels`` (``make test`` does it).
"""

import os
import subprocess
import sys
import tarfile
import venv
import xml.etree.ElementTree as ET

import pytest

from ports import portkit
from ports.kiwi import kiwi_port as kp

# The number of tests in the 1.5.1 release's py/tests (pytest collects 50).
UPSTREAM_TEST_COUNT = 50


def _describe(result):
    return portkit.describe_exit(result, tail=8000)


def _require_built(variant):
    # A variant whose build failed has no wheel; missing_reason says why.
    if kp.wheel_path(variant) is None:
        pytest.fail(kp.missing_reason(variant), pytrace=False)


def test_upstream_tests_are_the_released_ones():
    """py/tests in the unpacked tree is byte for byte the sdist's."""
    tree = kp.ensure_upstream()
    prefix = f"{kp.PROJECT}-{kp.VERSION}/py/tests/"
    with tarfile.open(kp.CACHE_DIR / kp.SDIST) as tar:
        members = {m.name[len(prefix):]: tar.extractfile(m).read()
                   for m in tar.getmembers() if m.isfile() and m.name.startswith(prefix)}
    assert len([n for n in members if n.startswith("test_")]) == 6
    for name, data in members.items():
        assert (tree / "py" / "tests" / name).read_bytes() == data, name
    on_disk = {p.relative_to(tree / "py" / "tests").as_posix()
               for p in (tree / "py" / "tests").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert on_disk == set(members)


# Runs in the variant's interpreter after kiwi_port.variant_command's
# bootstrap: the whole upstream suite, results to a JUnit XML file.
_RUN_SUITE = """
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-o", "addopts=", "-rfEsxX",
                      "--junitxml", sys.argv[2], sys.argv[1]]))
"""


def _run_suite(variant, tmp_path, env=None):
    _require_built(variant)
    tests = kp.ensure_upstream() / "py" / "tests"
    junit = tmp_path / "junit.xml"
    command = kp.variant_command(variant, _RUN_SUITE, str(tests), str(junit))
    command.insert(1, "-B")  # no __pycache__ in the unpacked release
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600,
                            env=env)
    if result.returncode != 0 or not junit.is_file():
        pytest.fail(f"{variant}: upstream suite {_describe(result)}", pytrace=False)
    suite = ET.parse(junit).getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    counts = {k: int(suite.get(k)) for k in ("tests", "failures", "errors", "skipped")}
    assert counts == {"tests": UPSTREAM_TEST_COUNT, "failures": 0, "errors": 0, "skipped": 0}, (
        f"{variant}: {counts}\n{result.stdout[-4000:]}")


@pytest.mark.parametrize("variant", kp.VARIANTS)
def test_upstream_suite(variant, tmp_path):
    _run_suite(variant, tmp_path)


def test_upstream_suite_in_debug_mode(tmp_path):
    """The Cystck wheel again, with the runtime's debug mode on: a handle
    used after its call ended, a wrong push count or a double release would
    raise SystemError inside the suite."""
    _run_suite("cystck", tmp_path, env={**os.environ, "CYSTCK_DEBUG": "1"})


def test_upstream_suite_in_hpy_debug_mode(tmp_path):
    """The HPy universal wheel again, loaded by hpy.universal in HPy's debug
    mode (HPY=debug): a handle used after it was closed, closed twice or
    returned closed would make the suite fail."""
    _run_suite("hpy_universal", tmp_path, env={**os.environ, "HPY": "debug"})


# No handle may leak: the debug context's open handles after a workout of
# every type, method and operator, with everything it made released.
_HPY_LEAK_CHECK = """
import gc
import hpy.universal
from kiwisolver import Constraint, Expression, Solver, Term, Variable, strength
debug = hpy.universal._debug
generation = debug.new_generation()
x, y = Variable("x"), Variable("y", context=object())
s = Solver()
s.addConstraint((x + 2 * y <= 10) | "strong")
s.addConstraint(x - y / 2 == 3)
s.addEditVariable(y, strength.weak)
s.suggestValue(y, 1.5)
s.updateVariables()
e = (x + y + 3) / 2 - Term(x, 2) + Expression([Term(y)], 1)
c = Constraint(-e, ">=", strength.create(1, 2, 3))
texts = [repr(c), repr(e), repr(-x * 3), x.name(), y.context(), e.value(), e.terms(),
         s.hasConstraint(c), s.dumps(), strength.medium]
for bad in (lambda: x < y, lambda: s.addConstraint(x), lambda: x / 0):
    try:
        bad()
    except (TypeError, ZeroDivisionError):
        pass
del x, y, s, e, c, texts, bad
gc.collect()
leaked = debug.get_open_handles(generation)
assert not leaked, leaked
"""


def test_no_handle_leaks_in_hpy_debug_mode(tmp_path):
    _require_built("hpy_universal")
    command = kp.variant_command("hpy_universal", _HPY_LEAK_CHECK)
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120,
                            env={**os.environ, "HPY": "debug"})
    if result.returncode != 0:
        pytest.fail(f"hpy_universal: leak check {_describe(result)}", pytrace=False)


_FRESH_VENV_CHECK = """
import importlib.util, os, sys
import kiwisolver
from kiwisolver import Solver, Variable
assert kiwisolver.__file__.startswith(sys.prefix + os.sep), kiwisolver.__file__
x, y = Variable("x"), Variable("y")
s = Solver()
s.addConstraint(x + y == 10)
s.addConstraint((x - y == 4) | "strong")
s.updateVariables()
assert (x.value(), y.value()) == (7.0, 3.0), (x.value(), y.value())
# Nothing from this repository came along.
assert importlib.util.find_spec("cystck") is None
print(kiwisolver.__version__, "hpy" if importlib.util.find_spec("hpy") else "no hpy")
"""


@pytest.mark.parametrize("variant", kp.VARIANTS)
def test_wheel_installs_in_fresh_venv(variant, tmp_path):
    """The wheel installs offline into an empty venv, with nothing but the
    run-time requirements it declares (hpy for the universal ABI, from the
    wheelhouse the build fills), and works."""
    _require_built(variant)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    requires = list(kp.RUNTIME_REQUIRES.get(variant, ()))
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--disable-pip-version-check", "--no-index",
         "--find-links", str(kp.WHEELHOUSE), str(kp.wheel_path(variant))],
        capture_output=True, text=True, timeout=300)
    if install.returncode != 0:
        pytest.fail(f"pip install {_describe(install)}", pytrace=False)
    check = subprocess.run([str(python), "-I", "-c", _FRESH_VENV_CHECK],
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)
    if check.returncode != 0:
        pytest.fail(f"import {_describe(check)}", pytrace=False)
    assert check.stdout.strip() == f"{kp.VERSION} {'hpy' if requires else 'no hpy'}"


def test_bench_summary_is_derived_from_the_results_alone():
    """bench.py's summary_of() rebuilds the committed eval/results/kiwi.json
    summary (eval/results/schema.py) from that file's own data."""
    import importlib.util
    import json

    # By path, under a name of its own: every port has a bench.py, and the
    # ports' tests share one interpreter (`import bench` is UltraJSON's).
    spec = importlib.util.spec_from_file_location("kiwi_bench", kp.PORT_DIR / "bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    committed = json.loads((kp.REPO_ROOT / "eval" / "results" / "kiwi.json").read_text())
    assert bench.summary_of(committed) == committed["summary"]
