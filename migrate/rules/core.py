"""Core rules: the header, constants, exceptions, API calls with the state
inserted (paper rule 8) and values that escape into globals."""
import regex

from .. import api, cstruct, macros, project as proj, source
from ..engine import Rule
from . import _common, escape


class IncludeHeader(Rule):
    """``#include <Python.h>`` becomes ``#include "Cystck.h"``; the
    ``structmember.h`` include is dropped (Cystck.h provides members).

    Cystck.h includes Python.h itself, so stock types that involve no object
    (``Py_ssize_t``, ``Py_buffer``) keep compiling."""
    name = "include-header"
    precedence = 100
    patterns = (r'^[ \t]*#[ \t]*include[ \t]*[<"]Python\.h[>"]',
                r'^[ \t]*#[ \t]*include[ \t]*[<"]structmember\.h[>"][ \t]*\n?')
    before = '#include <Python.h>\n#include "structmember.h"\nint x;\n'
    after = '#include "Cystck.h"\nint x;\n'

    def apply(self, unit):
        # Match on the real text (the mask blanks "file names"), keeping
        # only directives that are code, not commented out.
        edits = source.Edits()
        first = True
        for pat in (self.patterns[1], self.patterns[0]):
            for m in regex.finditer(pat, unit.text, regex.M):
                hash_at = unit.text.index("#", m.start())
                if unit.masked[hash_at] != "#":
                    continue
                if pat is self.patterns[1]:
                    edits.add(m.start(), m.end(), "")
                else:
                    edits.add(m.start(), m.end(), '#include "Cystck.h"' if first else "")
                    first = False
        if edits:
            unit.apply(edits)
        return edits.applied


#: An argument that casts to PyObject *: ``(PyObject *)(t)``.
_OBJECT_CAST = regex.compile(r"\s*(?P<c>\(\s*PyObject\s*\*\s*\)\s*)(?=[\w(])")


class Constants(Rule):
    """``Py_None``, ``Py_True``, ``Py_False``, ``Py_NotImplemented`` and
    ``Py_Ellipsis`` become the permanent handles ``Cystck_None``...; the
    builtin types (``&PyLong_Type``, ``(PyObject *)&PyFloat_Type``) become
    ``CystckLong_Type``...; ``PyExc_X`` becomes ``CystckExc_X`` (an alias,
    ``PyExc_IOError``, the constant of the exception it names,
    ``CystckExc_OSError``).  Only
    constants that Cystck.h defines are rewritten; others are left-overs,
    except a builtin type without a handle used in a function that has the
    state: it gets one through the escape hatch,
    ``Cystck_FromPyObject(S, (PyObject *)&PyFunction_Type)`` (marked and
    reported).  A function without the state (a destructor) keeps CPython's
    constants: its calls of the API are stock calls."""
    name = "constants"
    precedence = 800
    patterns = (r"\bPy_(None|True|False|NotImplemented|Ellipsis)\b",
                r"(?:\(\s*PyObject\s*\*\s*\)\s*)?&\s*Py(\w+)_Type\b",
                r"\bPyExc_(\w+)\b")
    before = "static int f(PyObject *o) { return o == Py_None || PyObject_TypeCheck(o, &PyFloat_Type) || PyErr_ExceptionMatches(PyExc_KeyError); }\n"
    after = "static int f(PyObject *o) { return o == Cystck_None || PyObject_TypeCheck(o, CystckFloat_Type) || PyErr_ExceptionMatches(CystckExc_KeyError); }\n"

    def apply(self, unit):
        consts = api.header_constants()

        def single(m, text):
            new = "Cystck_" + m.group(1)
            return new if new in consts else None

        state_bodies = []          # computed when a type without a handle is met

        def in_state_body(pos):
            if not state_bodies:
                state_bodies.extend(ctx.body for ctx in _common.stateful_contexts(unit, with_locals=False))
            return any(b0 <= pos < b1 for b0, b1 in state_bodies)

        def typ(m, text):
            new = f"Cystck{m.group(1)}_Type"
            if new in consts:
                return new
            if escape.marked(text, m.start()):
                return None
            if in_state_body(m.start()):
                unit.leftover(m.start(), f"escape hatch: no Cystck handle for Py{m.group(1)}_Type: "
                              "given one with Cystck_FromPyObject", self.name)
                return f"Cystck_FromPyObject(S, {escape.MARK} (PyObject *)&Py{m.group(1)}_Type)"
            unit.leftover(m.start(), f"no Cystck handle for Py{m.group(1)}_Type", self.name)
            return None

        def exc(m, text):
            new = api.constant_aliases().get(m.group(0), "CystckExc_" + m.group(1))
            if new not in consts:
                unit.leftover(m.start(), f"no Cystck handle for PyExc_{m.group(1)}", self.name)
                return None
            return new
        # functions that stay stock (helpers reading object internals,
        # capsule destructors) keep CPython's constants: they have no S;
        # so do destructors (tp_dealloc without state), whose calls of the
        # API that could not move to a finalizer stay stock calls
        stock = _common.stock_bodies(unit) + [ctx.body for ctx in _common.function_contexts(unit, with_locals=False)
                                              if not ctx.has_state]

        def outside_stock(repl):
            return lambda m, text: None if any(b0 <= m.start() < b1 for b0, b1 in stock) else repl(m, text)
        n = unit.sub(self.patterns[0], outside_stock(single))
        n += unit.sub(self.patterns[1], outside_stock(typ))
        return n + unit.sub(self.patterns[2], outside_stock(exc))


class ConstantGetters(Rule):
    """``Py_GetConstant(Py_CONSTANT_NONE)`` (CPython 3.13, polyfilled for
    older versions by pythoncapi_compat.h) becomes ``Py_NewRef(Py_None)``
    and ``Py_GetConstantBorrowed(Py_CONSTANT_NONE)`` becomes ``Py_None``,
    their stock meaning, for ``None``, ``True``, ``False``, ``Ellipsis``
    and ``NotImplemented``: the rules after it then give them their
    permanent handle (``Cystck_None``...) as they do the stock spelling.
    ``Py_GetConstant`` of ``Py_CONSTANT_ZERO``, ``_ONE``,
    ``_EMPTY_STR``, ``_EMPTY_BYTES`` and ``_EMPTY_TUPLE`` (a new
    reference) becomes the stock call that makes that value
    (``PyLong_FromLong(0)``, ``PyUnicode_FromStringAndSize("", 0)``...),
    which the rules after it port.  ``Py_GetConstantBorrowed`` of those
    has no stock spelling that does not leak a reference and stays
    stock."""
    name = "constant-getters"
    precedence = 70
    patterns = (r"\bPy_GetConstant(?P<borrowed>Borrowed)?\s*\(\s*Py_CONSTANT_(?P<c>\w+)\s*\)",)
    before = ("static PyObject *f(PyObject *o) { if (o == Py_GetConstantBorrowed(Py_CONSTANT_TRUE)) "
              "return PyLong_FromLong(1); return Py_GetConstant(Py_CONSTANT_NONE); }\n")
    after = ("static PyObject *f(PyObject *o) { if (o == Py_True) "
             "return PyLong_FromLong(1); return Py_NewRef(Py_None); }\n")
    STOCK = {"NONE": "Py_None", "TRUE": "Py_True", "FALSE": "Py_False",
             "ELLIPSIS": "Py_Ellipsis", "NOT_IMPLEMENTED": "Py_NotImplemented"}

    NEW = {"ZERO": "PyLong_FromLong(0)", "ONE": "PyLong_FromLong(1)",
           "EMPTY_STR": 'PyUnicode_FromStringAndSize("", 0)',
           "EMPTY_BYTES": 'PyBytes_FromStringAndSize("", 0)', "EMPTY_TUPLE": "PyTuple_New(0)"}

    def apply(self, unit):
        def constant(m, text):
            name = self.STOCK.get(m.group("c"))
            if name is None:
                return None if m.group("borrowed") else self.NEW.get(m.group("c"))
            if m.group("borrowed"):
                return name
            return f"Py_NewRef({name})"
        return unit.sub(self.patterns[0], constant)


class ModuleMacroConstants(Rule):
    """``PyModule_AddIntMacro(m, NAME)`` and ``PyModule_AddStringMacro(m,
    NAME)`` are CPython macros for ``PyModule_AddIntConstant(m, "NAME",
    NAME)`` and ``PyModule_AddStringConstant(m, "NAME", NAME)``: they are
    written out so, and the rules after it port the function (the macro
    has no Cystck counterpart of its own; through the escape hatch it
    worked, lending the module).  A second argument that is no plain name
    (CPython stringifies any text) stays for the escape hatch."""
    name = "module-macro-constants"
    precedence = 72
    patterns = (r"\bPyModule_Add(?P<k>Int|String)Macro\s*\(",)
    before = ("#define LIMIT 10\n#define TAG \"t\"\n"
              "static int add(PyObject *m) { return PyModule_AddIntMacro(m, LIMIT) "
              "|| PyModule_AddStringMacro(m, TAG); }\n")
    after = ("#define LIMIT 10\n#define TAG \"t\"\n"
             "static int add(PyObject *m) { return PyModule_AddIntConstant(m, \"LIMIT\", LIMIT) "
             "|| PyModule_AddStringConstant(m, \"TAG\", TAG); }\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for m in regex.finditer(self.patterns[0], code):
            close = source.matching(code, m.end() - 1)
            args = source.split_top(code, m.end(), close - 1)
            if len(args) != 2 or not regex.fullmatch(r"\s*[A-Za-z_]\w*\s*", code[args[1][0]:args[1][1]]):
                continue
            name = code[args[1][0]:args[1][1]].strip()
            module = text[args[0][0]:args[0][1]].strip()
            edits.add(m.start(), close, f'PyModule_Add{m.group("k")}Constant({module}, "{name}", {name})')
        if edits:
            unit.apply(edits)
        return edits.applied


class GivenOccurredMatches(Rule):
    """``PyErr_GivenExceptionMatches(PyErr_Occurred(), E)`` becomes
    ``PyErr_ExceptionMatches(E)``, which CPython defines so.  Cystck's
    ``CystckErr_Occurred`` answers whether an exception is set, with no
    handle to its type, so the two-argument spelling has nothing to give
    as the first argument; the rules after it port the one-argument call.
    A given exception other than ``PyErr_Occurred()`` (a caught one, a
    parameter) stays as it is."""
    name = "given-occurred-matches"
    precedence = 71
    patterns = (r"\bPyErr_GivenExceptionMatches\s*\(\s*PyErr_Occurred\s*\(\s*\)\s*,\s*",)
    before = ("static int f(void) { return PyErr_GivenExceptionMatches(PyErr_Occurred(), "
              "PyExc_KeyError); }\n")
    after = "static int f(void) { return PyErr_ExceptionMatches(PyExc_KeyError); }\n"

    def apply(self, unit):
        return unit.sub(self.patterns[0], lambda m, text: "PyErr_ExceptionMatches(")


class _SlotReuse:
    """What the rules that reuse one handle's slot from item to item
    (``dict-next-into``, ``get-item-into``) check before rewriting: the
    target is a local of the function or a struct member that the file sets
    to NULL somewhere, and the function never copies it (``x = key``), takes
    its address elsewhere, assigns it anything but NULL, INCREFs, DECREFs,
    CLEARs or drops it, nor passes it to a function that steals a
    reference."""
    NULLS = ("NULL", "0", "nullptr", "Cystck_NULL")
    # (the decref rule, which runs first, has made Py_DECREF(key) a
    # Cystck_Drop(S, key) by now: the state argument stands before the name)
    REFCOUNT = regex.compile(r"\b(?:Py_X?(?:INC|DEC)REF|Py_CLEAR|Py_X?NewRef|Py_X?SETREF|Cystck_Drop"
                             r"|Cystck_Dup)\s*\(\s*(?:S\s*,\s*)?$")
    LVALUE = r"[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*"

    def __init__(self, unit, func):
        self.unit = unit
        self.masked, self.code = unit.masked, unit.structure
        self.b0, self.b1 = func.body
        self.dpat = _common.decl_pattern(unit.project.custom_structs)
        steals = api.consuming()
        stealing = sorted({f.stock for f in api.table() if f.name in steals and f.stock})
        self.steal_spans = []
        if stealing:
            for sm in regex.finditer(r"\b(?:" + "|".join(map(regex.escape, stealing)) + r")\s*\(",
                                     self.masked, pos=self.b0, endpos=self.b1):
                self.steal_spans.append((sm.end(), source.matching(self.masked, sm.end() - 1)))

    def check(self, lv, own, at):
        """None if ``lv`` may not be reused in place; else the initializers
        to add ({position: text}, empty when none is needed).  ``own`` is the
        span of the rewritten statement or call (its use of ``lv`` is
        fine), ``at`` where it starts."""
        masked, code, b0, b1 = self.masked, self.code, self.b0, self.b1
        parts = regex.split(r"\s*(?:->|\.)\s*", lv)
        inits = {}
        if len(parts) == 1:
            decl = self._declaration(at, lv)
            if decl is None:
                return None           # a parameter or a global: not ours to reuse
            base, d = decl
            if d.init is not None:
                if code[d.init[0]:d.init[1]].strip() not in self.NULLS:
                    return None
            else:
                s, e = d.span
                pos = s + regex.search(rf"\b{regex.escape(lv)}\b", code[s:e]).end()
                inits[pos] = " = Cystck_NULL" if "Cystck_Object" in base else " = NULL"
            pat = regex.compile(_common.names_re([lv]))
        else:
            if not regex.search(rf"(?:->|\.)\s*{regex.escape(parts[-1])}\s*=\s*(?:NULL|0|nullptr"
                                r"|Cystck_NULL)\b", masked):
                return None           # never set to NULL: it may hold garbage
            pat = regex.compile(r"(?<![\w.>])" + r"\s*(?:->|\.)\s*".join(map(regex.escape, parts)) + r"\b")
        for u in pat.finditer(masked, b0, b1):
            if own[0] <= u.start() < own[1]:
                continue
            before = masked[b0:u.start()].rstrip()
            if before.endswith("&") and not before.endswith("&&"):
                return None
            if regex.search(r"(?<![=!<>])=\s*(?:\([^()]*\)\s*)?$", before):
                return None           # copied: x = key
            if self.REFCOUNT.search(before):
                return None
            a = regex.match(r"\s*=(?!=)\s*(?P<rhs>[^;]*);", masked[u.end():b1])
            if a and a.group("rhs").strip() not in self.NULLS:
                return None
            if any(s <= u.start() < e for s, e in self.steal_spans):
                return None
        return inits

    def _declaration(self, at, name):
        """The last declaration of local ``name`` before ``at``: (base type
        text, Declarator), or None."""
        from .. import cstruct
        code, found = self.code, None
        for m in self.dpat.finditer(code, self.b0, at):
            parsed = cstruct.split_declaration(code, m.start("decl"), m.end("decl"))
            if not parsed:
                continue
            base_end, decls = parsed
            for d in decls:
                if d.name == name and d.pointer in ("*", "") and not d.array:
                    found = (code[m.start("decl"):base_end], d)
        return found


    @classmethod
    def matches(cls, unit, pattern):
        """(checker, match) for each match of the compiled ``pattern`` on
        the masked text inside a function body; one checker a function,
        made at its first match."""
        for f in unit.functions():
            if not f.is_definition:
                continue
            reuse = None
            for m in pattern.finditer(unit.masked, f.body[0], f.body[1]):
                reuse = reuse or cls(unit, f)
                yield reuse, m

    @staticmethod
    def add_initializers(edits, added, init):
        """Add the ``= NULL`` initializers of ``init`` (position -> text)
        to ``edits``: each declaration once, however many rewrites of the
        file ask for it (``added`` keeps those already added)."""
        for pos, new in init.items():
            if pos not in added:
                added[pos] = new
                edits.add(pos, pos, new)


class DictNextInto(Rule):
    """``PyDict_Next(d, &pos, &key, &value)`` becomes
    ``CystckDict_NextInto(S, d, &pos, &key, &value)``: each item's key and
    value replace the objects in the same two slots and both are released
    at the end, so a dict loop holds two handles whatever the dict's size
    (``CystckDict_Next``, the plain rename, makes two new handles per item
    that live until the call returns).  NextInto reads ``key``/``value``,
    so a local declared without an initializer gets ``= NULL``.

    Only where the slot reuse cannot be seen: each output is ``NULL``, a
    local variable of the function, or a struct member (``&tc->value``)
    that the file sets to NULL somewhere; and the function neither copies
    it (``x = key``), takes its address elsewhere, assigns it anything but
    NULL, INCREFs/DECREFs/CLEARs it, nor passes it to a function that steals
    a reference.  Otherwise the call is left to ``api-calls``."""
    name = "dict-next-into"
    precedence = 845
    patterns = (r"\bPyDict_Next\s*\(",)
    before = ("static int f(PyObject *d)\n{\n    PyObject *key, *value;\n    Py_ssize_t pos = 0;\n"
              "    while (PyDict_Next(d, &pos, &key, &value)) {\n        if (g(key, value) < 0)\n"
              "            return -1;\n    }\n    return 0;\n}\n")
    after = ("static int f(PyObject *d)\n{\n    PyObject *key = NULL, *value = NULL;\n    Py_ssize_t pos = 0;\n"
             "    while (CystckDict_NextInto(S, d, &pos, &key, &value)) {\n        if (g(key, value) < 0)\n"
             "            return -1;\n    }\n    return 0;\n}\n")

    def apply(self, unit):
        masked = unit.masked
        edits = source.Edits()
        inits = {}
        n = 0
        for reuse, m in _SlotReuse.matches(unit, regex.compile(self.patterns[0])):
            open_at = m.end() - 1
            close = source.matching(masked, open_at)
            args = source.split_top(masked, open_at + 1, close - 1)
            if len(args) != 4:
                continue
            plan = {}
            for s, e in args[2:]:
                arg = masked[s:e].strip()
                if arg in _SlotReuse.NULLS:
                    continue
                lv = regex.fullmatch(r"&\s*(?P<lv>" + _SlotReuse.LVALUE + ")", arg)
                init = reuse.check(lv.group("lv"), (open_at, close), m.start()) if lv else None
                if init is None:
                    break
                plan.update(init)
            else:
                edits.add(m.start(), m.end(), "CystckDict_NextInto(S, ")
                _SlotReuse.add_initializers(edits, inits, plan)
                n += 1
        if edits:
            unit.apply(edits)
        return n


class GetItemInto(Rule):
    """A statement ``item = PyList_GET_ITEM(l, i);`` (or
    ``PyTuple_GET_ITEM``) becomes ``CystckList_GetItemInto(S, l, i,
    &item);``: each item replaces the previous one's object in the same
    slot, so a loop (or an iterator's ``tc->item`` member) holds one handle
    where ``CystckList_GET_ITEM`` makes a new one per item that lives until
    the call returns (a list longer than the handle limit fails).  A local
    declared without an initializer gets ``= NULL``.

    Same conditions as ``dict-next-into`` (a local, or a member the file
    sets to NULL; never copied, released, stolen or assigned anything else
    in the function); declarations with an initializer
    (``PyObject *item = PyList_GET_ITEM(l, i);``) are left to ``api-calls``."""
    name = "get-item-into"
    precedence = 846
    patterns = (_common.STMT_START + r"(?P<lead>[ \t]*)(?P<lv>" + _SlotReuse.LVALUE
                + r")\s*=\s*(?:\(\s*PyObject\s*\*\s*\)\s*)?Py(?P<t>List|Tuple)_GET_ITEM\s*" + _common.PAREN
                + r"\s*;",)
    before = ("static double f(PyObject *l)\n{\n    PyObject *item;\n    double total = 0;\n"
              "    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {\n"
              "        item = PyList_GET_ITEM(l, i);\n        total += PyFloat_AsDouble(item);\n    }\n"
              "    return total;\n}\n")
    after = ("static double f(PyObject *l)\n{\n    PyObject *item = NULL;\n    double total = 0;\n"
             "    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {\n"
             "        CystckList_GetItemInto(S, l, i, &item);\n        total += PyFloat_AsDouble(item);\n"
             "    }\n    return total;\n}\n")

    def apply(self, unit):
        text = unit.text
        edits = source.Edits()
        inits = {}
        n = 0
        for reuse, m in _SlotReuse.matches(unit, regex.compile(self.patterns[0], regex.M)):
            lv = text[m.start("lv"):m.end("lv")]
            init = reuse.check(regex.sub(r"\s+", "", lv), (m.start("lv"), m.end()), m.start("lv"))
            if init is None:
                continue
            args = text[m.start("p") + 1:m.end("p") - 1]
            edits.add(m.start("lv"), m.end(),
                      f"Cystck{m.group('t')}_GetItemInto(S, {args.strip()}, &{lv});")
            _SlotReuse.add_initializers(edits, inits, init)
            n += 1
        if edits:
            unit.apply(edits)
        return n


# An item array: PySequence_Fast_ITEMS(s), _PyTuple_ITEMS(t) (CPython's
# own spelling for a tuple), &PyList_GET_ITEM(l, 0), &PyTuple_GET_ITEM(t, 0).
_ITEMS = regex.compile(r"(?<![\w.>]|->)(?:(?P<f>PySequence_Fast_ITEMS|_PyTuple_ITEMS)\s*" + _common.PAREN
                       + r"|&\s*(?P<g>PyList_GET_ITEM|PyTuple_GET_ITEM)\s*" + source.paren("q") + ")")
# What reads item i of each kind of array: the stock macro (a handle per
# use once ported) and the runtime's getters that make no handle.
_ITEM_READS = {"PySequence_Fast_ITEMS": ("PySequence_Fast_GET_ITEM", "CystckSequence_Fast_GetItemAs"),
               "_PyTuple_ITEMS": ("PyTuple_GET_ITEM", "CystckTuple_GetItemAs"),
               "PyList_GET_ITEM": ("PyList_GET_ITEM", "CystckList_GetItemAs"),
               "PyTuple_GET_ITEM": ("PyTuple_GET_ITEM", "CystckTuple_GetItemAs")}
_UNBOXED = {"PyFloat_AsDouble": "Double", "PyLong_AsLong": "Long"}
_UNBOX_CALL = regex.compile(r"(?<![\w.>]|->)(?P<f>" + "|".join(_UNBOXED) + r")\s*\(\s*$")
_CLOSE = regex.compile(r"\s*\)")
_SPACE = regex.compile(r"\s*")
# A dereference right before a name (not a multiplication): ``(*p``, ``= *p``.
_DEREF = regex.compile(r"(?<![\w)\]*])\*\s*$")
_LOOP_OPEN = regex.compile(r"(?<![\w.>])(?:(?:for|while)\s*" + source.paren("h") + r"\s*|do\s*)(?=\{)")
_ASSIGN_AFTER = regex.compile(r"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|\s*(?:\+\+|--)")


class SequenceFastItems(Rule):
    """The item array of a ``PySequence_Fast`` result read by index is the
    sequence itself: a local ``PyObject **p = PySequence_Fast_ITEMS(s);``
    (or ``p = ...;`` once, ``s`` a variable) that is only indexed goes, and
    each ``p[i]`` (and ``PySequence_Fast_ITEMS(s)[i]``) becomes
    ``CystckSequence_Fast_GetItemAsDouble(S, s, i)`` (``...AsLong``) where
    it is the argument of ``PyFloat_AsDouble`` (``PyLong_AsLong``), which
    makes no handle, else ``PySequence_Fast_GET_ITEM(s, i)``, a handle per
    use that the api-calls rule ports (and that loop-release releases per
    iteration); ``*p`` is ``p[0]``.  A list's or tuple's own item array,
    ``&PyList_GET_ITEM(l, 0)``, ``&PyTuple_GET_ITEM(t, 0)`` or
    ``_PyTuple_ITEMS(t)``, is read the same way through the list's
    (tuple's) macro and getters, ``CystckList_GetItemAsDouble``...

    Only where the alias holds: ``p`` is assigned once and ``s`` not
    after it but after ``p``'s last mention (``Py_XDECREF(s); s = NULL;``
    on the way out, outside any loop around the reads, with no ``goto``
    back before them), and ``p`` appears only as ``p[i]`` or ``*p`` read
    (not written, not its address taken) or as the whole condition of an
    ``if`` testing it for NULL, which becomes a test of ``s``.  Any other item pointer from
    ``PySequence_Fast_ITEMS`` (walked with ``p++``, passed on, written
    through; a list's or tuple's array is spelled ``PySequence_Fast_ITEMS``
    there) stays a stock ``PyObject **`` (its declaration marked with
    the escape-hatch comment, which the declarations rule leaves alone,
    the call kept by escape-hatch; declared with objects, ``PyObject
    **p, *seq;``, it gets a declaration of its own after theirs): its items read as ``p[i]`` or ``*p``
    get a handle, ``Cystck_FromPyObject(S, p[i])`` (borrowed: the
    sequence keeps them), and the spot is reported; a write through it has
    no counterpart and is reported as it is."""
    name = "sequence-fast-items"
    precedence = 495
    patterns = (_ITEMS.pattern,)
    before = ("static double f(PyObject *seq, Py_ssize_t n)\n{\n    PyObject **items = PySequence_Fast_ITEMS(seq);\n"
              "    double t = 0;\n    for (Py_ssize_t i = 0; i < n; i++)\n"
              "        t += PyFloat_AsDouble(items[i]) + PyObject_Hash(items[i]);\n    return t;\n}\n")
    after = ("static double f(PyObject *seq, Py_ssize_t n)\n{\n"
             "    double t = 0;\n    for (Py_ssize_t i = 0; i < n; i++)\n"
             "        t += CystckSequence_Fast_GetItemAsDouble(S, seq, i) + "
             "PyObject_Hash(PySequence_Fast_GET_ITEM(seq, i));\n    return t;\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if not _ITEMS.search(code):
            return 0
        edits = source.Edits()
        n = 0
        for ctx in _common.stateful_contexts(unit):
            b0, b1 = ctx.body
            kept = set()
            for m in _ITEMS.finditer(code, b0, b1):
                if m.group("f"):
                    seq, kind = text[m.start("p") + 1:m.end("p") - 1].strip(), m.group("f")
                else:
                    args = source.split_top(code, m.start("q") + 1, m.end("q") - 1)
                    if len(args) != 2 or code[args[1][0]:args[1][1]].strip() != "0":
                        continue      # &PyList_GET_ITEM(l, k): the array from item k on
                    seq, kind = text[args[0][0]:args[0][1]].strip(), m.group("g")
                after = code[m.end():b1]
                if after.lstrip().startswith("[") and regex.fullmatch(r"\w+", seq):
                    # PySequence_Fast_ITEMS(s)[i], read
                    open_at = m.end() + len(after) - len(after.lstrip())
                    if not _ASSIGN_AFTER.match(code, source.matching(code, open_at)) \
                            and not regex.search(r"(?:&|\+\+|--)\s*$", code[max(b0, m.start() - 8):m.start()]):
                        n += self._index(unit, edits, m.start(), open_at, seq, kind)
                        continue
                alias = self._alias(code, m, b0, b1)
                if alias is None:
                    if kind != "PySequence_Fast_ITEMS":
                        # kept by escape-hatch, which reports it
                        edits.add(m.start(), m.end(), f"PySequence_Fast_ITEMS({seq})")
                        n += 1
                    continue
                name, decl, plain = alias
                if plain and regex.fullmatch(r"\w+", seq) and self._only_indexed(code, name, seq, m, decl, b0, b1):
                    self._drop(unit, edits, name, m, decl)
                    for u in regex.finditer(rf"(?<![\w.>]|->){name}\b", code[:b1], pos=m.end()):
                        deref = _DEREF.search(code, max(b0, u.start() - 8), u.start())
                        if deref:
                            n += self._read(unit, edits, deref.start(), u.end(), seq, kind, "0")
                        elif self._null_test(code, u.start(), u.end()):
                            edits.add(u.start(), u.end(), seq)
                            n += 1
                        else:
                            open_at = _SPACE.match(code, u.end()).end()
                            n += self._index(unit, edits, u.start(), open_at, seq, kind)
                    n += 1
                else:
                    if kind != "PySequence_Fast_ITEMS":
                        # a list's or tuple's item array is its PySequence_Fast_ITEMS
                        edits.add(m.start(), m.end(), f"PySequence_Fast_ITEMS({seq})")
                        n += 1
                    if name not in kept:
                        kept.add(name)
                        n += self._keep_stock(unit, edits, name, decl, m, b1)
        if edits:
            unit.apply(edits)
        return n

    @staticmethod
    def _alias(code, m, b0, b1):
        """(p, span of p's declaration statement, plain) when the call is
        the value of ``p = `` and ``p`` is a ``PyObject **`` local of this
        function, else None; ``plain``: the call is the whole value of a
        statement ``p = ...;`` of its own (after ``{``, ``}``, ``;`` or a
        label: dropping it leaves no ``if`` without a body, no comma
        expression cut) or of a declarator's initializer."""
        lhs = regex.search(r"(?<![\w.>]|->)(?P<v>[A-Za-z_]\w*)\s*=\s*$", code[max(b0, m.start() - 200):m.start()])
        if not lhs:
            return None
        name = lhs.group("v")
        lhs_at = max(b0, m.start() - 200) + lhs.start()
        d = regex.search(rf"(?:^|[{{;}}])\s*((?:const\s+)?PyObject\b(?:[^;{{}}]*?(?<![\w*]))?\*\s*(?:const\s*)?\*"
                         rf"\s*{cstruct.POINTER_QUALIFIERS}*{name}\b[^;{{}}]*;)",
                         code[b0:b1])
        if not d or code[b0 + d.start(1):b0 + d.end(1)].count("(") != code[b0 + d.start(1):b0 + d.end(1)].count(")"):
            return None
        decl = (b0 + d.start(1), b0 + d.end(1))
        ends = regex.compile(r"\s*[;,]" if decl[0] <= m.start() < decl[1] else r"\s*;").match(code, m.end())
        if decl[0] <= m.start() < decl[1]:
            plain = bool(ends) and regex.search(r"\*\s*$", code[max(b0, lhs_at - 8):lhs_at]) is not None
        else:
            plain = bool(ends) and regex.search(r"(?:^|[{};:])\s*$", code[max(b0, lhs_at - 64):lhs_at]) is not None \
                and not regex.search(r"\b(?:else|do)\s*$", code[max(b0, lhs_at - 64):lhs_at]) \
                and not regex.search(r"\?[^;{}]*:\s*$", code[max(b0, lhs_at - 200):lhs_at])
        return name, decl, plain

    @staticmethod
    def _only_indexed(code, name, seq, m, decl, b0, b1):
        """Is ``name`` set once (by ``m``) and only read as ``name[i]``
        after it, and ``seq`` never assigned after ``m``?"""
        from .. import cstruct
        parsed = cstruct.split_declaration(code, decl[0], decl[1] - 1)
        if not parsed:
            return False
        mine = [d for d in parsed[1] if d.name == name]
        if len(mine) != 1 or mine[0].pointer not in ("**", "*const*") or mine[0].array:
            return False
        declared_at = regex.compile(rf"(?<!\w){name}\b").search(code, mine[0].span[0]).start()
        last = m.end()
        for u in regex.finditer(rf"(?<![\w.>]|->){name}\b", code[:b1], pos=b0):
            before = code[max(b0, u.start() - 8):u.start()]
            if u.start() == declared_at or code[u.end():m.start()].strip() == "=":
                continue       # the declaration, or the assignment of m
            if u.start() < m.start() or decl[0] <= u.start() < decl[1]:
                return False   # used before it is set, or in another declarator
            last = max(last, u.end())
            deref = _DEREF.search(before)
            if deref:
                close = u.end()          # *p, item 0
                before = before[:deref.start()]
            elif SequenceFastItems._null_test(code, u.start(), u.end()):
                continue           # if (!p): a test of the sequence
            else:
                rest = _SPACE.match(code, u.end()).end()
                if code[rest:rest + 1] != "[":
                    return False   # the pointer itself: moved, passed on, compared
                close = source.matching(code, rest)
            if _ASSIGN_AFTER.match(code, close) or regex.search(r"(?:&|\+\+|--)\s*$", before) \
                    or SequenceFastItems._macro_written(code, u.start(), close, macros.assigned_parameters(code)):
                return False   # written through (SWAP(p[i], p[j], PyObject *) too), or its address taken
        stmt_end = code.find(";", m.end())
        for u in regex.finditer(rf"(?<![\w.>]|->){seq}\b", code[:b1], pos=stmt_end):
            before = code[max(b0, u.start() - 24):u.start()]
            if _ASSIGN_AFTER.match(code, u.end()) or regex.search(r"(?:&|\+\+|--)\s*$", before) \
                    or regex.search(r"Py_(?:X?SETREF|CLEAR)\s*\(\s*$", before):
                if not SequenceFastItems._after_last_read(code, b0, b1, u.start(), last):
                    return False
        return True

    @staticmethod
    def _null_test(code, start, end):
        """Is ``code[start:end]`` (the item pointer) the whole condition of
        an ``if`` testing it for NULL (``if (!p)``, ``if (p == NULL)``,
        ``if (p)``)?  The items of a sequence ``PySequence_Fast`` made are
        there when the sequence is: the test is one of the sequence (but an
        empty list's array may be NULL: T40)."""
        return bool(regex.search(r"\bif\s*\(\s*!?\s*$", code[max(0, start - 16):start])) and \
            bool(regex.match(r"\s*(?:(?:==|!=)\s*(?:NULL|0|nullptr)\s*)?\)", code[end:]))

    @staticmethod
    def _after_last_read(code, b0, b1, at, last):
        """Is ``at`` (a write of the sequence) after ``last``, the end of
        the item pointer's last mention, with no loop around both and no
        ``goto`` after it back to a label before ``last``?  Then no read
        of the items follows the write (``Py_XDECREF(seq); seq = NULL;``
        at the end of the function)."""
        if at < last:
            return False
        for lp in _LOOP_OPEN.finditer(code, b0, b1):
            close = source.matching(code, lp.end())
            if lp.start() < last and at < close:
                return False
        for label in regex.finditer(r"(?:^|[;{}])\s*(?P<l>[A-Za-z_]\w*)\s*:(?!:)", code[b0:last]):
            if label.group("l") not in ("default",) and \
                    regex.search(rf"\bgoto\s+{label.group('l')}\s*;", code[at:b1]):
                return False
        return True

    @staticmethod
    def _drop(unit, edits, name, m, decl):
        """Remove p's declarator (the whole declaration if it is the only
        one) and the statement ``p = PySequence_Fast_ITEMS(s);``."""
        from .. import cstruct
        code, text = unit.masked, unit.text
        base_end, decls = cstruct.split_declaration(code, decl[0], decl[1] - 1)
        i = next(k for k, d in enumerate(decls) if d.name == name)
        if len(decls) == 1:
            spans = [decl]
        elif i == 0:
            spans = [(base_end, decls[1].span[0])]        # PyObject **p, *a;  ->  PyObject *a;
        else:
            spans = [(decls[i - 1].span[1], decls[i].span[1])]
        if not decl[0] <= m.start() < decl[1]:
            lhs = regex.search(rf"{name}\s*=\s*$", code[:m.start()])
            spans.append((lhs.start(), code.find(";", m.end()) + 1))
        for s, e in spans:
            line0 = text.rfind("\n", 0, s) + 1
            line1 = text.find("\n", e)
            line1 = len(text) if line1 < 0 else line1
            if not text[line0:s].strip() and not text[e:line1].strip():
                s, e = line0, min(line1 + 1, len(text))   # the whole line
            edits.add(s, e, "")

    @staticmethod
    def _index(unit, edits, start, open_at, seq, kind):
        """Rewrite ``<start..>[i]`` (the bracket at ``open_at``) as a read of
        item i of ``seq``, an array of ``kind`` (a key of _ITEM_READS)."""
        code, text = unit.masked, unit.text
        close = source.matching(code, open_at)
        return SequenceFastItems._read(unit, edits, start, close, seq, kind, text[open_at + 1:close - 1].strip())

    @staticmethod
    def _read(unit, edits, start, close, seq, kind, index):
        """Rewrite ``code[start:close]``, item ``index`` of ``seq``'s array."""
        code = unit.masked
        call = _UNBOX_CALL.search(code, max(0, start - 64), start)
        if call and _CLOSE.match(code, close):
            end = code.index(")", close) + 1
            edits.add(call.start(), end, f"{_ITEM_READS[kind][1]}{_UNBOXED[call.group('f')]}(S, {seq}, {index})")
        else:
            edits.add(start, close, f"{_ITEM_READS[kind][0]}({seq}, {index})")
        return 1

    def _keep_stock(self, unit, edits, name, decl, m, b1):
        """The fallback: ``name`` stays a stock ``PyObject **``, its item
        reads get a handle.  Returns the count of changes."""
        from .. import cstruct
        code, text = unit.masked, unit.text
        parsed = cstruct.split_declaration(code, decl[0], decl[1] - 1)
        items = [d for d in parsed[1] if d.pointer in ("**", "*const*") and not d.array] if parsed else []
        others = [d for d in parsed[1] if d not in items] if parsed else []
        if name not in {d.name for d in items} or others and (
                any(d.pointer not in ("*", "**", "*const*") for d in others)
                or not regex.fullmatch(r"[ \t]*", text[text.rfind("\n", 0, decl[0]) + 1:decl[0]])):
            unit.leftover(m.start(), f"{name} = PySequence_Fast_ITEMS(...) is declared with handles: "
                          "an array of PyObject * has no Cystck counterpart: rewrite by hand", self.name)
            return 0
        stock = {d.name for d in items}
        if others:
            # ``PyObject **items, *fast;``: the item pointers get a
            # declaration of their own after the others (whose
            # initializers they may read), which become handles
            base_end = parsed[0]
            indent = text[text.rfind("\n", 0, decl[0]) + 1:decl[0]]
            edits.add(base_end, decl[1] - 1, " " + ", ".join(text[d.span[0]:d.span[1]].strip() for d in others))
            edits.add(decl[1], decl[1], f"\n{indent}{escape.MARK} {text[decl[0]:base_end].strip()} "
                      + ", ".join(text[d.span[0]:d.span[1]].strip() for d in items) + ";")
        else:
            edits.add(decl[0], decl[0], f"{escape.MARK} ")
        n = 1
        written = macros.assigned_parameters(code)
        for u in regex.finditer(r"(?<![\w.>]|->)(?P<v>" + "|".join(sorted(stock)) + r")\b", code[:b1], pos=decl[1]):
            v = u.group("v")
            rest = code[u.end():b1]
            w0 = max(decl[1], u.start() - 16)
            deref = regex.search(r"(?<![\w)\]])\*\s*$", code[w0:u.start()])
            if rest.lstrip().startswith("["):
                open_at = u.end() + len(rest) - len(rest.lstrip())
                s, e = u.start(), source.matching(code, open_at)
            elif deref:
                s, e = w0 + deref.start(), u.end()
                post = regex.compile(r"\s*(?:\+\+|--)").match(code, e)
                if post:
                    e = post.end()
            else:
                continue      # the pointer itself: compared, moved, stays stock
            if self._macro_written(code, s, e, written):
                continue      # SWAP(p[i], p[j], PyObject *): stock items moved in the array, as before
            if _ASSIGN_AFTER.match(code, e) and not code[e:].lstrip().startswith(("++", "--")) \
                    or regex.search(r"&\s*$", code[max(decl[1], s - 8):s]):
                unit.leftover(s, f"write through {v}, an item array of PySequence_Fast_ITEMS: "
                              "no Cystck counterpart: rewrite by hand", self.name)
                continue
            edits.add(s, s, f"Cystck_FromPyObject(S, {escape.MARK} ")
            edits.add(e, e, ")")
            n += 1
        unit.leftover(m.start(), f"escape hatch: {name} = PySequence_Fast_ITEMS(...) is not only indexed: kept "
                      "as a stock PyObject ** (valid while the sequence lives unchanged), its items given "
                      "handles with Cystck_FromPyObject", self.name)
        return n


    @staticmethod
    def _macro_written(code, s, e, written):
        """Is ``code[s:e]`` a whole argument of a function-like macro of
        the file that assigns that parameter (``written``:
        macros.assigned_parameters)?"""
        call = _common.call_of_argument(code, s)
        if call is None or call[0] not in written or not _ARG_END.match(code, e):
            return False
        open_at = code.index("(", call[1])
        args = source.split_top(code, open_at + 1, source.matching(code, open_at) - 1)
        return any(i in written[call[0]] and a0 <= s and e <= a1 and not code[a0:s].strip()
                   and not code[e:a1].strip() for i, (a0, a1) in enumerate(args))


_ARG_END = regex.compile(r"\s*[,)]")


#: an allocation of native memory: ``alloca(n)`` lives until the function
#: returns, the others until they are freed
_STACK_ALLOCATORS = ("alloca", "_alloca", "__builtin_alloca")
_HEAP_ALLOCATORS = ("malloc", "calloc", "PyMem_Malloc", "PyMem_Calloc", "PyMem_RawMalloc", "PyMem_RawCalloc")
_FREES = ("free", "PyMem_Free", "PyMem_RawFree")
_POINTER_QUALIFIERS = cstruct.POINTER_QUALIFIERS + "*"
_ITEM_ARRAY_ALLOCATION = regex.compile(
    r"(?P<cast>\(\s*(?:const\s+)?PyObject\s*\*\s*" + _POINTER_QUALIFIERS + r"\*\s*" + _POINTER_QUALIFIERS + r"\)\s*)?"
    r"(?<![\w.>]|->)(?P<f>" + "|".join(_STACK_ALLOCATORS + _HEAP_ALLOCATORS) + r")\s*" + _common.PAREN)
_SIZEOF_OBJECT_POINTER = regex.compile(r"\bsizeof\s*\(\s*(?:const\s+)?PyObject\s*\*\s*\)")
_NULL_TEST = regex.compile(r"\s*[=!]=\s*(?:NULL|0|nullptr)\b(?!\s*[-+*/%&|^<>.\[(])")


class HandleArrayAllocations(Rule):
    """A local array of objects in memory the function allocates,
    ``PyObject **a = (PyObject **)alloca(n * sizeof(PyObject *));`` (or
    ``malloc``, ``calloc``, ``PyMem_Malloc``..., freed in the function),
    is an array of handles: the declarations rule makes ``a`` a
    ``Cystck_Object *``, and the allocation becomes ``(Cystck_Object
    *)alloca(n * sizeof(Cystck_Object))``.  Handles live until the entry
    point returns, so this holds where the array does not outlive the
    call: ``a`` is only indexed (``a[i]``, read or written), tested for
    NULL and freed (by ``free``, ``PyMem_Free`` or ``PyMem_RawFree``,
    required of memory not from ``alloca``) and assigned nothing but such
    an allocation or NULL.  Any other use (stored in a struct, returned,
    passed on, reallocated) leaves the allocation as it is."""
    name = "handle-array-allocations"
    precedence = 497
    patterns = (_ITEM_ARRAY_ALLOCATION.pattern,)
    before = ("static PyObject *f(PyObject *self, PyObject *args)\n{\n    Py_ssize_t n = PyTuple_GET_SIZE(args);\n"
              "    PyObject **items = (PyObject **)alloca(n * sizeof(PyObject *));\n"
              "    for (Py_ssize_t i = 0; i < n; i++)\n        items[i] = PyTuple_GET_ITEM(args, n - 1 - i);\n"
              "    return PyTuple_Pack(2, items[0], items[n - 1]);\n}\n")
    after = ("static PyObject *f(PyObject *self, PyObject *args)\n{\n    Py_ssize_t n = PyTuple_GET_SIZE(args);\n"
             "    PyObject **items = (Cystck_Object *)alloca(n * sizeof(Cystck_Object));\n"
             "    for (Py_ssize_t i = 0; i < n; i++)\n        items[i] = PyTuple_GET_ITEM(args, n - 1 - i);\n"
             "    return PyTuple_Pack(2, items[0], items[n - 1]);\n}\n")

    def apply(self, unit):
        from .. import cstruct
        code = unit.masked
        if not _ITEM_ARRAY_ALLOCATION.search(code):
            return 0
        edits = source.Edits()
        n = 0
        for ctx in _common.stateful_contexts(unit):
            b0, b1 = ctx.body
            found = {}           # name -> [allocation matches]
            for m in _ITEM_ARRAY_ALLOCATION.finditer(code, b0, b1):
                lhs = regex.search(r"(?<![\w.>]|->)(?P<v>[A-Za-z_]\w*)\s*=\s*$", code, pos=max(b0, m.start() - 120),
                                   endpos=m.start())
                if lhs:
                    found.setdefault(lhs.group("v"), []).append(m)
            for name, allocs in found.items():
                decl = self._declaration(code, name, b0, b1, cstruct)
                if decl is None or not self._local_use_only(code, name, decl, allocs, b0, b1):
                    continue
                for m in allocs:
                    if m.group("cast"):
                        edits.add(m.start("cast"), m.end("cast"), "(Cystck_Object *)")
                    for z in _SIZEOF_OBJECT_POINTER.finditer(code, m.start("p"), m.end("p")):
                        edits.add(z.start(), z.end(), "sizeof(Cystck_Object)")
                    n += 1
        if edits:
            unit.apply(edits)
        return n

    @staticmethod
    def _declaration(code, name, b0, b1, cstruct):
        """The span of the one declaration of ``name`` in the body, a
        ``PyObject **`` (no array), or None."""
        pat = _common.decl_pattern(())
        hits = []
        for d in pat.finditer(code, b0, b1):
            if not d.group("base").startswith("PyObject") or not regex.search(rf"\b{name}\b", d.group("decl")):
                continue
            parsed = cstruct.split_declaration(code, d.start("decl"), d.end("decl"))
            if parsed and any(x.name == name for x in parsed[1]):
                x = next(x for x in parsed[1] if x.name == name)
                if x.pointer != "**" or x.array or regex.match(r"\s*static\b", code[d.start("decl"):parsed[0]]):
                    return None
                hits.append(x)
        return hits[0] if len(hits) == 1 else None

    @staticmethod
    def _local_use_only(code, name, decl, allocs, b0, b1):
        """Is every use of ``name`` an index, a NULL test, a free or an
        assignment of one of ``allocs`` (or NULL), and memory not from
        ``alloca`` freed?"""
        values = {m.start() for m in allocs}
        if decl.init is not None and decl.init[0] not in values \
                and code[decl.init[0]:decl.init[1]].strip() not in ("NULL", "0", "nullptr"):
            return False
        freed = False
        for u in regex.finditer(rf"(?<![\w.>]|->){name}\b", code, pos=b0, endpos=b1):
            if u.start() == regex.compile(rf"(?<!\w){name}\b").search(code, decl.span[0]).start():
                continue        # the declarator itself
            after = _SPACE.match(code, u.end()).end()
            if code[after:after + 1] == "[":
                continue        # an item, read or written
            assign = regex.compile(r"\s*=(?!=)\s*").match(code, u.end())
            if assign:
                if assign.end() in values or regex.match(r"(?:NULL|0|nullptr)\s*;", code[assign.end():]):
                    continue
                return False
            before = code[max(b0, u.start() - 32):u.start()]
            if regex.search(r"!\s*$", before) or _NULL_TEST.match(code, u.end()) \
                    or regex.search(r"(?:NULL|0|nullptr)\s*[=!]=\s*$", before) \
                    or regex.search(r"\bif\s*\(\s*$", before) and regex.match(r"\s*\)", code[u.end():]):
                continue
            call = _common.call_of_argument(code, u.start())
            if call and call[0] in _FREES and regex.match(r"\s*\)", code[u.end():]):
                freed = True
                continue
            return False
        return freed or all(m.group("f") in _STACK_ALLOCATORS for m in allocs)


# A slot called through the object's own type is the abstract call that
# dispatches to it (which also checks that the slot is there).
_SLOT_CALLS = {
    ("tp_as_mapping", "mp_subscript"): "PyObject_GetItem",
    ("tp_as_mapping", "mp_length"): "PyMapping_Size",
    ("tp_as_sequence", "sq_length"): "PySequence_Size",
    ("tp_as_sequence", "sq_contains"): "PySequence_Contains",
    ("", "tp_repr"): "PyObject_Repr",
    ("", "tp_str"): "PyObject_Str",
    ("", "tp_hash"): "PyObject_Hash",
    ("", "tp_iter"): "PyObject_GetIter",
    ("", "tp_call"): "PyObject_Call",
    ("", "tp_getattro"): "PyObject_GetAttr",
}
ASS_SUBSCRIPT_HELPER = "cystck_migrate_ass_subscript"
#: mp_ass_subscript's protocol (a NULL value deletes) over the abstract
#: calls, defined once in each file that needs it, after the Cystck.h include.
ASS_SUBSCRIPT_HELPER_DEFINITION = _common.helper_definition(ASS_SUBSCRIPT_HELPER, f"""
/* cystck-migrate: a call of a type's mp_ass_subscript slot: a null value
 * deletes the key. */
static inline int {ASS_SUBSCRIPT_HELPER}(Cystck_State *S, Cystck_Object o, Cystck_Object key, Cystck_Object v)
{{
    return Cystck_IsNull(v) ? CystckObject_DelItem(S, o, key) : CystckObject_SetItem(S, o, key, v);
}}
""")
_NULL = ("NULL", "0", "nullptr")
_OBJECT_RESULTS = {"PyObject_GetItem", "PyObject_Repr", "PyObject_Str", "PyObject_GetIter", "PyObject_Call",
                   "PyObject_GetAttr"}


class SlotCalls(Rule):
    """A slot called through the type of its first argument,
    ``Py_TYPE(o)->tp_as_mapping->mp_subscript(o, k)`` (also in a macro
    body), becomes the abstract call that dispatches to that slot,
    ``PyObject_GetItem(o, k)``, which the other rules then port
    (``mp_length``, ``sq_length``, ``sq_contains``, ``tp_repr``, ``tp_str``,
    ``tp_hash``, ``tp_iter``, ``tp_call``, ``tp_getattro`` likewise).
    ``mp_ass_subscript(o, k, NULL)`` becomes ``PyObject_DelItem(o, k)``;
    with another value it becomes ``cystck_migrate_ass_subscript(S, o, k,
    v)``, defined once after the Cystck.h include, which deletes for a null
    handle and sets otherwise.  A ``(PyObject *)`` cast of an argument goes
    (the argument is a handle now).  A slot of one object's type called on
    another object, or a slot not listed, is reported and left alone
    (``tp_alloc`` is the object-new rule's, ``tp_free`` the
    destroy-traverse and object-frees rules')."""
    name = "slot-calls"
    precedence = 395
    needs = ("include-header",)    # its helper goes after the Cystck.h include
    patterns = (r"\bPy_TYPE\s*" + source.paren("o") + r"\s*->\s*(?:(?P<table>tp_as_\w+)\s*->\s*)?"
                r"(?P<slot>tp_\w+|mp_\w+|sq_\w+|nb_\w+)\s*" + source.paren("a"),)
    before = ("static PyObject *f(PyObject *d, PyObject *k)\n{\n"
              "    if (Py_TYPE(d)->tp_as_mapping->mp_ass_subscript(d, k, NULL) < 0)\n        return NULL;\n"
              "    return Py_TYPE(d)->tp_as_mapping->mp_subscript(d, k);\n}\n")
    after = ("static PyObject *f(PyObject *d, PyObject *k)\n{\n"
             "    if (PyObject_DelItem(d, k) < 0)\n        return NULL;\n"
             "    return PyObject_GetItem(d, k);\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        helper = False
        for m in regex.finditer(self.patterns[0], code):
            table, slot = m.group("table") or "", m.group("slot")
            if slot == "tp_alloc":
                continue          # the object-new rule makes it Cystck_New
            if slot == "tp_free":
                continue          # destroy-traverse's in destructors, object-frees' elsewhere
            a0, a1 = m.start("a") + 1, m.end("a") - 1
            args = source.split_top(code, a0, a1) if code[a0:a1].strip() else []
            owner = source.unparen(text[m.start("o") + 1:m.end("o") - 1])
            target = _SLOT_CALLS.get((table, slot))
            assign = (table, slot) == ("tp_as_mapping", "mp_ass_subscript") and len(args) == 3
            if not args or source.unparen(text[args[0][0]:args[0][1]]) != owner or not (target or assign):
                unit.leftover(m.start(), f"{slot} called through Py_TYPE({owner}): call the abstract "
                              "function that dispatches to it", self.name)
                continue
            parts = [self._uncast(text[s:e].strip()) for s, e in args]
            if assign and parts[2] in _NULL:
                call = f"PyObject_DelItem({parts[0]}, {parts[1]})"
            elif assign:
                call = f"{ASS_SUBSCRIPT_HELPER}(S, {', '.join(parts)})"
                helper = True
            else:
                call = f"{target}({', '.join(parts)})"
            start = m.start()
            cast = regex.search(r"\(\s*(?P<t>\w+)\s*\*\s*\)\s*$", code, pos=max(0, start - 80), endpos=start)
            if cast and target in _OBJECT_RESULTS and \
                    (cast.group("t") == "PyObject" or cast.group("t") in unit.project.custom_structs):
                start = cast.start()      # the object result is a handle, not an instance pointer
            edits.add(start, m.end(), call)
            self._null_macro_args(unit, m.start(), parts, edits)
        if helper:
            _common.define_after_include(text, edits, ASS_SUBSCRIPT_HELPER_DEFINITION)
        if edits:
            unit.apply(edits)
        return edits.applied

    def _null_macro_args(self, unit, at, parts, edits):
        """In a function-like macro, a parameter passed to the slot is an
        object: a NULL given for it where the macro is used becomes
        ``Cystck_NULL``."""
        code = unit.masked
        line = code.rfind("\n", 0, at) + 1
        while line > 0 and code[line - 2:line - 1] == "\\":
            line = code.rfind("\n", 0, line - 1) + 1
        define = regex.match(r"[ \t]*#[ \t]*define[ \t]+(?P<n>\w+)\((?P<ps>[^()]*)\)", code[line:at])
        if define is None:
            return
        params = [q.strip() for q in define.group("ps").split(",")]
        positions = {params.index(source.unparen(a)) for a in parts if source.unparen(a) in params}
        if not positions:
            return
        for use in regex.finditer(r"(?<![\w.>])" + define.group("n") + r"\s*\(", code):
            if use.start() == line + define.start("n"):
                continue
            close = source.matching(code, use.end() - 1)
            for i, (s, e) in enumerate(source.split_top(code, use.end(), close - 1)):
                if i in positions and code[s:e].strip() in _NULL:
                    lead = s + len(code[s:e]) - len(code[s:e].lstrip())
                    edits.add(lead, lead + len(code[s:e].strip()), "Cystck_NULL")

    @staticmethod
    def _uncast(arg):
        """``(PyObject *)x`` or ``((PyObject *)x)`` is ``x``: a handle now."""
        m = regex.fullmatch(r"(\(\s*)?\(\s*PyObject\s*\*\s*\)\s*(?P<x>[^()]*?(?:\([^()]*\))?)\s*(?(1)\))", arg)
        return m.group("x").strip() if m else arg


RESTORE_HELPER = "cystck_migrate_restore"
RESTORE_HELPER_DEFINITION = _common.helper_definition(RESTORE_HELPER, f"""
/* cystck-migrate: PyErr_Restore of what PyErr_Fetch took, as the raised
 * exception: none clears the error indicator, as PyErr_Restore(NULL...)
 * does (but for the handle limit's MemoryError, docs/runtime.md). */
static inline void {RESTORE_HELPER}(Cystck_State *S, Cystck_Object exc)
{{
    if (Cystck_IsNull(exc))
        CystckErr_Restore(S, Cystck_NULL, Cystck_NULL, Cystck_NULL);
    else
        CystckErr_SetRaisedException(S, exc);
}}
""")


class ErrFetchRestore(Rule):
    """``PyErr_Fetch(&t, &v, &tb)`` ... ``PyErr_Restore(t, v, tb)``, the
    idiom that keeps the current exception aside, takes it as one object:
    ``v = CystckErr_GetRaisedException(S);`` ...
    ``cystck_migrate_restore(S, v);`` (defined once after the Cystck.h
    include, in a file that calls it); ``PyErr_NormalizeException(&t, &v, &tb);`` goes (the
    exception taken is an instance), and so do the type's and traceback's
    plain declarations (``PyObject *t, *v, *tb;`` becomes ``PyObject
    *v;``).  Only where the type and traceback
    are used by nothing else, and the value only released, or read after
    ``PyErr_NormalizeException``: code that reads what ``PyErr_Fetch``
    gave may read an un-normalized value (a str, a tuple, none), so its
    calls go to their counterparts (``api-calls``: ``CystckErr_Fetch``
    gives the value as it is)."""
    name = "err-fetch-restore"
    precedence = 847
    needs = ("include-header",)    # its helper goes after the Cystck.h include
    patterns = (r"\bPyErr_Fetch\s*\(\s*&\s*(?P<t>\w+)\s*,\s*&\s*(?P<v>\w+)\s*,\s*&\s*(?P<tb>\w+)\s*\)\s*;",)
    before = ("static void f(PyObject *d, PyObject *k)\n{\n    PyObject *t, *v, *tb;\n    PyErr_Fetch(&t, &v, &tb);\n"
              "    if (PyDict_DelItem(d, k) < 0)\n        PyErr_Clear();\n    PyErr_Restore(t, v, tb);\n}\n")
    after = (RESTORE_HELPER_DEFINITION + "static void f(PyObject *d, PyObject *k)\n{\n    PyObject *v;\n    v = CystckErr_GetRaisedException(S);\n"
             "    if (PyDict_DelItem(d, k) < 0)\n        PyErr_Clear();\n    cystck_migrate_restore(S, v);\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            b0, b1 = ctx.body
            t, v, tb = m.group("t"), m.group("v"), m.group("tb")
            if not {t, v, tb} <= ctx.handles:
                continue
            names = rf"\(\s*&?\s*{t}\s*,\s*&?\s*{v}\s*,\s*&?\s*{tb}\s*\)"
            calls = list(regex.finditer(rf"\bPyErr_(?P<f>Fetch|Restore|NormalizeException)\s*{names}\s*;",
                                        code, pos=b0, endpos=b1))
            spans = [c.span() for c in calls]
            others = [u for u in regex.finditer(rf"\b(?:{t}|{tb})\b", code, pos=b0, endpos=b1)
                      if not any(a <= u.start() < e for a, e in spans) and not self._declared(code, u)]
            if others or self._value_read_unnormalized(code, v, calls, spans, b0, b1):
                continue
            self._drop_declarations(text, code, {t, tb} - {v}, b0, b1, edits)
            for c in calls:
                if c.group("f") == "Fetch":
                    edits.add(c.start(), c.end(), f"{v} = CystckErr_GetRaisedException(S);")
                elif c.group("f") == "Restore":
                    edits.add(c.start(), c.end(), f"{RESTORE_HELPER}(S, {v});")
                else:
                    edits.add(*_common.statement_line_span(text, c.start(), c.end()), "")
        if any(RESTORE_HELPER in new for _, _, new in edits.items):
            _common.define_after_include(text, edits, RESTORE_HELPER_DEFINITION)
        if edits:
            unit.apply(edits)
        return edits.applied

    @classmethod
    def _value_read_unnormalized(cls, code, v, calls, spans, b0, b1):
        """Does the code read the fetched value ``v`` (other than to
        release it) with no ``PyErr_NormalizeException`` among the calls?
        PyErr_Fetch may give an un-normalized value (a str, a tuple of
        arguments, none at all), and such code reads that; the exception
        taken as one object is always an instance."""
        if any(c.group("f") == "NormalizeException" for c in calls):
            return False
        releases = [r.span() for r in regex.finditer(rf"\bPy_(?:X?DECREF|CLEAR)\s*\(\s*{v}\s*\)", code, pos=b0, endpos=b1)]
        return any(not any(a <= u.start() < e for a, e in spans + releases) and not cls._declared(code, u)
                   for u in regex.finditer(rf"(?<![\w.>]){v}\b", code, pos=b0, endpos=b1))

    @staticmethod
    def _drop_declarations(text, code, names, b0, b1, edits):
        """The type and traceback are no longer used: their declarators go
        from plain declarations (``PyObject *t, *v, *tb;`` becomes
        ``PyObject *v;``, a declaration of them only goes), so that
        ``-Wunused-variable`` has nothing to say.  Declarations with more
        than names and simple initializers are left as they are."""
        decl = regex.compile(r"^(?P<lead>[ \t]*)(?P<type>PyObject|Cystck_Object)\b(?P<rest>[^;(){}]*);[ \t]*$", regex.M)
        for m in decl.finditer(code, pos=b0, endpos=b1):
            parts = m.group("rest").split(",")
            declarators = [regex.match(r"\s*\*?\s*(\w+)\s*(?:=\s*\w+\s*)?$", p) for p in parts]
            if not all(declarators) or not any(d.group(1) in names for d in declarators):
                continue
            kept = [p.strip() for p, d in zip(parts, declarators) if d.group(1) not in names]
            start, end = m.span()
            if kept:
                edits.add(start, end, f"{m.group('lead')}{m.group('type')} {', '.join(kept)};")
            else:
                edits.add(*_common.statement_line_span(text, start, end), "")

    @staticmethod
    def _declared(code, use):
        """Is ``use`` the name in its declaration (``PyObject *t, *v``)?"""
        line = code[code.rfind("\n", 0, use.start()) + 1:use.start()]
        return bool(regex.match(r"\s*(?:PyObject|Cystck_Object)\b[^;=()]*$", line))


class ErrOccurredTests(Rule):
    """``PyErr_Occurred()`` compared with a null pointer becomes a truth
    test, ``!!PyErr_Occurred()`` for ``!= NULL`` and ``!PyErr_Occurred()``
    for ``== NULL`` (either operand order): ``CystckErr_Occurred`` answers
    an int, which C++ cannot compare with ``nullptr`` nor C with ``NULL``
    (-Werror builds fail).  The result reads the same in a function kept
    stock."""
    name = "err-occurred-tests"
    precedence = 843
    # the other operand alone: no operator binding tighter than == next to it
    patterns = (r"\bPyErr_Occurred\s*\(\s*\)\s*(?P<op>[!=]=)\s*(?:NULL|nullptr|0)\b(?!\s*(?:[<>+\-*/%\[.]))",
                r"(?<=(?:^|[(,;{}?:|&]|(?<![<>!=])=|\breturn)\s*)\b(?:NULL|nullptr|0)\s*(?P<op>[!=]=)\s*PyErr_Occurred\s*\(\s*\)")
    before = "static int f(void)\n{\n    int failed = PyErr_Occurred() != NULL;\n    return failed || NULL == PyErr_Occurred();\n}\n"
    after = "static int f(void)\n{\n    int failed = !!PyErr_Occurred();\n    return failed || !PyErr_Occurred();\n}\n"

    def apply(self, unit):
        edits = source.Edits()
        for pattern in self.patterns:
            for m in regex.finditer(pattern, unit.masked):
                edits.add(m.start(), m.end(), ("!!" if m.group("op") == "!=" else "!") + "PyErr_Occurred()")
        if edits:
            unit.apply(edits)
        return edits.applied


class ApiAliasMacros(Rule):
    """An object-like macro naming an API function, ``#define
    INTERN PyUnicode_InternFromString`` (one spelling per Python version),
    becomes a function-like macro that passes the state:
    ``#define INTERN(...) CystckUnicode_InternFromString(S, __VA_ARGS__)``
    (``#define ERR() CystckErr_Occurred(S)`` for a function of no
    arguments), so each call ``INTERN("x")`` uses the ``S`` of the
    function that expands it.  An alias also used other than in a call
    (a function pointer) is left alone; a test of whether it is defined
    (``#ifndef PyInt_Check`` around ``#define PyInt_Check PyLong_Check``,
    Python 2 names kept for Python 3) is no such use."""
    name = "api-alias-macros"
    precedence = 848
    patterns = (r"^(?P<head>[ \t]*#[ \t]*define[ \t]+(?P<alias>\w+))[ \t]+(?P<target>_?Py\w+)[ \t]*$",)
    before = ("#define INTERN PyUnicode_InternFromString\n#define ERR PyErr_Occurred\n"
              "#ifndef PyInt_Check\n#define PyInt_Check PyLong_Check\n#endif\n"
              "static PyObject *f(PyObject *o) { return ERR() || !PyInt_Check(o) ? NULL : INTERN(\"x\"); }\n")
    after = ("#define INTERN(...) CystckUnicode_InternFromString(S, __VA_ARGS__)\n#define ERR() CystckErr_Occurred(S)\n"
             "#ifndef PyInt_Check\n#define PyInt_Check(...) CystckLong_Check(S, __VA_ARGS__)\n#endif\n"
             "static PyObject *f(PyObject *o) { return ERR() || !PyInt_Check(o) ? NULL : INTERN(\"x\"); }\n")

    def apply(self, unit):
        mapping, functions = api.stock_map(), api.by_name()
        texts = [source.mask(t) for t in unit.project.files.values()] or [unit.masked]

        def repl(m, text):
            target = mapping.get(m.group("target"))
            if target is None or target not in functions or not self._only_called(m.group("alias"), texts):
                return None
            if functions[target].params:
                return f"{m.group('head')}(...) {target}(S, __VA_ARGS__)"
            return f"{m.group('head')}() {target}(S)"
        return unit.sub(self.patterns[0], repl, regex.M)

    @staticmethod
    def _only_called(alias, texts):
        """Is every use of ``alias`` outside #define lines a call?  Tests
        of whether it is defined (``#ifndef PyInt_Check``, ``defined(X)``,
        the guard of a compatibility alias) and ``#undef`` are no uses."""
        use = regex.compile(rf"(?P<define>^[ \t]*#[ \t]*(?:define|undef|ifn?def)[ \t]+{alias}\b"
                            rf"|\bdefined\s*\(?\s*{alias}\b)|\b{alias}\b(?!\s*\()", regex.M)
        return all(m.group("define") for t in texts for m in use.finditer(t))


class PrivateStructTypes(Rule):
    """A stock private struct that C code declares and passes to the API by
    address (``_PyUnicodeWriter writer;``, ``_PyUnicodeWriter *w``) is
    declared as its Cystck counterpart (``CystckUnicodeWriter``), the
    struct the translated calls take: passing the stock struct to them
    would compile (with a warning) and corrupt memory.  So is a public
    struct behind a family of functions (``PyUnicodeWriter *w`` becomes
    ``CystckStrWriter *w``, see api.private_struct_types)."""
    name = "private-struct-types"
    precedence = 849
    patterns = (r"\b(?P<t>_?Py\w+)\b(?!\s*\()",)
    before = ("static int f(_PyUnicodeWriter *w) { return _PyUnicodeWriter_WriteChar(w, 'x'); }\n"
              "static void g(void) { _PyUnicodeWriter writer; _PyUnicodeWriter_Init(&writer); }\n")
    after = ("static int f(CystckUnicodeWriter *w) { return _PyUnicodeWriter_WriteChar(w, 'x'); }\n"
             "static void g(void) { CystckUnicodeWriter writer; _PyUnicodeWriter_Init(&writer); }\n")

    def apply(self, unit):
        types = api.private_struct_types()
        return unit.sub(self.patterns[0], lambda m, t: types.get(m.group("t")))


# The macro name a ``#define`` line defines ends the text before it.
_DEFINED_NAME = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+$", regex.M)
# A member access ends the text before a name: ``ops->`` or ``ops.``.
_MEMBER_BEFORE = regex.compile(r"(?:->|\.)\s*$")


def _defines_name(masked, pos):
    """Is the name at ``pos`` the one a ``#define`` line defines?"""
    return bool(_DEFINED_NAME.search(masked, masked.rfind("\n", 0, pos) + 1, pos))


def _converter(func):
    """Does the Cystck function ``func`` have the signature of an ``O&``
    converter (a handle, then ``void *``; CystckArg_Converter)?"""
    if func is None or func.ret != "int":
        return False
    params = [q for q in func.params if q.ctype != "..."]
    return len(params) == 2 and params[0].is_handle and params[1].ctype.replace(" ", "") == "void*"


class ApiCalls(Rule):
    """Paper rule 8: a call ``PyX_Y(args)`` of a function in the API table
    becomes ``CystckX_Y(S, args)``.  Object arguments of
    ``PyUnicode_FromFormat``/``PyErr_Format`` conversions (%S %R %A %U %V)
    stay as they are: the Cystck functions take handles there.  The NULL
    ending ``*ObjArgs`` lists becomes
    ``Cystck_NULL``; ``return PyErr_NoMemory();`` keeps returning an
    error value; a ``(PyObject *)`` cast of a handle argument goes (in a
    macro body, where the casts rule does not reach); a stock converter
    with a Cystck counterpart passed to ``PyArg_Parse*`` after ``O&``
    (``PyUnicode_FSConverter``) is the counterpart."""
    name = "api-calls"
    precedence = 850
    patterns = (r"\b(?P<name>_?Py\w+)\s*\(",)
    before = 'static void f(PyObject *l, PyObject *v) { PyList_Append(l, v); PyErr_Format(PyExc_TypeError, "bad %S", v); }\n'
    after = 'static void f(PyObject *l, PyObject *v) { CystckList_Append(S, l, v); CystckErr_Format(S, PyExc_TypeError, "bad %S", v); }\n'

    OBJARGS = {"PyObject_CallFunctionObjArgs", "PyObject_CallMethodObjArgs"}

    def apply(self, unit):
        mapping = api.stock_map()
        masked = unit.masked
        edits = source.Edits()
        # functions that stay stock, and destructors and traverse functions,
        # which have no S to pass (what CPython lets a destructor call, such
        # as saving and restoring the error indicator, stays stock there)
        stock = _common.stock_bodies(unit) + [c.body for c in _common.function_contexts(unit, with_locals=False)
                                              if c.func.is_definition and not c.has_state]
        for m in regex.finditer(self.patterns[0], masked):
            name = m.group("name")
            if name not in mapping or any(b0 <= m.start() < b1 for b0, b1 in stock):
                continue
            if _defines_name(masked, m.start()):
                continue      # ``#define Py_SIZE(ob) ...``: a fallback definition, not a call
            if _MEMBER_BEFORE.search(masked, max(0, m.start() - 40), m.start()):
                continue      # ``ops->PyList_Append(l, v)``: a member named like the function
            open_at = m.end() - 1
            close = source.matching(masked, open_at)
            inner = masked[open_at + 1:close - 1]
            new = mapping[name] + ("(S)" if not inner.strip() else "(S, ")
            edits.add(m.start(), m.end() + (close - m.end() if not inner.strip() else 0), new)
            self._null_handles(masked, open_at, close, api.by_name().get(mapping[name]), edits)
            self._object_casts(masked, open_at, close, api.by_name().get(mapping[name]), edits)
            if name in self.OBJARGS:
                last = source.split_top(masked, open_at + 1, close - 1)[-1]
                if masked[last[0]:last[1]].strip() in ("NULL", "0", "nullptr"):
                    s = last[0] + len(masked[last[0]:last[1]]) - len(masked[last[0]:last[1]].lstrip())
                    edits.add(s, s + len(masked[s:last[1]].rstrip()), "Cystck_NULL")
        # a stock converter passed to the argument parser after an O& unit,
        # PyUnicode_FSConverter: its Cystck counterpart takes S and handles
        # (the parser calls it so)
        for m in regex.finditer(r"\b(?:PyArg_Parse|CystckArg_Parse)\w*\s*\(", masked):
            open_at = m.end() - 1
            for s, e in source.split_top(masked, open_at + 1, source.matching(masked, open_at) - 1):
                conv = regex.fullmatch(r"\s*&?\s*(?P<c>Py\w+)\s*", masked[s:e])
                if conv and conv.group("c") in mapping and _converter(api.by_name().get(mapping[conv.group("c")])):
                    edits.add(s + conv.start("c"), s + conv.end("c"), mapping[conv.group("c")])
        if edits:
            unit.apply(edits)
        # `return PyErr_NoMemory();` in a function returning a handle
        n = unit.sub(r"\breturn\s+(CystckErr_NoMemory)\s*\(\s*S\s*\)\s*;", self._nomemory(unit))
        return edits.applied + n

    @staticmethod
    def _object_casts(masked, open_at, close, func, edits):
        """``(PyObject *)x`` for a handle parameter is the handle ``x``: the
        casts rule drops such casts in functions, but not in macro bodies
        (``#define ADD(m, t) PyModule_AddObjectRef(m, "T", (PyObject *)(t))``),
        where only the called function tells that a handle is meant."""
        if func is None:
            return
        params = [q for q in func.params if q.ctype != "..."]
        for i, (s, e) in enumerate(source.split_top(masked, open_at + 1, close - 1)):
            cast = _OBJECT_CAST.match(masked, s, e)
            if i < len(params) and params[i].is_handle and cast:
                edits.add(cast.start("c"), cast.end("c"), "")

    @staticmethod
    def _null_handles(masked, open_at, close, func, edits):
        """NULL for a handle parameter (``h?`` in the table) is Cystck_NULL."""
        if func is None:
            return
        params = [q for q in func.params if q.ctype != "..."]
        if func.name.startswith("CystckArg_"):
            return
        for i, (s, e) in enumerate(source.split_top(masked, open_at + 1, close - 1)):
            if i < len(params) and params[i].is_handle and masked[s:e].strip() in ("NULL", "0", "nullptr"):
                lead = len(masked[s:e]) - len(masked[s:e].lstrip())
                edits.add(s + lead, s + lead + len(masked[s:e].strip()), "Cystck_NULL")

    @staticmethod
    def _nomemory(unit):
        ctxs = _common.function_contexts(unit, with_locals=False)

        def repl(m, text):
            for ctx in ctxs:
                b0, b1 = ctx.body
                if b0 <= m.start() < b1:
                    if ctx.role is not None and ctx.role.pushes:
                        return None           # an int -1 is the right value
                    head = unit.masked[ctx.func.start:ctx.func.name_start]
                    if "Cystck_Object" in head or regex.search(r"PyObject\s*\*", head):
                        return "return (CystckErr_NoMemory(S), Cystck_NULL);"
            return None
        return repl


# The type compared with ``Py_TYPE(o)``: a name, a member chain, a cast,
# ``&FooType`` or a call such as ``Cystck_deref(S, FooType)`` (what the
# global-refs rule makes of ``&FooType``, also inside a macro body).
_TYPE_OPERAND = (r"(?:&\s*)?(?:\(\s*\w+\s*\*\s*\)\s*)?[A-Za-z_]\w*(?:\s*(?:->|\.|::)\s*\w+)*(?:\s*"
                 + source.paren("targs") + ")?")


# ``o->ob_type``, ``(o)->ob_type``, ``((PyObject *)o)->ob_type``: the
# object head's type member read on a name.
_OB_TYPE = regex.compile(r"(?<![\w.>)])(?:(?P<n>[A-Za-z_]\w*)|\(\s*(?:\(\s*(?:struct\s+)?\w+\s*\*\s*\)\s*)?"
                         r"(?P<c>[A-Za-z_]\w*)\s*\))\s*->\s*ob_type\b(?!\s*=[^=])")


class ObTypeMember(Rule):
    """``o->ob_type``, the object head's member that ``Py_TYPE(o)`` reads
    (an older spelling, mostly in ``o->ob_type->tp_name``), on a handle or
    an instance struct pointer (a cast of one included) becomes
    ``Py_TYPE(o)`` (its cast kept), which the py-type rule ports.  A
    member named ``ob_type`` of a struct that is no object, and a store
    into it, are left alone."""
    name = "ob-type-member"
    precedence = 368        # before struct-access (380) reads self->... as a field
    patterns = (_OB_TYPE.pattern,)
    before = ('static PyObject *f(PyObject *o)\n{\n'
              '    PyErr_Format(PyExc_TypeError, "not %.200s", o->ob_type->tp_name);\n'
              '    return NULL;\n}\n')
    after = ('static PyObject *f(PyObject *o)\n{\n'
             '    PyErr_Format(PyExc_TypeError, "not %.200s", Py_TYPE(o)->tp_name);\n'
             '    return NULL;\n}\n')

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if "ob_type" not in code:
            return 0
        edits = source.Edits()
        for ctx in _common.function_contexts(unit):
            b0, b1 = ctx.body
            for m in _OB_TYPE.finditer(code, b0, b1):
                name = m.group("n") or m.group("c")
                if not _common.is_handle(name, ctx, unit.project):
                    continue
                inner = text[m.start():m.end()]
                inner = inner[:inner.rindex("->")].rstrip()
                if m.group("c"):
                    inner = inner[1:-1].strip()       # the parentheses around the cast
                edits.add(m.start(), m.end(), f"Py_TYPE({inner})")
        if edits:
            unit.apply(edits)
        return edits.applied


class PyType(Rule):
    """``Py_TYPE(o)->tp_name`` becomes ``CystckType_GetName(S,
    CystckObject_Type(S, o))``; ``Py_TYPE(o) == T`` and ``Py_IS_TYPE(o, T)``
    become ``Cystck_TypeIs(S, o, T)`` (``!=`` its negation; ``T`` may be a
    call, ``Cystck_deref(S, FooType)``, in a macro body too); ``PyObject_TypeCheck(o, T)`` becomes
    ``CystckObject_TypeCheck(S, o, T)``; any other ``Py_TYPE(o)`` becomes
    ``CystckObject_Type(S, o)`` (a handle to the type)."""
    name = "py-type"
    precedence = 840
    patterns = (r"\bPy_TYPE\s*" + _common.PAREN + r"\s*->\s*tp_name\b",
                r"\bPy_TYPE\s*" + source.paren("q") + r"\s*(?P<op>[=!])=\s*(?P<t>" + _TYPE_OPERAND + r")(?=\s*(?:[;)&|,?:]|$))",
                r"\bPy_IS_TYPE\s*\(", r"\bPyObject_TypeCheck\s*\(", r"\bPy_TYPE\s*\(")
    before = 'static const char *f(PyObject *o) { if (Py_IS_TYPE(o, T)) return 0; return Py_TYPE(o)->tp_name; }\n'
    after = 'static const char *f(PyObject *o) { if (Cystck_TypeIs(S, o, T)) return 0; return CystckType_GetName(S, CystckObject_Type(S, o)); }\n'

    def apply(self, unit):
        def sub(pattern, repl, flags=0):
            # functions that stay stock (capsule destructors, helpers
            # reading object internals) keep their Py_TYPE
            # and a fallback ``#define Py_IS_TYPE(o, t) ...`` keeps its name
            stock = _common.stock_bodies(unit)
            return unit.sub(pattern, lambda m, t: None if any(b0 <= m.start() < b1 for b0, b1 in stock)
                            or _defines_name(unit.masked, m.start()) else repl(m, t), flags=flags)
        n = sub(self.patterns[0], lambda m, t: "CystckType_GetName(S, CystckObject_Type(S, "
                + t[m.start("p") + 1:m.end("p") - 1].strip() + "))")
        n += sub(self.patterns[1], lambda m, t: ("!" if m.group("op") == "!" else "") + "Cystck_TypeIs(S, "
                 + t[m.start("q") + 1:m.end("q") - 1].strip() + ", " + t[m.start("t"):m.end("t")].strip() + ")",
                 flags=regex.M)
        n += sub(self.patterns[2], lambda m, t: "Cystck_TypeIs(S, ")
        n += sub(self.patterns[3], lambda m, t: "CystckObject_TypeCheck(S, ")
        # what is left of Py_TYPE outside destroy/traverse (no state there)
        n += sub(self.patterns[4] + r"(?!\s*" + source.paren("z") + r"\s*->)",
                 lambda m, t: "CystckObject_Type(S, ")
        return n


class HandleConditions(Rule):
    """A call returning a handle used as a truth value (``if
    (PyDict_GetItemString(d, "k"))``, ``!PyObject_GetAttr(o, n)``, an
    operand of ``&&``/``||``/``?:``, ``while ((item = PyIter_Next(it)))``)
    tests its handle:
    ``!Cystck_IsNull(CystckDict_GetItemString(S, d, "k"))``,
    ``Cystck_IsNull(...)``.  A call of one of the extension's functions
    that returns a handle is tested the same way (``if (!ensure(self))
    return NULL;``, in a function or in a macro's body).  (The
    null-handles rule does the same for variables.)"""
    name = "handle-conditions"
    precedence = 855
    needs = ("api-calls",)
    patterns = (r"(?P<f>Cystck[A-Za-z]*_\w+)\s*\(",)
    before = ('static int f(PyObject *d, PyObject *o)\n{\n'
              '    return d != NULL && PyDict_GetItemString(d, "k") && !PyObject_Repr(o) ? 1 : 0;\n}\n')
    after = ('static int f(PyObject *d, PyObject *o)\n{\n    return d != NULL && '
             '!Cystck_IsNull(CystckDict_GetItemString(S, d, "k")) && Cystck_IsNull(CystckObject_Repr(S, o)) ? 1 : 0;\n}\n')

    _BEFORE = regex.compile(r"(?:(?:\bif|\bwhile)\s*\(|&&|\|\||\?|(?<![=!<>])!)\s*$")
    _AFTER = regex.compile(r"\s*(?:\)|&&|\|\||\?)")
    _ASSIGNED = regex.compile(r"(?<=(?:\bif|\bwhile)\s*\(\s*)\(\s*\w+\s*=(?!=)\s*$")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        own = unit.project.handle_makers(unit.path)
        calls = self.patterns[0]
        if own:
            alts = "|".join(map(regex.escape, sorted(own, key=len, reverse=True)))
            calls = rf"(?P<f>Cystck[A-Za-z]*_\w+|(?<![\w.>])(?:{alts})(?!\w))\s*\("
        for m in regex.finditer(calls, code):
            f = api.by_name().get(m.group("f"))
            if m.group("f") not in own and (f is None or f.ret != "h"):
                continue
            before = self._BEFORE.search(code, max(0, m.start() - 40), m.start())
            close = source.matching(code, m.end() - 1)
            call = text[m.start():close]
            assign = self._ASSIGNED.search(code, max(0, m.start() - 80), m.start())
            if assign and regex.match(r"\s*\)\s*\)", code[close:]):
                # while ((item = PyIter_Next(it))): the assignment's value
                inner = code.index(")", close)
                edits.add(assign.start(), inner + 1, f"!Cystck_IsNull({text[assign.start() + 1:close].strip()})")
                continue
            if before is None or not self._AFTER.match(code, close):
                continue
            if before.group().strip() == "!":
                edits.add(before.start(), close, f"Cystck_IsNull({call})")
            else:
                edits.add(m.start(), close, f"!Cystck_IsNull({call})")
        if edits:
            unit.apply(edits)
        return edits.applied


XREF_HELPER = "cystck_migrate_xref"
XREF_HELPER_DEFINITION = _common.helper_definition(XREF_HELPER, f"""
/* cystck-migrate: a store into a reference whose value is used, if (!(g =
 * f(x))): a reference to h's object, or NULL for the null handle (as the
 * stock global held NULL). */
static inline Cystck_Ref {XREF_HELPER}(Cystck_State *S, Cystck_Object h)
{{
    return Cystck_IsNull(h) ? NULL : Cystck_ref(S, h);
}}
""")


STEAL_HELPER = "cystck_migrate_steal"
STEAL_HELPER_DEFINITION = _common.helper_definition(STEAL_HELPER, f"""
/* cystck-migrate: a local that takes over the object of a reference in
 * allocated memory (old = e->v; e->v = v; Py_DECREF(old);, or the block
 * freed and the local returned): a handle of the call for it, the
 * reference released and emptied (the null handle for an empty one). */
static inline Cystck_Object {STEAL_HELPER}(Cystck_State *S, Cystck_Ref *r)
{{
    Cystck_Object h = Cystck_NULL;
    if (*r != NULL) {{
        h = Cystck_Dup(S, Cystck_deref(S, *r));
        Cystck_unref(S, *r);
        *r = NULL;
    }}
    return h;
}}
""")


def _gives_up(masked, r, start, end):
    """Does masked[start:end] give up the reference ``r`` (``n->value``)
    that a local took: store into it, or free the block it lives in
    (``free(n)``, ``PyMem_Free(n)``, an allocator's own free function,
    ``node_free(S, n)`` once it takes the state)?
    Only then does the local take its object over: a local that stock
    code increments (an increment other rules may have removed by now)
    leaves the reference as it is."""
    spelled = r"\s*".join(regex.escape(t) for t in regex.findall(r"\w+|->|\S", r))
    if regex.search(rf"(?<![\w.>]){spelled}\s*=(?!=)", masked[start:end]):
        return True
    head = regex.match(r"\s*(\w+)", r)
    return bool(head) and bool(regex.search(
        rf"\b\w*(?:free|Free|FREE|_[Dd]el|_DEL)\s*\(\s*(?:S\s*,\s*)?(?:\(\s*\w+\s*\*\s*\)\s*)?{head.group(1)}\s*\)",
        masked[start:end]))


def _store_after(masked, r, start, end):
    """The position of the first store into the reference ``r`` (``g``,
    ``st->hook``) in masked[start:end], a statement of its own, if nothing
    before it changes what ``r``'s spelling names; else None."""
    from .refcount import _changes_names
    spelled = r"\s*".join(regex.escape(t) for t in regex.findall(r"\w+|->|\S", r))
    m = regex.compile(rf"(?<![\w.>&*]){spelled}\s*=(?!=)").search(masked, start, end)
    if m is None or _changes_names(masked[start:m.start()], r) or \
            not regex.search(r"(?:[{;}:)]|\belse)\s*$", masked[max(0, m.start() - 40):m.start()]):
        return None
    return m.start()


def _is_heap_ref(expr, local, project):
    """Is the reference ``expr`` a member of a plain struct in memory the
    extension allocates (project.heap_structs), by its struct where that
    is known, by the member's name otherwise?"""
    m = regex.search(r"(?:->|\.)\s*(\w+)\s*$", expr)
    if not m or m.group(1) not in project.heap_ref_fields:
        return False
    owner = _common.member_owner(expr.strip(), getattr(local, "ctx", None), project)
    if owner is None:
        return m.group(1) not in project.object_field_names or _common.deep_access(expr)
    return owner in project.heap_structs


# the CYSTCK_TYPE_HELPERS lines the object-struct rule writes after a struct
_TYPE_HELPERS_LINES = regex.compile(r"(?:\s*CYSTCK_TYPE_HELPERS\s*\(\s*\w+\s*\)[ \t]*(?=\n))*")


def _is_local_ref(text, m, local):
    """Is the reference matched by ``m`` a local of the same name (for an
    element, ``cache[i]``, a local array ``cache``)?"""
    return _SUBSCRIPT_END.sub("", text[m.start("r"):m.end("r")].strip()) in local


# one subscript, which may hold another: [i], [idx[i]]
SUBSCRIPT = r"\[(?:[^\[\];]|\[[^\[\];]*\])*\]"
_SUBSCRIPT_END = regex.compile(r"\s*" + SUBSCRIPT + r"$")


def _ref_elements(p):
    """The pattern of an element of an array of references, ``cache[i]``
    of a global ``static PyObject *cache[N]`` or ``H.items[i]`` of a member
    ``PyObject *items[N]`` of a plain struct a global holds (the
    ref-arrays part of the global-refs rule), or None.  The array itself,
    not subscripted, is no reference."""
    alts = []
    if p.ref_arrays:
        alts.append(_common.names_re(p.ref_arrays) + r"\s*" + SUBSCRIPT)
    if p.ref_array_fields:
        alts.append(r"\b(?!\w+_AsStruct\s*\()\w+(?:\s*\([^()]*\))?(?:\s*" + SUBSCRIPT + r")*"
                    r"(?:\s*(?:->|\.)\s*\w+(?:\s*" + SUBSCRIPT + r")*)*?\s*(?:->|\.)\s*"
                    + "(?:" + "|".join(map(regex.escape, sorted(p.ref_array_fields))) + r")\s*" + SUBSCRIPT)
    return "(?:" + "|".join(alts) + ")" if alts else None


def _store_use(masked, start, end):
    """How the value of the store ``masked[start:end]`` (``g = expr``) is
    used: "statement" (not at all: an expression statement or a for
    loop's first clause), "test" (the whole of a parenthesized
    operand that is compared with NULL, negated or tested for truth), or
    "value"."""
    window = max(0, start - 200)
    before = masked[window:start].rstrip()
    after = masked[end:end + 200].lstrip()
    if after.startswith(";") and _common.at_statement_start(masked, start):
        return "statement"
    open_ = window + len(before) - 1
    if before.endswith("(") and after.startswith(")"):
        close = masked.index(")", end) + 1
        if regex.match(r"\s*(?:==|!=)\s*(?:NULL|0|nullptr)\b", masked[close:]) or \
                regex.search(r"(?<![=!<>])!\s*$", before[:-1]) or _common.tested_for_truth(masked, open_, close):
            return "test"
    return "value"


class NotReferences(set):
    """What a function spells like a reference but is none: its local
    handles and arrays (a name shadowing a global), and accesses of a
    member named like a reference of a plain struct no global holds
    (``job.cb`` of a local ``job_t job``: _common.is_reference)."""

    def __init__(self, ctx, project):
        super().__init__(ctx.handles | ctx.arrays)
        self.ctx, self.project = ctx, project

    def __contains__(self, expr):
        member = regex.search(r"(?:->|\.)\s*\w+$", expr)
        return set.__contains__(self, expr) or (
            member is not None and not _common.is_reference(expr, self.ctx, self.project))


# a stock API call (which the api-calls rule gives S) in a macro's body
_MACRO_API_CALL = regex.compile(r"(?<![\w.>])(?P<f>_?Py[A-Z][A-Za-z]*_\w+)\s*\(")


def references_re(names, ref_fields):
    """A regex matching a reference: one of the globals ``names`` or a
    member chain ending in one of ``ref_fields``; None if there are none."""
    alts = []
    if names:
        alts.append(_common.names_re(names))
    if ref_fields:
        # st->name, H.cb, table[i].value; not Foo_AsStruct(S, h)->name,
        # an object field of a custom type named like a reference
        alts.append(r"\b(?!\w+_AsStruct\s*\()\w+(?:\s*\([^()]*\))?(?:\s*\[[^\[\];]*\])*"
                    r"(?:\s*(?:->|\.)\s*\w+(?:\s*\[[^\[\];]*\])*)*?\s*(?:->|\.)\s*(?:"
                    + "|".join(map(regex.escape, sorted(ref_fields))) + r")\b")
        # Foo_AsStruct(S, h)->items[i].first: a member of a plain struct an
        # instance points to or holds (one access deeper than its own
        # fields, which are Cystck_Fields)
        alts.append(r"\b\w+_AsStruct\s*\([^()]*\)(?:\s*(?:->|\.)\s*\w+(?:\s*\[[^\[\];]*\])*)+?"
                    r"\s*(?:->|\.)\s*(?:" + "|".join(map(regex.escape, sorted(ref_fields))) + r")\b")
    return "(?:" + "|".join(alts) + ")" if alts else None


# ``(x = `` right before a read: a store into a local whose value is used.
_VALUE_USED_STORE = regex.compile(r"\(\s*[A-Za-z_]\w*\s*=\s*$")


class FunctionStaticRefs(Rule):
    """A function-level static object, the cache of a value made on the
    function's first call (``static PyObject *name = NULL; if (!name)
    name = PyUnicode_InternFromString("x"); ... PyObject_GetAttr(o,
    name)``), outlives the call as a global does: it becomes a reference,
    ``static Cystck_Ref name = NULL;``, its stores ``name =
    Cystck_ref(S, ...)``, its tests (``!name``, ``name == NULL``, ``if
    (name)``) test the reference, and its other uses read
    ``Cystck_deref(S, name)``.  One whose reference count the function
    changes, or whose address it takes, is left to a human (reported by
    the declarations rule)."""
    name = "function-static-refs"
    precedence = 498
    patterns = (r"\bstatic\s+PyObject\s*\*\s*(?P<n>[A-Za-z_]\w*)\s*(?:=\s*(?:NULL|0)\s*)?;",)
    before = ("static PyObject *f(PyObject *o)\n{\n    static PyObject *key = NULL;\n"
              "    if (key == NULL)\n        key = PyUnicode_InternFromString(\"k\");\n"
              "    return PyObject_GetAttr(o, key);\n}\n")
    after = ("static PyObject *f(PyObject *o)\n{\n    static Cystck_Ref key = NULL;\n"
             "    if (key == NULL)\n        key = Cystck_ref(S, PyUnicode_InternFromString(\"k\"));\n"
             "    return PyObject_GetAttr(o, Cystck_deref(S, key));\n}\n")

    _COUNTED = regex.compile(r"(?:\bPy_\w*(?:INCREF|DECREF|CLEAR|SETREF|NewRef)\s*\(\s*|&\s*)$")
    _COMPARED = regex.compile(r"\s*[!=]=\s*(?:NULL|0)\b")

    def apply(self, unit):
        code = unit.masked
        edits = source.Edits()
        for ctx in _common.stateful_contexts(unit, with_locals=False):
            b0, b1 = ctx.body
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                name = m.group("n")
                uses = list(regex.finditer(rf"(?<![\w.>]){regex.escape(name)}\b", code, pos=m.end(), endpos=b1))
                if any(self._COUNTED.search(code, max(b0, u.start() - 24), u.start()) for u in uses):
                    continue
                edits.add(m.start(), m.end(), f"static Cystck_Ref {name} = NULL;")
                for u in uses:
                    store = regex.compile(r"\s*=(?!=)\s*").match(code, u.end())
                    if store:
                        v0 = store.end()
                        v1 = _common.expression_end(code, v0, b1)
                        edits.add(v0, v0, "Cystck_ref(S, ")
                        edits.add(v1, v1, ")")
                    elif not (self._COMPARED.match(code, u.end())
                              or regex.search(r"(?<![!=<>])!\s*$", code[max(b0, u.start() - 4):u.start()])
                              or _common.tested_for_truth(code, u.start(), u.end())):
                        edits.add(u.start(), u.end(), f"Cystck_deref(S, {name})")
        if edits:
            unit.apply(edits)
        return edits.applied


class GlobalRefs(Rule):
    """Values that escape into globals (and into module-state members) are
    held through references: ``static PyObject *g;`` becomes ``static
    Cystck_Ref g;``, ``g = expr;`` becomes ``g = Cystck_ref(S, expr);`` and
    other uses read ``Cystck_deref(S, g)`` (a ``static Foo *g;`` holding an
    instance of a custom type is such a global too).  ``Py_CLEAR(g)`` becomes
    ``Cystck_unref(S, g); g = NULL;``; ``Py_DECREF(g)`` of a global is
    dropped (the reference is released by the clear, or by the store that
    follows it: the ref-release-store rule), and ``Py_SETREF(g, v)``
    releases the old reference after storing the new one.  A store
    whose value is used, ``if (!(g = f(x)))``, stores
    ``cystck_migrate_xref(S, f(x))`` (defined once after the Cystck.h
    include: NULL for the null handle, as the stock global held), tested as
    the pointer it is, or read back as a handle where the value is not a
    test: so is one inside a stored value, ``g1 = (g2 = f(x))``.  A local
    taken from a reference that the code releases or returns later (``old
    = g; g = v; Py_XDECREF(old);``) gets a handle of its own, and the first
    store into the global or module-state member after it releases what
    the reference held: ``{ Cystck_Ref old_ = g; g = Cystck_ref(S, v);
    Cystck_unref(S, old_); }`` (``{ Cystck_unref(S, g); g = NULL; }``);
    one whose store's value
    is used, ``if ((x = g) == NULL)`` (a cache filled on first use), reads
    an empty reference as the null handle, ``(g ? Cystck_deref(S, g) :
    Cystck_NULL)``.  Static
    type objects are references too: ``&FooType`` becomes ``Cystck_deref(S,
    FooType)``.  In a macro whose body calls the API (and so gets ``S``
    where its calls do), a global read is ``Cystck_deref(S, g)`` too:
    ``#define Foo_Check(o) PyObject_TypeCheck(o, foo_type)``.  An array of objects that outlives the call, ``static
    PyObject *cache[N];`` or the member ``PyObject *items[N];`` of a plain
    struct a global holds, is an array of references, each element
    ``cache[i]`` stored, read and released as such a global; the array
    used whole (``PyObject **p = cache;``) is reported.  A member of a
    plain struct in memory the extension allocates (a node, an entry of an
    allocated array: project.heap_structs) is such a reference too; there
    ``Py_DECREF``/``Py_XDECREF`` of it (its block about to be freed)
    releases it, ``Cystck_unref(S, n->key); n->key = NULL;``, and a local
    that takes its object over (the code stores into the member or frees
    its block before it releases or returns the local: ``old = n->value;
    n->value = v; Py_DECREF(old);``, ``v = n->value; free(n); return v;``)
    steals it: ``cystck_migrate_steal(S, &n->value)`` (a handle of the
    call, the reference released and emptied)."""
    name = "global-refs"
    precedence = 700
    needs = ("include-header",)    # the helper of a store whose value is used goes after the include
    patterns = (r"^(?P<lead>[ \t]*(?:(?:static|extern)\s+)*)(?:const\s+)?(?:PyObject|PyTypeObject)\s*\*\s*(?P<rest>[^;(){}]*);",)
    before = "static PyObject *cache;\nstatic void f(PyObject *v) { cache = v; g(cache); }\n"
    after = "static Cystck_Ref cache;\nstatic void f(PyObject *v) { cache = Cystck_ref(S, v); g(Cystck_deref(S, cache)); }\n"

    def apply(self, unit):
        p = unit.project
        names = set(p.globals)
        if not names and not p.ref_fields and not p.type_objects and not p.ref_arrays and not p.ref_array_fields:
            return 0
        n = 0
        if names or p.ref_arrays:
            n += self._declarations(unit, names | p.ref_arrays)
        n += self._uses(unit, names, p.ref_fields, {t for t in p.type_objects}, _ref_elements(p))
        self._whole_arrays(unit)
        return n

    def _whole_arrays(self, unit):
        """An array of references used whole (``PyObject **p = cache;``,
        ``f(H.items)``) hands out ``Cystck_Ref *`` where stock code had
        ``PyObject **``: reported, for a human (``sizeof`` and
        ``Py_ARRAY_LENGTH`` of it are fine)."""
        p = unit.project
        alts = ([_common.names_re(p.ref_arrays)] if p.ref_arrays else []) + \
            ([r"(?:->|\.)\s*(?:" + "|".join(map(regex.escape, sorted(p.ref_array_fields))) + r")\b"]
             if p.ref_array_fields else [])
        if not alts:
            return
        whole = regex.compile("(?:" + "|".join(alts) + r")(?!\s*\[)")
        for ctx in _common.function_contexts(unit):
            for m in whole.finditer(unit.masked, *ctx.body):
                name = regex.search(r"\w+$", m.group()).group()
                if name in ctx.arrays or regex.search(r"\b(?:sizeof|Py_ARRAY_LENGTH)\s*\(?[\w\s.>-]*$",
                                                      unit.masked[max(0, m.start() - 60):m.start()]):
                    continue
                unit.leftover(m.start(), f"the array of references {name} is used whole: its items are "
                              "Cystck_Ref, not PyObject *; read and store them one by one", self.name)

    def _declarations(self, unit, names):
        code = unit.structure
        edits = source.Edits()
        types = "|".join(["PyObject", "PyTypeObject"] + [regex.escape(t) for t in sorted(unit.project.types)])
        for s, e in source.top_level_items(code):
            # a declaration right after an instance struct: its item starts
            # with the CYSTCK_TYPE_HELPERS line the object-struct rule wrote
            s += _TYPE_HELPERS_LINES.match(code, s, e).end() - s
            item = code[s:e]
            m = regex.match(rf"\s*(?:(?:static|extern)\s+)*(?:const\s+)?(?P<t>(?:struct\s+)?(?:{types})\s*\*)", item)
            if not m or ("{" in item and not proj.NULL_ARRAY_INIT.search(item)) or regex.search(r"\)\s*;\s*$", item):
                continue
            # (static PyObject *cache[N] = {NULL}; an array of references too)
            decl = regex.match(rf"(?P<t>(?:struct\s+)?(?:{types})\s*\*\s*)(?P<rest>(?:[\w\s,\*=\[\]]|\{{[\w\s,]*\}})*);",
                               code[s + m.start("t"):e])
            if not decl or not set(regex.findall(r"\b\w+\b", decl.group("rest"))) & names:
                continue
            rest = unit.text[s + m.start("t") + decl.start("rest"):s + m.start("t") + decl.end("rest")]
            rest = regex.sub(r"\*\s*", "", rest)
            rest = regex.sub(r"=\s*(?:NULL|0)\b", "= NULL", rest)
            edits.add(s + m.start("t"), s + m.start("t") + decl.end(), "Cystck_Ref " + rest.strip() + ";")
        if edits:
            unit.apply(edits)
        return edits.applied

    def _uses(self, unit, names, ref_fields, type_vars, elements=None):
        masked = unit.masked
        edits = source.Edits()
        ref = references_re(names, ref_fields)
        if elements:
            ref = f"(?:{elements}|{ref})" if ref else elements
        tre = _common.names_re(type_vars) if type_vars else None
        # (&FooType) in parentheses of its own, not a call's: f(&FooType)
        # keeps f's parenthesis (a cast's closing one may precede)
        type_pat = regex.compile(rf"(?:\(\s*(?:PyObject|PyTypeObject)\s*\*\s*\)\s*)?"
                                 rf"(?:(?<![\w\]]\s*|(?<!\*\s*)\)\s*)\(\s*&\s*(?P<a>{tre})\s*\)"
                                 rf"|&\s*(?P<b>{tre}))") if tre else None
        pats = self._ref_patterns(ref) if ref else None
        # with the locals: a local handle named like a global (shadowing it)
        # is the local, not the reference
        for ctx in _common.stateful_contexts(unit):
            b0, b1 = ctx.body
            local = NotReferences(ctx, unit.project)
            assigned = []
            if pats:
                assigned = self._rewrite_refs(unit, masked, b0, b1, pats, local, edits, type_pat)
            if type_pat:
                for m in type_pat.finditer(masked, b0, b1):
                    name = m.group("a") or m.group("b")
                    if name not in local and not any(a <= m.start() < e for a, e in assigned):
                        edits.add(m.start(), m.end(), f"Cystck_deref(S, {name})")
        for m in regex.finditer(r"^[ \t]*#[ \t]*define[ \t]+\w+(?:\([^)]*\))?(?:[^\n\\]|\\.|\\\n)*",
                                masked, regex.M):
            if type_pat:
                for t in type_pat.finditer(masked, m.start(), m.end()):
                    edits.add(t.start(), t.end(), f"Cystck_deref(S, {t.group('a') or t.group('b')})")
            if ref_fields:
                # a module-state member read in a macro, under a cast the
                # casts rule does not see there: (PyTypeObject *)st.Type
                self._read_refs(unit, masked, m.start(), m.end(), self._cast_read(ref), set(), edits)
            elif names and any(not api.KEEP_STOCK.match(c.group("f"))
                               for c in _MACRO_API_CALL.finditer(masked, m.start(), m.end())):
                # a global read in a macro over the API, which gets S where
                # its calls do: #define Foo_Check(o) PyObject_TypeCheck(o, foo_type)
                params = regex.match(r"[ \t]*#[ \t]*define[ \t]+\w+(?:\((?P<p>[^)]*)\))?", masked[m.start():])
                own = set(regex.findall(r"\w+", params.group("p") or ""))
                self._read_refs(unit, masked, params.end() + m.start(), m.end(),
                                self._cast_read(references_re(names, set())), own, edits)
        if any(XREF_HELPER in new for _, _, new in edits.items):
            _common.define_after_include(unit.text, edits, XREF_HELPER_DEFINITION)
        if any(STEAL_HELPER in new for _, _, new in edits.items):
            _common.define_after_include(unit.text, edits, STEAL_HELPER_DEFINITION)
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _ref_patterns(ref):
        return (regex.compile(rf"\bPy_CLEAR\s*\(\s*(?P<r>{ref})\s*\)\s*;"),
                regex.compile(rf"\bPy_X?(?:INC|DEC)REF\s*\(\s*(?P<r>{ref})\s*\)\s*;"),
                regex.compile(rf"(?<![\w.>&])(?P<r>{ref})\s*=(?!=)\s*"),
                regex.compile(rf"(?<![\w.>&])(?P<r>{ref})"),
                # the newref rule's Py_SETREF(r, b)
                regex.compile(rf"\{{\s*Cystck_Object new_ = (?P<b>[^;]*);\s*Cystck_Drop\(S, (?P<r>{ref})\);"
                              rf"\s*(?P=r)\s*=\s*new_;\s*\}}"),
                # x = r; of a local handle x
                regex.compile(rf"(?<![\w.>&*])(?P<x>\w+)\s*=(?!=)\s*(?P<r>{ref})\s*[;,]"))

    @staticmethod
    def _cast_read(ref):
        return regex.compile(rf"(?:\(\s*(?:PyObject|PyTypeObject)\s*\*\s*\)\s*)?(?<![\w.>&])(?P<r>{ref})")

    def _rewrite_refs(self, unit, masked, b0, b1, pats, local, edits, type_pat=None):
        """The edits for the references in a function body; returns the
        spans of the values assigned to them."""
        text = unit.text
        clear, refcount, assign, read, setref, taken = pats
        assigned = []
        done = []          # spans rewritten whole: nothing inside them again
        for m in setref.finditer(masked, b0, b1):
            if _is_local_ref(text, m, local):
                continue
            r = text[m.start("r"):m.end("r")]
            b = self._value_reading_refs(unit, masked, m.span("b"), read, local, assign)
            edits.add(m.start(), m.end(), f"{{ Cystck_Object new_ = {b}; Cystck_Ref old_ = {r}; "
                                          f"{r} = {XREF_HELPER}(S, new_); Cystck_unref(S, old_); }}")
            done.append(m.span())
        taken_done, replacing = self._rewrite_taken(unit, masked, b0, b1, taken, local, edits)
        done += taken_done

        def is_local(m):
            return _is_local_ref(text, m, local)

        def release(m, r):
            new = f"Cystck_unref(S, {r}); {r} = NULL;"
            edits.add(m.start(), m.end(), "{ " + new + " }" if _common.in_unbraced_body(masked, m.start()) else new)
        # Py_CLEAR(g) -> unref; Py_(X)DECREF(g) / Py_(X)INCREF(g) -> dropped
        for m in clear.finditer(masked, b0, b1):
            if not is_local(m):
                release(m, text[m.start("r"):m.end("r")])
        for m in refcount.finditer(masked, b0, b1):
            if is_local(m):
                continue
            r = text[m.start("r"):m.end("r")]
            if "DECREF" in masked[m.start():m.start("r")] and _is_heap_ref(r, local, unit.project):
                # a member of allocated memory released (the block is about
                # to be freed, or the member overwritten): its reference goes
                release(m, r)
                continue
            if _common.in_unbraced_body(masked, m.start()):
                edits.add(m.start(), m.end(), ";")
            else:
                edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")
        # g = expr  (not ==)
        for m in assign.finditer(masked, b0, b1):
            if is_local(m) or any(a <= m.start() < e for a, e in done):
                continue
            e0, e1 = m.end(), _common.expression_end(masked, m.end(), b1)
            e = text[e0:e1].strip()
            if m.start() in replacing and _store_use(masked, m.start(), e1) == "statement":
                # the store after a local took the reference's object
                # (old = g; g = v; Py_XDECREF(old);): the local has a handle
                # of its own, so the store releases what the reference held
                r = text[m.start("r"):m.end("r")]
                semi = e1 + len(masked[e1:]) - len(masked[e1:].lstrip())
                if e in ("NULL", "0", "nullptr"):
                    edits.add(m.start(), m.start(), f"{{ Cystck_unref(S, {r}); ")
                    edits.add(semi + 1, semi + 1, " }")
                    continue
                if not e.startswith(("Cystck_ref(", XREF_HELPER)):
                    edits.add(m.start(), m.start(), f"{{ Cystck_Ref old_ = {r}; ")
                    edits.add(semi + 1, semi + 1, " Cystck_unref(S, old_); }")
            if e in ("NULL", "0", "nullptr") or e.startswith(("Cystck_ref(", XREF_HELPER)) or not e:
                continue
            e = self._value_reading_refs(unit, masked, (e0, e1), read, local, assign)
            if type_pat:          # st->Type = (PyObject *)&FooType; FooType is a reference too
                e = type_pat.sub(lambda t: f"Cystck_deref(S, {t.group('a') or t.group('b')})", e)
            r = text[m.start("r"):m.end("r")]
            how = _store_use(masked, m.start(), e1)
            if how == "statement":
                edits.add(e0, e1, f"Cystck_ref(S, {e})")
            else:
                # the store's value is used: a null value stores the null
                # reference, tested as the pointer it is, or read as a handle
                store = f"{r} = {XREF_HELPER}(S, {e})"
                edits.add(m.start(), e1, store if how == "test" else
                          f"({store}, {r} ? Cystck_deref(S, {r}) : Cystck_NULL)")
                done.append((m.start(), e1))
            assigned.append((e0, e1))
        self._read_refs(unit, masked, b0, b1, read, local, edits, skip=done)
        return assigned

    @staticmethod
    def _rewrite_taken(unit, masked, b0, b1, taken, local, edits):
        """``PyObject *old = g; g = v; Py_XDECREF(old);``: the local is
        released (a reference's handle is not the call's to release), so it
        gets a handle of its own, the null handle for an empty reference; a
        local that takes a heap struct member's object over steals it.
        A global or module-state member the code stores into after the
        local took it has that store release what it held (the local's
        handle keeps the object): returns the spans rewritten and the
        positions of those stores."""
        text, done, replacing = unit.text, [], set()
        for m in taken.finditer(masked, b0, b1):
            r = text[m.start("r"):m.end("r")]
            x = m.group("x")
            if x not in local or _is_local_ref(text, m, local):
                continue
            later = masked[m.end():b1]
            released = regex.search(rf"\bCystck_Drop\s*\(\s*S\s*,\s*{x}\s*\)", later)
            handed = released or regex.search(rf"\breturn\s+(?:Cystck_Return\s*\(\s*S\s*,\s*)?{x}\s*\)?\s*;",
                                              later)
            if _is_heap_ref(r, local, unit.project) and handed and not regex.search(
                    rf"\bPy_X?INCREF\s*\(\s*(?:Cystck_AsPyObject\s*\(\s*S\s*,\s*)?{x}\s*\)"
                    rf"|\bCystck_Dup\s*\(\s*S\s*,\s*{x}\s*\)", later) and \
                    _gives_up(masked, r, m.end(), m.end() + handed.start()):
                # the local takes the member's object over (the member is
                # overwritten or its block freed, the local released or
                # returned): the reference's object becomes a handle of
                # the call and the reference is released
                edits.add(m.start("r"), m.end("r"), f"{STEAL_HELPER}(S, &{r})")
                done.append(m.span("r"))
            elif released or handed:
                store = None if _is_heap_ref(r, local, unit.project) else _store_after(masked, r, m.end(), b1)
                if store is not None and regex.search(
                        rf"\bPy_X?INCREF\s*\(\s*(?:Cystck_AsPyObject\s*\(\s*S\s*,\s*)?{x}\s*\)"
                        rf"|\bCystck_Dup\s*\(\s*S\s*,\s*{x}\s*\)", later):
                    store = None      # stock keeps a reference of its own in the local
                if not released and store is None:
                    continue
                edits.add(m.start("r"), m.end("r"), f"({r} ? Cystck_Dup(S, Cystck_deref(S, {r})) : Cystck_NULL)")
                done.append(m.span("r"))
                if store is not None:
                    replacing.add(store)
        return done, replacing

    def _value_reading_refs(self, unit, masked, span, read, local, assign=None):
        """The stored value's text with the references it reads (``g2 =
        PyObject_GetAttrString(g1, "x")``) read through Cystck_deref, and
        the stores into references it makes translated (_nested_stores):
        the edit wrapping the value in Cystck_ref covers them."""
        inner = source.Edits()
        stores = self._nested_stores(unit, masked, span, read, local, assign, inner) if assign else []
        self._read_refs(unit, masked, span[0], span[1], read, local, inner, skip=stores)
        result = inner.apply(unit.text)
        return result[span[0]:span[1] + len(result) - len(unit.text)].strip()

    def _nested_stores(self, unit, masked, span, read, local, assign, edits):
        """Edits for the stores into references inside a stored value, ``g1
        = (g2 = f(x))``: each a store whose value is used, ``(g2 =
        cystck_migrate_xref(S, f(x)), g2 ? Cystck_deref(S, g2) :
        Cystck_NULL)``, so that both references hold the object.  Returns
        their spans."""
        text, spans = unit.text, []
        for m in assign.finditer(masked, span[0], span[1]):
            if _is_local_ref(text, m, local) or any(a <= m.start() < e for a, e in spans):
                continue
            v1 = _common.expression_end(masked, m.end(), span[1])
            if masked[m.end():v1].strip() in ("", "NULL", "0", "nullptr"):
                continue
            value = self._value_reading_refs(unit, masked, (m.end(), v1), read, local, assign)
            r = text[m.start("r"):m.end("r")].strip()
            s0, s1 = m.start(), v1
            opening = masked.rfind("(", span[0], s0)
            if opening >= 0 and not masked[opening + 1:s0].strip() and masked[v1:].lstrip().startswith(")"):
                s0, s1 = opening, masked.index(")", v1) + 1      # (g2 = f(x)): its own parentheses
            edits.add(s0, s1, f"({r} = {XREF_HELPER}(S, {value}), {r} ? Cystck_deref(S, {r}) : Cystck_NULL)")
            spans.append((s0, s1))
        return spans

    @staticmethod
    def _read_refs(unit, masked, b0, b1, read, local, edits, skip=()):
        """Remaining reads of references in [b0, b1) become Cystck_deref."""
        text = unit.text

        def is_local(m):
            return _is_local_ref(text, m, local)
        for m in read.finditer(masked, b0, b1):
            if is_local(m) or any(a <= m.start() < e for a, e in skip):
                continue
            before = masked[max(b0, m.start() - 40):m.start()]
            after = masked[m.end():m.end() + 12]
            if regex.search(r"(?:Py_CLEAR|Py_X?(?:INC|DEC)REF|Cystck_unref|Cystck_deref)\s*\(\s*$", before):
                continue
            if regex.match(r"\s*(?:==|!=)\s*(?:NULL|0\b|nullptr)", after) or \
                    regex.search(r"(?:NULL|nullptr)\s*(?:==|!=)\s*$", before):
                continue          # a test of the reference itself
            if regex.search(r"(?:!|&&|\|\||\bif\s*\(|\bwhile\s*\()\s*$", before) and \
                    regex.match(r"\s*(?:\)|&&|\|\|)", after):
                continue
            if regex.match(r"\s*=[^=]", after):
                continue
            if regex.match(r"\s*\?", after) or regex.search(r"\bCystck_Ref\s+\w+\s*=\s*$", before):
                continue          # g ? a : b tests the reference; a copy of it is one
            r = text[m.start('r'):m.end('r')]
            if _VALUE_USED_STORE.search(before) and regex.match(r"\s*\)", after):
                # (x = g) == NULL: the stock test of a global that may be
                # empty; the empty reference reads as the null handle
                edits.add(m.start(), m.end(), f"({r} ? Cystck_deref(S, {r}) : Cystck_NULL)")
                continue
            edits.add(m.start(), m.end(), f"Cystck_deref(S, {r})")


class CriticalSections(Rule):
    """``Py_BEGIN_CRITICAL_SECTION(h)`` ... ``Py_END_CRITICAL_SECTION()``
    on a handle (free-threaded builds lock the object; a plain block under
    the GIL) become ``Cystck_BEGIN_CRITICAL_SECTION(S, h)`` ...
    ``Cystck_END_CRITICAL_SECTION(S)``, paired in order of nesting in one
    function.  A section on something that is no handle (in a function
    without the state, which stays stock), and its end, stay as they are
    (the escape hatch lends a handle to a stock macro where needed)."""
    name = "critical-sections"
    precedence = 857
    patterns = (r"(?<![\w.>])Py_(?P<which>BEGIN|END)_CRITICAL_SECTION\s*\(",)
    before = ("static PyObject *f(PyObject *self)\n{\n    PyObject *r;\n"
              "    Py_BEGIN_CRITICAL_SECTION(self);\n    r = g(self);\n"
              "    Py_END_CRITICAL_SECTION();\n    return r;\n}\n")
    after = ("static PyObject *f(PyObject *self)\n{\n    PyObject *r;\n"
             "    Cystck_BEGIN_CRITICAL_SECTION(S, self);\n    r = g(self);\n"
             "    Cystck_END_CRITICAL_SECTION(S);\n    return r;\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if "_CRITICAL_SECTION" not in code:
            return 0
        edits = source.Edits()
        n = 0
        for ctx in _common.stateful_contexts(unit):
            open_sections = []       # for each open section: is it translated?
            for m in regex.finditer(self.patterns[0], code, pos=ctx.body[0], endpos=ctx.body[1]):
                close = source.matching(code, m.end() - 1)
                if m.group("which") == "BEGIN":
                    arg = code[m.end():close - 1].strip()
                    ours = escape.EscapeHatch._is_handle_expr(arg, ctx, unit.project)
                    open_sections.append(ours)
                    if ours:
                        lent = text[m.end():close - 1].strip()
                        edits.add(m.start(), close, f"Cystck_BEGIN_CRITICAL_SECTION(S, {lent})")
                        n += 1
                elif open_sections and open_sections.pop():
                    edits.add(m.start(), close, "Cystck_END_CRITICAL_SECTION(S)")
        if edits:
            unit.apply(edits)
        return n
