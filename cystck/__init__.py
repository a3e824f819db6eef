"""Cystck: an alternative C API for Python extensions.

Extensions include ``Cystck.h`` instead of ``Python.h`` and hold handles into
a per-call array instead of ``PyObject *``; the runtime (C sources compiled
into each extension) owns every reference.  This package provides the header
and runtime sources for building extensions, and the ``cystck-migrate``
translator (``cystck.migrate``).
"""
import pathlib

__version__ = "0.1.0"

_HERE = pathlib.Path(__file__).resolve().parent


def get_include():
    """The directory holding ``Cystck.h``."""
    installed = _HERE / "include"
    if (installed / "Cystck.h").exists():
        return str(installed)
    return str(_HERE.parent / "include")       # running from a source checkout


def get_sources():
    """The runtime's C sources, compiled into every Cystck extension."""
    return sorted(str(p) for p in (_HERE / "src").glob("*.c"))


def get_source_dir():
    """The directory of the runtime sources (for their private header)."""
    return str(_HERE / "src")



def typed_signature(func):
    """The machine-readable signature of a typed method (docs/typed.md), or
    None: the entry for ``func`` in the ``__cystck_signatures__`` of the
    module or type that defines it."""
    import types

    if isinstance(func, types.MethodDescriptorType):          # Type.method
        owner = func.__objclass__
    elif isinstance(func, types.BuiltinFunctionType) and func.__self__ is not None:
        owner = func.__self__
        if not isinstance(owner, types.ModuleType):             # instance.method
            owner = next((c for c in type(owner).__mro__ if func.__name__ in vars(c)), None)
    else:
        return None
    table = vars(owner).get("__cystck_signatures__") if owner is not None else None
    return table.get(func.__name__) if isinstance(table, dict) else None
