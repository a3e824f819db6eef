"""setup script for one PicoNumPy variant.

    python setup_variant.py VARIANT [--hpy-abi=ABI] bdist_wheel --dist-dir DIR

VARIANT is a name from piconumpy_variants.VARIANTS; everything else is
ordinary setuptools command line.  recipe.py runs this with the
working directory set to the variant's build folder (setuptools writes its
build/ and egg-info there) and passes --hpy-abi for the HPy variants.
"""

import sys

from setuptools import Extension, setup

from ports.piconumpy.piconumpy_variants import COMPILE_ARGS, REPO_ROOT, VARIANTS, VERSION

# hpy 0.9.0 writes, next to a universal binary, a Python stub that finds the
# binary through pkg_resources, which setuptools stopped shipping in version
# 81: the installed module would then fail to import.  This is the same stub
# (same call into hpy.universal), except that the binary is located next to
# the stub file, which is where a wheel install puts it.
_UNIVERSAL_STUB = """\
# Written by ports/piconumpy/setup_variant.py (hpy's universal-module stub,
# without pkg_resources).

def __bootstrap__():
    from os import environ, path
    from sys import modules
    from hpy.universal import _load_bootstrap
    ext_filepath = path.join(path.dirname(__file__), {ext_file!r})
    m = _load_bootstrap({module_name!r}, __name__, __package__, ext_filepath,
                        __loader__, __spec__, environ)
    modules[__name__] = m

__bootstrap__()
"""


def _replace_hpy_universal_stub():
    import hpy.devel
    from hpy.devel.version import __version__ as hpy_version

    # The replacement mirrors hpy 0.9.0's template (and the private name it
    # is stored under); another release needs a fresh look.
    if hpy_version != "0.9.0":
        raise SystemExit(
            "setup_variant.py: built for hpy 0.9.0, found hpy %s" % hpy_version
        )
    hpy.devel._HPY_UNIVERSAL_MODULE_STUB_TEMPLATE = _UNIVERSAL_STUB


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in VARIANTS:
        raise SystemExit(
            "usage: setup_variant.py VARIANT [setup.py arguments]; VARIANT is one of "
            + ", ".join(VARIANTS)
        )
    variant = VARIANTS[sys.argv.pop(1)]

    extension = Extension(
        "piconumpy",
        sources=[str(REPO_ROOT / s) for s in variant.sources],
        include_dirs=[str(REPO_ROOT / d) for d in variant.include_dirs],
        extra_compile_args=list(COMPILE_ARGS),
    )
    if variant.cystck:
        # Cystck.h's folder and the runtime's C sources, compiled into the
        # extension: the wheel needs nothing of the cystck package at run time.
        from cystck.build import prepare

        prepare(extension)
    kwargs = {}
    if variant.hpy_abi is None:
        kwargs["ext_modules"] = [extension]
    else:
        _replace_hpy_universal_stub()
        kwargs["hpy_ext_modules"] = [extension]

    setup(
        name=variant.dist_name,
        version=VERSION,
        description="PicoNumPy, a tiny float64 array (%s)" % variant.description,
        install_requires=list(variant.install_requires),
        python_requires=">=3.8",
        zip_safe=False,
        **kwargs,
    )


if __name__ == "__main__":
    main()
