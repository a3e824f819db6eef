"""Planning the definitions of method, member and getset tables.

Both the table rules (which rewrite a ``PyMethodDef`` array into
``CYSTCK_DEF_METH`` lines) and the type rules (which list those definitions
in a type's ``defines`` array) need the same symbol names; they are decided
here, once, from the tables of the current text."""
from dataclasses import dataclass, field

import regex

from .. import api, cstruct, project as proj, source
from . import _common, functions
from .escape import MARK

MEMBER_TYPES = {
    "SHORT": "SHORT", "INT": "INT", "LONG": "LONG", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE",
    "STRING": "STRING", "STRING_INPLACE": "STRING_INPLACE", "CHAR": "CHAR", "BYTE": "BYTE", "UBYTE": "UBYTE", "UINT": "UINT",
    "USHORT": "USHORT", "ULONG": "ULONG", "BOOL": "BOOL", "LONGLONG": "LONGLONG",
    "ULONGLONG": "ULONGLONG", "PYSSIZET": "SSIZET", "OBJECT_EX": "FIELD", "OBJECT": "FIELD",
}

#: Calling convention -> the declarations of its implementation's parameters
#: after ``S``, as the API table writes them.
CONV_PARAMS = {name: tuple(line.declarations()[1:]) for name, line in api.conventions().items()}


@dataclass
class Entry:
    symbol: str
    code: str                 # the CYSTCK_DEF_* text (and forwarder), a comment, or
                              # "" for a definition another table's entry wrote
    ok: bool = True
    levels: list = field(default_factory=list)   # the conditionals it is in (source.guard_at)

    def guarded(self, line):
        return source.guarded(self.levels, line)


@dataclass
class Table:
    name: str
    kind: str                 # methods, members, getsets
    span: tuple               # the whole top-level item
    entries: list = field(default_factory=list)


def _ident(s):
    return regex.sub(r"\W+", "_", s.strip('"')).strip("_") or "x"


_STATIC = regex.compile(r"\bstatic\b")


def _static_definitions(unit):
    code = unit.structure
    out = set()
    for f in unit.functions():
        if f.is_definition and _STATIC.search(code[f.start:f.name_start]):
            out.add(f.name)
    return out


def plan(unit):
    """Tables of the current text of ``unit``: name -> Table."""
    code, text = unit.structure, unit.text
    statics = _static_definitions(unit)
    used_impls = set()
    tables = {}
    items = source.top_level_items(code)

    def item_span(pos):
        for s, e in items:
            if s <= pos < e:
                return _common.declaration_start(code, (s, e), pos), e
        return pos, pos

    # An element listed alike in several tables (one __reduce__ for every
    # type) is defined once; the other tables list the same definition.
    defined = {}
    for m in proj._DEF_PATTERNS["methods"].finditer(code):
        t = Table(m.group("name"), "methods", item_span(m.start()))
        for f, levels in proj.table_elements(code, text, m, proj.METHOD_FIELDS):
            if "ml_meth" not in f or proj.is_null_function(f["ml_meth"].text):
                continue
            key = (repr(levels),) + tuple(f[k].text if k in f else None for k in proj.METHOD_FIELDS)
            if key in defined:
                t.entries.append(Entry(defined[key], "", levels=levels))
                continue
            t.entries.append(_method_entry(f, statics, used_impls, unit.project.typed_methods,
                                           _extern_definitions(unit, m.start()), unit.project.roles))
            t.entries[-1].levels = levels
            if t.entries[-1].ok:
                defined[key] = t.entries[-1].symbol
        tables[t.name] = t
    def add_named_tables(kind, fields, entry):
        """Add the tables of ``kind`` to ``tables``: an entry
        (``entry(fields, table name)``) for each element with a name (the
        sentinel has none)."""
        for m in proj._DEF_PATTERNS[kind].finditer(code):
            t = Table(m.group("name"), kind, item_span(m.start()))
            for f, levels in proj.table_elements(code, text, m, fields):
                if "name" in f and f["name"].text not in ("NULL", "0", "nullptr", None):
                    t.entries.append(entry(f, t.name))
                    t.entries[-1].levels = levels
            tables[t.name] = t

    used_members, used_getters = set(), set()
    add_named_tables("members", proj.MEMBER_FIELDS,
                     lambda f, table: _member_entry(f, table, unit.project, used_members))
    add_named_tables("getsets", proj.GETSET_FIELDS, lambda f, table: _getset_entry(unit, f, table, used_getters))
    return tables


def _doc(f, key):
    return f[key].text if key in f and f[key].text not in (None, "0") else "NULL"


def _extern_definitions(unit, table_at):
    """A predicate: is a function defined with external linkage where a
    ``CYSTCK_DEF_METH_EXTERN`` written at ``table_at`` would declare it
    (in this file or another, in the same C++ namespaces)?"""
    here = proj.namespaces_at(unit.structure, table_at) if "namespace" in unit.structure else ()

    def check(func):
        d = proj.definition(unit.project, unit.path, func)
        return d is not None and not d.static and d.namespaces == here
    return check


# What a function defined for one calling convention is given when a table
# also lists it under another: a parameter the other convention lacks is
# what CPython passes there (NULL for METH_NOARGS's argument); a parameter
# it has beyond the function's own is ignored, as the stock function, called
# with more arguments than it declares, ignores it.
_ABSENT = {"arg": "Cystck_NULL"}


def _other_convention_call(func, own, conv, names):
    """The call, in a forwarder for an entry of convention ``conv``, of
    ``func`` defined for the convention ``own``; None if the stock call
    has no counterpart (an argument CPython passes that the function does
    not take in the same place)."""
    own_names = [p.rsplit(None, 1)[-1].lstrip("*") for p in CONV_PARAMS[own]]
    if own_names != names[:len(own_names)] and not (own_names == names + ["arg"]):
        return None
    args = [n if n in names else _ABSENT[n] for n in own_names]
    return f"{func}({', '.join(['S'] + args)})"


def _method_entry(f, statics, used_impls, typed, is_extern, roles=None):
    func = cstruct.strip_cast(f["ml_meth"].text)
    flags = f["ml_flags"].text if "ml_flags" in f else "0"
    pyname = f["ml_name"].text if "ml_name" in f else '""'
    doc = _doc(f, "ml_doc")
    if func in typed and func in statics and func not in used_impls:
        used_impls.add(func)     # made a typed method by rules/args.py: TypedEntry
        t = typed[func]
        return Entry(f"{func}_def", f"{t['macro']}({func}_def, {pyname}, {func}, {t['ret']}, "
                                    f"{doc if doc != 'NULL' else chr(34) * 2}, {', '.join(t['spec'])})")
    role = proj.method_role(flags)
    if role is None:
        return Entry("", f"/* cystck-migrate: method {pyname} ({flags.strip()}) has no Cystck "
                         f"calling convention; not translated */", ok=False)
    conv = role.detail
    binding = proj.binding_flags(flags)
    # One trampoline per entry: an implementation registered under two
    # names gets a definition per name, the second one named after both.
    sym = f"{func}_def" if func not in used_impls else f"{func}__{_ident(pyname)}_def"
    own = (roles or {}).get(func)
    own = own.detail if own is not None and own.kind == "meth" else conv
    if func in statics and own != conv and own in CONV_PARAMS and func not in typed:
        # one function, two conventions (__copy__ METH_NOARGS and
        # __deepcopy__ METH_O): the function keeps the first entry's
        # signature, the other entries call it through a forwarder
        impl = f"{func}__{_ident(pyname)}"
        params = CONV_PARAMS[conv]
        call = _other_convention_call(func, own, conv, [p.rsplit(None, 1)[-1].lstrip("*") for p in params])
        if call is not None:
            return Entry(f"{impl}_def", f"{_def_meth(impl + '_def', pyname, impl, conv, binding, doc)}\n"
                                        f"static int {impl}(Cystck_State *S, {', '.join(params)})\n"
                                        f"{{\n    return {call};\n}}")
    if func in statics and (func not in used_impls or func not in typed):
        used_impls.add(func)
        return Entry(sym, _def_meth(sym, pyname, func, conv, binding, doc))
    if func not in statics and not binding and is_extern(func):
        used_impls.add(func)
        return Entry(sym, f"CYSTCK_DEF_METH_EXTERN({sym}, {pyname}, {func}, {conv}, {doc})")
    # CYSTCK_DEF_METH declares its implementation static: one defined
    # elsewhere (in other namespaces, or not in the project) goes through a
    # small static forwarder, as does a typed method's second name.
    impl = f"{func}__{_ident(pyname)}"
    params = CONV_PARAMS[conv]
    names = [p.rsplit(None, 1)[-1].lstrip("*") for p in params]
    call = f"{func}({', '.join(['S'] + names)})"
    if proj.STOCK_NAME.fullmatch(func) and not is_extern(func):
        impl = f"{_ident(pyname)}__{func}"    # not read as a stock name itself
        call = _stock_method_call(func, conv, names)
        if call is None:
            return Entry("", f"/* cystck-migrate: method {pyname} is the stock function {func}, which has no "
                             f"Cystck counterpart for {conv}; not translated */", ok=False)
    forwarder = (f"static int {impl}(Cystck_State *S, {', '.join(params)})\n"
                 f"{{\n    return {call};\n}}")
    return Entry(f"{impl}_def", f"{_def_meth(impl + '_def', pyname, impl, conv, binding, doc)}\n{forwarder}")


def _def_meth(sym, pyname, impl, conv, binding, doc):
    if binding:
        return f"CYSTCK_DEF_METH_FLAGS({sym}, {pyname}, {impl}, {conv}, {binding}, {doc})"
    return f"CYSTCK_DEF_METH({sym}, {pyname}, {impl}, {conv}, {doc})"


def _stock_method_call(func, conv, names):
    """The call, in a forwarder, of the Cystck counterpart of the stock
    function ``func`` that a method table names as a method (``{"__class_getitem__",
    Py_GenericAlias, METH_O | METH_CLASS}``): its result is the method's.
    A stock function without one is called through the escape hatch.  None
    if it takes other arguments than self (and arg)."""
    counterpart = api.stock_map().get(func)
    if conv not in ("CYSTCK_NOARGS", "CYSTCK_O"):
        return None
    if counterpart is None:
        # none: called through the escape hatch, the handles lent and its
        # new object given a handle
        lent = ", ".join(f"Cystck_AsPyObject(S, {n})" for n in names) + (", NULL" if len(names) == 1 else "")
        return f"Cystck_Return(S, Cystck_FromNewPyObject(S, {MARK} {func}({lent})))"
    return f"Cystck_Return(S, {counterpart}({', '.join(['S'] + names)}))"


def _member_entry(f, table, project, used):
    name = f["name"].text
    weaklist = proj.weaklist_member(project, f["offset"].text if "offset" in f else "") \
        if name == '"__weaklistoffset__"' else None
    if weaklist:                   # the stock spelling of tp_weaklistoffset in a spec
        sym = f"{weaklist[0]}_{weaklist[1]}_weaklist"
        return Entry(sym, f"CYSTCK_DEF_WEAKLIST({sym}, {weaklist[0]}, {weaklist[1]})")
    mtype = regex.sub(r"^(?:Py_)?T_", "", (f["type"].text if "type" in f else "")).strip()
    offset = f["offset"].text if "offset" in f else ""
    flags = f["flags"].text if "flags" in f else "0"
    doc = _doc(f, "doc")
    om = regex.match(r"\s*offsetof\s*\(\s*(?:struct\s+)?(\w+)\s*,\s*(\w+)\s*\)\s*$", offset or "")
    if mtype not in MEMBER_TYPES or not om:
        return Entry("", f"/* cystck-migrate: member {name} ({mtype}, {offset}) not translated */", ok=False)
    flags = regex.sub(r"\b(?:Py_)?READONLY\b", "CYSTCK_READONLY", flags)
    sym = f"{om.group(1)}_{om.group(2)}_member"
    if sym in used:      # a second name for the same field: named after the name
        sym = f"{om.group(1)}_{om.group(2)}__{_ident(name)}_member"
    used.add(sym)
    return Entry(sym, f"CYSTCK_DEF_MEMBER({sym}, {name}, CYSTCK_MEMBER_{MEMBER_TYPES[mtype]}, "
                      f"{om.group(1)}, {om.group(2)}, {flags}, {doc})")


def _getset_entry(unit, f, table, used):
    name = f["name"].text
    # (a null pointer may be cast: ``(setter)NULL``)
    get = None if proj.is_null_function(f["get"].text if "get" in f else None) else cstruct.strip_cast(f["get"].text)
    set_ = None if proj.is_null_function(f["set"].text if "set" in f else None) else cstruct.strip_cast(f["set"].text)
    doc = _doc(f, "doc")
    closure = f["closure"].text if "closure" in f and f["closure"].text else "NULL"
    if get is None:
        return Entry("", f"/* cystck-migrate: getset {name} has no getter; not translated */", ok=False)
    sym = f"{get}_getset"
    if sym in used:           # one getter behind two names (an alias): one definition each
        sym = f"{get}_{_ident(name)}_getset"
    used.add(sym)
    # a getter or setter another file declares: called through a forwarder
    get, get_forwarder = functions.slot_implementation(unit, get, proj.GETTER, f"{sym}_get")
    if set_ is None:
        return Entry(sym, f"CYSTCK_DEF_GET({sym}, {name}, {get}, {doc}, {closure}){get_forwarder}")
    set_, set_forwarder = functions.slot_implementation(unit, set_, proj.SETTER, f"{sym}_set")
    return Entry(sym, f"CYSTCK_DEF_GETSET({sym}, {name}, {get}, {set_}, {doc}, {closure})"
                      f"{get_forwarder}{set_forwarder}")


def defines_array(name, symbols, static=True):
    """The defines array of ``symbols``: names, or Entries (each in its
    conditionals)."""
    refs = "".join((s.guarded(f"    &{s.symbol},") if isinstance(s, Entry) else f"    &{s},") + "\n"
                   for s in symbols)
    return f"{'static ' if static else ''}CystckDef *{name}[] = {{\n{refs}    NULL\n}};"
