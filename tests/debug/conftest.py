"""Fixtures of the debug-mode tests: the corpus, built once per session."""
import pytest

import debug_harness


@pytest.fixture(scope="session")
def ext(tmp_path_factory):
    """{module name: path of the built extension} for corpus/ and stock/."""
    return debug_harness.build_all(tmp_path_factory.mktemp("debug-corpus"))
