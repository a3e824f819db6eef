"""setup script for one variant of ujson 6.1.0.

    python setup_ujson.py VARIANT SOURCE_TREE bdist_wheel --dist-dir DIR

VARIANT is ``stock`` or ``cystck``.  SOURCE_TREE holds the files of
ujson_port.MIGRATED_FILES for that variant: the unpacked sdist for stock,
build/ultrajson/cystck/port for cystck.  Everything else (the C++ wrapper,
the vendored double-conversion, the type stubs) comes from the unpacked
sdist for both.  recipe.py runs this with the working directory set to a
fresh build folder.

This replaces upstream's setup.py, which needs setuptools>=80 and
setuptools-scm only to compute the version we already know: the extension is
declared exactly as upstream declares it (same sources in the same order,
include directories, macros, compiler and linker flags), so both variants
are compiled the same way.  The Cystck variant additionally gets the Cystck
include directory and runtime sources (cystck.build.prepare), compiled into
the extension: the wheel needs nothing from this repository at run time.
"""

import sys
from glob import glob
from pathlib import Path

from setuptools import Extension, setup

import ujson_port as port


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
    if variant == "cystck":
        from cystck.build import prepare
        prepare(extension)

    setup(
        name="ujson",
        version=port.wheel_version(variant),
        description="Ultra fast JSON encoder and decoder for Python"
                    + (" (ported to Cystck)" if variant == "cystck" else ""),
        license="BSD-3-Clause AND TCL",
        python_requires=">=3.10",
        ext_modules=[extension],
        packages=["ujson-stubs"],
        package_dir={"ujson-stubs": str(upstream / "ujson-stubs")},
        package_data={"ujson-stubs": ["*.pyi"]},
        zip_safe=False,
    )


if __name__ == "__main__":
    main()
