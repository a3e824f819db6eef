"""Reference counting: the runtime owns every reference, so increments
disappear and decrements become early releases of handles."""
import functools

import regex

from .. import api, project as proj, source
from ..engine import Rule
from . import _common, escape, functions


def _global_aware_bodies(unit):
    """(start, end, context) of the bodies of functions that have the state."""
    for ctx in _common.stateful_contexts(unit):
        yield ctx.body[0], ctx.body[1], ctx


def _is_global_ref(unit, open_at, ctx):
    """Is the argument in the parentheses at ``open_at`` a global that holds
    an object (a Cystck_Ref once translated), not shadowed by a local, or
    a member of the module state (``st->cache``, a Cystck_Ref too) or
    of a struct a global holds (``table[i].value``)?
    Releasing it is the global-refs rule's (``Cystck_unref``)."""
    arg = unit.masked[open_at + 1:source.matching(unit.masked, open_at) - 1]
    if _common.is_ref_element(arg, unit.project):
        return regex.match(r"\s*\w+", arg).group().strip() not in ctx.arrays
    member = regex.match(r"\(\s*\w+(?:\s*\[[^\[\];]*\])*(?:\s*(?:->|\.)\s*\w+(?:\s*\[[^\[\];]*\])*)*?"
                         r"\s*(?:->|\.)\s*(\w+)\s*\)", unit.masked[open_at:])
    deeper = regex.match(r"\(\s*\w+_AsStruct\s*\([^()]*\)(?:\s*(?:->|\.)\s*\w+(?:\s*\[[^\[\];]*\])*)+?"
                         r"\s*(?:->|\.)\s*(\w+)\s*\)", unit.masked[open_at:])
    if deeper:     # Foo_AsStruct(S, h)->items[i].first: by the member's name
        return deeper.group(1) in unit.project.ref_fields
    if member:
        return _common.is_reference(member.group().strip("() \t\n"), ctx, unit.project)
    m = regex.match(r"\(\s*(\w+)\s*\)", unit.masked[open_at:])
    return bool(m) and m.group(1) in unit.project.globals and \
        m.group(1) not in ctx.handles and m.group(1) not in ctx.arrays


_LEADING_CASTS = regex.compile(r"(?:\s*\(\s*(?:const\s+)?\w+\s*\*\s*\))*\s*")
_SEMICOLON = regex.compile(r"\s*;")


def _static_object_statement_end(masked, open_at):
    """The end of the statement ``Py_DECREF(&obj);`` whose parenthesis is at
    ``open_at`` when its argument is the address of an object (under
    casts), None otherwise."""
    close = source.matching(masked, open_at)
    arg = masked[open_at + 1:close - 1]
    arg = arg[_LEADING_CASTS.match(arg).end():].lstrip("( \t\n")
    semi = _SEMICOLON.match(masked, close)
    return semi.end() if arg.startswith("&") and semi else None


def _none_release_end(masked, open_at, b0):
    """The end of the statement ``Py_DECREF(x);`` whose parenthesis is at
    ``open_at`` when x is ``Py_None``, or a variable its block knows to be
    ``None``; None otherwise."""
    close = source.matching(masked, open_at)
    semi = _SEMICOLON.match(masked, close)
    x = masked[open_at + 1:close - 1].strip()
    if semi is None or not regex.fullmatch(r"\w+", x):
        return None
    if x == "Py_None":
        return semi.end()
    opening = _enclosing_brace(masked, open_at, b0)
    if opening is None:
        return None
    head = masked[b0:opening].rstrip()
    v = regex.escape(x)
    # (the handle-identity rule may have made the test Cystck_Is already)
    is_none = rf"(?:{v}\s*==\s*Py_None|Cystck_Is\s*\(\s*S\s*,\s*{v}\s*,\s*(?:Py|Cystck)_None\s*\))"
    not_none = rf"(?:{v}\s*!=\s*Py_None|!\s*Cystck_Is\s*\(\s*S\s*,\s*{v}\s*,\s*(?:Py|Cystck)_None\s*\))"
    if regex.search(rf"\bif\s*\(\s*(?<!!\s*){is_none}\s*\)$", head):
        return semi.end()
    if not head.endswith("else"):
        return None
    before_else = masked[b0:b0 + len(head) - 4].rstrip()
    if not before_else.endswith("}"):
        return None
    then_open = _enclosing_brace(masked, b0 + len(before_else) - 1, b0)
    if then_open is None:
        return None
    if regex.search(rf"\bif\s*\(\s*{not_none}\s*\)$", masked[b0:then_open].rstrip()):
        return semi.end()
    return None


def _enclosing_brace(masked, pos, b0):
    """The index of the '{' opening the block that contains ``pos`` (for a
    '}' at ``pos``, the block it closes), or None at the function body."""
    depth = 0
    for i in range(pos - 1 if masked[pos] != "}" else pos - 1, b0, -1):
        c = masked[i]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth == 0:
                return i
            depth -= 1
    return None


def _remove_statement(text, masked, start, end, edits):
    if _common.in_unbraced_body(masked, start):
        edits.add(start, end, ";")
    else:
        edits.add(*_common.statement_line_span(text, start, end), "")


def _dup(x, increment):
    """A handle of its own for ``x``: ``Py_XINCREF`` allows a null one,
    which stays null (``Cystck_Dup`` of the null handle is an error)."""
    if "XINCREF" in increment:
        return f"(Cystck_IsNull({x}) ? {x} : Cystck_Dup(S, {x}))"
    return f"Cystck_Dup(S, {x})"


class IncRef(Rule):
    """``Py_INCREF(x);`` and ``Py_XINCREF(x);`` are removed: a handle keeps
    its object alive for the whole call, and functions that store a value
    (fields, references, containers) take their own reference.  Except
    ``Py_INCREF(x); return x;`` in a helper returning an object (also with
    other statements between them in the same block), which
    becomes ``return Cystck_Dup(S, x);``: the caller gets a new reference
    that it releases, so it needs a handle of its own (returning ``x``
    would have the caller drop the helper's argument, its own handle).
    And except an increment before ``x`` is stored into a native structure
    (``node->items[i] = x;``), which C keeps beyond the call: the increment
    stays, through the escape hatch, and is reported as an error (the
    structure must hold a ``PyObject *`` or a ``Cystck_Ref``).  Stored into
    an output parameter, ``*result = x;``, the caller gets a new reference,
    ``*result = Cystck_Dup(S, x);``.  Given before to a helper of the
    extension that releases that parameter (``Py_DECREF(value)`` in its
    body: it steals it), ``if (!Handle(x)) return 0; Py_INCREF(x);
    ctx->object = x;``, the helper gets a handle of its own,
    ``Handle(Cystck_Dup(S, x))``: its release would drop ``x``, which the
    code goes on using; so does one called next, ``Py_INCREF(x); return
    Handle(x);`` (``x`` may be a constant or the caller's).  In a C++ constructor, an increment of what a
    member holds, ``: stream(stream) { Py_INCREF(stream); }`` (released by
    the destructor), gives the member a handle of its own, ``this->stream
    = Cystck_Dup(S, this->stream);``: the argument's handle is the
    caller's.  Handed next to a function that
    consumes it, ``Py_INCREF(x); PyTuple_SET_ITEM(t, 0, x);``, the function
    gets a handle of its own, ``PyTuple_SET_ITEM(t, 0, Cystck_Dup(S, x))``:
    consuming ``x`` itself would release a handle its owner (the caller,
    for an argument) still uses; also past a run of increments and
    stealing calls between them (``Py_INCREF(a); Py_INCREF(x);
    PyTuple_SET_ITEM(t, 0, a); PyTuple_SET_ITEM(t, 1, x);``), or into an
    ``if``'s test (``if (PyList_SetItem(l, i, x) < 0)``); the same for an
    element of a handle array or a plain struct's handle member,
    ``Py_INCREF(items[k]); PyTuple_SET_ITEM(t, k, items[k]);`` becomes
    ``PyTuple_SET_ITEM(t, k, Cystck_Dup(S, items[k]))`` (the element is
    released later).  For the same reason a helper that takes
    a reference to a parameter it releases later (``Py_INCREF(arg); ...
    Py_DECREF(arg);``) takes a handle of its own: ``arg = Cystck_Dup(S,
    arg);``, and so does any function whose parameter another branch
    assigns a new object that the same release drops (``if (naive) value
    = make(value); else Py_INCREF(value); ... Py_DECREF(value);``: an entry
    point called directly from C gets its caller's own handle); so does any function for a local its argument parsing filled
    (``PyArg_ParseTuple(args, "O", &o)``: the caller's handle), ``else
    Py_INCREF(o); ... Py_DECREF(o);``.  A reference taken through an alias that the code releases
    (``Py_SETREF(y, z)``) or returns later is a handle of its own wherever
    the alias gets it: ``Py_INCREF(x); y = x;`` (later in the block),
    ``y = x; Py_INCREF(y);`` (``x`` a name or a member such as
    ``st->empty``; ``y`` a name or a plain struct's handle member,
    ``job.cb = arg; Py_INCREF(job.cb);``; handle declarations may stand
    between) and ``y = x; ...; Py_INCREF(x);`` (earlier in the block)
    all become ``y = Cystck_Dup(S, x);``.  An increment of the caller's
    handle through a pointer, ``Py_INCREF(*op);`` (an in-out parameter
    whose caller releases what it gets back), becomes ``*op =
    Cystck_Dup(S, *op);``.  But a reference taken to a lent result that
    another local then takes over, ``y = PyDict_SetDefault(d, k, k);
    Py_INCREF(y); Py_DECREF(x); x = y;``, with ``y`` unused afterwards,
    moves the handle: ``x = y;`` (the result's handle is the frame's own;
    a second one would live until the call returns, one per call of a
    helper that runs per item)."""
    name = "incref"
    precedence = 600
    patterns = (r"\bPy_X?INCREF\s*" + _common.PAREN + r"\s*;",)
    before = ("static PyObject *f(PyObject *o)\n{\n    if (o == NULL)\n        return NULL;\n"
              "    Py_INCREF(o);\n    g(o);\n    Py_INCREF(o);\n    return o;\n}\n")
    after = ("static PyObject *f(PyObject *o)\n{\n    if (o == NULL)\n        return NULL;\n"
             "    g(o);\n    return Cystck_Dup(S, o);\n}\n")

    def apply(self, unit):
        from .functions import returns_object
        edits = source.Edits()
        masked, text = unit.masked, unit.text
        structs = unit.project.custom_structs
        contexts = _common.function_contexts(unit)
        arrays = {c.func.start: c.arrays for c in contexts}
        handles = {c.func.start: c.handles for c in contexts}
        by_start = {c.func.start: c for c in contexts}
        for f, role in _common.state_functions(unit):
            helper = role is None and returns_object(masked[f.start:f.name_start], structs)
            b0, b1 = f.body
            for m in regex.finditer(self.patterns[0], masked, pos=b0, endpos=b1):
                x = masked[m.start("p") + 1:m.end("p") - 1].strip()
                r = regex.match(r"\s*return\s+" + regex.escape(x) + r"\s*;", masked[m.end():b1]) \
                    if helper and regex.fullmatch(r"\w+(?:\s*(?:->|\.)\s*\w+)*", x) else None
                if r and not _common.in_unbraced_body(masked, m.start()):
                    edits.add(m.start(), m.end() + r.end(),
                              f"return {_dup(text[m.start('p') + 1:m.end('p') - 1].strip(), m.group())};")
                    continue
                if (role is None and x in _object_params(masked, f) or x in _parsed_objects(masked, b0, m.start())
                        or x in _object_params(masked, f) and _assigned(masked[b0:b1], x)) \
                        and _common.releases(masked[m.end():b1], x):
                    edits.add(m.start(), m.end(), f"{x} = Cystck_Dup(S, {x});")
                    continue
                through = regex.fullmatch(r"\*\s*(\w+)", x)
                if through and through.group(1) in arrays.get(f.start, ()) and "XINCREF" not in m.group():
                    # Py_INCREF(*op): the caller's handle gets a new reference,
                    # which the caller releases: a handle of its own
                    edits.add(m.start(), m.end(), f"{x} = Cystck_Dup(S, {x});")
                    continue
                if x in _constructed_members(unit, f):
                    # a constructor's reference to what a member holds, which the
                    # destructor releases: the member gets a handle of its own
                    edits.add(m.start(), m.end(), f"this->{x} = {_dup('this->' + x, m.group())};")
                    continue
                stolen = _stolen_before(masked, b0, m.start(), x, unit.project, unit.path) or \
                    _stolen_next(masked, m.end(), b1, x, unit.project, unit.path)
                if stolen is not None:
                    # f(x); ...; Py_INCREF(x);  f releases what it gets
                    edits.add(*stolen, _dup(x, m.group()))
                    _remove_statement(text, masked, m.start(), m.end(), edits)
                    continue
                consumed = _consumed_next(masked, m.end(), b1, x,
                                          _held_expression(x, by_start.get(f.start), unit.project))
                if consumed is not None:
                    edits.add(*consumed, f"Cystck_Dup(S, {text[consumed[0]:consumed[1]]})")
                    _remove_statement(text, masked, m.start(), m.end(), edits)
                    continue
                taken = self._taken(masked, m, x)
                if taken is not None and _owned_later(masked[taken.end():b1], taken.group("x")) and \
                        _lent_to_local(masked, b0, m.start(), x) and not regex.search(
                            rf"(?<![\w.>]){x}\b", masked[taken.end():b1]):
                    # y = PyDict_SetDefault(...); Py_INCREF(y); x = y;  with y
                    # unused after: the lent result's handle is the frame's
                    # own already, so x takes it over (a Cystck_Dup would be
                    # a second handle, never released until the call returns)
                    _remove_statement(text, masked, m.start(), m.end(), edits)
                    continue
                if taken is not None and _owned_later(masked[taken.end():b1], taken.group("x")):
                    # Py_INCREF(y); x = y;  the same, the other way round
                    edits.add(taken.start("y"), taken.end("y"), f"Cystck_Dup(S, {x})")
                    _remove_statement(text, masked, m.start(), m.end(), edits)
                    continue
                # a member: only where it is released or returned later (a
                # handle never released needs no handle of its own)
                alias = self._alias(masked, b0, m, x) if regex.fullmatch(r"\w+", x) or (
                    _handle_member(x, by_start.get(f.start), unit.project)
                    and _owned_later(masked[m.end():b1], _spelled(x))) else None
                if alias is not None:
                    # x = y; Py_INCREF(x);  x is released later on its own
                    y = masked[alias.start("y"):alias.end("y")]
                    dup = f"Cystck_Dup(S, {y})" if "XINCREF" not in m.group() else \
                        f"(Cystck_IsNull({y}) ? {y} : Cystck_Dup(S, {y}))"
                    edits.add(alias.start("y"), alias.end("y"), dup)
                    _remove_statement(text, masked, m.start(), m.end(), edits)
                    continue
                later = _later_return(masked, m, x, b0, b1) if helper and regex.fullmatch(r"\w+", x) else None
                if later and not _common.in_unbraced_body(masked, m.start()):
                    # Py_INCREF(x); ...; return x; in the same block: the same
                    edits.add(later.start("x"), later.end("x"), _dup(x, m.group()))
                    _remove_statement(text, masked, m.start(), m.end(), edits)
                    continue
                prior = _prior_alias(masked, m, x, b0, b1) if regex.fullmatch(r"\w+", x) else None
                if prior and prior.group("y") in handles.get(f.start, ()) and \
                        _owned_later(masked[m.end():b1], prior.group("y")):
                    # y = x; ...; Py_INCREF(x); in one block: y holds the new
                    # reference, so it gets a handle of its own
                    edits.add(prior.start("x"), prior.end("x"), f"Cystck_Dup(S, {x})")
                    _remove_statement(text, masked, m.start(), m.end(), edits)
                    continue
                store = _native_store(masked, m.end(), b1, x, unit.project) if regex.fullmatch(r"\w+", x) else None
                out = regex.fullmatch(r"\*\s*(\w+)", store.group("t").strip()) if store else None
                if out and out.group(1) in arrays.get(f.start, ()):
                    # `*result = x;` into the caller's handle: a new reference
                    # the caller releases, so a handle of its own
                    edits.add(store.start("x"), store.end("x"), f"Cystck_Dup(S, {x})")
                elif store:
                    self._keep(unit, text, m, x, " ".join(store.group("t").split()), edits)
                    continue
                _remove_statement(text, masked, m.start(), m.end(), edits)
        if edits:
            unit.apply(edits)
        return edits.applied


    @staticmethod
    def _alias(masked, b0, m, x):
        """The statement ``x = y;`` (``y`` another name, or a member such as
        ``st->empty``) right before the
        increment ``Py_INCREF(x);`` at ``m``: the idiom that takes a
        reference of its own through an alias, which the code releases
        with ``Py_DECREF(x)``; as handles, ``x`` must be a handle of its
        own, or the release would drop ``y``'s.  ``x`` may be a handle
        member of a plain struct, ``job.cb = arg; Py_INCREF(job.cb);``, and
        declarations of handles may stand between the two."""
        a = regex.search(rf"(?<![\w.>*]){_spelled(x)}\s*=\s*(?P<y>[A-Za-z_]\w*(?:\s*(?:->|\.)\s*\w+)*)\s*;"
                         rf"(?:\s*{_HANDLE_DECLARATION})*\s*$", masked, pos=b0, endpos=m.start())
        return a if a is not None and a.group("y") not in ("NULL", "nullptr", x) else None

    @staticmethod
    def _taken(masked, m, y):
        """The statement ``x = y;`` or declaration ``PyObject *x = y;``
        (``x`` another local name) after the increment ``Py_INCREF(y);``
        at ``m``, in the same block (``Py_INCREF(Py_None); *next = i;
        rval = Py_None;``)."""
        if "XINCREF" in m.group() or not regex.fullmatch(r"\w+", y):
            return None
        block_end = regex.compile(r"[{}]").search(masked, m.end())
        end = block_end.start() if block_end else len(masked)
        return regex.compile(rf"(?<=[;{{}}]\s*)(?:(?:PyObject\s*\*|Cystck_Object\s)\s*)?(?P<x>[A-Za-z_]\w*)\s*=\s*(?P<y>{y})\s*;"
                             ).search(masked, m.end(), end)

    def _keep(self, unit, text, m, x, store, edits):
        """The reference a native structure keeps: the object must outlive
        the call, which no handle does, so the increment stays, on the
        object itself, through the escape hatch."""
        p0, p1 = m.start("p"), m.end("p")
        edits.add(p0 + 1, p1 - 1, f"Cystck_AsPyObject(S, {text[p0 + 1:p1 - 1].strip()})")
        edits.add(m.start(), m.start(), f"{escape.MARK} ")
        unit.leftover(m.start(), f"error: {x} is stored into {store}, which C keeps beyond the call, and a "
                      "handle is valid only during the call: the increment is kept through the escape hatch; "
                      f"store Cystck_AsPyObject(S, {x}) in a PyObject * (or hold a Cystck_Ref)", self.name)


#: ``Cystck_Object r, t;`` or ``PyObject *r;``: declarations only, no value
_HANDLE_DECLARATION = r"(?:Cystck_Object\s+|PyObject\s*\*\s*)\w+(?:\s*,\s*\*?\s*\w+)*\s*;"


def _spelled(x):
    """A pattern for the expression text ``x`` (``job.cb``) with any
    spacing between its tokens."""
    return r"\s*".join(regex.escape(t) for t in regex.findall(r"\w+|->|\S", x))


def _handle_member(x, ctx, project):
    """Is ``x`` (``job.cb``, ``b.jobs[0].cb``) a member of a plain struct
    that holds a handle (not a reference, nor an object's field)?"""
    return ctx is not None and bool(regex.fullmatch(_common.HX, x)) and (
        "." in x or "->" in x) and _common.is_handle(x, ctx, project) and \
        not _common.is_reference(x, ctx, project)


def _parsed_objects(code, b0, at):
    """The locals that a call parsing the arguments (``PyArg_Parse*``, by
    its stock or Cystck name) between ``b0`` and ``at`` fills, ``&o``:
    what they get for an object is the caller's (borrowed) handle."""
    found = set()
    for m in regex.finditer(r"\b(?:Py|Cystck)Arg_Parse\w*\s*" + source.paren("a"), code, pos=b0, endpos=at):
        found.update(regex.findall(r"&\s*(\w+)\b(?!\s*[.\[-])", m.group("a")))
    return found


def _object_params(code, f):
    """Names of the object parameters of function ``f``."""
    return {q.name for q in _common.parse_params(code, *f.params)
            if (q.base.endswith("Cystck_Object") and q.ptr == "") or (q.base.endswith("PyObject") and q.ptr == "*")}


def _constructed_members(unit, f):
    """The handle members of the class whose constructor ``f`` is (none if
    ``f`` is no constructor)."""
    p = unit.project
    if f.name not in p.classes or proj.is_destructor(unit.structure, f):
        return ()
    return p.member_handles.get(f.name, ())


def _stolen_arg(code, call, x, project, path):
    """The span of ``x`` as an argument of ``call`` (a match of a name and
    its opening parenthesis) that the extension's function called releases
    (project.FunctionInfo.stolen), or None."""
    info = project.function(path, call.group("f"))
    if info is None or not info.stolen:
        return None
    close = source.matching(code, call.end() - 1)
    args = source.split_top(code, call.end(), close - 1)
    shift = 1 if len(args) == info.nparams + 1 and code[args[0][0]:args[0][1]].strip() == "S" else 0
    for i, (a, b) in enumerate(args[shift:]):
        if i in info.stolen and code[a:b].strip() == x:
            lead = a + len(code[a:b]) - len(code[a:b].lstrip())
            return lead, lead + len(x)
    return None


_CALL_NAME = regex.compile(r"(?<![\w.>]|->)(?P<f>\w+)\s*\(")


def _stolen_before(code, b0, end, x, project, path):
    """The span of ``x`` as a stolen argument (_stolen_arg) of the last
    call before ``end`` (in the body starting at ``b0``), with no store
    into ``x`` between them; or None."""
    if not regex.fullmatch(r"\w+", x):
        return None
    found = None
    for call in _CALL_NAME.finditer(code, pos=b0, endpos=end):
        found = _stolen_arg(code, call, x, project, path) or found
    if found is None or regex.search(rf"(?<![\w.>]|->){x}\s*=(?!=)", code[found[1]:end]):
        return None
    return found


def _stolen_next(code, start, end, x, project, path):
    """The span of ``x`` as a stolen argument (_stolen_arg) of the call
    that is the next statement (``f(x);``, ``return f(x);``), or None."""
    if not regex.fullmatch(r"\w+", x):
        return None
    call = regex.compile(r"\s*(?:return\s+)?(?P<f>\w+)\s*\(").match(code, start, end)
    return _stolen_arg(code, call, x, project, path) if call else None


def _held_expression(x, ctx, project):
    """Is ``x``, no plain name, a handle the frame holds that an
    expression names: an element of a handle array (``items[k]``,
    ``items[order[i]]``) or a plain struct's handle member (``job.cb``)?
    Not an object's field (a load makes a handle of its own), nor an
    expression with a call or a side effect."""
    if ctx is None or regex.fullmatch(r"\w+", x) or regex.search(r"\+\+|--|[(=]", x):
        return False
    if regex.fullmatch(r"[A-Za-z_]\w*\s*\[.*\]", x, flags=regex.S) and _common.is_handle(x, ctx, project):
        return not _common.is_reference(x, ctx, project)
    return _handle_member(x, ctx, project)


def _same_expression(a, b):
    """Are the expression texts ``a`` and ``b`` the same but for spacing?"""
    return regex.sub(r"\s+", "", a) == regex.sub(r"\s+", "", b)


def _consumed_next(code, start, end, x, expression=False):
    """The span of ``x`` as the consumed argument of the call that is the
    next statement (``PyTuple_SET_ITEM(t, 0, x);``), or None.  ``x`` is a
    name, or with ``expression`` any expression _held_expression accepts
    (``Py_INCREF(items[k]); PyTuple_SET_ITEM(t, k, items[k]);``).  A run of
    increments and stealing calls may stand before it, as where each
    element's increment comes first (``Py_INCREF(a); Py_INCREF(x);
    PyTuple_SET_ITEM(t, 0, a); PyTuple_SET_ITEM(t, 1, x);``): the call
    found is the first in the run that steals ``x`` and is not paired
    with a later increment of ``x`` in the run.  A statement may keep the
    call's result (``r = PyList_SetItem(l, i, x);``, ``int r = ...``), the
    last call may be an ``if``'s test (``if (PyList_SetItem(l, i, x) < 0)``), and
    preprocessor lines may stand between the statements or inside one
    (``#ifndef NDEBUG`` / ``int ret =`` / ``#endif`` before the call)."""
    if not expression and not regex.fullmatch(r"\w+", x):
        return None
    consumed, pending = _consumed_index(), 0
    seg, pos = source.mask_directives(code[start:end]), 0
    while True:
        call = regex.match(r"\s*(?:(?:\w+[\s*]+)*\w+\s*=(?!=)\s*)?(?P<f>\w+)\s*" + source.paren("a") + r"\s*;",
                           seg, pos=pos)
        if call is None:
            # the last of the run may be tested: if (PyList_SetItem(l, i, x) < 0)
            call = regex.match(r"\s*if\s*\(\s*(?P<f>\w+)\s*" + source.paren("a"), seg, pos=pos)
            if call is None or call.group("f") in ("Py_INCREF", "Py_XINCREF"):
                return None
        a0, a1 = start + call.start("a") + 1, start + call.end("a") - 1
        if call.group("f") in ("Py_INCREF", "Py_XINCREF"):
            pending += _same_expression(code[a0:a1], x)
            pos = call.end()
            continue
        index = consumed.get(call.group("f"))
        if index is None:
            return None
        args = source.split_top(code, a0, a1)
        if index < len(args) and _same_expression(code[args[index][0]:args[index][1]], x):
            if pending == 0:
                arg = code[args[index][0]:args[index][1]]
                lead = len(arg) - len(arg.lstrip())
                return args[index][0] + lead, args[index][0] + len(arg.rstrip())
            pending -= 1
        elif regex.search(rf"(?<![\w.>]){_spelled(x)}(?!\w)", code[a0:a1]):
            return None       # x used otherwise by a call of the run: not this idiom
        if not call.group().rstrip().endswith(";"):
            return None       # a test ends the run
        pos = call.end()


@functools.lru_cache(maxsize=None)
def _consumed_index():
    """Stock and Cystck names of the functions that consume an argument ->
    its index (without the state)."""
    out = dict(api.consuming())
    out.update({f.stock: api.consuming()[f.name] for f in api.table()
                if f.name in api.consuming() and f.stock})
    return out


def _prior_alias(code, m, x, b0, b1):
    """The match of the last ``y = x;`` earlier in the block of the
    increment m (neither assigned again in between), or None."""
    start = max((s for s, e in _common._blocks(code, b0, b1) if s <= m.start() < e), default=b0)
    found = list(regex.finditer(rf"(?<![\w.>*])(?P<y>\w+)\s*=\s*(?P<x>{regex.escape(x)})\s*;", code[:m.start()], pos=start))
    if not found:
        return None
    a = found[-1]
    between = code[a.end():m.start()]
    if regex.search(rf"(?<![\w.>])(?:{regex.escape(x)}|{a.group('y')})\s*=(?!=)|[{{}}]", between):
        return None
    return a


def _later_return(code, m, x, b0, b1):
    """The match of ``return x;`` later in the block of the increment m
    (``x`` not assigned in between), or None."""
    end = min((e for s, e in _common._blocks(code, b0, b1) if s <= m.start() < e), default=b1)
    r = regex.compile(rf"\breturn\s+(?P<x>{regex.escape(x)})\s*;").search(code, m.end(), end)
    if r is None or regex.search(rf"(?<![\w.>]){regex.escape(x)}\s*=(?!=)|[{{}}]", code[m.end():r.start()]):
        return None
    return r


def _assigned(code, y):
    """Is ``y`` assigned anywhere in ``code``?"""
    return bool(regex.search(rf"(?<![\w.>*]){y}\s*=(?!=)", code))


def _lent_to_local(code, b0, at, y):
    """Is local ``y`` the result of a stock function that lends its result
    (``escape.BORROWED``, by its stock or Cystck name), assigned once
    before ``at``, where its declaration (``PyObject *y = f(...)``) or a
    bare one is all that names it earlier in the function?"""
    if not regex.fullmatch(r"\w+", y):
        return False
    assigns = list(regex.finditer(rf"(?<![\w.>]){y}\s*=(?!=)\s*(?:\(\s*PyObject\s*\*\s*\)\s*)?(?P<f>\w+)\s*\(",
                                  code, pos=b0, endpos=at))
    if len(assigns) != 1:
        return False
    f = assigns[0].group("f")
    stock = "Py" + f[len("Cystck"):] if f.startswith("Cystck") else f
    if stock not in escape.BORROWED:
        return False
    return all(_in_declaration(code, b0, u.start())
               for u in regex.finditer(rf"(?<![\w.>]){y}\b", code, pos=b0, endpos=assigns[0].start()))


def _in_declaration(code, b0, at):
    """Is the name at ``at`` declared there (``PyObject *a, *y;``)?"""
    start = max(code.rfind(c, b0, at) for c in ";{}") + 1
    return bool(regex.fullmatch(r"\s*(?:PyObject|Cystck_Object)\b[\s\w*,]*", code[max(start, b0):at]))


def _owned_later(code, y):
    """Does ``code`` release or return the reference held by local ``y``
    (``return y;``, or an entry point's ``return Cystck_Return(S, y);``)?
    Only then does an alias that took a reference need a handle of its own
    (an alias never released is the same handle, harmlessly)."""
    return _common.releases(code, y) or bool(regex.search(
        rf"\breturn\s+(?:{y}|Cystck_Return\s*\(\s*S\s*,\s*{y}\s*\))\s*;", code))   # (an entry point's, by now)


def _native_store(code, start, end, x, project):
    """The match of a later ``target = x;`` in code[start:end] whose target
    is a native structure: a member, an array element or a pointer target,
    other than a module-state reference (which the global-refs rule makes a
    Cystck_Ref) or a custom type's object field (a CystckField_Store by
    now)."""
    pat = regex.compile(r"(?:(?<=[{};])|(?<=^))\s*(?P<t>\*\s*\w+|(?:\w+_AsStruct\s*\(\s*S\s*,\s*\w+\s*\)|[\w.]+)(?:\s*(?:->|\.)\s*\w+|\s*\[[^\]\[;]*\])+)\s*="
                        r"(?!=)\s*(?P<x>(?:\(\s*\w+\s*\*\s*\)\s*)?" + regex.escape(x) + r")\s*;", regex.M)
    for m in pat.finditer(code, start, end):
        target = m.group("t").strip()
        member = regex.search(r"(?:->|\.)\s*(\w+)\s*$", target)
        if member and member.group(1) in project.ref_fields or _common.is_ref_element(target, project):
            continue
        if not member and not target.startswith("*") and regex.match(r"\w+\s*\[", target):
            # an element of a local array of handles lives for the call
            head = regex.match(r"\w+", target).group()
            if regex.search(rf"\b(?:PyObject|Cystck_Object)\s*\*?\s*{head}\s*\[", code[:start]):
                continue
        return m
    return None


def _read_after_release(masked, open_at, b1):
    """The end of the statement ``Py_DECREF(x);`` whose parenthesis is at
    ``open_at`` when the rest of its block reads ``x`` before assigning it
    (``Py_DECREF(node); return node->value;``, stock code relying on
    another owner keeping the object alive), None otherwise; a later
    release of ``x`` is no read.  Dropping the
    handle there would leave that read a null handle.  A read after the
    block counts too (``if (PyTuple_Check(t)) { t = f(t); if (t)
    Py_DECREF(t); } if (t) use(t);``) where the rest of the block jumps
    nowhere (no ``return``, ``goto``, ``break``, ``continue``), the block
    is no loop body (the release keeps the loop flat) and no ``else``
    follows it; so outwards, block by block."""
    arg = regex.match(r"\(\s*(?P<x>\w+)\s*\)\s*;", masked[open_at:b1])
    if not arg:
        return None
    end = open_at + arg.end()
    pos = end
    while True:
        depth, i = 0, pos
        while i < b1 and depth >= 0:          # the end of the enclosing block
            depth += {"{": 1, "}": -1}.get(masked[i], 0)
            i += 1
        use = regex.search(rf"(?<![\w.>]){arg.group('x')}\b(?P<asg>\s*=(?!=))?", masked[pos:i])
        if use:
            if use.group("asg") or regex.search(r"\b(?:Py_X?DECREF|Py_CLEAR)\s*\(\s*$",
                                                masked[max(pos, pos + use.start() - 20):pos + use.start()]):
                return None           # assigned, or only released again (on an error path)
            return end
        if depth >= 0 or regex.search(r"\b(?:return|goto|break|continue)\b", masked[pos:i]) or \
                regex.match(r"\s*else\b", masked[i:b1]) or _loop_body(masked, i - 1):
            return None
        pos = i


def _loop_body(masked, close_at):
    """Is the block whose ``}`` is at ``close_at`` the body of a ``for``,
    ``while`` or ``do``?"""
    depth, j = 0, close_at
    while j >= 0:
        depth += {"}": 1, "{": -1}.get(masked[j], 0)
        if depth == 0:
            break
        j -= 1
    head = masked[max(0, j - 400):j]
    while True:        # the parentheses' contents go (a for's semicolons)
        stripped = regex.sub(r"\([^()]*\)", " ", head)
        if stripped == head:
            break
        head = stripped
    prev = max(head.rfind(";"), head.rfind("{"), head.rfind("}"))
    return bool(regex.search(r"\b(?:for|while|do)\s*$", head[prev + 1:]))


class DecRef(Rule):
    """``Py_DECREF(x)`` and ``Py_XDECREF(x)`` become ``Cystck_Drop(S, x)``:
    an early release of an owned handle (a no-op on arguments and constants,
    and null-safe).  Leaving them out would also be correct; keeping them
    keeps loops flat.  A release followed, in its block, by a read of the
    same variable (``Py_DECREF(node); return node->value;``) goes: the
    handle must stay valid for that read; so does one read after its
    block, where the block jumps nowhere after the release, is no loop
    body and has no ``else`` (``if (t) Py_DECREF(t); } if (t) use(t);``,
    a new reference made borrowed while a container holds it).  ``Py_DECREF(&FooType);`` (or of ``(PyObject
    *)&FooType``) goes: the address of a static object, a type object, is
    no handle of the call, and the type's reference is released by its
    owner.  So does a release of ``None``: ``Py_DECREF(Py_None);``, and
    ``Py_DECREF(x);`` where its block is entered only when ``x`` is ``None``
    (``if (x == Py_None) {...}``, the ``else`` of ``if (x != Py_None)``): the
    constant is no handle of the call either (whatever handle took the
    reference is released with the call).  In the body of a macro only
    functions with the state expand, a release of a name that is a handle
    in each of them (or a local the macro declares) is rewritten too; of
    a parameter that some uses give a handle and the others a null
    pointer (``FAIL(m)`` and ``FAIL(NULL)`` with ``#define FAIL(o) do {
    Py_XDECREF(o); return NULL; } while (0)``), it goes."""
    name = "decref"
    precedence = 610
    patterns = (r"\bPy_X?DECREF\s*\(",)
    before = "static void f(PyObject *o)\n{\n    Py_XDECREF(o);\n    Py_DECREF((PyObject *)&FooType);\n}\n"
    after = "static void f(PyObject *o)\n{\n    Cystck_Drop(S, o);\n}\n"

    def apply(self, unit):
        edits = source.Edits()
        masked = unit.masked
        bodies = [(b0, b1, ctx, False) for b0, b1, ctx in _global_aware_bodies(unit)]
        bodies += [(b0, b1, ctx, True) for b0, b1, ctx in functions.macro_contexts(unit)]
        for b0, b1, ctx, in_macro in bodies:
            for m in regex.finditer(self.patterns[0], masked, pos=b0, endpos=b1):
                if in_macro and _released_name(masked, m.end() - 1) in ctx.nullable:
                    # a handle at some uses, a null pointer at others: the
                    # release goes (the call releases the handle)
                    semi = _SEMICOLON.match(masked, source.matching(masked, m.end() - 1))
                    if semi:
                        _remove_statement(unit.text, masked, m.start(), semi.end(), edits)
                    continue
                if in_macro and _released_name(masked, m.end() - 1) not in ctx.handles:
                    continue          # in a macro, only what is a handle where it expands
                if _is_global_ref(unit, m.end() - 1, ctx):
                    continue          # the global-refs rule drops it
                end = _static_object_statement_end(masked, m.end() - 1)
                if end is None:
                    end = _none_release_end(masked, m.end() - 1, b0)
                if end is None:
                    end = _read_after_release(masked, m.end() - 1, b1)
                if end is not None:
                    _remove_statement(unit.text, masked, m.start(), end, edits)
                    continue
                edits.add(m.start(), m.end(), "Cystck_Drop(S, ")
        if edits:
            unit.apply(edits)
        return edits.applied


def _released_name(code, open_at):
    """The variable a release's parentheses at ``open_at`` hold, or None."""
    m = regex.match(r"\(\s*(\w+)\s*\)", code[open_at:source.matching(code, open_at)])
    return m.group(1) if m else None


class Clear(Rule):
    """``Py_CLEAR(x);`` becomes ``Cystck_Drop(S, x); x = Cystck_NULL;``
    (braced when it is the body of an ``if``), also in a macro whose every
    user has ``x`` as a handle."""
    name = "clear"
    precedence = 620
    patterns = (r"\bPy_CLEAR\s*" + _common.PAREN + r"\s*;",)
    before = "static void f(PyObject *o)\n{\n    if (o)\n        Py_CLEAR(o);\n}\n"
    after = "static void f(PyObject *o)\n{\n    if (o)\n        { Cystck_Drop(S, o); o = Cystck_NULL; }\n}\n"

    def apply(self, unit):
        edits = source.Edits()
        bodies = [(b0, b1, ctx, False) for b0, b1, ctx in _global_aware_bodies(unit)]
        bodies += [(b0, b1, ctx, True) for b0, b1, ctx in functions.macro_contexts(unit)]
        for b0, b1, ctx, in_macro in bodies:
            for m in regex.finditer(self.patterns[0], unit.masked, pos=b0, endpos=b1):
                if _is_global_ref(unit, m.start("p"), ctx):
                    continue          # the global-refs rule unrefs it
                x = unit.text[m.start("p") + 1:m.end("p") - 1].strip()
                if in_macro and x not in ctx.handles:
                    continue          # in a macro, only what is a handle where it expands
                new = f"Cystck_Drop(S, {x}); {x} = Cystck_NULL;"
                if _common.in_unbraced_body(unit.masked, m.start()):
                    new = "{ " + new + " }"
                edits.add(m.start(), m.end(), new)
        if edits:
            unit.apply(edits)
        return edits.applied


class RefReleaseStore(Rule):
    """A reference released and then stored into, ``Py_XDECREF(g); ...; g
    = v;`` (g a global or a member that becomes a ``Cystck_Ref``), replaces
    its object: the pair becomes ``Py_XSETREF(g, v);`` where the store is,
    which the newref and global-refs rules port to a store that releases
    the old reference (``Py_CLEAR(g);`` for ``g = NULL;``).  Alone, the
    release of a reference is dropped (the store would keep the old object
    alive forever).  The statements between may do anything but read or
    store ``g`` or change what its spelling names (``table[i].value`` and
    ``i++``): the old object is released once the new one is stored.  A
    store whose value is used, ``Py_XDECREF(g); if (!(g = f(x)))``, or in a
    nested block, ``if (v) { g = v; } else g = NULL;``, has the release
    stay where it is, ``Py_CLEAR(g);``, where nothing between calls a
    function (which might read ``g``; stock would read it released too).
    Otherwise (a read of ``g`` before the store, a call before a store
    that is no statement of the release's block) the release stays
    dropped, as before: the object leaks, nothing misbehaves."""
    name = "ref-release-store"
    precedence = 598
    patterns = (r"\bPy_X?DECREF\s*\(",)
    before = ("static PyObject *cache;\nstatic PyObject *f(PyObject *v)\n{\n"
              "    Py_XDECREF(cache);\n    Py_INCREF(v);\n    cache = v;\n    Py_RETURN_NONE;\n}\n")
    after = ("static PyObject *cache;\nstatic PyObject *f(PyObject *v)\n{\n"
             "    Py_INCREF(v);\n    Py_XSETREF(cache, v);\n    Py_RETURN_NONE;\n}\n")

    def apply(self, unit):
        from .core import NotReferences, references_re
        p = unit.project
        ref = references_re(p.globals, p.ref_fields)
        if ref is None:
            return 0
        release = regex.compile(rf"\bPy_X?DECREF\s*\(\s*(?P<r>{ref})\s*\)\s*;")
        masked, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx in _common.stateful_contexts(unit):
            b0, b1 = ctx.body
            local = NotReferences(ctx, p)
            for m in release.finditer(masked, b0, b1):
                r = text[m.start("r"):m.end("r")].strip()
                if r in local or _common.in_unbraced_body(masked, m.start()):
                    continue
                self._pair(unit, m, r, b0, b1, edits)
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _pair(unit, m, r, b0, b1, edits):
        """The edits that pair the release ``m`` of ``r`` with the store
        that follows it in its block, if there is one to pair with."""
        masked, text = unit.masked, unit.text
        opening = _enclosing_brace(masked, m.start(), b0)
        end = source.matching(masked, opening) - 1 if opening is not None else b1
        spelled = r"\s*".join(regex.escape(t) for t in regex.findall(r"\w+|->|\S", r))
        use = regex.compile(rf"(?<![\w.>]){spelled}(?!\w)(?P<store>\s*=(?!=))?").search(masked, m.end(), end)
        if use is None or not use.group("store"):
            return                # never stored again here, or read first
        between = masked[m.end():use.start()]
        if regex.search(r"^[ \t]*#", between, regex.M) or _changes_names(between, r):
            return
        value_end = _common.expression_end(masked, use.end(), end)
        statement = masked[:use.start()].rstrip()[-1:] in ("{", ";", "}", ":") and \
            _enclosing_brace(masked, use.start(), b0) == opening and \
            not _common.in_unbraced_body(masked, use.start()) and masked[value_end:value_end + 1] == ";"
        if statement:
            value = text[use.end():value_end].strip()
            new = f"Py_CLEAR({r})" if value in ("NULL", "0", "nullptr") else f"Py_XSETREF({r}, {value})"
            _remove_statement(text, masked, m.start(), m.end(), edits)
            edits.add(use.start(), value_end, new)
        elif not _calls(between):
            # if (!(g = f(x))), or a store in a nested block: nothing between
            # can read g, released early and null as stock has it dangle
            edits.add(m.start(), m.end(), f"Py_CLEAR({r});")


# what may stand between a release and the store it pairs with when the
# release stays where it is: calls that read no global
_PURE_CALLS = {"Py_INCREF", "Py_XINCREF", "Cystck_Is", "Cystck_IsNull", "Py_Is", "Py_IsNone"}
_KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "else", "do"}


def _calls(code):
    """Does ``code`` call a function (or a function-like macro) that might
    read a global, anything but _PURE_CALLS?"""
    return any(c not in _PURE_CALLS and c not in _KEYWORDS for c in regex.findall(r"\b(\w+)\s*\(", code))


def _changes_names(code, expr):
    """Does ``code`` assign, increment or take the address of a name that
    ``expr`` (a reference's spelling: ``table[i].value``) reads, other
    than its member names?"""
    names = {t for t in regex.findall(r"(?<![.>]\s*)\b[A-Za-z_]\w*", expr)}
    if not names:
        return False
    n = _common.names_re(names)
    return bool(regex.search(rf"{n}\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|{n}\s*(?:\+\+|--)|(?:\+\+|--|(?<!&)&(?!&))\s*{n}", code))


class CommaIncRef(Rule):
    """An increment in an expression, ``r = (Py_INCREF(x), x);`` or
    ``return Py_INCREF(x), x;`` (a new reference to ``x``, the spelling of
    ``Py_NewRef(x)`` older code uses), goes before its statement:
    ``Py_INCREF(x); r = x;``, which the incref rule ports as any increment
    (a handle of its own where the reference is consumed, returned by a
    helper or released later).  Left in the expression it would be kept
    through the escape hatch, a reference nothing releases.  Only where
    ``x`` is the whole second operand, in an expression statement, a
    declaration or a ``return`` (braced when the body of an ``if``) that
    does not change what ``x`` names before it; elsewhere (a loop's
    header, a condition) it stays and is reported.  An increment that is
    the last operand of an expression statement, ``x = v, Py_INCREF(x);``,
    becomes a statement of its own after it, braced where the statement
    is an unbraced body: ``if (!x) { x = Py_None; Py_INCREF(x); }``."""
    name = "comma-incref"
    precedence = 125
    patterns = (r"\bPy_X?INCREF\s*" + _common.PAREN + r"\s*,",)
    before = ("static PyObject *f(PyObject *o)\n{\n    PyObject *r;\n"
              "    r = (Py_INCREF(o), o);\n    return r;\n}\n")
    after = ("static PyObject *f(PyObject *o)\n{\n    PyObject *r;\n"
             "    Py_INCREF(o);\n    r = o;\n    return r;\n}\n")

    def apply(self, unit):
        masked, text = unit.masked, unit.text
        edits = source.Edits()
        braced = set()
        for f, _ in _common.state_functions(unit):
            b0, b1 = f.body
            for m in regex.finditer(self.patterns[0], masked, pos=b0, endpos=b1):
                x = text[m.start("p") + 1:m.end("p") - 1].strip()
                group = self._idiom(masked, m, x)
                statement = group and self._statement(masked, b0, group, x)
                if not statement:
                    continue
                s0, s1 = statement
                increment = text[m.start():m.end("p")] + ";"
                indent = text[text.rfind("\n", 0, s0) + 1:s0]
                if _common.in_unbraced_body(masked, s0) and s0 not in braced:
                    braced.add(s0)            # the body of an if: a block
                    edits.add(s0, s0, "{ " + increment + " ")
                    edits.add(s1, s1, " }")
                else:
                    edits.add(s0, s0, increment + ("\n" + indent if not indent.strip() else " "))
                edits.add(*group, x)
            for m in self._TRAILING.finditer(masked, pos=b0, endpos=b1):
                x = text[m.start("p") + 1:m.end("p") - 1].strip()
                statement = self._statement(masked, b0, (m.start(), m.end("p")), x, moved=False)
                if not statement or regex.match(r"\s*return\b", masked[statement[0]:m.start()]):
                    continue
                s0, s1 = statement
                edits.add(m.start(), m.start("inc"), "; ")
                if _common.in_unbraced_body(masked, s0) and s0 not in braced:
                    braced.add(s0)
                    edits.add(s0, s0, "{ ")
                    edits.add(s1, s1, " }")
        if edits:
            unit.apply(edits)
        return edits.applied

    _TRAILING = regex.compile(r",\s*(?P<inc>\bPy_X?INCREF\s*" + _common.PAREN + r")\s*;")

    @staticmethod
    def _idiom(masked, m, x):
        """The span of ``(Py_INCREF(x), x)`` (or of ``Py_INCREF(x), x`` after
        ``return``) whose increment ``m`` is, or None."""
        second = regex.compile(rf"\s*{_spelled(x)}(?![\w(\[]|\s*(?:->|\.|\[|\())").match(masked, m.end())
        if not x or second is None:
            return None
        before = masked[:m.start()].rstrip()
        after = masked[second.end():].lstrip()[:1]
        called = regex.search(r"(?:(?<!\w)(?!return\b)\w+|[)\]])\s*\($", before)   # f(...): a call's
        if after == ")" and before.endswith("(") and not called:
            close = source.matching(masked, len(before) - 1)
            if not masked[second.end():close - 1].strip():
                return len(before) - 1, close
        if after == ";" and regex.search(r"\breturn$", before):
            return m.start(), second.end()
        return None

    @staticmethod
    def _statement(masked, b0, group, x, moved=True):
        """(start, end) of the statement holding ``group``, a plain one the
        increment can go before (``moved``; after, if not), or None."""
        s0 = max(masked.rfind(c, b0, group[0]) for c in ";{}") + 1
        while True:           # past the headers whose unbraced body it is, and case labels
            s0 += len(masked[s0:group[0]]) - len(masked[s0:group[0]].lstrip())
            label = regex.match(r"(?:case\b[^;:?]*|default\s*):(?!:)", masked, pos=s0, endpos=group[0])
            if label is not None:
                s0 = label.end()
                continue
            header = regex.match(r"(?:if|while|for|switch)\s*\(|else\b", masked, pos=s0, endpos=group[0])
            if header is None:
                break
            s0 = source.matching(masked, header.end() - 1) if header.group().endswith("(") else header.end()
            if s0 > group[0]:
                return None   # in the header itself: a condition
        head = masked[s0:group[0]]
        depth = 0
        for c in head:
            depth += {"(": 1, ")": -1}.get(c, 0)
            if depth < 0:
                return None          # inside a header: for (...; ...; ...)
        if regex.match(r"(?:if|while|for|switch|do|else|case|default|goto)\b|#", head) or \
                (moved and _changes_names(head, x)) or (not moved and depth):
            return None
        end = masked.find(";", group[1])
        tail = masked[group[1]:end]
        if end < 0 or "{" in tail or tail.count(")") - tail.count("(") != depth:
            return None
        return s0, end + 1


def _named_handle(x):
    """Is the expression ``x`` (under casts) a name or a member path
    (``other``, ``job.cb``), a handle another owner may hold?  Not a call
    (``CystckField_Load(S, o, f)``, ``Cystck_deref(S, r)``), whose handle
    is the call's own, which a later release may drop, nor a member read
    through a cast (``((PyTypeObject *)t)->tp_bases``), a ``PyObject *``
    the escape hatch keeps."""
    x = _LEADING_CASTS.sub("", x, count=1).strip()
    return bool(regex.fullmatch(r"[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*", x))


class NewRef(Rule):
    """``Py_NewRef(x)`` and ``Py_XNewRef(x)`` become ``x``; where the new
    reference is handed to a function that consumes it (``PyTuple_SET_ITEM``,
    ``PyList_SetItem``...) they become ``Cystck_Dup(S, x)`` so that ``x``
    stays usable.  ``Py_SETREF(a, b)`` releases the old handle after
    computing the new one.  ``Py_NewRef`` of a ``PyObject *`` lent by
    the escape hatch, ``Py_NewRef(Cystck_AsPyObject(S, x))``, stays: it
    is a reference C code keeps (buffer-owner).  A new reference that the
    code releases later, ``y = (T *) Py_NewRef(x); ... Py_DECREF(y);``
    (also as a branch of a conditional, ``y = c ? copy(x) :
    Py_NewRef(x);``), or that a helper returns to a caller which releases
    it, ``return Py_NewRef(x);``, is a handle of its own, ``Cystck_Dup(S,
    x)``: the release would otherwise drop ``x``'s handle (the caller's,
    for an argument), which the code or its caller goes on using.  Only
    where ``x`` is a name or a member path: a call's result
    (``Py_NewRef(CystckField_Load(S, o, f))``) is the call's own handle,
    which the release may drop."""
    name = "newref"
    precedence = 630
    patterns = (r"\bPy_X?NewRef\s*" + _common.PAREN, r"\bPy_X?SETREF\s*" + _common.PAREN + r"\s*;")
    before = "static void f(PyObject *t, PyObject *x)\n{\n    PyTuple_SET_ITEM(t, 0, Py_NewRef(x));\n    g(Py_NewRef(x));\n}\n"
    after = "static void f(PyObject *t, PyObject *x)\n{\n    PyTuple_SET_ITEM(t, 0, Cystck_Dup(S, x));\n    g(x);\n}\n"

    def apply(self, unit):
        consumers = {f.stock for f in api.table() if f.name in api.consuming() and f.stock}
        consumers |= set(api.consuming())
        cons = "|".join(map(regex.escape, sorted(consumers)))
        edits = source.Edits()
        code, text = unit.masked, unit.text
        structs = unit.project.custom_structs
        for f, role in _common.state_functions(unit):
            b0, b1 = f.body
            helper = role is None and functions.returns_object(code[f.start:f.name_start], structs)
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                if escape.marked(text, m.start()):
                    continue      # kept stock through the escape hatch
                x = text[m.start("p") + 1:m.end("p") - 1].strip()
                if x.startswith("Cystck_AsPyObject("):
                    continue          # a PyObject * lent by the escape hatch: a real reference
                consumed = regex.search(rf"\b(?:{cons})\s*\([^;]*$", code[b0:m.start()])
                if consumed and self._is_last_arg(code, b0 + consumed.start(), m.start(), m.end()) or \
                        _named_handle(x) and self._owned_later(code, b0, b1, m, helper):
                    edits.add(m.start(), m.end(), _dup(x, "Py_XINCREF" if "XNewRef" in m.group() else ""))
                else:
                    edits.add(m.start(), m.end(), x)
            for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
                args = source.split_top(code, m.start("p") + 1, m.end("p") - 1)
                if len(args) != 2:
                    continue
                a, b = (text[s:e].strip() for s, e in args)
                edits.add(m.start(), m.end(), f"{{ Cystck_Object new_ = {b}; Cystck_Drop(S, {a}); {a} = new_; }}")
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _owned_later(code, b0, b1, m, helper):
        """Is the new reference ``m`` the value of a statement ``y = ...;``
        (or of a declaration) whose local ``y`` the rest of the function
        releases (``Py_DECREF(y)``, by now ``Cystck_Drop(S, y)``), or, in a
        helper returning an object, the value of ``return``?"""
        start = max(max(code.rfind(c, b0, m.start()) for c in ";{}") + 1, b0)
        while True:           # past the headers whose unbraced body it is
            start += len(code[start:m.start()]) - len(code[start:m.start()].lstrip())
            header = regex.match(r"(?:if|while|for)\s*\(|else\b", code, pos=start, endpos=m.start())
            if header is None:
                break
            start = source.matching(code, header.end() - 1) if header.group().endswith("(") else header.end()
            if start > m.start():
                return False  # in the header itself: a condition
        head = code[start:m.start()]
        end = code.find(";", m.end(), b1)
        if end < 0 or not source.balanced(head):
            return False      # an argument of a call: what the call makes is another object
        if helper and regex.fullmatch(r"\s*return\s*(?:\(\s*\w+\s*\*\s*\)\s*)*", head) and \
                not code[m.end():end].strip():
            return True
        y = regex.match(r"\s*(?:(?:const\s+)?(?:\w+\s*\*|Cystck_Object\s)\s*)?(?P<y>[A-Za-z_]\w*)\s*=(?!=)", head)
        if y is None or y.group("y") in ("return", "S"):
            return False
        name = regex.escape(y.group("y"))
        return bool(regex.search(rf"\b(?:Cystck_Drop\s*\(\s*S\s*,|Py_X?DECREF\s*\(|Py_CLEAR\s*\()\s*"
                                 rf"(?:\(\s*\w+\s*\*\s*\)\s*)?{name}\s*\)", code[end:b1]))

    @staticmethod
    def _is_last_arg(code, call_start, s, e):
        open_at = code.index("(", call_start)
        try:
            close = source.matching(code, open_at)
        except source.BraceError:
            return False
        if not (open_at < s and e < close):
            return False
        last = source.split_top(code, open_at + 1, close - 1)[-1]
        return code[last[0]:last[1]].strip().startswith(code[s:e].strip()[:8])


class TupleZeroFill(Rule):
    """A loop that fills a fresh tuple with NULL so that an early error
    return can release it safely (``for( i = 0; i < n; ++i )
    PyTuple_SET_ITEM( t, i, 0 );``) is not needed: ``CystckTuple_New``
    gives empty slots, and a half-filled tuple is released safely (a null
    handle stored in a tuple would raise).  The loop goes, and so does its
    bound when nothing else uses it (``Py_ssize_t n = PyTuple_GET_SIZE( t
    );``)."""
    name = "tuple-zero-fill"
    precedence = 595
    patterns = (r"^[ \t]*for\s*\([^;]*;\s*(?P<i>\w+)\s*<\s*(?P<n>\w+)\s*;[^;{}]*\)\s*(?P<b>\{\s*)?"
                r"PyTuple_SET_ITEM\s*\(\s*(?P<t>\w+)\s*,\s*(?P=i)\s*,\s*(?:0|NULL|nullptr)\s*\)\s*;"
                r"(?(b)\s*\})[ \t]*\n?",)
    before = ("static PyObject *f(Py_ssize_t n)\n{\n    PyObject *t = PyTuple_New(n);\n"
              "    Py_ssize_t size = PyTuple_GET_SIZE(t);\n"
              "    for (Py_ssize_t i = 0; i < size; ++i)  // for a safe early return\n"
              "        PyTuple_SET_ITEM(t, i, NULL);\n    return t;\n}\n")
    after = "static PyObject *f(Py_ssize_t n)\n{\n    PyObject *t = PyTuple_New(n);\n    return t;\n}\n"

    def apply(self, unit):
        code = unit.masked
        edits = source.Edits()
        for f in unit.functions():
            if not f.is_definition:
                continue
            b0, b1 = f.body
            for m in regex.finditer(self.patterns[0], code, regex.M, pos=b0, endpos=b1):
                edits.add(m.start(), m.end(), "")
                n = m.group("n")
                decl = regex.compile(rf"^[ \t]*(?:Py_ssize_t|int|size_t|long)\s+{n}\s*=\s*PyTuple_(?:GET_SIZE|Size)\s*"
                                     rf"\(\s*{m.group('t')}\s*\)\s*;[ \t]*\n?", regex.M).search(code, b0, m.start())
                if decl is None:
                    continue
                rest = code[b0:decl.start()] + code[decl.end():m.start()] + code[m.end():b1]
                if not regex.search(rf"(?<![\w.>]){n}\b", rest):
                    edits.add(decl.start(), decl.end(), "")
        if edits:
            unit.apply(edits)
        return edits.applied


class BufferOwner(Rule):
    """A ``Py_buffer`` filled by hand owns a reference to its ``obj``,
    which ``PyBuffer_Release`` drops: ``view->obj = h;`` (with the
    ``Py_INCREF(h)`` that goes with it, which the incref rule removes)
    becomes ``view->obj = Py_NewRef(Cystck_AsPyObject(S, h));``, through
    the escape hatch (marked and reported), so the view keeps the object
    beyond the handle.  Other members, and ``obj`` set to anything but a
    handle (``view->obj = NULL;``), stay as they are."""
    name = "buffer-owner"
    precedence = 597
    patterns = (r"(?<![\w.>])(?P<v>\w+)\s*(?:->|\.)\s*obj\s*=(?!=)\s*(?P<h>\w+)\s*;",)
    before = ("static int fill(PyObject *o, Py_buffer *view)\n{\n"
              "    view->obj = o;\n    Py_INCREF(o);\n    view->len = 0;\n    return 0;\n}\n")
    after = ("static int fill(PyObject *o, Py_buffer *view)\n{\n"
             f"    view->obj = {escape.MARK} Py_NewRef(Cystck_AsPyObject(S, o));\n"
             "    Py_INCREF(o);\n    view->len = 0;\n    return 0;\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx in _common.stateful_contexts(unit):
            f = ctx.func
            views = set(regex.findall(r"\bPy_buffer\s*\*?\s*(\w+)", code[f.params[0]:f.body[1]]))
            for m in regex.finditer(self.patterns[0], code, pos=f.body[0], endpos=f.body[1]):
                h = m.group("h")
                if m.group("v") not in views or not _common.is_handle(h, ctx, unit.project):
                    continue
                edits.add(m.start("h"), m.end("h"), f"{escape.MARK} Py_NewRef(Cystck_AsPyObject(S, {h}))")
                unit.leftover(m.start(), f"escape hatch: {m.group('v')} (a Py_buffer) owns a reference to {h}, "
                              "which PyBuffer_Release drops: kept as a PyObject * through Cystck_AsPyObject",
                              self.name)
        if edits:
            unit.apply(edits)
        return edits.applied


class ObjectFrees(Rule):
    """``PyObject_Free(h);`` or ``PyObject_Del(h);`` of an object outside a
    destructor (a half-made instance freed on an error path, ``if
    (init(self) < 0) { PyObject_Free(self); return NULL; }``) releases the
    object's memory behind the interpreter's back: where ``h`` is a
    handle, the statement goes, with a comment, and is reported: the
    runtime releases the object with its last handle, running its
    destructor (stock would free memory that references may still point
    to).  Only a parameter's object (one the function did not make) is
    handled so; frees of native memory (``PyObject_Free(self->buf)``), of
    an object the function made itself (the escape hatch) and those in
    destructors (the destroy-traverse rule's) are left alone.  The type's
    own ``Py_TYPE(h)->tp_free((PyObject *)h);`` goes likewise, also of an
    instance the function made (``tp_new`` freeing what ``tp_alloc`` gave
    when its native part cannot be made): its handle is the object's only
    reference, released with the frame; a ``tp_free`` of another object
    or of no handle is reported and left as it is."""
    name = "object-frees"
    precedence = 615
    patterns = (r"\bPyObject_(?:Free|Del)\s*\(\s*(?:\(\s*(?:PyObject|void)\s*\*\s*\)\s*)?(?P<h>\w+)\s*\)\s*;",
                r"\bPy_TYPE\s*\(\s*(?:\(\s*PyObject\s*\*\s*\)\s*)?(?P<o>\w+)\s*\)\s*->\s*tp_free\s*"
                r"\(\s*(?:\(\s*(?:PyObject|void)\s*\*\s*\)\s*)?(?P<h>\w+)\s*\)\s*;")
    before = ("typedef struct { PyObject_HEAD double *buf; } Box;\n"
              "static int fill(Box *self, PyObject *n)\n{\n    if (PyLong_AsLong(n) < 0) {\n"
              "        PyObject_Free(self);\n        return -1;\n    }\n    PyObject_Free(self->buf);\n    return 0;\n}\n")
    after = ("typedef struct { PyObject_HEAD double *buf; } Box;\n"
             "static int fill(Box *self, PyObject *n)\n{\n    if (PyLong_AsLong(n) < 0) {\n"
             "        /* cystck-migrate: PyObject_Free(self) went: the runtime releases the object "
             "with its last handle */\n        return -1;\n    }\n    PyObject_Free(self->buf);\n    return 0;\n}\n")

    def apply(self, unit):
        p = unit.project
        edits = source.Edits()
        for ctx, m in _common.matches_in_state_bodies(unit, "|".join(self.patterns), unit.masked):
            h, own_type = m.group("h"), m.group("o")
            if own_type is not None and (own_type != h or not _common.is_handle(h, ctx, p)):
                unit.leftover(m.start(), f"tp_free called through Py_TYPE({own_type}) on {h}: "
                              "free it as its type does", self.name)
                continue
            if own_type is None and (not ctx._is_param(h) or not _common.is_handle(h, ctx, p)):
                continue          # a local the function made: the escape hatch frees it, as stock
            call = "tp_free" if own_type else regex.match(r"\w+", unit.masked[m.start():]).group()
            edits.add(m.start(), m.end(), f"/* cystck-migrate: {call}({h}) went: the runtime releases the "
                                          "object with its last handle */")
            unit.leftover(m.start(), f"{call}({h}) of an object outside a destructor removed: the runtime "
                          "releases the object with its last handle (stock freed its memory)", self.name)
        if edits:
            unit.apply(edits)
        return edits.applied


class ReadAfterConsume(Rule):
    """A local handed to a function that steals it and read afterwards,
    ``PyList_SET_ITEM(list, 0, b); p = PyBytes_AS_STRING(b);`` (stock
    borrows it from the container), gives the call a handle of its own,
    ``PyList_SET_ITEM(list, 0, Cystck_Dup(S, b))``: the Cystck function
    consumes the handle, so ``b`` would be a released handle where it is
    read next.  ``b``'s own handle is released with the frame.  Only reads
    later in the call's own block count (not one in another branch of an
    ``if``); a local assigned again before any read, or not read at all,
    is left alone."""
    name = "read-after-consume"
    precedence = 612
    patterns = (r"(?<![\w.>])(?P<f>Py\w+)\s*" + source.paren("a") + r"\s*;",)
    before = ("static PyObject *f(Py_ssize_t n)\n{\n    PyObject *l = PyList_New(1), *b;\n"
              "    b = PyBytes_FromStringAndSize(NULL, n);\n    PyList_SET_ITEM(l, 0, b);\n"
              "    memset(PyBytes_AS_STRING(b), 0, n);\n    return l;\n}\n")
    after = ("static PyObject *f(Py_ssize_t n)\n{\n    PyObject *l = PyList_New(1), *b;\n"
             "    b = PyBytes_FromStringAndSize(NULL, n);\n    PyList_SET_ITEM(l, 0, Cystck_Dup(S, b));\n"
             "    memset(PyBytes_AS_STRING(b), 0, n);\n    return l;\n}\n")

    def apply(self, unit):
        code = unit.masked
        consumed = _consumed_index()
        edits = source.Edits()
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            index = consumed.get(m.group("f"))
            if index is None:
                continue
            args = source.split_top(code, m.start("a") + 1, m.end("a") - 1)
            if index >= len(args):
                continue
            x = code[args[index][0]:args[index][1]].strip()
            if x not in ctx.handles or not regex.fullmatch(r"[A-Za-z_]\w*", x):
                continue
            # read later in the call's own block (not in another branch)
            block_end = min(((s, e) for s, e in _common._blocks(code, *ctx.body) if s <= m.start() < e),
                            key=lambda b: b[1] - b[0], default=ctx.body)[1]
            after = regex.search(rf"(?<![\w.>]){regex.escape(x)}\b(?P<set>\s*=(?!=))?", code, pos=m.end(),
                                 endpos=block_end)
            if after is None or after.group("set"):
                continue          # not read again, or holds another object first
            lead = len(code[args[index][0]:args[index][1]]) - len(code[args[index][0]:args[index][1]].lstrip())
            edits.add(args[index][0] + lead, args[index][0] + lead + len(x), f"Cystck_Dup(S, {x})")
        if edits:
            unit.apply(edits)
        return edits.applied
