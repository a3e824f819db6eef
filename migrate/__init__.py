"""cystck-migrate: translate stock C-API extensions to Cystck.

See README.md beside this file.  The pieces: :mod:`.source` (the text model),
:mod:`.project` (facts gathered from every input file), :mod:`.engine` and
:mod:`.rules` (rewriting), :mod:`.analysis` and :mod:`.cppcheck` (checks of
the output), :mod:`.report`, and :mod:`.cli` (the command).
"""
if __name__ != "cystck.migrate":
    # Imported as top-level `migrate` (the repository root on sys.path): its
    # rules would register in a second registry beside cystck.migrate's.
    raise ImportError(
        f"the translator is the package cystck.migrate, not {__name__!r}: install "
        "Cystck (`make .venv/.cystck-stamp` or `pip install .`) and import cystck.migrate")

from .translate import translate_files, translate_source  # noqa: F401  (after the guard)
