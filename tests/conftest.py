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
