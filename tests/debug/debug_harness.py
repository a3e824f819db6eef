"""Helpers for the debug-mode tests.

The corpus (``corpus/*.c``, Cystck) and the stock counterparts
(``stock/*.c``, the plain C API) are small deliberately buggy extensions.
They are built once per test session, in parallel, and each scenario runs in
a subprocess so that crashes and exit-time reports can be observed.

A scenario is a few lines of Python run after a prelude that loads the
extension as ``m`` and defines

* ``outcome(f, *args)``: call ``f`` and print one ``OUTCOME`` line (the
  repr of the value, or the exception's type, message and cause; an
  exception that ``f`` left set while returning a value counts as raised);
* ``emit(key, value)``: print one ``key`` line with ``value`` as JSON.

Lines named by the assertions are found in the C sources by a marker
comment ``/* @name */`` at the end of the line, never by number.
"""
import concurrent.futures
import dataclasses
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
STOCK = HERE / "stock"

# -g: debug mode names file:line through the debug information.
COMPILE_ARGS = ["-g", "-Wall", "-Wextra", "-Werror"]

HAVE_ADDR2LINE = shutil.which("addr2line") is not None

DEBUG_TAG = "[CYSTCK_DEBUG]"

PRELUDE = r'''
import importlib.util
import json
import sys


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def emit(key, value):
    print(key, json.dumps(value), flush=True)


def outcome(f, *args):
    try:
        value = repr(f(*args))   # repr: an exception left set by f surfaces here
    except Exception as e:
        emit("OUTCOME", {"error": type(e).__name__, "message": str(e),
                         "cause": None if e.__cause__ is None else str(e.__cause__)})
    else:
        emit("OUTCOME", {"value": value})


'''

LOAD = "m = load(sys.argv[1], sys.argv[2])\n"


def cystck_settings():
    """What cystck.build adds to a Cystck extension: the runtime sources
    (``.sources``), include directories, macros and flags."""
    from setuptools import Extension

    from cystck.build import prepare

    return prepare(Extension("settings", []))


def build_runtime(build_dir, settings):
    """Compile the Cystck runtime sources once, with the compiler and flags
    build_ext uses, and return the object files.  build_extension(...,
    use_cystck=True) would compile the same sources into every extension;
    linking these objects instead gives the same extensions and keeps the
    corpus build within a few seconds."""
    import setuptools  # noqa: F401  (provides distutils on Python 3.12+)
    from distutils.ccompiler import new_compiler
    from distutils.sysconfig import customize_compiler

    compiler = new_compiler()
    customize_compiler(compiler)
    include_dirs = list(settings.include_dirs) + [sysconfig.get_path("include"),
                                                  sysconfig.get_path("platinclude")]
    return compiler.compile(settings.sources, output_dir=str(build_dir / "runtime"),
                            macros=list(settings.define_macros), include_dirs=include_dirs,
                            extra_postargs=list(settings.extra_compile_args) + COMPILE_ARGS)


def _build_one(job):
    from cystck.build import build_extension

    name, source, build_dir, cystck_kwargs = job
    kwargs = dict(cystck_kwargs or {})
    kwargs["extra_compile_args"] = kwargs.pop("extra_compile_args", []) + COMPILE_ARGS
    path = build_extension(name, [source], build_dir, use_cystck=False, **kwargs)
    return name, str(path)


def _cystck_kwargs(build_dir, settings):
    return {
        "include_dirs": list(settings.include_dirs),
        "define_macros": list(settings.define_macros),
        "extra_compile_args": list(settings.extra_compile_args),
        "extra_link_args": list(settings.extra_link_args),
        "extra_objects": build_runtime(build_dir, settings),
    }


def build_one(name, build_dir, define_macros=()):
    """Build the corpus extension ``name`` alone, with more macros; its path."""
    build_dir = pathlib.Path(build_dir)
    cystck_kwargs = _cystck_kwargs(build_dir, cystck_settings())
    cystck_kwargs["define_macros"] += list(define_macros)
    return pathlib.Path(_build_one((name, str(CORPUS / f"{name}.c"), str(build_dir), cystck_kwargs))[1])


def build_all(build_dir):
    """Build every corpus and stock extension; {module name: path}."""
    build_dir = pathlib.Path(build_dir)
    cystck_kwargs = _cystck_kwargs(build_dir, cystck_settings())
    jobs = [(p.stem, str(p), str(build_dir), cystck_kwargs) for p in sorted(CORPUS.glob("*.c"))]
    jobs += [(p.stem, str(p), str(build_dir), None) for p in sorted(STOCK.glob("*.c"))]
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        return {name: pathlib.Path(path) for name, path in pool.map(_build_one, jobs)}


@dataclasses.dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    def lines(self, key):
        """The values of the ``emit(key, ...)`` lines, in order."""
        prefix = key + " "
        return [json.loads(line[len(prefix):]) for line in self.stdout.splitlines()
                if line.startswith(prefix)]

    @property
    def outcomes(self):
        return self.lines("OUTCOME")

    @property
    def outcome(self):
        """The single outcome of the scenario."""
        outcomes = self.outcomes
        assert len(outcomes) == 1, self.describe()
        return outcomes[0]

    @property
    def crashed(self):
        """Killed by a signal (segmentation fault, abort)."""
        return self.returncode < 0

    def describe(self):
        return (f"returncode {self.returncode}\n--- stdout\n{self.stdout}"
                f"--- stderr\n{self.stderr}")


def run(path, scenario, *, debug, env=None, load=True):
    """Run ``scenario`` in a fresh interpreter with the extension at ``path``
    loaded as ``m`` (unless ``load`` is false), with CYSTCK_DEBUG=1 when
    ``debug`` is true and unset otherwise.  ``env`` adds variables; a value
    of None removes one."""
    environ = dict(os.environ)
    environ.pop("CYSTCK_DEBUG", None)
    environ.pop("PYTHONMALLOC", None)
    if debug:
        environ["CYSTCK_DEBUG"] = "1"
    for key, value in (env or {}).items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = value
    code = PRELUDE + (LOAD if load else "") + scenario
    proc = subprocess.run([sys.executable, "-c", code, path.stem.split(".")[0], str(path)],
                          env=environ, capture_output=True, text=True, timeout=120)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def source_of(module):
    for directory in (CORPUS, STOCK):
        path = directory / f"{module}.c"
        if path.exists():
            return path
    raise FileNotFoundError(module)


def line_of(module, marker):
    """The line number of the ``/* @marker */`` comment in module's source."""
    tag = f"/* @{marker} */"
    lines = [i for i, text in enumerate(source_of(module).read_text().splitlines(), 1)
             if text.rstrip().endswith(tag)]
    assert len(lines) == 1, f"{module}.c: {len(lines)} lines end with {tag}"
    return lines[0]


def location(module, marker, function=None):
    """A regex for the ``file.c:line (function)`` that a debug-mode message
    gives for the marked line (any directory before the file name)."""
    where = rf"(?:.*/)?{re.escape(module)}\.c:{line_of(module, marker)}(?!\d)"
    if function is not None:
        where += rf" \({re.escape(function)}\)"
    return where
