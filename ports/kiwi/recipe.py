"""Build the stock, HPy (CPython and universal ABI) and Cystck wheels of kiwisolver 1.5.1.

    python ports/kiwi/recipe.py wheels [--variants stock,hpy_cpython,hpy_universal,cystck]
                                       [--force] [--no-prepare]
    python ports/kiwi/recipe.py prepare [--variants cystck]
    python ports/kiwi/recipe.py save-patch
    python ports/kiwi/recipe.py save-hpy-patch

(every port's command line, portkit.Recipe)

All wheels come from the same sdist (pinned by sha256 in kiwi_port.py) and
are built by the sdist's own setup.py (cppy's build class: ``-std=c++11``
on top of Python's CFLAGS), so they get the same flags:

* ``stock``: the sdist as released.
* ``hpy_cpython``, ``hpy_universal``: ``hpy.patch`` (the hand port of
  ``py/src`` to HPy, plus setup.py's ``ext_modules=`` turned into hpy's
  ``hpy_ext_modules=``) is applied, and hpy's setuptools integration builds
  the extension with ``--hpy-abi=cpython`` or ``--hpy-abi=universal``.
* ``cystck``: cystck-migrate translates ``py/src`` (its JSON report goes to
  ``build/kiwi/cystck/migrate-report.json``), then ``manual.patch`` (the residual hand
  edits, including the one-word setup.py change that adds the Cystck
  runtime to the extension) is applied.

A variant that fails to build does not stop the others: its reason goes to
``build/kiwi/<variant>/build.error`` (kiwi_port.build_error), its old wheel
is removed, and the script exits with status 1 once all are done.

Each variant is prepared in ``build/kiwi/<variant>/src``; its wheel lands in
``dist/<variant>/`` and is installed into ``build/kiwi/<variant>/site`` for
the tests and the benchmark.  A wheel built from the same inputs (sdist,
patch, translator and runtime, Python, setuptools, cppy, these scripts) is
not rebuilt unless --force is given.

To change the residual patch: ``prepare --variants cystck`` (translate and
patch, no build), edit ``build/kiwi/cystck/src``, build and test it as it is
(``wheels --no-prepare --variants cystck``), then ``save-patch`` rewrites
manual.patch as the difference between the translator's output
(``build/kiwi/cystck/translated``) and the edited tree.  The same for
hpy.patch: ``prepare --variants hpy_cpython``, edit
``build/kiwi/hpy_cpython/src``, ``save-hpy-patch`` (the difference between
the release and that tree).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ports import portkit
from ports.kiwi import kiwi_port as kp

# Files of the source tree that the port changes (the translator writes
# TRANSLATED_DIR; the patch may touch these and setup.py).
PATCHED_PATHS = (kp.TRANSLATED_DIR, "setup.py")


def _installed_package_files(dist: str) -> list[Path]:
    files = importlib.metadata.files(dist) or []
    return sorted(Path(f.locate()) for f in files
                  if f.suffix in {".py", ".c", ".h"} and "__pycache__" not in f.parts)


def input_signature(variant: str) -> str:
    """Hash of everything the variant's wheel is built from."""
    signature = portkit.InputSignature()
    signature.add("sdist", kp.SDIST_SHA256.encode())
    signature.add("python", sys.version.encode())
    for dist in ("setuptools", "cppy", "setuptools-scm", "wheel"):
        signature.add(dist, importlib.metadata.version(dist).encode())
    for script in ("recipe.py", "kiwi_port.py"):
        signature.add(script, (kp.PORT_DIR / script).read_bytes())
    if variant == "cystck":
        signature.add("patch", kp.MANUAL_PATCH.read_bytes())
        # The translator and the runtime compiled into the extension.
        for path in _installed_package_files("cystck"):
            signature.add(path.name, path.read_bytes())
    if variant in kp.HPY_ABI:
        signature.add("hpy-abi", kp.HPY_ABI[variant].encode())
        signature.add("hpy-patch", kp.HPY_PATCH.read_bytes())
        # hpy's headers, runtime sources and setuptools integration.
        for path in _installed_package_files("hpy"):
            signature.add(str(path), path.read_bytes())
    return signature.hexdigest()


def run_logged(command: list[str], log: Path, cwd: Path, env: dict | None = None) -> None:
    with open(log, "a") as out:
        out.write("$ " + " ".join(str(c) for c in command) + "\n")
        out.flush()
        result = subprocess.run(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        sys.stderr.write(log.read_text()[-20000:])
        raise SystemExit(f"failed: {' '.join(str(c) for c in command)} (log: {log})")


def translate(tree: Path, log: Path) -> Path:
    """Run cystck-migrate on the tree's py/src, in place.  Returns its JSON
    report (per-rule counts, diffstat, warnings, constructs left for a
    human), kept for the migration metrics."""
    vdir = kp.variant_dir("cystck")
    report = vdir / "migrate-report.json"
    report.unlink(missing_ok=True)
    src = tree / kp.TRANSLATED_DIR
    staged = vdir / "migrate-out"
    shutil.rmtree(staged, ignore_errors=True)
    # cwd: not the repository root, whose cystck/ folder (without the
    # translator) would shadow the installed package.
    run_logged([sys.executable, "-m", "cystck.migrate", str(src), "-o", str(staged),
                "--report", str(report)], log, cwd=vdir)
    shutil.rmtree(src)
    staged.rename(src)
    return report


def apply_patch(tree: Path, log: Path) -> None:
    """Apply manual.patch.  It is a diff against the translator's output, so
    a translator that changed what it writes for kiwi makes hunks fail:
    say so, and how to make a new patch."""
    try:
        run_logged(["patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch",
                    "-i", str(kp.MANUAL_PATCH)], log, cwd=tree)
    except SystemExit:
        raise SystemExit(
            "manual.patch does not apply to the translator's output any more (the translator "
            "changed?): prepare the tree, fix it by hand and refresh the patch (see "
            "ports/kiwi/README.md, 'Changing the residual patch')") from None


def apply_hpy_patch(tree: Path, log: Path) -> None:
    try:
        run_logged(["patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch",
                    "-i", str(kp.HPY_PATCH)], log, cwd=tree)
    except SystemExit:
        raise SystemExit(f"hpy.patch does not apply to the release (log: {log})") from None


def check_hpy() -> None:
    """The HPy variants are written for, and built with, one hpy release."""
    try:
        found = importlib.metadata.version("hpy")
    except importlib.metadata.PackageNotFoundError:
        found = None
    if found != kp.HPY_VERSION:
        raise SystemExit(f"the HPy variants need hpy=={kp.HPY_VERSION} in {sys.executable} "
                         f"(found: {found or 'none'}); it is in requirements.txt")


def declare_runtime_requires(tree: Path, variant: str) -> None:
    """Write the variant's run-time requirements (kp.RUNTIME_REQUIRES) into
    the tree's pyproject.toml, so that its wheel declares them: the sdist's
    [project] table is static and lists no dependencies, and setuptools lets
    it override setup.py's install_requires."""
    requires = list(kp.RUNTIME_REQUIRES.get(variant, ()))
    if not requires:
        return
    pyproject = tree / "pyproject.toml"
    text = pyproject.read_text()
    header = "[project]\n"
    if text.count(header) != 1 or re.search(r"^\s*dependencies\s*=", text, flags=re.M):
        raise SystemExit(f"{pyproject}: expected one [project] table without dependencies "
                         "(a new release?)")
    # A JSON list of strings is a TOML array.
    pyproject.write_text(text.replace(header, f"{header}  dependencies = {json.dumps(requires)}\n"))


def prepare_tree(variant: str, log: Path) -> Path:
    """A fresh copy of the release, translated and patched for Cystck, or
    patched for HPy."""
    upstream = kp.ensure_upstream()
    vdir = kp.variant_dir(variant)
    tree = vdir / "src"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(upstream, tree)
    if variant == "cystck":
        translate(tree, log)
        # What the translator produced by itself, for save-patch and
        # the migration metrics.
        translated = vdir / "translated"
        shutil.rmtree(translated, ignore_errors=True)
        shutil.copytree(tree, translated)
        if kp.MANUAL_PATCH.stat().st_size:
            apply_patch(tree, log)
    elif variant in kp.HPY_ABI:
        apply_hpy_patch(tree, log)
    declare_runtime_requires(tree, variant)
    return tree


def build(variant: str, force: bool, prepare: bool = True) -> bool:
    """Build the variant's wheel unless it is up to date; True if built.
    prepare=False builds build/kiwi/<variant>/src as it is (hand-edited),
    always, and stores no signature: the next prepared build redoes it."""
    if variant in kp.HPY_ABI:
        check_hpy()
    signature = input_signature(variant)
    vdir = kp.variant_dir(variant)
    signature_file = vdir / "build.signature"
    if prepare and not force and portkit.is_up_to_date(signature_file, signature,
                                                       kp.wheel_path(variant)):
        return False
    vdir.mkdir(parents=True, exist_ok=True)
    signature_file.unlink(missing_ok=True)
    log = vdir / "build.log"
    log.write_text("")
    if prepare:
        tree = prepare_tree(variant, log)
    else:
        tree = vdir / "src"
        if not tree.is_dir():
            raise SystemExit(f"{variant}: nothing prepared in {tree}: run "
                             f"`recipe.py prepare --variants {variant}` first")

    wheel_dir = vdir / "wheel"
    shutil.rmtree(wheel_dir, ignore_errors=True)
    env = dict(os.environ)
    # setuptools_scm must take the version from the sdist's PKG-INFO, never
    # from the git repository the build folder happens to sit in.
    env["SETUPTOOLS_SCM_PRETEND_VERSION"] = kp.VERSION
    if variant in kp.HPY_ABI:
        # hpy's setuptools integration takes the ABI as a global option of
        # setup.py, which setuptools' build backend (as run by pip) does not
        # pass on: setup.py runs directly, with the same build class, hence
        # the same compiler flags.
        run_logged([sys.executable, "setup.py", f"--hpy-abi={kp.HPY_ABI[variant]}",
                    "bdist_wheel", "--dist-dir", str(wheel_dir)], log, cwd=tree, env=env)
    else:
        run_logged([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "--verbose", "--wheel-dir", str(wheel_dir),
                    str(tree)], log, cwd=vdir, env=env)
    built = sorted(wheel_dir.glob(f"{kp.PROJECT}-{kp.VERSION}-*.whl"))
    if len(built) != 1:
        raise SystemExit(f"{variant}: expected one wheel in {wheel_dir}, got {built}")
    dist_dir = kp.DIST_ROOT / variant
    dist_dir.mkdir(parents=True, exist_ok=True)
    old = kp.wheel_path(variant)
    if old is not None:
        old.unlink()
    shutil.move(str(built[0]), dist_dir / built[0].name)
    warnings = [line for line in log.read_text().splitlines()
                if "warning:" in line and "/py/src/" in line]
    for line in warnings:
        print(f"  {variant}: {line.strip()}")
    if prepare:
        signature_file.write_text(signature)
    return True


def save_hpy_patch() -> None:
    """Write hpy.patch = diff(release, hand-edited build/kiwi/hpy_cpython/src)."""
    upstream = kp.ensure_upstream()
    tree = kp.variant_dir("hpy_cpython") / "src"
    if not tree.is_dir():
        raise SystemExit("prepare the HPy tree first: recipe.py prepare --variants hpy_cpython")
    text = ""
    for rel in PATCHED_PATHS:
        result = subprocess.run(["diff", "-ruN", "-x", "*.so", "-x", "_cext.py",
                                 str(upstream / rel), str(tree / rel)],
                                capture_output=True, text=True)
        if result.returncode > 1:
            raise SystemExit(result.stderr)
        text += result.stdout
    text = re.sub(r"^diff -ruN .*$\n", "", text, flags=re.M)
    text = re.sub(r"^--- " + re.escape(str(upstream)) + r"/(\S+)\t.*$", r"--- a/\1", text, flags=re.M)
    text = re.sub(r"^\+\+\+ " + re.escape(str(tree)) + r"/(\S+)\t.*$", r"+++ b/\1", text, flags=re.M)
    kp.HPY_PATCH.write_text(text)
    print(f"wrote {kp.HPY_PATCH.relative_to(kp.REPO_ROOT)}")


def save_patch() -> None:
    """Write manual.patch = diff(translator output, hand-edited tree)."""
    vdir = kp.variant_dir("cystck")
    if not (vdir / "translated").is_dir() or not (vdir / "src").is_dir():
        raise SystemExit("build the cystck variant first (its trees are in build/kiwi/cystck/)")
    text = ""
    for rel in PATCHED_PATHS:
        result = subprocess.run(["diff", "-ruN", f"translated/{rel}", f"src/{rel}"],
                                cwd=vdir, capture_output=True, text=True)
        if result.returncode > 1:
            raise SystemExit(result.stderr)
        text += result.stdout
    # a/ and b/ prefixes and no timestamps: a stable patch for `patch -p1`.
    text = re.sub(r"^diff -ruN translated/(\S+) src/\S+$", r"diff -ruN a/\1 b/\1", text, flags=re.M)
    text = re.sub(r"^--- translated/(\S+)\t.*$", r"--- a/\1", text, flags=re.M)
    text = re.sub(r"^\+\+\+ src/(\S+)\t.*$", r"+++ b/\1", text, flags=re.M)
    kp.MANUAL_PATCH.write_text(text)
    print(f"wrote {kp.MANUAL_PATCH.relative_to(kp.REPO_ROOT)}")


def first_error(log: Path) -> str:
    """The first compiler (or other) error of a failed build's log, for
    build.error; empty if there is none."""
    if not log.is_file():
        return ""
    for line in log.read_text(errors="replace").splitlines():
        if re.search(r"\berror\b", line) and "warnings.warn" not in line:
            return f": {line.strip()[:500]}"
    return ""


def failure_message(name: str, exc: BaseException) -> str:
    """No wheel of a variant that does not build from the current inputs:
    remove the old one, and keep the reason with the first compiler error."""
    old = kp.wheel_path(name)
    if old is not None:
        old.unlink()
    (kp.variant_dir(name) / "build.signature").unlink(missing_ok=True)
    return f"{exc}{first_error(kp.variant_dir(name) / 'build.log')}"


class KiwiRecipe(portkit.Recipe, port=kp):
    save_patch = staticmethod(save_patch)
    save_hpy_patch = staticmethod(save_hpy_patch)
    failure_message = staticmethod(failure_message)

    def prepare(self, variant: str) -> Path:
        log = kp.variant_dir(variant) / "prepare.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("")
        return prepare_tree(variant, log)

    def build_one(self, variant: str, force: bool, prepare: bool) -> bool:
        """Build (or keep) one variant's wheel and install it for the tests."""
        built = build(variant, force, prepare)
        # The run-time requirements, and theirs (hpy needs setuptools), for
        # the fresh-venv tests' offline installs.
        portkit.fill_wheelhouse(kp.RUNTIME_REQUIRES.get(variant, ()), kp.WHEELHOUSE)
        kp.ensure_site(variant)
        return built


if __name__ == "__main__":
    KiwiRecipe().main()
