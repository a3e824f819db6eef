"""Every wheel in dist/ (every variant of every port; `make test` builds them
first) imports in a fresh venv holding nothing but the wheel and what it
declares it needs: pip resolves the wheel's own requirements, offline, from
the ports' wheelhouses (build/<port>/wheelhouse, which their builds fill).
One venv per wheel, since two wheels of a variant in one venv could lend
each other a requirement."""
import zipfile

import pytest

from packaging_harness import REPO, fresh_venv, pip_install, run

WHEELS = sorted(REPO.glob("dist/*/*.whl"))
WHEELHOUSES = sorted(REPO.glob("build/*/wheelhouse"))


def top_level_modules(wheel):
    """The names a wheel makes importable: its top-level packages and
    modules (`ujson.cpython-311-x86_64-linux-gnu.so`, `ujson.py`,
    `kiwisolver/__init__.py`), not its metadata or type stubs."""
    names = set()
    for entry in zipfile.ZipFile(wheel).namelist():
        first, _, rest = entry.partition("/")
        if rest == "__init__.py":
            names.add(first)
        elif not rest and first.endswith((".py", ".so")):
            names.add(first.split(".")[0])
    return sorted(n for n in names if n.isidentifier())


@pytest.mark.skipif(not WHEELS, reason="no wheels in dist/ (make wheels builds them)")
@pytest.mark.parametrize("wheel", WHEELS, ids=[str(w.relative_to(REPO / "dist")) for w in WHEELS])
def test_wheel_imports_with_only_its_declared_requirements(wheel, tmp_path):
    modules = top_level_modules(wheel)
    assert modules, f"{wheel.name}: nothing importable"
    python = fresh_venv(tmp_path / "venv")
    pip_install(python, wheel, find_links=WHEELHOUSES)
    code = "".join(f"import {m}\n" for m in modules)
    run([python, "-I", "-c", code], cwd=tmp_path, timeout=120)
