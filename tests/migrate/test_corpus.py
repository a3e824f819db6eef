"""The corpus: small stock C-API extensions, each built as it is and after
migration, imported, and run through the same checks with identical
results."""
import importlib.util
import pathlib
import shutil

import pytest

from cystck.build import build_extension
from cystck.migrate import cli

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"
EXTENSIONS = sorted(p.name for p in CORPUS.iterdir() if (p / "check.py").exists())


def _checks(name):
    spec = importlib.util.spec_from_file_location(f"corpus_check_{name}", CORPUS / name / "check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CHECKS


def _sources(folder):
    return sorted(p for p in folder.iterdir() if p.suffix in (".c", ".cpp"))


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """name -> (stock module, migrated module)."""
    cache = {}

    def get(name):
        if name not in cache:
            root = tmp_path_factory.mktemp(name)
            src = root / "stock"
            shutil.copytree(CORPUS / name, src, ignore=shutil.ignore_patterns("check.py", "__pycache__"))
            out = root / "migrated"
            assert cli.main([str(src), "-o", str(out), "-q", "--no-cppcheck", "--check"]) == 0
            stock = build_extension(name, _sources(src), root / "build-stock", use_cystck=False)
            migrated = build_extension(name, _sources(out), root / "build-cystck")
            cache[name] = (_load(name, stock), _load(name, migrated))
        return cache[name]
    return get


def _load(name, path):
    """Import the extension at ``path`` without registering it, so that
    both builds of one module can be loaded side by side."""
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cases():
    for name in EXTENSIONS:
        for check in _checks(name):
            yield pytest.param(name, check, id=f"{name}-{check.__name__}")


@pytest.mark.parametrize("name,check", list(_cases()))
def test_migrated_behaves_like_stock(builds, name, check):
    stock, migrated = builds(name)
    assert check(migrated) == check(stock)


@pytest.mark.parametrize("name", EXTENSIONS)
def test_migration_is_idempotent(tmp_path, name):
    first, second = tmp_path / "first", tmp_path / "second"
    assert cli.main([str(CORPUS / name), "-o", str(first), "-q", "--no-cppcheck"]) == 0
    assert cli.main([str(first), "-o", str(second), "-q", "--no-cppcheck"]) == 0
    for f in _sources(first):
        assert (second / f.name).read_text() == f.read_text(), f.name
