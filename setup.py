"""Packaging glue that pyproject.toml cannot express: the public header lives
in include/ at the top of the repository and the translator in migrate/, but
both install inside the `cystck` package; and setuptools' build/ and
cystck.egg-info/ go to a temporary folder, not into the source tree."""
import atexit
import pathlib
import shutil
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent


class BuildPyWithHeaders(build_py):
    """Copy include/ into the built package as cystck/include/."""

    def run(self):
        super().run()
        target = pathlib.Path(self.build_lib) / "cystck" / "include"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / "include", target)


def migrate_packages():
    """migrate/ and its sub-packages, installed as cystck.migrate[.*]."""
    found = {}
    for init in sorted((ROOT / "migrate").rglob("__init__.py")):
        rel = init.parent.relative_to(ROOT)
        found["cystck." + ".".join(rel.parts)] = str(rel)
    return found


def scratch_dir():
    """A folder for setuptools' intermediate files, removed at exit.  The
    package is pure Python and data, so nothing is lost by not keeping
    them between builds; the sdist carries PKG-INFO at its top."""
    path = tempfile.mkdtemp(prefix="cystck-setup-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


MIGRATE = migrate_packages()
SCRATCH = scratch_dir()

setup(
    packages=["cystck", *MIGRATE],
    package_dir={"cystck": "cystck", **MIGRATE},
    # The runtime's C sources, named here alone (no include_package_data):
    # cystck/src/ is data, not a package.
    package_data={"cystck": ["src/*.c", "src/*.h"]},
    include_package_data=False,
    cmdclass={"build_py": BuildPyWithHeaders},
    options={"build": {"build_base": str(pathlib.Path(SCRATCH, "build"))},
             "egg_info": {"egg_base": SCRATCH}},
)
