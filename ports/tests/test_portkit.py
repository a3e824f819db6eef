"""portkit.build_variants: a failed variant does not stop the others, its
reason is kept until it builds again, and the run fails naming it.
portkit.fill_wheelhouse: offline first, with or without dependencies."""
import os
import shutil
import signal
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest

from ports import portkit


def run(tmp_path, outcomes, lines):
    def build_one(variant):
        outcome = outcomes[variant]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    portkit.build_variants(
        "demo", list(outcomes), build_one,
        error_file=lambda v: tmp_path / v / "build.error",
        wheel_path=lambda v: tmp_path / "dist" / f"{v}.whl",
        repo_root=tmp_path,
        failure_message=lambda v, exc: f"{v} broke: {exc}",
        log=lines.append)


def test_a_failure_is_kept_and_reported_after_the_others_build(tmp_path):
    lines = []
    with pytest.raises(SystemExit, match=r"demo: the bad, worse build failed"):
        run(tmp_path, {"good": True, "bad": RuntimeError("no compiler"),
                       "kept": False,
                       "worse": subprocess.CalledProcessError(2, ["cc"])}, lines)
    assert (tmp_path / "bad" / "build.error").read_text() == "bad broke: no compiler\n"
    assert (tmp_path / "worse" / "build.error").is_file()
    assert not (tmp_path / "good" / "build.error").exists()
    assert lines[0].startswith("good ") and "dist/good.whl (built in" in lines[0]
    assert lines[1] == "bad           FAILED: no compiler"
    assert lines[2].endswith("dist/kept.whl (up to date)")


def test_a_variant_that_builds_again_loses_its_old_error(tmp_path):
    (tmp_path / "fixed").mkdir()
    (tmp_path / "fixed" / "build.error").write_text("old reason\n")
    run(tmp_path, {"fixed": True}, [])
    assert not (tmp_path / "fixed" / "build.error").exists()


def make_wheel(folder, name, requires=()):
    """A minimal pure-Python wheel `name`-1.0 in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"{name}-1.0.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(folder / f"{name}-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{name}/__init__.py", "")
        wheel.writestr(f"{info}/METADATA", metadata)
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\n"
                                        "Root-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")


def no_index_env(tmp_path):
    """pip's environment whose index is an empty local folder: a download
    that the wheelhouse cannot satisfy fails, without the network."""
    (tmp_path / "empty-index").mkdir()
    return dict(os.environ, PIP_CONFIG_FILE=os.devnull,
                PIP_INDEX_URL=(tmp_path / "empty-index").as_uri())


def test_fill_wheelhouse_is_satisfied_offline_by_the_wheels_it_has(tmp_path):
    wheelhouse = tmp_path / "wheelhouse"
    make_wheel(wheelhouse, "leaf")
    make_wheel(wheelhouse, "tree", requires=["leaf"])
    portkit.fill_wheelhouse(["tree==1.0"], wheelhouse, env=no_index_env(tmp_path))
    assert sorted(p.name for p in wheelhouse.iterdir()) == [
        "leaf-1.0-py3-none-any.whl", "tree-1.0-py3-none-any.whl"]


def test_fill_wheelhouse_wants_the_dependencies_unless_told_not_to(tmp_path):
    wheelhouse = tmp_path / "wheelhouse"
    make_wheel(wheelhouse, "tree", requires=["missing-leaf"])
    env = no_index_env(tmp_path)
    portkit.fill_wheelhouse(["tree"], wheelhouse, deps=False, env=env)
    with pytest.raises(SystemExit, match=r"could not download tree into "):
        portkit.fill_wheelhouse(["tree"], wheelhouse, env=env)


def test_fill_wheelhouse_of_nothing_makes_no_folder(tmp_path):
    portkit.fill_wheelhouse((), tmp_path / "wheelhouse")
    assert not (tmp_path / "wheelhouse").exists()


def test_input_signature_frames_every_input():
    """The same inputs give the same hash; bytes moved from one input to the
    next, or a label changed, give another (a stale wheel is rebuilt)."""
    def signature(*inputs):
        s = portkit.InputSignature()
        for label, data in inputs:
            s.add(label, data)
        return s.hexdigest()

    base = signature(("sdist", "abc"), ("patch", b"de"))
    assert base == signature(("sdist", b"abc"), ("patch", "de"))
    assert base != signature(("sdist", "ab"), ("patch", "cde"))
    assert base != signature(("sdist", "abc"), ("hpy-patch", "de"))


class DemoRecipe(portkit.Recipe):
    """A recipe whose steps only record what the driver asked of them."""

    name = "demo"
    variants = ("stock", "cystck")

    def __init__(self, root, failing=()):
        self.repo_root = root
        self.manual_patch = root / "manual.patch"
        self.failing = failing
        self.calls = []
        self.lines = []

    def wheel_path(self, variant):
        return self.repo_root / "dist" / f"{variant}.whl"

    def build_error_file(self, variant):
        return self.repo_root / variant / "build.error"

    def prepare(self, variant):
        self.calls.append(("prepare", variant))
        return self.repo_root / variant / "src"

    def build_one(self, variant, force, prepare):
        self.calls.append(("build", variant, force, prepare))
        if variant in self.failing:
            raise RuntimeError("no compiler")
        return True

    def save_patch(self):
        self.calls.append(("save-patch",))

    def log(self, line):
        self.lines.append(line)


def test_recipe_command_line_drives_the_port_steps(tmp_path):
    recipe = DemoRecipe(tmp_path)
    recipe.main(["wheels"])
    assert recipe.calls == [("build", "stock", False, True), ("build", "cystck", False, True)]
    recipe.calls.clear()
    recipe.main(["wheels", "--variants", "cystck", "--force", "--no-prepare"])
    assert recipe.calls == [("build", "cystck", True, False)]
    recipe.calls.clear()
    recipe.main(["prepare", "--variants", "cystck"])
    assert recipe.calls == [("prepare", "cystck")]
    assert recipe.lines[-1] == f"cystck        {Path('cystck', 'src')}"
    recipe.calls.clear()
    recipe.main(["save-patch"])
    assert recipe.calls == [("save-patch",)]


def test_recipe_command_line_refuses_what_the_port_lacks(tmp_path, capsys):
    recipe = DemoRecipe(tmp_path)
    with pytest.raises(SystemExit):
        recipe.main(["wheels", "--variants", "stock,hpy_universal"])
    assert "unknown variant(s) hpy_universal" in capsys.readouterr().err
    with pytest.raises(SystemExit):     # no hpy.patch, no save-hpy-patch
        recipe.main(["save-hpy-patch"])
    assert recipe.calls == []


def test_recipe_wheels_goes_on_past_a_failed_variant(tmp_path):
    recipe = DemoRecipe(tmp_path, failing=("stock",))
    with pytest.raises(SystemExit, match="demo: the stock build failed"):
        recipe.main(["wheels"])
    assert [c[1] for c in recipe.calls] == ["stock", "cystck"]
    assert (tmp_path / "stock" / "build.error").read_text() == "no compiler\n"


def test_a_wheel_is_up_to_date_only_with_its_signature(tmp_path):
    wheel, stamp = tmp_path / "x.whl", tmp_path / "build.signature"
    assert not portkit.is_up_to_date(stamp, "abc", wheel)       # neither
    stamp.write_text("abc")
    assert not portkit.is_up_to_date(stamp, "abc", None)        # no wheel
    assert portkit.is_up_to_date(stamp, "abc", wheel)
    assert not portkit.is_up_to_date(stamp, "abd", wheel)       # other inputs


def test_checkout_packages_import_from_anywhere_after_the_installed_cystck(tmp_path):
    """The venv's .pth (the Makefile's .venv/.checkout-stamp) lets any
    interpreter import `ports` and `eval` from the checkout, without a
    sys.path line in the code, and appends the checkout: cystck stays the
    installed package (with cystck.migrate), not the source tree's folder."""
    repo = Path(portkit.__file__).resolve().parents[1]
    code = ("import cystck, cystck.migrate, eval.harness.stats, ports.portkit\n"
            "print(cystck.__file__); print(ports.portkit.__file__)")
    result = subprocess.run([sys.executable, "-I", "-c", code], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    cystck_file, portkit_file = result.stdout.split()
    assert not Path(cystck_file).is_relative_to(repo / "cystck")
    assert Path(portkit_file) == repo / "ports" / "portkit.py"


def test_recipe_takes_its_names_from_the_port_module(tmp_path):
    """`class R(Recipe, port=module)`: the port's variant module, not the
    recipe, says what the variants, paths and wheels are."""
    module = types.SimpleNamespace(
        PORT_DIR=tmp_path / "ports" / "demo", VARIANTS={"stock": 1, "cystck": 2},
        REPO_ROOT=tmp_path, MANUAL_PATCH=tmp_path / "manual.patch",
        wheel_path=lambda v: tmp_path / f"{v}.whl",
        build_error_file=lambda v: tmp_path / v / "build.error")

    class ModuleRecipe(portkit.Recipe, port=module):
        pass

    recipe = ModuleRecipe()
    assert (recipe.name, recipe.variants, recipe.repo_root) == ("demo", ("stock", "cystck"), tmp_path)
    assert recipe.manual_patch == tmp_path / "manual.patch" and recipe.hpy_patch is None
    assert recipe.wheel_path("cystck") == tmp_path / "cystck.whl"
    assert recipe.build_error_file("stock") == tmp_path / "stock" / "build.error"
    module.HPY_PATCH = tmp_path / "hpy.patch"

    class WithHPy(portkit.Recipe, port=module):
        pass

    assert WithHPy().hpy_patch == tmp_path / "hpy.patch"


def test_single_wheel_is_none_one_or_an_error(tmp_path):
    assert portkit.single_wheel(tmp_path, "demo-*.whl", "demo") is None
    (tmp_path / "demo-1-py3-none-any.whl").write_text("")
    (tmp_path / "other-1-py3-none-any.whl").write_text("")
    assert portkit.single_wheel(tmp_path, "demo-*.whl", "demo") == tmp_path / "demo-1-py3-none-any.whl"
    (tmp_path / "demo-2-py3-none-any.whl").write_text("")
    with pytest.raises(RuntimeError, match="several demo wheels in .*: demo-1-py3-none-any.whl, "
                                           "demo-2-py3-none-any.whl"):
        portkit.single_wheel(tmp_path, "demo-*.whl", "demo")


def test_describe_exit_names_the_signal_or_the_status():
    killed = subprocess.CompletedProcess(["x"], -signal.SIGSEGV, "out", "e" * 10)
    assert portkit.describe_exit(killed, tail=3) == (
        "crashed with SIGSEGV\n--- stdout ---\nout\n--- stderr ---\neee")
    failed = subprocess.CompletedProcess(["x"], 2, "", "boom")
    assert portkit.describe_exit(failed).startswith("exited with status 2\n")


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_callgrind_instructions_counts_more_for_more_work():
    def count(n):
        return portkit.callgrind_instructions(
            [sys.executable, "-I", "-S", "-c", f"for _ in range({n}): pass"])

    assert count(200_000) > count(1) > 0
    with pytest.raises(RuntimeError, match="callgrind run failed"):
        portkit.callgrind_instructions([str(Path(sys.executable).with_name("no-such-program"))])


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_callgrind_instructions_do_not_count_compiling_a_module_once(tmp_path):
    # The first process to import a module compiles it and writes its
    # __pycache__; the count must be that of every later process.
    (tmp_path / "big_module.py").write_text("".join(
        f"def f{i}(a, b):\n    return [a + b * {i} for _ in range({i})]\n" for i in range(400)))
    command = [sys.executable, "-I", "-S", "-c",
               f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import big_module"]
    first = portkit.callgrind_instructions(command)
    assert (tmp_path / "__pycache__").is_dir()
    second = portkit.callgrind_instructions(command)
    assert abs(first - second) < 0.01 * second, (first, second)
