"""The setup.py of an sdist that has none: its extensions are declared in
pyproject.toml ([tool.setuptools] ext-modules), which setuptools reads from
the current folder, so the pipeline can run `setup.py build_ext --inplace`
on every sdist alike.  Alone in its folder: cystck_setup.py puts a setup.py's
folder on sys.path, as `python setup.py` would."""

from setuptools import setup

setup()
