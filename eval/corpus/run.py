"""The porting corpus: pinned PyPI extensions, each built and tested as
released (stock), translated by cystck-migrate, built untouched with
Cystck and tested again, in release and in debug mode.

    python eval/corpus/run.py                       every recipe, full test suites
    python eval/corpus/run.py --quick               the quick run (recipes.QUICK, their quick_tests)
    python eval/corpus/run.py --only crc32c,lz4     these recipes
    python eval/corpus/run.py --only lz4 --update   measure these again in the results
    python eval/corpus/run.py --report-only         rewrite the Markdown from the JSON

Writes eval/results/corpus.json and eval/report/corpus.md (a quick or
partial run writes build/corpus/corpus-<mode>.json and .md instead, so the
measured results are never overwritten by a check).  The recipes are data
(recipes.py); this file is the one pipeline they all go through.  One
extension failing at any step is recorded with its error and the run goes
on; the exit status is 0 whenever every extension was attempted.

Layout, under build/corpus/<name>/:
    upstream/       the unpacked sdist (never modified)
    deps/           the recipe's build and test requirements (pip --target)
    stock/          a copy of upstream, built in place, tested
    migrate/        input/ (the files to translate), output/, report.json
    cystck/         a copy of upstream with the translator's output over it,
                    built in place through cystck_setup.py, tested
    logs/           the output of every command
The sdists are cached in .cache/corpus/<name>/, checked against the pinned
sha256 on every use.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import importlib.machinery
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
# corpus_report and recipes are beside this script (first on sys.path).
import corpus_report  # noqa: E402
import recipes  # noqa: E402
from ports import portkit  # noqa: E402

SCHEMA = "cystck-corpus/1"
BUILD_ROOT = REPO_ROOT / "build" / "corpus"
CACHE_ROOT = REPO_ROOT / ".cache" / "corpus"
PATCHES_DIR = HERE / "patches"
PYPROJECT_SETUP = HERE / "pyproject" / "setup.py"
RESULTS_FILE = REPO_ROOT / "eval" / "results" / "corpus.json"
REPORT_FILE = REPO_ROOT / "eval" / "report" / "corpus.md"
# The translator's marks (migrate/rules/escape.py's MARK and KEPT_MARK; the
# installed translator is not importable from here, a test keeps them equal).
# Each marked spot, a stock call kept with its handles lent and its result
# given a handle, counts once however many handles it lends; a file kept
# stock as a whole counts once (its first line's mark).
ESCAPE_MARK = "/* cystck-migrate: escape hatch */"
KEPT_STOCK_MARK = "/* cystck-migrate: kept stock */"
ESCAPE_HATCH = re.compile(re.escape(ESCAPE_MARK) + "|" + re.escape(KEPT_STOCK_MARK))
# A compiler's diagnostic ("file.c:12:5: error: ..."), counted; other lines
# naming an error (setup.py's, the linker's) are kept to show, not counted.
DIAGNOSTIC = re.compile(r":\d+(?::\d+)?: (?:fatal )?error:")
API_NAME = re.compile(r"\b_?(?:Py|Cystck)[A-Za-z_]")
ERROR_LINE = re.compile(r"\berror\b", re.IGNORECASE)
KEPT_ERRORS = 20


def log(message: str) -> None:
    print(f"corpus: {message}", flush=True)


class StepFailed(Exception):
    """A step of one extension failed; the message says why."""


# ---------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------

def run_logged(command, *, cwd: Path, log_file: Path, env=None, timeout=None):
    """Run `command`, its output (stdout and stderr) into `log_file`:
    (exit status, output, seconds).  A timeout is exit status None."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    full_env = {**os.environ, **(env or {})}
    with open(log_file, "w") as out:
        out.write("$ " + " ".join(str(c) for c in command) + "\n")
        out.flush()
        try:
            status = subprocess.run([str(c) for c in command], cwd=cwd, env=full_env, stdout=out,
                                    stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            status = None
    return status, log_file.read_text(errors="replace"), time.perf_counter() - start


def error_lines(output: str) -> list[str]:
    """The compiler's and setup.py's error lines of a build log."""
    return [ln.strip() for ln in output.splitlines()
            if ERROR_LINE.search(ln) and not ln.startswith("$ ")
            and "-Werror" not in ln and "Wno-error" not in ln]


def error_kind(line: str) -> str:
    """A compiler diagnostic without its place and the extension's own
    names, so that errors of one cause group together; names of the API
    (Py..., _Py..., Cystck...) stay, they say which construct failed:
    "f.c:3:7: error: 'x' undeclared" -> "'_' undeclared"."""
    message = DIAGNOSTIC.split(line, maxsplit=1)[-1].strip()
    message = re.sub(r"[‘']([^’']*)[’']", _api_name_or_blank, message)
    return re.sub(r"\b\d+\b", "N", message)


def _api_name_or_blank(quoted: re.Match) -> str:
    text = quoted.group(1)
    keep = (API_NAME.search(text) and len(text) <= 60) or text == "S"  # S: the Cystck state
    return f"'{text}'" if keep else "'_'"


def error_kinds(errors: list[str]) -> dict[str, int]:
    """How many compiler diagnostics of each kind, the commonest first."""
    counts = collections.Counter(error_kind(ln) for ln in errors if DIAGNOSTIC.search(ln))
    return dict(counts.most_common())


def shown(path: Path) -> str:
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------------
# sdist, unpacking, requirements
# ---------------------------------------------------------------------------

def fetch(recipe, cache_root: Path = CACHE_ROOT) -> Path:
    """The pinned sdist from the cache, downloaded with pip if absent.  Its
    sha256 is checked on every use, so a substituted file never builds."""
    cache = cache_root / recipe.name
    for candidate in sorted(cache.glob("*")) if cache.is_dir() else []:
        if candidate.is_file() and portkit.sha256_of(candidate) == recipe.sha256:
            return candidate
    cache.mkdir(parents=True, exist_ok=True)
    log(f"{recipe.name}: downloading {recipe.requirement} (sdist) from PyPI")
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
             "--no-deps", "--no-binary", ":all:", "--dest", tmp, recipe.requirement], check=True)
        for got in Path(tmp).iterdir():
            digest = portkit.sha256_of(got)
            if digest != recipe.sha256:
                raise StepFailed(f"{got.name}: sha256 {digest} is not the pinned {recipe.sha256}")
            return got.rename(cache / got.name)
    raise StepFailed(f"pip download {recipe.requirement} produced no file")


def unpack(sdist: Path, target: Path) -> Path:
    """The sdist's top folder, unpacked afresh into `target`."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    with tarfile.open(sdist) as tar:
        tar.extractall(target, filter="data")
    tops = [p for p in target.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise StepFailed(f"{sdist.name}: expected one top folder, found {len(tops)}")
    return tops[0]


def install_requirements(recipe, work: Path) -> Path:
    """The recipe's build and test requirements, installed without their
    dependencies into work/deps (once per list): never the extension itself,
    whose installed copy could stand in for the build under test."""
    deps = work / "deps"
    wanted = "\n".join(recipe.requirements) + "\n"
    stamp = work / "deps.stamp"
    if deps.is_dir() and stamp.is_file() and stamp.read_text() == wanted:
        return deps
    shutil.rmtree(deps, ignore_errors=True)
    deps.mkdir(parents=True)
    if recipe.requirements:
        status, output, _ = run_logged(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--no-deps", "--target", deps, *recipe.requirements],
            cwd=work, log_file=work / "logs" / "deps.log")
        if status != 0:
            raise StepFailed("installing " + ", ".join(recipe.requirements) + " failed: "
                             + output.strip().splitlines()[-1])
    stamp.write_text(wanted)
    return deps


def environment(recipe, tree: Path, deps: Path, extra=None) -> dict:
    """What a build or test of `tree` runs with: the recipe's variables, the
    tree's import root and the requirements on the path."""
    # The probe plugin's folder holds it alone: nothing else of ours can
    # shadow a module of the tests.
    path = [tree / recipe.import_root, deps, HERE / "probe"]
    return {**recipe.env, **(extra or {}),
            "PYTHONPATH": os.pathsep.join(str(p) for p in path),
            "PYTHONDONTWRITEBYTECODE": "1"}


# ---------------------------------------------------------------------------
# build and test
# ---------------------------------------------------------------------------

def built_modules(recipe, tree: Path) -> dict[str, str | None]:
    """Each compiled module of the recipe: the shared library built for it
    under the tree's import root, or None."""
    found = {}
    for module in recipe.compiled:
        stem = tree / recipe.import_root / Path(*module.split("."))
        found[module] = next((shown(stem.with_name(stem.name + suffix))
                              for suffix in importlib.machinery.EXTENSION_SUFFIXES
                              if stem.with_name(stem.name + suffix).is_file()), None)
    return found


def setup_script(tree: Path):
    """The tree's setup.py, or for an sdist without one (its extensions in
    pyproject.toml) the stand-in that only calls setup()."""
    return "setup.py" if (tree / "setup.py").is_file() else PYPROJECT_SETUP


def build(recipe, tree: Path, deps: Path, logs: Path, *, cystck: bool, label: str = "") -> dict:
    """Build the tree's extensions in place: stock with its own setup.py,
    Cystck through cystck_setup.py.  The build counts as done only if every
    compiled module of the recipe is there afterwards."""
    command = [sys.executable]
    extra = {}
    if cystck:
        command.append(HERE / "cystck_setup.py")
        extra["CORPUS_CYSTCK_EXTENSIONS"] = ",".join(recipe.extensions)
    command += [setup_script(tree), "build_ext", "--inplace"]
    log_file = logs / f"build-{label or ('cystck' if cystck else 'stock')}.log"
    status, output, seconds = run_logged(
        command, cwd=tree, env=environment(recipe, tree, deps, extra),
        log_file=log_file, timeout=recipe.build_timeout)
    modules = built_modules(recipe, tree)
    errors = error_lines(output)
    ok = status == 0 and all(modules.values())
    result = {"ok": ok, "exit_status": status, "seconds": round(seconds, 1), "modules": modules,
              "log": shown(log_file)}
    if not ok:
        missing = [m for m, path in modules.items() if path is None]
        result["error_count"] = sum(1 for ln in errors if DIAGNOSTIC.search(ln))
        result["error_kinds"] = error_kinds(errors)
        result["errors"] = errors[:KEPT_ERRORS] or output.strip().splitlines()[-KEPT_ERRORS:]
        result["reason"] = ("timed out" if status is None else
                            f"exit status {status}" if status else
                            "not built: " + ", ".join(missing))
    return result


def run_tests(recipe, tree: Path, deps: Path, logs: Path, label: str, *, quick: bool,
              debug: bool = False) -> dict:
    """The upstream tests of the tree, under pytest with corpus_probe: the
    outcome counts and whether each compiled module was imported from the
    tree's shared library."""
    probe_out = logs / f"probe-{label}.json"
    probe_out.unlink(missing_ok=True)
    extra = {"CORPUS_PROBE_OUT": str(probe_out), "CORPUS_TREE": str(tree),
             "CORPUS_COMPILED": ",".join(recipe.compiled)}
    if debug:
        extra["CYSTCK_DEBUG"] = "1"
    tests = recipe.quick_tests if quick and recipe.quick_tests else recipe.tests
    command = [sys.executable, "-m", "pytest", "-q", "-p", "corpus_probe", "-p", "no:cacheprovider",
               *recipe.pytest_args, *tests]
    status, output, seconds = run_logged(command, cwd=tree, env=environment(recipe, tree, deps, extra),
                                         log_file=logs / f"tests-{label}.log",
                                         timeout=recipe.test_timeout)
    result = {"tests": list(tests), "exit_status": status, "seconds": round(seconds, 1),
              "log": shown(logs / f"tests-{label}.log")}
    if not probe_out.is_file():
        tail = output.strip().splitlines()[-KEPT_ERRORS:]
        result.update(finished=False, reason="timed out" if status is None else
                      f"the session did not finish (exit status {status})", output_tail=tail)
        return result
    probe = json.loads(probe_out.read_text())
    counts = probe["outcomes"]
    result.update(finished=True,
                  passed=counts.get("passed", 0),
                  failed=counts.get("failed", 0) + counts.get("error", 0)
                  + counts.get("collection_error", 0) + counts.get("xpassed", 0)
                  + counts.get("subtest_failed", 0),
                  skipped=counts.get("skipped", 0) + counts.get("xfailed", 0),
                  outcomes=counts, modules=probe["modules"],
                  compiled_imported=bool(probe["modules"]) and all(
                      m["compiled"] for m in probe["modules"].values()))
    if result["failed"]:
        result["failures"] = [ln for ln in output.splitlines()
                              if ln.startswith(("FAILED ", "ERROR "))][:KEPT_ERRORS]
    return result


# ---------------------------------------------------------------------------
# translation
# ---------------------------------------------------------------------------

def stage_inputs(recipe, upstream: Path, inputs: Path) -> dict[str, int]:
    """Copy the recipe's files to translate into `inputs`, laid out as in
    the sdist; return the line count of each one that uses the Python API
    (the lines the translator is responsible for)."""
    from cystck.migrate.translate import SOURCE_SUFFIXES, uses_python
    shutil.rmtree(inputs, ignore_errors=True)
    lines = {}
    for rel in recipe.translate:
        src = upstream / rel
        if not src.exists():
            raise StepFailed(f"{rel}: not in the sdist")
        files = [src] if src.is_file() else sorted(p for p in src.rglob("*") if p.is_file())
        for f in files:
            target = inputs / f.relative_to(upstream)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
            if f.suffix in SOURCE_SUFFIXES:
                text = f.read_text(errors="replace")
                if uses_python(text):
                    lines[f.relative_to(upstream).as_posix()] = text.count("\n")
    return lines


def escape_hatches(output: Path, input_lines: dict) -> list[str]:
    """Every use of the escape hatch in the translated files, as file:line."""
    found = []
    for rel in sorted(input_lines):
        f = output / rel
        if not f.is_file():
            continue
        for number, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            found += [f"{rel}:{number}"] * len(ESCAPE_HATCH.findall(line))
    return found


def kept_stock_lines(output: Path, input_lines: dict) -> int:
    """The lines of the files the translator kept stock as a whole (one
    escape hatch each, however long): the part of the extension that does
    not use Cystck at all."""
    return sum(n for rel, n in input_lines.items()
               if (output / rel).is_file()
               and (output / rel).read_text(errors="replace").startswith(KEPT_STOCK_MARK))


def translator_cpu_seconds(inputs: Path, work: Path, timeout: float) -> float | None:
    """The CPU time (user + system) of translating `inputs` alone: no
    --check, no cppcheck, interpreter start-up included.  The report's
    wall-clock `seconds` grows with the machine's load; this does not."""
    scratch = work / "cpu-output"
    shutil.rmtree(scratch, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    status, _, _ = run_logged([sys.executable, "-m", "cystck.migrate", inputs, "-o", scratch,
                               "--no-cppcheck", "--quiet"], cwd=work,
                              log_file=work / "migrate-cpu.log", timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(scratch, ignore_errors=True)
    if status != 0:
        return None
    return round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 2)


def generated_includes(recipe, built: Path, work: Path) -> tuple[list[str], list[str]]:
    """The files the recipe's build generates (recipe.generated), copied from
    the tree `built` (the stock build, done before the translation) into
    work/generated, laid out as in the sdist: (the -I flags that let --check
    find them where the build will, the files the build did not write).  A
    missing one stays a --check error, as it would be in the build."""
    target = work / "generated"
    shutil.rmtree(target, ignore_errors=True)
    flags, missing = [], []
    for rel in recipe.generated:
        if not (built / rel).is_file():
            missing.append(rel)
            continue
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built / rel, target / rel)
        flag = f"-I{(target / rel).parent}"
        if flag not in flags:
            flags.append(flag)
    return flags, missing


def translate(recipe, upstream: Path, work: Path, built: Path | None = None) -> dict:
    """Run cystck-migrate --check on the recipe's sources; the files the
    build generates are taken from `built`, the stock build's tree."""
    inputs, output, report_file = work / "input", work / "output", work / "report.json"
    lines = stage_inputs(recipe, upstream, inputs)
    shutil.rmtree(output, ignore_errors=True)
    report_file.unlink(missing_ok=True)
    generated, not_generated = generated_includes(recipe, built or upstream, work)
    cflags = " ".join([recipe.cflags.format(output=output, upstream=upstream), *generated]).strip()
    command = [sys.executable, "-m", "cystck.migrate", inputs, "-o", output, "--report", report_file,
               "--check", "--no-cppcheck", "--quiet", f"--cflags={cflags}"]
    # Not from the repository root, whose cystck/ (the runtime sources,
    # without the translator) would shadow the installed package.
    status, out, seconds = run_logged(command, cwd=work, log_file=work / "migrate.log",
                                      timeout=recipe.build_timeout)
    result = {"exit_status": status, "wall_seconds": round(seconds, 2),
              "cpu_seconds": translator_cpu_seconds(inputs, work, recipe.build_timeout),
              "c_lines": sum(lines.values()), "files": len(lines), "log": shown(work / "migrate.log")}
    if recipe.generated:
        result["generated"] = {"from": shown(built or upstream), "files": list(recipe.generated),
                               "missing": not_generated}
    if status not in (0, 1) or not report_file.is_file():
        last = out.strip().splitlines()[-1] if out.strip() else "no output"
        result.update(ok=False, reason=f"exit status {status}: {last}")
        return result
    report = json.loads(report_file.read_text())
    check = report.get("check") or {"total": 0, "passed": 0, "failures": []}
    hatches = escape_hatches(output, lines)
    result.update(
        ok=True,
        seconds=report["seconds"],
        check_errors=sum(len(f["errors"]) for f in check["failures"]),
        check_files_failed=len(check["failures"]),
        check_files=check["total"],
        check_failures=[{"file": f["file"], "errors": len(f["errors"]), "first_error": f["errors"][0]}
                        for f in check["failures"]],
        leftovers=report["summary"]["leftovers"],
        leftover_list=[f"{n['file']}:{n['line']}: {n['message']}" for n in report["leftovers"]],
        warnings=report["summary"]["warnings"],
        transformations=report["summary"]["transformations"],
        escape_hatches=len(hatches),
        escape_hatch_list=hatches,
        escape_hatches_per_kloc=round(1000 * len(hatches) / max(sum(lines.values()), 1), 2),
        kept_stock_lines=kept_stock_lines(output, lines),
        report=shown(report_file))
    return result


def overlay(upstream: Path, translated: Path, tree: Path) -> None:
    """`tree` = a fresh copy of upstream with the translated files over it."""
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(upstream, tree, symlinks=True)
    for f in translated.rglob("*"):
        if f.is_file():
            target = tree / f.relative_to(translated)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)


# ---------------------------------------------------------------------------
# one extension, the whole run
# ---------------------------------------------------------------------------

def residual_patch(recipe, patches: Path) -> dict | None:
    """The extension's residual patch, `patches`/<name>.patch (a diff of the
    translator's output, -p1 from the sdist's top folder; its header says
    why each edit is needed), with its count of changed lines; None if the
    untouched output is all there is."""
    patch = patches / f"{recipe.name}.patch"
    if not patch.is_file():
        return None
    changed = [ln for ln in patch.read_text().splitlines()
               if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    return {"file": shown(patch), "lines": len(changed)}


def apply_patch(tree: Path, patch: Path) -> None:
    result = subprocess.run(
        ["patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "--reject-file=-",
         "-d", str(tree), "-i", str(patch)], capture_output=True, text=True)
    if result.returncode != 0:
        raise StepFailed(f"{shown(patch)} does not apply to the translator's output: "
                         + " | ".join((result.stdout + result.stderr).strip().splitlines()[-3:]))


def cystck_variant(recipe, upstream: Path, translated: Path, tree: Path, deps: Path, logs: Path,
                   label: str, *, quick: bool, patch: Path | None = None) -> dict:
    """The sdist with the translator's output over it (and `patch` applied,
    if given), built with Cystck and, if it built, tested in release and
    debug mode."""
    overlay(upstream, translated, tree)
    if patch is not None:
        try:
            apply_patch(tree, patch)
        except StepFailed as exc:
            return {"build": {"ok": False, "reason": str(exc), "errors": [str(exc)],
                              "error_count": 0}}
    log(f"{recipe.name}: {label} build")
    result = {"build": build(recipe, tree, deps, logs, cystck=True, label=label)}
    if result["build"]["ok"]:
        for mode, debug in (("release", False), ("debug", True)):
            log(f"{recipe.name}: {label} tests ({mode})")
            result[mode] = run_tests(recipe, tree, deps, logs, f"{label}-{mode}",
                                     quick=quick, debug=debug)
    return result


def run_one(recipe, *, quick: bool, build_root: Path = BUILD_ROOT,
            cache_root: Path = CACHE_ROOT, patches: Path = PATCHES_DIR) -> dict:
    """Every step for one recipe; a failed step is recorded and the steps
    that depend on it are skipped."""
    work = build_root / recipe.name
    logs = work / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    entry = {"requirement": recipe.requirement, "sha256": recipe.sha256,
             "language": recipe.language, "exercises": recipe.exercises,
             "stock_reference": dict(zip(("passed", "failed", "skipped"), recipe.stock_reference)),
             "residual_patch": residual_patch(recipe, patches)}
    start = time.perf_counter()
    try:
        sdist = fetch(recipe, cache_root)
        upstream = unpack(sdist, work / "upstream")
        deps = install_requirements(recipe, work)
    except (StepFailed, subprocess.CalledProcessError, OSError, tarfile.TarError) as exc:
        entry["setup_error"] = str(exc)
        log(f"{recipe.name}: setup failed: {exc}")
        return entry

    log(f"{recipe.name}: stock build")
    stock_tree = work / "stock"
    shutil.rmtree(stock_tree, ignore_errors=True)
    shutil.copytree(upstream, stock_tree, symlinks=True)
    stock = {"build": build(recipe, stock_tree, deps, logs, cystck=False)}
    if stock["build"]["ok"]:
        log(f"{recipe.name}: stock tests")
        stock["tests"] = run_tests(recipe, stock_tree, deps, logs, "stock", quick=quick)
    entry["stock"] = stock

    log(f"{recipe.name}: cystck-migrate")
    try:
        migrate = translate(recipe, upstream, work / "migrate", built=stock_tree)
    except StepFailed as exc:
        migrate = {"ok": False, "reason": str(exc)}
    entry["migrate"] = migrate
    if migrate["ok"]:
        translated = work / "migrate" / "output"
        entry["cystck"] = cystck_variant(recipe, upstream, translated, work / "cystck", deps, logs,
                                         "cystck", quick=quick)
        if entry["residual_patch"]:
            entry["patched"] = cystck_variant(recipe, upstream, translated, work / "patched", deps,
                                              logs, "patched", quick=quick,
                                              patch=patches / f"{recipe.name}.patch")
    entry["seconds"] = round(time.perf_counter() - start, 1)
    return entry


def without_machine_paths(value):
    """`value` with the repository's absolute path made relative, in every
    string: the committed results name files by repository paths."""
    prefix = str(REPO_ROOT) + os.sep
    if isinstance(value, str):
        return value.replace(prefix, "")
    if isinstance(value, list):
        return [without_machine_paths(v) for v in value]
    if isinstance(value, dict):
        return {k: without_machine_paths(v) for k, v in value.items()}
    return value


def git_commit() -> str | None:
    result = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT,
                            capture_output=True, text=True)
    return result.stdout.strip() or None


def run_all(selected, *, quick: bool, build_root: Path = BUILD_ROOT,
            cache_root: Path = CACHE_ROOT) -> dict:
    results = {"schema": SCHEMA,
               "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "commit": git_commit(), "quick": quick,
               "python": platform.python_version(), "machine": platform.machine(),
               "cpus": os.cpu_count(), "extensions": {}}
    for recipe in selected:
        entry = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                 "commit": results["commit"],
                 **run_one(recipe, quick=quick, build_root=build_root, cache_root=cache_root)}
        results["extensions"][recipe.name] = entry
        log(f"{recipe.name}: {corpus_report.one_line(entry)}")
    return without_machine_paths(results)


def updated(old: dict, new: dict) -> dict:
    """`old` results with the extensions measured in `new` replaced, in the
    recipes' order (entries of recipes this checkout does not know last);
    each entry keeps the date and commit it was measured at."""
    merged = {**new, "extensions": {**old["extensions"], **new["extensions"]},
              "date": old["date"], "commit": old["commit"],
              "updated": sorted(set(old.get("updated", [])) | set(new["extensions"]))}
    order = {name: i for i, name in enumerate(recipes.by_name())}
    merged["extensions"] = dict(sorted(merged["extensions"].items(),
                                       key=lambda item: order.get(item[0], len(order))))
    return merged


def outputs(quick: bool, partial: bool, build_root: Path = BUILD_ROOT) -> tuple[Path, Path]:
    if not quick and not partial:
        return RESULTS_FILE, REPORT_FILE
    mode = "quick" if quick else "partial"
    return build_root / f"corpus-{mode}.json", build_root / f"corpus-{mode}.md"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="the quick run (recipes.QUICK) with the shorter test lists")
    parser.add_argument("--only", metavar="NAMES", help="these recipes (comma-separated)")
    parser.add_argument("--update", action="store_true",
                        help=f"with --only: replace these recipes' entries in {shown(RESULTS_FILE)}")
    parser.add_argument("--json", metavar="FILE", help="write the results here instead")
    parser.add_argument("--report-only", action="store_true",
                        help=f"rewrite {shown(REPORT_FILE)} from {shown(RESULTS_FILE)}")
    args = parser.parse_args(argv)
    if args.report_only:
        REPORT_FILE.parent.mkdir(parents=True, exist_ok=True)
        REPORT_FILE.write_text(corpus_report.render(json.loads(RESULTS_FILE.read_text())))
        log(f"wrote {shown(REPORT_FILE)}")
        return 0
    try:
        selected = recipes.select(args.only, quick=args.quick)
    except KeyError as exc:
        parser.error(str(exc))
    if args.update and (args.quick or not args.only or args.json):
        parser.error("--update needs --only, and neither --quick nor --json")
    json_file, md_file = outputs(args.quick, bool(args.only) and not args.update)
    if args.json:
        json_file = Path(args.json)
        md_file = json_file.with_suffix(".md")
    results = run_all(selected, quick=args.quick)
    if args.update:
        results = updated(json.loads(RESULTS_FILE.read_text()), results)
    for path, text in ((json_file, json.dumps(results, indent=2, ensure_ascii=False) + "\n"),
                       (md_file, corpus_report.render(results))):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        log(f"wrote {shown(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
