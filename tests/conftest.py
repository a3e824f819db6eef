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
    built, for tests that run one script against the two builds.
    ``check=False`` translates without ``--check``, which compiles every
    .c file alone (the files a unity build's NAME.c includes do not)."""
    from cystck.migrate import cli

    def _build(name, stock_dir, check=True):
        root = stock_dir.parent
        assert cli.main([str(stock_dir), "-o", str(root / "cystck"), "-q", "--no-cppcheck"]
                        + ["--check"] * check) == 0
        stock = build_extension(name, [stock_dir / f"{name}.c"], root / "build-stock", use_cystck=False)
        ported = build_extension(name, [root / "cystck" / f"{name}.c"], root / "build-cystck")
        return stock, ported
    return _build


@pytest.fixture(scope="session")
def stock_and_translated_files(tmp_path_factory):
    """stock_and_translated_files(name, files, sources) -> {"stock": path,
    "cystck": path}: ``files`` (path -> stock text, headers included)
    written as they are and as ``translate_files`` translates them, and
    both built from the files named in ``sources``, for tests of idioms
    that span several files."""
    from cystck.migrate import translate

    def _build(name, files, sources):
        out = {}
        for variant in ("stock", "cystck"):
            tmp = tmp_path_factory.mktemp(f"{name}_{variant}")
            texts = files if variant == "stock" else \
                {p: u.text for p, u in translate.translate_files(files).items()}
            for path, text in texts.items():
                (tmp / path).write_text(text)
            out[variant] = build_extension(name, [tmp / s for s in sources], tmp / "build",
                                           use_cystck=variant == "cystck", include_dirs=[str(tmp)])
        return out
    return _build


@pytest.fixture(scope="session")
def stock_and_translated(tmp_path_factory, stock_and_translated_tree):
    """stock_and_translated(name, source) -> (stock module path, translated
    module path): ``source``, the text of NAME.c, written into a folder of
    its own and given to stock_and_translated_tree."""
    def _build(name, source):
        stock = tmp_path_factory.mktemp(name) / "stock"
        stock.mkdir()
        (stock / f"{name}.c").write_text(source)
        return stock_and_translated_tree(name, stock)
    return _build


@pytest.fixture(scope="session")
def run_script():
    """run_script(script, module_path, debug=False) -> the value the script
    prints (a Python literal), run in a fresh interpreter with CYSTCK_DEBUG=1
    or without.  The script starts with the extension at module_path
    loaded as ``m`` (its module name the file name up to the first dot),
    ``sys`` imported and ``outcome(f, *args, **kw)``, the value of the call
    or the name and message of the exception it raised, defined;
    sys.argv[1] is the module's path.  ``env`` adds
    environment variables (CYSTCK_HANDLE_LIMIT...).  ``stderr=True``:
    (value, what it wrote to stderr), where debug mode reports references
    never released.  (A fixture, not a
    function to import: see tests/runtime/conftest.py's build_rt.)"""
    import pathlib
    import subprocess
    import sys

    def _run(script, module_path, debug=False, env=None, stderr=False):
        env = {"PATH": "", **({"CYSTCK_DEBUG": "1"} if debug else {}), **(env or {})}
        name = pathlib.Path(module_path).name.split(".")[0]
        load = ("import importlib.util, sys\n"
                f"spec = importlib.util.spec_from_file_location({name!r}, sys.argv[1])\n"
                "m = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(m)\n"
                "def outcome(f, *args, **kw):\n    try:\n        return f(*args, **kw)\n"
                "    except Exception as e:\n        return type(e).__name__, str(e)\n")
        out = subprocess.run([sys.executable, "-c", load + script, str(module_path)], capture_output=True,
                             text=True, env=env)
        assert out.returncode == 0, out.stderr
        return (eval(out.stdout), out.stderr) if stderr else eval(out.stdout)
    return _run


@pytest.fixture(scope="session")
def same_as_stock(stock_and_translated, run_script):
    """same_as_stock(name, source, script) -> what ``script`` prints (see
    run_script) with the stock build of ``source`` (the text of NAME.c),
    once the build of its translation has printed the same, in release and
    with CYSTCK_DEBUG=1."""
    def _check(name, source, script):
        stock, ported = stock_and_translated(name, source)
        want = run_script(script, stock)
        assert run_script(script, ported) == want
        assert run_script(script, ported, debug=True) == want
        return want
    return _check
