"""cystck-migrate: translate stock C-API extensions to Cystck.

See README.md beside this file.  The pieces: :mod:`.source` (the text model),
:mod:`.project` (facts gathered from every input file), :mod:`.engine` and
:mod:`.rules` (rewriting), :mod:`.analysis` and :mod:`.cppcheck` (checks of
the output), :mod:`.report`, and :mod:`.cli` (the command).
"""
from .translate import translate_files, translate_source  # noqa: F401
