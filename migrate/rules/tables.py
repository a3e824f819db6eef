"""Planning the definitions of method, member and getset tables.

Both the table rules (which rewrite a ``PyMethodDef`` array into
``CYSTCK_DEF_METH`` lines) and the type rules (which list those definitions
in a type's ``defines`` array) need the same symbol names; they are decided
here, once, from the tables of the current text."""
from dataclasses import dataclass, field

import regex

from .. import api, cstruct, project as proj, source
from . import _common
from .escape import MARK

MEMBER_TYPES = {
    "SHORT": "SHORT", "INT": "INT", "LONG": "LONG", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE",
    "STRING": "STRING", "CHAR": "CHAR", "BYTE": "BYTE", "UBYTE": "UBYTE", "UINT": "UINT",
    "USHORT": "USHORT", "ULONG": "ULONG", "BOOL": "BOOL", "LONGLONG": "LONGLONG",
    "ULONGLONG": "ULONGLONG", "PYSSIZET": "SSIZET", "OBJECT_EX": "FIELD", "OBJECT": "FIELD",
}

CONV_PARAMS = {
    "CYSTCK_NOARGS": ("Cystck_Object self",),
    "CYSTCK_O": ("Cystck_Object self", "Cystck_Object arg"),
    "CYSTCK_VARARGS": ("Cystck_Object self", "const Cystck_Object *args", "Cystck_ssize_t nargs"),
    "CYSTCK_KEYWORDS": ("Cystck_Object self", "const Cystck_Object *args", "Cystck_ssize_t nargs",
                        "Cystck_Object kw"),
}


@dataclass
class Entry:
    symbol: str
    code: str                 # the CYSTCK_DEF_* text (and forwarder), or a comment
    ok: bool = True


@dataclass
class Table:
    name: str
    kind: str                 # methods, members, getsets
    span: tuple               # the whole top-level item
    entries: list = field(default_factory=list)


def _ident(s):
    return regex.sub(r"\W+", "_", s.strip('"')).strip("_") or "x"


def _static_definitions(unit):
    code = unit.structure
    out = set()
    for f in unit.functions():
        if f.is_definition and regex.search(r"\bstatic\b", code[f.start:f.name_start]):
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

    for m in proj._DEF_PATTERNS["methods"].finditer(code):
        t = Table(m.group("name"), "methods", item_span(m.start()))
        for it in proj.table_items(code, text, m):
            if not isinstance(it.value, list):
                continue
            f = cstruct.fields_of(it.value, proj.METHOD_FIELDS)
            if "ml_meth" not in f or proj.is_null_function(f["ml_meth"].text):
                continue
            if regex.search(r"^[ \t]*#", text[it.span[0]:it.span[1]], regex.M):
                # #if ... #else inside the entry: the mask shows both
                # branches' values, so its fields cannot be told apart
                name = f["ml_name"].text if "ml_name" in f else '""'
                t.entries.append(Entry("", f"/* cystck-migrate: method {name}: its entry has preprocessor "
                                           "conditionals inside; not translated, write it by hand */", ok=False))
                continue
            t.entries.append(_method_entry(f, statics, used_impls, unit.project.typed_methods,
                                           _extern_definitions(unit, m.start())))
        tables[t.name] = t
    used_members = set()
    for m in proj._DEF_PATTERNS["members"].finditer(code):
        t = Table(m.group("name"), "members", item_span(m.start()))
        for it in proj.table_items(code, text, m):
            if isinstance(it.value, list):
                f = cstruct.fields_of(it.value, proj.MEMBER_FIELDS)
                if "name" in f and f["name"].text not in ("NULL", "0", "nullptr", None):
                    t.entries.append(_member_entry(f, t.name, unit.project, used_members))
        tables[t.name] = t
    used_getters = set()
    for m in proj._DEF_PATTERNS["getsets"].finditer(code):
        t = Table(m.group("name"), "getsets", item_span(m.start()))
        for it in proj.table_items(code, text, m):
            if isinstance(it.value, list):
                f = cstruct.fields_of(it.value, proj.GETSET_FIELDS)
                if "name" in f and f["name"].text not in ("NULL", "0", "nullptr", None):
                    t.entries.append(_getset_entry(f, t.name, used_getters))
        tables[t.name] = t
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


def _method_entry(f, statics, used_impls, typed, is_extern):
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
    binding = " | ".join(b for b in proj.BINDING_FLAGS if b in flags)

    def define(sym, impl):
        if binding:      # a classmethod or staticmethod
            return f"CYSTCK_DEF_METH_FLAGS({sym}, {pyname}, {impl}, {conv}, {binding}, {doc})"
        return f"CYSTCK_DEF_METH({sym}, {pyname}, {impl}, {conv}, {doc})"
    # One trampoline per entry: an implementation registered under two
    # names gets a definition per name, the second one named after both.
    sym = f"{func}_def" if func not in used_impls else f"{func}__{_ident(pyname)}_def"
    if func in statics and (func not in used_impls or func not in typed):
        used_impls.add(func)
        return Entry(sym, define(sym, func))
    if func not in statics and is_extern(func) and not binding:
        used_impls.add(func)
        return Entry(sym, f"CYSTCK_DEF_METH_EXTERN({sym}, {pyname}, {func}, {conv}, {doc})")
    # CYSTCK_DEF_METH declares its implementation static: one defined
    # elsewhere (in other namespaces, or not in the project) goes through a
    # small static forwarder, as does a typed method's second name.
    impl = f"{func}__{_ident(pyname)}"
    params = CONV_PARAMS[conv]
    names = [p.rsplit(None, 1)[-1].lstrip("*") for p in params]
    ported = api.stock_map().get(func)
    if ported and api.by_name()[ported].ret == "h" and conv in ("CYSTCK_NOARGS", "CYSTCK_O") and \
            len(api.by_name()[ported].params) == len(names):
        # a stock function with a Cystck counterpart as the implementation
        # ({"__class_getitem__", Py_GenericAlias, METH_O | METH_CLASS})
        forwarder = (f"static int {impl}(Cystck_State *S, {', '.join(params)})\n"
                     f"{{\n    return Cystck_Return(S, {ported}(S, {', '.join(names)}));\n}}")
    elif proj.STOCK_NAME.fullmatch(func) and conv in ("CYSTCK_NOARGS", "CYSTCK_O"):
        # a stock function as the implementation ({"__class_getitem__",
        # Py_GenericAlias, METH_O | METH_CLASS}): called through the escape
        # hatch with the handles lent, its new object given a handle
        lent = ", ".join(f"Cystck_AsPyObject(S, {n})" for n in names)
        if conv == "CYSTCK_NOARGS":
            lent += ", NULL"
        call = f"Cystck_FromNewPyObject(S, {MARK} {func}({lent}))"
        forwarder = (f"static int {impl}(Cystck_State *S, {', '.join(params)})\n"
                     f"{{\n    return Cystck_Return(S, {call});\n}}")
    else:
        forwarder = (f"static int {impl}(Cystck_State *S, {', '.join(params)})\n"
                     f"{{\n    return {func}({', '.join(['S'] + names)});\n}}")
    return Entry(f"{impl}_def", f"{define(f'{impl}_def', impl)}\n{forwarder}")


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


def _getset_entry(f, table, used):
    name = f["name"].text
    get = cstruct.strip_cast(f["get"].text) if "get" in f and f["get"].text not in ("NULL", "0", "nullptr") else None
    set_ = cstruct.strip_cast(f["set"].text) if "set" in f and f["set"].text not in ("NULL", "0", "nullptr") else None
    doc = _doc(f, "doc")
    closure = f["closure"].text if "closure" in f and f["closure"].text else "NULL"
    if get is None:
        return Entry("", f"/* cystck-migrate: getset {name} has no getter; not translated */", ok=False)
    sym = f"{get}_getset"
    if sym in used:           # one getter behind two names (an alias): one definition each
        sym = f"{get}_{_ident(name)}_getset"
    used.add(sym)
    if set_ is None:
        return Entry(sym, f"CYSTCK_DEF_GET({sym}, {name}, {get}, {doc}, {closure})")
    return Entry(sym, f"CYSTCK_DEF_GETSET({sym}, {name}, {get}, {set_}, {doc}, {closure})")


def defines_array(name, symbols, static=True):
    refs = "".join(f"    &{s},\n" for s in symbols)
    return f"{'static ' if static else ''}CystckDef *{name}[] = {{\n{refs}    NULL\n}};"
