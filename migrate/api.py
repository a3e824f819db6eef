"""What the translator knows about the Cystck API, read from the API table
and the public header (never duplicated here): the stock -> Cystck name
mapping, which functions create handles or consume them, and the constants
that exist as handles (``Cystck_None``, ``CystckExc_ValueError``,
``CystckLong_Type``...)."""
import functools
import pathlib
import sysconfig

import regex

import cystck
from cystck import gen_api

# Stock names the table maps but whose calls are not a plain rename with S
# inserted; rules of their own translate them (see the rule named here).
SPECIAL = {
    "Py_NewRef": "refcount", "Py_DECREF": "refcount", "Py_Is": "identity",
    "PyObject_New": "object-new", "PyType_FromSpecWithBases": "type-ready",
    "PyArg_ParseTuple": "parse-args", "PyArg_ParseTupleAndKeywords": "parse-args",
    "PyArg_UnpackTuple": "parse-args", "_PyArg_NoKeywords": "parse-args",
    "PyMemoryView_FromMemory": "left-over",
    "PyObject_TypeCheck": "py-type", "Py_IS_TYPE": "py-type",
    "PyLong_FromVoidPtr": "object-id",
    # in the table as Cystck_NewZeroed's counterpart, which takes no item
    # count, and CystckType_GenericAlloc's, which does: the object-new rule
    # writes the calls it can port
    "PyType_GenericAlloc": "object-new",
}
# Of those, the ones whose rule ports some calls only (PyLong_FromVoidPtr of
# a handle): the calls it leaves are kept through the escape hatch.
SPECIAL_ELSE_ESCAPED = frozenset({"PyLong_FromVoidPtr", "PyType_GenericAlloc"})

# CPython's allocator is kept, not mapped to its table counterparts: a
# CystckMem_Malloc block carries a policy header that CystckMem_Free reads,
# so PyMem_Free of a buffer CPython allocated (PyUnicode_AsWideCharString's)
# must not become CystckMem_Free, and a block C allocates and frees itself
# needs no policy.  Only a block handed to Python needs one: exposing memory
# (PyMemoryView_FromMemory) is left for a human, who allocates that block
# with CystckMem_Malloc and hands it over with CystckMem_AsMemoryView.
PLAIN_ALLOCATOR = frozenset({"PyMem_Malloc", "PyMem_Calloc", "PyMem_Realloc", "PyMem_Free"})

# Stock names that stay valid under Cystck.h (it includes Python.h) and
# involve no object: C memory, sizes, constants, buffer views, reading and
# writing the characters of a string's data (PyUnicode_READ/WRITE take its kind
# and data pointer), ...
KEEP_STOCK = regex.compile(
    r"^(?:PyMem_\w+|PyObject_(?:Malloc|Calloc|Realloc|Free)|Py_ssize_t|Py_hash_t|Py_uhash_t|PyDoc_STR|PyDoc_STRVAR|Py_UCS[124]"
    r"|Py_buffer|PyBUF_\w+|PyBuffer_Release|PY_SSIZE_T_\w+|PY_\w+|Py_UNUSED|Py_MIN|Py_MAX|Py_ABS"
    r"|Py_ARRAY_LENGTH|Py_NAN|Py_HUGE_VAL|Py_IS_NAN|Py_IS_INFINITY|Py_IS_FINITE|Py_LOCAL_INLINE"
    r"|Py_LOCAL|Py_UNREACHABLE|Py_MEMCPY|Py_CHARMASK|Py_LL|Py_ULL|Py_(?:EQ|NE|LT|LE|GT|GE)"
    r"|PyUnicode_[124]BYTE_KIND|PyUnicode_WCHAR_KIND|PyUnicode_READ|PyUnicode_WRITE|Py_TPFLAGS_\w+|PyTrash_\w+|Py_GIL_DISABLED"
    r"|Py_MOD_\w+|Py_mod_(?:multiple_interpreters|gil)|Py_LIMITED_API|PyCapsule_Destructor|Py_DEBUG|Py_DecodeLocale|Py_EncodeLocale"
    r"|PyOS_snprintf|PyOS_double_to_string|PyOS_string_to_double|PyOS_\w+|Py_SAFE_DOWNCAST"
    r"|Py_BUILD_ASSERT\w*|Py_STRINGIFY|Py_UINTPTR_T|Py_INTPTR_T|PyLong_SHIFT|Py_(?:Begin|End)Allow\w*"
    r"|Py_BEGIN_ALLOW_THREADS|Py_END_ALLOW_THREADS|PyGILState_\w+|PyMODINIT_FUNC|Py_(?:MAJOR|MINOR)\w*"
    # thread locks and their types (no object), the argument count of a
    # vectorcall (arithmetic on nargsf)
    r"|PyThread_\w+|PyMutex(?:_\w+)?|PyVectorcall_NARGS"
    # integer types for pointers, taking the GIL back inside a
    # Py_BEGIN_ALLOW_THREADS block, the recursion limit, code point tests
    # (Py_UNICODE_IS_SURROGATE(ch)): no object either
    r"|Py_u?intptr_t|Py_(?:UN)?BLOCK_THREADS|Py_GetRecursionLimit|Py_UNICODE_\w+)$")


@functools.lru_cache(maxsize=None)
def table():
    return gen_api.parse()


@functools.lru_cache(maxsize=None)
def stock_map():
    """stock name -> Cystck name, for plain renames (S inserted first)."""
    mapping = {k: v for k, v in gen_api.stock_to_cystck().items()
               if k not in SPECIAL and k not in PLAIN_ALLOCATOR}
    return mapping


@functools.lru_cache(maxsize=None)
def stock_returns():
    """Stock function name -> its C return type, read from the headers of
    the running CPython (``PyAPI_FUNC(PyObject *) PyUnicode_New(...)`` and
    ``static inline`` functions): what the escape hatch needs to know to
    give a result a handle."""
    include = pathlib.Path(sysconfig.get_paths()["include"])
    declared = regex.compile(r"PyAPI_FUNC\(\s*(?P<ret>[^)]*?)\s*\)\s*(?P<name>\w+)\s*\("
                             r"|static\s+inline\s+(?P<ret>[\w\s*]+?)\s*\b(?P<name>_?Py\w+)\s*\(")
    # a C API exported through a capsule (datetime.h): the function
    # pointers of its struct, ``PyObject *(*Date_FromDate)(...)``, as
    # ``->Date_FromDate``, and the macros calling them
    pointer = regex.compile(r"(?P<ret>\b\w+\s*\**)\s*\(\s*\*\s*(?P<name>\w+)\s*\)\s*\(")
    through = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>_?Py\w+)\([^)]*\)(?:[ \t]|\\\n)*"
                            r"\w+->(?P<member>\w+)\(", regex.M)
    out = {}
    for header in sorted(include.rglob("*.h")):
        text = header.read_text(errors="replace")
        for m in declared.finditer(text):
            out.setdefault(m.group("name"), " ".join(m.group("ret").split()))
        for line in (ln for ln in text.splitlines() if "(*" in ln):     # (fast: few lines have one)
            for m in pointer.finditer(line):
                out.setdefault("->" + m.group("name"), " ".join(m.group("ret").split()))
        for m in through.finditer(text):
            if "->" + m.group("member") in out:
                out.setdefault(m.group("name"), out["->" + m.group("member")])
    return out


@functools.lru_cache(maxsize=None)
def stock_defined_names():
    """The ``Py``/``_Py`` names the running CPython's headers define: its
    functions (stock_returns) and its macros.  A name an extension defines
    under ``#ifndef NAME`` is CPython's where it is one of these, and the
    extension's own (a Python 2 name kept for Python 3) where not."""
    include = pathlib.Path(sysconfig.get_paths()["include"])
    defined = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(_?Py\w+)", regex.M)
    names = set(stock_returns())
    for header in sorted(include.rglob("*.h")):
        names.update(defined.findall(header.read_text(errors="replace")))
    return frozenset(names)


@functools.lru_cache(maxsize=None)
def stock_typedef_returns():
    """Stock function-pointer typedef -> its C return type, read from the
    headers of the running CPython (``typedef PyObject *(*binaryfunc)(...)``
    gives ``binaryfunc: PyObject *``): the slot types of the API table."""
    include = pathlib.Path(sysconfig.get_paths()["include"])
    typedef = regex.compile(r"\btypedef\s+(?P<ret>[\w\s*]+?)\s*\(\s*\*\s*(?P<name>\w+)\s*\)\s*\(")
    out = {}
    for header in sorted(include.rglob("*.h")):
        for m in typedef.finditer(header.read_text(errors="replace")):
            out.setdefault(m.group("name"), " ".join(m.group("ret").replace("*", " * ").split()))
    return out


@functools.lru_cache(maxsize=None)
def slots():
    """The slots CYSTCK_DEF_SLOT accepts: name -> the API table's line
    (``gen_api.Definition``: stock typedef, implementation signature)."""
    return {d.name: d for d in gen_api.slots()}


@functools.lru_cache(maxsize=None)
def conventions():
    """The calling conventions CYSTCK_DEF_METH accepts, in the table's
    order: name -> the API table's line (``gen_api.Definition``: the stock
    ml_flags it stands for, implementation signature)."""
    return {d.name: d for d in gen_api.parse_definitions() if d.kind == "conv"}


@functools.lru_cache(maxsize=None)
def stock_object_values():
    """Names of the headers of the running CPython that are macros reading
    an object member of a C API exported in a capsule (datetime.h's
    ``#define PyDateTime_TimeZone_UTC PyDateTimeAPI->TimeZone_UTC``, the
    struct's member declared ``PyObject *TimeZone_UTC;``): a borrowed
    object that is no call, which the escape hatch gives a handle."""
    include = pathlib.Path(sysconfig.get_paths()["include"])
    member = regex.compile(r"^[ \t]*PyObject\s*\*\s*(?P<member>\w+)\s*;", regex.M)
    reading = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>_?Py\w+)[ \t]+_?Py\w*API\s*->\s*(?P<member>\w+)"
                            r"[ \t]*$", regex.M)
    out = set()
    for header in sorted(include.rglob("*.h")):
        text = header.read_text(errors="replace")
        if "API->" not in text:
            continue
        members = set(member.findall(text))
        out |= {m.group("name") for m in reading.finditer(text) if m.group("member") in members}
    return frozenset(out)


@functools.lru_cache(maxsize=None)
def stock_capi_objects():
    """The object members of the C APIs exported in capsules, as
    ``->member`` (datetime.h's ``PyTypeObject *DateType;`` of
    ``PyDateTime_CAPI``, read through ``PyDateTimeAPI->DateType``), read
    from the headers of the running CPython: borrowed objects that are
    no call, which the escape hatch gives a handle where one is wanted."""
    include = pathlib.Path(sysconfig.get_paths()["include"])
    member = regex.compile(r"^[ \t]*(?:PyObject|PyTypeObject)\s*\*\s*(?P<member>\w+)\s*;", regex.M)
    out = set()
    for header in sorted(include.rglob("*.h")):
        text = header.read_text(errors="replace")
        if "API->" in text:
            out |= {"->" + m for m in member.findall(text)}
    return frozenset(out)


@functools.lru_cache(maxsize=None)
def stock_type_params():
    """Stock function name -> the positions of its ``PyTypeObject *``
    parameters, read from the headers of the running CPython as
    stock_returns() is: a handle the escape hatch lends there is cast
    (``PyType_HasFeature(t, f)`` takes a type, a handle lends a
    ``PyObject *``)."""
    include = pathlib.Path(sysconfig.get_paths()["include"])
    declared = regex.compile(r"(?:PyAPI_FUNC\([^)]*\)|static\s+inline\s+[\w\s*]+?)\s*\b(?P<name>_?Py\w+)"
                             r"\s*\((?P<params>[^()]*)\)")
    typed = regex.compile(r"\s*(?:const\s+)?PyTypeObject\s*\*")
    out = {}
    for header in sorted(include.rglob("*.h")):
        for m in declared.finditer(header.read_text(errors="replace")):
            at = frozenset(i for i, p in enumerate(m.group("params").split(",")) if typed.match(p))
            if at:
                out.setdefault(m.group("name"), at)
    return out


@functools.lru_cache(maxsize=None)
def by_name():
    return {f.name: f for f in table()}


@functools.lru_cache(maxsize=None)
def private_struct_types():
    """Stock private struct types (``_PyUnicodeWriter``), and public ones
    that head a family of functions (``PyUnicodeWriter``), -> their Cystck
    counterparts (``CystckUnicodeWriter``, ``CystckStrWriter``), from the
    table's type lines: C code declares such a struct (or a pointer to it)
    and hands it to the API, so the declaration must name the struct the
    Cystck functions take."""
    return {d.stock: d.name for d in gen_api.parse_definitions()
            if d.kind == "type" and (regex.fullmatch(r"_Py\w+", d.stock) or _created_by_the_api(d))}


def _created_by_the_api(d):
    """Is the public type ``d.stock`` an opaque struct that a function of
    the table creates, C code holding only a pointer to it
    (``PyUnicodeWriter *``, made by ``PyUnicodeWriter_Create``, whose
    counterpart returns a ``CystckStrWriter*``)?"""
    return regex.fullmatch(r"Py\w+", d.stock) is not None and any(
        f.stock.startswith(d.stock + "_") and f.ret.replace(" ", "") == d.name + "*" for f in table())


@functools.lru_cache(maxsize=None)
def constant_aliases():
    """Stock constants that name the object of another one (``PyExc_IOError``
    is ``PyExc_OSError``) -> the handle constant for it, from the table's
    const lines that list several stock names (``~ PyExc_OSError,
    PyExc_IOError``)."""
    return {alias.strip(): d.name for d in gen_api.parse_definitions() if d.kind == "const"
            for alias in d.stock.split(",")[1:]}


@functools.lru_cache(maxsize=None)
def creating():
    """Cystck functions that create owned handles ([h+N] in the table)."""
    owned = regex.compile(r"\[h\+\d")
    return frozenset(f.name for f in table() if owned.search(f.doc) or
                     (f.ret == "h" and f.name not in ("Cystck_deref",)))


@functools.lru_cache(maxsize=None)
def consuming():
    """Cystck function name -> index of the consumed parameter (h!)."""
    out = {}
    for f in table():
        for i, p in enumerate(f.params):
            if p.ctype == "h!":
                out[f.name] = i
    return out


@functools.lru_cache(maxsize=None)
def returns_int_error():
    """Cystck functions returning int -1 on error whose stock counterpart
    returns a NULL object (``return PyErr_NoMemory();``)."""
    return frozenset(f.name for f in table()
                     if f.ret == "int" and f.stock in ("PyErr_NoMemory",))


@functools.lru_cache(maxsize=None)
def header_constants():
    """Handle constants defined by Cystck.h, e.g. {'Cystck_None',
    'CystckExc_ValueError', 'CystckLong_Type', ...}."""
    header = pathlib.Path(cystck.get_include()) / "Cystck.h"
    text = header.read_text()
    return frozenset(regex.findall(r"^#define\s+(Cystck(?:Exc)?\w*?(?:_Type|_None|_True|_False"
                                   r"|_NotImplemented|_Ellipsis)|CystckExc_\w+)\b", text, regex.M))
