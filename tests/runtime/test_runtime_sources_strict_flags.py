"""The runtime's C sources are compiled into each extension with that
extension's own flags (cystck.build.prepare adds them to its sources), so
they must compile under the strictest flags an upstream setup.py uses:
-O3 with -Werror, where GCC's optimiser warns about what it cannot prove
(multidict's setup.py builds so)."""

import shutil
import subprocess
import sysconfig

import pytest

import cystck

STRICT = ["-O3", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wsign-compare",
          "-fno-strict-aliasing", "-Werror"]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
@pytest.mark.parametrize("source", cystck.get_sources(), ids=lambda p: p.rsplit("/", 1)[-1])
def test_runtime_source_compiles_optimised_without_warnings(tmp_path, source):
    subprocess.run(["gcc", *STRICT, "-fPIC", "-c", source, "-o", str(tmp_path / "out.o"),
                    "-I", cystck.get_include(), "-I", cystck.get_source_dir(),
                    "-I", sysconfig.get_paths()["include"]], check=True)
