"""Static analysis of the translated code (paper section 6.1, step 4).

Lexical checks, like the paper's: they point a human at places worth a look
and may be wrong, so they are warnings, never edits.

* custom types: the instance structs and type objects inferred, and casts
  of handles to struct pointers that bypass the typed accessor;
* loops that create handles each iteration with no scope gate, no
  per-iteration release (``Cystck_ReleaseSince``) and no drop: the handle
  array may overflow (a call holds at most 2^20);
* integer narrowing and overflow sources: sizes and API results stored in
  ``int``, allocation sizes computed by multiplication;
* exceptions set but not returned, and results of fallible API calls that
  are never looked at;
* left-overs: every stock API name still in the output, with the reason.
"""
import regex

from . import api, source
from .engine import Note
from .project import OBJECT_TYPES, STOCK_ABI_SUFFIX
from .rules import _common, escape, loops

HANDLE_LIMIT = 1 << 20
_LOOP = regex.compile(r"\b(?P<kw>for|while)\s*" + source.paren("h") + r"\s*(?=\{)|\bdo\s*(?=\{)")
_SETS_ERROR = regex.compile(r"\bCystckErr_(?:SetString|SetObject|SetNone|Format|NoMemory|BadArgument|SetFromErrno)\s*\(")
_STOCK = regex.compile(r"\b_?Py_?[A-Za-z]\w*\b")
_ESCAPE = regex.compile(r"\bCystck_(?:AsPyObject|FromPyObject|FromNewPyObject)\s*\(")


def analyse(unit):
    """Notes for the translated ``unit`` (its ``text`` is the output)."""
    if unit.text == unit.original or unit.kept_stock:
        return []     # nothing translated (a file kept stock has its one note)
    notes = []
    code = unit.masked
    try:
        contexts = _common.function_contexts(unit)
    except source.BraceError:
        return [Note("leftover", unit.path, 1, "the output does not balance its braces")]
    notes += _custom_types(unit, code, contexts)
    notes += _loops(unit, code, contexts)
    notes += _integers(unit, code, contexts)
    notes += _exceptions(unit, code, contexts)
    notes += _leftovers(unit, code)
    return notes


def _note(unit, kind, pos, message):
    return Note(kind, unit.path, source.line_of(unit.text, pos), message, "analysis")


def _custom_types(unit, code, contexts):
    out = []
    structs = unit.project.types
    for name, info in sorted(structs.items()):
        if name != info.struct:
            continue
        m = regex.search(rf"\bCYSTCK_TYPE_HELPERS\s*\(\s*{regex.escape(name)}\s*\)", code)
        where = m.start() if m else 0
        fields = ", ".join(sorted(info.object_fields)) or "none"
        types = ", ".join(sorted(info.type_vars)) or "no static type object"
        out.append(_note(unit, "inferred-type", where,
                         f"custom type {name}: accessor {name}_AsStruct, type {types}, object fields: {fields}"))
    casts = {s: regex.compile(rf"\(\s*(?:struct\s+)?{regex.escape(s)}\s*\*\s*\)\s*(?P<h>\w+)") for s in structs}
    for ctx in contexts:
        if ctx.role is not None and not ctx.role.state:
            continue
        b0, b1 = ctx.body
        for s in structs:
            for m in casts[s].finditer(code, b0, b1):
                if m.group("h") in ctx.handles:
                    out.append(_note(unit, "custom-type", m.start(),
                                     f"cast of handle {m.group('h')} to {s} *: use {structs[s].struct}_AsStruct(S, "
                                     f"{m.group('h')})"))
    return out


def _loop_spans(code, b0, b1):
    for m in _LOOP.finditer(code, b0, b1):
        open_at = m.end()
        while open_at < b1 and code[open_at] != "{":
            open_at += 1
        if open_at >= b1:
            continue
        yield m.start(), open_at, source.matching(code, open_at)


def _loops(unit, code, contexts):
    out = []
    # an API call that returns only the null handle (``CystckErr_Format``)
    # makes none: the loop-release rule's list
    creators = loops.handle_makers() | unit.project.handle_makers(unit.path)
    consumers = set(api.consuming())
    create_re = regex.compile(r"\b(?P<f>" + "|".join(map(regex.escape, sorted(creators, key=len, reverse=True)))
                              + r")\s*\(")
    for ctx in contexts:
        if ctx.role is not None and not ctx.role.state:
            continue
        b0, b1 = ctx.body
        for start, open_at, close in _loop_spans(code, b0, b1):
            body = code[open_at:close]
            if "Cystck_OpenScope" in body or "Cystck_ReleaseSince" in code[start:open_at]:
                continue          # a scope gate, or released per iteration (loop-release)
            unreleased = []
            for m in create_re.finditer(body):
                if m.group("f") in ("Cystck_Return",):
                    continue
                before = body[:m.start()]
                target = regex.search(r"(\w+)\s*=\s*$", before)
                call_open = regex.search(r"\b(\w+)\s*\([^;()]*$", before)
                if call_open and call_open.group(1) in consumers:
                    continue          # consumed right away
                if regex.search(r"\breturn\s+(?:Cystck_Return\s*\(\s*S\s*,\s*)?$", before):
                    continue
                if regex.match(r"\s*;\s*return\b", body[source.matching(body, m.end() - 1):]):
                    continue          # on the way out: once per run of the loop
                if target:
                    v = target.group(1)
                    if regex.search(rf"\bCystck_Drop\s*\(\s*S\s*,\s*{v}\s*\)", body) or regex.search(
                            r"\b(?:" + "|".join(map(regex.escape, consumers)) + rf")\s*\([^;]*\b{v}\s*\)", body):
                        continue
                unreleased.append(m.group("f"))
            if unreleased:
                out.append(_note(unit, "loop-overflow", start,
                                 f"loop creates handles each iteration ({', '.join(sorted(set(unreleased)))}) "
                                 f"without a scope gate or Cystck_Drop: more than {HANDLE_LIMIT} iterations "
                                 "overflow the handle array; wrap the body in Cystck_OpenScope/Cystck_CloseScope"))
    return out


_SIZE_FUNCS = r"Cystck\w*_(?:Size|GET_SIZE|Length|GetLength|GET_LENGTH)|CystckLong_As(?:Ssize_t|LongLong|Long|Size_t)"


def _integers(unit, code, contexts):
    out = []
    for ctx in contexts:
        b0, b1 = ctx.body
        ints = set(regex.findall(r"\b(?:int|short|char|unsigned\s+int|unsigned)\s+(\w+)\s*[;=,]", code[b0:b1]))
        ints |= set(regex.findall(r"\b(?:int|short)\s+\w+\s*,\s*(\w+)\s*[;=,]", code[b0:b1]))
        for m in regex.finditer(rf"\b(?P<v>\w+)\s*=(?!=)\s*(?:\(\s*\w+\s*\)\s*)?(?P<f>{_SIZE_FUNCS})\s*\(", code, pos=b0, endpos=b1):
            if m.group("v") in ints:
                out.append(_note(unit, "integer", m.start(),
                                 f"{m.group('f')} result stored in int {m.group('v')}: narrowing from "
                                 "Cystck_ssize_t/long may overflow"))
        for m in regex.finditer(r"\b(?:int|short)\s+(?P<v>\w+)\s*=\s*(?P<f>" + _SIZE_FUNCS + r")\s*\(", code, pos=b0, endpos=b1):
            out.append(_note(unit, "integer", m.start(),
                             f"{m.group('f')} result stored in int {m.group('v')}: narrowing may overflow"))
        for m in regex.finditer(r"\b(?:malloc|realloc|PyMem_Malloc|PyMem_Realloc|PyObject_Malloc|PyObject_Realloc"
                                r"|CystckMem_Malloc|CystckMem_Realloc)\s*" + source.paren("a"), code, pos=b0, endpos=b1):
            args = m.group("a")
            if "*" in args and "sizeof" in args:
                before = code[b0:m.start()]
                if not regex.search(r"(?:MAX|max)\s*/|/\s*sizeof|SIZE_MAX|_MAX\s*/", before):
                    out.append(_note(unit, "integer", m.start(),
                                     "allocation size computed by multiplication with no overflow check before it"))
    return out


_DIRECTIVE_LINE = regex.compile(r"^[ \t]*#(?:[^\n\\]|\\.|\\\n)*", regex.M)


def _skip_alternative(rest):
    """``rest`` with the ``#else``/``#elif`` branches that start it blanked
    up to their ``#endif``: they replace the code just read, they do not
    follow it."""
    m = regex.match(r"\s*#[ \t]*(?:else|elif)\b", rest)
    if not m:
        return rest
    depth = 0
    for d in regex.finditer(r"^[ \t]*#[ \t]*(?P<k>if|ifdef|ifndef|endif)\b", rest, regex.M):
        if d.group("k") == "endif":
            if depth == 0:
                return " " * d.start() + rest[d.start():]
            depth -= 1
        else:
            depth += 1
    return rest


def _next_statement(code, pos, limit):
    """The masked text of the statement after position ``pos``, leaving
    out preprocessor lines (``#endif``) and the ``else`` branch of the
    ``if`` that just ended (the branch sets its own exception)."""
    rest = _DIRECTIVE_LINE.sub(lambda d: " " * len(d.group()), _skip_alternative(code[pos:limit]))
    m = regex.match(r"\s*(?:\}\s*)*(?P<s>[^;{}]*[;{}]?)", rest)
    if not m:
        return ""
    stmt = m.group("s").strip()
    if regex.match(r"else\b", stmt) and not regex.match(r"else\s+if\b", stmt):
        branch = pos + m.start("s") + len("else")
        while code[branch].isspace():
            branch += 1
        end = source.matching(code, branch) if code[branch] == "{" else code.find(";", branch) + 1
        return _next_statement(code, end, limit) if 0 < end <= limit else stmt
    return stmt


def _returned(code, b0, pos):
    """Is ``pos`` in the value of a ``return`` statement (``return
    PyErr_Format(...)``, ``return Cystck_Return(S,`` and the call on the
    next line)?"""
    stmt = max(b0, max(code.rfind(c, b0, pos) for c in ";{}") + 1)
    return bool(regex.search(r"\breturn\b", code[stmt:pos]))


def _exceptions(unit, code, contexts):
    out = []
    fallible = {f.name for f in api.table() if "[e" in f.doc or ", e]" in f.doc or "e]" in f.doc}
    fallible -= {"CystckErr_SetString", "CystckErr_SetObject", "CystckErr_SetNone", "CystckErr_Format",
                 "CystckErr_NoMemory", "CystckErr_BadArgument", "CystckErr_SetFromErrno", "Cystck_Drop"}
    discard = regex.compile(r"(?:(?<=[;{}])|(?<=\)\s*\n)|(?<=\belse\b))\s*(?P<f>" + "|".join(
        map(regex.escape, sorted(fallible, key=len, reverse=True))) + r")\s*" + source.paren("a") + r"\s*;")
    for ctx in contexts:
        if ctx.role is not None and not ctx.role.state:
            continue
        b0, b1 = ctx.body
        for m in _SETS_ERROR.finditer(code, b0, b1):
            before = code[max(b0, m.start() - 30):m.start()]
            if regex.search(r"=\s*$|\(\s*$", before) or _returned(code, b0, m.start()):
                continue
            close = source.matching(code, m.end() - 1)
            semi = code.find(";", close)
            nxt = _next_statement(code, semi + 1, b1)
            if not regex.match(r"(?:return|goto|break)\b", nxt) and "Cystck_Drop" not in nxt[:11]:
                out.append(_note(unit, "exception", m.start(),
                                 f"{m.group().rstrip('(').strip()} sets an exception but the next statement "
                                 f"does not return it ({source.excerpt(nxt) or 'end of block'})"))
        for m in discard.finditer(code, b0, b1):
            if m.group("f") in ("CystckModule_AddIntConstant", "CystckModule_AddStringConstant",
                                "CystckModule_AddObject", "CystckList_Append", "CystckDict_SetItem",
                                "CystckDict_SetItemString", "CystckObject_SetAttr",
                                "CystckObject_SetAttrString", "CystckList_SetItem", "CystckTuple_SetItem") or \
                    api.by_name()[m.group("f")].ret != "void":
                out.append(_note(unit, "unchecked", m.start("f"),
                                 f"result of {m.group('f')} is not checked: it may fail with an exception set"))
    return out


_FALLBACK_GUARD = regex.compile(r"^[ \t]*#[ \t]*(?:ifndef[ \t]+(?P<a>_?Py\w+)\b"
                                r"|(?:el)?if\b(?P<c>[^\n]*))", regex.M)
_NOT_DEFINED = regex.compile(r"![ \t]*defined[ \t]*\(?[ \t]*(_?Py\w+)\b")


def _compat_fallbacks(code):
    """Stock names an extension defines only for Pythons that lack them,
    under ``#ifndef Py_SIZE``, ``#if !defined(Py_SIZE)`` or a condition
    that requires it undefined among others, ``#if PY_VERSION_HEX <
    0x030900A4 && !defined(Py_SET_SIZE)``: CPython's own definition is the
    one compiled, so they stay stock names.  A guarded name the running
    CPython does not define (``#ifndef PyInt_Check``, Python 2's) is the
    extension's own: its definition is compiled."""
    names = set()
    for m in _FALLBACK_GUARD.finditer(code):
        if m.group("a"):
            names.add(m.group("a"))
        elif "||" not in m.group("c"):
            names.update(_NOT_DEFINED.findall(m.group("c")))
    return names & api.stock_defined_names()


_FILE_SCOPE_VARIABLE = regex.compile(r"^(?:(?:static|const|struct|extern)[ \t]+)*\w+[ \t*]+(\w+)[ \t]*(?:\[[^\]\n]*\][ \t]*)?=",
                                     regex.M)


def own_names(unit, code):
    """Identifiers the extension defines itself (``PyLongToINT64`` in ujson
    is a helper of its own, not a stock API)."""
    p = unit.project
    names = {n for _, n in p.functions} | p.state_typedefs | p.state_fields | p.globals
    names |= set(regex.findall(r"\btypedef\b[^;]*?\b(\w+)\s*(?:\)\s*\([^;]*)?;", code))
    names |= set(regex.findall(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", code, regex.M)) - _compat_fallbacks(code)
    names |= set(regex.findall(r"(?:->|\.)\s*(\w+)", code))
    # its variables defined at file scope with an initialiser (a module
    # definition named ``Python3_module``)
    names |= set(_FILE_SCOPE_VARIABLE.findall(code))
    # its instance structs (``PyEncoderObject``), their accessors and the
    # names the type rules generate from its type objects
    names |= set(p.types) | {f"{s}_AsStruct" for s in p.types}
    names |= {f"{t}{suffix}" for t in p.type_objects for suffix in ("_spec", "_defines")}
    return names


def _leftovers(unit, code):
    out = []
    own = own_names(unit, code)
    escapes = [(m.start(), source.matching(code, m.end() - 1)) for m in _ESCAPE.finditer(code)]
    escapes += escape.escaped_spans(unit.text, code)    # reported by the escape-hatch rule
    escapes += _common.polyfill_bodies(unit)
    # the stock-ABI entries of a capsule's C API table (reported by capsule-table-entries)
    escapes += [(f.start, f.body[1]) for f in unit.functions()
                if f.is_definition and f.name.endswith(STOCK_ABI_SUFFIX)]
    stock = _common.stock_bodies(unit)
    # why each stock body stays stock, by its span
    why = {(f.name_start, f.body[1]): unit.project.role(f.name).detail for f in unit.functions()
           if f.is_definition and (f.name_start, f.body[1]) in stock}
    seen = set()
    for m in _STOCK.finditer(code):
        name = m.group()
        if api.KEEP_STOCK.match(name) or name in own:
            continue
        if _in_escape(m.start(), escapes) or regex.match(r"\s*#\s*(?:if|ifdef|ifndef|elif|define|undef|endif)",
                                                        code[code.rfind("\n", 0, m.start()) + 1:m.start()]):
            continue
        line = source.line_of(unit.text, m.start())
        if (name, line) in seen:
            continue
        seen.add((name, line))
        span = next((sp for sp in stock if sp[0] <= m.start() < sp[1]), None)
        reason = _stock_reason(name, why.get(span)) if span else _reason(name)
        out.append(Note("leftover", unit.path, line, reason, "analysis"))
    return out


def _stock_reason(name, role_detail):
    """Why ``name`` stays stock in a function kept stock, by the function's role."""
    if role_detail == "capsule destructor":
        return f"{name} kept: a capsule destructor stays stock (CPython calls it with a PyObject * and no state)"
    return (f"{name} kept: the function stays stock ({role_detail}: handles do not reach what it "
            "reads), its callers lend it their objects through the escape hatch")


def _in_escape(pos, escapes):
    return any(s <= pos < e for s, e in escapes)


def _reason(name):
    if name in api.stock_map() or name in api.SPECIAL:
        return f"{name} kept: the rule that translates it did not match this use"
    if regex.fullmatch(OBJECT_TYPES, name):
        return f"{name} kept: a stock object type in a context the rules do not translate"
    return f"{name} has no Cystck counterpart: rewrite by hand or use Cystck_AsPyObject/Cystck_FromPyObject"
