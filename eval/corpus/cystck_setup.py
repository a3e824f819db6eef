"""Run an upstream setup.py with Cystck's build plumbing.

    python cystck_setup.py SETUP_PY [setup.py arguments...]

The only change to the upstream build: every extension named in
CORPUS_CYSTCK_EXTENSIONS (comma-separated full names, e.g.
``crc32c._crc32c``) gets Cystck's include directories and runtime sources
(``cystck.build.prepare``) just before it is compiled.  The sources are
whatever the tree holds, i.e. the translator's output; setup.py itself, its
flags, its other extensions and its own build_ext subclasses are left as
they are.  The patch sits on the distutils ``build_ext.build_extensions``,
which every setuptools build_ext runs: it wraps the command's own
``build_extension`` (a subclass's too, also one that compiles by itself
without calling its parent's).

An extension named but never built fails the run: setup.py files that
catch build errors to fall back to pure Python would otherwise hide it.
"""

import os
import runpy
import sys

import setuptools  # noqa: F401  (selects setuptools' distutils)
from distutils.command import build_ext as distutils_build_ext

from cystck.build import prepare

WANTED = set(filter(None, os.environ.get("CORPUS_CYSTCK_EXTENSIONS", "").split(",")))
_built = set()
_original = distutils_build_ext.build_ext.build_extensions


def build_extensions(self):
    own = self.build_extension     # the command's, maybe a subclass's

    def build_extension(ext):
        if ext.name not in WANTED:
            return own(ext)
        prepare(ext)
        result = own(ext)
        _built.add(ext.name)  # only once it compiled and linked
        return result
    self.build_extension = build_extension
    try:
        return _original(self)
    finally:
        del self.build_extension


def main(argv):
    setup_py, *args = argv
    distutils_build_ext.build_ext.build_extensions = build_extensions
    sys.argv = [setup_py, *args]
    # As `python setup.py` would: an sdist's setup.py may import its neighbours.
    sys.path.insert(0, os.path.dirname(os.path.abspath(setup_py)))
    runpy.run_path(setup_py, run_name="__main__")
    missing = WANTED - _built
    if missing:
        raise SystemExit("cystck_setup: setup.py never built " + ", ".join(sorted(missing)))


if __name__ == "__main__":
    main(sys.argv[1:])
