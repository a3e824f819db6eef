"""Build Cystck extensions with setuptools.

One line in a setup.py::

    from cystck.build import cystck_extension
    setup(ext_modules=[cystck_extension("spam", ["spam.c"])])

or, keeping setuptools' own ``Extension`` objects::

    setup(cystck_ext_modules=[Extension("spam", ["spam.c"])])

or, without a setup.py, in pyproject.toml (setuptools>=74)::

    [tool.setuptools]
    ext-modules = [{name = "spam", sources = ["spam.c"]}]
    cmdclass = {build_ext = "cystck.build.build_ext"}

Every way the extension gets the Cystck include directory and the runtime
sources; nothing from this package is needed at run time.
"""
import os

from setuptools import Extension
from setuptools.command.build_ext import build_ext as _setuptools_build_ext

import cystck


def _extend(items, extra):
    """``items`` followed by those of ``extra`` not in it already."""
    items = list(items)
    return items + [x for x in extra if x not in items]


def prepare(ext):
    """Add Cystck's include directory and runtime sources to ``ext``."""
    ext.include_dirs = _extend(ext.include_dirs, [cystck.get_include(), cystck.get_source_dir()])
    ext.sources = _extend(ext.sources, cystck.get_sources())
    return ext


def cystck_extension(name, sources, **kwargs):
    """A setuptools ``Extension`` built against Cystck."""
    return prepare(Extension(name, list(sources), **kwargs))


def _normalized(path):
    return os.path.normcase(os.path.abspath(path))


def _runtime_paths():
    """The runtime sources, normalized to compare with an extension's."""
    return {_normalized(s) for s in cystck.get_sources()}


def _uses_runtime(ext):
    runtime = _runtime_paths()
    return any(_normalized(s) in runtime for s in getattr(ext, "sources", ()))


class ProjectSourcesOnly:
    """build_ext mixin: the runtime sources ``prepare`` adds belong to the
    installed cystck package, not to the project being built, so they stay
    out of its source files.  setuptools takes those for the project's
    manifest (SOURCES.txt, the sdist, ``include_package_data``), which
    rejects absolute paths ("setup script specifies an absolute path")."""

    def get_source_files(self):
        runtime = _runtime_paths()
        return [f for f in super().get_source_files() if _normalized(f) not in runtime]


class build_ext(ProjectSourcesOnly, _setuptools_build_ext):
    """setuptools' ``build_ext`` that builds every extension of the project
    against Cystck: for extensions declared in pyproject.toml, which has no
    place for ``cystck_extension``."""

    def finalize_options(self):
        super().finalize_options()
        for ext in self.extensions:
            prepare(ext)


def use_project_sources_only(dist):
    """Give ``dist`` a ``build_ext`` (its own, or setuptools') that keeps the
    runtime sources out of the project's source files."""
    base = dist.get_command_class("build_ext")
    if not issubclass(base, ProjectSourcesOnly):
        dist.cmdclass["build_ext"] = type(base.__name__, (ProjectSourcesOnly, base),
                                          {"__doc__": base.__doc__})


def finalize_distribution_options(dist):
    """setuptools calls this (an entry point) for every project it builds:
    one with an extension from ``cystck_extension`` or ``prepare`` gets
    ``use_project_sources_only``; any other is left alone."""
    if any(_uses_runtime(ext) for ext in dist.ext_modules or ()):
        use_project_sources_only(dist)


def setup_keyword(dist, attr, value):
    """The ``cystck_ext_modules`` keyword of ``setup()`` (an entry point)."""
    if not value:
        return
    exts = [prepare(e) for e in value]
    dist.ext_modules = list(dist.ext_modules or []) + exts
    use_project_sources_only(dist)


def build_extension(name, sources, build_dir, *, use_cystck=True, **kwargs):
    """Compile one extension into ``build_dir`` and return the path of the
    built module.  For tests and benchmarks, which build many small
    extensions without a setup.py.  ``kwargs`` go to ``Extension``."""
    import pathlib

    from setuptools import Distribution

    build_dir = pathlib.Path(build_dir)
    ext = Extension(name, [str(s) for s in sources], **kwargs)
    if use_cystck:
        prepare(ext)
    dist = Distribution({"name": name, "ext_modules": [ext]})
    cmd = _setuptools_build_ext(dist)
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
