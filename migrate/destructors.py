"""Splitting a stock destructor that calls both the API and native releases
(``Foo_reset(self); free(self->buf);``) into two parts of one deallocator
(``CYSTCK_DEF_DEALLOC``).

A Cystck destructor has no state, so the API calls go to a function of
their own, which the runtime calls in ``tp_dealloc`` where the stock
deallocator called them, first, with a state, the object alive for the
call; it may bring the object back to life, so native memory is freed in
the destructor only, which runs when the object really dies.  The split is made only where it
runs the same statements in the same order: the statements up to the last
API call (``plan``'s ``moved``) go to the finalizer, the rest stays, and
the two parts share no local state and no control flow:

* no statement mixes the two, but for an ``if`` (no ``else``) whose
  braced body splits as a destructor's would and whose test reads what
  the API calls cannot change (``_stable_test``): ``if (self->x) {
  Foo_reset(self); free(self->buf); }``, the last statement calling the
  API, splits into ``if (self->x) { Foo_reset(self); }`` in the finalizer
  and ``if (self->x) { free(self->buf); }`` in the destructor, the test
  read twice;
* no native release comes before an API call, nor a call through a
  member (``self->release(p)``: what it calls is not known), nor a
  release of members (``Py_CLEAR(self->v)``, which the API call would
  not see in the finalizer, the runtime releasing members after it);
* no ``return`` or ``goto`` (an early return would skip the other part),
  no preprocessor directive in the body, no two statements on one line;
* a local declared in one part is used by that part only, except an alias
  of the parameter (``Foo *self = (Foo *)op;``, never assigned), which both
  get; a local only the destructor uses may be declared ahead of the API
  calls if its value cannot depend on them (no initialiser, a constant, the
  parameter or its type);
* the destructor is static: the finalizer is defined static beside it,
  so its type must be defined in the same translation unit.

Statements whose only calls are the releases the runtime does itself
(``Py_CLEAR(self->v)``, ``tp_free``, untracking, weak references, the
trashcan) stay in the destructor, where the destroy-traverse rule removes
them, wherever they are.  A destructor not split stays whole, as before:
its API calls are reported as errors.
"""
from dataclasses import dataclass

import regex

from . import source

#: Python's allocator's releases: native memory, which a destructor frees
#: and a finalizer must not.
NATIVE_FREES = regex.compile(r"PyMem_(?:Raw)?(?:Free|FREE|Del|DEL)")
#: What the runtime does after the destructor (the destroy-traverse rule
#: removes these from a destructor), and reads of the object's type and
#: size (which a destructor reads without the API).
_RELEASES = regex.compile(r"Py_(?:X?DECREF|CLEAR|TYPE|SIZE|TRASHCAN_\w+)"
                          r"|PyObject_(?:GC_UnTrack|ClearWeakRefs|GC_Del|Del|Free|CallFinalizerFromDealloc)")
#: A stock deallocator's call of the type's finalizer (tp_finalize), with the
#: return it makes if the finalizer brought the object back to life: the
#: runtime calls the finalizer before the destructor, and keeps such an
#: object, so the whole statement goes.
CALL_FINALIZER = regex.compile(
    r"\bif\s*\(\s*PyObject_CallFinalizerFromDealloc\s*" + source.paren("f") + r"\s*(?:<\s*0|!=\s*0)?\s*\)"
    r"\s*(?:return\s*;|\{\s*return\s*;\s*\})"
    r"|\b(?:\(\s*void\s*\)\s*)?PyObject_CallFinalizerFromDealloc\s*" + source.paren("g") + r"\s*;")
_CALL = regex.compile(r"(?<![\w.>])(\w+)\s*\(")
#: The object's own releases, when given the object (``PyObject_Free(self)``,
#: which the runtime does): given anything else (``PyObject_Free(self->buf)``)
#: they free native memory, which the destructor must go on freeing.
OBJECT_FREES = regex.compile(r"(?<![\w.>])PyObject_(?:GC_Del|Del|Free)\s*" + source.paren("a"))
# a call through a member (a function pointer the object holds), tp_free aside
_MEMBER_CALL = regex.compile(r"(?:->|\.)\s*(?!tp_free\b)\w+\s*\(")
_OBJECT_RELEASE = regex.compile(r"\bPy_(?:X?DECREF|CLEAR)\s*" + source.paren("a"))
# a declaration: type words then the declared name, before its initialiser
_DECLARATION = regex.compile(r"(?!(?:return|else|goto|case|do)\b)(?:[A-Za-z_]\w*[\s*]+)+[A-Za-z_]\w*\s*[=;,\[]")
# a macro ending the body without a semicolon (Py_TRASHCAN_END)
_LAST_MACRO = regex.compile(r"[A-Za-z_]\w*(?:\s*" + source.paren("m") + r")?\s*")
_CASTS = r"(?:\(\s*[\w\s*]+\)\s*)*"
_ASSIGNMENT = regex.compile(r"(?<![=!<>+\-*/%&|^])=(?!=)|\+\+|--|[-+*/%&|^]=|<<=|>>=")


@dataclass
class Split:
    """How a destructor splits: ``moved`` are the spans of text (whole
    lines, the comments above each statement with it) that go to the
    finalizer, in order; ``copied`` those both keep (aliases of the
    parameter)."""
    finalizer: str
    moved: list
    copied: list

    def finalizer_text(self, text, f):
        """The stock definition of the finalizer, to put before the
        destructor ``f``: the destructor's parameter, the chunks."""
        chunks = sorted(self.moved + self.copied)
        body = "".join(text[a:b] for a, b in chunks)
        return f"static void\n{self.finalizer}({text[f.params[0]:f.params[1]].strip()})\n{{\n{body}}}\n\n"


def call_kind(project, path, name):
    """What a call in a destructor is: 'api' (it needs the state), 'native'
    (a native function, or Python's allocator releasing memory),
    'release' (what the runtime does itself, a clear function whose call
    goes), 'macro' (a macro using the API: left to a human), or None (a
    keyword)."""
    if name in source._KEYWORDS or name == "assert":
        return None
    if NATIVE_FREES.fullmatch(name):
        return "native"
    role = project.role(name)
    if _RELEASES.fullmatch(name) or (role is not None and role.kind == "dropped") or name in project.kept_clears:
        return "release"
    if name.startswith(("Py", "_Py")) or project.needs_state(path, name):
        return "api"
    if name in project.api_macros:
        return "macro"
    return "native"


_LOCAL = regex.compile(r"[;{}]\s*(?!(?:return|else|goto|case|do)\b)(?:const\s+)?(?:struct\s+)?\w+[\s*]+"
                       r"(?P<n>[A-Za-z_]\w*)\s*(?:=\s*(?P<i>[^;]*))?;")
# a name under casts and parentheses
_NAME = regex.compile(r"\(?\s*" + _CASTS + r"\(?\s*(?P<n>[A-Za-z_]\w*)\s*\)?\s*\)?")


def _object_names(code, b0, b1, param):
    """The names of the object in the body ``code[b0:b1]``: the parameter
    ``param`` and the locals aliasing it, under casts (``Foo *self = (Foo
    *)op;``).  Without the parameter, every name but the other locals."""
    inits = {m.group("n"): m.group("i") for m in _LOCAL.finditer(code, max(b0 - 1, 0), b1, overlapped=True)}

    def alias_of(init, names):
        m = _NAME.fullmatch(init.strip()) if init else None
        return m is not None and (m.group("n") in names if names is not None else m.group("n") not in inits)
    if param is None:
        return lambda n: n not in inits or alias_of(inits[n], None)
    names, grown = {param}, True
    while grown:
        more = {n for n, init in inits.items() if n not in names and alias_of(init, names)}
        names |= more
        grown = bool(more)
    return names.__contains__


def member_frees(code, s, e, b0, b1, param=None):
    """The calls in ``code[s:e]`` of ``PyObject_Free``, ``PyObject_Del`` or
    ``PyObject_GC_Del`` (``OBJECT_FREES``) that free memory other than the
    object: their argument, under casts, is no name of the object
    (``self->buf``, ``char *buf = self->buf;``) in the body
    ``code[b0:b1]`` of a destructor whose parameter is ``param``."""
    is_object = _object_names(code, b0, b1, param)
    out = []
    for m in OBJECT_FREES.finditer(code, s, e):
        name = _NAME.fullmatch(m.group("a")[1:-1].strip())
        if name is None or not is_object(name.group("n")):
            out.append(m)
    return out


def _statement_kind(project, path, code, s, e, types, body, param):
    kinds = {call_kind(project, path, c) for c in _CALL.findall(code, s, e)} - {None}
    if member_frees(code, s, e, *body, param):
        kinds.add("native")     # memory the object points at, not the object
    if _MEMBER_CALL.search(code, s, e):
        kinds.add("native")     # what it calls is not known: never moved ahead
    # a local's reference is a handle's, for a human or the finalizer (the
    # object's type aside, ``types``: the runtime releases it)
    for m in _OBJECT_RELEASE.finditer(code, s, e):
        local = regex.fullmatch(r"\(\s*" + _CASTS + r"(?P<n>\w+)\s*\)", m.group("a"))
        if local and local.group("n") not in types:
            kinds.add("api")
    if "macro" in kinds or {"api", "native"} <= kinds:
        return "blocked"
    for kind in ("api", "native"):
        if kind in kinds:
            return kind
    if kinds and not _ASSIGNMENT.search(code, s, e):
        return "release"
    return "neutral"


#: a store into a member, or an increment of it: ``self->len = 0;``, ``++self->n``
_MEMBER_STORE = regex.compile(r"(?:->|\.)\s*(?P<m>\w+)\b(?:\s*\[[^\]]*\])*\s*(?:" + _ASSIGNMENT.pattern + r")"
                              r"|(?:\+\+|--)\s*\w+\s*(?:->|\.)\s*(?P<m>\w+)")


#: a store into a name, or an increment of it: ``cleared += n;``, ``count++``
_NAME_STORE = regex.compile(r"(?<![\w.>])(?P<n>[A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:" + _ASSIGNMENT.pattern + r")"
                            r"|(?:\+\+|--)\s*(?P<n>[A-Za-z_]\w*)\b(?!\s*(?:->|\.|\[))")
#: a name declared after a type (``Py_ssize_t i;``, ``int n = 0``, a parameter)
_DECLARED_NAME = regex.compile(r"(?<![\w.>])(?!(?:return|else|case|goto|sizeof)\b)[A-Za-z_]\w*[\s*]+"
                               r"(?P<n>[A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?=[=;,)])")


def clear_does_native_work(project, path, body, params=""):
    """Does the body (masked, braces included) of a ``tp_clear`` function
    whose parameter list is ``params`` do more than release the object's
    members: store into a member that holds no object (``self->len =
    0;``) or into a global (``cleared++``), or call a native function
    (``free(self->buf)``), with no call that needs the state and no
    release of a local's reference (so that what is left runs without a
    state, after the runtime has released the members)?"""
    kinds = {call_kind(project, path, c) for c in _CALL.findall(body)} - {None}
    if kinds & {"api", "macro"} or _MEMBER_CALL.search(body):
        return False
    if any("->" not in m.group("a") and "." not in m.group("a") for m in _OBJECT_RELEASE.finditer(body)):
        return False
    local = {m.group("n") for m in _DECLARED_NAME.finditer(params + ")" + body)}
    return "native" in kinds or any(_holds_no_object(project, m.group("m")) for m in _MEMBER_STORE.finditer(body)) \
        or any(m.group("n") not in local for m in _NAME_STORE.finditer(body))


def _lets_go_of_members(project, code, s, e):
    """Does the statement release members (``Py_CLEAR(self->v)``, a call of
    the type's clear function)?  Before an API call, it hides them from
    it, which a finalizer, running before the runtime releases them, would
    not: such a destructor is not split."""
    return any("->" in m.group("a") or "." in m.group("a") for m in _OBJECT_RELEASE.finditer(code, s, e)) \
        or any(name in project.kept_clears or getattr(project.role(name), "detail", None) == "tp_clear"
               for name in _CALL.findall(code, s, e))


def statements(code, b0, b1):
    """Spans of the top-level statements of the body ``code[b0:b1]``
    (braces included), or None if one has no end."""
    spans, i, end = [], source.skip_blank(code, b0 + 1, b1 - 1), b1 - 1
    while i < end:
        j = source.statement_end(code, i, end)
        if j is None and _LAST_MACRO.fullmatch(code, i, end):
            j = len(code[:end].rstrip())
        if j is None:
            return None
        spans.append((i, j))
        i = source.skip_blank(code, j, end)
    return spans


def _chunks(code, b0, spans):
    """Each statement's whole lines, from the line after the previous one:
    None if two share a line (or the first shares the brace's)."""
    out, start = [], code.find("\n", b0) + 1
    for s, e in spans:
        if not 0 < start <= s or code[start:s].strip():
            return None
        nl = code.find("\n", e)
        if nl < 0 or code[e:nl].strip():
            return None
        out.append((start, nl + 1))
        start = nl + 1
    return out


def _declared(code, s, e):
    """The names a declaration statement declares, and its initialisers
    (text after '=' per declarator, None where there is none); ([], [])
    if it is no declaration."""
    if not _DECLARATION.match(code, s, e):
        return [], []
    names, inits = [], []
    for a, b in source.split_top(code, s, e - 1):
        piece = code[a:b]
        eq = regex.search(r"(?<![=!<>])=(?!=)", piece)
        head = piece[:eq.start()] if eq else piece
        name = regex.search(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$", head)
        if name:
            names.append(name.group(1))
            inits.append(piece[eq.end():].strip() if eq else None)
    return names, inits


def _uses(code, name, s, e):
    return regex.search(rf"(?<![\w.>]){regex.escape(name)}\b", code[s:e]) is not None


def param_name(code, f):
    """The name of the single parameter of ``f`` (None if it has more)."""
    pieces = source.split_top(code, *f.params)
    m = regex.search(r"([A-Za-z_]\w*)\s*$", code[pieces[0][0]:pieces[0][1]]) if len(pieces) == 1 else None
    return m.group(1) if m else None


def _casts_of(names):
    """An expression that is one of ``names`` (or ``Py_TYPE`` of one),
    under casts."""
    alt = "|".join(map(regex.escape, names))
    return regex.compile(rf"{_CASTS}(?:{alt}|Py_TYPE\s*\(\s*{_CASTS}(?:{alt})\s*\))")


def plan(project, path, code, masked, f, finalizer):
    """The Split of destructor ``f`` (``code`` the structure mask, ``masked``
    the mask keeping directives), its finalizer named ``finalizer``; None
    where the destructor is not split (see the module's docstring)."""
    b0, b1 = f.body
    param = param_name(code, f)
    if param is None or regex.search(r"\b(?:return|goto)\b", CALL_FINALIZER.sub(" ", code[b0:b1])) \
            or regex.search(r"^[ \t]*#", masked[b0:b1], regex.M):
        return None
    spans = statements(code, b0, b1)
    if not spans:
        return None
    chunks = _chunks(code, b0, spans)
    # locals holding the object's type (PyTypeObject *tp = Py_TYPE(self))
    types = {n for s, e in spans for n, init in zip(*_declared(code, s, e))
             if init and regex.fullmatch(_CASTS + r"Py_TYPE\s*\(.*", init, regex.S)}
    kinds = [_statement_kind(project, path, code, s, e, types, (b0, b1), param) for s, e in spans]
    if chunks is None:
        return None
    # a statement mixing both: an if whose body splits too (at most the last API statement)
    shared = {i: _split_if(project, path, code, masked, spans[i], chunks[i], types, (b0, b1), param)
              for i, k in enumerate(kinds) if k == "blocked"}
    if None in shared.values():
        return None
    kinds = ["api" if i in shared else k for i, k in enumerate(kinds)]
    if "api" not in kinds or ("native" not in kinds and not shared):
        return None
    last_api = max(i for i, k in enumerate(kinds) if k == "api")
    if (shared and set(shared) != {last_api}) or ("native" in kinds and kinds.index("native") < last_api) or any(
            _lets_go_of_members(project, code, *spans[i]) for i in range(last_api) if kinds[i] != "api"):
        return None
    moved = {i for i in range(last_api + 1) if kinds[i] != "release" and i not in shared}
    copied, aliases = set(), [param]
    for i, (s, e) in enumerate(spans):
        names, inits = _declared(code, s, e)
        if not names:
            continue
        users = {j for j, (a, b) in enumerate(spans) if j != i and any(_uses(code, n, a, b) for n in names)}
        early = {j for j in users if j in moved or j in shared}
        late = {j for j in users if j not in moved and j > i}
        if i not in moved or not late:
            continue
        pure = len(names) == 1 and (inits[0] is None or _casts_of(aliases + ["NULL", "0", "nullptr"])
                                    .fullmatch(inits[0]))
        assigned = regex.search(rf"(?<![\w.>]){regex.escape(names[0])}\s*(?:[-+*/%&|^]?=(?!=)|\+\+|--)|&\s*"
                                rf"{regex.escape(names[0])}\b", code[e:b1])
        if not pure or (early and assigned):
            return None         # a local both parts use: they share state
        moved.discard(i)
        if early:
            copied.add(i)
            aliases.append(names[0])
    if not moved and not shared:
        return None
    inner = [span for split in shared.values() for span in split.moved]
    both = [span for split in shared.values() for span in split.copied]
    return Split(finalizer, sorted([chunks[i] for i in moved] + inner), sorted([chunks[i] for i in copied] + both))


_BRACED_IF = regex.compile(r"if\s*(?P<t>" + source.paren("c") + r")\s*\{")


def _split_if(project, path, code, masked, span, chunk, types, body, param):
    """How the statement at ``span`` (its lines ``chunk``), which calls
    the API and releases native memory, splits: an ``if`` without ``else``
    whose braced body splits as a destructor's does (the statements up to
    its last API call first, no native release or release of members
    before one, no declaration, one statement a line) and whose test is
    stable (``_stable_test``).  A Split whose ``moved`` are the body's
    lines the finalizer takes and whose ``copied`` are the ``if (...) {``
    and ``}`` lines both parts get; None where it does not split."""
    s, e = span
    m = _BRACED_IF.match(code, s, e)
    if m is None or source.matching(code, m.end() - 1) != e:
        return None                     # no if, an else, or no braces
    inner = statements(code, m.end() - 1, e)
    lines = _chunks(code, m.end() - 1, inner) if inner else None
    if not lines or code[lines[-1][1]:chunk[1]].strip() != "}":
        return None                     # the braces not on lines of their own
    kinds = [_statement_kind(project, path, code, a, b, types, body, param) for a, b in inner]
    if "blocked" in kinds or "api" not in kinds or "native" not in kinds \
            or any(_declared(code, a, b)[0] for a, b in inner):
        return None
    last_api = max(i for i, k in enumerate(kinds) if k == "api")
    if kinds.index("native") < last_api or any(
            _lets_go_of_members(project, code, *inner[i]) for i in range(last_api) if kinds[i] != "api"):
        return None
    moved = [lines[i] for i in range(last_api + 1) if kinds[i] != "release"]
    if not _stable_test(project, path, code, masked, (m.start("t") + 1, m.end("t") - 1), body, param, moved):
        return None
    return Split("", moved, [(chunk[0], lines[0][0]), (lines[-1][1], chunk[1])])


# a test's piece: a name with members after it (``self->cache``,
# ``self->s.flag``), a number, an operator or a parenthesis
_TEST_PIECE = regex.compile(r"\s*(?:(?P<n>[A-Za-z_]\w*)(?P<m>(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)|\d\w*|[()!<>=&|])")
_CONSTANTS = frozenset({"NULL", "nullptr", "true", "false"})


def _stable_test(project, path, code, masked, test_span, body, param, moved):
    """Does the test at ``test_span`` read only what the API calls the
    finalizer makes cannot change, so that reading it again in the
    destructor gives the same answer?  Conservatively: no call, no
    assignment, only constants, the object (the parameter and its
    aliases) and members of the object that hold no object (the runtime
    releases those between the two parts) and that no code writes
    (assigns, increments or takes the address of a member so named, in
    any file, macros included), but a ``tp_new`` (which writes a new
    object) and the destructor outside what the finalizer takes."""
    s, e = test_span
    if _ASSIGNMENT.search(code, s, e) or not code[s:e].strip():
        return False
    is_object = _object_names(code, *body, param)
    members, i = set(), s
    while code[i:e].strip():
        piece = _TEST_PIECE.match(code, i, e)
        if piece is None or (piece.group("n") and regex.match(r"\s*\(", code[piece.end():e])):
            return False                # something else, or a call
        name, access = piece.group("n"), piece.group("m")
        if name and access:
            steps = regex.findall(r"(->|\.)\s*(\w+)", access)
            if not is_object(name) or steps[0][0] != "->" or any(op != "." for op, _ in steps[1:]):
                return False            # only the object's own (inline) members
            members.add(steps[0][1])
        elif name and name not in _CONSTANTS and not is_object(name):
            return False
        i = piece.end()
    return all(_holds_no_object(project, m) and not _written(project, path, code, masked, m, body, moved)
               for m in members)


def _holds_no_object(project, member):
    """Is ``member`` (by name) no object member of any type, no handle of a
    plain struct and no part of the object's header?"""
    if member.startswith("ob_") or member in project.ref_fields or member in project.handle_fields:
        return False
    return not any(member in t.object_fields or member in t.weaklist or member in t.object_arrays
                   or regex.search(r"\b(?:PyObject|Py\w*Object)\b", t.fields.get(member, ""))
                   for t in project.types.values())


def _member_writes(member):
    """A store into a member so named, an increment of it or its address."""
    name = rf"(?:->|\.)\s*{regex.escape(member)}\b(?:\s*(?:\.\s*\w+|\[[^\]]*\]))*"
    return regex.compile(rf"{name}\s*(?:{_ASSIGNMENT.pattern})|(?:\+\+|--)\s*[\w\s>.\[\]()-]*?{name}"
                         rf"|(?<!&)&(?!&)\s*[\w\s()*]*?{name}")


def _written(project, path, code, masked, member, body, moved):
    """Is ``member`` written anywhere but in a ``tp_new`` and in the
    destructor (``body``, a span of this file's ``code``, its structure
    mask, and ``masked``, its mask) outside the lines the finalizer takes
    (``moved``)?"""
    writes = _member_writes(member)
    files = {path: (code, masked, [body], moved)}
    for q, text in project.files.items():
        if q != path:
            other = source.mask(text)
            files[q] = (source.structure_mask(text, other), other, [], [])
    for structure, scanned, allowed, taken in files.values():
        allowed = allowed + [f.body for f in source.find_functions(structure) if f.is_definition
                             and getattr(project.role(f.name), "detail", None) == "tp_new"]
        for w in writes.finditer(scanned):
            if not any(a <= w.start() < b for a, b in allowed) or any(a <= w.start() < b for a, b in taken):
                return True
    return False


def finalizer_name(project, name):
    """A name for the finalizer split from destructor ``name``, not taken."""
    taken = {n for _, n in project.functions} | set(project.roles)
    candidate, n = f"{name}_finalize", 2
    while candidate in taken:
        candidate, n = f"{name}_finalize{n}", n + 1
    return candidate
