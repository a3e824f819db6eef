"""What the packaging tests share: fresh virtual environments, offline pip,
the README's examples, a copy of this checkout.

pip runs with no configuration file (PIP_CONFIG_FILE=os.devnull) and, except
to fill the wheelhouse once, with no index: the tests see only the wheels
they name, whatever the machine's pip configuration says.
"""
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: setuptools for isolated builds, downloaded once and kept.  Not under
#: build/, where each port's wheelhouse (build/<port>/wheelhouse) holds its
#: wheels' run-time requirements alone.
TOOLS_WHEELHOUSE = REPO / ".cache" / "packaging" / "wheelhouse"
BUILD_TOOLS = ("setuptools>=77",)


def pip_env(*find_links):
    """The environment of a pip (or build front end) that installs from
    `find_links` only."""
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_NO_INDEX="1", PIP_FIND_LINKS=" ".join(str(f) for f in find_links))
    env.pop("PYTHONPATH", None)
    return env


def run(command, *, env=None, cwd=None, timeout=300):
    """Run `command`; fail the test with its output if it fails."""
    result = subprocess.run([str(c) for c in command], env=env, cwd=cwd, capture_output=True,
                            text=True, timeout=timeout)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(str(c) for c in command)} exited with status "
                    f"{result.returncode}\n--- stdout ---\n{result.stdout[-6000:]}"
                    f"\n--- stderr ---\n{result.stderr[-6000:]}", pytrace=False)
    return result


def fresh_venv(path):
    """A new virtual environment without pip (this interpreter's pip
    installs into it with --python); returns its interpreter."""
    venv.create(path, with_pip=False)
    return path / "bin" / "python"


def pip_install(python, *args, find_links=()):
    """`pip install args` into the environment of `python`, offline."""
    return run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet",
                "--no-compile", *args], env=pip_env(*find_links))


def readme_block(section, language):
    """The first ```language block of README.md's `section`: the tests build
    the examples the README gives."""
    text = (REPO / "README.md").read_text()
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    match = re.search(rf"^```{language}\n(.*?)^```$", text[start:end], flags=re.M | re.S)
    assert match, f"README.md, {section}: no {language} block"
    return match.group(1)


def readme_extension_source():
    """spam.c, the complete extension at the top of README.md."""
    match = re.search(r"^```c\n(.*?)^```$", (REPO / "README.md").read_text(), flags=re.M | re.S)
    return match.group(1)


def copy_checkout(dest):
    """The files of this checkout (tracked, or new and not ignored) in
    `dest`, so that a build can be watched for what it writes."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        source = REPO / rel
        if source.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)
    return dest
