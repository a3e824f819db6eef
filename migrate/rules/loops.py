"""Loops that make handles every iteration: released per iteration.

A stock loop over a container borrows each item (``PyDict_Next``,
``PyList_GET_ITEM``) or makes and releases objects; translated, every item
is a handle of the frame, which lives until the call returns, so a loop
over more items than the handle limit fails with ``MemoryError`` where the
stock code succeeds.  The rule here gives such a loop a mark of the handle
array (``Cystck_Mark``) and releases, at the start of every iteration,
what the previous one made (``Cystck_ReleaseSince``)."""
import regex

from .. import api, source
from ..engine import Rule
from . import _common

_LOOP = regex.compile(r"(?<![\w.>])(?P<kw>for|while)\s*" + source.paren("h") + r"\s*(?=\{)")
_CALL = regex.compile(r"(?<![\w.>]|->)(?P<f>[A-Za-z_]\w*)\s*\(")
# Not calls, or calls that only read what they get (``assert``).
_NOT_CALLS = frozenset("if while for switch return sizeof defined alignof _Alignof decltype assert".split())
_DECL = regex.compile(r"(?<![\w])(?:PyObject\s*\*|Cystck_Object\s+)(?=\s*\w+\s*[=,;])")
_INTO = regex.compile(r"\b\w+Into\s*\(")
_NULL_VALUE = regex.compile(r"\s*(?:Cystck_NULL|NULL|nullptr|0)\s*")
# C scalars: a function of the extension given the address of one cannot
# keep a handle there.
_SCALAR_DECL = (r"(?:(?:const|unsigned|signed|long|short|static|register)\s+)*"
                r"(?:int|long|short|char|unsigned|signed|size_t|ssize_t|Py_ssize_t|Cystck_ssize_t|"
                r"Py_hash_t|Py_UCS4|double|float|bool|_Bool|u?int(?:8|16|32|64|ptr)_t)\b")
MARK = "cystck_mark_"


def handle_makers():
    """The API functions that make handles, less those that return only
    the null handle (``CystckErr_Format``): a loop that merely raises makes
    none."""
    only_null = regex.compile(r"\breturns (?:the )?null(?: handle)?\s*$")
    return set(api.creating()) - {f.name for f in api.table() if only_null.search(f.doc) and "[h+" not in f.doc}


class LoopRelease(Rule):
    """A ``while`` or ``for`` loop whose condition or braced body makes
    handles (an API call that returns one, ``CystckDict_Next``'s outputs,
    a helper of the extension that returns an object) takes a mark of the
    handle array before it, and releases what the previous iteration made
    as its condition starts: ``{ Cystck_Scope cystck_mark_ =
    Cystck_Mark(S); while ((Cystck_ReleaseSince(S, &cystck_mark_),
    cond)) {...} }``.  A loop over a million-item dict or list then holds
    one iteration's handles, as the stock loop holds borrowed references;
    ``break``, ``return`` and ``goto`` need nothing (the last iteration's
    handles stay for the frame).

    Only where no handle outlives its iteration: a handle variable of the
    function declared outside the body is assigned in the loop only as an
    output of the condition's API call (``&key``, or ``(item =
    PyIter_Next(it))``: written every iteration,
    and written again before any read after the loop) or cleared at the
    end of the body (``x = NULL;`` last, as ``Py_CLEAR(x)`` leaves it, and
    no ``continue``), set only to NULL, or written by the first statement
    that names it, in the body or in a block of it that holds every other
    mention (``r = f(x); if (!r) goto error; Py_DECREF(r);``), and written
    again after the loop, on every way out, before any read; or, for one
    such variable, carried from one iteration to the next: set before the
    loop (in a block holding it, not under a braceless ``if``), read by the
    body before it writes it, and its old value released there (an
    accumulator, ``tmp = PyNumber_Add(acc, item); Py_DECREF(acc); acc =
    tmp;``), which the release keeps:
    ``(Cystck_ReleaseSinceKeep(S, &cystck_mark_, &acc), cond)``; no handle goes to a call other than the API, a function of
    the extension (or a macro that calls one), or into a member, an array
    or through a pointer (``items.push_back(Item(key))``, ``*out = v``);
    no function of the extension gets the address of a local other than a
    handle or a C scalar (``iterNext(S, obj, &ctx)``, whose context may keep
    a handle from one iteration to the next);
    the initializer and the increment of a ``for`` make no handle; and no
    slot-reusing call (``CystckDict_NextInto``) is in the loop, whose
    slots live across iterations.  A call on the way out of the function
    (``return f(...)``, or ``f(...);`` followed by ``return``) makes no
    handle per iteration: a loop whose only such calls are those (a
    parser's per-character loop that returns ``SetError(...)``) gets no
    mark; nor does a call whose handle the iteration consumes (the stolen
    argument of ``CystckList_SET_ITEM``, directly or through a local only
    tested for null before): a consumed top handle gives its slot back.
    The typed accessors (``Foo_AsStruct(S, h)``) read the struct and keep
    no handle; a handle used as a subscript (``counts[key]``, a C++ map
    keyed by objects) is kept; a local written on the way out of the loop
    (``Py_CLEAR(res); goto done;``) is not carried to another iteration.
    Other loops are left alone (the analysis still reports those that may
    overflow)."""
    name = "loop-release"
    precedence = 890
    needs = ("api-calls",)
    patterns = (_LOOP.pattern,)
    before = ("static Py_ssize_t f(PyObject *d)\n{\n    PyObject *key, *value;\n    Py_ssize_t pos = 0, n = 0;\n"
              "    while (PyDict_Next(d, &pos, &key, &value)) {\n        n += PyObject_Size(value);\n    }\n"
              "    return n;\n}\n")
    after = ("static Py_ssize_t f(PyObject *d)\n{\n    PyObject *key, *value;\n    Py_ssize_t pos = 0, n = 0;\n"
             "    { Cystck_Scope cystck_mark_ = Cystck_Mark(S);\n"
             "    while ((Cystck_ReleaseSince(S, &cystck_mark_), CystckDict_Next(S, d, &pos, &key, &value))) {\n"
             "        n += CystckObject_Size(S, value);\n    } }\n"
             "    return n;\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if not _LOOP.search(code):
            return 0
        creators = handle_makers() | unit.project.handle_makers(unit.path)
        self._creates = regex.compile(r"(?<![\w.>])(?:" + "|".join(map(regex.escape, sorted(creators, key=len, reverse=True)))
                                      + r")\s*\(")
        own = {i.name for i in unit.project.functions.values()}
        # the typed accessors CYSTCK_TYPE_HELPERS declares read the struct only
        accessors = {f"{t.struct.split()[-1]}_AsStruct" for t in unit.project.types.values()}
        self._own = own | self._macros_calling(text, own) | accessors
        self._consuming = api.consuming()
        edits = source.Edits()
        n = 0
        for ctx in _common.stateful_contexts(unit):
            b0, b1 = ctx.body
            for m in _LOOP.finditer(code, b0, b1):
                open_at = m.end()
                close = source.matching(code, open_at)
                kept = self._releasable(code, m, open_at, close, b1, ctx)
                if kept is None:
                    continue
                start, end = self._condition(code, m)
                while start < end and code[start].isspace():
                    start += 1
                while end > start and code[end - 1].isspace():
                    end -= 1
                indent = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
                indent = indent if not indent.strip() else ""
                edits.add(m.start(), m.start(), f"{{ Cystck_Scope {MARK} = Cystck_Mark(S);\n{indent}")
                inner = text[start:end].strip() or "1"
                release = f"Cystck_ReleaseSinceKeep(S, &{MARK}, &{kept})" if kept else \
                    f"Cystck_ReleaseSince(S, &{MARK})"
                edits.add(start, end, f"({release}, {inner})")
                edits.add(close, close, " }")
                n += 1
        if edits:
            unit.apply(edits)
        return n

    @staticmethod
    def _condition(code, m):
        """The span of the loop's condition (of a ``for``: between its two
        semicolons; empty for ``for (;;)``)."""
        h0, h1 = m.start("h") + 1, m.end("h") - 1
        if m.group("kw") == "while":
            return h0, h1
        parts = source.split_top(code, h0, h1, ";")
        s, e = parts[1]
        return s, e

    @staticmethod
    def _macros_calling(text, names):
        """Function-like macros whose replacement starts with a call of one
        of the extension's functions or of the API (``#define RECURSE(v)
        encode(S, w, v)``): calls of them count as calls of that."""
        out = set()
        for d in regex.finditer(r"^[ \t]*#[ \t]*define[ \t]+(?P<n>\w+)\((?P<p>[^)]*)\)[ \t]*(?P<b>(?:[^\n\\]|\\.|\\\n)*)",
                                text, regex.M):
            call = _CALL.search(d.group("b"))
            if call and (call.group("f").startswith("Cystck") or call.group("f") in names):
                out.add(d.group("n"))
        return out

    def _releasable(self, code, m, open_at, close, b1, ctx):
        """None if the loop is left alone; else the handle variable the
        loop carries from one iteration to the next (kept by
        ``Cystck_ReleaseSinceKeep``), or "" for none."""
        h0, h1 = m.start("h") + 1, m.end("h") - 1
        header, body = code[h0:h1], code[open_at:close]
        if "Cystck_ReleaseSince" in header or _INTO.search(header) or _INTO.search(body):
            return None
        if m.group("kw") == "for":
            parts = source.split_top(code, h0, h1, ";")
            if len(parts) != 3 or any(self._creates.search(code, s, e) for s, e in (parts[0], parts[2])):
                return None
            cond = code[parts[1][0]:parts[1][1]]
        else:
            cond = header
        if not (self._creates.search(cond) or self._makes_handles(body)):
            return None
        handles = set(ctx.handles)
        inner = self._declared(body)
        handles |= inner
        if not self._calls_keep_handles_in(cond + "\n" + body, handles, ctx):
            return None
        if self._own_call_gets_a_context(cond + "\n" + body, code[ctx.func.start:close], handles,
                                         set(ctx.plain) | set(ctx.data_ptrs)):
            return None
        if self._stored(body, handles):
            return None
        outputs = set()
        if self._creates.search(cond):
            # written by the condition every iteration: &v given to the
            # call, or v = call(...)
            outputs = set(regex.findall(r"&\s*(\w+)\b", cond)) | {
                a.group(1) for a in regex.finditer(r"(?<![\w.>])(\w+)\s*=(?!=)\s*(?=\w+\s*\()", cond)
                if self._creates.match(cond, a.end())}
        after = code[close:b1]
        carried = []
        for v in sorted(handles - inner):
            assigned = self._assigned_in_loop(body, v) or \
                (v not in outputs and regex.search(rf"(?<![\w.>]){v}\s*=(?!=)|&\s*{v}\b", cond))
            if not assigned and v not in outputs:
                continue
            if v in outputs:
                if not self._written_first(after, v):
                    return None
                continue
            if self._cleared_at_end(body, v) and not regex.search(r"\bcontinue\s*;", body):
                continue
            if self._written_at_start(body, v) and self._written_on_every_way_out(after, v):
                continue
            # carried to the next iteration (``acc = tmp;`` after ``tmp =
            # PyNumber_Add(acc, item)``): kept, if set before the loop, read
            # by the body before it is written and its old value released in
            # the loop (an accumulator)
            if v in outputs or regex.search(rf"(?<![\w.>]){v}\s*=(?!=)|&\s*{v}\b", cond) or \
                    self._written_first(body, v) or \
                    regex.search(rf"&\s*{v}\b", body) or not self._replaced(body, v) or \
                    not self._set_before(code, ctx, m.start(), v):
                return None
            carried.append(v)
        if len(carried) > 1:
            return None
        return carried[0] if carried else ""

    @staticmethod
    def _replaced(body, v):
        """Does the body release ``v``'s old value other than on its way
        out, ``Cystck_Drop(S, v)`` (or of ``old`` after ``old = v``) not
        followed by ``return``, ``goto`` or ``break``: an accumulator,
        whose value each iteration replaces?"""
        names = {v} | {a.group(1) for a in regex.finditer(rf"(?<![\w.>])(\w+)\s*=\s*{v}\s*;", body)}
        alts = "|".join(map(regex.escape, sorted(names)))
        return any(not regex.match(r"\s*(?:return|goto|break)\b", body[d.end():])
                   for d in regex.finditer(rf"\bCystck_Drop\s*\(\s*S\s*,\s*(?:{alts})\s*\)\s*;", body))

    @staticmethod
    def _set_before(code, ctx, loop, v):
        """Does ``v`` hold a value (maybe null) wherever the loop at
        ``loop`` starts: a parameter, or initialized or assigned by a
        statement (not under a braceless ``if``) of a block that holds the
        loop, before it?  Then reading it at the loop's first condition
        reads what the stock code would read in its first iteration."""
        if ctx._is_param(v):
            return True
        b0 = ctx.body[0]
        for a in regex.finditer(rf"(?<![\w.>]){v}\s*=(?!=)", code, pos=b0, endpos=loop):
            lead = code[b0:a.start()].rstrip()
            if not (lead.endswith((";", "{", "}", ",")) or
                    regex.search(r"(?:\bPyObject\s*\*|\bCystck_Object)\s*\**$", lead)):
                continue
            if lead.endswith(",") and not regex.search(r"(?:\bPyObject\s*\*|\bCystck_Object)[^;{}()]*$", lead):
                continue
            if source.matching(code, b0 + _common.open_brace_before(code[b0:], a.start() - b0)) > loop:
                return True
        return False

    @staticmethod
    def _written_on_every_way_out(after, v):
        """Is ``v`` written after the loop before any read, on every way
        from the loop's end?  Each mention, in order, must be a write at
        the start of a statement (``v = ...``, or ``&v`` given to a call):
        one at the loop's own level (or an enclosing one) covers what
        follows; one inside a block opened after the loop (``if (n) { v =
        args[0]; ... }``, another branch's loop) covers that block only,
        and the mentions after the block are checked the same way."""
        mention = regex.compile(rf"(?<![\w.>]){v}\b")
        pos = 0
        while True:
            m = mention.search(after, pos)
            if m is None:
                return True
            before = after[:m.start()]
            written = regex.match(r"\s*=(?!=)", after[m.end():]) or before.rstrip().endswith("&")
            statement = before.rstrip().rstrip("&").rstrip()
            if not written or (statement and statement[-1] not in ";{}" and not statement.endswith(",")):
                return False
            depth = low = 0
            for c in before:
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                    low = min(low, depth)
            if depth == low:
                return True
            pos = source.matching(after, _common.open_brace_before(after, m.start()))   # past that block

    @classmethod
    def _written_at_start(cls, body, v):
        """Is ``v`` first named in the body by a statement that writes it,
        ``v = f(x);``, a statement of the body's own or of a block inside
        it (not under a braceless ``if``), with every other mention of
        ``v`` in that block after it?  Then every iteration that reads
        ``v`` has written it first, and what the previous iteration left
        in it is never read."""
        first = regex.search(rf"(?<![\w.>]){v}\b", body)
        if first is None or not cls._written_first(body, v):
            return False
        open_at = _common.open_brace_before(body, first.start())    # the block holding it
        close = source.matching(body, open_at)
        before = body[open_at + 1:first.start()]
        return (not before.strip() or before.rstrip()[-1] in ";{}") and \
            regex.search(rf"(?<![\w.>]){v}\b", body, pos=close) is None

    @staticmethod
    def _assigned_in_loop(body, v):
        """Is ``v`` written in the body other than on the way out of the
        loop?  ``Py_CLEAR(res); goto done;`` (``v = Cystck_NULL;`` followed
        by ``goto``, ``break`` or ``return``) leaves the loop: what it
        stores is never seen by a later iteration.  Nor does a null store
        anywhere (``ret = NULL;`` where an append fails) put a handle of
        the iteration in ``v``."""
        if regex.search(rf"&\s*{v}\b", body):
            return True
        for a in regex.finditer(rf"(?<![\w.>]){v}\s*=(?!=)", body):
            semi = body.find(";", a.end())
            if semi >= 0 and _NULL_VALUE.fullmatch(body[a.end():semi]):
                continue
            if semi < 0 or not regex.match(r"\s*(?:goto|break|return)\b", body[semi + 1:]):
                return True
        return False

    def _makes_handles(self, body):
        """Does the body call a maker of handles other than on its way out
        of the function?  A call that is returned (``return SetError(...)``)
        or whose statement is followed by a ``return`` (``SetError(...);
        return false;``) runs at most once per run of the loop: it leaves
        no handle for a later iteration to release, and a mark released at
        every character of a parser's or escaper's loop costs more than the
        loop's own work."""
        for c in self._creates.finditer(body):
            if regex.search(r"(?:^|[^\w.>])return\s*$", body[max(0, c.start() - 64):c.start()]):
                continue
            if regex.match(r"\s*;\s*return\b", body[source.matching(body, c.end() - 1):]):
                continue
            # an API call makes the one handle it returns; a function of the
            # extension may leave others behind
            if body[c.start():c.end()].startswith("Cystck") and \
                    self._consumed(body, c.start(), source.matching(body, c.end() - 1)):
                continue
            return True
        return False

    def _consumed(self, body, start, end):
        """Is the handle that the call ``body[start:end]`` makes consumed in
        the same iteration, so that it leaves no handle behind?  It is
        when the call is itself the stolen argument of a consuming API call
        (``CystckList_SET_ITEM(S, l, i, CystckFloat_FromDouble(S, x))``), or
        when it is assigned, ``v = call(...);``, to a name the rest of the
        body only tests for null and then passes as such an argument (a
        consumed top handle gives its slot back at once).  Asked of API
        calls only: a function of the extension (``item = decode(self);``)
        may leave handles of its own behind."""
        if self._stolen_argument(body, start, end):
            return True
        asg = regex.search(r"(?<![\w.>])(?P<v>\w+)\s*=\s*$", body[max(0, start - 80):start])
        if not asg or not regex.match(r"\s*;", body[end:]):
            return False
        consumed = False
        for u in regex.finditer(rf"(?<![\w.>]){asg.group('v')}\b", body, pos=end):
            if regex.search(r"\bCystck_IsNull\s*\(\s*$", body[max(0, u.start() - 40):u.start()]) \
                    and regex.match(r"\s*\)", body[u.end():]):
                continue
            if not self._stolen_argument(body, u.start(), u.end()):
                return False
            consumed = True
        return consumed

    def _stolen_argument(self, body, start, end):
        """Is ``body[start:end]`` the whole argument that a consuming API
        call (``api.consuming``) steals?"""
        call = _common.call_of_argument(body, start)
        if call is None or call[0] not in self._consuming:
            return False
        i = body.index("(", call[1])
        args = source.split_top(body, i + 1, source.matching(body, i) - 1)
        stolen = self._consuming[call[0]] + 1          # after S
        if stolen >= len(args):
            return False
        a0, a1 = args[stolen]
        return body[a0:a1].strip() == body[start:end].strip() and a0 <= start and end <= a1

    @staticmethod
    def _written_first(code, v):
        """Is ``v`` unnamed in ``code`` or written where it is first named
        (``v = ...``, or ``&v`` given to a call), so that the last value
        the loop left in it is never read?"""
        first = regex.search(rf"(?<![\w.>]){v}\b", code)
        return first is None or code[:first.start()].rstrip().endswith("&") or \
            bool(regex.match(r"\s*=(?!=)", code[first.end():]))

    @staticmethod
    def _declared(body):
        """Handle variables declared in the body (its blocks included)."""
        names = set()
        for d in _DECL.finditer(body):
            end = body.find(";", d.end())
            for s, e in source.split_top(body, d.end(), end if end >= 0 else len(body), ","):
                name = regex.match(r"\s*\**\s*(\w+)", body[s:e])
                if name:
                    names.add(name.group(1))
        return names

    def _calls_keep_handles_in(self, code, handles, ctx):
        """Does every call that gets a handle use it during the call only:
        the API's, the extension's own functions and macros?"""
        mentions = regex.compile(r"(?<![\w.>])(?:" + "|".join(map(regex.escape, sorted(handles))) + r")\b") \
            if handles else None
        for c in _CALL.finditer(code):
            f = c.group("f")
            if f in _NOT_CALLS or f.startswith(("Cystck", "_Cystck")) or f in self._own:
                continue
            args = code[c.end() - 1:source.matching(code, c.end() - 1)]
            if mentions is not None and mentions.search(args):
                return False
        # a call through a member (``v.push_back(x)``, ``w->add(x)``)
        for c in regex.finditer(r"(?:\.|->)\s*\w+\s*\(", code):
            args = code[c.end() - 1:source.matching(code, c.end() - 1)]
            if mentions is not None and mentions.search(args):
                return False
        return True

    def _own_call_gets_a_context(self, code, before, handles, structs):
        """Is a function of the extension given the address of a local
        that is neither a handle nor a C scalar (``iterNext(S, obj, &tc)``:
        an iterator's context, a cache filled on first use), or a struct
        or struct pointer of the function's (``accumulate(S, acc, s)``,
        whose struct holds a list it makes)?  What it stores there may be
        a handle made in one iteration and read in the next, which the
        mark would release."""
        for c in _CALL.finditer(code):
            if c.group("f") not in self._own or c.group("f").endswith("_AsStruct"):
                continue
            args = code[c.end():source.matching(code, c.end() - 1)]
            if any(regex.search(rf"(?<![\w.>&]){name}\b(?!\s*(?:\[|->|\.|\())", args) for name in structs):
                return True
            for a in regex.finditer(r"(?<![\w.>&])(\w+)\b(?!\s*(?:\[|->|\.|\())", args):
                name = a.group(1)
                if name in handles:
                    continue
                # a pointer to a struct of the extension's: `JSON_Accu *acc`
                decl = regex.search(rf"(?<![\w.>])(?P<t>\w+)\s*\*+\s*(?:const\s+)?{name}\s*[,;=)\[]", before)
                if decl and not regex.fullmatch(_SCALAR_DECL + "|void|PyObject|Cystck_Object|Cystck_State|"
                                                r"PyTypeObject|Py_buffer|Cystck_Field", decl.group("t")):
                    return True
            for a in regex.finditer(r"&\s*(\w+)\b(?!\s*(?:\[|->|\.))", args):
                name = a.group(1)
                if name in handles:
                    continue
                if not regex.search(_SCALAR_DECL + rf"[^;{{}}()]*?(?<![\w.>]){name}\b", before):
                    return True
        return False

    def _stored(self, body, handles):
        """Is a handle (a variable or a new one) stored into a member, an
        array element or through a pointer, or used as a subscript (a C++
        container's key, ``counts[key] += 1``, which keeps it)?"""
        for s in regex.finditer(r"(?:->\s*\w+|\.\s*\w+|\]|(?<![\w)\]])\*\s*\w+)\s*=(?!=)(?P<rhs>[^;]*);", body):
            rhs = s.group("rhs")
            if self._creates.search(rhs) or any(regex.search(rf"(?<![\w.>]){v}\b", rhs) for v in handles):
                return True
        for s in regex.finditer(r"\[", body):
            key = body[s.end():source.matching(body, s.start()) - 1]
            if self._creates.search(key) or any(regex.search(rf"(?<![\w.>]){v}\b", key) for v in handles):
                return True
        return False

    @staticmethod
    def _cleared_at_end(body, v):
        """Does the body end by clearing ``v`` (``x = NULL;``, after which
        only releases and other clears follow)?"""
        tail = regex.search(rf"(?<![\w.>]){v}\s*=\s*(?:Cystck_NULL|NULL|nullptr)\s*;"
                            r"(?P<rest>(?:\s*(?:\{\s*)?(?:Cystck_Drop\s*\(\s*S\s*,\s*\w+\s*\)|\w+\s*=\s*(?:Cystck_NULL|NULL|nullptr))"
                            r"\s*;(?:\s*\})?)*)\s*\}$", body)
        return tail is not None
