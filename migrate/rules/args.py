"""Arguments of entry points: the argument tuple is now an array of handles
with its length (``args``, ``nargs``)."""
import regex

from .. import cstruct, project as proj, source
from ..engine import Rule
from . import _common
from .escape import MARK
from .functions import _error_value, _replace_return_type


def _kwlist_name(arg):
    """The array a keyword-list argument names: ``kwlist``, ``(char
    **)kwlist``, ``const_cast<char**>(kwlist)`` or ``&kwlist[0]``."""
    arg = regex.sub(r"^&\s*(\w+)\s*\[\s*0\s*\]$", r"\1", arg.strip())
    # one list of a table of lists, kwlists[i] (char *kwlists[3][4])
    arg = regex.sub(r"^(\w+)\s*\[[^\[\]]+\]$", r"\1", arg)
    return regex.sub(r"^(?:\(\s*char\s*\*\s*\*\s*\)|const_cast\s*<\s*char\s*\*\s*\*\s*>)"
                     r"\s*\(?\s*(\w+)\s*\)?$", r"\1", arg)


class ParseArgs(Rule):
    """``PyArg_ParseTuple(args, fmt, ...)`` becomes
    ``CystckArg_ParseTuple(S, args, nargs, fmt, ...)``,
    ``PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, ...)`` becomes
    ``CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, fmt, kwlist,
    ...)`` (the keyword list becomes ``const char *[]``, casts to ``char **``
    go, C++'s ``const_cast<char**>( kwlist )`` too, and a list passed as
    ``&kwlist[0]`` is found as well; a line break after the
    opening parenthesis is kept), ``PyArg_UnpackTuple`` and
    ``_PyArg_NoKeywords`` likewise.  ``O``
    outputs are handles because their variables were declared as objects.
    ``PyArg_ParseTuple(t, fmt, ...)`` of a tuple handle ``t`` that is no
    argument array (a helper given its caller's tuple), whose format the
    escape hatch cannot keep (object outputs other than ``O``, a format
    known at run time only), becomes ``CystckArg_ParseTupleObject(S, t,
    fmt, ...)``; ``PyArg_ParseTupleAndKeywords(t, kw, fmt, kwlist, ...)``
    of such a tuple and its caller's keyword dict becomes
    ``CystckArg_ParseTupleAndKeywordsObject(S, t, kw, fmt, kwlist, ...)``."""
    name = "parse-args"
    precedence = 650
    patterns = (r"\bPyArg_(?P<k>ParseTupleAndKeywords|ParseTuple|UnpackTuple)\s*\((?P<ws>\s*)(?P<a>\w+)\s*,",
                r"\b_PyArg_NoKeywords\s*\(",
                r"\(\s*char\s*\*\s*\*\s*\)\s*(?=\w)|\bconst_cast\s*<\s*char\s*\*\s*\*\s*>\s*\(\s*(?=\w+\s*\))",
                r"(?<!const\s+)\bchar\s*\*\s*(?P<c>const\s+)?(?P<n>\w+)\s*(?:\[\s*\]|\[\s*\w+\s*\])(?:\s*\[\s*\w+\s*\])?\s*=")
    before = ('static PyObject *f(PyObject *self, PyObject *args, PyObject *kw)\n{\n'
              '    static char *kwlist[] = {"x", NULL};\n    PyObject *x;\n'
              '    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &x))\n        return NULL;\n'
              '    return x;\n}\nstatic PyMethodDef m[] = {{"f", (PyCFunction)f, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n')
    after = ('static PyObject *f(PyObject *self, PyObject *args, PyObject *kw)\n{\n'
             '    static const char *kwlist[] = {"x", NULL};\n    PyObject *x;\n'
             '    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, "O", kwlist, &x))\n        return NULL;\n'
             '    return x;\n}\nstatic PyMethodDef m[] = {{"f", (PyCFunction)f, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n')

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        kwlists = set()
        for ctx in _common.function_contexts(unit):
            b0, b1 = ctx.body
            args, nargs = ctx.args_name, ctx.nargs_name
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                if args is None or m.group("a") != args:
                    if m.group("k") == "ParseTuple" and self._keep_on_tuple(unit, ctx, m, edits):
                        continue
                    if m.group("k") == "ParseTuple" and ctx.has_state \
                            and _common.is_handle(m.group("a"), ctx, unit.project):
                        # any other format, one known at run time only
                        ws = m.group("ws") if "\n" in m.group("ws") else " "
                        edits.add(m.start(), m.start("a"), f"CystckArg_ParseTupleObject(S,{ws}")
                        continue
                    if m.group("k") == "ParseTupleAndKeywords" and ctx.has_state \
                            and _common.is_handle(m.group("a"), ctx, unit.project):
                        # a helper given its caller's tuple and keyword dict
                        ws = m.group("ws") if "\n" in m.group("ws") else " "
                        edits.add(m.start(), m.start("a"), f"CystckArg_ParseTupleAndKeywordsObject(S,{ws}")
                        self._note_kwlist(code, m, kwlists)
                        continue
                    unit.leftover(m.start(), f"PyArg_{m.group('k')} on {m.group('a')}, which is not the "
                                  "argument array of an entry point: unpack the tuple by hand", self.name)
                    continue
                ws = m.group("ws") if "\n" in m.group("ws") else " "
                edits.add(m.start(), m.end(), f"CystckArg_{m.group('k')}(S,{ws}{args}, {nargs},")
                if m.group("k") == "ParseTupleAndKeywords":
                    self._note_kwlist(code, m, kwlists)
            for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
                edits.add(m.start(), m.end(), "CystckArg_NoKeywords(S, ")
            for m in regex.finditer(r"\bPyArg_ParseTupleAndKeywords\s*" + _common.PAREN, code, pos=b0, endpos=b1):
                for c in regex.finditer(self.patterns[2], code, pos=m.start(), endpos=m.end()):
                    edits.add(c.start(), c.end(), "")
                    if c.group().startswith("const_cast"):     # and its closing parenthesis
                        close = regex.compile(r"\w+(\s*\))").match(code, c.end())
                        edits.add(close.start(1), close.end(), "")
        for m in regex.finditer(self.patterns[3], code):
            if m.group("n") in kwlists:
                edits.add(m.start(), m.start(), "const ")
                if m.group("c"):      # char *const kwlist[]: the parser takes const char **
                    edits.add(m.start("c"), m.end("c"), "")
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _note_kwlist(code, m, kwlists):
        """Add the keyword list's name of the PyArg_ParseTupleAndKeywords
        call at ``m`` to ``kwlists`` (declared ``const char *`` then)."""
        open_at = m.start() + code[m.start():m.end()].index("(")
        close = source.matching(code, open_at)
        parts = source.split_top(code, open_at + 1, close - 1)
        if len(parts) >= 4:
            kwlists.add(_kwlist_name(code[parts[3][0]:parts[3][1]]))

    def _keep_on_tuple(self, unit, ctx, m, edits):
        """``PyArg_ParseTuple(t, fmt, ...)`` on a tuple handle ``t`` that is
        no argument array, whose outputs are C numbers or plain objects
        (``O``), is kept through the escape hatch on ``Cystck_AsPyObject(S,
        t)``: CPython's parser writes the numbers as before, and each object
        into a ``PyObject *`` declared for it, which is then given a handle
        with ``Cystck_FromPyObject`` (a borrowed reference).  Is it?"""
        code, text = unit.masked, unit.text
        open_at = m.start() + code[m.start():m.end()].index("(")
        close = source.matching(code, open_at)
        parts = source.split_top(code, open_at + 1, close - 1)
        fmt = regex.fullmatch(r'\s*"(?P<f>[^"\\]*)"\s*', text[parts[1][0]:parts[1][1]]) if len(parts) > 1 else None
        if fmt is None or not _common.is_handle(m.group("a"), ctx, unit.project):
            return False
        units = regex.split(r"[:;]", fmt.group("f"), maxsplit=1)[0]
        if not regex.fullmatch(r"(?:[" + _NUMBER_UNITS + r"|()$]|O(?![!&]))*", units):
            return False
        outputs = [u for u in units if u not in "|()$"]
        if len(outputs) != len(parts) - 2:
            return False
        objects = []
        for u, (s, e) in zip(outputs, parts[2:]):
            if u != "O":
                continue
            out = regex.fullmatch(r"\s*&\s*(?P<n>\w+)\s*", code[s:e])
            if out is None or out.group("n") not in ctx.handles:
                return False
            objects.append((out.start("n") + s, out.end("n") + s, out.group("n")))
        for s, e, name in objects:
            edits.add(s, e, _object_output(name))
        if objects:
            line = text.index("\n", ctx.body[0]) + 1       # the body's first line
            indent = regex.match(r"[ \t]*", text[line:]).group() or "    "
            edits.add(line, line, "".join(f"{indent}PyObject *{_object_output(n)} = NULL;\n"
                                          for n in dict.fromkeys(n for _, _, n in objects)))
            reset = "".join(f"{_object_output(n)} = NULL, " for _, _, n in objects)
            given = "".join(f" && ({_object_output(n)} == NULL || ({n} = Cystck_FromPyObject(S, {_object_output(n)}), 1))"
                            for _, _, n in objects)
            edits.add(m.start(), m.start(), f"({reset}{MARK} ")
            edits.add(close, close, f"{given})")
        else:
            edits.add(m.start(), m.start(), f"{MARK} ")
        edits.add(m.start("a"), m.end("a"), f"Cystck_AsPyObject(S, {m.group('a')})")
        unit.leftover(m.start(), f"escape hatch: PyArg_ParseTuple on {m.group('a')}, a tuple that is not the "
                      "argument array of an entry point: kept, with the tuple lent through Cystck_AsPyObject",
                      self.name)
        return True


#: a call of an Argument Clinic parser: ``_PyArg_ParseStackAndKeywords(args,
#: nargs, kwnames, &_parser, ...)`` (METH_FASTCALL|METH_KEYWORDS) or
#: ``_PyArg_ParseTupleAndKeywordsFast(args, kwargs, &_parser, ...)`` (a
#: tp_init or tp_new), ``_SizeT`` spellings too
_CLINIC_CALL = regex.compile(r"\b_PyArg_(?P<k>ParseStackAndKeywords|ParseTupleAndKeywordsFast)(?:_SizeT)?\s*\(")
_CLINIC_PARSER = regex.compile(r"^[ \t]*static\s+_PyArg_Parser\s+(?P<n>\w+)\s*=\s*\{", regex.M)
_STRING = regex.compile(r'\s*"(?P<s>[^"\\]*)"\s*')


def _clinic_parser(code, text, m):
    """(format, keyword list name, span of the declaration) of the static
    ``_PyArg_Parser`` whose declaration ``m`` matched, when its format is
    a string literal, its keywords an array's name and its ``fname`` null
    (the name is the format's, after ``:``); else None."""
    items, end = cstruct.parse_init(code, text, m.end() - 1)
    fields = {}
    for i, item in enumerate(items):
        key = item.key or ("format", "keywords", "fname")[i] if item.key or i < 3 else None
        if key and isinstance(item.value, str):
            fields[key] = item.value
    fmt = _STRING.fullmatch(fields.get("format", ""))
    keywords = fields.get("keywords", "").strip()
    if fmt is None or not regex.fullmatch(r"[A-Za-z_]\w*", keywords):
        return None
    if fields.get("fname", "0").strip() not in proj.NULLS:
        return None     # a name given apart from the format: left to the escape hatch
    fmt = fmt.group("s")
    semi = regex.compile(r"\s*;[ \t]*\n?").match(code, end)
    if semi is None:
        return None
    return f'"{fmt}"', keywords, (m.start(), semi.end())


class ClinicParsers(Rule):
    """Argument Clinic's generated parsers keep the format and the keyword
    names in a static ``_PyArg_Parser`` and pass it by address:
    ``_PyArg_ParseStackAndKeywords(args, nargs, kwnames, &_parser, ...)``
    in a METH_FASTCALL|METH_KEYWORDS function, and
    ``_PyArg_ParseTupleAndKeywordsFast(args, kwargs, &_parser, ...)`` in a
    ``tp_init`` (private functions of CPython with no Cystck counterpart).
    Each becomes ``CystckArg_ParseTupleAndKeywords(S, args, nargs, kw,
    "fmt", _keywords, ...)``, which binds the same units from the entry
    point's argument array and keyword names; the parser's declaration
    goes once every use of it is rewritten, and its ``static const char *
    const _keywords[]`` becomes ``static const char *_keywords[]`` (the
    parser takes ``const char **``).  A parser without a literal format
    (newer Clinic output that unpacks by hand with
    ``_PyArg_UnpackKeywords``) and calls on another tuple than the entry
    point's arguments stay (the escape hatch)."""
    name = "clinic-parsers"
    precedence = 648
    patterns = (_CLINIC_CALL.pattern,)
    before = ('static PyObject *f(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)\n{\n'
              '    static const char * const _keywords[] = {"x", NULL};\n'
              '    static _PyArg_Parser _parser = {"O:f", _keywords, 0};\n    PyObject *x;\n'
              '    if (!_PyArg_ParseStackAndKeywords(args, nargs, kwnames, &_parser, &x))\n        return NULL;\n'
              '    return x;\n}\nstatic PyMethodDef m[] = {{"f", (PyCFunction)(void(*)(void))f, '
              'METH_FASTCALL|METH_KEYWORDS, NULL}, {NULL}};\n')
    after = ('static PyObject *f(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)\n{\n'
             '    static const char * _keywords[] = {"x", NULL};\n'
             '    PyObject *x;\n'
             '    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kwnames, "O:f", _keywords, &x))\n'
             '        return NULL;\n'
             '    return x;\n}\nstatic PyMethodDef m[] = {{"f", (PyCFunction)(void(*)(void))f, '
             'METH_FASTCALL|METH_KEYWORDS, NULL}, {NULL}};\n')

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        keywords = set()
        for ctx in _common.function_contexts(unit):
            b0, b1 = ctx.body
            args, nargs = ctx.args_name, ctx.nargs_name
            if args is None or nargs is None:
                continue
            parsers = {}
            for d in _CLINIC_PARSER.finditer(code, b0, b1):
                found = _clinic_parser(code, text, d)
                if found:
                    parsers[d.group("n")] = found
            rewritten = {}
            for m in _CLINIC_CALL.finditer(code, b0, b1):
                open_at = m.end() - 1
                parts = source.split_top(code, open_at + 1, source.matching(code, open_at) - 1)
                lead = 3 if m.group("k") == "ParseStackAndKeywords" else 2
                if len(parts) <= lead:
                    continue
                given = [code[s:e].strip() for s, e in parts[:lead + 1]]
                parser = regex.fullmatch(r"&\s*(\w+)", given[lead])
                if given[0] != args or (lead == 3 and given[1] != nargs) or not parser \
                        or parser.group(1) not in parsers:
                    continue
                fmt, kwlist, _ = parsers[parser.group(1)]
                kw = text[parts[lead - 1][0]:parts[lead - 1][1]].strip()
                edits.add(m.start(), parts[lead][1],
                          f"CystckArg_ParseTupleAndKeywords(S, {args}, {nargs}, {kw}, {fmt}, {kwlist}")
                rewritten[parser.group(1)] = rewritten.get(parser.group(1), 0) + 1
                keywords.add(kwlist)
            for name, count in rewritten.items():
                decl = parsers[name][2]
                uses = len(regex.findall(rf"\b{name}\b", code[b0:decl[0]] + code[decl[1]:b1]))
                if uses == count:
                    edits.add(*decl, "")
        for k in keywords:
            for m in regex.finditer(rf"\bconst\s+char\s*\*\s*(?P<c>const\s+){k}\s*\[\s*\]", code):
                edits.add(m.start("c"), m.end("c"), "")
        if edits:
            unit.apply(edits)
        return edits.applied


def _object_output(name):
    """The ``PyObject *`` a kept parse writes the object output ``name`` to."""
    return f"cystck_migrate_{name}"


# Format units whose outputs are C numbers (no object, no borrowed buffer).
_NUMBER_UNITS = "bBhHiIlkLKncCfdDp"


def _owned_if_released(code, b0, b1, m, read):
    """``read`` (the caller's handle to an argument), or a handle of the
    frame's own, ``Cystck_Dup(S, read)``, where it is assigned to a local
    that the function releases later: the tuple's item was lent, and the
    stock code took a reference of its own (``x = PyTuple_GET_ITEM(args,
    0); Py_INCREF(x); ... Py_DECREF(x);``, the increment gone by now);
    releasing the caller's handle would be an error."""
    target = regex.search(r"(?<![\w.>*])(?P<x>[A-Za-z_]\w*)\s*=\s*$", code[max(b0, m.start() - 80):m.start()])
    if target is None or not regex.match(r"\s*;", code[m.end():b1]):
        return read
    x = target.group("x")
    if _common.releases(code[m.end():b1], x):
        return f"Cystck_Dup(S, {read})"
    return read


class ArgsAccess(Rule):
    """Inside an entry point the argument tuple is an array:
    ``PyTuple_GET_SIZE(args)``/``PyTuple_Size(args)`` become ``nargs``,
    ``PyTuple_GET_ITEM(args, i)`` becomes ``args[i]`` (unchecked in stock
    code too), ``PyTuple_GetItem(args, i)`` the checked read
    ``CystckArg_GetItem(S, args, nargs, i)`` (IndexError "tuple index out
    of range" and the null handle out of range, as stock), or ``args[i]``
    where a test of the count guards it (an exit on too few before it, a
    test of enough around it, a loop up to the count), and any other use
    of ``args`` as an object is given a real tuple with
    ``CystckTuple_FromArray(S, args, nargs)`` (reported: it costs an
    allocation).  A ``METH_FASTCALL`` method's ``args`` is an array in
    stock code too, so it stays one (passed to a macro or a helper).  A
    function that assigns to ``args`` uses one tuple, made at its start,
    for every use."""
    name = "args-access"
    precedence = 655
    patterns = (r"\bPy(?:Tuple_GET_SIZE|Tuple_Size|Object_Length|Object_Size)\s*\(\s*(?P<a>\w+)\s*\)",
                r"\bPyTuple_(?:GET_ITEM|GetItem)\s*\(\s*(?P<a>\w+)\s*,\s*(?P<i>[^()]+?(?:\([^()]*\))?[^()]*?)\s*\)")
    before = ("static PyObject *f(PyObject *self, PyObject *args)\n{\n"
              "    if (PyTuple_GetItem(args, 0) == NULL || PyTuple_GET_SIZE(args) != 2)\n        return NULL;\n"
              "    return g(PyTuple_GET_ITEM(args, 0), PyTuple_GetItem(args, 1), args);\n}\n"
              "static PyMethodDef m[] = {{\"f\", f, METH_VARARGS, NULL}, {NULL}};\n")
    after = ("static PyObject *f(PyObject *self, PyObject *args)\n{\n"
             "    if (CystckArg_GetItem(S, args, nargs, 0) == NULL || nargs != 2)\n        return NULL;\n"
             "    return g(args[0], args[1], CystckTuple_FromArray(S, args, nargs));\n}\n"
             "static PyMethodDef m[] = {{\"f\", f, METH_VARARGS, NULL}, {NULL}};\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx in _common.function_contexts(unit, with_locals=False):
            args, nargs = ctx.args_name, ctx.nargs_name
            if not args:
                continue
            fastcall = any(default == "nargs" and idx is not None for _, idx, default in ctx.role.params)
            b0, b1 = ctx.body
            if not fastcall and self._reassigned(unit, code, args, nargs, b0, b1, edits):
                continue
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                if m.group("a") == args:
                    edits.add(m.start(), m.end(), nargs)
            for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
                if m.group("a") == args:
                    # (a count in the index is nargs too: this edit covers it)
                    index = regex.sub(self.patterns[0], lambda c: nargs if c.group("a") == args else c.group(),
                                      text[m.start('i'):m.end('i')].strip())
                    if m.group().startswith("PyTuple_GetItem") and not fastcall \
                            and not _count_guarded(code, b0, b1, m.start(), args, code[m.start('i'):m.end('i')]):
                        read = f"CystckArg_GetItem(S, {args}, {nargs}, {index})"
                    else:
                        read = f"{args}[{index}]"
                    edits.add(m.start(), m.end(), _owned_if_released(code, b0, b1, m, read))
            for m in regex.finditer(rf"(?<![\w.>])\b{regex.escape(args)}\b(?!\s*\[)", code, pos=b0, endpos=b1):
                before = code[max(b0, m.start() - 60):m.start()]
                after = code[m.end():m.end() + 20]
                if regex.search(r"(?:CystckArg_\w+|PyArg_\w+|PyTuple_(?:GET_SIZE|Size|GET_ITEM|GetItem)"
                                r"|PyObject_(?:Length|Size))\s*\(\s*(?:S\s*,\s*)?$", before):
                    continue
                if regex.match(rf"\s*,\s*{regex.escape(nargs)}\b", after):
                    continue
                if regex.match(r"\s*\)", after) and regex.search(r"\bsizeof\s*\(\s*$", before):
                    continue
                if fastcall:
                    continue      # a METH_FASTCALL array was never a tuple: it stays an array
                unit.note("cost", m.start(), f"{args} used as a tuple: built with CystckTuple_FromArray",
                          self.name)
                edits.add(m.start(), m.end(), f"CystckTuple_FromArray(S, {args}, {nargs})")
        if edits:
            unit.apply(edits)
        return edits.applied

    def _reassigned(self, unit, code, args, nargs, b0, b1, edits):
        """An entry point that assigns to its ``args`` (``args =
        PyTuple_GetSlice(args, 1, n);``, shifting the arguments) uses it as
        a tuple throughout: the array becomes one tuple at the start,
        ``Cystck_Object args_tuple = CystckTuple_FromArray(S, args,
        nargs);``, and every use of ``args`` is that tuple (``args == NULL``
        and ``!args``: ``Cystck_IsNull(args_tuple)``).  Where the array
        is also handed on with its count (``args, nargs``), which would
        still see the original arguments, the function is left for a human
        (but for the keyword values of a direct call of a keyword
        implementation, ``Cystck_CallSlotKw(S, f, self, t, args, nargs,
        kw)``, which are the original array's).
        Returns whether ``args`` is assigned."""
        name = regex.escape(args)
        if not regex.search(rf"(?<![\w.>]){name}\s*=(?!=)", code[b0:b1]):
            return False
        # the array of a direct call of a keyword implementation holds the
        # values of the caller's own keywords, after its nargs arguments:
        # the original array, whatever args became
        keyword_values = set()
        for c in regex.finditer(r"\bCystck_Call(?:Impl|Slot)Kw\s*\(", code, pos=b0, endpos=b1):
            passed = source.split_top(code, c.end(), source.matching(code, c.end() - 1) - 1)
            if len(passed) == 7 and [code[s:e].strip() for s, e in passed[4:6]] == [args, nargs]:
                s, e = passed[4]
                keyword_values.add(e - len(code[s:e].lstrip()))
        if any(m.start() not in keyword_values
               for m in regex.finditer(rf"(?<![\w.>]){name}\s*,\s*{regex.escape(nargs)}\b", code, pos=b0, endpos=b1)):
            unit.leftover(b0, f"{args} is assigned and also passed on as an array: rewrite by hand", self.name)
            return True
        tuple_name = f"{args}_tuple"
        if regex.search(rf"\b{regex.escape(tuple_name)}\b", code[b0:b1]):
            unit.leftover(b0, f"{args} is assigned, and {tuple_name} is taken: rewrite by hand", self.name)
            return True
        indent = regex.search(r"\n([ \t]*)\S", unit.text[b0:b1])
        edits.add(b0 + 1, b0 + 1, f"\n{indent.group(1) if indent else '    '}Cystck_Object {tuple_name} = "
                  f"CystckTuple_FromArray(S, {args}, {nargs});")
        # its null tests (the null-handles rule has run: args was an array)
        tested = set()
        for m in regex.finditer(rf"(?<![\w.>]){name}\s*(?P<op>==|!=)\s*(?:NULL|nullptr|0(?![\w.]))"
                                rf"|!\s*{name}\b(?!\s*(?:->|\[|\(|\.|=))", code, pos=b0, endpos=b1):
            edits.add(m.start(), m.end(), ("!" if m.group("op") == "!=" else "") + f"Cystck_IsNull({tuple_name})")
            tested.add(regex.compile(rf"{name}\b").search(code, m.start()).start())
        for m in regex.finditer(rf"(?<![\w.>]){name}\b", code, pos=b0, endpos=b1):
            if m.start() not in keyword_values and m.start() not in tested:
                edits.add(m.start(), m.end(), tuple_name)
        unit.note("cost", b0, f"{args} is assigned: used as a tuple, built with CystckTuple_FromArray", self.name)
        return True


# ---- Is a read of the argument tuple guarded by a test of its count? ----
# Conservative: a guard is recognised only where the read cannot be reached
# without passing the test; anything else (a jump or a directive between
# them, a count that changes, an index that is no literal or loop counter)
# keeps the checked read.

# The count of the argument tuple ``{a}`` in stock code (what args-access
# makes nargs).
_COUNT = r"\bPy(?:Tuple_GET_SIZE|Tuple_Size|Object_Length|Object_Size)\s*\(\s*{a}\s*\)"
# A write to the variable ``{v}``: an assignment, an increment, its address.
_WRITE = (r"(?<![\w.>]){v}\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|(?:\+\+|--)\s*{v}\b|(?<![\w.>]){v}\s*(?:\+\+|--)"
          r"|(?<![&\w)\]])&\s*{v}\b")
_INT_DECL = r"\b(?:Py_ssize_t|Cystck_ssize_t|ssize_t|size_t|int|long|unsigned|short)\b[^;{{}}()]*(?<![\w.>]){v}\b"
# A label or a case between a test and the read: another way in.
_LABEL = regex.compile(r"(?:^|(?<=[;{}:]))\s*(?:case\b[^;:]*|default|(?!else\b)[A-Za-z_]\w*)\s*:(?!:)")
_DIRECTIVE = regex.compile(r"^[ \t]*#", regex.M)
# A statement that leaves the function: a test whose branch is one guards
# what follows it.
_EXIT = r"(?:return\b[^;{}]*|goto\s+\w+\s*|Py_RETURN_\w+\s*(?:\(\s*\))?\s*);"
_EXIT_BLOCK = regex.compile(r"(?:^|(?<=[;{}]))\s*" + _EXIT + r"\s*$")
_EXIT_STATEMENT = regex.compile(r"\s*" + _EXIT + r"\s*")
_COMPARISON = regex.compile(r"(?P<l>[^<>=!]+?)\s*(?P<op><=|>=|==|!=|<(?!<)|>(?!>))\s*(?P<r>[^<>=!]+)")
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def _count_guarded(code, b0, b1, at, args, index):
    """Does a test of the count of the argument tuple ``args`` guard the
    read ``PyTuple_GetItem(args, index)`` at ``at`` (masked ``code``, the
    function's body ``b0``..``b1``), so that it cannot be out of range?
    With ``index`` a literal k, the count is known to be above k:

    * after ``if (C) exit`` in the same block or one around it, where C
      false says so (``n < 2``, ``n != 2``, ``!n`` in C or one of its
      ``||`` terms) and exit is ``return``, ``goto`` or a block that ends
      with one (the test a statement of its own: no ``else if``);
    * inside ``if (C) ...`` where C says so (``n > 1``, ``n == 2``, ``n``,
      in one of its ``&&`` terms), or in the ``else`` of a C that denies it;

    with ``index`` a variable i: inside ``for (i = k; i < n; i++)`` whose
    body does not write i.  n is the count (``PyTuple_GET_SIZE(args)``,
    ``PyTuple_Size``...) or a local integer set to it once and never
    written again.  No label, case or preprocessor directive may lie
    between the test and the read."""
    index = index.strip()
    k = int(index) if regex.fullmatch(r"\d+", index) else None
    var = index if regex.fullmatch(r"[A-Za-z_]\w*", index) else None
    if k is None and var is None:
        return False
    count = _COUNT.format(a=regex.escape(args))
    aliases = []         # (position, name): locals set to the count once
    for m in regex.finditer(rf"(?<![\w.>])([A-Za-z_]\w*)\s*=\s*(?:\(\s*\w+\s*\)\s*)?(?:{count})\s*[;,]",
                            code, pos=b0, endpos=b1):
        v = regex.escape(m.group(1))
        if len(regex.findall(_WRITE.format(v=v), code[b0:b1])) == 1 \
                and regex.search(_INT_DECL.format(v=v), code[b0:b1]):
            aliases.append((m.start(), m.group(1)))

    def size(before):
        return "(?:" + "|".join([count] + [rf"(?<![\w.>]){regex.escape(n)}\b" for p, n in aliases
                                           if p < before]) + ")"

    def clean(start):
        between = code[start:at]
        return not _LABEL.search(between) and not _DIRECTIVE.search(between)

    for m in regex.finditer(r"(?<![\w.>])(if|for)\s*\(", code, pos=b0, endpos=at):
        close = source.matching(code, m.end() - 1)
        if m.group(1) == "for":
            if var is not None and _loop_guards(code, m.end(), close, at, b1, size(m.start()), var) \
                    and clean(close):
                return True
            continue
        if k is None:
            continue
        then = _statement_span(code, close, b1)
        if then is None:
            continue
        other = regex.compile(r"\s*else\b").match(code, then[1])
        orelse = _statement_span(code, other.end(), b1) if other else None
        if other and orelse is None:
            continue
        cond = code[m.end():close - 1]
        if then[0] <= at < then[1]:
            bound = _bound(cond, size(m.start()), True)
            start = then[0]
        elif orelse and orelse[0] <= at < orelse[1]:
            bound = _bound(cond, size(m.start()), False)
            start = orelse[0]
        elif (orelse or then)[1] <= at and _exits(code, then) and _statement_of_block(code, b0, m.start(), at):
            bound = _bound(cond, size(m.start()), False)
            start = then[1]
        else:
            continue
        if bound is not None and k < bound and clean(start):
            return True
    return False


def _loop_guards(code, open_end, close, at, b1, size, var):
    """Is ``at`` in the body of the ``for`` loop whose header is
    ``code[open_end:close - 1]``, ``for (var = k; var < n; var++)`` with k
    a literal, n matching ``size``, a body that does not write var?"""
    parts = source.split_top(code, open_end, close - 1, ";")
    if len(parts) != 3:
        return False
    init, cond, step = (code[s:e].strip() for s, e in parts)
    v = regex.escape(var)
    if not regex.fullmatch(rf"(?:[A-Za-z_][\w\s]*\s)?{v}\s*=\s*\d+", init) \
            or not regex.fullmatch(rf"\+\+\s*{v}|{v}\s*\+\+|{v}\s*\+=\s*1", step):
        return False
    if not any(regex.fullmatch(rf"{v}\s*<\s*{size}|{size}\s*>\s*{v}", source.unparen(term))
               for term in _split_op(cond, "&&")):
        return False
    body = _statement_span(code, close, b1)
    return body is not None and body[0] <= at < body[1] \
        and not regex.search(_WRITE.format(v=v), code[body[0]:body[1]])


def _statement_span(code, pos, limit):
    """(start, end) of the statement at ``pos`` (blanks skipped), as
    ``source.statement_end`` reads it; None for one not ended before
    ``limit``."""
    s = source.skip_blank(code, pos, limit)
    e = source.statement_end(code, s, limit)
    return None if e is None else (s, e)


def _exits(code, span):
    """Does the statement ``code[span]`` always leave the function (a
    ``return``/``goto``, or a block whose last statement is one)?"""
    s, e = span
    if code[s] == "{":
        return bool(_EXIT_BLOCK.search(code[s:e - 1]))
    return bool(_EXIT_STATEMENT.fullmatch(code[s:e]))


def _statement_of_block(code, b0, start, at):
    """Is the ``if`` at ``start`` a statement of its own (after ``;``, a
    brace or a label: no ``else if``, no loop's body) in a block that holds
    ``at`` too?"""
    before = code[b0:start].rstrip()
    if not before or before[-1] not in ";{}:":
        return False
    depth, opened = 0, b0
    for i in range(start - 1, b0 - 1, -1):        # the block around the if
        c = code[i]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth == 0:
                opened = i
                break
            depth -= 1
    return source.matching(code, opened) > at



def _split_op(s, op):
    """The terms of ``s`` joined by ``op`` (``&&``, ``||``) at depth zero."""
    return [s[a:b] for a, b in source.split_top(s, 0, len(s), op)]


def _bound(cond, size, truth):
    """A k such that the count (``size``, a pattern) is at least k when the
    condition ``cond`` is ``truth``, or None if it does not say."""
    cond = source.unparen(cond)
    for op, join in (("||", min if truth else max), ("&&", max if truth else min)):
        terms = _split_op(cond, op)
        if len(terms) > 1:
            bounds = [_bound(t, size, truth) for t in terms]
            if join is min:            # every term must say it
                return None if None in bounds else min(bounds)
            known = [b for b in bounds if b is not None]
            return max(known) if known else None
    if "?" in cond:
        return None
    if cond.startswith("!") and not cond.startswith("!="):
        return _bound(cond[1:], size, not truth)
    if regex.fullmatch(size, cond):
        return 1 if truth else None
    m = _COMPARISON.fullmatch(cond)
    if m is None:
        return None
    left, op, right = source.unparen(m.group("l")), m.group("op"), source.unparen(m.group("r"))
    if regex.fullmatch(size, right) and regex.fullmatch(r"\d+", left):
        left, op, right = right, _FLIP[op], left
    if not (regex.fullmatch(size, left) and regex.fullmatch(r"\d+", right)):
        return None
    c = int(right)
    if not truth:
        op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}[op]
    return {">": c + 1, ">=": c, "==": c, "!=": 1 if c == 0 else None}.get(op)


# Format units a typed definition takes (docs/typed.md): the C type the
# output variable must have and the type tag.
_TYPED_UNITS = {"l": ("long", "LONG"), "L": ("long long", "LONGLONG"), "n": ("Py_ssize_t", "SSIZE"),
                "i": ("int", "INT"), "p": ("int", "BOOL"), "d": ("double", "DOUBLE"),
                "s": ("const char *", "STR")}
# Boxing calls a typed result replaces: the tag and the C result type.
_TYPED_RESULTS = {"PyLong_FromLong": ("LONG", "long"), "PyLong_FromLongLong": ("LONGLONG", "long long"),
                  "PyLong_FromSsize_t": ("SSIZE", "Py_ssize_t"), "PyFloat_FromDouble": ("DOUBLE", "double"),
                  "PyBool_FromLong": ("BOOL", "int")}
_C_TYPE = r"(?P<t>long\s+long|long|int|double|Py_ssize_t|const\s+char\s*\*)"
_LITERAL = r"-?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)|\"[^\"\\]*\""
_TYPED_BODY = regex.compile(
    r"\{\s*(?:static\s+(?:const\s+)?char\s*\*\s*(?P<kwl>\w+)\s*\[\s*\]\s*=\s*\{(?P<names>[^{}]*)\}\s*;\s*)?"
    r"(?P<decls>(?:(?:long\s+long|long|int|double|Py_ssize_t|const\s+char\s*\*)\s*[^;{}()]*;\s*)*)"
    r"if\s*\(\s*!\s*PyArg_(?P<k>ParseTupleAndKeywords|ParseTuple)\s*\((?P<call>[^;{}]*)\)\s*\)\s*"
    r"(?:\{\s*return\s+NULL\s*;\s*\}|return\s+NULL\s*;)\s*"
    r"return\s+(?P<box>\w+)\s*\((?P<expr>[^;{}]*)\)\s*;\s*\}")


def _typed_decls(decls):
    """{variable: (C type, initialiser or None)} of declarations like
    ``long a, b = 0;``, or None if one is not that simple."""
    out = {}
    for stmt in decls.split(";")[:-1]:
        m = regex.fullmatch(r"\s*" + _C_TYPE + r"\s*(?P<rest>.*)", stmt, flags=regex.S)
        if not m:
            return None
        base = regex.sub(r"\s+", " ", m.group("t")).replace(" *", " *")
        for part in m.group("rest").split(","):
            d = regex.fullmatch(r"\s*(?P<star>\*?)\s*(?P<n>\w+)\s*(?:=\s*(?P<v>" + _LITERAL + r"|NULL))?\s*",
                                part)
            if not d or d.group("n") in out or (d.group("star") and base != "const char *"):
                return None
            out[d.group("n")] = ("const char *" if base.startswith("const char") else base, d.group("v"))
    return out


def typed_definition(params, body_text, keywords):
    """The typed form of an entry point whose whole argument handling is one
    PyArg_ParseTuple(AndKeywords) with simple units and whose result is one
    boxing call: (new function text pieces, CYSTCK_DEF_TYPED arguments), or
    None when the function is not of that shape."""
    m = _TYPED_BODY.fullmatch(body_text)
    if not m or (m.group("k") == "ParseTupleAndKeywords") != keywords or m.group("box") not in _TYPED_RESULTS:
        return None
    decls = _typed_decls(m.group("decls"))
    call = [a.strip() for a in m.group("call").split(",")]
    if decls is None or len(call) < 2:
        return None
    args_name, self_name = params[1].name, params[0].name
    head = [args_name] + ([params[2].name] if keywords else [])
    if call[:len(head)] != head:
        return None
    fmt = regex.fullmatch(r"\"(?P<units>[lLnipds|]*):(?P<name>\w+)\"", call[len(head)])
    rest = call[len(head) + 1:]
    if not fmt:
        return None
    if keywords:
        if not rest or rest[0] != m.group("kwl"):
            return None
        rest = rest[1:]
    units = fmt.group("units")
    codes = units.replace("|", "")
    if units.count("|") > 1 or units.endswith("|") or not codes or len(codes) > 8 or len(rest) != len(codes):
        return None
    outs = [regex.fullmatch(r"&\s*(\w+)", a) for a in rest]
    if not all(outs) or sorted(o.group(1) for o in outs) != sorted(decls):
        return None
    names = [n.strip() for n in (m.group("names") or "").split(",")]
    if keywords and (names[-1] not in ("NULL", "0") or len(names) - 1 != len(codes)
                     or not all(regex.fullmatch(r'"\w+"', n) for n in names[:-1])):
        return None
    expr = m.group("expr").strip()
    for ident in regex.findall(r"\b[A-Za-z_]\w*\b", expr):
        if ident.startswith(("Py", "_Py")) or ident in (self_name, args_name) or ident in head:
            return None
    nrequired = units.index("|") if "|" in units else len(units)
    spec = []
    for i, (code, out) in enumerate(zip(codes, outs)):
        var = out.group(1)
        ctype, tag = _TYPED_UNITS[code]
        vtype, init = decls[var]
        if vtype != ctype:
            return None              # a wrong output type: leave it for a human (and the compiler)
        pyname = names[i].strip('"') if keywords else var
        if i >= nrequired:
            if init is None or init == "NULL" or (code == "s") != init.startswith('"'):
                return None
            spec.append(f"CYSTCK_OPT({tag}, {pyname}, {init})")
        else:
            spec.append(f"CYSTCK_ARG({tag}, {pyname})")
    rtag, rtype = _TYPED_RESULTS[m.group("box")]
    c_params = ", ".join(["Cystck_State *S", f"Cystck_Object {self_name}"]
                         + [f"{decls[o.group(1)][0]}{'' if decls[o.group(1)][0].endswith('*') else ' '}{o.group(1)}"
                            for o in outs])
    if rtag == "BOOL":
        expr = f"({expr}) != 0"      # PyBool_FromLong took a long; the typed result is an int
    return {"ret_type": rtype, "params": c_params, "expr": expr, "pyname": fmt.group("name"),
            "macro": "CYSTCK_DEF_TYPED" if keywords else "CYSTCK_DEF_TYPED_POSONLY",
            "ret": rtag, "spec": spec, "renamed": [o.group(1) for o in outs]}


def _literal_doc(unit, func):
    """Is the doc of ``func``'s method-table entry in this file absent or a
    string literal?  (The typed definition puts its text signature in
    front of it.)"""
    code, text = unit.structure, unit.text
    for m in proj._DEF_PATTERNS["methods"].finditer(code):
        for it in proj.table_items(code, text, m):
            if not isinstance(it.value, list):
                continue
            f = cstruct.fields_of(it.value, proj.METHOD_FIELDS)
            if "ml_meth" in f and cstruct.strip_cast(f["ml_meth"].text or "") == func:
                doc = f["ml_doc"].text if "ml_doc" in f else None
                return doc in (None, "NULL", "0", "nullptr") or bool(
                    regex.fullmatch(r'(?:PyDoc_STR\s*\(\s*)?(?:"(?:[^"\\]|\\.)*"\s*)+\)?', doc.strip()))
    return False


class ParseIntoMembers(Rule):
    """An object member of an instance struct or of the module state, or
    an object global, given to the argument parser by address,
    ``PyArg_ParseTuple(args, "|O", &self->obj)``, is parsed into a local
    that the member takes after the statement: ``{ PyObject
    *cystck_parsed_1 = self->obj; if (!PyArg_ParseTuple(args, "|O",
    &cystck_parsed_1)) return NULL; self->obj = cystck_parsed_1; }``.  The
    member becomes a field (a global or a module state's member a
    ``Cystck_Ref``), which the parser cannot write (it writes a handle of
    the call there, used after the call returns); the local and the
    assignment are translated as any other.  Stock C means the same,
    except that a failing later unit no longer leaves the member half set.
    A call in a loop's header or a ``return`` is left alone (rare)."""
    name = "parse-into-members"
    precedence = 55
    patterns = (r"\bPyArg_(?:ParseTupleAndKeywords|ParseTuple|UnpackTuple|Parse)\s*\(",)
    before = ('typedef struct { PyObject_HEAD PyObject *obj; } Box;\n'
              'static int Box_init(Box *self, PyObject *args, PyObject *kw)\n{\n'
              '    if (!PyArg_ParseTuple(args, "|O", &self->obj))\n        return -1;\n'
              '    Py_XINCREF(self->obj);\n    return 0;\n}\n'
              'static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_basicsize = sizeof(Box),'
              ' .tp_init = (initproc)Box_init};\n')
    after = ('typedef struct { PyObject_HEAD PyObject *obj; } Box;\n'
             'static int Box_init(Box *self, PyObject *args, PyObject *kw)\n{\n'
             '    {\n        PyObject *cystck_parsed_1 = self->obj;\n'
             '        if (!PyArg_ParseTuple(args, "|O", &cystck_parsed_1))\n            return -1;\n'
             '        self->obj = cystck_parsed_1;\n    }\n'
             '    Py_XINCREF(self->obj);\n    return 0;\n}\n'
             'static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_basicsize = sizeof(Box),'
             ' .tp_init = (initproc)Box_init};\n')

    _MEMBER = regex.compile(r"\s*&\s*(?P<e>[A-Za-z_]\w*(?:\s*(?:->|\.)\s*\w+)*\s*(?:->|\.)\s*(?P<m>\w+))\s*")
    _GLOBAL = regex.compile(r"\s*&\s*(?P<e>(?P<g>[A-Za-z_]\w*))\s*")

    def apply(self, unit):
        members = {}
        for info in unit.project.types.values():
            for m in info.object_fields - info.object_arrays:
                members.setdefault(m, info.fields.get(m, "PyObject").strip() or "PyObject")
        fields = set(members)                 # an instance's: a field, loaded empty or not
        for m in unit.project.ref_fields:
            members.setdefault(m, "PyObject")
        globals_ = unit.project.globals
        if not members and not globals_:
            return 0
        code, text = unit.masked, unit.text
        edits = source.Edits()
        count = 0
        for ctx in _common.function_contexts(unit):
            b0, b1 = ctx.body
            done = set()
            for call in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                close = source.matching(code, call.end() - 1) - 1
                parsed = [(span, am) for span in source.split_top(code, call.end(), close)
                          if (am := self._parsed_object(code, span, members, globals_, ctx))]
                statement = self._statement(code, b0, b1, call.start())
                if not parsed or statement is None or statement in done:
                    continue
                done.add(statement)
                s0, s1 = statement
                indent = regex.match(r"[ \t]*", text, pos=text.rfind("\n", 0, s0) + 1).group()
                # a declaration's name must stay in scope: no block around it
                braced = not regex.match(r"(?:[\w\s\*]+\s)?\w+\s*=", code[s0:s1]) or \
                    _common.in_unbraced_body(code, s0)
                inner = indent + ("    " if braced else "")
                opening, closing, body = [], [], text[s0:s1]
                count += len(parsed)
                for k, (span, am) in reversed(list(enumerate(parsed))):
                    local = f"cystck_parsed_{count - len(parsed) + k + 1}"
                    expr = text[am.start("e"):am.end("e")]
                    member = am.groupdict().get("m")        # None for a global
                    base = members.get(member, "PyObject")
                    # a reference may be empty, which reading as a handle is not
                    value = expr if member in fields else f"{expr} ? {expr} : NULL"
                    opening.insert(0, f"{base} *{local} = {value};\n{inner}")
                    closing.insert(0, f"\n{inner}{expr} = {local};")
                    a0, a1 = am.start("e") - 1 - s0, am.end("e") - s0   # the '&' through the member
                    a0 = body.rindex("&", 0, a0 + 1)
                    body = body[:a0] + "&" + local + body[a1:]
                if braced:
                    body = body.replace("\n", "\n    ")
                    edits.add(s0, s1, "{\n" + inner + "".join(opening) + body + "".join(closing)
                              + "\n" + indent + "}")
                else:
                    edits.add(s0, s1, "".join(opening) + body + "".join(closing))
        if edits:
            unit.apply(edits)
        return edits.applied

    def _parsed_object(self, code, span, members, globals_, ctx):
        """The match of the argument at ``span`` where it is the address of
        an object member or of an object global (not shadowed by a local
        of the function), else None."""
        am = self._MEMBER.fullmatch(code, *span)
        if am:
            return am if am.group("m") in members else None
        gm = self._GLOBAL.fullmatch(code, *span)
        g = gm.group("g") if gm else None
        return gm if g in globals_ and g not in ctx.handles and g not in ctx.scoped else None

    @staticmethod
    def _statement(code, b0, b1, at):
        """The span of the ``if`` or expression statement (or declaration)
        of the block around ``at`` that holds it; None for a loop, a
        ``return`` or a ``switch``."""
        open_at = b0 + _common.open_brace_before(code[b0:], at - b0)
        end = source.matching(code, open_at) - 1     # at its closing brace
        i = source.skip_blank(code, open_at + 1, end)
        while i < end:
            j = source.statement_end(code, i, end)
            if j is None:
                return None
            if j > at:
                head = code[i:at]
                if regex.match(r"(?:while|for|do|switch|return|case|default)\b", code[i:j]) or \
                        regex.search(r"\b(?:while|for|switch|return)\b", head):
                    return None
                return (i, j)
            i = source.skip_blank(code, j, end)
        return None


class TypedEntry(Rule):
    """An entry point whose whole argument handling is one
    ``PyArg_ParseTuple``/``PyArg_ParseTupleAndKeywords`` call with simple
    units (``l L n i p d s``, optional ones with literal defaults, a
    ``:name`` that is the method's name) and whose result is ``return
    PyLong_FromLong(expr);`` (or ``PyLong_FromLongLong``,
    ``PyLong_FromSsize_t``, ``PyFloat_FromDouble``, ``PyBool_FromLong``)
    becomes a typed method (docs/typed.md): the outputs become C parameters,
    the body ``return expr;``, and its method-table entry a
    ``CYSTCK_DEF_TYPED`` (``_POSONLY`` for ``PyArg_ParseTuple``).  The
    expression may not use the API or the argument tuple; an output whose C
    type does not match its unit is left alone."""
    name = "typed-entry"
    precedence = 250
    patterns = (_TYPED_BODY.pattern,)
    before = ('static PyObject *\nscale(PyObject *self, PyObject *args, PyObject *kw)\n{\n'
              '    static char *kwlist[] = {"x", "k", NULL};\n    double x, k = 2.0;\n'
              '    if (!PyArg_ParseTupleAndKeywords(args, kw, "d|d:scale", kwlist, &x, &k))\n'
              '        return NULL;\n    return PyFloat_FromDouble(x * k);\n}\n'
              'static PyMethodDef m[] = {{"scale", (PyCFunction)scale, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n')
    after = ('static double\nscale(Cystck_State *S, Cystck_Object self, double x, double k)\n{\n'
             '    return x * k;\n}\n'
             'static PyMethodDef m[] = {{"scale", (PyCFunction)scale, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n')

    def apply(self, unit):
        p = unit.project
        code, text = unit.structure, unit.text
        edits = source.Edits()
        done = {}
        for f in unit.functions():
            role = p.role(f.name)
            if not f.is_definition or role is None or role.kind != "meth" \
                    or role.detail not in ("CYSTCK_VARARGS", "CYSTCK_KEYWORDS"):
                continue
            entries = [e for e in p.method_entries if e[3] == f.name]
            if len(entries) != 1 or "METH_FASTCALL" in entries[0][4] or proj.binding_flags(entries[0][4]) \
                    or not regex.search(r"\bstatic\b", code[f.start:f.name_start]):
                continue
            params = _common.parse_params(code, *f.params)
            keywords = role.detail == "CYSTCK_KEYWORDS"
            if len(params) != (3 if keywords else 2):
                continue
            t = typed_definition(params, text[f.body[0]:f.body[1]], keywords)
            if t is None or entries[0][2] != f'"{t["pyname"]}"' or not _literal_doc(unit, f.name):
                continue
            indent = regex.findall(r"\n([ \t]*)return\b", text[f.body[0]:f.body[1]])[-1]   # the result's
            edits.add(f.start, f.name_start, _replace_return_type(text[f.start:f.name_start], t["ret_type"]))
            edits.add(f.params[0], f.params[1], t["params"])
            edits.add(f.body[0], f.body[1], "{\n" + indent + "return " + t["expr"] + ";\n}")
            done[f.name] = t
        for f in unit.functions():
            if f.name in done and not f.is_definition:     # prototypes follow
                edits.add(f.start, f.name_start, _replace_return_type(text[f.start:f.name_start],
                                                                     done[f.name]["ret_type"]))
                edits.add(f.params[0], f.params[1], done[f.name]["params"])
        if edits:
            unit.apply(edits)
        for name, t in done.items():
            p.typed_methods[name] = t
            p.roles.pop(name, None)      # a plain C function from now on
        return len(done)


KWARGS_DICT_HELPER = "cystck_migrate_kwargs_dict"
#: The keywords of a CYSTCK_KEYWORDS call as the dict a stock METH_KEYWORDS
#: function was given, defined once in each file that needs it.
KWARGS_DICT_HELPER_DEFINITION = _common.helper_definition(KWARGS_DICT_HELPER, f"""
/* cystck-migrate: the keyword arguments of a CYSTCK_KEYWORDS call as a dict
 * (*kw holds their names, their values follow the nargs positional ones in
 * args), as a stock METH_KEYWORDS function gets them, into *kw: null
 * without any.  0, or -1 with an exception if the dict cannot be made. */
static inline int {KWARGS_DICT_HELPER}(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                                       Cystck_Object *kw)
{{
    Cystck_ssize_t i, n = Cystck_IsNull(*kw) ? 0 : CystckTuple_Size(S, *kw);
    Cystck_Object d;
    if (n <= 0) {{
        *kw = Cystck_NULL;
        return n < 0 ? -1 : 0;
    }}
    d = CystckDict_New(S);
    for (i = 0; !Cystck_IsNull(d) && i < n; i++)
        if (CystckDict_SetItem(S, d, CystckTuple_GetItem(S, *kw, i), args[nargs + i]) < 0)
            d = Cystck_NULL;
    *kw = d;
    return Cystck_IsNull(d) ? -1 : 0;
}}
""")


class KwargsDict(Rule):
    """A keywords method receives the names of its keyword arguments (a
    tuple, their values after the positional ones), not the dict of
    ``METH_KEYWORDS``: a method that only reads ``kw`` as a dict
    (``PyDict_Next(kw, ...)``, ``PyDict_Check(kw)``,
    ``PyArg_ValidateKeywordArguments(kw)``, the keyword arguments of
    ``PyObject_Call(f, a, kw)``, null tests) first makes
    the dict, ``if (cystck_migrate_kwargs_dict(S, args, nargs, &kw) < 0)
    return -1;`` (the helper, defined once after the Cystck.h include,
    fails with an exception if the dict cannot be made).  A method that passes ``kw``
    on (to ``CystckArg_ParseTupleAndKeywords``, to another method) is left
    alone (the keywords of ``Cystck_CallImplKw``/``Cystck_CallSlotKw``,
    which take names or a dict, count for neither); one that gives it to a stock function (through the escape hatch)
    or to a helper of the extension gives the dict, unless it was a stock
    ``METH_FASTCALL | METH_KEYWORDS`` method: its ``kw`` was the names
    already, and what it gives them to reads names."""
    name = "kwargs-dict"
    precedence = 870
    # the Cystck signature (kw the names) and the include its helper follows
    needs = ("include-header", "entry-signature")
    patterns = (r"\bCYSTCK_KEYWORDS\b",)
    before = ('#include <Python.h>\n'
              "static PyObject *f(PyObject *self, PyObject *args, PyObject *kw)\n{\n"
              "    return PyLong_FromLong(PyDict_Size(kw));\n}\n"
              'static PyMethodDef m[] = {{"f", (PyCFunction)f, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n')
    after = ('#include "Cystck.h"\n' + KWARGS_DICT_HELPER_DEFINITION +
             "static int f(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs, "
             "Cystck_Object kw)\n{\n    if (cystck_migrate_kwargs_dict(S, args, nargs, &kw) < 0)\n        return -1;\n"
             "    return PyLong_FromLong(PyDict_Size(kw));\n}\n"
             'static PyMethodDef m[] = {{"f", (PyCFunction)f, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n')

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx in _common.function_contexts(unit, with_locals=False):
            if ctx.role is None or ctx.role.detail != "CYSTCK_KEYWORDS" or not ctx.rewritten:
                continue
            b0, b1 = ctx.body
            kw, args, nargs = ctx.kw_name, ctx.args_name, ctx.nargs_name
            body = code[b0:b1]
            # a stock METH_FASTCALL method's kw was the names already: what
            # it gives kw to (a keyword parser of its own) reads names
            gives_dict = not ctx.role.stock_fastcall
            helpers = {name for name in regex.findall(r"(?<![\w.>])(\w+)\s*\(", body)
                       if unit.project.role(name) is None and unit.project.needs_state(unit.path, name)} \
                if gives_dict else set()
            if not kw or KWARGS_DICT_HELPER in body or not self._read_as_dict(body, kw, helpers, gives_dict):
                continue
            indent = regex.search(r"\n([ \t]*)\S", text[b0:b1])
            indent = indent.group(1) if indent else "    "
            step = "\t" if indent.startswith("\t") else "    "
            edits.add(b0 + 1, b0 + 1, f"\n{indent}if ({KWARGS_DICT_HELPER}(S, {args}, {nargs}, &{kw}) < 0)\n"
                      f"{indent}{step}return {_error_value(unit.project, ctx.func.name)};")
        if edits:
            _common.define_after_include(text, edits, KWARGS_DICT_HELPER_DEFINITION)
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _read_as_dict(body, kw, helpers=(), gives_dict=True):
        """Is ``kw`` used in ``body``, and only as the dict of a dict call,
        of a stock function (through the escape hatch, if ``gives_dict``),
        or of a helper of the extension (not an entry point), or in a null
        test?  (Passed on to a parser or another method, it must stay the
        names.)"""
        uses = list(regex.finditer(rf"(?<![\w.>]){kw}\b", body))
        # (a dict call, or the check of a dict's keys, ValidateKeywordArguments,
        # or the keyword arguments of a call, CystckObject_Call's fourth)
        dict_arg = regex.compile(r"(?:(?:Dict_\w+|Arg_ValidateKeywordArguments)\s*\(\s*(?:S\s*,\s*)?"
                                 r"|\bCystckObject_Call\s*\(\s*S\s*(?:,(?:[^,;(){}]|\([^;(){}]*\))*){2},\s*"
                                 r"|\bCystck_IsNull\s*\(\s*"
                                 + (r"|\bCystck_AsPyObject\s*\(\s*S\s*,\s*" if gives_dict else "") +
                                 r"|[!(]\s*|&&\s*|\|\|\s*)$")
        null_test = regex.compile(r"\s*(?:[!=]=\s*(?:NULL|0|Cystck_NULL)\b|&&|\|\||\))")

        def helper_arg(at):
            # the arguments before it may hold calls of their own
            # (``helper(S, Obj_AsStruct(S, self)->id, kw)``)
            call = _common.call_of_argument(body, at)
            return call is not None and call[0] in helpers and \
                regex.match(r"\w+\s*\(\s*S\s*,", body[call[1]:]) is not None

        # the keywords of a direct call of a keyword implementation, which
        # takes the names (and the caller's array) or a dict alike: a dict
        # if the method makes one for its other uses
        direct = regex.compile(r"\bCystck_Call(?:Impl|Slot)Kw\s*\(\s*S\s*(?:,(?:[^,;(){}]|\([^;(){}]*\))*){5},\s*$")
        passed = [u for u in uses if direct.search(body[max(0, u.start() - 300):u.start()])
                  and regex.match(r"\s*\)", body[u.end():])]
        uses = [u for u in uses if u not in passed]
        return bool(uses) and all((dict_arg.search(body[max(0, u.start() - 160):u.start()]) or helper_arg(u.start())) and
                                  (regex.match(r"\s*[,)]", body[u.end():]) or null_test.match(body[u.end():]))
                                  for u in uses)
