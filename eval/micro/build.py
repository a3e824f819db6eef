"""Build the micro-benchmark modules, one per API variant.

    python eval/micro/build.py [VARIANT ...] [--force]

Variants and the modules they produce (distinct names, so that any of them
can be loaded side by side in one process):

    stock          bench_stock.c   -> _micro_stock           setuptools
    hpy_cpython    bench_hpy.c     -> _micro_hpy_cpython      hpy.devel, --hpy-abi=cpython
    hpy_universal  bench_hpy.c     -> _micro_hpy_universal    hpy.devel, --hpy-abi=universal
    cystck         bench_cystck.c  -> _micro_cystck           cystck.build

Each variant is built by setuptools' build_ext in a child process of its
own (setuptools and hpy.devel patch global state, and a crash or a compiler
error must not stop the other variants) into build/micro/<variant>/, with
the log beside it.  Every variant gets the interpreter's CFLAGS (setuptools
always passes them) followed by COMPILE_ARGS, so the compiler flags are the
same for all; whatever an API's own build helper adds on top is recorded in
the manifest (build/micro/manifest.json) so a difference cannot go unseen.

A variant whose prerequisites are absent (no bench_cystck.c, no cystck or
hpy package) is reported as "missing" with the reason; one that does not
compile is reported as "failed" with the compiler's error.  Neither leaves a
module behind: stale binaries from an earlier build are removed, so nothing
can ever stand in for a variant that did not build.
"""
import argparse
import concurrent.futures
import hashlib
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
BUILD_ROOT = REPO / "build" / "micro"

# cystck_nodebug is the Cystck source built without debug mode
# (-DCYSTCK_NO_DEBUG_MODE): beside cystck it shows what debug mode costs a
# release build when it is off.
VARIANTS = ("stock", "hpy_cpython", "hpy_universal", "cystck", "cystck_nodebug")

MODULE_NAMES = {
    "stock": "_micro_stock",
    "hpy_cpython": "_micro_hpy_cpython",
    "hpy_universal": "_micro_hpy_universal",
    "cystck": "_micro_cystck",
    "cystck_nodebug": "_micro_cystck_nodebug",
}

SOURCES = {
    "stock": HERE / "bench_stock.c",
    "hpy_cpython": HERE / "bench_hpy.c",
    "hpy_universal": HERE / "bench_hpy.c",
    "cystck": HERE / "bench_cystck.c",
    "cystck_nodebug": HERE / "bench_cystck.c",
}

# Appended after the interpreter's CFLAGS for every variant; gcc honours the
# last -O, so every module is built at -O2 whatever the interpreter was built
# with.  -fvisibility=hidden keeps each module's internal symbols private;
# it is given to every variant so the flags stay identical.  The module init
# functions stay exported: PyMODINIT_FUNC and HPy_MODINIT mark them visible.
COMPILE_ARGS = ["-O2", "-fvisibility=hidden"]

BUILD_TIMEOUT_S = 600


def cystck_extension_for(name, sources, **kwargs):
    """The setuptools Extension for a Cystck module.

    The one place that knows the cystck package's build API: it adds the
    include directory and the runtime sources to the extension.  Adapt here
    if that API changes.
    """
    from cystck.build import cystck_extension
    return cystck_extension(name, sources, **kwargs)


def _cystck_depends():
    """Headers of the Cystck API: a change there must rebuild the module."""
    import cystck
    include = pathlib.Path(cystck.get_include())
    return sorted(str(p) for p in include.rglob("*.h"))


def variant_dir(variant):
    return BUILD_ROOT / variant


def _shown(path):
    """A path for the manifest: relative to the repository when inside it,
    so manifests and reports carry no machine-specific prefix."""
    path = pathlib.Path(path).resolve()
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


def _missing_package(variant):
    """Why the packages a variant's build needs cannot be used, or None.

    Asked in the child that builds, not in the caller: the caller's
    sys.path (a test runner's, say, with the repository on it) may see a
    package the build environment does not.
    """
    if variant.startswith("hpy_"):
        if importlib.util.find_spec("hpy") is None or importlib.util.find_spec("hpy.devel") is None:
            return "the hpy package is not installed (pip install hpy==0.9.0)"
    if variant == "hpy_universal" and importlib.util.find_spec("hpy.universal") is None:
        return "hpy.universal (the universal-ABI loader) is not available"
    if variant.startswith("cystck"):
        try:
            import cystck.build
        except ImportError as exc:
            return f"the cystck package (or its build helper cystck.build) cannot be imported: {exc}"
        if not hasattr(cystck.build, "cystck_extension"):
            return "cystck.build has no cystck_extension()"
    return None


def _remove_outputs(variant):
    """Delete a variant's built module (not its object files), so a stale
    binary cannot be loaded after a failed or impossible build."""
    lib = variant_dir(variant) / "lib"
    if lib.exists():
        shutil.rmtree(lib)
    info = variant_dir(variant) / "build-info.json"
    if info.exists():
        info.unlink()


def _error_excerpt(log_text, limit=25):
    """The compiler's error lines if there are any, else the log's tail."""
    lines = log_text.splitlines()
    errors = [ln for ln in lines if "error" in ln.lower()]
    return "\n".join((errors or lines)[-limit:])


def _hpy_version():
    try:
        from hpy.devel.version import __version__
        return __version__
    except ImportError:
        return None


def build_variant(variant, force=False):
    """Build one variant in a child process; return its manifest entry."""
    entry = {
        "variant": variant,
        "module": MODULE_NAMES[variant],
        "source": _shown(SOURCES[variant]),
        "loader": "hpy_universal" if variant == "hpy_universal" else "import",
    }
    if not SOURCES[variant].exists():
        _remove_outputs(variant)
        return dict(entry, status="missing", reason=f"{_shown(SOURCES[variant])} does not exist")

    vdir = variant_dir(variant)
    vdir.mkdir(parents=True, exist_ok=True)
    info_path = vdir / "build-info.json"
    if info_path.exists():
        info_path.unlink()
    log_path = vdir / "build.log"
    cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "--child", variant,
           "--source", str(SOURCES[variant]), "--out-dir", str(vdir)]
    if force:
        cmd.append("--force")
    try:
        # cwd is the variant's own folder so setuptools reads no project
        # configuration (setup.cfg, pyproject.toml) from the repository.
        proc = subprocess.run(cmd, cwd=vdir, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              timeout=BUILD_TIMEOUT_S)
        log, rc = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired as exc:
        # The partial output of a timed-out child is bytes even in text mode.
        partial = exc.stdout or b""
        log = partial.decode(errors="replace") if isinstance(partial, bytes) else partial
        log += f"\nbuild timed out after {BUILD_TIMEOUT_S} s"
        rc = None
    log_path.write_text(log)
    entry["log"] = _shown(log_path)
    if rc != 0 or not info_path.exists():
        _remove_outputs(variant)
        return dict(entry, status="failed", reason=_error_excerpt(log) or f"exit status {rc}")
    info = json.loads(info_path.read_text())
    if info.get("status") == "missing":
        _remove_outputs(variant)
    return dict(entry, **info)


def build_all(variants=VARIANTS, force=False):
    """Build the variants (in parallel, one per core) and write the manifest.

    Returns {variant: manifest entry}; never raises for a variant that is
    missing or fails to compile.
    """
    BUILD_ROOT.mkdir(parents=True, exist_ok=True)
    jobs = max(1, min(len(variants), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = dict(zip(variants, pool.map(lambda v: build_variant(v, force), variants)))
    manifest = {
        "python": sys.version.split()[0],
        "cc": sysconfig.get_config_var("CC"),
        "interpreter_cflags": sysconfig.get_config_var("CFLAGS"),
        "compile_args": COMPILE_ARGS,
        "hpy_version": _hpy_version(),
        "variants": {},
    }
    # Building a subset keeps the other variants' entries, as long as they
    # came from the same interpreter and flags (else they are dropped).
    previous = read_manifest()
    if previous and all(previous.get(k) == manifest[k] for k in
                        ("python", "cc", "interpreter_cflags", "compile_args", "hpy_version")):
        manifest["variants"].update(previous.get("variants", {}))
    manifest["variants"].update(results)
    manifest["variants"] = {v: manifest["variants"][v] for v in VARIANTS if v in manifest["variants"]}
    (BUILD_ROOT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return results


def read_manifest():
    """The manifest of the last build, or None."""
    path = BUILD_ROOT / "manifest.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())


# ---------------------------------------------------------------------------
# Child process: one setuptools build of one variant.
# ---------------------------------------------------------------------------

def _sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def _is_recorded_module(record):
    """Is the module a build key records still the file it built?"""
    if not record:
        return False
    path = REPO / record["path"]        # an absolute path stays as it is
    return path.exists() and _sha256(path) == record["sha256"]


def _child_build(variant, source, vdir, force):
    info_path = vdir / "build-info.json"
    reason = _missing_package(variant)
    if reason is not None:
        info_path.write_text(json.dumps({"status": "missing", "reason": reason}) + "\n")
        return

    from setuptools import Extension, setup

    name = MODULE_NAMES[variant]
    sources = [str(source)]
    # build.py itself is a dependency: changing COMPILE_ARGS must rebuild.
    depends = [str(pathlib.Path(__file__).resolve())]
    script_args = ["build_ext", "--build-lib", str(vdir / "lib"),
                   "--build-temp", str(vdir / "tmp")]
    if force:
        script_args.append("--force")
    setup_kwargs = {}
    if variant == "stock":
        ext = Extension(name, sources, extra_compile_args=list(COMPILE_ARGS), depends=depends)
        setup_kwargs["ext_modules"] = [ext]
    elif variant in ("hpy_cpython", "hpy_universal"):
        ext = Extension(name, sources, extra_compile_args=list(COMPILE_ARGS), depends=depends)
        setup_kwargs["hpy_ext_modules"] = [ext]
        script_args = ["--hpy-abi=" + variant.split("_", 1)[1]] + script_args
    elif variant in ("cystck", "cystck_nodebug"):
        macros = [("CYSTCK_NO_DEBUG_MODE", None)] if variant == "cystck_nodebug" else []
        ext = cystck_extension_for(name, sources, extra_compile_args=list(COMPILE_ARGS),
                                   define_macros=macros,
                                   depends=depends + _cystck_depends())
        setup_kwargs["ext_modules"] = [ext]
    else:
        raise SystemExit(f"unknown variant {variant!r}")

    # build_ext only compares timestamps, so a source dropped from the list,
    # a runtime now taken from another place, or a different hpy would leave
    # the old module in place: rebuild whenever the inputs change.
    key = {"sources": list(ext.sources), "include_dirs": list(ext.include_dirs),
           "compile_args": list(ext.extra_compile_args),
           "define_macros": [list(m) for m in ext.define_macros],
           "hpy_version": _hpy_version() if variant.startswith("hpy_") else None}
    # build_ext also keeps a module newer than its inputs, whoever wrote it:
    # the key records the hash of the module this function built, and a
    # module that is not that one (copied over by hand, say) is rebuilt.
    key_path = vdir / "build-key.json"
    old_key = json.loads(key_path.read_text()) if key_path.exists() else None
    if not force and (old_key is None or dict(old_key, module=None) != dict(key, module=None)
                      or not _is_recorded_module(old_key.get("module"))):
        script_args.append("--force")

    # hpy.devel writes its universal-ABI stub loader into build_py's folder;
    # keep it beside the module instead of in a ./build of the cwd.  The
    # harness does not use the stub (it calls hpy.universal.load directly,
    # the stub needs pkg_resources, which recent setuptools no longer has).
    options = {"build_py": {"build_lib": str(vdir / "lib")}}
    dist = setup(name="micro-" + variant.replace("_", "-"), version="0",
                 packages=[], py_modules=[], script_args=script_args, options=options,
                 **setup_kwargs)
    outputs = [p for p in dist.get_command_obj("build_ext").get_outputs()
               if not p.endswith((".py", ".pyc"))]      # hpy's stub loader
    if len(outputs) != 1 or not os.path.exists(outputs[0]):
        raise SystemExit(f"expected one built module, got {outputs!r}")
    info = {
        "status": "ok",
        "path": _shown(outputs[0]),
        "compile_args": list(ext.extra_compile_args),
        "define_macros": [list(m) for m in ext.define_macros],
    }
    extra = [a for a in info["compile_args"] if a not in COMPILE_ARGS]
    if extra:
        info["extra_compile_args_from_api"] = extra
    if variant.startswith("hpy_"):
        info["hpy_version"] = _hpy_version()
    info_path.write_text(json.dumps(info, indent=2) + "\n")
    key["module"] = {"path": _shown(outputs[0]), "sha256": _sha256(outputs[0])}
    key_path.write_text(json.dumps(key, indent=2) + "\n")


def _format_status(results):
    lines = []
    for variant, entry in results.items():
        if entry["status"] == "ok":
            lines.append(f"{variant:14} ok       {entry['path']}")
        else:
            first = entry["reason"].splitlines()[0] if entry["reason"] else ""
            lines.append(f"{variant:14} {entry['status']:8} {first}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*", metavar="VARIANT",
                        help="variants to build: %s (default: all)" % ", ".join(VARIANTS))
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    # The child build gets everything it needs on its command line, so the
    # parent's view (and a test's monkeypatching) is the only truth.
    parser.add_argument("--child", metavar="VARIANT", help=argparse.SUPPRESS)
    parser.add_argument("--source", type=pathlib.Path, help=argparse.SUPPRESS)
    parser.add_argument("--out-dir", type=pathlib.Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    unknown = [v for v in args.variants if v not in VARIANTS]
    if unknown:
        parser.error("unknown variant(s): " + ", ".join(unknown))
    if args.child:
        # This folder is on sys.path because the script lives here; its
        # build.py must not shadow anything setuptools might import.
        sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != HERE]
        _child_build(args.child, args.source, args.out_dir, args.force)
        return 0
    results = build_all(tuple(args.variants) or VARIANTS, force=args.force)
    print(_format_status(results))
    failed = [e for e in results.values() if e["status"] == "failed"]
    for entry in failed:
        print(f"\n--- {entry['variant']} failed (log: {entry.get('log')}):\n{entry['reason']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
