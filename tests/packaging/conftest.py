"""Fixtures of the packaging tests: a local wheelhouse of build tools, and
the cystck sdist and wheel built from a copy of this checkout (once per
session)."""
import os
import sys

import pytest

from packaging_harness import BUILD_TOOLS, TOOLS_WHEELHOUSE, copy_checkout, pip_env, run
from ports import portkit  # fills the wheelhouses, the ports' and ours


@pytest.fixture(scope="session")
def tools_wheelhouse():
    """A folder of wheels of BUILD_TOOLS: offline if it has them already,
    else downloaded from PyPI once."""
    portkit.fill_wheelhouse(BUILD_TOOLS, TOOLS_WHEELHOUSE, deps=False,
                            env=dict(os.environ, PIP_CONFIG_FILE=os.devnull))
    return TOOLS_WHEELHOUSE


@pytest.fixture(scope="session")
def cystck_dist(tmp_path_factory, tools_wheelhouse):
    """`python -m build` (sdist, then the wheel from the sdist, each in an
    isolated environment from the tools wheelhouse) run in a copy of this
    checkout: (the copy, the output folder, the build's output)."""
    root = tmp_path_factory.mktemp("cystck-dist")
    source = copy_checkout(root / "source")
    out = root / "out"
    result = run([sys.executable, "-m", "build", "--outdir", out, source],
                 env=pip_env(tools_wheelhouse), cwd=root, timeout=600)
    return source, out, result.stdout + result.stderr
