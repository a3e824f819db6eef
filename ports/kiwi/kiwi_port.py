"""Where the kiwisolver port gets its source and puts what it builds.

Everything that builds, tests, benchmarks or measures the port reads this
module, so the paths and the pinned release live in one place.

* The upstream release is the PyPI sdist ``kiwisolver==1.5.1``, checked
  against ``SDIST_SHA256``; it is cached in ``.cache/kiwi/`` and unpacked
  (read-only use) into ``build/kiwi/upstream/``.
* Variants: ``stock`` (the sdist as released), ``hpy_cpython`` and
  ``hpy_universal`` (the sdist with ``hpy.patch``, a hand port of
  ``py/src`` to HPy, built by hpy's setuptools integration for the HPy
  CPython ABI and the HPy universal ABI) and ``cystck`` (the sdist's
  ``py/src`` translated by cystck-migrate, then ``manual.patch``).  All
  import as ``kiwisolver``; the wheel of variant ``v`` is
  ``dist/<v>/kiwisolver-1.5.1-*.whl``, installed for tests and benchmarks
  into ``build/kiwi/<v>/site`` (``pip install --target``), which a
  subprocess puts first on ``sys.path``: one variant per interpreter.
* The universal wheel's ``kiwisolver._cext`` is loaded by ``hpy.universal``:
  the interpreter that imports it needs ``hpy`` (``RUNTIME_REQUIRES``, which
  the wheel declares), which ``ensure_site`` checks; the fresh-venv test
  installs it from ``build/kiwi/wheelhouse``, which the build fills.
* A variant whose last build failed has its reason in
  ``build/kiwi/<v>/build.error`` (``build_error``) and no wheel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from ports import portkit
from ports.portkit import sha256_of  # noqa: F401  (part of this module's interface)

PORT_DIR = Path(__file__).resolve().parent
REPO_ROOT = PORT_DIR.parent.parent
CACHE_DIR = REPO_ROOT / ".cache" / "kiwi"
BUILD_ROOT = REPO_ROOT / "build" / "kiwi"
DIST_ROOT = REPO_ROOT / "dist"

PROJECT = "kiwisolver"
VERSION = "1.5.1"
SDIST = f"{PROJECT}-{VERSION}.tar.gz"
SDIST_SHA256 = "f1303ef2eec81262a4b708c3e858afe58d7c75ad91c1c05266eda7673369859a"

#: The unpacked, untouched release.  Its py/tests and benchmarks are what
#: the tests and the benchmark run.
UPSTREAM_DIR = BUILD_ROOT / "upstream" / f"{PROJECT}-{VERSION}"

VARIANTS = ("stock", "hpy_cpython", "hpy_universal", "cystck")
REFERENCE = "stock"

#: What cystck-migrate translates (relative to the source tree).
TRANSLATED_DIR = "py/src"
MANUAL_PATCH = PORT_DIR / "manual.patch"

#: The HPy port: one patch of the release (py/src and setup.py) for both HPy
#: variants, built with hpy's setuptools integration (--hpy-abi=ABI).
HPY_PATCH = PORT_DIR / "hpy.patch"
HPY_VERSION = "0.9.0"
HPY_ABI = {"hpy_cpython": "cpython", "hpy_universal": "universal"}

#: Run-time requirements of a variant's wheel beyond the standard library:
#: the universal ABI's module is loaded by hpy.universal.  The build writes
#: them into the tree's pyproject.toml, so the wheel declares them.
RUNTIME_REQUIRES = {"hpy_universal": (f"hpy=={HPY_VERSION}",)}
#: Wheels of those requirements, for installing a wheel offline.
WHEELHOUSE = BUILD_ROOT / "wheelhouse"


def fetch_sdist() -> Path:
    """The verified sdist in the cache, downloaded with pip if missing."""
    target = CACHE_DIR / SDIST
    if target.is_file() and sha256_of(target) == SDIST_SHA256:
        return target
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE_DIR) as tmp:
        # --no-build-isolation: pip prepares the sdist's metadata with the
        # build requirements already installed (requirements.txt), instead
        # of fetching them again for an isolated environment.
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
             "--no-deps", "--no-binary", ":all:", "--no-build-isolation",
             "--dest", tmp, f"{PROJECT}=={VERSION}"],
            check=True)
        downloaded = Path(tmp) / SDIST
        if not downloaded.is_file():
            raise SystemExit(f"pip download did not produce {SDIST} (got: "
                             f"{', '.join(p.name for p in Path(tmp).iterdir())})")
        actual = sha256_of(downloaded)
        if actual != SDIST_SHA256:
            raise SystemExit(f"{SDIST}: sha256 {actual} does not match the pinned {SDIST_SHA256}")
        os.replace(downloaded, target)
    return target


def unpack(sdist: Path, dest_parent: Path) -> Path:
    """Unpack the sdist into a fresh ``dest_parent``; returns the tree."""
    shutil.rmtree(dest_parent, ignore_errors=True)
    dest_parent.mkdir(parents=True)
    with tarfile.open(sdist) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest_parent, filter="data")
        else:  # Python < 3.11.4: refuse anything outside the folder by hand
            for member in tar.getmembers():
                if member.name.startswith(("/", "..")) or "/../" in member.name:
                    raise SystemExit(f"{sdist.name}: unsafe member {member.name}")
            tar.extractall(dest_parent)
    tree = dest_parent / f"{PROJECT}-{VERSION}"
    if not tree.is_dir():
        raise SystemExit(f"{sdist.name} does not unpack into {tree.name}/")
    return tree


def ensure_upstream() -> Path:
    """The pristine unpacked release (unpacked again if it was changed)."""
    sdist = fetch_sdist()
    stamp = UPSTREAM_DIR.parent / ".sdist-sha256"
    if not (UPSTREAM_DIR.is_dir() and stamp.is_file() and stamp.read_text() == SDIST_SHA256):
        unpack(sdist, UPSTREAM_DIR.parent)
        stamp.write_text(SDIST_SHA256)
    return UPSTREAM_DIR


def variant_dir(variant: str) -> Path:
    return BUILD_ROOT / variant


def site_dir(variant: str) -> Path:
    return variant_dir(variant) / "site"


def wheel_path(variant: str) -> Path | None:
    """The variant's wheel in dist/<variant>/, or None if it is not built."""
    return portkit.single_wheel(DIST_ROOT / variant, f"{PROJECT}-{VERSION}-*.whl",
                                f"{variant} kiwisolver")


def build_error_file(variant: str) -> Path:
    return variant_dir(variant) / "build.error"


def build_error(variant: str) -> str | None:
    """Why the last build of the variant failed, or None if it did not
    (for the evaluation harness, eval/harness/PORT_INTERFACE.md)."""
    path = build_error_file(variant)
    if not path.is_file():
        return None
    return path.read_text().strip() + f" ({path.relative_to(REPO_ROOT)})"


def missing_reason(variant: str) -> str:
    reason = (f"variant {variant!r} is not built: no {PROJECT}-{VERSION}-*.whl in "
              f"{(DIST_ROOT / variant).relative_to(REPO_ROOT)}/")
    error = build_error(variant)
    if error:
        return f"{reason}; its last build failed: {error}"
    return reason + "; build it with `make kiwi-wheels` (python ports/kiwi/recipe.py wheels)"


def ensure_site(variant: str) -> Path:
    """Install the variant's wheel into build/kiwi/<variant>/site, again
    whenever the wheel changes.  Its run-time requirements (hpy for the
    universal ABI) come from the running interpreter, which is checked
    here."""
    wheel = wheel_path(variant)
    if wheel is None:
        raise RuntimeError(missing_reason(variant))
    portkit.check_requirements(RUNTIME_REQUIRES.get(variant, ()),
                               f"the {variant} kiwisolver wheel")
    return portkit.install_site(wheel, site_dir(variant))


def variant_command(variant: str, code: str, *args: str, python: str = sys.executable) -> list[str]:
    """Command running ``code`` in a fresh, isolated (-I) interpreter that
    imports ``variant`` as kiwisolver; sys.argv[1:] is ``args``."""
    return portkit.site_command(ensure_site(variant), "kiwisolver", code, *args, python=python)
