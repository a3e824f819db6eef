"""Build the wheel of every PicoNumPy variant.

    python ports/piconumpy/recipe.py wheels [--variants stock,hpy_cpython] [--force]
    python ports/piconumpy/recipe.py prepare --variants cystck
    python ports/piconumpy/recipe.py wheels --no-prepare --variants cystck
    python ports/piconumpy/recipe.py save-patch

(every port's command line, portkit.Recipe)

For each variant of piconumpy_variants.VARIANTS (or the ones named), this
runs setup_variant.py in build/piconumpy/<variant>/setup/ and leaves the
wheel in dist/<variant>/ (both below the repository root), then installs it
into build/piconumpy/<variant>/site/ for the tests and the benchmark.  It
also stores the wheels the variants need at run time (hpy, for the
universal ABI) in build/piconumpy/wheelhouse/, so that installing a variant
into a fresh virtual environment works offline.

A variant whose wheel was built from the same inputs (sources, files of its
include_dirs, build scripts, compile flags, Python, setuptools and hpy
versions; for Cystck, the runtime's header and sources) is not rebuilt;
--force rebuilds anyway.  The Cystck variant's source is translated and
patched again on every run (a fraction of a second), so a change of the
translator or of manual.patch is seen through the source it produces.

To change the residual patch (see the README): edit
build/piconumpy/cystck/src/piconumpy.c, build it as it is with --no-prepare
(which skips the translate-and-patch step that would overwrite it), test,
then save-patch rewrites ports/piconumpy/manual.patch as the difference
between the translator's output and that file.

A variant that fails to build does not stop the others; its reason is kept
in build/piconumpy/<variant>/build.error (removed by the next successful
build) for the evaluation harness (piconumpy_variants.build_error).

Compiler flags: piconumpy_variants.COMPILE_ARGS, the same for every variant.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

from ports import portkit
from ports.piconumpy import piconumpy_variants
from ports.piconumpy.piconumpy_variants import (
    BUILD_ROOT, COMPILE_ARGS, MANUAL_PATCH, DIST_ROOT, PORT_DIR, PORTED_SOURCE, REPO_ROOT,
    TRANSLATED_SOURCE, VARIANTS, Variant, manual_patch_text, dist_name,
    ensure_site, wheel_path,
)

WHEELHOUSE = BUILD_ROOT / "wheelhouse"


def input_signature(variant: Variant) -> str:
    """Hash of everything the variant's wheel is built from."""
    signature = portkit.InputSignature()
    signature.add("flags", " ".join(COMPILE_ARGS).encode())
    signature.add("python", sys.version.encode())
    signature.add("setuptools", importlib.metadata.version("setuptools").encode())
    if variant.hpy_abi is not None:
        signature.add("hpy", importlib.metadata.version("hpy").encode())
    signature.add("variant", repr(variant).encode())
    files = [REPO_ROOT / s for s in variant.sources]
    for directory in variant.include_dirs:
        files += sorted(p for p in (REPO_ROOT / directory).rglob("*") if p.is_file())
    if variant.cystck:
        files += cystck_runtime_files()
    files += [PORT_DIR / "setup_variant.py", PORT_DIR / "piconumpy_variants.py"]
    for path in files:
        label = str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else path.name
        signature.add(label, path.read_bytes())
    return signature.hexdigest()


def cystck_runtime_files() -> list[Path]:
    """What cystck.build.prepare() adds to an extension: the header folder
    and the runtime sources (of the cystck installed in this environment)."""
    import cystck

    files = []
    for directory in (cystck.get_include(), cystck.get_source_dir()):
        files += sorted(p for p in Path(directory).rglob("*")
                        if p.is_file() and p.suffix in {".h", ".c"})
    return files


def build(variant: Variant, force: bool, prepare: bool = True) -> bool:
    """Build the variant's wheel unless it is up to date; True if built.
    prepare=False builds the variant's sources as they are."""
    if prepare and variant.prepare is not None:
        try:
            variant.prepare(variant)
        except SystemExit as failure:
            raise SystemExit(f"{variant.name}: {failure}") from None
    for source in variant.sources:
        if not (REPO_ROOT / source).is_file():
            raise SystemExit(f"{variant.name}: source {source} does not exist")

    signature = input_signature(variant)
    signature_file = BUILD_ROOT / variant.name / "build.signature"
    if not force and portkit.is_up_to_date(signature_file, signature, wheel_path(variant.name)):
        return False
    signature_file.unlink(missing_ok=True)

    # A clean build folder every time: the build takes seconds, and stale
    # objects from an earlier flag set or source could otherwise be reused.
    workdir = BUILD_ROOT / variant.name / "setup"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    dist_dir = DIST_ROOT / variant.name
    dist_dir.mkdir(parents=True, exist_ok=True)
    old = wheel_path(variant.name)
    if old is not None:
        old.unlink()

    command = [sys.executable, str(PORT_DIR / "setup_variant.py"), variant.name]
    if variant.hpy_abi is not None:
        command.append(f"--hpy-abi={variant.hpy_abi}")
    command += ["bdist_wheel", "--dist-dir", str(dist_dir)]
    log = workdir.parent / "build.log"
    with open(log, "w") as out:
        out.write("$ " + " ".join(command) + "\n")
        out.flush()
        result = subprocess.run(command, cwd=workdir, stdout=out, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        output = log.read_text()
        sys.stderr.write(output)
        errors = [line for line in output.splitlines() if "error:" in line]
        reason = f"{variant.name}: build failed (log: {log.relative_to(REPO_ROOT)})"
        raise SystemExit("\n".join([reason, *errors[:20]]))
    # Compiler warnings are not fatal, but nobody reads logs of builds that
    # succeed: show them.
    warnings = [line for line in log.read_text().splitlines() if "warning:" in line
                and "install_lib" not in line]
    for line in warnings:
        print(f"  {variant.name}: {line}")
    if wheel_path(variant.name) is None:
        raise SystemExit(f"{variant.name}: the build produced no {dist_name(variant.name)} wheel")
    signature_file.write_text(signature)
    return True


def save_patch() -> None:
    """manual.patch = diff(translator output, hand-edited ported source)."""
    if not (TRANSLATED_SOURCE.is_file() and PORTED_SOURCE.is_file()):
        raise SystemExit("build the cystck variant first: its sources are made in "
                         f"{PORTED_SOURCE.parent.parent.relative_to(REPO_ROOT)}/")
    text = manual_patch_text()
    MANUAL_PATCH.write_text(text)
    changed = sum(1 for line in text.splitlines()
                  if line[:1] in "+-" and not line.startswith(("+++", "---")))
    print(f"wrote {MANUAL_PATCH.relative_to(REPO_ROOT)}: {changed} changed lines")


class PicoNumPyRecipe(portkit.Recipe, port=piconumpy_variants):
    save_patch = staticmethod(save_patch)

    def prepare(self, variant: str) -> Path:
        """Run the variant's prepare hook (the cystck one translates and
        patches); the folder of its first source."""
        entry = VARIANTS[variant]
        if entry.prepare is not None:
            entry.prepare(entry)
        return (REPO_ROOT / entry.sources[0]).parent

    def build_one(self, variant: str, force: bool, prepare: bool) -> bool:
        built = build(VARIANTS[variant], force, prepare)
        ensure_site(variant)
        portkit.fill_wheelhouse(VARIANTS[variant].install_requires, WHEELHOUSE)
        return built

    def wheels(self, variants, force: bool = False, prepare: bool = True) -> None:
        self.log(f"compile flags (all variants): {' '.join(COMPILE_ARGS)}")
        super().wheels(variants, force, prepare)


if __name__ == "__main__":
    PicoNumPyRecipe().main()
