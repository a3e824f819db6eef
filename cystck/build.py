"""Build Cystck extensions with setuptools.

One line in a setup.py::

    from cystck.build import cystck_extension
    setup(ext_modules=[cystck_extension("spam", ["spam.c"])])

or, keeping setuptools' own ``Extension`` objects::

    setup(cystck_ext_modules=[Extension("spam", ["spam.c"])])

Either way the extension gets the Cystck include directory and the runtime
sources; nothing from this package is needed at run time.
"""
from setuptools import Extension

import cystck

def prepare(ext):
    """Add Cystck's include directory and runtime sources to ``ext``."""
    ext.include_dirs = list(ext.include_dirs) + [cystck.get_include(), cystck.get_source_dir()]
    ext.sources = list(ext.sources) + [
        s for s in cystck.get_sources() if s not in ext.sources]
    return ext


def cystck_extension(name, sources, **kwargs):
    """A setuptools ``Extension`` built against Cystck."""
    return prepare(Extension(name, list(sources), **kwargs))


def setup_keyword(dist, attr, value):
    """The ``cystck_ext_modules`` keyword of ``setup()`` (an entry point)."""
    if not value:
        return
    exts = [prepare(e) for e in value]
    dist.ext_modules = list(dist.ext_modules or []) + exts


def build_extension(name, sources, build_dir, *, use_cystck=True, **kwargs):
    """Compile one extension into ``build_dir`` and return the path of the
    built module.  For tests and benchmarks, which build many small
    extensions without a setup.py.  ``kwargs`` go to ``Extension``."""
    import os
    import pathlib

    from setuptools import Distribution
    from setuptools.command.build_ext import build_ext

    build_dir = pathlib.Path(build_dir)
    ext = Extension(name, [str(s) for s in sources], **kwargs)
    if use_cystck:
        prepare(ext)
    dist = Distribution({"name": name, "ext_modules": [ext]})
    cmd = build_ext(dist)
    cmd.build_lib = str(build_dir)
    cmd.build_temp = str(build_dir / "tmp" / name)
    cmd.ensure_finalized()
    cwd = os.getcwd()
    try:
        cmd.run()
    finally:
        os.chdir(cwd)
    return pathlib.Path(cmd.get_ext_fullpath(name))


def load_extension(name, path):
    """Import the extension module built at ``path`` as ``name``."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module
