"""The UltraJSON port: where everything comes from and where it lands.

The recipe (recipe.py), the setup script (setup_ujson.py), the benchmark
(bench.py), the migration metrics (metrics.py) and the tests all read this
module, so paths, pins and flags are written down once.

Layout below the repository root (all of it generated; none of it is
committed):

* ``.cache/ultrajson/ujson-6.1.0.tar.gz`` -- the PyPI sdist, checked
  against :data:`SDIST_SHA256` every time it is used;
* ``build/ultrajson/upstream/ujson-6.1.0/`` -- the sdist, unpacked as is
  (the stock variant is built from here, and its tests are run from here);
* ``build/ultrajson/cystck/translated/`` -- the output of ``cystck-migrate``
  on the Python-facing C files, untouched;
* ``build/ultrajson/cystck/port/`` -- the translated files with
  ``manual.patch`` applied: the sources of the Cystck variant;
* ``build/ultrajson/hpy/port/`` -- the same files of the sdist with
  ``hpy.patch`` applied: the sources of both HPy variants (CPython ABI and
  universal ABI);
* ``build/ultrajson/<variant>/site/`` -- the variant's wheel installed with
  ``pip install --target``, which tests and benchmarks put on sys.path;
* ``dist/<variant>/ujson-*.whl`` -- the wheels.

All variants import as ``ujson``, so each is only ever loaded in its own
interpreter (see :func:`variant_command`).
"""

from __future__ import annotations

from pathlib import Path

from ports import portkit
from ports.portkit import sha256_of  # noqa: F401  (part of this module's interface)

PORT_DIR = Path(__file__).resolve().parent
REPO_ROOT = PORT_DIR.parent.parent
CACHE_DIR = REPO_ROOT / ".cache" / "ultrajson"
BUILD_ROOT = REPO_ROOT / "build" / "ultrajson"
DIST_ROOT = REPO_ROOT / "dist"
RESULTS_DIR = REPO_ROOT / "eval" / "results"

VERSION = "6.1.0"
SDIST_NAME = f"ujson-{VERSION}.tar.gz"
SDIST_SHA256 = "aef7ea4cd9e2e9f8a35c4538a9780d58c80d76c5da66a8dad269b4cc6d930c29"
UPSTREAM_DIR = BUILD_ROOT / "upstream" / f"ujson-{VERSION}"

# The files that mix the Python layer with the JSON core and so go through
# cystck-migrate, and that hpy.patch edits (the two headers declare PyObject*
# globals and members).  dconv_wrapper.cc and deps/double-conversion are
# plain C++ and are compiled unchanged by every variant.
MIGRATED_FILES = ("src/ujson/ujson.c", "src/ujson/encode.c", "src/ujson/decode.c",
                  "src/ujson/ujson.h", "src/ujson/ultrajson.h")
MIGRATED_SOURCES = tuple(f for f in MIGRATED_FILES if f.endswith(".c"))
TRANSLATED_DIR = BUILD_ROOT / "cystck" / "translated"
PORT_SRC_DIR = BUILD_ROOT / "cystck" / "port"
MANUAL_PATCH = PORT_DIR / "manual.patch"
# The HPy port: one hand-written patch on the sdist's files, built twice.
HPY_PATCH = PORT_DIR / "hpy.patch"
HPY_SRC_DIR = BUILD_ROOT / "hpy" / "port"
HPY_VERSION = "0.9.0"

# Compiler and linker flags of upstream's setup.py, used for every variant.
# (setup.py also offers UJSON_BUILD_DC_INCLUDES/UJSON_BUILD_DC_LIBS to link
# a system double-conversion; we always compile the vendored copy.)
DEFINE_MACROS = (("UJSON_VERSION", f'"{VERSION}"'),)
EXTRA_COMPILE_ARGS = ("-D_GNU_SOURCE",)
EXTRA_LINK_ARGS = ("-lstdc++", "-lm", "-Wl,--strip-all")

VARIANTS = ("stock", "hpy_cpython", "hpy_universal", "cystck")
REFERENCE = "stock"
# Local version label of each variant's wheel: the stock one is plain ujson.
LOCAL_VERSION = {"stock": "", "hpy_cpython": "+hpy.cpython", "hpy_universal": "+hpy.universal",
                 "cystck": "+cystck"}
# The HPy variants: hpy's setuptools integration builds them with --hpy-abi=ABI.
HPY_ABI = {"hpy_cpython": "cpython", "hpy_universal": "universal"}
# What each wheel needs at run time (its Requires-Dist): a universal-ABI
# module is loaded by hpy.universal, so that wheel needs the hpy package.
RUNTIME_REQUIRES = {"hpy_universal": (f"hpy=={HPY_VERSION}",)}
WHEELHOUSE = BUILD_ROOT / "wheelhouse"    # those requirements as wheels, for offline installs


def source_tree(variant: str) -> Path:
    """Where the variant's MIGRATED_FILES come from."""
    if variant == "cystck":
        return PORT_SRC_DIR
    if variant in HPY_ABI:
        return HPY_SRC_DIR
    return UPSTREAM_DIR


def wheel_version(variant: str) -> str:
    return VERSION + LOCAL_VERSION[variant]


def wheel_path(variant: str) -> Path | None:
    """The variant's ujson wheel in dist/<variant>/, or None if not built."""
    return portkit.single_wheel(DIST_ROOT / variant, f"ujson-{VERSION}*.whl", "ujson")


def missing_reason(variant: str) -> str:
    return (f"the {variant} ujson wheel is not built (no ujson-{VERSION}*.whl in "
            f"dist/{variant}/): run `make ultrajson-wheels` or "
            f"`python ports/ultrajson/recipe.py wheels`")


def build_error_file(variant: str) -> Path:
    return BUILD_ROOT / variant / "build.error"


def build_error(variant: str) -> str | None:
    """Why the last build of the variant failed, or None (it did not)."""
    path = build_error_file(variant)
    if not path.is_file():
        return None
    return path.read_text().strip() + f" ({path.relative_to(REPO_ROOT)})"


def site_dir(variant: str) -> Path:
    return BUILD_ROOT / variant / "site"


def ensure_site(variant: str) -> Path:
    """Install the variant's wheel into build/ultrajson/<variant>/site,
    again whenever the wheel changes.  Its run-time requirements (hpy for
    the universal ABI) come from the running interpreter, which is checked
    here."""
    wheel = wheel_path(variant)
    if wheel is None:
        raise RuntimeError(missing_reason(variant))
    portkit.check_requirements(RUNTIME_REQUIRES.get(variant, ()), f"the {variant} ujson wheel")
    return portkit.install_site(wheel, site_dir(variant))


def variant_command(variant: str, code: str, *args: str) -> list[str]:
    """A command running ``code`` in a fresh, isolated interpreter that sees
    only ``variant``'s ujson (bound to the name ``ujson``; ``sys.argv[1:]``
    is ``args``)."""
    return portkit.site_command(ensure_site(variant), "ujson", code, *args)


def variant_script(variant: str, script: Path, *args: str) -> list[str]:
    """Like :func:`variant_command` for a script file, run as __main__."""
    code = ("import runpy\nsys.argv[0] = %r\nrunpy.run_path(%r, run_name='__main__')\n"
            % (str(script), str(script)))
    return variant_command(variant, code, *args)
