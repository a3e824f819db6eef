"""portkit.build_variants: a failed variant does not stop the others, its
reason is kept until it builds again, and the run fails naming it."""
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import portkit  # noqa: E402


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
