"""The escape hatch: what the other rules cannot port still builds and
behaves as before, through ``Cystck_AsPyObject`` (a handle lent to stock
code as a ``PyObject *``) and ``Cystck_FromNewPyObject``/
``Cystck_FromPyObject`` (a stock result given a handle).  Each such place
carries the marker :data:`MARK` and is listed in the report, so that a
human can find every half-ported spot with one grep."""
import functools

import regex

from .. import api, cstruct, source
from ..engine import Rule
from ..project import CAPSULE_TABLE as _CAPSULE_TABLE, OBJECT_TYPES, capsule_tables, STOCK_ABI_SUFFIX, slot_signatures
from . import _common

#: The one spelling of the comment that marks an escape hatch.
MARK = "/* cystck-migrate: escape hatch */"
#: The mark on the first line of a file kept stock as a whole (the coarsest
#: escape hatch: translate.kept_stock), ahead of its own first line.
KEPT_MARK = "/* cystck-migrate: kept stock */"

# Stock functions (and function-like macros) whose object result is a
# borrowed reference (CPython documents each as "Return value: Borrowed
# reference"): their result gets a handle of its own, Cystck_FromPyObject.
# Every other object result is a new reference, Cystck_FromNewPyObject.
BORROWED = frozenset("""
    PyDict_GetItem PyDict_GetItemString PyDict_GetItemWithError PyDict_SetDefault
    _PyDict_GetItem_KnownHash PyList_GetItem PyList_GET_ITEM PyTuple_GetItem PyTuple_GET_ITEM
    PySequence_Fast_GET_ITEM PyStructSequence_GetItem PyStructSequence_GET_ITEM
    PyModule_GetDict PyErr_Occurred PyEval_GetBuiltins PyEval_GetGlobals PyEval_GetLocals
    PyEval_GetFrame PyImport_GetModuleDict PyImport_AddModule PyImport_AddModuleObject
    PySys_GetObject PyWeakref_GetObject PyWeakref_GET_OBJECT PyCell_GET PyFunction_GetCode
    PyFunction_GetGlobals PyFunction_GetModule PyFunction_GetDefaults PyFunction_GetClosure
    PyFunction_GetAnnotations PyMethod_Function PyMethod_Self PyMethod_GET_FUNCTION
    PyMethod_GET_SELF PyInstanceMethod_Function PyState_FindModule PyThreadState_GetDict
    PyType_GetModule PyCapsule_GetContext PyDescr_NAME PyDescr_TYPE
""".split())

# Stock functions without a Cystck counterpart that steal a reference to
# an argument (CPython's docs: "steals a reference"), by the argument's
# position.  The escape hatch lends those a new reference: the handle's
# own is released with the frame.
STOLEN = {
    "PyException_SetCause": (1,), "PyException_SetContext": (1,),
    "PyErr_SetExcInfo": (0, 1, 2), "PyCell_SET": (1,),
}

_CALL = regex.compile(r"(?<![\w.>]|->)(?P<name>_?Py[A-Z]?\w*)\s*\(")
# A call through the function table of a C API exported in a capsule
# (datetime.h's ``PyDateTimeAPI``).
_API_STRUCT_CALL = regex.compile(r"(?<![\w.>]|->)(?P<api>_?Py\w*API)\s*->\s*(?P<name>\w+)\s*\(")
_OWN_CALL = regex.compile(r"(?<![\w.>]|->)(?P<name>[A-Za-z_]\w*)\s*\(")
_HANDLE_RESULT = regex.compile(r"(?:const\s+)?" + OBJECT_TYPES + r"\s*\*")


def marked(text, pos):
    """Does the escape-hatch mark stand right before ``pos`` (a call, or
    the ``Cystck_From...PyObject(S, `` wrapping it)?"""
    before = text[:pos].rstrip()
    before = regex.sub(r"Cystck_From(?:New)?PyObject\s*\(\s*S\s*,\s*$", "", before).rstrip()
    return before.endswith(MARK)


def escaped_spans(text, code):
    """Spans (start, end) of the calls kept through the escape hatch
    (``f(...)``, or ``SomeAPI->f(...)`` through a capsule's table): from
    the mark to the call's closing parenthesis."""
    spans = []
    for m in regex.finditer(regex.escape(MARK), text):
        call = regex.compile(r"\s*(?:Cystck_From(?:New)?PyObject\s*\(\s*S\s*,\s*)?(?:\w+\s*->\s*)?\w+\s*\(").match(
            code, m.end())
        if call:
            spans.append((m.start(), source.matching(code, call.end() - 1)))
    return spans


class EscapeHatch(Rule):
    """A call of a stock function that has no Cystck counterpart (and that
    no other rule translated) is kept through the escape hatch: each handle
    argument is lent as ``Cystck_AsPyObject(S, h)`` (one the function
    steals, ``PyException_SetCause``'s cause or the parameter an own helper
    kept stock releases, ``Py_DECREF(o)``, as a new reference,
    ``Py_XNewRef(Cystck_AsPyObject(S, h))``), and an object result
    gets a handle, ``Cystck_FromNewPyObject(S, ...)`` for a new reference
    or ``Cystck_FromPyObject(S, ...)`` for a borrowed one (the return types
    come from CPython's own headers).  A call through the function table
    of a C API exported in a capsule, ``PyDateTimeAPI->Time_FromTime(...)``
    (and a macro of datetime.h that calls one), is kept the same way.  The call is marked with
    ``/* cystck-migrate: escape hatch */`` and reported.  A call that takes
    the address of a handle (an output parameter) cannot be kept this way
    and is reported as it is.  An array of objects (``PySequence_Fast_ITEMS``
    the sequence-fast-items rule did not turn into reads) is kept as a
    stock ``PyObject **``: its argument lent, its items given handles where
    they are read (that rule's docstring)."""
    name = "escape-hatch"
    precedence = 860
    patterns = (_CALL.pattern,)
    before = "static PyObject *f(PyObject *o) { PyObject *r = PyFile_GetLine(o, 2); return r; }\n"
    after = ("static PyObject *f(PyObject *o) { PyObject *r = Cystck_FromNewPyObject(S, "
             "/* cystck-migrate: escape hatch */ PyFile_GetLine(Cystck_AsPyObject(S, o), 2)); return r; }\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        p = unit.project
        mapping = api.stock_map()
        from ..analysis import own_names     # analysis reads this module's marks
        own = own_names(unit, code) | {f"{s}_AsStruct" for s in p.custom_structs}
        edits = source.Edits()
        n = 0
        for ctx in _common.stateful_contexts(unit):
            b0, b1 = ctx.body
            for m in _CALL.finditer(code, b0, b1):
                name = m.group("name")
                if name in own or ((name in mapping or name in api.SPECIAL) and name not in api.SPECIAL_ELSE_ESCAPED) \
                        or api.KEEP_STOCK.match(name) or marked(text, m.start()):
                    continue
                # an argument of a kept call stays a PyObject *
                inner = self._enclosing_escape(code, b0, m.start(), mapping, own)
                n += self._keep(unit, ctx, m, edits, wrap_result=not inner)
            # a C API exported through a capsule, ``PyDateTimeAPI->Date_FromDate(...)``
            for m in _API_STRUCT_CALL.finditer(code, b0, b1):
                if "->" + m.group("name") in api.stock_returns() and not marked(text, m.start()):
                    inner = self._enclosing_escape(code, b0, m.start(), mapping, own)
                    n += self._keep(unit, ctx, m, edits, wrap_result=not inner, returns="->" + m.group("name"))
            # the extension's own helpers that stay stock (they read object
            # internals) are lent handles the same way
            for m in _OWN_CALL.finditer(code, b0, b1):
                role = p.role(m.group("name"))
                if role is not None and role.kind == "stock" and not marked(text, m.start()):
                    n += self._keep(unit, ctx, m, edits, wrap_result=False,
                                    params=self._stock_params(unit).get(m.group("name")))
        if edits:
            unit.apply(edits)
        return n

    @staticmethod
    def _stock_params(unit):
        """The parameters of the file's functions that stay stock, by name."""
        return {c.func.name: c.params for c in _common.function_contexts(unit, with_locals=False)
                if c.func.is_definition and c.role is not None and c.role.kind == "stock"}

    def _keep(self, unit, ctx, m, edits, wrap_result=True, params=None, returns=None):
        code, text = unit.masked, unit.text
        name = m.group("name")
        open_at = m.end() - 1
        close = source.matching(code, open_at)
        args = source.split_top(code, open_at + 1, close - 1) if code[open_at + 1:close - 1].strip() else []
        ret = api.stock_returns().get(returns or name)
        # an own helper kept stock that releases a parameter (Py_DECREF(o)
        # of its own) steals it: it is lent a new reference, as STOLEN's
        role = unit.project.role(name)
        info = unit.project.function(unit.path, name) if role is not None and role.kind == "stock" else None
        stolen = info.stolen if info is not None else frozenset()
        if ret is not None and regex.fullmatch(r"(?:const\s+)?" + OBJECT_TYPES + r"\s*\*\s*\*", ret):
            return 0                  # an array of objects has no handle form: left over, reported
        for s, e in args:
            if regex.match(r"\s*&\s*(\w+)\s*$", code[s:e]) and \
                    _common.is_handle(code[s:e].strip()[1:], ctx, unit.project):
                unit.leftover(m.start(), f"{name} has no Cystck counterpart and takes the address of a handle "
                              "(an output parameter): rewrite by hand", self.name)
                return 0
        for i, (s, e) in enumerate(args):
            arg = code[s:e].strip()
            if self._is_handle_expr(arg, ctx, unit.project):
                lead = s + len(code[s:e]) - len(code[s:e].lstrip())
                lent = f"Cystck_AsPyObject(S, {text[lead:lead + len(arg)]})"
                if i in STOLEN.get(name, ()) or i in stolen:
                    lent = f"Py_XNewRef({lent})"
                # a stock helper's PyTypeObject * parameter takes the object as its type
                cast = self._pointer_cast(params[i]) if params and i < len(params) else None
                if cast is None and i in api.stock_type_params().get(name, ()):
                    cast = "PyTypeObject *"
                edits.add(lead, lead + len(arg), f"({cast}){lent}" if cast else lent)
        wrap = wrap_result and ret is not None and _HANDLE_RESULT.fullmatch(ret.strip()) and not self._raw_result(code, m.start(), close)
        if wrap:
            hatch = "Cystck_FromPyObject" if name in BORROWED else "Cystck_FromNewPyObject"
            edits.add(m.start(), m.start(), f"{hatch}(S, {MARK} ")
            edits.add(close, close, ")")
            how = f"its result is given a handle with {hatch}"
        else:
            edits.add(m.start(), m.start(), f"{MARK} ")
            how = "its result is used as it is"
        unit.leftover(m.start(), f"escape hatch: {name} has no Cystck counterpart: kept, with handles lent "
                      f"through Cystck_AsPyObject; {how}", self.name)
        return 1

    @staticmethod
    def _pointer_cast(param):
        """``PyTypeObject *`` (another object struct than ``PyObject``) for
        a parameter declared so, else None."""
        base = regex.sub(r"\bconst\b", "", param.base).strip()
        if param.ptr == "*" and base != "PyObject" and regex.fullmatch(OBJECT_TYPES, base):
            return f"{base} *"
        return None

    @staticmethod
    def _is_handle_expr(arg, ctx, project):
        if regex.fullmatch(_common.HX, arg) and _common.is_handle(arg, ctx, project):
            return True
        deref = regex.fullmatch(r"\*\s*(\w+)", arg)      # *op, op a pointer to a handle
        if deref and deref.group(1) in ctx.arrays:
            return True
        call = regex.fullmatch(r"(?P<f>Cystck\w+)\s*" + source.paren("a"), arg)
        if call:
            f = api.by_name().get(call.group("f"))
            return f is not None and f.ret == "h"
        return False

    @staticmethod
    def _raw_result(code, start, close):
        """Is the result only compared with NULL or negated (a raw pointer
        test, which a handle would not compile in)?"""
        return bool(regex.match(r"\s*[!=]=\s*(?:NULL|0|nullptr)\b", code[close:]) or
                    regex.search(r"(?:!|(?:NULL|0|nullptr)\s*[!=]=)\s*$", code[:start]))

    @staticmethod
    def _enclosing_escape(code, b0, pos, mapping, own):
        """Is ``pos`` inside the argument list of another stock call that
        has no counterpart?"""
        depth = 0
        for i in range(pos - 1, b0, -1):
            c = code[i]
            if c == ")":
                depth += 1
            elif c == "(":
                if depth == 0:
                    m = regex.search(r"(?<![\w.>])(_?Py[A-Z]?\w*)\s*$", code[b0:i])
                    if m and m.group(1) not in own and m.group(1) not in mapping and \
                            m.group(1) not in api.SPECIAL and not api.KEEP_STOCK.match(m.group(1)):
                        return True
                else:
                    depth -= 1
            elif c in ";{}":
                return False
        return False


# Type slots holding objects.
_OBJECT_SLOTS = frozenset("tp_mro tp_dict tp_bases tp_base tp_cache".split())


@functools.lru_cache(maxsize=None)
def _object_result_slots():
    """The type slots whose functions return a new reference (the others
    return C values): those of the API table whose stock type returns an
    object (their implementations push it), and tp_getattr, which the table
    lacks (CYSTCK_DEF_SLOT takes tp_getattro only)."""
    return frozenset({name for name, sig in slot_signatures().items() if sig["pushes"] and name.startswith("tp_")}
                     | {"tp_getattr"})
# Allocation and deallocation belong to the object-new and destroy-traverse
# rules (a slot of one type called for another is left for a human).
_LIFECYCLE_SLOTS = frozenset("tp_alloc tp_free tp_dealloc".split())


class TypeSlotReads(Rule):
    """A read of a type's slot through a handle to the type (``type->tp_mro``,
    ``Py_TYPE(o)->tp_descr_get``, which the py-type rule made
    ``CystckObject_Type(S, o)->tp_descr_get``) has no Cystck counterpart: the
    type is lent as a ``PyTypeObject *`` through the escape hatch.  An
    object slot read as a value gets a handle of its own
    (``Cystck_FromNewPyObject(S, Py_XNewRef(...))``: an empty slot is the
    null handle, no error); a called slot function has its handle arguments
    lent (a null handle as NULL, which slot functions take for "absent")
    and its new object given a handle; any other use (a flag, a NULL
    test, a C value) reads the slot as it is.  A stock type's own slot,
    ``PyLong_Type.tp_repr(o)`` (the base's repr of a subclass instance),
    is called the same way, with no handle to lend for the type.  Stores into a slot, and
    ``tp_alloc``/``tp_free``/``tp_dealloc`` (the object-new and
    destroy-traverse rules' business), are left alone."""
    name = "type-slot-reads"
    precedence = 858
    needs = ("py-type",)     # Py_TYPE(o)->tp_x is CystckObject_Type(S, o)->tp_x then
    # h->tp_x, CystckObject_Type(S, o)->tp_x, ((PyTypeObject *)h)->tp_x
    # (or (h)->tp_x, what the casts rule leaves of it)
    patterns = (r"(?:(?:(?<![\w)\]])\(\s*(?:\(\s*PyTypeObject\s*\*\s*\)\s*)?(?P<v>\w+)\s*\)"
                r"|(?P<h>(?<![\w.>])\w+|\bCystckObject_Type\s*" + source.paren("a") + r"))"
                r"\s*->|(?<![\w.>])(?P<st>_?Py[A-Z]\w*_Type)\s*\.)\s*(?P<slot>tp_\w+)\b",)
    before = ("static PyObject *f(PyTypeObject *type, PyObject *d, PyObject *o)\n{\n"
              "    PyObject *mro = type->tp_mro;\n"
              "    if (type->tp_descr_get == NULL)\n        return mro;\n"
              "    return (type->tp_descr_get)(d, o, mro);\n}\n")
    after = ("static PyObject *f(PyTypeObject *type, PyObject *d, PyObject *o)\n{\n"
             "    PyObject *mro = Cystck_FromNewPyObject(S, " + MARK + " Py_XNewRef("
             "((PyTypeObject *)Cystck_AsPyObject(S, type))->tp_mro));\n"
             "    if (" + MARK + " ((PyTypeObject *)Cystck_AsPyObject(S, type))->tp_descr_get"
             " == NULL)\n        return mro;\n"
             "    return Cystck_FromNewPyObject(S, " + MARK + " (((PyTypeObject *)"
             "Cystck_AsPyObject(S, type))->tp_descr_get)((Cystck_IsNull(d) ? NULL : Cystck_AsPyObject(S, d)), "
             "(Cystck_IsNull(o) ? NULL : Cystck_AsPyObject(S, o)), "
             "(Cystck_IsNull(mro) ? NULL : Cystck_AsPyObject(S, mro))));\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if not regex.search(r"(?:->|\.)\s*tp_\w", code):
            return 0
        edits = source.Edits()
        n = 0
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            if m.group("st") is None and m.group("a") is None and (m.group("v") or m.group("h")) not in ctx.handles:
                continue
            if m.group("slot") in _LIFECYCLE_SLOTS or regex.match(r"\s*=(?!=)", code[m.end():]) \
                    or marked(text, m.start()):
                continue          # a store into the slot, or kept already
            n += self._keep(unit, ctx, m, edits)
        if edits:
            unit.apply(edits)
        return n

    def _keep(self, unit, ctx, m, edits):
        code, text = unit.masked, unit.text
        slot = m.group("slot")
        if m.group("st"):       # a stock type's own slot: PyLong_Type.tp_repr
            lent = f"{m.group('st')}.{slot}"
        else:
            handle = m.group("v") or text[m.start('h'):m.end('h')]
            lent = f"((PyTypeObject *)Cystck_AsPyObject(S, {handle}))->{slot}"
        start, end = m.start(), m.end()
        # (X->slot)(args) or X->slot(args): a call of the slot function
        wrapped = code[start - 1:start] == "(" and regex.match(r"\s*\)\s*\(", code[end:])
        call = regex.match(r"\s*\(", code[end + 1:] if wrapped else code[end:])
        if wrapped:
            start, end = start - 1, end + 1
            lent = f"({lent})"
        if call:
            open_at = end + call.end() - 1
            close = source.matching(code, open_at)
            edits.add(start, m.end() + (1 if wrapped else 0), lent)
            self.lend_arguments(unit, ctx, open_at, close, edits)
            if slot in _object_result_slots():
                edits.add(start, start, f"Cystck_FromNewPyObject(S, {MARK} ")
                edits.add(close, close, ")")
            else:
                edits.add(start, start, f"{MARK} ")
        elif slot in _OBJECT_SLOTS and not EscapeHatch._raw_result(code, m.start(), m.end()) \
                and not self._condition(code, m.start(), m.end()):
            edits.add(m.start(), m.end(), f"Cystck_FromNewPyObject(S, {MARK} Py_XNewRef("
                                          f"{'(PyObject *)' if slot == 'tp_base' else ''}{lent}))")
        else:
            edits.add(m.start(), m.end(), f"{MARK} {lent}")
        unit.leftover(m.start(), f"escape hatch: the type slot {slot} has no Cystck counterpart: read "
                      "through Cystck_AsPyObject", self.name)
        return 1

    @staticmethod
    def lend_arguments(unit, ctx, open_at, close, edits):
        """Lend the handle arguments of the call of a stock slot function
        whose parentheses are at ``open_at`` and ``close``: slot functions
        take NULL for "absent" (descr_get's instance, descr_set's value),
        so a variable holding the null handle is lent as NULL; so is a
        handle in either branch of a conditional (``c ? NULL : v``)."""
        code, text = unit.masked, unit.text
        for s, e in source.split_top(code, open_at + 1, close - 1):
            cond = regex.fullmatch(r"(?P<c>[^?]*)\?(?P<a>[^:?]*):(?P<b>[^:?]*)", code[s:e])
            pieces = [(s + cond.start(g), s + cond.end(g)) for g in ("a", "b")] if cond else [(s, e)]
            for a, b in pieces:
                arg = code[a:b].strip()
                lead = a + len(code[a:b]) - len(code[a:b].lstrip())
                if arg == "Cystck_NULL":
                    edits.add(lead, lead + len(arg), "NULL")
                elif EscapeHatch._is_handle_expr(arg, ctx, unit.project):
                    h = text[lead:lead + len(arg)]
                    lend = f"Cystck_AsPyObject(S, {h})"
                    if regex.fullmatch(r"\w+", h):       # a variable may hold the null handle
                        lend = f"(Cystck_IsNull({h}) ? NULL : {lend})"
                    edits.add(lead, lead + len(arg), lend)

    @staticmethod
    def _condition(code, start, end):
        """Is the read a truth value (``if (t->tp_dict)``, ``a && t->tp_dict``)?"""
        return bool(regex.search(r"(?:\b(?:if|while)\s*\(|&&|\|\||!)\s*$", code[max(0, start - 12):start])
                    and regex.match(r"\s*(?:\)|&&|\|\||\?)", code[end:]))


# CPython's slot function types (object.h) whose functions stock code may
# read from a type and keep, and whether their result is a new object.
# unaryfunc and the like also hold the extension's own functions
# (stock-function-pointers: a member, a parameter, a local declared
# without a value); a local of theirs counts only where it is given a
# slot read (``unaryfunc meth = NULL; ... meth = type->tp_as_async->am_aiter;``).
_SLOT_POINTER_TYPES = {"descrgetfunc": True, "getattrofunc": True, "reprfunc": True, "richcmpfunc": True,
                       "unaryfunc": True, "binaryfunc": True, "ternaryfunc": True,
                       "getiterfunc": True, "iternextfunc": True, "descrsetfunc": False, "setattrofunc": False,
                       "hashfunc": False, "lenfunc": False, "objobjproc": False, "objobjargproc": False}


# what type-slot-reads makes of a slot read, after the '=' of a store
_SLOT_READ = regex.compile(r"=\s*" + regex.escape(MARK) + r"\s*\(\s*\(\s*PyTypeObject\s*\*\s*\)")


class SlotPointerCalls(Rule):
    """A type's slot function kept in a local (``descrgetfunc f =
    Py_TYPE(d)->tp_descr_get;``, which type-slot-reads reads through the
    escape hatch) is a stock function: its calls, ``f(d, obj, type)`` or
    ``(*f)(d, obj, type)``, are kept through the escape hatch too, the handle arguments lent (a
    variable holding the null handle, and ``NULL``, as NULL) and a new
    object result given a handle, ``Cystck_FromNewPyObject``; marked and
    reported.  A local of such a type not read from a type's slot (the
    extension's own function) is left alone."""
    name = "slot-pointer-calls"
    precedence = 861
    needs = ("type-slot-reads",)
    patterns = (r"\b(?P<t>" + "|".join(_SLOT_POINTER_TYPES) + r")\s+(?P<f>\w+)\s*[;=]",)
    before = ("static PyObject *f(PyObject *d, PyObject *o)\n{\n"
              "    descrgetfunc get = Py_TYPE(d)->tp_descr_get;\n"
              "    return get == NULL ? NULL : get(d, o, NULL);\n}\n")
    after = ("static PyObject *f(PyObject *d, PyObject *o)\n{\n"
             "    descrgetfunc get = " + MARK + " ((PyTypeObject *)Cystck_AsPyObject(S, CystckObject_Type(S, d)))"
             "->tp_descr_get;\n"
             "    return get == NULL ? NULL : Cystck_FromNewPyObject(S, " + MARK + " get((Cystck_IsNull(d) ? NULL : "
             "Cystck_AsPyObject(S, d)), (Cystck_IsNull(o) ? NULL : Cystck_AsPyObject(S, o)), NULL));\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if not regex.search(self.patterns[0], code):
            return 0
        edits, n = source.Edits(), 0
        for ctx in _common.stateful_contexts(unit):
            b0, b1 = ctx.body
            for f, new_object in self._slot_pointers(code, text, b0, b1).items():
                call = rf"(?:(?<![\w.>]){regex.escape(f)}|\(\s*\*\s*{regex.escape(f)}\s*\))\s*\("
                for m in regex.finditer(call, code[:b1], pos=b0):
                    if marked(text, m.start()):
                        continue
                    close = source.matching(code, m.end() - 1)
                    TypeSlotReads.lend_arguments(unit, ctx, m.end() - 1, close, edits)
                    if new_object:
                        edits.add(m.start(), m.start(), f"Cystck_FromNewPyObject(S, {MARK} ")
                        edits.add(close, close, ")")
                    else:
                        edits.add(m.start(), m.start(), f"{MARK} ")
                    unit.leftover(m.start(), f"escape hatch: {f} holds a type's slot function, a stock one: "
                                  "called with handles lent through Cystck_AsPyObject", self.name)
                    n += 1
        if edits:
            unit.apply(edits)
        return n

    def _slot_pointers(self, code, text, b0, b1):
        """The locals of the body ``code[b0:b1]`` of a slot function type
        that are assigned a slot read through the escape hatch -> whether
        their functions return a new object."""
        out = {}
        for m in regex.finditer(self.patterns[0], code[:b1], pos=b0):
            f = m.group("f")
            stores = regex.finditer(rf"(?<![\w.>]){regex.escape(f)}\s*(?==(?!=))", code[:b1], pos=b0)
            if any(_SLOT_READ.match(text, s.end()) for s in stores):
                out[f] = _SLOT_POINTER_TYPES[m.group("t")]
        return out


class ObjectAddresses(Rule):
    """An object's address as an integer, ``(Py_uintptr_t)self`` (a repr
    showing ``0x...``, an identity key), is the object's identity, not
    its handle's: ``(Py_uintptr_t)CystckObject_Id(S, self)``, the same for
    every handle to the object (``uintptr_t``, ``intptr_t`` and
    ``Py_intptr_t`` likewise)."""
    name = "object-addresses"
    precedence = 859
    patterns = (r"\(\s*(?P<t>(?:Py_)?u?intptr_t)\s*\)\s*(?P<h>\w+)\b(?!\s*(?:->|\[|\(|\.))",)
    before = ("static PyObject *f(PyObject *self, char *buf)\n{\n"
              "    sprintf(buf, \"%zx %zx\", (size_t)(Py_uintptr_t)self, (Py_uintptr_t)buf);\n"
              "    return PyUnicode_FromString(buf);\n}\n")
    after = ("static PyObject *f(PyObject *self, char *buf)\n{\n"
             "    sprintf(buf, \"%zx %zx\", (size_t)(Py_uintptr_t)CystckObject_Id(S, self), "
             "(Py_uintptr_t)buf);\n    return PyUnicode_FromString(buf);\n}\n")

    def apply(self, unit):
        code = unit.masked
        if not regex.search(self.patterns[0], code):
            return 0
        edits = source.Edits()
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            h = m.group("h")
            if h not in ctx.handles:
                continue
            edits.add(m.start("h"), m.end("h"), f"CystckObject_Id(S, {h})")
        if edits:
            unit.apply(edits)
        return edits.applied


# printf-like functions of C and of CPython, with the index of their format
_PRINTF_FORMAT_AT = {"printf": 0, "fprintf": 1, "sprintf": 1, "snprintf": 2, "dprintf": 1,
                     "PySys_WriteStdout": 0, "PySys_WriteStderr": 0, "PyOS_snprintf": 2}
# one conversion of a printf format (or %%), with its width and precision
_CONVERSION = regex.compile(r"%(?:%|[-+ #0']*(?P<w>\*|\d+)?(?:\.(?P<p>\*|\d+))?(?:hh|h|ll|l|j|z|t|L)?(?P<c>[a-zA-Z]))")


class PrintedObjectAddresses(Rule):
    """An object printed with ``%p`` (``fprintf(f, "[%p]", o)``, a debug
    print) would print a handle, which is a struct, not a pointer (a
    warning, and garbage): its identity is printed, ``(void
    *)CystckObject_Id(S, o)``, the same for every handle to the object.
    The argument is a handle variable or a call returning a handle
    (``Cystck_deref(S, n->value)``); the format a string literal."""
    name = "printed-object-addresses"
    precedence = 862
    patterns = (r"(?<![\w.>])(?P<f>" + "|".join(_PRINTF_FORMAT_AT) + r")\s*" + source.paren("a"),)
    before = ("static void show(FILE *f, PyObject *o)\n{\n"
              "    fprintf(f, \"%s at %p\\n\", Py_TYPE(o)->tp_name, o);\n}\n")
    after = ("static void show(FILE *f, PyObject *o)\n{\n"
             "    fprintf(f, \"%s at %p\\n\", Py_TYPE(o)->tp_name, (void *)CystckObject_Id(S, o));\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if not regex.search(self.patterns[0], code):
            return 0
        makers = {f.name for f in api.table() if f.ret == "h"} | unit.project.handle_makers(unit.path)
        edits = source.Edits()
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            a0, a1 = m.span("a")
            args = source.split_top(code, a0 + 1, a1 - 1)
            at = _PRINTF_FORMAT_AT[m.group("f")]
            if len(args) <= at:
                continue
            fmt = regex.fullmatch(r'\s*"((?:[^"\\\n]|\\.)*)"\s*', text[args[at][0]:args[at][1]])
            if fmt is None:
                continue
            i = at + 1
            for c in _CONVERSION.finditer(fmt.group(1)):
                if c.group() == "%%":
                    continue
                i += (c.group("w") == "*") + (c.group("p") == "*")
                if c.group("c") == "p" and i < len(args):
                    s, e = args[i]
                    arg = code[s:e].strip()
                    call = regex.fullmatch(r"(\w+)\s*\(.*\)", arg, regex.S)
                    if arg in ctx.handles or (call and call.group(1) in makers):
                        lead = len(code[s:e]) - len(code[s:e].lstrip())
                        start = s + lead
                        edits.add(start, start + len(arg), f"(void *)CystckObject_Id(S, {text[start:start + len(arg)]})")
                i += 1
        if edits:
            unit.apply(edits)
        return edits.applied


# a stock module definition's pointer declared: ``PyModuleDef *def``, ``struct PyModuleDef *const d``
_STOCK_DEF_POINTER = regex.compile(r"(?<![\w.>])(?:struct\s+)?PyModuleDef\s*\*\s*(?:const\s+)?(\w+)\s*[;=,)\[]")


class StockModuleDefs(Rule):
    """A function that stays stock (it reads object internals) and compares
    a module's definition with the extension's own, ``PyModule_GetDef(m)
    == &moduledef``, would compare a ``PyModuleDef *`` with the
    ``CystckModuleDef`` the modules rule made of ``moduledef``: never
    equal.  The definition is lent as the one CPython knows,
    ``Cystck_AsPyModuleDef(&moduledef)`` (marked and reported); so it is
    in a ported function where ``PyModule_GetDef``, which has no
    counterpart, is kept through the escape hatch and compared with it, or
    where a ``PyModuleDef *`` (a parameter, a local or a global, which
    stays stock: ``def = PyModule_GetDef(m)``, kept) is compared with it."""
    name = "stock-module-defs"
    precedence = 865
    needs = ("module-def",)
    patterns = (r"\bCystckModuleDef\s+(?P<d>\w+)\s*[=;]",)
    before = ("static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, \"m\", NULL, 0, NULL};\n"
              "static int ours(PyTypeObject *tp)\n{\n"
              "    PyObject *m = PyType_GetModule(tp->tp_base);\n"
              "    return m != NULL && PyModule_GetDef(m) == &moduledef;\n}\n")
    after = ("static CystckModuleDef moduledef = {\n    \"m\",\n    NULL,\n    0,\n    NULL\n};\n"
             "static int ours(PyTypeObject *tp)\n{\n"
             "    PyObject *m = PyType_GetModule(tp->tp_base);\n"
             f"    return m != NULL && PyModule_GetDef(m) == {MARK} Cystck_AsPyModuleDef(&moduledef);\n}}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        defs = {m.group("d") for m in regex.finditer(self.patterns[0], code)}
        if not defs:
            return 0
        address = regex.compile(r"(?<![\w)\]])&\s*(?P<d>" + "|".join(map(regex.escape, sorted(defs))) + r")\b")
        edits = source.Edits()
        stock = [(b, None) for b in _common.stock_bodies(unit)]
        ported = [(ctx.body, ctx) for ctx in _common.stateful_contexts(unit)]
        for (b0, b1), ctx in stock + ported:
            for m in address.finditer(code, b0, b1):
                if code[max(b0, m.start() - 40):m.start()].rstrip().endswith("Cystck_AsPyModuleDef("):
                    continue
                if ctx and not self._compared_with_kept_get_def(code, b0, b1, m) \
                        and not self._compared_with_pointer(code, b0, b1, m, self._stock_def_pointers(unit, ctx)):
                    continue
                edits.add(m.start(), m.end(), f"{MARK} Cystck_AsPyModuleDef({text[m.start():m.end()]})")
                unit.leftover(m.start(), f"escape hatch: {m.group('d')} is lent to stock code as the "
                              "PyModuleDef CPython knows it by (Cystck_AsPyModuleDef)", self.name)
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _stock_def_pointers(unit, ctx):
        """The names declared ``PyModuleDef *`` (stock definitions: the
        module-def rule made the file's own ones ``CystckModuleDef``) in
        the function's parameters and body or at the file's top level."""
        code = unit.masked
        bodies = [f.body for f in unit.functions() if f.is_definition and f.body != ctx.body]
        return {m.group(1) for m in _STOCK_DEF_POINTER.finditer(code)
                if ctx.func.params[0] <= m.start() < ctx.body[1] or not any(a <= m.start() < b for a, b in bodies)}

    @staticmethod
    def _compared_with_pointer(code, b0, b1, m, names):
        """Is the address at m compared with one of ``names``, or with a
        member so named (``st->def``: a struct's members are declared at
        the top level)?"""
        if not names:
            return False
        name = r"(?:\w+\s*(?:->|\.)\s*)*(?:" + "|".join(map(regex.escape, sorted(names))) + r")"
        return bool(regex.search(r"(?<![\w.>])" + name + r"\s*[!=]=\s*$", code[max(b0, m.start() - 100):m.start()])
                    or regex.match(r"\s*[!=]=\s*" + name + r"\b(?!\s*(?:->|\.|\[|\())", code[m.end():b1]))

    @staticmethod
    def _compared_with_kept_get_def(code, b0, b1, m):
        """Is the address at m compared with ``PyModule_GetDef(...)``?"""
        call = r"\bPyModule_GetDef\s*" + source.paren("a")
        return bool(regex.search(call + r"\s*[!=]=\s*$", code[max(b0, m.start() - 300):m.start()])
                    or regex.match(r"\s*[!=]=\s*(?:/\*[^*]*\*/\s*)?" + call, code[m.end():b1]))


# An object member of a capsule's C API passed as an argument,
# ``(..., PyDateTimeAPI->DateType, ...)``.
_CAPI_OBJECT_ARGUMENT = regex.compile(r"[(,]\s*(?P<read>(?<![\w.>])_?Py\w*API\s*->\s*(?P<member>\w+))(?=\s*[,)])")


def _given_a_handle(text, pos):
    """Is the stock pointer at ``pos`` already the argument of an escape
    hatch's ``Cystck_FromPyObject(S, MARK (PyObject *)(...))``?"""
    return bool(regex.search(r"Cystck_FromPyObject\s*\(\s*S\s*,\s*" + regex.escape(MARK) +
                             r"\s*(?:\(\s*\w+\s*\*\s*\)\s*)?\(*\s*$", text[max(0, pos - 160):pos]))


class StockObjectValues(Rule):
    """A stock macro that reads an object from a C API exported in a
    capsule, ``PyDateTime_TimeZone_UTC`` (``PyDateTimeAPI->TimeZone_UTC``,
    read from CPython's headers: :func:`..api.stock_object_values`), gets
    a handle where a function with the state uses it as a value:
    ``Cystck_FromPyObject(S, PyDateTime_TimeZone_UTC)`` (the capsule owns
    the object: a borrowed reference), marked and reported.  So does the
    address of a type object that stays stock, a struct sequence's
    (``(PyObject *)&FooType`` after ``PyStructSequence_InitType2(&FooType,
    &desc)``): ``Cystck_FromPyObject(S, (PyObject *)&FooType)``, and an
    object member of such a C API passed as an argument,
    ``f(S, PyDateTimeAPI->DateType, ...)``:
    ``Cystck_FromPyObject(S, (PyObject *)PyDateTimeAPI->DateType)``.  Inside
    the arguments of a call kept stock it stays the stock pointer."""
    name = "stock-object-values"
    precedence = 866
    patterns = (r"(?<![\w.>]|->)(?P<name>_?Py\w+)\b(?!\s*\()",)
    before = "static PyObject *utc(PyObject *self, PyObject *unused) { return Py_NewRef(PyDateTime_TimeZone_UTC); }\n"
    after = ("static PyObject *utc(PyObject *self, PyObject *unused) { return Py_NewRef("
             "Cystck_FromPyObject(S, " + MARK + " PyDateTime_TimeZone_UTC)); }\n")

    def apply(self, unit):
        values = api.stock_object_values()
        types = unit.project.stock_struct_types
        if not any(v in unit.text for v in values) and not any(t in unit.text for t in types) \
                and "API->" not in unit.text.replace(" ", ""):
            return 0
        code, text = unit.masked, unit.text
        stock = escaped_spans(text, code)
        edits = source.Edits()
        if types:
            address = r"(?:\(\s*(?:PyObject|PyTypeObject)\s*\*\s*\)\s*)?(?<![\w&])&\s*(?P<name>" + \
                "|".join(map(regex.escape, sorted(types))) + r")\b(?!\s*(?:\.|->|\[))"
            for ctx, m in _common.matches_in_state_bodies(unit, address, code):
                if marked(text, m.start()) or any(s <= m.start() < e for s, e in stock):
                    continue
                edits.add(m.start(), m.end(), f"Cystck_FromPyObject(S, {MARK} (PyObject *)&{m.group('name')})")
                unit.leftover(m.start(), f"escape hatch: {m.group('name')} is a struct-sequence type, which "
                              "stays a stock PyTypeObject: given a handle with Cystck_FromPyObject", self.name)
        members = api.stock_capi_objects()
        for ctx, m in _common.matches_in_state_bodies(unit, _CAPI_OBJECT_ARGUMENT, code):
            if "->" + m.group("member") not in members or marked(text, m.start()) \
                    or any(s <= m.start() < e for s, e in stock) or _given_a_handle(text, m.start("read")):
                continue
            read = text[m.start("read"):m.end("read")]
            edits.add(m.start("read"), m.end("read"), f"Cystck_FromPyObject(S, {MARK} (PyObject *){read})")
            unit.leftover(m.start("read"), f"escape hatch: {read} (an object of a C API exported in a capsule) "
                          "has no Cystck counterpart: given a handle with Cystck_FromPyObject", self.name)
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            name = m.group("name")
            if name not in values or marked(text, m.start()) or any(s <= m.start() < e for s, e in stock):
                continue
            edits.add(m.start(), m.end(), f"Cystck_FromPyObject(S, {MARK} {name})")
            unit.leftover(m.start(), f"escape hatch: {name} (an object of a C API exported in a capsule) "
                          "has no Cystck counterpart: given a handle with Cystck_FromPyObject", self.name)
        unit.apply(edits)
        return edits.applied


# A cast of a handle to a pointer to a stock object struct that has no
# handle type (``(PyDateTime_DateTime *)o``): the object's fields are read
# through it.
_STOCK_STRUCT_CAST = regex.compile(r"\(\s*(?P<t>_?Py\w+)\s*\*\s*\)\s*(?P<h>[A-Za-z_]\w*)\b(?!\s*(?:->|\.|\[|\())")
_MEMBER_COMPARED = regex.compile(r"(?<![\w.>])(?P<p>[A-Za-z_]\w*)\s*->\s*\w+\s*[!=]=\s*(?P<h>[A-Za-z_]\w*)\b"
                                 r"(?!\s*(?:->|\.|\[|\())")
# A field read through a pointer and handed to a type test the py-type rule
# made of ``Py_TYPE(dt->tzinfo) == &T``: its first operand must be a handle.
_MEMBER_TYPE_TESTED = regex.compile(r"\b(?:Cystck_TypeIs|CystckObject_TypeCheck|CystckObject_Type)\s*\(\s*S\s*,\s*"
                                    r"(?P<v>(?P<p>[A-Za-z_]\w*)\s*->\s*\w+)\s*[,)]")


class StockStructPointers(Rule):
    """A handle cast to a pointer to a stock object struct with no Cystck
    counterpart, ``PyDateTime_DateTime *dt = (PyDateTime_DateTime *)o;``
    (to read the object's fields), is kept stock: the handle is lent,
    ``(PyDateTime_DateTime *)Cystck_AsPyObject(S, o)`` (valid as long as
    the handle), marked and reported.  A field read through such a
    pointer and compared with a handle, ``dt->tzinfo != self``, compares
    the object the handle lends: ``dt->tzinfo !=
    Cystck_AsPyObject(S, self)``; one whose type is tested,
    ``Py_TYPE(dt->tzinfo) == &Foo_Type`` (``Cystck_TypeIs(S, dt->tzinfo,
    ...)`` after the py-type rule), tests a handle the frame gets for
    it, ``Cystck_TypeIs(S, Cystck_FromPyObject(S, dt->tzinfo), ...)``
    (marked and reported; the field was given as a handle, which did not
    compile).  Casts to the structs that are handles (``PyTupleObject *``,
    a custom type's struct) are the casts rule's."""
    name = "stock-struct-pointers"
    precedence = 867
    patterns = (_STOCK_STRUCT_CAST.pattern, _MEMBER_COMPARED.pattern, _MEMBER_TYPE_TESTED.pattern)
    before = ("static PyObject *f(PyObject *self, PyObject *o)\n{\n"
              "    PyDateTime_DateTime *dt = (PyDateTime_DateTime *)o;\n"
              "    return PyBool_FromLong(dt->hastzinfo && dt->tzinfo == self);\n}\n")
    after = ("static PyObject *f(PyObject *self, PyObject *o)\n{\n"
             "    PyDateTime_DateTime *dt = " + MARK + " (PyDateTime_DateTime *)Cystck_AsPyObject(S, o);\n"
             "    return PyBool_FromLong(dt->hastzinfo && dt->tzinfo == Cystck_AsPyObject(S, self));\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        handle_types = regex.compile(OBJECT_TYPES + "$")
        edits = source.Edits()
        n = 0
        for ctx, m in _common.matches_in_state_bodies(unit, _STOCK_STRUCT_CAST, code):
            t, h = m.group("t"), m.group("h")
            if handle_types.match(t) or t in unit.project.custom_structs or h not in ctx.handles \
                    or marked(text, m.start()):
                continue
            edits.add(m.start(), m.start(), f"{MARK} ")
            edits.add(m.start("h"), m.end("h"), f"Cystck_AsPyObject(S, {h})")
            unit.leftover(m.start(), f"escape hatch: {t} has no Cystck counterpart: its fields are read "
                          f"through a stock pointer that {h} lends", self.name)
            n += 1
        for ctx, m in _common.matches_in_state_bodies(unit, _MEMBER_COMPARED, code):
            if m.group("h") in ctx.handles and self._stock_pointer(code, ctx, m.group("p"), handle_types):
                edits.add(m.start("h"), m.end("h"), f"Cystck_AsPyObject(S, {m.group('h')})")
                n += 1
        for ctx, m in _common.matches_in_state_bodies(unit, _MEMBER_TYPE_TESTED, code):
            if self._stock_pointer(code, ctx, m.group("p"), handle_types) and not marked(text, m.start("v")):
                v = text[m.start("v"):m.end("v")]
                edits.add(m.start("v"), m.end("v"), f"{MARK} Cystck_FromPyObject(S, (PyObject *){v})")
                unit.leftover(m.start("v"), f"escape hatch: {v}, read through a stock pointer, "
                              "given a handle for its type test", self.name)
                n += 1
        unit.apply(edits)
        return n

    @staticmethod
    def _stock_pointer(code, ctx, name, handle_types):
        """Is ``name`` declared, in the function ``ctx``, as a pointer to a
        stock object struct that is no handle?"""
        d = regex.search(r"\b(?P<t>_?Py\w+)\s*\*\s*" + regex.escape(name) + r"\s*[=;,)]",
                         code, pos=ctx.func.params[0], endpos=ctx.body[1])
        return d is not None and not handle_types.match(d.group("t"))


_VOID_CAST = regex.compile(r"\(\s*void\s*\*\s*\)\s*(?P<x>&\s*[A-Za-z_]\w*|[A-Za-z_]\w*)\b(?!\s*(?:->|\.|\[|\())")
_OBJECT_CAST_OF_CALL = regex.compile(r"(?<!sizeof\s*)\(\s*(?:const\s+)?(?:struct\s+)?(?P<t>\w+)\s*\*\s*\)\s*"
                                     r"(?P<name>_?Py[A-Z]\w*)\s*\(")


# memory for an object to be made (PyObject_Malloc, then PyObject_Init):
# no object yet
_ALLOCATOR = regex.compile(r"(?i)alloc")


class VoidPointerObjects(Rule):
    """An object passed as a bare C pointer, ``PyCapsule_New((void *)
    &Foo_Type, ...)`` (a type shared with another module through a
    capsule) or ``(void *) o`` of a handle, is the object's address:
    ``(void *) Cystck_AsPyObject(S, o)`` (valid as long as the object,
    which a type's reference or the module keeps); and where a stock call
    returning ``void *`` is cast to an object pointer, ``(PyTypeObject *)
    PyCapsule_Import(name, 0)``, that pointer gets a handle,
    ``Cystck_FromPyObject(S, (PyObject *) PyCapsule_Import(name, 0))`` (a
    borrowed reference: the capsule's owner keeps the object; memory from
    an allocator, ``(PyObject *) PyObject_Malloc(n)``, is no object yet
    and stays).  Both marked and reported.  Before, the cast of a handle to ``void *`` did
    not compile and the capsule's pointer was stored as a handle."""
    name = "void-pointer-objects"
    precedence = 507
    patterns = (_VOID_CAST.pattern, _OBJECT_CAST_OF_CALL.pattern)
    before = ("static PyTypeObject *other;\n"
              "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
              "    other = (PyTypeObject *) PyCapsule_Import(\"m._C_API\", 0);\n"
              "    return PyCapsule_New((void *) o, \"m.o\", NULL);\n}\n")
    after = ("static PyTypeObject *other;\n"
             "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
             "    other = Cystck_FromPyObject(S, " + MARK + " (PyObject *) PyCapsule_Import(\"m._C_API\", 0));\n"
             "    return PyCapsule_New((void *) " + MARK + " Cystck_AsPyObject(S, o), \"m.o\", NULL);\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        types = set(unit.project.custom_structs) | {"PyObject", "PyTypeObject"}
        type_objects = unit.project.type_objects
        returns = api.stock_returns()
        edits = source.Edits()
        n = 0
        for ctx, m in _common.matches_in_state_bodies(unit, _VOID_CAST, code):
            x = m.group("x")
            if marked(text, m.start("x")):
                continue
            if x.startswith("&"):
                if x[1:].strip() not in type_objects:
                    continue
            elif not _common.is_handle(x, ctx, unit.project):
                continue
            edits.add(m.start("x"), m.end("x"), f"{MARK} Cystck_AsPyObject(S, {text[m.start('x'):m.end('x')]})")
            unit.leftover(m.start(), f"escape hatch: the object's address, {x}, passed as a C pointer", self.name)
            n += 1
        for ctx, m in _common.matches_in_state_bodies(unit, _OBJECT_CAST_OF_CALL, code):
            if m.group("t") not in types or returns.get(m.group("name"), "").replace(" ", "") != "void*" \
                    or _ALLOCATOR.search(m.group("name")) or marked(text, m.start()):
                continue
            close = source.matching(code, m.end() - 1)
            edits.add(m.start(), m.start("name"), f"Cystck_FromPyObject(S, {MARK} (PyObject *) ")
            edits.add(close, close, ")")
            unit.leftover(m.start(), f"escape hatch: the object pointer {m.group('name')} returns "
                          f"(a void *) given a handle", self.name)
            n += 1
        unit.apply(edits)
        return n


# An entry of the table's initialiser: a designator, a cast, an address-of
# around a name.
_TABLE_ENTRY = regex.compile(r"(?:\.\s*\w+\s*=\s*)?(?:\(\s*[^()]*\)\s*)?(?:&\s*)?(?P<name>[A-Za-z_]\w*)")
_PARAM_NAME = regex.compile(r"(?P<name>[A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$")


@functools.lru_cache(maxsize=None)
def _LOCAL_DECL(name):
    """A declaration of the local ``name`` in a body (``PyObject *a, *name = x;``)."""
    return regex.compile(r"(?:^|[;{}])\s*(?!(?:return|goto|case|else|do)\b)(?:(?:const|static|register|volatile|struct|"
                         r"unsigned|signed)\s+)*[A-Za-z_]\w*[\s*]+(?:[A-Za-z_]\w*\s*(?:=[^;,]*)?,[\s*]*)*"
                         rf"{name}\s*(?:=|;|,|\[)")


class CapsuleTableEntries(Rule):
    """A function of the extension whose address goes into a struct or an
    array handed to ``PyCapsule_New`` (a C API exported to other
    extensions, ``static ExtAPI capi = {ext_check, ext_make};``) is called
    by stock code, with ``PyObject *`` arguments and no state, through a
    function pointer of the stock signature; translated, it takes ``S`` and
    handles.  The table gets a stock-ABI entry in its place,
    ``ext_make__stock_abi``, generated before the table: it opens a Cystck
    frame of its own (``Cystck_OpenFrame``), gives each object argument a
    handle (NULL stays the null handle), calls the translated function, and
    returns its object result as the stock function did (a new reference,
    or a borrowed one where each of the stock function's returns reads a
    member, calls an API function returning a borrowed reference, or names
    a parameter or a global it did not increment; where some returns are
    borrowed and others new, a new reference, reported) before closing the
    frame (``Cystck_CloseFrame``).  A type object in the table,
    ``&FooType`` (a reference once translated, made with the module), is
    ``NULL`` there and set, its stock ``PyTypeObject *``, right before the
    statement making the capsule; the table's struct stays stock
    (project.capsule_structs).  The table may be named in the call or
    reached through a pointer or a local set to its address
    (project.capsule_tables), and filled member by member at run time
    (``capi.make = ext_make;``, ``api[1] = (void *)ext_make;``: the same
    entry, the type object set where it was assigned).  Marked and reported.  Left alone: a capsule
    of data (an entry naming no function), a function that stays stock,
    one whose parameters the entry cannot match (reported; docs/gaps.md
    T46)."""
    name = "capsule-table-entries"
    precedence = 895
    needs = ("helper-signature",)
    patterns = (_CAPSULE_TABLE.pattern,)
    before = ("static PyObject *ext_make(PyObject *o)\n{\n    return PyNumber_Add(o, o);\n}\n"
              "typedef struct { PyObject *(*make)(PyObject *); } ExtAPI;\n"
              "static ExtAPI ext_capi = {ext_make};\n"
              "static PyObject *f(PyObject *self, PyObject *unused)\n{\n"
              "    return PyCapsule_New(&ext_capi, \"m._C_API\", NULL);\n}\n")
    after = ('static Cystck_Object ext_make(Cystck_State *S, Cystck_Object o)\n'
             '{\n'
             '    return PyNumber_Add(o, o);\n'
             '}\n'
             'typedef struct { PyObject *(*make)(PyObject *); } ExtAPI;\n'
             '/* The stock-ABI entry of ext_make in the C API table ext_capi, which a capsule\n'
             ' * exports to stock extensions: a Cystck frame of its own around the translated function. */\n'
             'static PyObject *ext_make__stock_abi(PyObject *o)\n'
             '{\n'
             '    Cystck_State S_, *S = &S_;\n'
             '    Cystck_Object r_;\n'
             '    PyObject *result_;\n'
             '    ' + MARK + ' Cystck_OpenFrame(S);\n'
             '    r_ = ext_make(S, o ? Cystck_FromPyObject(S, (PyObject *)o) : Cystck_NULL);\n'
             '    result_ = Cystck_IsNull(r_) ? NULL : Cystck_AsPyObject(S, r_);\n'
             '    Py_XINCREF(result_);        /* a new reference, as the stock function returned */\n'
             '    if (Cystck_CloseFrame(S) < 0) {\n'
             '        Py_XDECREF(result_);\n'
             '        return NULL;\n'
             '    }\n'
             '    return (PyObject *)result_;\n'
             '}\n'
             '\n'
             'static ExtAPI ext_capi = {ext_make__stock_abi};\n'
             'static Cystck_Object f(Cystck_State *S, Cystck_Object self, Cystck_Object unused)\n'
             '{\n'
             '    return PyCapsule_New(&ext_capi, "m._C_API", NULL);\n'
             '}\n')

    def apply(self, unit):
        code, text, p = unit.masked, unit.text, unit.project
        tables = capsule_tables(code)
        if not tables:
            return 0
        defined = {f.name: f for f in source.find_functions(source.structure_mask(code)) if f.is_definition}
        edits, inserts, n = source.Edits(), {}, 0
        for start, end in source.top_level_items(code):
            for table in tables:
                d = regex.search(rf"\b{table}\s*(?:\[[^\]]*\]\s*)?=\s*\{{", code, pos=start, endpos=end)
                if d is None or "(" in code[start:d.start()]:
                    continue
                b0 = d.end() - 1
                b1 = source.matching(code, b0)
                for index, (s, e) in enumerate(self._entries(code, b0 + 1, b1 - 1)):
                    m = _TABLE_ENTRY.fullmatch(code[s:e].strip())
                    if m and m.group("name") in p.type_objects and "&" in code[s:e] \
                            and m.group("name") not in p.stock_struct_types:
                        nested = "{" in code[b0 + 1:b1 - 1]
                        array = "[" in code[d.start():d.end()]
                        n += self._type_entry(unit, table, None if nested else index, s, e, m.group("name"), edits,
                                              array)
                        continue
                    f = m and defined.get(m.group("name"))
                    if f is None or m.group("name") in tables:
                        continue
                    lead = len(code[s:e]) - len(code[s:e].lstrip())
                    n += self._enter(unit, f, table, s, s + lead + m.start("name"), start, edits, inserts)
        n += self._assignments(unit, tables, defined, edits, inserts)
        by_item = {}
        for item, wrapper in inserts.values():
            by_item.setdefault(item, []).append(wrapper)
        for at, wrappers in by_item.items():
            lead = len(code[at:]) - len(code[at:].lstrip())
            edits.add(at + lead, at + lead, "".join(wrappers))
        if edits:
            unit.apply(edits)
        return n

    def _enter(self, unit, f, table, s, at, item, edits, inserts):
        """The translated function ``f``, named at ``at`` in the table (its
        entry or member assignment at ``s``), entered through its stock-ABI
        entry, generated before the top-level item starting at ``item``."""
        name = f.name
        wrapper = self._wrapper(unit, f, table, lambda msg: unit.leftover(s, msg, self.name))
        if wrapper is None:
            if "Cystck_State" in unit.masked[f.params[0]:f.params[1]]:
                unit.leftover(s, f"C API table '{table}' exported in a capsule: '{name}' is "
                                 "translated, its parameters not matched to the stock ones: "
                                 "stock callers cannot call it", self.name)
            return 0
        edits.add(at, at + len(name), f"{name}{STOCK_ABI_SUFFIX}")
        if name not in inserts or item < inserts[name][0]:
            inserts[name] = (item, wrapper)         # one entry per function, before its first use
        unit.leftover(s, f"C API table '{table}' exported in a capsule: '{name}' entered through "
                         f"{name}{STOCK_ABI_SUFFIX}, a stock-ABI entry opening a Cystck frame "
                         "(escape hatch)", self.name)
        return 1

    def _assignments(self, unit, tables, defined, edits, inserts):
        """A table filled member by member at run time (``capi.make =
        ext_make;``, or through the pointer the capsule was made with,
        ``exported->make = ext_make;``): a function gets its stock-ABI
        entry, a type object (``&FooType``, a reference's handle once
        translated) its stock ``PyTypeObject *``."""
        code, text, p = unit.masked, unit.text, unit.project
        items = source.top_level_items(code)
        n = 0
        for table, calls in tables.items():
            access = "|".join([rf"{table}\s*(?:\.\s*\w+|\[[^\]]*\])",
                               *{rf"{c.group('var')}\s*->\s*\w+" for c in calls if c.group("var") != table}])
            for m in regex.finditer(rf"(?<![\w.>]|->)\b(?:{access})\s*=(?!=)\s*(?P<rhs>[^;]*);", code):
                item = next((a for a, b in items if a <= m.start() < b), None)
                if item is None or "{" not in code[item:m.start()] or marked(text, m.start("rhs")):
                    continue
                rhs = source.unparen(code[m.start("rhs"):m.end("rhs")])
                lead = code.index(rhs, m.start("rhs"))
                fn = regex.fullmatch(r"(?:\(\s*[^()]*\)\s*)?(?:&\s*)?(?P<name>[A-Za-z_]\w*)", rhs)
                if fn and fn.group("name") in defined and fn.group("name") not in tables:
                    n += self._enter(unit, defined[fn.group("name")], table, m.start(), lead + fn.start("name"),
                                     item, edits, inserts)
                    continue
                ty = regex.fullmatch(r"(?:\(\s*[^()]*\)\s*)?(?:&\s*(?P<t>\w+)|Cystck_deref\s*\(\s*S\s*,\s*(?P<t>\w+)\s*\))",
                                     rhs)
                if ty and ty.group("t") in p.type_objects and ty.group("t") not in p.stock_struct_types:
                    edits.add(lead, lead + len(rhs), f"{MARK} (PyTypeObject *)Cystck_AsPyObject(S, "
                                                     f"Cystck_deref(S, {ty.group('t')}))")
                    unit.leftover(m.start(), f"C API table '{table}' exported in a capsule: its type object "
                                             f"{ty.group('t')} set, a stock PyTypeObject * (escape hatch)", self.name)
                    n += 1
        return n

    def _type_entry(self, unit, table, index, s, e, name, edits, array=False):
        """``&FooType`` in the table: the type is made when the module is,
        so the entry is NULL and the capsule's maker sets it first, the
        stock ``PyTypeObject *`` of the type's reference (borrowed: the
        module keeps the type).  In an array (``static void *capi[] =
        {(void *)&FooType, ...}``), the element at its index."""
        code, text = unit.masked, unit.text
        if array:           # an array of structs (index None) is left to a human
            member = None if index is None else f"[{index}]"
        else:
            member = self._member(unit.project, table, index, code[s:e])
            member = member and f".{member}"
        calls = capsule_tables(code).get(table, [])
        assign = f"{table}{member} = {MARK} (PyTypeObject *)Cystck_AsPyObject(S, Cystck_deref(S, {name}));"
        plan = {}
        for call in calls:          # before each statement making a capsule of the table
            at = call.start()
            stmt = max(code.rfind(";", 0, at), code.rfind("{", 0, at), code.rfind("}", 0, at)) + 1
            ws = regex.match(r"\s*", code[stmt:at]).group()
            if code[stmt:at].count(")") > code[stmt:at].count("("):
                plan = None         # inside a for header: no statement to put it before
                break
            body = self._else_body(code, stmt + len(ws), at)
            if body is not None:    # else [if (...)] stmt: the statement braced, the member set in it
                end = code.find(";", source.matching(code, code.index("(", at))) + 1
                plan[stmt] = [(body, "{ " + assign + " "), (end, " }")]
            else:
                after = "\n" + ws.rsplit("\n", 1)[1] if "\n" in ws else " "
                plan[stmt] = [(stmt + len(ws), assign + after)]
        if member is None or not plan:
            unit.leftover(s, f"C API table '{table}' exported in a capsule: the type object {name} in it "
                             "is a reference once translated, left to a human", self.name)
            return 0
        lead = len(code[s:e]) - len(code[s:e].lstrip())
        edits.add(s + lead, e - (len(code[s:e]) - len(code[s:e].rstrip())), "NULL")
        for inserts in plan.values():
            for at, what in inserts:
                edits.add(at, at, what)
        unit.leftover(s, f"C API table '{table}' exported in a capsule: its type object {name} set, a stock "
                         "PyTypeObject *, before the capsule is made (escape hatch)", self.name)
        return 1

    @staticmethod
    def _else_body(code, start, at):
        """Where the statement starting at ``start`` (an ``else`` branch,
        maybe ``else if (...)``, ``else for (...)``...) has its unbraced
        body holding ``at``; None if it is no ``else``."""
        if not regex.match(r"else\b", code[start:]):
            return None
        pos = start
        while True:
            m = regex.compile(r"\s*(?:(?P<e>else)\b|(?P<k>if|for|while|switch)\s*(?=\())").match(code, pos)
            if m is None or m.end() > at:
                break
            pos = m.end() if m.group("e") else source.matching(code, m.end())
        pos += len(code[pos:at]) - len(code[pos:at].lstrip())
        return None if code[pos] == "{" else pos

    @staticmethod
    def _member(p, table, index, entry):
        """The member of ``table``'s struct that entry ``index`` sets (its
        designator, or the struct's member at that position)."""
        d = regex.match(r"\s*\.\s*(\w+)\s*=", entry)
        if d or index is None:
            return d and d.group(1)
        for raw in p.files.values():
            if table not in raw:
                continue
            masked = source.mask(raw)
            g = regex.search(rf"(?:struct\s+)?(?P<t>\w+)\s+{table}\s*=\s*\{{", masked)
            if g is None:
                continue
            for other in p.files.values():
                om = source.mask(other)
                for sm in regex.finditer(r"\b(?:struct|union)\s*(?P<tag>\w*)\s*\{", om):
                    close = source.matching(om, sm.end() - 1)
                    after = regex.match(r"\s*(\w+)\s*;", om[close:])
                    if sm.group("tag") == g.group("t") or after and after.group(1) == g.group("t"):
                        members = cstruct.struct_members(om, sm.end() - 1, close)
                        return members[index][1].name if index < len(members) else None
        return None

    @staticmethod
    def _entries(code, start, end):
        """Spans of the table's entries (those of a nested initialiser too)."""
        for s, e in source.split_top(code, start, end):
            inner = code[s:e].strip()
            if inner.startswith("{") or regex.match(r"\.\s*\w+\s*=\s*\{", inner) or regex.match(r"\[[^\]]*\]\s*=\s*\{", inner):
                o = code.index("{", s)
                yield from CapsuleTableEntries._entries(code, o + 1, source.matching(code, o) - 1)
            elif inner:
                yield s, e

    @staticmethod
    def _wrapper(unit, f, table, note=None):
        """The stock-ABI entry of the translated function ``f`` (a
        source.Function of the unit), or None if ``f`` is not translated
        or its parameters do not match its stock definition's."""
        code, text, p = unit.masked, unit.text, unit.project
        params = [text[s:e].strip() for s, e in source.split_top(code, f.params[0], f.params[1])]
        head = text[f.start:f.name_start]
        ret = _common.return_type(head)
        translated = bool(params) and regex.fullmatch(r"Cystck_State\s*\*\s*S", params[0])
        if not translated and "Cystck_Object" not in ret:
            return None
        stock = CapsuleTableEntries._stock_definition(p, unit.path, f.name)
        if stock is None or not translated:
            return None
        scode, stext, sf = stock
        sparams = [stext[s:e].strip() for s, e in source.split_top(scode, sf.params[0], sf.params[1])]
        sparams = [] if sparams in ([""], ["void"]) else sparams
        if len(sparams) != len(params) - 1:
            return None
        args = []
        for sp, tp in zip(sparams, params[1:]):
            nm = _PARAM_NAME.search(sp)
            if nm is None or sp == "...":
                return None
            name = nm.group("name")
            if regex.search(r"\bCystck_Object\b", tp) and "*" not in tp.replace("Cystck_Object", "", 1).split(name)[0]:
                args.append(f"{name} ? Cystck_FromPyObject(S, (PyObject *){name}) : Cystck_NULL")
            elif "Cystck_" in tp:
                return None          # a handle array, a field: no stock counterpart to lend
            else:
                args.append(name)
        sret = _common.return_type(stext[sf.start:sf.name_start])
        decl = f"static {sret}{'' if sret.endswith('*') else ' '}{f.name}{STOCK_ABI_SUFFIX}({', '.join(sparams) or 'void'})"
        call = f"{f.name}(S{''.join(', ' + a for a in args)})"
        lines = [f"/* The stock-ABI entry of {f.name} in the C API table {table}, which a capsule",
                 " * exports to stock extensions: a Cystck frame of its own around the translated function. */",
                 decl, "{", "    Cystck_State S_, *S = &S_;"]
        if ret.replace(" ", "") == "Cystck_Object":
            kind = CapsuleTableEntries._return_kind(p, scode, stext, sf)
            if kind == "mixed" and note:
                note(f"C API table '{table}' exported in a capsule: {f.name} returns a borrowed reference on "
                     "some paths and a new one on others; its stock-ABI entry returns a new one on every path")
            borrowed = kind == "borrowed"
            lines += ["    Cystck_Object r_;", "    PyObject *result_;", f"    {MARK} Cystck_OpenFrame(S);",
                      f"    r_ = {call};",
                      "    result_ = Cystck_IsNull(r_) ? NULL : Cystck_AsPyObject(S, r_);"]
            if not borrowed:
                lines += ["    Py_XINCREF(result_);        /* a new reference, as the stock function returned */"]
            else:
                lines += ["    /* borrowed, as the stock function returned (a member, a parameter, a global) */"]
            lines += ["    if (Cystck_CloseFrame(S) < 0) {"] + (["        Py_XDECREF(result_);"] if not borrowed else []) + \
                     ["        return NULL;", "    }", f"    return ({sret})result_;", "}", "", ""]
        elif regex.search(r"\bCystck_", ret):
            return None
        elif sret == "void":
            lines += [f"    {MARK} Cystck_OpenFrame(S);", f"    {call};", "    (void)Cystck_CloseFrame(S);", "}", "", ""]
        else:
            lines += [f"    {sret} r_;", f"    {MARK} Cystck_OpenFrame(S);", f"    r_ = {call};",
                      "    (void)Cystck_CloseFrame(S);", "    return r_;", "}", "", ""]
        return "\n".join(lines)

    @staticmethod
    def _stock_definition(p, path, name):
        """(masked, text, source.Function) of ``name``'s stock definition,
        in ``path`` first."""
        for where in [path] + [q for q in p.files if q != path]:
            raw = p.files.get(where)
            if not raw or name not in raw:
                continue
            masked = source.mask(raw)
            for f in source.find_functions(source.structure_mask(masked)):
                if f.name == name and f.is_definition:
                    return masked, raw, f
        return None

    @staticmethod
    def _return_kind(p, scode, stext, sf):
        """How the stock function returns its object: ``"borrowed"`` where
        each return reads a member (``return self->obj;``, maybe through a
        macro), calls an API function returning a borrowed reference, or
        names a parameter or a global without an increment before it (the
        caller's or the module's reference); ``"new"`` where none does (an
        incremented name, a call returning a new reference, a local);
        ``"mixed"`` where some returns are borrowed and others not."""
        from .. import macros
        kinds = set()
        defs = macros.project_macros(p.files.values())
        sparams = [stext[s:e].strip() for s, e in source.split_top(scode, sf.params[0], sf.params[1])]
        params = {m.group("name") for m in map(_PARAM_NAME.search, sparams) if m}
        b0, b1 = sf.body
        if regex.search(r"\bPy_RETURN_[A-Z]+\b", scode[b0:b1]):
            kinds.add("new")            # Py_RETURN_NONE and its kin return a new reference
        for m in regex.finditer(r"\breturn\b(?P<x>[^;]*);", scode, pos=b0, endpos=b1):
            x = stext[m.start("x"):m.end("x")].strip()
            if x in ("NULL", "0", "nullptr"):
                continue
            try:
                x = macros.expand_fully(x, defs)
            except macros.Unexpandable:
                kinds.add("new")
                continue
            x = source.unparen(source.mask(x))
            call = regex.fullmatch(r"(?:\(\s*[\w\s*]+\)\s*)?(?P<f>\w+)\s*\(.*\)", x, regex.S)
            if call:
                kinds.add("borrowed" if call.group("f") in BORROWED else "new")
                continue
            if regex.fullmatch(r"(?:\(\s*[\w\s*]+\)\s*)?\(?[\w\s*()]*?(?:->|\.)\s*\w+\s*\)?", x) \
                    and "(" not in x.split("->")[-1]:
                kinds.add("borrowed")
                continue
            name = regex.fullmatch(r"(?:\(\s*[\w\s*]+\)\s*)*\(?\s*(?P<amp>&\s*)?(?P<name>[A-Za-z_]\w*)\s*\)?", x)
            kinds.add(CapsuleTableEntries._name_kind(scode, sf, params, name.group("name"), m.start())
                      if name else "new")
        if kinds == {"borrowed"}:
            return "borrowed"
        return "mixed" if "borrowed" in kinds else "new"

    @staticmethod
    def _name_kind(scode, sf, params, name, at):
        """A name the stock function returns: a parameter it never assigns
        or a global (its reference the caller's or the module's) is
        borrowed, unless incremented before the return; a local, a
        parameter assigned in the body, an incremented name: new."""
        b0, b1 = sf.body
        if regex.search(rf"\bPy_X?INCREF\s*\(\s*(?:\([^()]*\)\s*)?{name}\s*\)", scode[b0:at]):
            return "new"
        if name in params:
            return "new" if regex.search(rf"(?<![\w.>]|->)\b{name}\s*=(?!=)", scode[b0:b1]) else "borrowed"
        if _LOCAL_DECL(name).search(scode[b0:b1]):
            return "new"
        for s, e in source.top_level_items(scode):
            g = regex.search(rf"\b{name}\s*(?:\[[^\]]*\]\s*)*(?:=|;|,)", scode, pos=s, endpos=e)
            if g and "(" not in scode[s:g.start()] and not (s <= sf.start < e):
                return "borrowed"
        return "new"
