"""PicoNumPy tests, run against every built variant.

Variants: by default every variant of the table in piconumpy_variants.py
(plus any other wheel following its naming convention); set
PICONUMPY_VARIANTS=stock,hpy_cpython to choose.  A variant asked for but not
built fails test_variant_is_built instead of disappearing from the run.

All variants are imported as `piconumpy`, so each (variant, case) runs in its
own interpreter that sees only that variant's installed wheel
(build/piconumpy/<variant>/site); a crash there fails one test instead of
the whole session.  The behaviour itself is written in cases.py.
"""

import importlib.util
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from ports import portkit
from ports.piconumpy import piconumpy_variants as pv

TESTS_DIR = Path(__file__).resolve().parent


def _load_cases():
    # Loaded under a private name: other ports' tests may have a `cases`.
    spec = importlib.util.spec_from_file_location("piconumpy_cases", TESTS_DIR / "cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [name for name in vars(module) if name.startswith("case_")]


CASES = _load_cases()
REQUESTED = pv.parse_variant_list(os.environ.get(pv.VARIANTS_ENV))
BUILT, MISSING = pv.select_variants(REQUESTED)

# Run in the variant's interpreter, after piconumpy_variants' bootstrap has
# imported the variant as `piconumpy`: load cases.py and run one case.
_RUN_CASE = """
import importlib.util
spec = importlib.util.spec_from_file_location("piconumpy_cases", sys.argv[1])
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)
getattr(cases, sys.argv[2])(piconumpy)
"""


# What the loaded binary is called tells which ABI a variant really uses.
_BINARY_SUFFIX = {
    "stock": sysconfig.get_config_var("EXT_SUFFIX"),
    "hpy_cpython": sysconfig.get_config_var("EXT_SUFFIX"),
    "hpy_universal": ".hpy0.so",
    "cystck": sysconfig.get_config_var("EXT_SUFFIX"),
}


@pytest.mark.parametrize("variant", BUILT + MISSING)
def test_variant_is_built(variant):
    if variant in MISSING:
        pytest.fail(pv.missing_reason(variant) + "; build it with "
                    "`python ports/piconumpy/recipe.py wheels` (or `make piconumpy-wheels`)")
    result = subprocess.run(pv.variant_command(variant, "print(piconumpy.__file__)"),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, portkit.describe_exit(result)
    if variant in _BINARY_SUFFIX:
        assert result.stdout.strip().endswith(_BINARY_SUFFIX[variant]), result.stdout


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("variant", BUILT)
def test_case(variant, case):
    command = pv.variant_command(variant, _RUN_CASE, str(TESTS_DIR / "cases.py"), case)
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        pytest.fail(f"{case} on {variant} {portkit.describe_exit(result)}", pytrace=False)


# Variants compiled against Cystck: their cases run a second time in the
# runtime's debug mode (docs/debug.md), which turns handle misuse in the
# port (a handle used after Cystck_Drop, a dropped argument, a reference
# never released...) into SystemError or a ResourceWarning at exit.
CYSTCK_BUILT = [v for v in BUILT if v in pv.VARIANTS and pv.VARIANTS[v].cystck]

# Cases that fail in debug mode because of the runtime, not the port, with
# the reason (a docs/gaps.md entry): each is expected to fail, strictly,
# so that once the runtime is fixed the XPASS fails the run until the entry
# goes.  None at the moment (case_large_arrays was one until debug mode
# stopped counting released handles against the handle limit).
DEBUG_MODE_RUNTIME_GAPS: dict[str, str] = {}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("variant", CYSTCK_BUILT)
def test_case_in_cystck_debug_mode(variant, case, request):
    if case in DEBUG_MODE_RUNTIME_GAPS:
        request.applymarker(pytest.mark.xfail(strict=True, reason=DEBUG_MODE_RUNTIME_GAPS[case]))
    command = pv.variant_command(variant, _RUN_CASE, str(TESTS_DIR / "cases.py"), case)
    result = subprocess.run(command, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "CYSTCK_DEBUG": "1"})
    if result.returncode != 0:
        pytest.fail(f"{case} on {variant} with CYSTCK_DEBUG=1 {portkit.describe_exit(result)}",
                    pytrace=False)
    # Leaked references and ignored errors are reported on stderr at exit.
    assert "Cystck" not in result.stderr, result.stderr


_FRESH_VENV_CHECK = """
import importlib.util, os, sys
import piconumpy
assert piconumpy.__file__.startswith(sys.prefix + os.sep), piconumpy.__file__
a = piconumpy.array([1, 2])
assert (a + a * 2 - a / 2).tolist() == [2.5, 5.0]
assert piconumpy.empty(2).tolist() == [0.0, 0.0]
print("hpy" if importlib.util.find_spec("hpy") else "no hpy")
"""


@pytest.mark.parametrize("variant", BUILT)
def test_wheel_installs_in_fresh_venv(variant, tmp_path):
    """The wheel installs on its own, with its declared requirements only.

    pip runs offline: the variant's wheel from dist/<variant>/, its
    requirements from the wheelhouse that recipe.py fills.  The
    venv gets no pip of its own (pip --python drives it from outside),
    which keeps this test to a few seconds per variant.
    """
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install",
         "--quiet", "--disable-pip-version-check", "--no-index",
         "--find-links", str(pv.DIST_ROOT / variant),
         "--find-links", str(pv.BUILD_ROOT / "wheelhouse"),
         f"{pv.dist_name(variant)}=={pv.VERSION}"],
        capture_output=True, text=True, timeout=300,
    )
    if install.returncode != 0:
        pytest.fail(f"pip install {portkit.describe_exit(install)}\n(the requirements come from "
                    "build/piconumpy/wheelhouse, filled by recipe.py)", pytrace=False)
    check = subprocess.run([str(python), "-I", "-c", _FRESH_VENV_CHECK],
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)
    if check.returncode != 0:
        pytest.fail(f"import {portkit.describe_exit(check)}", pytrace=False)
    # The wheel brings exactly the requirements of its table entry: hpy for
    # the universal ABI, nothing for the others.
    if variant in pv.VARIANTS:
        needs_hpy = any(r.startswith("hpy") for r in pv.VARIANTS[variant].install_requires)
        assert check.stdout.strip() == ("hpy" if needs_hpy else "no hpy")
