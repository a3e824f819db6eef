"""The UltraJSON recipe: from the PyPI sdist to the stock, HPy and Cystck wheels.

    python ports/ultrajson/recipe.py wheels [--variants stock,cystck,...] [--force] [--no-prepare]
                                                  build the wheels into dist/<variant>/ and install
                                                  each into build/ultrajson/<variant>/site/
    python ports/ultrajson/recipe.py prepare [--variants cystck,hpy_cpython]
                                                  only the sources: cystck: unpack, run
                                                  cystck-migrate, apply manual.patch
                                                  (build/ultrajson/cystck/port/); hpy_*: unpack,
                                                  apply hpy.patch (build/ultrajson/hpy/port/)
    python ports/ultrajson/recipe.py save-patch   after editing build/ultrajson/cystck/port/,
                                                  write the edits back into manual.patch
    python ports/ultrajson/recipe.py save-hpy-patch
                                                  after editing build/ultrajson/hpy/port/,
                                                  write the edits back into hpy.patch

The command line and the loop over variants are every port's
(portkit.Recipe).  Every step runs the ones before it, and each is cheap
when its inputs have not changed: the sdist is downloaded once into
.cache/ultrajson/, the translation and hpy.patch are redone from scratch
every time (a second), and a wheel is rebuilt only when the hash of its
inputs (sources, patch, flags, build scripts, Cystck runtime, hpy, Python
and setuptools versions) changes.  Paths are described in ujson_port.py.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from ports import portkit
from ports.ultrajson import ujson_port as port


def log(message: str) -> None:
    print(f"ultrajson: {message}", flush=True)


# ---------------------------------------------------------------------------
# fetch and unpack
# ---------------------------------------------------------------------------

def fetch() -> Path:
    """The sdist in the cache, downloaded with pip if absent; its sha256 is
    checked on every use, so a corrupt or substituted file never builds."""
    sdist = port.CACHE_DIR / port.SDIST_NAME
    if not sdist.is_file():
        port.CACHE_DIR.mkdir(parents=True, exist_ok=True)
        log(f"downloading ujson=={port.VERSION} (sdist) from PyPI")
        with tempfile.TemporaryDirectory(dir=port.CACHE_DIR) as tmp:
            # pip prepares the sdist's metadata after downloading it, in an
            # isolated build environment: that needs the index too.
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                 "--no-deps", "--no-binary", "ujson", "--dest", tmp, f"ujson=={port.VERSION}"],
                check=True)
            got = Path(tmp) / port.SDIST_NAME
            if not got.is_file():
                raise SystemExit(f"pip download did not produce {port.SDIST_NAME}: "
                                 + ", ".join(p.name for p in Path(tmp).iterdir()))
            check_hash(got)
            got.rename(sdist)
    check_hash(sdist)
    return sdist


def check_hash(path: Path) -> None:
    digest = port.sha256_of(path)
    if digest != port.SDIST_SHA256:
        raise SystemExit(f"{path}: sha256 {digest} does not match the pinned "
                         f"{port.SDIST_SHA256}; delete the file to download it again")


def unpack() -> Path:
    """build/ultrajson/upstream/ujson-6.1.0, unpacked from the checked sdist
    (again whenever the stamp does not name the pinned hash)."""
    sdist = fetch()
    target = port.UPSTREAM_DIR
    stamp = target.parent / "unpacked.stamp"
    if target.is_dir() and stamp.is_file() and stamp.read_text() == port.SDIST_SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix="unpack-"))
    try:
        with tarfile.open(sdist) as tar:
            tar.extractall(staging, filter="data")
        stamp.unlink(missing_ok=True)
        shutil.rmtree(target, ignore_errors=True)
        (staging / target.name).rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    stamp.write_text(port.SDIST_SHA256)
    return target


# ---------------------------------------------------------------------------
# translate
# ---------------------------------------------------------------------------

def translate() -> Path:
    """Run cystck-migrate on the Python-facing files, then apply
    manual.patch.  Leaves the translator's output in TRANSLATED_DIR, its
    report in build/ultrajson/cystck/migrate-report.json, and the final
    sources in PORT_SRC_DIR."""
    upstream = unpack()
    work = port.BUILD_ROOT / "cystck"
    work.mkdir(parents=True, exist_ok=True)
    # The translator sees exactly the migrated files, laid out as in the
    # sdist (it translates a whole directory and would otherwise walk the
    # vendored double-conversion too).
    inputs = work / "input"
    shutil.rmtree(inputs, ignore_errors=True)
    for rel in port.MIGRATED_FILES:
        (inputs / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(upstream / rel, inputs / rel)
    shutil.rmtree(port.TRANSLATED_DIR, ignore_errors=True)
    report = work / "migrate-report.json"
    command = [sys.executable, "-m", "cystck.migrate", str(inputs), "-o", str(port.TRANSLATED_DIR),
               "--report", str(report), "--no-cppcheck", "--quiet"]
    # Not from the repository root, whose cystck/ (the runtime sources,
    # without the translator) would shadow the installed package.
    result = subprocess.run(command, capture_output=True, text=True, cwd=work)
    if result.returncode != 0 or not port.TRANSLATED_DIR.is_dir():
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"cystck-migrate failed (exit status {result.returncode}): "
                         + " ".join(command))
    missing = [rel for rel in port.MIGRATED_FILES if not (port.TRANSLATED_DIR / rel).is_file()]
    if missing:
        raise SystemExit("cystck-migrate did not write " + ", ".join(missing))

    staging = Path(tempfile.mkdtemp(dir=work, prefix="port-"))
    try:
        for rel in port.MIGRATED_FILES:
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(port.TRANSLATED_DIR / rel, staging / rel)
        apply_patch(staging)
        shutil.rmtree(port.PORT_SRC_DIR, ignore_errors=True)
        staging.rename(port.PORT_SRC_DIR)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return port.PORT_SRC_DIR


def apply_patch(tree: Path, patch_file: Path = port.MANUAL_PATCH) -> None:
    text = patch_file.read_text() if patch_file.is_file() else ""
    if not text.strip():
        return
    result = subprocess.run(
        ["patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "--reject-file=-",
         "-d", str(tree), "-i", str(patch_file)],
        capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        if patch_file == port.HPY_PATCH:
            raise SystemExit("hpy.patch does not apply to the sdist's files: edit "
                             "build/ultrajson/hpy/port/, then run "
                             "`python ports/ultrajson/recipe.py save-hpy-patch`.")
        raise SystemExit(
            "manual.patch does not apply to the translator's output (the translator changed?).\n"
            "Edit build/ultrajson/cystck/port/ by hand from build/ultrajson/cystck/translated/, "
            "then run `python ports/ultrajson/recipe.py save-patch`.")


# ---------------------------------------------------------------------------
# the HPy port
# ---------------------------------------------------------------------------

def prepare_hpy() -> Path:
    """The sdist's MIGRATED_FILES with hpy.patch applied, in HPY_SRC_DIR
    (redone from scratch every time): the sources of both HPy variants."""
    upstream = unpack()
    port.HPY_SRC_DIR.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=port.HPY_SRC_DIR.parent, prefix="port-"))
    try:
        for rel in port.MIGRATED_FILES:
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(upstream / rel, staging / rel)
        apply_patch(staging, port.HPY_PATCH)
        shutil.rmtree(port.HPY_SRC_DIR, ignore_errors=True)
        staging.rename(port.HPY_SRC_DIR)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return port.HPY_SRC_DIR


def save_hpy_patch() -> None:
    """Write hpy.patch from the difference between the sdist's files and the
    hand-edited build/ultrajson/hpy/port/ (GNU diff: the smallest hunks)."""
    if not port.HPY_SRC_DIR.is_dir():
        raise SystemExit("nothing to save: run `recipe.py prepare --variants hpy_cpython` "
                         "first, then edit "
                         f"{port.HPY_SRC_DIR.relative_to(port.REPO_ROOT)}")
    chunks = []
    for rel in port.MIGRATED_FILES:
        result = subprocess.run(
            ["diff", "-u", "--label", f"a/{rel}", "--label", f"b/{rel}",
             str(port.UPSTREAM_DIR / rel), str(port.HPY_SRC_DIR / rel)],
            capture_output=True, text=True)
        if result.returncode > 1:
            raise SystemExit(f"diff failed on {rel}: {result.stderr}")
        chunks.append(result.stdout)
    text = "".join(chunks)
    port.HPY_PATCH.write_text(text)
    added, removed = patch_size(text)
    log(f"wrote {port.HPY_PATCH.relative_to(port.REPO_ROOT)}: +{added} -{removed} lines")


def patch_size(text: str) -> tuple[int, int]:
    """(added, removed) lines of a unified diff."""
    lines = text.splitlines()
    added = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
    removed = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
    return added, removed


def unified_diff(old_root: Path, new_root: Path, rels) -> str:
    """A patch -p1 diff of the files ``rels`` between two trees."""
    chunks = []
    for rel in rels:
        old = (old_root / rel).read_text().splitlines(keepends=True)
        new = (new_root / rel).read_text().splitlines(keepends=True)
        for line in difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}", n=3):
            chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(chunks)


def save_patch() -> None:
    """Write manual.patch from the difference between the translator's
    output and the hand-edited port tree."""
    if not port.TRANSLATED_DIR.is_dir() or not port.PORT_SRC_DIR.is_dir():
        raise SystemExit("nothing to save: run `recipe.py prepare --variants cystck` first, "
                         "then edit "
                         f"{port.PORT_SRC_DIR.relative_to(port.REPO_ROOT)}")
    text = unified_diff(port.TRANSLATED_DIR, port.PORT_SRC_DIR, port.MIGRATED_FILES)
    port.MANUAL_PATCH.write_text(text)
    added, removed = patch_size(text)
    log(f"wrote {port.MANUAL_PATCH.relative_to(port.REPO_ROOT)}: +{added} -{removed} lines")


# ---------------------------------------------------------------------------
# wheels
# ---------------------------------------------------------------------------

def input_signature(variant: str) -> str:
    """Hash of everything the variant's wheel is built from."""
    signature = portkit.InputSignature()
    signature.add("variant", variant.encode())
    signature.add("python", sys.version.encode())
    signature.add("setuptools", importlib.metadata.version("setuptools").encode())
    signature.add("flags", repr((port.DEFINE_MACROS, port.EXTRA_COMPILE_ARGS,
                                 port.EXTRA_LINK_ARGS)).encode())
    signature.add("sdist", port.SDIST_SHA256.encode())
    tree = port.source_tree(variant)
    for rel in port.MIGRATED_FILES:
        signature.add(rel, (tree / rel).read_bytes())
    for script in ("setup_ujson.py", "ujson_port.py"):
        signature.add(script, (port.PORT_DIR / script).read_bytes())
    if variant == "cystck":
        import cystck
        runtime = [Path(s) for s in cystck.get_sources()]
        runtime += sorted(p for p in Path(cystck.get_include()).rglob("*") if p.is_file())
        runtime += sorted(p for p in Path(cystck.get_source_dir()).rglob("*.h"))
        for path in runtime:
            signature.add(path.name, path.read_bytes())
    if variant in port.HPY_ABI:
        signature.add("hpy", importlib.metadata.version("hpy").encode())
    return signature.hexdigest()


def build_wheel(variant: str, force: bool) -> bool:
    """Build the variant's wheel unless it is up to date; True if built."""
    signature = input_signature(variant)
    signature_file = port.BUILD_ROOT / variant / "build.signature"
    if not force and portkit.is_up_to_date(signature_file, signature, port.wheel_path(variant)):
        return False
    signature_file.unlink(missing_ok=True)
    # A clean build folder every time: stale objects from another flag set
    # or source must never be reused.
    workdir = port.BUILD_ROOT / variant / "setup"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    dist_dir = port.DIST_ROOT / variant
    dist_dir.mkdir(parents=True, exist_ok=True)
    old = port.wheel_path(variant)
    if old is not None:
        old.unlink()
    command = [sys.executable, str(port.PORT_DIR / "setup_ujson.py"), variant,
               str(port.source_tree(variant)), "bdist_wheel", "--dist-dir", str(dist_dir)]
    build_log = port.BUILD_ROOT / variant / "build.log"
    with open(build_log, "w") as out:
        out.write("$ " + " ".join(command) + "\n")
        out.flush()
        result = subprocess.run(command, cwd=workdir, stdout=out, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        sys.stderr.write(build_log.read_text()[-20000:])
        raise SystemExit(f"{variant}: build failed (log: {build_log})")
    # Warnings from our own (migrated) files are worth seeing; the vendored
    # C++ is upstream's business.
    for line in build_log.read_text().splitlines():
        if ("warning:" in line and "double-conversion" not in line
                and "byte-compiling is disabled" not in line):
            print(f"  {variant}: {line}")
    shutil.rmtree(workdir, ignore_errors=True)
    if port.wheel_path(variant) is None:
        raise SystemExit(f"{variant}: the build produced no ujson wheel in {dist_dir}")
    signature_file.write_text(signature)
    return True


class UltraJSONRecipe(portkit.Recipe, port=port):
    save_patch = staticmethod(save_patch)
    save_hpy_patch = staticmethod(save_hpy_patch)

    def prepare(self, variant: str) -> Path:
        if variant == "cystck":
            return translate()
        if variant in port.HPY_ABI:
            return prepare_hpy()
        return unpack()

    def build_one(self, variant: str, force: bool, prepare: bool) -> bool:
        """Prepare one variant's sources, build (or keep) its wheel and
        install it for the tests."""
        if prepare:
            self.prepare(variant)
        # The run-time requirements, for the fresh-venv test's offline install.
        portkit.fill_wheelhouse(port.RUNTIME_REQUIRES.get(variant, ()), port.WHEELHOUSE)
        built = build_wheel(variant, force)
        port.ensure_site(variant)
        return built


if __name__ == "__main__":
    UltraJSONRecipe().main()
