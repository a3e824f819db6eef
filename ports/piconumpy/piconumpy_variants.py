"""The PicoNumPy variants: what each one is built from, and where it lands.

Everything that builds, tests or benchmarks PicoNumPy reads this one table,
so a new variant (the Cystck one) is a new entry in ``VARIANTS``.

Conventions shared by every variant ``<name>``:

* the import name is always ``piconumpy``;
* the distribution is ``piconumpy-<name>`` (``_`` spelled ``-``), so its
  wheel is ``dist/<name>/piconumpy_<name>-*.whl`` below the repository root.
  ``dist/<name>/`` is shared with other ports' wheels of the same variant,
  hence the match on the distribution name;
* tests and benchmarks import it from ``build/piconumpy/<name>/site``, a
  ``pip install --target`` of that wheel (see :func:`ensure_site`), never
  from the source tree, so they exercise exactly what the wheel ships.

A variant counts as *built* when its wheel exists.  Callers ask for the
variants they want with :func:`select_variants`, which reports the ones
that are not built instead of leaving them out silently.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PORT_DIR = Path(__file__).resolve().parent
REPO_ROOT = PORT_DIR.parent.parent
DIST_ROOT = REPO_ROOT / "dist"
BUILD_ROOT = REPO_ROOT / "build" / "piconumpy"

VERSION = "0.1.0"

# Every variant is compiled with exactly these flags, appended after
# Python's own CFLAGS (sysconfig's, which already hold -Wall; our -O2 comes
# last and so overrides the -O3 CPython was configured with).  Compiler and
# linker come from sysconfig, as for any extension.
COMPILE_ARGS = ("-O2",)

# Environment variable read by the tests (the benchmark has --variants):
# a comma-separated list of variant names to run instead of the default.
VARIANTS_ENV = "PICONUMPY_VARIANTS"


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    # C sources, relative to the repository root.  A variant whose source is
    # generated (by cystck-migrate) lists the generated file under build/
    # and creates it in `prepare`.
    sources: tuple[str, ...]
    # HPy ABI passed to hpy's setuptools integration as --hpy-abi, or None
    # for a plain setuptools extension.
    hpy_abi: str | None = None
    include_dirs: tuple[str, ...] = ()
    # Requirements of the installed wheel (its Requires-Dist).
    install_requires: tuple[str, ...] = ()
    # Called by build_variants.py with this Variant before the build, e.g.
    # to generate a source listed in `sources`.  Left out of repr(), which
    # goes into the build signature: the generated source is hashed instead.
    prepare: Callable[[Variant], None] | None = field(default=None, repr=False)

    @property
    def dist_name(self) -> str:
        return dist_name(self.name)


def dist_name(variant: str) -> str:
    return "piconumpy-" + variant.replace("_", "-")


HPY_REQUIREMENT = "hpy==0.9.0"

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            name="stock",
            description="stock CPython C API (the reference)",
            sources=("ports/piconumpy/src/piconumpy.c",),
        ),
        Variant(
            name="hpy_cpython",
            description="HPy, CPython ABI",
            sources=("ports/piconumpy/src/piconumpy_hpy.c",),
            hpy_abi="cpython",
        ),
        Variant(
            name="hpy_universal",
            description="HPy, universal ABI",
            sources=("ports/piconumpy/src/piconumpy_hpy.c",),
            hpy_abi="universal",
            # The universal binary is loaded by hpy.universal at import time.
            install_requires=(HPY_REQUIREMENT,),
        ),
    )
}

REFERENCE = "stock"


def wheel_path(variant: str) -> Path | None:
    """The variant's wheel in dist/<variant>/, or None if it is not built."""
    pattern = dist_name(variant).replace("-", "_") + "-*.whl"
    wheels = sorted((DIST_ROOT / variant).glob(pattern))
    if len(wheels) > 1:
        # build_variants.py removes the old wheel before building; several
        # wheels mean something else wrote here and we cannot tell which
        # one is meant.
        raise RuntimeError(
            f"several {variant} wheels in {DIST_ROOT / variant}: "
            + ", ".join(w.name for w in wheels)
        )
    return wheels[0] if wheels else None


def discovered_variants() -> list[str]:
    """Variants not in VARIANTS whose wheel exists anyway (built elsewhere)."""
    if not DIST_ROOT.is_dir():
        return []
    return sorted(
        d.name
        for d in DIST_ROOT.iterdir()
        if d.name not in VARIANTS and d.is_dir() and wheel_path(d.name)
    )


def parse_variant_list(text: str | None) -> list[str] | None:
    if text is None or not text.strip():
        return None
    return [name.strip() for name in text.split(",") if name.strip()]


def select_variants(requested: list[str] | None = None) -> tuple[list[str], list[str]]:
    """Split the requested variants into (built, missing), keeping order.

    With no explicit request, every variant of the table is expected, plus
    any other variant whose wheel follows our naming convention.
    """
    if requested is None:
        requested = list(VARIANTS) + discovered_variants()
    built = [name for name in requested if wheel_path(name) is not None]
    missing = [name for name in requested if name not in built]
    return built, missing


def missing_reason(variant: str) -> str:
    where = (DIST_ROOT / variant).relative_to(REPO_ROOT)
    pattern = dist_name(variant).replace("-", "_") + "-*.whl"
    hint = "" if variant in VARIANTS else f" ({variant!r} is not in the variant table)"
    return f"variant {variant!r} is not built: no {pattern} in {where}/{hint}"


def site_dir(variant: str) -> Path:
    return BUILD_ROOT / variant / "site"


def ensure_site(variant: str) -> Path:
    """Install the variant's wheel into build/piconumpy/<variant>/site.

    The install is redone whenever the wheel changes (tracked by its hash),
    so a rebuilt wheel is never shadowed by a stale tree.  Dependencies are
    not installed there: they come from the running environment (hpy for
    the universal variant).
    """
    wheel = wheel_path(variant)
    if wheel is None:
        raise RuntimeError(missing_reason(variant))
    site = site_dir(variant)
    site.parent.mkdir(parents=True, exist_ok=True)
    # Tests, benchmark and build may run at the same time (pytest-xdist, a
    # benchmark next to a test run): one installer at a time per variant.
    with open(site.parent / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install_site(wheel, site)
    return site


def _install_site(wheel: Path, site: Path) -> None:
    stamp_text = f"{wheel.name} {hashlib.sha256(wheel.read_bytes()).hexdigest()}\n"
    stamp = site.parent / "site.stamp"
    if site.is_dir() and stamp.is_file() and stamp.read_text() == stamp_text:
        return
    # Install next to the final place and rename, so that an interrupted
    # install never leaves a half-filled site behind a valid stamp.
    staging = site.parent / f"site.tmp-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--quiet",
            "--disable-pip-version-check", "--no-index", "--no-deps",
            "--no-compile", "--target", str(staging), str(wheel),
        ],
        check=True,
    )
    stamp.unlink(missing_ok=True)
    shutil.rmtree(site, ignore_errors=True)
    staging.rename(site)
    stamp.write_text(stamp_text)


# Prepended to the code run by variant_command(): puts the variant's site
# first on sys.path, imports piconumpy and checks that it really came from
# there (not from an installed copy or the source tree).
_BOOTSTRAP = """\
import sys
site = sys.argv.pop(1)
sys.path.insert(0, site)
import os, piconumpy
if not os.path.abspath(piconumpy.__file__).startswith(os.path.join(site, "")):
    raise SystemExit("piconumpy imported from %s, not from %s" % (piconumpy.__file__, site))
"""


def variant_command(variant: str, code: str, *args: str) -> list[str]:
    """Command running `code` in a fresh interpreter that sees `variant`.

    Each variant gets its own process: all of them are called `piconumpy`,
    and a crash in one must not take the others down.  The interpreter runs
    isolated (-I), so neither PYTHONPATH, the user site nor the current
    directory can put another piconumpy on the path.  In `code`, the module
    is bound to the name `piconumpy` and sys.argv[1:] is `args`.
    """
    return [sys.executable, "-I", "-c", _BOOTSTRAP + code, str(ensure_site(variant)), *args]
