"""Helper libraries that an extension may be written over instead of the
bare stock API (a C++ smart pointer, error helpers, cast macros).

The rule pack that translates one such library registers it here: how to
tell that a file uses it, and its *cast macros*, function-like macros that
only cast their argument (``#define as_object( o ) (
reinterpret_cast<PyObject*>( o ) )``).  The core rules and the project
pass read these facts from here, so that no core module names one
library's identifiers: the library's idioms live in its pack alone."""
import functools
from dataclasses import dataclass, field

import regex


@dataclass(frozen=True)
class Library:
    name: str            # what its rules give as their ``library``
    uses: str            # a pattern found (outside comments) in a file that uses it
    language: str = None  # the language its files are written in ("c++"), if not C
    #: cast macro -> the pointer type it casts to ("PyObject*", "void*"...)
    casts: dict = field(default_factory=dict)


_LIBRARIES = {}


def register(library):
    """Make ``library`` known to the core (a pack calls this on import)."""
    _LIBRARIES[library.name] = library
    cast_macros.cache_clear()


def registered():
    """Every registered library."""
    from . import rules  # noqa: F401  (importing the packs registers their libraries)
    return tuple(_LIBRARIES.values())


def used_by(text):
    """The names of the libraries ``text`` uses, and their languages (the
    ``Unit.libraries`` entries they contribute)."""
    names = set()
    for lib in registered():
        if regex.search(lib.uses, text):
            names.add(lib.name)
            if lib.language:
                names.add(lib.language)
    return names


def uses_any(masked):
    """Does the masked text use one of the libraries?"""
    return any(regex.search(lib.uses, masked) for lib in registered())


@functools.lru_cache(maxsize=None)
def cast_macros(*targets):
    """The registered cast macros that cast to one of ``targets`` (spelled
    without spaces, ``PyObject*``), or all of them when none is given."""
    return tuple(sorted(name for lib in registered() for name, to in lib.casts.items()
                        if not targets or to.replace(" ", "") in targets))


def cast_macro_pattern(*targets):
    """A regular expression matching the name of one of those cast macros
    (one that never matches when there is none)."""
    names = cast_macros(*targets)
    return r"\b(?:" + "|".join(map(regex.escape, names)) + r")\b" if names else r"(?!)"
