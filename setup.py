"""Packaging glue that pyproject.toml cannot express: the public header lives
in include/ at the top of the repository and the translator in migrate/, but
both install inside the `cystck` package."""
import pathlib
import shutil

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


MIGRATE = migrate_packages()

setup(
    packages=["cystck", *MIGRATE],
    package_dir={"cystck": "cystck", **MIGRATE},
    package_data={"cystck": ["src/*.c", "src/*.h"]},
    cmdclass={"build_py": BuildPyWithHeaders},
)
