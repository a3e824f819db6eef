"""Rule packs.  Importing this package registers every rule with the
engine; each module is one pack (``--rules``/``--exclude`` accept pack names
as well as rule names):

* ``core``      the header, constants, API calls, values escaping into globals
* ``functions`` signatures, declarations, casts, NULL tests, returns, state
* ``refcount``  Py_INCREF/DECREF/CLEAR/NewRef
* ``args``      argument parsing and the argument array
* ``types``     instance structs, type objects and specs, slots, tables
* ``modules``   module definitions and init functions
* ``cppy``      kiwi's cppy helpers (C++ files that include cppy only)
* ``cpp``       C++ idioms: class-static type objects, functors over struct pointers
* ``macros``    macro parameters named like the state, globals named by token pasting
* ``escape``    what has no counterpart, kept through the escape hatch (marked, reported)
"""
from . import args, core, cpp, cppy, escape, functions, macros, modules, refcount, types  # noqa: F401
