"""Shared fixtures: build small extensions once per test session."""
import pytest

from cystck.build import build_extension


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("ext")


@pytest.fixture(scope="session")
def build(build_dir):
    """build(name, sources, **kw) -> path of the built Cystck extension."""
    cache = {}

    def _build(name, sources, **kwargs):
        if name not in cache:
            cache[name] = build_extension(name, sources, build_dir, **kwargs)
        return cache[name]
    return _build


@pytest.fixture(scope="session")
def stock_and_translated_tree(tmp_path_factory):
    """stock_and_translated_tree(name, stock_dir) -> (stock module path,
    translated module path): the folder ``stock_dir`` (holding
    ``NAME.c``) translated by cystck-migrate with ``--check``, and both
    built, for tests that run one script against the two builds."""
    from cystck.migrate import cli

    def _build(name, stock_dir):
        root = stock_dir.parent
        assert cli.main([str(stock_dir), "-o", str(root / "cystck"), "-q", "--no-cppcheck", "--check"]) == 0
        stock = build_extension(name, [stock_dir / f"{name}.c"], root / "build-stock", use_cystck=False)
        ported = build_extension(name, [root / "cystck" / f"{name}.c"], root / "build-cystck")
        return stock, ported
    return _build


@pytest.fixture(scope="session")
def run_script():
    """run_script(script, module_path, debug=False) -> the value the script
    prints (a Python literal), run in a fresh interpreter with the module's
    path as its argument, with CYSTCK_DEBUG=1 or without (``stderr=True``:
    (value, what it wrote to stderr), where debug mode reports references
    never released).  (A fixture, not
    a function to import: see tests/runtime/conftest.py's build_rt.)"""
    import subprocess
    import sys

    def _run(script, module_path, debug=False, stderr=False):
        env = {"PATH": "", **({"CYSTCK_DEBUG": "1"} if debug else {})}
        out = subprocess.run([sys.executable, "-c", script, str(module_path)], capture_output=True, text=True,
                             env=env)
        assert out.returncode == 0, out.stderr
        return (eval(out.stdout), out.stderr) if stderr else eval(out.stdout)
    return _run
