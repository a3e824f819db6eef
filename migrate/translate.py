"""Translating a set of files: build the Project, then run the rules on each
file that uses the Python API (others, and headers that only re-implement
stock API functions, are copied unchanged)."""
import pathlib

import regex

from . import bridge, cstruct, engine, libraries as helpers, macros, project as proj, source, static_objects
from .rules import cpp, escape

CPP_SUFFIXES = {".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"}
#: Headers: translated with the files that include them, never compiled alone.
HEADER_SUFFIXES = {".h", ".hpp", ".hh", ".hxx"}
#: Every file the translator takes as input: C and every C++ suffix the rules
#: know (a .hh header declares what the .cc files share as a .hpp one does).
#: The CLI, the corpus and the migration metrics use this one list.
SOURCE_SUFFIXES = {".c", ".h"} | CPP_SUFFIXES
_USES_PYTHON = regex.compile(r"\b(?:Py[A-Z_]\w*|_Py\w+|Python\.h|PyObject)\b")
# A header written in C++ (a .h file has no language of its own).
_CPP_SYNTAX = regex.compile(r"\bnamespace\s+\w+\s*\{|\btemplate\s*<|\b\w+::\w|\b(?:public|private|protected)\s*:"
                         r"|\b(?:struct|class)\s+\w+\s*\{[^{}]*\bstatic\b")


def uses_python(text):
    """Does ``text`` use the Python C API, directly or through a helper
    library (outside comments and strings)?"""
    if "Py" not in text and not helpers.used_by(text):
        return False
    masked = source.mask(text)
    return bool(_USES_PYTHON.search(masked)) or helpers.uses_any(masked)


def is_stock_compat(path, text):
    """Is ``text`` a header that re-implements stock API functions for
    older Pythons (pythoncapi_compat.h and the like)?  Its functions are
    the stock API, not the extension's: it stays as it is (Cystck.h
    includes Python.h), and calls of its functions go through the escape
    hatch like any stock call without a counterpart."""
    if pathlib.PurePath(path).suffix.lower() not in HEADER_SUFFIXES:
        return False
    try:
        names = [f.name for f in source.find_functions(source.structure_mask(text)) if f.is_definition]
    except source.BraceError:
        return False
    stock = [n for n in names if proj.STOCK_NAME.fullmatch(n)]
    return len(stock) >= 3 and len(stock) >= 0.8 * len(names)


def libraries(path, text):
    libs = set()
    if pathlib.PurePath(path).suffix.lower() in CPP_SUFFIXES:
        libs.add("c++")
    elif _CPP_SYNTAX.search(source.mask(text)):
        libs.add("c++")
    return libs | helpers.used_by(text)


def kept_stock(files):
    """The files no rule can port, kept stock as a whole: path -> (offset,
    reason).  A C++ class template whose instantiations are types of their
    own (rules/cpp.py, templated_type_objects) is one; every file compiled
    with it (the include graph's component around it: the files it
    includes, and those including it) stays stock with it, since a stock
    file cannot call the translated Cystck signatures nor the other way
    round."""
    reasons = {}
    own = set()
    for text in files.values():
        own |= defined_struct_names(source.mask(text))
    instances = instance_struct_names([source.mask(t) for t in files.values()])
    for path, text in files.items():
        for pos, name, base in builtin_layout_subtypes(source.mask(text), own):
            reasons.setdefault(path, (pos, f"struct '{name}' extends the instance struct of a builtin "
                                           f"type ({base}): Cystck reaches no builtin's instance "
                                           "layout, so no rule ports it, and this file and every "
                                           "file compiled with it stay stock"))
        for pos, name, var in stack_instances(source.mask(text), instances):
            reasons.setdefault(path, (pos, f"'{var}' is an instance of '{name}', an object's instance "
                                           "struct, declared by value as a local (a native instance "
                                           "that no object holds, passed to the functions that take "
                                           "the type's instances): Cystck reaches an instance only "
                                           "through a handle, so no rule ports it, and this file and "
                                           "every file compiled with it stay stock"))
        for pos, name, member, call in untyped_object_members(source.mask(text)):
            reasons.setdefault(path, (pos, f"struct '{name}' holds Python objects in its untyped member "
                                           f"'{member}' (void *; {call} at line "
                                           f"{source.line_of(text, pos)}): a handle dies with its call "
                                           "and no rule gives the member a type to hold a Cystck_Ref, "
                                           "so this file and every file compiled with it stay stock"))
        if "c++" not in libraries(path, text):
            continue
        for pos, name in cpp.templated_type_objects(source.mask(text)):
            reasons.setdefault(path, (pos, f"class template '{name}' declares a static PyTypeObject "
                                           "member (a type per instantiation, whose instances are "
                                           "the class itself): no rule ports it, so this file and "
                                           "every file compiled with it stay stock"))
    neighbours = {}
    for target, paths in proj.includers(files).items():
        for path in paths:
            neighbours.setdefault(target, set()).add(path)
            neighbours.setdefault(path, set()).add(target)
    todo = list(reasons)
    while todo:
        for other in neighbours.get(todo.pop(), ()):
            if other not in reasons:
                origin = next(p for p in reasons if p in neighbours.get(other, ()))
                reasons[other] = (0, f"compiled with {origin}, which stays stock: "
                                     "this file stays stock with it")
                todo.append(other)
    return reasons


# ``typedef struct { PyUnicodeObject str; PyObject *extra; } istr;``: a
# struct whose first member, by value, is a builtin type's instance struct
# (PyObject and PyVarObject are the plain object head, spelled out).
_BUILTIN_LAYOUT_SUBTYPE = regex.compile(
    r"\b(?P<td>typedef\s+)?struct\s*(?P<tag>\w+)?\s*\{\s*(?:struct\s+)?"
    r"(?P<base>(?!Py(?:Var)?Object\b)_?Py\w*Object|PyDateTime_(?:Date|DateTime|Time|Delta|TZInfo))"
    r"\s+\w+\s*;")


_STRUCT_DEFINITION = regex.compile(r"(?P<td>typedef\s+)?\bstruct\s*(?P<tag>\w+)?\s*\{")


def defined_struct_names(masked):
    """The names of the structs ``masked`` defines: the tag of ``struct
    Tag {...}`` and the name a ``typedef struct {...} Name;`` gives."""
    names = set()
    for m in _STRUCT_DEFINITION.finditer(masked):
        if m.group("tag"):
            names.add(m.group("tag"))
        if m.group("td"):
            try:
                close = source.matching(masked, m.end() - 1)
            except source.BraceError:
                continue
            after = regex.match(r"\s*(?P<name>\w+)\s*;", masked[close:])
            if after:
                names.add(after.group("name"))
    return names


_OBJECT_HEAD = regex.compile(r"\s*(?:PyObject_(?:VAR_)?HEAD\b|(?:struct\s+)?Py(?:Var)?Object\s+\w+\s*;)")


def instance_struct_names(texts):
    """The names of the structs of ``texts`` (masked) that are objects'
    instance structs: those that start with the object head, and those
    that start, by value, with such a struct (a subtype's)."""
    bodies = []
    for masked in texts:
        for m in _STRUCT_DEFINITION.finditer(masked):
            try:
                close = source.matching(masked, m.end() - 1)
            except source.BraceError:
                continue
            names = {m.group("tag")} - {None}
            after = regex.match(r"\s*(?P<name>\w+)\s*;", masked[close:]) if m.group("td") else None
            if after:
                names.add(after.group("name"))
            first = regex.match(r"\s*(?:struct\s+)?(?P<t>\w+)\s+\w+\s*;", masked, pos=m.end())
            bodies.append((names, _OBJECT_HEAD.match(masked, m.end()) is not None,
                           first.group("t") if first else None))
    found = set()
    while True:
        more = {n for names, head, first in bodies if head or first in found for n in names} - found
        if not more:
            return found
        found |= more


def stack_instances(masked, instances):
    """(position, struct, variable) of each local variable of a function
    in ``masked`` declared by value with an instance struct of
    ``instances`` (``FooObject self; memset(&self, 0, sizeof(self));
    Foo_init_impl(&self, fmt);``): a native instance that no object
    holds, given to the functions that take the type's instances."""
    if not instances:
        return []
    decl = regex.compile(r"(?:^|(?<=[;{}]))[ \t]*(?:struct\s+)?(?P<t>" + "|".join(map(regex.escape, sorted(instances)))
                         + r")\s+(?P<v>\w+)\s*[;=\[]", regex.M)
    found = []
    try:
        functions = source.find_functions(source.structure_mask(masked))
    except source.ScanError:
        return []
    for f in functions:
        if f.is_definition:
            found.extend((m.start("t"), m.group("t"), m.group("v")) for m in decl.finditer(masked, *f.body))
    return found


def builtin_layout_subtypes(masked, own=frozenset()):
    """(position, name, builtin struct) of each struct in ``masked`` that
    extends a builtin type's instance struct by value: the instances of a
    subtype of str, int, an exception... with fields of its own.  Cystck
    makes a type's instances through its spec and reaches only the struct
    it declares, never a builtin's part of the object, so no rule ports
    such a type: its files stay stock as a whole (kept_stock).  A base in
    ``own`` (the structs the extension defines: its own types' instance
    structs, named ``PyFooObject`` like a builtin's) is none: a subtype of
    the extension's own type, which the rules port."""
    found = []
    for m in _BUILTIN_LAYOUT_SUBTYPE.finditer(masked):
        if m.group("base") in own:
            continue
        name = m.group("tag")
        if m.group("td"):
            try:
                close = source.matching(masked, masked.index("{", m.start()))
            except source.BraceError:
                continue
            after = regex.match(r"\s*(?P<name>\w+)", masked[close:])
            name = after.group("name") if after else name
        found.append((m.start(), name or "(anonymous)", m.group("base")))
    return found


_STRUCT_OR_UNION = regex.compile(r"(?P<td>typedef\s+)?\b(?:struct|union)\s*(?P<tag>\w+)?\s*\{")
_VOID_BASE = regex.compile(r"(?:(?:const|volatile)\s+)*void(?:\s+const)?")
_REFCOUNT_CALL = regex.compile(r"\b(?P<call>Py_(?:X?INCREF|X?DECREF|CLEAR|X?NewRef|X?SETREF))\s*(?=\()")
# ``node->slots[i + 1]``: the member an lvalue ends in, past its indices.
_MEMBER_LVALUE = regex.compile(r"(?s).*?(?:->|\.)\s*(?P<member>\w+)\s*(?P<ix>\[(?:[^\[\]]++|(?&ix))*\]\s*)*")


def untyped_object_members(masked):
    """(position, struct, member, call) of each reference-count operation
    in ``masked`` applied to a ``void *`` member of a struct or union the
    text defines (``Py_XDECREF(node->slots[i])``, a cast around it
    included): Python objects owned by untyped native memory.  A handle
    is valid for one call only, and the member's type says nothing a rule
    could turn into a ``Cystck_Ref``, so no rule ports such storage: its
    files stay stock as a whole (kept_stock).  A ``PyObject *`` member is
    not one (the rules make it a handle or a reference field), nor a
    ``void *`` member that no reference count touches."""
    untyped = {}
    for m in _STRUCT_OR_UNION.finditer(masked):
        open_at = m.end() - 1
        try:
            close = source.matching(masked, open_at)
        except source.BraceError:
            continue
        after = regex.match(r"\s*(?P<name>\w+)", masked[close:]) if m.group("td") else None
        name = (after.group("name") if after else None) or m.group("tag") or "(anonymous)"
        for base, d, _ in cstruct.struct_members(masked, open_at, close):
            if _VOID_BASE.fullmatch(base) and regex.sub(r"\s|const", "", d.pointer) == "*":
                untyped.setdefault(d.name, name)
    found = []
    if not untyped:
        return found
    for m in _REFCOUNT_CALL.finditer(masked):
        args = regex.match(source.paren("a"), masked[m.end():])
        if not args:
            continue
        first = source.split_top(args.group("a"), 1, len(args.group("a")) - 1)[0]
        lvalue = _MEMBER_LVALUE.fullmatch(cstruct.strip_cast(args.group("a")[first[0]:first[1]]))
        if lvalue and lvalue.group("member") in untyped:
            member = lvalue.group("member")
            found.append((m.start(), untyped[member], member, m.group("call")))
    return found


def translate_files(files, rules=None):
    """Translate ``files`` (path -> stock text).  Returns a dict path ->
    engine.Unit whose ``text`` is the result."""
    rules = engine.select_rules() if rules is None else rules
    python_files = {p: t for p, t in files.items() if uses_python(t) and not is_stock_compat(p, t)}
    kept = kept_stock(python_files)
    python_files = {p: t for p, t in python_files.items() if p not in kept}
    if any(r.name == "function-macros" for r in rules):
        # The project sees the functions those macros generate.
        python_files = {p: macros.expand_function_macros(t)[0] for p, t in python_files.items()}
    if any(r.name == "declaration-macros" for r in rules):
        # The project sees the method tables, module definitions and
        # inits written with the project's own macros (of any file).
        defined = macros.project_macros(files.values())
        python_files = {p: macros.expand_declaration_macros(t, defined)[0] for p, t in python_files.items()}
    if any(r.name == "table-cast-macros" for r in rules):
        defined = macros.project_macros(files.values())
        python_files = {p: proj.expand_table_cast_macros(t, defined)[0] for p, t in python_files.items()}
    if any(r.name == "table-entry-macros" for r in rules):
        defined = macros.project_macros(files.values())
        python_files = {p: proj.expand_table_entry_macros(t, defined)[0] for p, t in python_files.items()}
    statics = static_objects.StaticObjects()
    if any(r.name == "static-objects" for r in rules):
        # The project sees the global each statically allocated object becomes.
        statics = static_objects.find(python_files)
        python_files = {p: static_objects.rewrite(t, statics)[0] for p, t in python_files.items()}
    kept_functions = _defined_functions({p: files[p] for p in kept})
    split = any(r.name == "destructor-split" for r in rules)
    project = proj.build(python_files, kept_stock=kept_functions, split_destructors=split,
                         includes=files)
    # Files without the API that declare or call a function taking S now
    # are translated too, until none is left (each may pass S further on).
    pulled_in = set()
    while True:
        extra = state_users(files, python_files, kept, project)
        if not extra:
            break
        pulled_in |= set(extra)
        python_files = {**python_files, **extra}
        project = proj.build(python_files, kept_stock=kept_functions, split_destructors=split,
                             includes=files)
    project.static_objects = statics
    units = {}
    for path, text in files.items():
        unit = engine.Unit(path, text, project, libraries=libraries(path, text))
        if path in python_files:
            engine.translate(unit, rules)
            if path in pulled_in:
                _include_cystck(unit)
        elif path in kept:
            _keep_stock(unit, *kept[path])
        units[path] = unit
    # What Python calls into the kept files becomes Cystck (bridge.py).
    bridge.bridge({p: units[p] for p in kept})
    return units


_CALLED = regex.compile(r"\b(\w+)\s*\(")
_INCLUDE = regex.compile(r"^[ \t]*#[ \t]*include\b", regex.M)


def state_users(files, python_files, kept, project):
    """The files that use no Python API but declare or call a function of
    ``python_files`` that takes ``Cystck_State *S`` (a header's prototype
    of it, a plain C file compiled into the same unit calling it): path ->
    text.  Left stock, their prototypes and calls would miss S."""
    # (compiled_with over every file, not only the translated ones)
    compiled_with = proj.Project(includers=proj.includers(files)).compiled_with
    names = sorted({n for (_, n), info in project.functions.items() if info.body and info.needs_state})
    if not names:
        return {}
    # (a file naming none of them is not masked at all)
    named = regex.compile(r"\b(?:" + "|".join(map(regex.escape, names)) + r")\b")
    found = {}
    for path, text in files.items():
        if path in python_files or path in kept or not named.search(text) \
                or "Py" in text and uses_python(text):
            continue
        try:
            code = source.structure_mask(text)
        except source.BraceError:
            continue
        own = {f.name for f in source.find_functions(code) if f.is_definition}
        for name in set(_CALLED.findall(code)) - own:
            info = _visible_definition(project, path, name, compiled_with(path))
            if info is not None and info.needs_state:
                found[path] = text
                break
    return found


def _visible_definition(project, path, name, compiled_with):
    """The definition of ``name`` in the translated files that ``path``
    sees: an external one, or a static one of a file compiled with it
    (Project.compiled_with)."""
    for (other, n), info in project.functions.items():
        if n == name and info.body and (not info.static or other in compiled_with):
            return info
    return None


def _include_cystck(unit):
    """A file translated only for the state it now passes on (state_users)
    includes no Python header of its own: Cystck.h goes before its first
    #include (inside its include guard), else at its start, so that
    ``Cystck_State`` is declared however it is included."""
    if "Cystck_State" not in unit.masked or '"Cystck.h"' in unit.text:
        return
    first = next((m.start() for m in _INCLUDE.finditer(unit.text)
                  if unit.masked[m.start():m.end()].strip()), 0)
    edits = source.Edits()
    edits.add(first, first, '#include "Cystck.h"\n')
    unit.apply(edits)


def _defined_functions(files):
    """The names of the functions ``files`` define."""
    names = set()
    for text in files.values():
        try:
            names.update(f.name for f in source.find_functions(source.structure_mask(text)) if f.is_definition)
        except source.BraceError:
            continue
    return names


def _keep_stock(unit, pos, reason):
    """The unit's text unchanged behind the mark (on its first line, so
    that every line keeps its number), its reason a left-over."""
    unit.kept_stock = True
    unit.set_text(f"{escape.KEPT_MARK} {unit.text}")
    unit.leftover(pos + len(escape.KEPT_MARK) + 1, reason, rule="kept-stock")


def translate_source(text, path="input.c", rules=None):
    """Translate one file's text; returns the translated text."""
    return translate_files({path: text}, rules)[path].text
