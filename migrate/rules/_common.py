"""Per-function context shared by the rules: which names are handles, which
handles point at a custom struct, what the function's role is.

Computed on the *current* text (so rules stay independent: a rule sees
``PyObject *x`` and ``Cystck_Object x`` alike as a handle declaration) with
the role taken from the Project (built from the stock sources)."""
import functools
from dataclasses import dataclass, field

import regex

from .. import cstruct, project as proj, source
from ..project import OBJECT_TYPES

PAREN = source.paren("p")
# A statement start: after '{', '}', ';' or ':' (labels), or a line start.
STMT_START = r"(?:(?<=[{};:])|(?<=^)|(?<=\)\s*\n))"


@dataclass
class Param:
    name: str
    base: str
    ptr: str
    span: tuple


@dataclass
class FunctionContext:
    func: source.Function
    role: object
    params: list
    handles: set = field(default_factory=set)        # handle variables
    arrays: set = field(default_factory=set)         # handle arrays / pointers (args)
    typed: dict = field(default_factory=dict)        # handle -> custom struct
    data_ptrs: dict = field(default_factory=dict)    # struct pointer (not handle) -> struct
    kwlists: set = field(default_factory=set)
    # local handle -> [(declared at, end of its block, custom struct or None)]:
    # blocks may declare one name with different types
    scoped: dict = field(default_factory=dict)
    plain: dict = field(default_factory=dict)        # local or parameter of a plain struct (or pointer) -> struct
    # of a macro's context: parameters given a handle by some uses, a null
    # pointer by the others (functions._handle_params)
    nullable: set = field(default_factory=set)

    def struct_at(self, name, pos):
        """The custom struct of handle ``name`` where it is used at ``pos``:
        that of its innermost declaration in scope there (a parameter's if
        no local one is), or None."""
        live = [(at, s) for at, end, s in self.scoped.get(name, ()) if at <= pos < end]
        if live:
            return max(live)[1]
        return self.typed.get(name) if name not in self.scoped or self._is_param(name) else None

    def out_of_scope(self, name, pos):
        """Is ``name`` a local handle whose every declaration is in a block
        that does not hold ``pos`` (so that ``name`` there is another
        variable: ``bool error;`` beside a block's ``PyObject *error``)?"""
        scopes = self.scoped.get(name)
        return bool(scopes) and not self._is_param(name) and not any(at <= pos < end for at, end, _ in scopes)

    def _is_param(self, name):
        return any(p.name == name for p in self.params)

    @property
    def body(self):
        return self.func.body

    def param_name(self, index):
        if index is None or index >= len(self.params):
            return None
        return self.params[index].name

    @property
    def has_state(self):
        """Does the function have the state S (a helper, or an entry point
        of a role that passes it; destructors have none)?"""
        return self.role is None or self.role.state

    def role_name(self, kind_index):
        """The name of the parameter in role slot ``kind_index``."""
        spec = self.role.params[kind_index]
        return self.param_name(spec[1]) or spec[2]

    @property
    def args_name(self):
        return self._role_param("args")

    @property
    def nargs_name(self):
        return self._role_param("nargs")

    @property
    def kw_name(self):
        return self._role_param("kw")

    @property
    def rewritten(self):
        """Has the signature already been given Cystck's form?"""
        return bool(self.params) and self.params[0].base.endswith("Cystck_State")

    def _role_param(self, default):
        if self.role is None:
            return None
        for k, (ctype, idx, dflt) in enumerate(self.role.params):
            if dflt == default:
                if self.rewritten:
                    return self.params[k + 1].name if k + 1 < len(self.params) else dflt
                return self.param_name(idx) or dflt
        return None


def keeps_struct_params(name):
    """Functors overload ``operator()`` on the struct types of their
    operands (``Variable*``, ``Term*``...): made handles, the overloads
    would collapse into one signature, so struct pointers stay pointers to
    the native struct (reached from a handle with ``Cystck_AsStruct``, and
    back with ``Cystck_FromStruct``)."""
    return name == "operator()"


# Compiled once: parse_params and the type tests run for every parameter
# and declaration of every file (the regex module's own cache lookup per
# call was a quarter of the translation time).
# a parameter's name, then an attribute that may follow it (``self
# UNUSED``, ``self __attribute__((unused))``), which is not the name
_PARAM_NAME = regex.compile(r"(?:Py_UNUSED\s*\(\s*(\w+)\s*\)|(\w+))\s*(\[[^\]]*\])?"
                            r"(?:\s+[A-Z_]*UNUSED[A-Z_]*|\s*__attribute__\s*\(\(.*\)\))?\s*$")
_STAR_CONST = regex.compile(r"\*\s*const\b")
_TRAILING_STARS = regex.compile(r"[\*\s]+$")
_FROM_STAR = regex.compile(r"\s*\*.*$")
_QUALIFIERS = regex.compile(r"\b(?:const|struct|volatile|register)\b")
_QUALIFIERS_NOT_REGISTER = regex.compile(r"\b(?:const|struct|volatile)\b")
_OBJECT_TYPE = regex.compile(OBJECT_TYPES)

#: what may precede a function's return type in its head: storage, inline,
#: the extensions' macros for them, a C++ template header
FUNCTION_QUALIFIERS = (r"(?:(?:(?:static|inline|extern|__inline__|__inline|FASTCALL_ATTR|Py_LOCAL_INLINE"
                       r"|CYSTCK_UNUSED|constexpr)\b|template\s*<[^<>]*>)\s*)*")
_FUNCTION_HEAD = regex.compile(r"(?P<q>\s*" + FUNCTION_QUALIFIERS + r")(?P<t>.*?)(?P<ws>\s*)", regex.S)


def function_head(head):
    """A function's head (its text before the name) split into groups ``q``
    (the qualifiers), ``t`` (the return type) and ``ws`` (what follows it);
    None if it does not split."""
    return _FUNCTION_HEAD.fullmatch(head)


def return_type(head):
    """The return type in a function's head, its words one space apart."""
    m = function_head(head)
    return " ".join((m.group("t") if m else head).split())


def parse_params(code, start, end):
    """The Params of the parameter list ``code[start:end]``, each a new
    object (callers change them)."""
    return [Param(p.name, p.base, p.ptr, (p.span[0] + start, p.span[1] + start))
            for p in _params_of(code[start:end])]


# The function contexts are derived again after every rule that changes a
# function, mostly with its parameter list unchanged; _PARAM_NAME.search,
# which tries every start in a parameter, is the costly part.
@functools.lru_cache(maxsize=4096)
def _params_of(code):
    """parse_params of the whole of ``code``, spans relative to it."""
    out = []
    text = code.strip()
    if not text or text == "void":
        return tuple(out)
    for s, e in source.split_top(code, 0, len(code)):
        piece = code[s:e]
        m = _PARAM_NAME.search(piece)
        if not m or piece.strip() in ("...",):
            out.append(Param("", piece.strip(), "", (s, e)))
            continue
        name = m.group(1) or m.group(2)
        head = piece[:m.start()]
        stars = "*" * head.count("*")
        if m.group(3):
            stars += "*"
        base = _TRAILING_STARS.sub("", _STAR_CONST.sub("*", head)).strip()
        base = _FROM_STAR.sub("", base)
        if not base and name:      # an unnamed parameter: `PyObject *`
            base, name = name, ""
        out.append(Param(name, base, stars, (s, e)))
    return tuple(out)


def is_handle_type(base, ptr, structs):
    b = _QUALIFIERS.sub("", base).strip()
    if b == "Cystck_Object":
        return ptr == ""
    if ptr != "*":
        return False
    return bool(_OBJECT_TYPE.fullmatch(b)) or b in structs


def is_handle_array(base, ptr, structs):
    b = _QUALIFIERS.sub("", base).strip()
    if b == "Cystck_Object":
        return ptr == "*"
    return ptr == "**" and (bool(_OBJECT_TYPE.fullmatch(b)) or b in structs)


def struct_name(base, structs):
    b = _QUALIFIERS_NOT_REGISTER.sub("", base).strip()
    return b if b in structs else None


# An array's brace initializer, ``PyObject *args[] = {NULL, a, b}``: its
# items are expressions, so one level of braces with no statement in it.
_ARRAY_INIT = r"\]\s*=\s*\{[^;{}]*\}"


def decl_pattern(structs):
    """A declaration statement whose base type is an object type (an
    array's brace initializer included)."""
    names = [OBJECT_TYPES, r"Cystck_Object\b"] + [regex.escape(s) + r"\b" for s in sorted(structs)]
    return regex.compile(
        STMT_START + r"(?P<lead>[ \t]*)(?P<decl>(?:(?:static|const|register|struct)\s+)*(?P<base>(?:"
        + "|".join(names) + r"))(?!\s*[(\[.]|->|\s*[=;,)])(?:[^;{}]|" + _ARRAY_INIT + r")*);", regex.M)


def stock_bodies(unit):
    """Spans of the functions that stay stock, from their name to the end
    of their body (capsule destructors, which CPython calls with a
    ``PyObject *`` and no state; polyfills of stock API functions)."""
    return [(f.name_start, f.body[1]) for f in unit.functions()
            if f.is_definition and (r := unit.project.role(f.name)) is not None and r.kind == "stock"]


# ``char *kwlist[]``: a keyword-name list for PyArg_ParseTupleAndKeywords.
_KWLIST = regex.compile(r"\bchar\s*\*\s*(\w+)\s*\[\s*\]")


def polyfill_bodies(unit):
    """Spans of the polyfills of stock API functions (see stock_bodies):
    the stock API itself, with nothing left for a human."""
    return [(f.start, f.body[1]) for f in unit.functions()
            if f.is_definition and unit.project.role(f.name) is proj.STOCK_POLYFILL]


def function_contexts(unit, with_locals=True):
    """FunctionContexts for the function definitions in ``unit``; each call
    gets its own copies to change."""
    _, known = unit.derived(("function-contexts", with_locals),
                            lambda previous: _contexts(unit, with_locals, previous))
    return [_moved(ctx, ctx.func.moved(0), 0) for _, ctx in known]


def _contexts(unit, with_locals, previous):
    """(custom structs, [(key, FunctionContext)]) for the current text.  A
    function whose text, name and role are those of one in ``previous`` (the
    value for an earlier text) keeps its context, moved to where it now
    starts: the key is the function's structure mask, which is all that
    computing its context reads."""
    code = unit.structure
    structs = unit.project.custom_structs
    snapshot = frozenset(structs)
    reusable = dict(previous[1]) if previous is not None and previous[0] == snapshot else {}
    dpat = decl_pattern(structs)
    out = []
    classes = None
    for f in unit.functions():
        if not f.is_definition:
            continue
        role = unit.project.role(f.name)
        members = ()
        if f.member and unit.project.member_handles:
            if classes is None:
                classes = list(proj.class_bodies(code))
            members = _member_handles(unit.project, classes, f)
        key = (f.name, f.params[0] - f.start, f.params[1] - f.start, f.body[0] - f.start, code[f.start:f.body[1]],
               frozenset(members))
        old = reusable.get(key)
        if old is not None and old.role == role:
            ctx = _moved(old, f, f.start - old.func.start)
        else:
            ctx = _context(code, f, role, structs, dpat, with_locals, members)
            _plain_structs(code, ctx, unit.project)
        out.append((key, ctx))
    return snapshot, out


def _moved(ctx, func, delta):
    """A copy of ``ctx`` for ``func``, its positions shifted by ``delta``."""
    return FunctionContext(
        func, ctx.role, [Param(p.name, p.base, p.ptr, (p.span[0] + delta, p.span[1] + delta)) for p in ctx.params],
        set(ctx.handles), set(ctx.arrays), dict(ctx.typed), dict(ctx.data_ptrs), set(ctx.kwlists),
        {name: [(at + delta, end + delta, s) for at, end, s in scopes] for name, scopes in ctx.scoped.items()},
        dict(ctx.plain))


def _member_handles(project, classes, f):
    """The handle members of the class whose body holds the member
    function ``f``: a method reads them by their bare names."""
    inside = [(open_at, name) for name, open_at, close in classes if open_at < f.start < close]
    return project.member_handles.get(max(inside)[1], ()) if inside else ()


def _context(code, f, role, structs, dpat, with_locals, members=()):
    """The FunctionContext of the function definition ``f`` (a member
    function of a class whose handle members are ``members``)."""
    params = parse_params(code, *f.params)
    ctx = FunctionContext(f, role, params)
    ctx.handles.update(set(members) - {p.name for p in params})
    for p in params:
        _classify(ctx, p.name, p.base, p.ptr, structs)
        if keeps_struct_params(f.name) and p.name in ctx.typed:
            ctx.handles.discard(p.name)
            ctx.data_ptrs[p.name] = ctx.typed.pop(p.name)
    if ctx.role is not None and ctx.role.kind in ("destroy", "traverse", "clear"):
        # their first parameter is the native struct, not a handle
        if params:
            ctx.handles.discard(params[0].name)
            s = ctx.typed.pop(params[0].name, None)
            if s:
                ctx.data_ptrs[params[0].name] = s
    if with_locals:
        b0, b1 = f.body
        blocks = _blocks(code, b0, b1)
        for m in dpat.finditer(code, b0, b1):
            parsed = cstruct.split_declaration(code, m.start("decl"), m.end("decl"))
            if not parsed:
                continue
            base = code[m.start("decl"):parsed[0]]
            end = min((e for s, e in blocks if s <= m.start() < e), default=b1)
            for d in parsed[1]:
                ptr = d.pointer + ("*" if d.array else "")
                _classify(ctx, d.name, base, ptr, structs, is_local=True, array=bool(d.array))
                if d.name and is_handle_type(base, ptr, structs):
                    ctx.scoped.setdefault(d.name, []).append((m.start(), end, struct_name(base, structs)))
        for m in _KWLIST.finditer(code, b0, b1):
            ctx.kwlists.add(m.group(1))
    return ctx


def _plain_structs(code, ctx, project):
    """Record in ctx.plain the parameters and locals declared as a plain
    struct of the project, or a pointer to one (``job_t job;``, ``struct
    job_s *j``): what an access's first name is (member_owner)."""
    names = project.struct_names
    if not names:
        return
    for p in ctx.params:
        base = _QUALIFIERS.sub("", p.base).strip()
        if base in names and p.ptr in ("", "*"):
            ctx.plain[p.name] = base
    b0, b1 = ctx.body
    alts = "|".join(regex.escape(n) for n in sorted(names, key=len, reverse=True))
    for m in regex.finditer(STMT_START + rf"\s*(?:(?:static|const|register|struct)\s+)*(?P<t>{alts})\b"
                            r"(?P<d>\s*\**\s*\w+[^;{}()]*(?:\([^;{}]*)?);", code, pos=b0, endpos=b1):
        for d in regex.finditer(r"(?:^|,)\s*(?P<p>\**)\s*(?P<n>\w+)", regex.sub(r"=[^,]*", "", m.group("d"))):
            if len(d.group("p")) <= 1:
                ctx.plain.setdefault(d.group("n"), m.group("t"))


_BRACES = regex.compile(r"[{}]")


def _blocks(code, b0, b1):
    """The (start, end) of every braced block in code[b0:b1]."""
    out, stack = [], []
    for m in _BRACES.finditer(code, b0, b1):
        if m.group() == "{":
            stack.append(m.start())
        elif stack:
            out.append((stack.pop(), m.end()))
    return out


def state_functions(unit):
    """(function, role) of each function definition that has the state
    ``S``: all but those whose role runs without a frame (destructors,
    traverse functions); a function with no role counts as having it."""
    for f in unit.functions():
        if not f.is_definition:
            continue
        role = unit.project.role(f.name)
        if role is None or role.state:
            yield f, role


def stateful_contexts(unit, with_locals=True):
    """The FunctionContexts (function_contexts' copies) of the functions in
    ``unit`` that have the state ``S``: those whose bodies the rules that
    write calls taking ``S`` may rewrite."""
    return [ctx for ctx in function_contexts(unit, with_locals) if ctx.has_state]


def matches_in_state_bodies(unit, pattern, code):
    """(ctx, match) for each match of ``pattern`` on ``code`` (a mask of the
    unit's text) inside the body of a function that has the state ``S``:
    where the rules that rewrite handles may write calls that need it."""
    for ctx in stateful_contexts(unit):
        b0, b1 = ctx.body
        for m in regex.finditer(pattern, code, pos=b0, endpos=b1):
            yield ctx, m


def _classify(ctx, name, base, ptr, structs, is_local=False, array=False):
    if not name:
        return
    if array and is_handle_type(base, ptr[:-1], structs):
        ctx.arrays.add(name)
        return
    if is_handle_type(base, ptr, structs):
        ctx.handles.add(name)
        s = struct_name(base, structs)
        if s:
            ctx.typed[name] = s
    elif is_handle_array(base, ptr, structs):
        ctx.arrays.add(name)


def names_re(names):
    """A regex alternative matching any of ``names`` as whole identifiers
    (never after '->' or '.', which would make it a member, nor after a
    C++ scope ``ns::``, which names something else: ``kiwi::Error`` is not
    the file's global ``Error``)."""
    if not names:
        return r"(?!)"
    alts = "|".join(regex.escape(n) for n in sorted(names, key=len, reverse=True))
    return rf"(?<![\w.>]|->|::)(?:{alts})\b"


def is_ref_element(expr, project):
    """Is the expression text ``expr`` an element of an array of
    references: ``cache[i]`` of a global ``PyObject *cache[N]``, or
    ``H.items[i]`` of a member ``PyObject *items[N]`` of a plain struct a
    global holds (Cystck_Ref arrays once translated)?"""
    m = regex.fullmatch(r"\s*(?:(?P<g>\w+)|.*?(?:->|\.)\s*(?P<f>\w+))\s*\[.*\]\s*", expr, regex.S)
    if not m:
        return False
    return m.group("g") in project.ref_arrays if m.group("g") else m.group("f") in project.ref_array_fields


#: A candidate handle expression: a name, ``a[i]``, or a member chain
#: ``a->b.c``, its last member maybe subscripted, ``a->b[i]`` (not a
#: call).  ``is_handle`` decides.  HX_OPEN is it without HX's end, which
#: refuses a word, a call or a subscript right after it.
HX_OPEN = (r"(?<![\w.>])(?:(?:[A-Za-z_]\w*|\(\s*[A-Za-z_]\w*\s*\))(?:\s*\[[^\]\[;]+\])?"
           r"(?:\s*(?:->|\.)\s*[A-Za-z_]\w*(?:\s*\[[^\]\[;]+\])?)*)")
HX = HX_OPEN + r"(?!\s*[\w(\[])"
HANDLE_CONSTANTS = {"Py_None", "Py_True", "Py_False", "Py_NotImplemented", "Py_Ellipsis", "Cystck_None",
                    "Cystck_True", "Cystck_False", "Cystck_NotImplemented", "Cystck_Ellipsis"}
_MEMBER = regex.compile(r"(?:->|\.)\s*(\w+)\s*$")
_INDEXED = regex.compile(r"^(\w+)\s*\[")
_MEMBER_ELEMENT = regex.compile(r"(?:->|\.)\s*(\w+)\s*\[[^\]\[;]+\]$")     # sp.parts[i]


def is_handle(expr, ctx, project):
    """Is the expression text ``expr`` (matched by HX) known to be a handle
    in function ``ctx``?"""
    expr = expr.strip()
    if expr in ctx.handles or expr in HANDLE_CONSTANTS:
        return True
    m = _MEMBER.search(expr)
    if m:
        if m.group(1) in project.ambiguous_refs:
            owner = member_owner(expr, ctx, project)
            if owner is not None:
                return not project.member_is_ref(m.group(1), owner)
        if m.group(1) in project.ambiguous_handles:
            owner = member_owner(expr, ctx, project)
            if owner is not None and owner in project.struct_names:
                return project.member_is_handle(m.group(1), owner)
        return m.group(1) in project.handle_fields
    m = _MEMBER_ELEMENT.search(expr)
    if m:
        return m.group(1) in project.handle_array_fields
    m = _INDEXED.match(expr)
    return bool(m) and m.group(1) in ctx.arrays and expr.endswith("]")


def member_owner(expr, ctx, project):
    """The plain struct whose member the access ``expr`` (``a.b[i]->c``)
    reads, from the declaration of its first name (ctx.plain, else a
    global of the project) and the types of the members it goes through;
    None where unknown."""
    parts = regex.split(r"\s*(?:->|\.)\s*", regex.sub(r"\[[^\[\]]*\]", "", expr).strip())
    if len(parts) < 2 or not all(regex.fullmatch(r"[A-Za-z_]\w*", x) for x in parts):
        return None
    head = parts[0]
    struct = ctx.plain.get(head) if ctx is not None and head in ctx.plain else \
        None if ctx is not None and head in ctx.handles else project.struct_globals.get(head)
    for member in parts[1:-1]:
        if not struct:
            break
        held = project.member_structs.get(struct, {}).get(member)
        if held is None and parts[-1] in project.member_handles.get(struct, ()):
            continue    # an inline union or struct: its members count as the struct's own
        struct = held
    return struct


def deep_access(expr):
    """Does ``expr`` go through two member accesses or more
    (``it->state->output.object``), as a member of a struct an instance
    points to does, where a custom type's own field takes one
    (``self->object``)?"""
    return len(regex.findall(r"->|(?<![\d\s])\.(?!\d)", regex.sub(r"\[[^\[\]]*\]", "", expr))) >= 2


def is_reference(expr, ctx, project):
    """Is the access ``expr`` of a member named like a reference one
    (project.ref_fields) a reference, by its struct where that is known?
    An array of references (project.ref_array_fields, ``H.items`` of an
    element ``H.items[i]``) goes by its name."""
    m = _MEMBER.search(expr)
    if m and m.group(1) in project.heap_ref_fields and m.group(1) in project.object_field_names and \
            member_owner(expr, ctx, project) is None and not deep_access(expr):
        # a reference of allocated memory named like a custom type's object
        # field: without its struct, one access (x->object) is the field
        return False
    if not m or m.group(1) not in project.ambiguous_refs:
        return bool(m) and (m.group(1) in project.ref_fields or m.group(1) in project.ref_array_fields)
    return project.member_is_ref(m.group(1), member_owner(expr, ctx, project))


# where a value is tested for truth: what stands before it and what after
# (the places null-handles tests a bare handle: `if (h)`, `a && h`, `(h || b)`,
# `x = h ? a : b`); `f(h)` and `(h)` alone are values, not tests
_TRUTH_CONTEXTS = tuple((regex.compile(b + r"\s*$"), regex.compile(r"\s*" + a)) for b, a in (
    (r"(?:(?:\bif|\bwhile|\bassert)\s*\(|&&|\|\|)", r"(?:\)|&&|\|\||\?)"),
    (r"\(", r"(?:&&|\|\|)"),
    (r"(?:(?<![=!<>])=|[(,]|\breturn)", r"\?")))


def releases(code, x):
    """Does ``code`` release the reference ``x`` holds (a local, a member):
    ``Py_DECREF(x)``, ``Py_XDECREF(x)``, ``Py_CLEAR(x)``, ``Py_SETREF(x,
    ...)``/``Py_XSETREF(x, ...)``, or, once ported, ``Cystck_Drop(S, x)``?
    ``x`` is a name or a pattern spelling one (``job\\s*\\.\\s*cb``)."""
    return bool(regex.search(rf"\b(?:Py_X?DECREF|Py_CLEAR)\s*\(\s*{x}\s*\)|\bPy_X?SETREF\s*\(\s*{x}\s*,"
                             rf"|\bCystck_Drop\s*\(\s*S\s*,\s*{x}\s*\)", code))


def tested_for_truth(code, start, end):
    """Is the operand ``code[start:end]`` (a parenthesized expression) the
    condition of ``if``/``while``/``for``/``assert`` or an operand of ``&&``,
    ``||`` or ``?:``?  (A ``!`` before it the caller sees itself.)"""
    before = code[max(0, start - 12):start]
    return any(b.search(before) and a.match(code, end) for b, a in _TRUTH_CONTEXTS) or \
        for_condition(code, start, end)


_CONDITIONAL = regex.compile(r"\?[^;]*:")
_CONDITIONAL_NULL = regex.compile(r"(?<=:\s*)(?:NULL|nullptr)\b(?=\s*$)|(?<=\?\s*)(?:NULL|nullptr)\b(?=\s*:)")


def conditional_nulls(code, start, end):
    """Spans of the NULLs in [start, end) of ``code`` that are a branch of
    a conditional expression (``c ? h : NULL``, ``c ? NULL : h``), stored
    or returned where a handle is wanted: the null handle there.  A
    conditional inside a call's parentheses is an argument, no value of
    the whole (``Py_BuildValue("z", c ? NULL : "x")`` passes a ``char *``);
    one in grouping parentheses is (``c ? (d ? NULL : h) : g``)."""
    value = code[start:end]
    if not _CONDITIONAL.search(value):
        return []
    return [(start + m.start(), start + m.end()) for m in _CONDITIONAL_NULL.finditer(value)
            if not _in_call_parentheses(value, m.start())]


def _in_call_parentheses(value, pos):
    """Is ``pos`` inside parentheses of ``value`` that follow a name or a
    closing bracket (a call's, or a cast's operand's)?"""
    opens = []
    for i, ch in enumerate(value[:pos]):
        if ch == "(":
            opens.append(i)
        elif ch == ")" and opens:
            opens.pop()
    return any(regex.search(r"[\w)\]]\s*$", value[:i]) for i in opens)


_STATEMENT_BEFORE = regex.compile(r"(?:[{};:)]|\belse|\bfor\s*\()$")


def at_statement_start(code, start):
    """Is ``start`` where an expression statement (or a ``for`` loop's
    first clause) begins: after ``{``, ``}``, ``;``, a label, ``else``, the
    ``)`` of an ``if``/``while``/``for`` header, or ``for (``?  Blanks,
    blanked comments, preprocessor lines and a macro body's line
    continuations before it do not count."""
    i = start
    while i > 0:
        window = max(0, i - 400)
        before = code[window:i].rstrip()
        while before.endswith("\\"):
            before = before[:-1].rstrip()
        line = before.rfind("\n") + 1
        if before and regex.match(r"[ \t]*#[ \t]*define\b", before[line:]):
            return True                # the start of a macro's body
        if before and regex.match(r"[ \t]*#", before[line:]):
            i = window + line          # a directive: what comes before it
            continue
        if not before and window > 0:
            i = window
            continue
        return bool(_STATEMENT_BEFORE.search(before))
    return False


def expression_end(code, pos, limit):
    """Where the expression starting at ``pos`` (the value of an assignment,
    ``g = c ? a : b``) ends: before a ``;`` or ``,`` at its own depth, an
    unmatched closing bracket, or a ``:`` of a ``?:`` around it."""
    depth = ternary = 0
    i = pos
    while i < limit:
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and c in ";,":
            break
        elif depth == 0 and c == "?":
            ternary += 1
        elif depth == 0 and c == ":" and code[i - 1:i + 1] != "::" and code[i:i + 2] != "::":
            if ternary == 0:
                break
            ternary -= 1
        i += 1
    return pos + len(code[pos:i].rstrip())


def question_of(code, colon, limit):
    """Where the ``?`` of the conditional expression whose ``:`` is at
    ``colon`` is (searching back no further than ``limit``), or None
    where that ``:`` is not a conditional's (a label, ``case``)."""
    depth = nested = 0
    for i in range(colon - 1, limit - 1, -1):
        c = code[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            if depth == 0:
                return None
            depth -= 1
        elif depth == 0 and c in ";{}":
            return None
        elif depth == 0 and c == ":" and code[i - 1:i + 1] != "::" and code[i:i + 2] != "::":
            nested += 1
        elif depth == 0 and c == "?":
            if nested == 0:
                return i
            nested -= 1
    return None


def conditional_split(expr):
    """(``?``, ``:``) offsets of the conditional expression that is all of
    ``expr`` (masked text), or None."""
    question = source.top_level_find(expr, 0, len(expr), "?,;")
    if question is None or expr[question] != "?":
        return None
    end = expression_end(expr, question + 1, len(expr))
    colon = end + len(expr[end:]) - len(expr[end:].lstrip())
    return (question, colon) if expr[colon:colon + 1] == ":" else None


def for_condition(code, start, end):
    """Is ``code[start:end]`` the whole condition of a ``for`` header,
    ``for (; (x = f()); )``?"""
    if not (regex.search(r";\s*$", code[max(0, start - 40):start]) and regex.match(r"\s*;", code[end:])):
        return False
    depth = 0
    for i in range(start - 1, max(-1, start - 2000), -1):
        depth += {")": 1, "(": -1}.get(code[i], 0)
        if depth < 0:       # the parenthesis that holds the condition
            return bool(regex.search(r"\bfor\s*$", code[max(0, i - 10):i]))
        if depth == 0 and code[i] in "{}":
            return False
    return False


def declaration_start(code, span, at):
    """Where the declaration matched at ``at`` starts, in the top-level item
    ``span``: its line, or the item's first character if later.  An item
    may begin with a macro line that has no semicolon of its own, such as
    the ``CYSTCK_TYPE_HELPERS(Foo)`` the object-struct rule writes after a
    struct, which a rule rewriting the declaration must leave in place."""
    first = span[0] + len(code[span[0]:span[1]]) - len(code[span[0]:span[1]].lstrip())
    line = code.rfind("\n", 0, at) + 1
    # specifiers alone on the lines before (``static\nPyMethodDef t[] =``)
    # are the declaration's
    while line > first:
        previous = max(first, code.rfind("\n", 0, line - 1) + 1)
        if not _SPECIFIERS_ONLY.fullmatch(code[previous:line].strip()):
            break
        line = previous
    return max(first, line)


_SPECIFIERS_ONLY = regex.compile(r"(?:(?:static|extern|const|inline)\s*)+")


def statement_line_span(text, start, end):
    """Widen [start, end) to whole lines if the statement is alone on its
    line(s) (so removing it leaves no blank line)."""
    ls = text.rfind("\n", 0, start) + 1
    le = text.find("\n", end)
    le = len(text) if le < 0 else le
    if text[ls:start].strip() == "" and text[end:le].strip() == "":
        return ls, min(le + 1, len(text))
    return start, end


def open_brace_before(code, pos):
    """The ``{`` of the innermost block around ``pos`` (``code`` starts
    with a brace that encloses it)."""
    depth = 0
    for i in range(pos - 1, -1, -1):
        if code[i] == "}":
            depth += 1
        elif code[i] == "{":
            if depth == 0:
                return i
            depth -= 1
    return 0


def in_unbraced_body(masked, start):
    """Is the statement at ``start`` the unbraced body of if/else/for/while?"""
    before = masked[:start].rstrip()
    if before.endswith("else"):
        return True
    if before.endswith(")"):
        # find the matching '(' and the keyword before it
        depth = 0
        for i in range(len(before) - 1, -1, -1):
            c = before[i]
            if c == ")":
                depth += 1
            elif c == "(":
                depth -= 1
                if depth == 0:
                    return bool(regex.search(r"\b(?:if|for|while)\s*$", before[:i]))
    return False


def call_of_argument(code, at):
    """(name, start) of the call that has the expression starting at ``at``
    as a whole argument (the text before it, back to the call's ``(``, is
    earlier arguments, balanced), or None."""
    depth, i = 0, at - 1
    while i >= 0 and code[i].isspace():
        i -= 1
    if i < 0 or code[i] not in ",(":
        return None
    while i >= 0:
        c = code[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            if depth == 0:
                break
            depth -= 1
        elif c in ";{}" and depth == 0:
            return None
        i -= 1
    if i < 0 or code[i] != "(":
        return None
    m = regex.search(r"(\w+)\s*$", code[:i])
    return (m.group(1), m.start(1)) if m else None


_CYSTCK_INCLUDE = regex.compile(r'^[ \t]*#[ \t]*include[ \t]*"Cystck\.h"[^\n]*\n', regex.M)


def helper_definition(name, text):
    """The definition ``text`` of the translator's helper ``name`` (a
    static inline function its rules' output calls) under a guard: the
    files of a unity build (one .c file including others) each define it
    where they need it, and the compiler sees one definition."""
    guard = f"{name.upper()}_DEFINED"
    return f"\n#ifndef {guard}\n#define {guard}{text.rstrip()}\n#endif\n"


_ANY_INCLUDE = regex.compile(r'^[ \t]*#[ \t]*include\b[^\n]*\n', regex.M)
_HELPER_GUARD = regex.compile(r"^#define (?P<name>\w+)_DEFINED$", regex.M)


def define_after_include(text, edits, definition):
    """Add ``definition`` (a helper the rule's output calls, made by
    helper_definition) once, after the ``#include "Cystck.h"`` the
    include-header rule wrote (which such a rule needs); in a file without
    it, after the last include before the first of the edits that call
    the helper (a header of the extension includes Cystck.h), or at the
    top of a file without one before it (a file a unity build includes,
    after the including file's Cystck.h).  Nothing is added where the
    definition's guard is defined already: an earlier rule wrote it (and
    later ones may have rewritten the definition since)."""
    guard = _HELPER_GUARD.search(definition)
    if regex.search("^" + regex.escape(guard.group()) + "$", text, regex.M):
        return
    name = guard.group("name").lower()
    include = _CYSTCK_INCLUDE.search(text)
    if include:
        at = include.end()
    else:
        uses = [start for start, _, new in edits.items if name in new.lower()]
        last = None
        for last in _ANY_INCLUDE.finditer(text, 0, min(uses, default=len(text))):
            pass
        at = last.end() if last else 0
    edits.add(at, at, definition)


def renamed_state(code, start, end):
    """The name a user's ``S`` in ``code[start:end]`` (a macro's parameter,
    a function's local) takes so that the state keeps ``S``: ``S_``, with
    more underscores while that name is taken there."""
    taken = set(regex.findall(r"\w+", code[start:end]))
    fresh = "S_"
    while fresh in taken:
        fresh += "_"
    return fresh
