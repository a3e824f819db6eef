"""Arguments of entry points: the argument tuple is now an array of handles
with its length (``args``, ``nargs``)."""
import regex

from .. import source
from ..engine import Rule
from . import _common


class ParseArgs(Rule):
    """``PyArg_ParseTuple(args, fmt, ...)`` becomes
    ``CystckArg_ParseTuple(S, args, nargs, fmt, ...)``,
    ``PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, ...)`` becomes
    ``CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, fmt, kwlist,
    ...)`` (the keyword list becomes ``const char *[]``, casts to ``char **``
    go, C++'s ``const_cast<char**>( kwlist )`` too; a line break after the
    opening parenthesis is kept), ``PyArg_UnpackTuple`` and
    ``_PyArg_NoKeywords`` likewise.  ``O``
    outputs are handles because their variables were declared as objects."""
    name = "parse-args"
    precedence = 650
    patterns = (r"\bPyArg_(?P<k>ParseTupleAndKeywords|ParseTuple|UnpackTuple)\s*\((?P<ws>\s*)(?P<a>\w+)\s*,",
                r"\b_PyArg_NoKeywords\s*\(",
                r"\(\s*char\s*\*\s*\*\s*\)\s*(?=\w)|\bconst_cast\s*<\s*char\s*\*\s*\*\s*>\s*\(\s*(?=\w+\s*\))",
                r"(?<!const\s+)\bchar\s*\*\s*(?P<n>\w+)\s*\[\s*\]\s*=")
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
        for ctx in _common.function_contexts(unit, with_locals=False):
            b0, b1 = ctx.body
            args, nargs = ctx.args_name, ctx.nargs_name
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                if args is None or m.group("a") != args:
                    unit.leftover(m.start(), f"PyArg_{m.group('k')} on {m.group('a')}, which is not the "
                                  "argument array of an entry point: unpack the tuple by hand", self.name)
                    continue
                ws = m.group("ws") if "\n" in m.group("ws") else " "
                edits.add(m.start(), m.end(), f"CystckArg_{m.group('k')}(S,{ws}{args}, {nargs},")
                if m.group("k") == "ParseTupleAndKeywords":
                    open_at = m.start() + code[m.start():m.end()].index("(")
                    close = source.matching(code, open_at)
                    parts = source.split_top(code, open_at + 1, close - 1)
                    if len(parts) >= 4:
                        kwlists.add(regex.sub(r"^(?:\(\s*char\s*\*\s*\*\s*\)|const_cast\s*<\s*char\s*\*\s*\*\s*>)"
                                              r"\s*\(?\s*(\w+)\s*\)?$", r"\1", code[parts[3][0]:parts[3][1]].strip()))
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
        if edits:
            unit.apply(edits)
        return edits.applied


class ArgsAccess(Rule):
    """Inside an entry point the argument tuple is an array:
    ``PyTuple_GET_SIZE(args)``/``PyTuple_Size(args)`` become ``nargs``,
    ``PyTuple_GET_ITEM(args, i)``/``PyTuple_GetItem(args, i)`` become
    ``args[i]``, and any other use of ``args`` as an object is given a real
    tuple with ``CystckTuple_FromArray(S, args, nargs)`` (reported: it costs
    an allocation).  A ``METH_FASTCALL`` method's ``args`` is an array in
    stock code too, so it stays one (passed to a macro or a helper)."""
    name = "args-access"
    precedence = 655
    patterns = (r"\bPy(?:Tuple_GET_SIZE|Tuple_Size|Object_Length|Object_Size)\s*\(\s*(?P<a>\w+)\s*\)",
                r"\bPyTuple_(?:GET_ITEM|GetItem)\s*\(\s*(?P<a>\w+)\s*,\s*(?P<i>[^()]+?(?:\([^()]*\))?[^()]*?)\s*\)")
    before = ("static PyObject *f(PyObject *self, PyObject *args)\n{\n"
              "    if (PyTuple_GET_SIZE(args) != 1)\n        return NULL;\n"
              "    return g(PyTuple_GET_ITEM(args, 0), args);\n}\n"
              "static PyMethodDef m[] = {{\"f\", f, METH_VARARGS, NULL}, {NULL}};\n")
    after = ("static PyObject *f(PyObject *self, PyObject *args)\n{\n"
             "    if (nargs != 1)\n        return NULL;\n"
             "    return g(args[0], CystckTuple_FromArray(S, args, nargs));\n}\n"
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
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                if m.group("a") == args:
                    edits.add(m.start(), m.end(), nargs)
            for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
                if m.group("a") == args:
                    edits.add(m.start(), m.end(), f"{args}[{text[m.start('i'):m.end('i')].strip()}]")
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
