"""The translator exists under one name only: the checkout's migrate/ imported
as top-level `migrate` (the repository root on sys.path) would hold a second
rule registry beside cystck.migrate's, so it refuses with a clear message."""
import pathlib
import subprocess
import sys

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_in_checkout(code):
    """`python -c code` with the repository root first on sys.path."""
    return subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT,
                          capture_output=True, text=True)


def test_top_level_migrate_refuses_with_install_hint():
    result = run_in_checkout("import migrate")
    assert result.returncode != 0
    assert "ImportError: the translator is the package cystck.migrate, not 'migrate'" in result.stderr
    assert "make .venv/.cystck-stamp" in result.stderr and "pip install ." in result.stderr


def test_installed_cystck_migrate_is_the_only_registry(tmp_path):
    """The installed package imports; the checkout's folder beside it does not."""
    code = ("import sys, cystck.migrate\n"
            f"sys.path.append({str(REPO_ROOT)!r})\n"
            "try:\n    import migrate\nexcept ImportError as e:\n    print('refused:', e)\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("refused: the translator is the package cystck.migrate")


def test_cystck_migrate_imports_from_the_installed_package(tmp_path):
    result = subprocess.run([sys.executable, "-c", "import cystck.migrate, sys; "
                             "print(cystck.migrate.translate_source.__module__)"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "cystck.migrate.translate"
