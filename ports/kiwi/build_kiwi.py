"""Build the stock and the Cystck wheel of kiwisolver 1.5.1.

    python ports/kiwi/build_kiwi.py [--variants stock,cystck] [--force]
    python ports/kiwi/build_kiwi.py --prepare [--variants cystck]
    python ports/kiwi/build_kiwi.py --refresh-patch

Both wheels come from the same sdist (pinned by sha256 in kiwi_port.py) and
are built by the sdist's own setup.py (cppy's build class: ``-std=c++11``
on top of Python's CFLAGS), so they get the same flags:

* ``stock``: the sdist as released.
* ``cystck``: cystck-migrate translates ``py/src`` (its JSON report goes to
  ``build/kiwi/cystck/migrate-report.json``), then ``manual.patch`` (the residual hand
  edits, including the one-word setup.py change that adds the Cystck
  runtime to the extension) is applied.

Each variant is prepared in ``build/kiwi/<variant>/src``; its wheel lands in
``dist/<variant>/`` and is installed into ``build/kiwi/<variant>/site`` for
the tests and the benchmark.  A wheel built from the same inputs (sdist,
patch, translator and runtime, Python, setuptools, cppy, these scripts) is
not rebuilt unless --force is given.

To change the residual patch: ``--prepare --variants cystck`` (translate and
patch, no build), edit ``build/kiwi/cystck/src``, then ``--refresh-patch``
rewrites manual.patch as the difference between the translator's output
(``build/kiwi/cystck/translated``) and the edited tree; rebuild.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import kiwi_port as kp

# Files of the source tree that the port changes (the translator writes
# TRANSLATED_DIR; the patch may touch these and setup.py).
PATCHED_PATHS = (kp.TRANSLATED_DIR, "setup.py")


def _installed_package_files(dist: str) -> list[Path]:
    files = importlib.metadata.files(dist) or []
    return sorted(Path(f.locate()) for f in files
                  if f.suffix in {".py", ".c", ".h"} and "__pycache__" not in f.parts)


def input_signature(variant: str) -> str:
    """Hash of everything the variant's wheel is built from."""
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)

    add("sdist", kp.SDIST_SHA256.encode())
    add("python", sys.version.encode())
    for dist in ("setuptools", "cppy", "setuptools-scm", "wheel"):
        add(dist, importlib.metadata.version(dist).encode())
    for script in ("build_kiwi.py", "kiwi_port.py"):
        add(script, (kp.PORT_DIR / script).read_bytes())
    if variant == "cystck":
        add("patch", kp.MANUAL_PATCH.read_bytes())
        # The translator and the runtime compiled into the extension.
        for path in _installed_package_files("cystck"):
            add(path.name, path.read_bytes())
    return digest.hexdigest()


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


def prepare_tree(variant: str, log: Path) -> Path:
    """A fresh copy of the release, translated and patched for Cystck."""
    upstream = kp.ensure_upstream()
    vdir = kp.variant_dir(variant)
    tree = vdir / "src"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(upstream, tree)
    if variant == "cystck":
        translate(tree, log)
        # What the translator produced by itself, for --refresh-patch and
        # the migration metrics.
        translated = vdir / "translated"
        shutil.rmtree(translated, ignore_errors=True)
        shutil.copytree(tree, translated)
        if kp.MANUAL_PATCH.stat().st_size:
            apply_patch(tree, log)
    return tree


def build(variant: str, force: bool) -> bool:
    """Build the variant's wheel unless it is up to date; True if built."""
    signature = input_signature(variant)
    vdir = kp.variant_dir(variant)
    signature_file = vdir / "build.signature"
    if (not force and kp.wheel_path(variant) is not None and signature_file.is_file()
            and signature_file.read_text() == signature):
        return False
    vdir.mkdir(parents=True, exist_ok=True)
    signature_file.unlink(missing_ok=True)
    log = vdir / "build.log"
    log.write_text("")
    tree = prepare_tree(variant, log)

    wheel_dir = vdir / "wheel"
    shutil.rmtree(wheel_dir, ignore_errors=True)
    env = dict(os.environ)
    # setuptools_scm must take the version from the sdist's PKG-INFO, never
    # from the git repository the build folder happens to sit in.
    env["SETUPTOOLS_SCM_PRETEND_VERSION"] = kp.VERSION
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
    signature_file.write_text(signature)
    return True


def refresh_patch() -> None:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default=",".join(kp.VARIANTS),
                        help="comma-separated variants (default: %(default)s)")
    parser.add_argument("--force", action="store_true", help="rebuild up-to-date wheels too")
    parser.add_argument("--prepare", action="store_true",
                        help="only prepare build/kiwi/<variant>/src (translate, patch); no wheel")
    parser.add_argument("--refresh-patch", action="store_true",
                        help="rewrite manual.patch from build/kiwi/cystck/{translated,src}")
    args = parser.parse_args()
    if args.refresh_patch:
        refresh_patch()
        return
    names = [n.strip() for n in args.variants.split(",") if n.strip()]
    unknown = sorted(set(names) - set(kp.VARIANTS))
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(kp.VARIANTS)}")
    if args.prepare:
        for name in names:
            log = kp.variant_dir(name) / "prepare.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text("")
            print(f"  {name:<7} {prepare_tree(name, log).relative_to(kp.REPO_ROOT)}")
        return
    for name in names:
        start = time.perf_counter()
        built = build(name, args.force)
        kp.ensure_site(name)
        wheel = kp.wheel_path(name)
        status = f"built in {time.perf_counter() - start:.1f} s" if built else "up to date"
        print(f"  {name:<7} {wheel.relative_to(kp.REPO_ROOT)} ({status})")


if __name__ == "__main__":
    main()
