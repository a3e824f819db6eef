"""Rule packs.  Importing this package registers every rule with the
engine; each module is one pack (``--rules``/``--exclude`` accept pack names
as well as rule names):

* ``core``      the header, constants, API calls, values escaping into globals
* ``functions`` signatures, declarations, casts, NULL tests, returns, state
* ``refcount``  Py_INCREF/DECREF/CLEAR/NewRef
* ``args``      argument parsing and the argument array
* ``types``     instance structs, type objects and specs, slots, tables
* ``modules``   module definitions and init functions
* ``cpp``       C++ idioms: class-static type objects, functors over struct pointers
* ``macros``    macro parameters named like the state, globals named by token pasting
* ``descr``     a type's MRO and dict, descriptor slots tested or called
* ``escape``    what has no counterpart, kept through the escape hatch (marked, reported)

and one pack per helper library an extension may be written over, for the
files that use it only; it registers what the core needs to know of its
library with :mod:`..libraries` (``--list-rules`` shows every pack).
"""
import importlib
import pkgutil

# Importing the modules registers their rules (a module defining rules is a pack).
for _pack in pkgutil.iter_modules(__path__):
    if not _pack.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_pack.name}")
