"""setup script for one variant of ujson 6.1.0.

    python setup_ujson.py VARIANT SOURCE_TREE bdist_wheel --dist-dir DIR

VARIANT is one of ujson_port.VARIANTS.  SOURCE_TREE holds the files of
ujson_port.MIGRATED_FILES for that variant (ujson_port.source_tree): the
unpacked sdist for stock, build/ultrajson/cystck/port for cystck,
build/ultrajson/hpy/port for hpy_cpython and hpy_universal.  Everything else
(the C++ wrapper, the vendored double-conversion, the type stubs) comes from
the unpacked sdist for all.  recipe.py runs this with the working directory
set to a fresh build folder.

This replaces upstream's setup.py, which needs setuptools>=80 and
setuptools-scm only to compute the version we already know: the extension is
declared exactly as upstream declares it (same sources in the same order,
include directories, macros, compiler and linker flags), so both variants
are compiled the same way.  The Cystck variant additionally gets the Cystck
include directory and runtime sources (cystck.build.prepare), compiled into
the extension: the wheel needs nothing from this repository at run time.
The HPy variants go through hpy's setuptools integration (hpy_ext_modules,
--hpy-abi=cpython or universal), which adds hpy's include directory and its
small C helper runtime (argument parsing, formatting) to the same extension.
"""

import sys
from glob import glob
from pathlib import Path

from setuptools import Extension, setup

from ports.ultrajson import ujson_port as port

# A universal-ABI module is a binary (ujson.hpy0.so) plus a Python stub
# (ujson.py) that asks hpy.universal to load it.  hpy 0.9.0's own stub finds
# the binary with pkg_resources, which setuptools 81 and later no longer
# ship; ours looks next to the stub, where installing the wheel puts it.
_UNIVERSAL_STUB = """\
# Loads the HPy universal-ABI binary next to this file (ports/ultrajson/setup_ujson.py).

def _load():
    import os, sys
    from hpy.universal import _load_bootstrap
    binary = os.path.join(os.path.dirname(__file__), {ext_file!r})
    sys.modules[__name__] = _load_bootstrap({module_name!r}, __name__, __package__, binary,
                                            __loader__, __spec__, os.environ)

_load()
"""


def use_own_universal_stub():
    import hpy.devel
    from hpy.devel.version import __version__

    # The template's name and fields are hpy 0.9.0's: another release needs a look.
    if __version__ != port.HPY_VERSION:
        raise SystemExit(f"setup_ujson.py is written for hpy {port.HPY_VERSION}, found {__version__}")
    hpy.devel._HPY_UNIVERSAL_MODULE_STUB_TEMPLATE = _UNIVERSAL_STUB


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in port.VARIANTS:
        raise SystemExit("usage: setup_ujson.py {%s} SOURCE_TREE [setup.py arguments]"
                         % ",".join(port.VARIANTS))
    variant = sys.argv.pop(1)
    tree = Path(sys.argv.pop(1)).resolve()
    upstream = port.UPSTREAM_DIR
    dconv = upstream / "src" / "ujson" / "deps" / "double-conversion" / "double-conversion"

    sources = sorted(glob(str(dconv / "*.cc")))   # upstream globs (unsorted); order is immaterial
    sources.append(str(upstream / "src" / "ujson" / "dconv_wrapper.cc"))
    sources += [str(tree / f) for f in port.MIGRATED_SOURCES]

    extension = Extension(
        "ujson",
        sources=sources,
        # The variant's own headers first (the migrated ujson.h, ultrajson.h).
        include_dirs=list(dict.fromkeys(
            [str(tree / "src" / "ujson"), str(upstream / "src" / "ujson"), str(dconv)])),
        define_macros=list(port.DEFINE_MACROS),
        extra_compile_args=list(port.EXTRA_COMPILE_ARGS),
        extra_link_args=list(port.EXTRA_LINK_ARGS),
    )
    extensions = {"ext_modules": [extension]}
    if variant == "cystck":
        from cystck.build import prepare
        prepare(extension)
    elif variant in port.HPY_ABI:
        use_own_universal_stub()
        extensions = {"hpy_ext_modules": [extension]}
        sys.argv.insert(1, f"--hpy-abi={port.HPY_ABI[variant]}")
    description = {"cystck": " (ported to Cystck)", "hpy_cpython": " (ported to HPy, CPython ABI)",
                   "hpy_universal": " (ported to HPy, universal ABI)"}.get(variant, "")

    setup(
        name="ujson",
        version=port.wheel_version(variant),
        description="Ultra fast JSON encoder and decoder for Python" + description,
        license="BSD-3-Clause AND TCL",
        python_requires=">=3.10",
        install_requires=list(port.RUNTIME_REQUIRES.get(variant, ())),
        **extensions,
        packages=["ujson-stubs"],
        package_dir={"ujson-stubs": str(upstream / "ujson-stubs")},
        package_data={"ujson-stubs": ["*.pyi"]},
        zip_safe=False,
    )


if __name__ == "__main__":
    main()
