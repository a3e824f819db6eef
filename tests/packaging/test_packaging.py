"""The cystck package builds cleanly, and extension projects build with it:
the README's two routes (a setup.py one-liner; pyproject.toml alone), from a
local wheelhouse holding the freshly built cystck wheel.  Slow-ish (builds,
fresh venvs): a minute or two in all."""
import re
import sys

from setuptools import Distribution, Extension
from setuptools.command.build_ext import build_ext as setuptools_build_ext

import cystck
import cystck.build
from cystck.build import cystck_extension

from packaging_harness import (fresh_venv, pip_env, pip_install, readme_block,
                               readme_extension_source, run)

# setuptools reports what it does not copy into a wheel as "warning: ..."
# on every build of every project; nothing to fix.
ROUTINE_WARNING = re.compile(r"^warning: \w+: byte-compiling is disabled, skipping\.$")


def _warnings(output):
    return [line for line in output.splitlines()
            if re.search(r"warn|deprecat", line, re.I) and not ROUTINE_WARNING.match(line.strip())]


def test_cystck_builds_without_warnings(cystck_dist):
    """`python -m build`: an sdist and a wheel, no warning (the license
    table, cystck/src as an undeclared package...)."""
    _, out, output = cystck_dist
    assert sorted(p.name for p in out.iterdir()) == [
        f"cystck-{cystck.__version__}-py3-none-any.whl", f"cystck-{cystck.__version__}.tar.gz"]
    assert _warnings(output) == []


def test_cystck_build_writes_nothing_into_the_source_tree(cystck_dist, tmp_path):
    """Neither `python -m build` nor pip building in the tree, without
    isolation, as `make` installs cystck into .venv."""
    source, _, _ = cystck_dist
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", tmp_path, source], env=pip_env())
    assert not (source / "build").exists()
    assert list(source.glob("*.egg-info")) == []


def _check_spam(python, tmp_path):
    """spam, installed into `python`'s venv, works there without cystck."""
    run([python, "-I", "-c", "import importlib.util, spam\n"
                             "assert spam.add(2, 3) == 5\n"
                             "assert importlib.util.find_spec('cystck') is None"], cwd=tmp_path)


def test_pyproject_only_project_builds_in_isolation(tmp_path, tools_wheelhouse, cystck_dist):
    """The README's pyproject.toml-only project: `pip install .` under build
    isolation, setuptools and cystck from local folders only."""
    _, cystck_wheels, _ = cystck_dist
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(readme_block("Building an extension", "toml"))
    (project / "spam.c").write_text(readme_extension_source())
    python = fresh_venv(tmp_path / "venv")
    pip_install(python, project, find_links=(tools_wheelhouse, cystck_wheels))
    _check_spam(python, tmp_path)


def test_setup_py_project_with_package_data(tmp_path, tools_wheelhouse, cystck_dist):
    """The README's setup.py one-liner in a project with [project] metadata
    in pyproject.toml and a Python package: setuptools then includes package
    data from the project's manifest, which must not hold the absolute paths
    of the runtime sources.  Built without isolation in a venv holding
    cystck: pip's isolated environments live in a folder whose name holds
    "build", and setuptools leaves out of that check any path that does."""
    assert "build" not in str(tmp_path), "this test needs a temporary folder without 'build'"
    _, cystck_wheels, _ = cystck_dist
    project = tmp_path / "project"
    (project / "spamwrap").mkdir(parents=True)
    (project / "spamwrap" / "__init__.py").write_text("from spam import add\n")
    (project / "spam.c").write_text(readme_extension_source())
    (project / "setup.py").write_text(readme_block("Building an extension", "python"))
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64", "cystck"]\n'
        'build-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "spam"\nversion = "0.1"\n')
    python = fresh_venv(tmp_path / "venv")
    pip_install(python, "cystck", find_links=(tools_wheelhouse, cystck_wheels))
    pip_install(python, "--no-build-isolation", project)
    run([python, "-I", "-c", "import spamwrap; assert spamwrap.add(2, 3) == 5"], cwd=tmp_path)


# The same, one step down: what setuptools takes for the project's sources.

def _source_files(tmp_path, monkeypatch, **attrs):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spam.c").write_text("")
    dist = Distribution({"name": "spam", **attrs})
    command = dist.get_command_obj("build_ext")
    command.ensure_finalized()
    return command.get_source_files()


def test_runtime_is_not_a_project_source(tmp_path, monkeypatch):
    assert _source_files(tmp_path, monkeypatch,
                         ext_modules=[cystck_extension("spam", ["spam.c"])]) == ["spam.c"]


def test_runtime_is_not_a_project_source_with_the_setup_keyword(tmp_path, monkeypatch):
    assert _source_files(tmp_path, monkeypatch,
                         cystck_ext_modules=[Extension("spam", ["spam.c"])]) == ["spam.c"]


class ProjectBuildExt(setuptools_build_ext):
    """A project's own build_ext (kiwisolver's, say, sets compiler flags)."""


def test_project_build_ext_is_kept(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dist = Distribution({"name": "spam", "cmdclass": {"build_ext": ProjectBuildExt},
                         "ext_modules": [cystck_extension("spam", ["spam.c"])]})
    command_class = dist.get_command_class("build_ext")
    assert issubclass(command_class, ProjectBuildExt)
    assert issubclass(command_class, cystck.build.ProjectSourcesOnly)


def test_other_projects_are_left_alone(tmp_path, monkeypatch):
    """The finalize hook runs for every setuptools build in an environment
    with cystck: a project without Cystck extensions keeps setuptools'
    build_ext."""
    monkeypatch.chdir(tmp_path)
    dist = Distribution({"name": "ham", "ext_modules": [Extension("ham", ["ham.c"])]})
    assert dist.get_command_class("build_ext") is setuptools_build_ext


def test_build_ext_command_builds_every_extension_against_cystck(tmp_path, monkeypatch):
    """`cystck.build.build_ext`, the pyproject.toml route: each extension
    gets the include directory and the runtime, none of it in the project's
    sources."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spam.c").write_text("")
    dist = Distribution({"name": "spam", "ext_modules": [Extension("spam", ["spam.c"])],
                         "cmdclass": {"build_ext": cystck.build.build_ext}})
    command = dist.get_command_obj("build_ext")
    command.ensure_finalized()
    (ext,) = command.extensions
    assert ext.sources == ["spam.c", *cystck.get_sources()]
    assert cystck.get_include() in ext.include_dirs
    assert command.get_source_files() == ["spam.c"]


def test_prepare_twice_adds_nothing_more():
    ext = cystck_extension("spam", ["spam.c"])
    before = (list(ext.sources), list(ext.include_dirs))
    cystck.build.prepare(ext)
    assert (ext.sources, ext.include_dirs) == before
