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

The ``cystck`` variant has no source of its own in the repository: its
``prepare`` hook (:func:`prepare_cystck`) runs cystck-migrate on the stock
source and applies the residual hand edits, ``manual.patch``, under
``build/piconumpy/cystck/`` (see the README, "The Cystck variant").
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ports import portkit

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
    # Compiled against Cystck: cystck.build.prepare() adds Cystck.h's folder
    # and the runtime's C sources to the extension (the runtime is compiled
    # into the wheel, which needs nothing of the cystck package at run time).
    cystck: bool = False
    # Called by recipe.py with this Variant before the build, e.g.
    # to generate a source listed in `sources`.  Left out of repr(), which
    # goes into the build signature: the generated source is hashed instead.
    prepare: Callable[[Variant], None] | None = field(default=None, repr=False)

    @property
    def dist_name(self) -> str:
        return dist_name(self.name)


def dist_name(variant: str) -> str:
    return "piconumpy-" + variant.replace("_", "-")


HPY_REQUIREMENT = "hpy==0.9.0"


# -- the Cystck variant: translated from the stock source at build time ------
#
#   build/piconumpy/cystck/translated/piconumpy.c   cystck-migrate's output
#   build/piconumpy/cystck/migrate-report.json      its report (rules, left-overs)
#   build/piconumpy/cystck/src/piconumpy.c          the output + manual.patch: compiled
#
# Nothing translated is ever committed: the stock source and the residual
# patch are the port.  The translator and the cystck.build helpers come from
# the `cystck` package installed in the running environment.

STOCK_SOURCE = PORT_DIR / "src" / "piconumpy.c"
MANUAL_PATCH = PORT_DIR / "manual.patch"
CYSTCK_BUILD = BUILD_ROOT / "cystck"
TRANSLATED_SOURCE = CYSTCK_BUILD / "translated" / "piconumpy.c"
MIGRATE_REPORT = CYSTCK_BUILD / "migrate-report.json"
PORTED_SOURCE = CYSTCK_BUILD / "src" / "piconumpy.c"


def _run_logged(command: list[str], log: Path, cwd: Path) -> None:
    with open(log, "a") as out:
        out.write("$ " + " ".join(str(c) for c in command) + "\n")
        out.flush()
        result = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        sys.stderr.write(log.read_text()[-10000:])
        raise SystemExit(f"failed: {' '.join(str(c) for c in command)} (log: {log})")


def translate_stock_source(log: Path) -> None:
    """cystck-migrate src/piconumpy.c -> TRANSLATED_SOURCE and MIGRATE_REPORT."""
    CYSTCK_BUILD.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CYSTCK_BUILD, prefix="migrate-") as tmp:
        out_dir = Path(tmp) / "out"
        report = Path(tmp) / "report.json"
        # Run from the build folder: at the repository root, python -m would
        # import the source checkout's cystck/ instead of the installed one.
        # Without --check: the output may not compile before the patch.
        _run_logged([sys.executable, "-m", "cystck.migrate", str(STOCK_SOURCE),
                     "-o", str(out_dir), "--report", str(report)], log, cwd=CYSTCK_BUILD)
        TRANSLATED_SOURCE.parent.mkdir(parents=True, exist_ok=True)
        os.replace(out_dir / STOCK_SOURCE.name, TRANSLATED_SOURCE)
        os.replace(report, MIGRATE_REPORT)


def apply_manual_patch(log: Path) -> None:
    """PORTED_SOURCE = TRANSLATED_SOURCE + manual.patch (an empty patch is none)."""
    PORTED_SOURCE.parent.mkdir(parents=True, exist_ok=True)
    staged = PORTED_SOURCE.with_name(f"{PORTED_SOURCE.name}.tmp-{os.getpid()}")
    shutil.copyfile(TRANSLATED_SOURCE, staged)
    if MANUAL_PATCH.is_file() and MANUAL_PATCH.read_text().strip():
        # --fuzz=0: a hunk whose context changed must fail, not land elsewhere.
        rejects = PORTED_SOURCE.with_name(PORTED_SOURCE.name + ".rej")
        rejects.unlink(missing_ok=True)
        command = ["patch", "--batch", "--forward", "--fuzz=0", "--no-backup-if-mismatch",
                   f"--reject-file={rejects}", str(staged), "-i", str(MANUAL_PATCH)]
        with open(log, "a") as out:
            out.write("$ " + " ".join(command) + "\n")
            out.flush()
            result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT)
        if result.returncode != 0:
            # Leave the new output with the hunks that did apply where the
            # maintainer edits it, the others beside it.
            os.replace(staged, PORTED_SOURCE)
            raise SystemExit(
                f"{MANUAL_PATCH.relative_to(REPO_ROOT)} no longer applies to the translator's "
                f"output (log: {log.relative_to(REPO_ROOT)}): the translator or the stock "
                f"source changed.  {PORTED_SOURCE.relative_to(REPO_ROOT)} now holds the new "
                f"output with the hunks that applied, {rejects.name} beside it the others: "
                f"edit it until it builds and passes (python ports/piconumpy/"
                f"recipe.py wheels --no-prepare --variants cystck), then run "
                f"recipe.py save-patch.")
    os.replace(staged, PORTED_SOURCE)


def prepare_cystck(variant: Variant) -> None:
    """The `prepare` hook of the cystck variant: translate, then patch."""
    CYSTCK_BUILD.mkdir(parents=True, exist_ok=True)
    log = CYSTCK_BUILD / "prepare.log"
    log.write_text("")
    translate_stock_source(log)
    apply_manual_patch(log)


def manual_patch_text() -> str:
    """The residual patch for the current trees: TRANSLATED -> PORTED."""
    result = subprocess.run(
        ["diff", "-u", "--label", "a/piconumpy.c", "--label", "b/piconumpy.c",
         str(TRANSLATED_SOURCE), str(PORTED_SOURCE)],
        capture_output=True, text=True)
    if result.returncode > 1:
        raise SystemExit(result.stderr)
    return result.stdout


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
        Variant(
            name="cystck",
            description="Cystck, translated by cystck-migrate",
            sources=(str(PORTED_SOURCE.relative_to(REPO_ROOT)),),
            cystck=True,
            prepare=prepare_cystck,
        ),
    )
}

REFERENCE = "stock"


def wheel_path(variant: str) -> Path | None:
    """The variant's wheel in dist/<variant>/, or None if it is not built."""
    pattern = dist_name(variant).replace("-", "_") + "-*.whl"
    return portkit.single_wheel(DIST_ROOT / variant, pattern, variant)


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


def build_error_file(variant: str) -> Path:
    """Where recipe.py keeps the reason of the variant's failed build."""
    path = BUILD_ROOT / variant / "build.error"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def build_error(variant: str) -> str | None:
    """Why the last build of the variant failed, or None if it did not
    (for the evaluation harness, eval/harness/PORT_INTERFACE.md)."""
    path = BUILD_ROOT / variant / "build.error"
    return path.read_text().strip() if path.is_file() else None


def site_dir(variant: str) -> Path:
    return BUILD_ROOT / variant / "site"


def ensure_site(variant: str) -> Path:
    """Install the variant's wheel into build/piconumpy/<variant>/site,
    again whenever the wheel changes.  Dependencies are not installed
    there: they come from the running environment (hpy for the universal
    variant)."""
    wheel = wheel_path(variant)
    if wheel is None:
        raise RuntimeError(missing_reason(variant))
    return portkit.install_site(wheel, site_dir(variant))


def variant_command(variant: str, code: str, *args: str) -> list[str]:
    """Command running `code` in a fresh, isolated interpreter that sees
    `variant` as `piconumpy` (sys.argv[1:] is `args`).  Each variant gets
    its own process: all of them are called `piconumpy`, and a crash in one
    must not take the others down."""
    return portkit.site_command(ensure_site(variant), "piconumpy", code, *args)
