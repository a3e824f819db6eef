"""What every port shares: the recipe interface (Recipe: the command line,
the loop over variants, the up-to-date check of a wheel), hashing files,
installing a variant's wheel into a site folder of its own, and running
code in a fresh interpreter that sees that one variant.

Every variant of a port installs under the same import name (`ujson`,
`kiwisolver`, `piconumpy`), so tests and benchmarks run one interpreter per
variant with that variant's site first on the path.  The port modules
(`ultrajson/ujson_port.py`, `kiwi/kiwi_port.py`,
`piconumpy/piconumpy_variants.py`) import this one as `ports.portkit`;
each keeps its own paths, names and messages.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import importlib.metadata
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class InputSignature:
    """A hash of everything a variant's wheel is built from: the recipes add
    each input under a label, and rebuild when the hash differs from the one
    stored with the wheel (make's timestamps cannot see a tool upgraded in
    the venv or a translator that writes other output).  Every input is
    framed by its label and length, so bytes moved from one input to the
    next change the hash."""

    def __init__(self) -> None:
        self._digest = hashlib.sha256()

    def add(self, label: str, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode()
        self._digest.update(f"{label}\0{len(data)}\0".encode())
        self._digest.update(data)

    def hexdigest(self) -> str:
        return self._digest.hexdigest()


def check_requirements(requirements: tuple[str, ...], what: str) -> None:
    """RuntimeError unless this interpreter has every `name==version` of
    `requirements` (what `what`, a wheel, needs at run time).  A site holds
    its wheel alone; the interpreter that imports it supplies the rest."""
    for requirement in requirements:
        name, _, version = requirement.partition("==")
        try:
            found = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found = None
        if found != version:
            raise RuntimeError(
                f"{what} needs {requirement} at run time, and {sys.executable} has "
                f"{f'{name} {found}' if found else f'no {name}'}: install {requirement} "
                f"into it (the project's venv has it)")


def fill_wheelhouse(requirements, wheelhouse: Path, *, deps: bool = True,
                    env: dict | None = None) -> None:
    """Wheels of `requirements` (and of theirs, unless `deps` is false) in
    the folder `wheelhouse`, for offline installs: offline first, so that
    when the wheels are there already no index is asked; else downloaded.
    `env` is pip's environment (default: this process's).  SystemExit if the
    download fails."""
    requirements = [str(r) for r in requirements]
    if not requirements:
        return
    wheelhouse.mkdir(parents=True, exist_ok=True)
    download = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                "--only-binary=:all:", *([] if deps else ["--no-deps"]),
                "--dest", str(wheelhouse), *requirements]
    offline = subprocess.run(download + ["--no-index", "--find-links", str(wheelhouse)],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if offline.returncode != 0 and subprocess.run(download, env=env).returncode != 0:
        raise SystemExit(f"could not download {', '.join(requirements)} into {wheelhouse}")


def single_wheel(folder: Path, pattern: str, what: str) -> Path | None:
    """The one wheel in `folder` matching `pattern`, or None if there is
    none.  RuntimeError if there are several: the recipes remove the old
    wheel before building, so several mean something else wrote there and
    nobody can tell which one is meant.  `what` names them in the message."""
    wheels = sorted(folder.glob(pattern))
    if len(wheels) > 1:
        raise RuntimeError(f"several {what} wheels in {folder}: "
                           + ", ".join(w.name for w in wheels))
    return wheels[0] if wheels else None


def install_site(wheel: Path, site: Path) -> Path:
    """Install `wheel` (without dependencies) into the folder `site`, again
    whenever the wheel changes (tracked by its hash), so that a rebuilt
    wheel is never shadowed by a stale tree.

    One installer at a time per site (tests, benchmarks and builds may run
    side by side), and the install goes to a staging folder renamed into
    place, so an interrupted install never leaves a half-filled site behind
    a valid stamp."""
    site.parent.mkdir(parents=True, exist_ok=True)
    with open(site.parent / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp_text = f"{wheel.name} {sha256_of(wheel)}\n"
        stamp = site.parent / "site.stamp"
        if site.is_dir() and stamp.is_file() and stamp.read_text() == stamp_text:
            return site
        staging = site.parent / f"site.tmp-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--no-index", "--no-deps", "--no-compile", "--target", str(staging), str(wheel)],
            check=True)
        stamp.unlink(missing_ok=True)
        shutil.rmtree(site, ignore_errors=True)
        staging.rename(site)
        stamp.write_text(stamp_text)
    return site


# Prepended to the code of site_command(): puts the site first on sys.path,
# imports the module and checks that it came from there, not from a copy in
# the environment (matplotlib, for one, depends on kiwisolver).
_BOOTSTRAP = """\
import os, sys
_site = sys.argv.pop(1)
sys.path.insert(0, _site)
import {module}
if not os.path.abspath({module}.__file__).startswith(os.path.join(_site, "")):
    raise SystemExit("{module} imported from %s, not from %s" % ({module}.__file__, _site))
"""


def site_command(site: Path, module: str, code: str, *args: str,
                 python: str = sys.executable) -> list[str]:
    """A command running `code` in a fresh interpreter that imports `module`
    from `site` (bound to that name; `sys.argv[1:]` is `args`).  The
    interpreter is isolated (-I): neither PYTHONPATH, the user site nor the
    current directory can put another copy first."""
    return [python, "-I", "-c", _BOOTSTRAP.format(module=module) + code, str(site), *args]


def describe_exit(result: subprocess.CompletedProcess, tail: int | None = None) -> str:
    """How a process ended (its exit status, or the signal that killed it)
    and its output, the last `tail` characters of each stream if given:
    the message of a test that ran a variant and failed."""
    if result.returncode < 0:
        how = f"crashed with {signal.Signals(-result.returncode).name}"
    else:
        how = f"exited with status {result.returncode}"
    stdout, stderr = result.stdout, result.stderr
    if tail is not None:
        stdout, stderr = stdout[-tail:], stderr[-tail:]
    return f"{how}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"


def callgrind_instructions(command: list[str], out: str | Path = os.devnull, *,
                           env: dict | None = None, timeout: float | None = None) -> int:
    """The instructions valgrind's callgrind counts running `command` (its
    profile written to `out`); RuntimeError, with the end of valgrind's
    output, if the run fails or reports no count.

    `command` runs once first without valgrind, uncounted: a process that
    imports a module whose bytecode is not cached yet compiles it and
    writes __pycache__, tens of millions of instructions that only the
    first process of a fresh tree pays (a per-repeat count taken as the
    difference of two processes was off by 9% when one of them did)."""
    try:
        subprocess.run(command, capture_output=True, env=env, timeout=timeout)
    except OSError:
        pass    # no such program: valgrind's run below reports it
    result = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
        capture_output=True, text=True, env=env, timeout=timeout)
    found = re.search(r"Collected : (\d+)", result.stderr)
    if result.returncode != 0 or found is None:
        raise RuntimeError(f"callgrind run failed (exit status {result.returncode}):\n"
                           f"{result.stderr[-4000:]}")
    return int(found.group(1))


def build_variants(port: str, variants, build_one, *, error_file, wheel_path,
                   repo_root: Path, failure_message=str, log=print) -> None:
    """Build each variant with `build_one(variant)` (True if it built, False
    if its wheel was up to date; SystemExit, RuntimeError or
    CalledProcessError if it failed).  A failed variant does not stop the
    others: its reason, `failure_message(variant, exc)`, stays in
    `error_file(variant)` until it builds again, and SystemExit names every
    failed variant at the end."""
    failed = []
    for variant in variants:
        start = time.perf_counter()
        errors = error_file(variant)
        try:
            built = build_one(variant)
        except (SystemExit, RuntimeError, subprocess.CalledProcessError) as exc:
            errors.parent.mkdir(parents=True, exist_ok=True)
            errors.write_text(f"{failure_message(variant, exc)}\n")
            log(f"{variant:<13} FAILED: {exc}")
            failed.append(variant)
            continue
        errors.unlink(missing_ok=True)
        status = f"built in {time.perf_counter() - start:.1f} s" if built else "up to date"
        log(f"{variant:<13} {wheel_path(variant).relative_to(repo_root)} ({status})")
    if failed:
        raise SystemExit(f"{port}: the {', '.join(failed)} build failed (see above)")


def is_up_to_date(signature_file: Path, signature: str, wheel: Path | None) -> bool:
    """True if `wheel` exists and was built from the inputs whose hash is
    `signature` (stored in `signature_file` by the build that made it)."""
    return (wheel is not None and signature_file.is_file()
            and signature_file.read_text() == signature)


class Recipe:
    """A port's recipe: how the wheels of its variants are made from its
    pinned sources and its patches.  Each port's recipe.py subclasses it
    with its own steps and runs `main()`, so every port has one command line:

        python ports/<port>/recipe.py wheels [--variants V,...] [--force] [--no-prepare]
        python ports/<port>/recipe.py prepare [--variants V,...]
        python ports/<port>/recipe.py save-patch
        python ports/<port>/recipe.py save-hpy-patch     (ports with an hpy.patch)

    `wheels` prepares each variant's sources (translated by cystck-migrate
    and patched with manual.patch, or patched with hpy.patch, or the release
    as is), builds its wheel into dist/<variant>/ unless it is up to date
    and installs it for the tests; a failed variant does not stop the others
    (build_variants).  The maintainer's loop for the residual patch: `prepare`,
    edit the prepared tree, `wheels --no-prepare` and test, `save-patch`.

    A port's subclass names its variant module, `class R(Recipe,
    port=module)`, which gives `name` (the port's folder), `variants`,
    `repo_root`, `manual_patch`, `hpy_patch` (None without one),
    wheel_path() and build_error_file() (see __init_subclass__); the
    subclass implements prepare(), build_one() and save_patch()
    (save_hpy_patch() with an hpy.patch); it may override
    failure_message() and log().  The port's pins and paths stay in its
    variant module, its workloads in workloads.py, its tests in tests/.
    """

    name: str
    variants: tuple[str, ...]
    repo_root: Path
    manual_patch: Path
    hpy_patch: Path | None = None

    def __init_subclass__(cls, port=None, **kwargs):
        """Bind what the variant module `port` defines: PORT_DIR (whose
        name is the port's), VARIANTS, REPO_ROOT, MANUAL_PATCH, HPY_PATCH
        (optional), wheel_path() and build_error_file()."""
        super().__init_subclass__(**kwargs)
        if port is None:
            return
        cls.name = port.PORT_DIR.name
        cls.variants = tuple(port.VARIANTS)
        cls.repo_root = port.REPO_ROOT
        cls.manual_patch = port.MANUAL_PATCH
        cls.hpy_patch = getattr(port, "HPY_PATCH", None)
        cls.wheel_path = staticmethod(port.wheel_path)
        cls.build_error_file = staticmethod(port.build_error_file)

    def wheel_path(self, variant: str) -> Path | None:
        raise NotImplementedError

    def build_error_file(self, variant: str) -> Path:
        raise NotImplementedError

    def prepare(self, variant: str) -> Path:
        """The variant's sources, made afresh; returns their folder."""
        raise NotImplementedError

    def build_one(self, variant: str, force: bool, prepare: bool) -> bool:
        """Build the variant's wheel (its sources prepared first unless
        `prepare` is false) unless it is up to date, and install it for the
        tests; True if built."""
        raise NotImplementedError

    def save_patch(self) -> None:
        """Write manual.patch from the hand-edited tree of the cystck variant."""
        raise NotImplementedError

    def save_hpy_patch(self) -> None:
        """Write hpy.patch from the hand-edited tree of the HPy variants."""
        raise NotImplementedError

    def failure_message(self, variant: str, exc: BaseException) -> str:
        return str(exc)

    def log(self, line: str) -> None:
        print(f"{self.name}: {line}", flush=True)

    def wheels(self, variants, force: bool = False, prepare: bool = True) -> None:
        build_variants(self.name, variants,
                       lambda variant: self.build_one(variant, force, prepare),
                       error_file=self.build_error_file, wheel_path=self.wheel_path,
                       repo_root=self.repo_root,
                       failure_message=self.failure_message, log=self.log)

    def main(self, argv=None) -> None:
        parser = argparse.ArgumentParser(
            prog=f"python ports/{self.name}/recipe.py",
            description=f"Build the {', '.join(self.variants)} wheels of the {self.name} port.")
        sub = parser.add_subparsers(dest="command", required=True)
        wheels = sub.add_parser("wheels", help="prepare, build and install the wheels")
        wheels.add_argument("--force", action="store_true", help="rebuild up-to-date wheels too")
        wheels.add_argument("--no-prepare", action="store_true",
                            help="build the prepared (hand-edited) sources as they are")
        prepare = sub.add_parser("prepare", help="only prepare the variants' sources")
        for command in (wheels, prepare):
            command.add_argument("--variants", default=",".join(self.variants),
                                 help="comma-separated (default: %(default)s)")
        sub.add_parser("save-patch", help=f"write {self.manual_patch.name} from the "
                                          "hand-edited cystck tree")
        if self.hpy_patch is not None:
            sub.add_parser("save-hpy-patch", help=f"write {self.hpy_patch.name} from the "
                                                  "hand-edited HPy tree")
        args = parser.parse_args(argv)
        if args.command == "save-patch":
            self.save_patch()
            return
        if args.command == "save-hpy-patch":
            self.save_hpy_patch()
            return
        variants = [v.strip() for v in args.variants.split(",") if v.strip()]
        unknown = sorted(set(variants) - set(self.variants))
        if unknown:
            parser.error(f"unknown variant(s) {', '.join(unknown)}; "
                         f"known: {', '.join(self.variants)}")
        if args.command == "prepare":
            for variant in variants:
                tree = self.prepare(variant)
                self.log(f"{variant:<13} {tree.relative_to(self.repo_root)}")
        else:
            self.wheels(variants, args.force, prepare=not args.no_prepare)
