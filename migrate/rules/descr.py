"""A type's MRO and dict, and descriptor slots tested or called, ported to
the API made for them (``CystckType_GetMRO``, ``CystckType_GetDict``,
``CystckObject_HasDescrGet``/``...Set``, ``CystckDescr_Get``/``...Set``)
instead of lent through the escape hatch.  What these rules leave (a slot
stored in a variable, a slot of one object called for another, an MRO only
tested for NULL) is the ``type-slot-reads`` rule's, which runs after them."""
import regex

from .. import project, source
from ..engine import Rule
from . import _common
from .escape import EscapeHatch, TypeSlotReads

# Py_TYPE(d)->tp_descr_x, as the py-type rule leaves it: CystckObject_Type(S, d)->tp_descr_x
_DESCR_SLOT = (r"(?<![\w.>])CystckObject_Type\s*\(\s*S\s*,\s*(?P<d>[^()]*+(?:" + source.paren("p")
               + r"[^()]*+)*+)\)\s*->\s*tp_descr_(?P<which>get|set)\b")
_NULL = regex.compile(r"NULL|0|nullptr|Cystck_NULL")


def _same(a, b):
    return regex.sub(r"\s+", "", a) == regex.sub(r"\s+", "", b)


def _handle_argument(arg, ctx, project):
    """The argument as a handle expression (a null pointer as the null
    handle), or None if it is no handle."""
    if _NULL.fullmatch(arg):
        return "Cystck_NULL"
    arg = regex.sub(r"^\(\s*PyObject\s*\*\s*\)\s*", "", arg)     # a handle needs no cast
    if EscapeHatch._is_handle_expr(arg, ctx, project):
        return arg
    call = regex.fullmatch(r"(?P<f>\w+)\s*" + source.paren("a"), arg)
    if call and any(info.name == call.group("f") and info.returns_handle
                    for info in project.functions.values()):
        return arg          # the extension's own helper returning a handle
    return None


class DescrSlotCalls(Rule):
    """A call of a descriptor's own slot, ``Py_TYPE(d)->tp_descr_get(d,
    obj, type)`` (or ``(Py_TYPE(d)->tp_descr_get)(...)``), becomes
    ``CystckDescr_Get(S, d, obj, type)``, and ``tp_descr_set(d, obj, v)``
    ``CystckDescr_Set(S, d, obj, v)``; a NULL argument (an absent instance,
    owner or value) becomes the null handle, and a result compared with
    NULL a test of the handle.  A slot of one object called
    for another, or with an argument that is no handle, is left to the
    type-slot-reads rule."""
    name = "descr-slot-calls"
    precedence = 853
    needs = ("py-type",)
    patterns = (_DESCR_SLOT,)
    before = ("static PyObject *get(PyObject *d, PyObject *o)\n{\n"
              "    if ((Py_TYPE(d)->tp_descr_set)(d, o, NULL) < 0)\n        return NULL;\n"
              "    if (Py_TYPE(d)->tp_descr_get(d, NULL, o) == NULL)\n        return NULL;\n"
              "    return Py_TYPE(d)->tp_descr_get(d, o, (PyObject *)Py_TYPE(o));\n}\n")
    after = ("static PyObject *get(PyObject *d, PyObject *o)\n{\n"
             "    if (CystckDescr_Set(S, d, o, Cystck_NULL) < 0)\n        return NULL;\n"
             "    if (Cystck_IsNull(CystckDescr_Get(S, d, Cystck_NULL, o)))\n        return NULL;\n"
             "    return CystckDescr_Get(S, d, o, CystckObject_Type(S, o));\n}\n")

    def apply(self, unit):
        code = unit.masked
        if "tp_descr_" not in code:
            return 0
        edits, n, end = source.Edits(), 0, -1
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            if m.start() < end:
                continue            # inside a call rewritten already
            call = self._call(code, m)
            if call is None:
                continue
            start, open_at, close = call
            args = [(s, e) for s, e in source.split_top(code, open_at + 1, close - 1)]
            new = self._arguments(unit, ctx, m, args)
            if new is None:
                continue
            call = f"CystckDescr_{m.group('which').title()}(S, {', '.join(new)})"
            # a result compared with NULL: the null-handles rule ran before this call existed
            compared = m.group("which") == "get" and regex.match(r"\s*(?P<op>[!=])=\s*(?:NULL|0|nullptr)\b",
                                                                 code[close:])
            if compared:
                call = f"{'!' if compared.group('op') == '!' else ''}Cystck_IsNull({call})"
                close += compared.end()
            edits.add(start, close, call)
            end = close
            n += 1
        if edits:
            unit.apply(edits)
        return n

    @staticmethod
    def _call(code, m):
        """(start, opening parenthesis, end) of the call of the slot at m,
        ``X->slot(...)`` or ``(X->slot)(...)``, or None."""
        start, end = m.start(), m.end()
        wrapped = regex.search(r"\(\s*$", code[:start]) and regex.match(r"\s*\)\s*\(", code[end:])
        if wrapped:
            start = code.rindex("(", 0, start)
            end = code.index(")", end) + 1
        call = regex.match(r"\s*\(", code[end:])
        if not call:
            return None
        open_at = end + call.end() - 1
        return start, open_at, source.matching(code, open_at)

    @staticmethod
    def _arguments(unit, ctx, m, spans):
        """The call's three arguments as handles, or None if the first is
        not the descriptor whose slot is called or one is no handle."""
        if len(spans) != 3:
            return None
        args = [unit.text[s:e].strip() for s, e in spans]
        masked = [unit.masked[s:e].strip() for s, e in spans]
        if not _same(masked[0], m.group("d")):
            return None
        new = [_handle_argument(a, ctx, unit.project) for a in masked]
        if None in new:
            return None
        return [t if h == a else h for t, a, h in zip(args, masked, new)]


class DescrSlotTests(Rule):
    """A test of whether an object is a descriptor, ``Py_TYPE(d)->tp_descr_get``
    as a truth value or compared with NULL, becomes
    ``CystckObject_HasDescrGet(S, d)`` (``...Set`` for tp_descr_set;
    ``== NULL`` and ``!`` negate it).  The slot read as a value (stored in
    a function pointer) is left to the type-slot-reads rule."""
    name = "descr-slot-tests"
    precedence = 854
    needs = ("py-type",)
    patterns = (_DESCR_SLOT,)
    before = ("static int f(PyObject *d, PyObject *e)\n{\n"
              "    if (Py_TYPE(d)->tp_descr_get == NULL || !Py_TYPE(e)->tp_descr_set)\n        return 0;\n"
              "    return Py_TYPE(d)->tp_descr_set != NULL && Py_TYPE(e)->tp_descr_get ? 1 : 2;\n}\n")
    after = ("static int f(PyObject *d, PyObject *e)\n{\n"
             "    if (!CystckObject_HasDescrGet(S, d) || !CystckObject_HasDescrSet(S, e))\n        return 0;\n"
             "    return CystckObject_HasDescrSet(S, d) && CystckObject_HasDescrGet(S, e) ? 1 : 2;\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if "tp_descr_" not in code:
            return 0
        edits, n = source.Edits(), 0
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            compared = regex.match(r"\s*(?P<op>[!=])=\s*(?:NULL|0|nullptr)\b", code[m.end():])
            negated = not compared and regex.search(r"(?<![!=<>])!\s*$", code[:m.start()])
            if not (compared or negated or TypeSlotReads._condition(code, m.start(), m.end())):
                continue
            test = f"CystckObject_HasDescr{m.group('which').title()}(S, {text[m.start('d'):m.end('d')].strip()})"
            end = m.end() + (compared.end() if compared else 0)
            if compared and compared.group("op") == "=":
                test = "!" + test
            edits.add(m.start(), end, test)
            n += 1
        if edits:
            unit.apply(edits)
        return n


class TypeMroDict(Rule):
    """A type's MRO or dict read as a value, ``type->tp_mro`` or
    ``type->tp_dict`` through a handle to the type, becomes
    ``CystckType_GetMRO(S, type)`` or ``CystckType_GetDict(S, type)``: a
    handle of its own to the tuple or (live) dict.  Only tested for NULL or
    as a truth value, the slot is left to the type-slot-reads rule (a
    ready type has both, so such a test is about a type being created)."""
    name = "type-mro-dict"
    precedence = 852
    needs = ("py-type",)
    patterns = (TypeSlotReads.patterns[0],)
    before = ("static PyObject *f(PyTypeObject *type)\n{\n"
              "    PyObject *mro = type->tp_mro;\n"
              "    return PyDict_Copy(Py_TYPE(mro)->tp_dict);\n}\n")
    after = ("static PyObject *f(PyTypeObject *type)\n{\n"
             "    PyObject *mro = CystckType_GetMRO(S, type);\n"
             "    return PyDict_Copy(CystckType_GetDict(S, CystckObject_Type(S, mro)));\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if not regex.search(r"->\s*tp_(?:mro|dict)\b", code):
            return 0
        edits, n = source.Edits(), 0
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            slot = m.group("slot")
            if slot not in ("tp_mro", "tp_dict") or m.group("st") is not None:
                continue
            if m.group("a") is None and (m.group("v") or m.group("h")) not in ctx.handles:
                continue
            if regex.match(r"\s*(?:=(?!=)|\(|\[)", code[m.end():]) \
                    or EscapeHatch._raw_result(code, m.start(), m.end()) \
                    or TypeSlotReads._condition(code, m.start(), m.end()):
                continue      # a store, a NULL test: type-slot-reads' business
            handle = m.group("v") or text[m.start("h"):m.end("h")]
            edits.add(m.start(), m.end(), f"{'CystckType_GetMRO' if slot == 'tp_mro' else 'CystckType_GetDict'}"
                                          f"(S, {handle})")
            n += 1
        if edits:
            unit.apply(edits)
        return n


# ((PyHeapTypeObject *)type)->ht_name, as a read of a heap type's name
_HEAP_TYPE_NAME = (r"\(\s*\(\s*PyHeapTypeObject\s*\*\s*\)\s*(?P<x>\w+|\bCystckObject_Type\s*" + source.paren("a")
                   + r")\s*\)\s*->\s*ht_(?P<which>name|qualname)\b")
_STORE = regex.compile(r"\s*=(?!=)")


def _type_slot_reads(unit, slot, written, address_taken=False):
    """(match, the type handle's text) for each read of ``slot`` through a
    handle to a type (TypeSlotReads' pattern) in a function with the state:
    not a static type's own slot, not a store (``written`` matches after
    it) and, with ``address_taken``, not its address (``&tp->tp_flags``)."""
    code, text = unit.masked, unit.text
    for ctx, m in _common.matches_in_state_bodies(unit, TypeSlotReads.patterns[0], code):
        if m.group("slot") != slot or m.group("st") is not None or written.match(code, m.end()):
            continue
        if address_taken and regex.search(r"(?<!&)&\s*$", code[max(0, m.start() - 8):m.start()]):
            continue
        if m.group("a") is None and (m.group("v") or m.group("h")) not in ctx.handles:
            continue
        yield m, m.group("v") or text[m.start("h"):m.end("h")]


class TypeNameReads(Rule):
    """A type's name read through a handle to the type: ``type->tp_name``
    becomes ``CystckType_GetName(S, type)`` (the same C string); a heap
    type's ``((PyHeapTypeObject *)type)->ht_name`` and ``ht_qualname``
    become ``CystckType_GetNameObject(S, type)`` and
    ``CystckType_GetQualName(S, type)``: handles to the very str objects
    (``type.__name__`` and ``type.__qualname__`` of a heap type).  Stores,
    a stock type's own name (``PyLong_Type.tp_name``) and the other heap
    type members are left alone."""
    name = "type-name-reads"
    precedence = 856
    needs = ("py-type",)
    patterns = (TypeSlotReads.patterns[0], _HEAP_TYPE_NAME)
    before = ("static const char *f(PyObject *o)\n{\n"
              "    PyTypeObject *tp = Py_TYPE(o);\n"
              "    PyObject *name = ((PyHeapTypeObject *)tp)->ht_name;\n"
              "    return PyUnicode_Check(name) ? tp->tp_name : NULL;\n}\n")
    after = ("static const char *f(PyObject *o)\n{\n"
             "    PyTypeObject *tp = CystckObject_Type(S, o);\n"
             "    PyObject *name = CystckType_GetNameObject(S, tp);\n"
             "    return PyUnicode_Check(name) ? CystckType_GetName(S, tp) : NULL;\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if not regex.search(r"->\s*(?:tp_name|ht_(?:qual)?name)\b", code):
            return 0
        edits, n = source.Edits(), 0
        for m, handle in _type_slot_reads(unit, "tp_name", _STORE):
            edits.add(m.start(), m.end(), f"CystckType_GetName(S, {handle})")
            n += 1
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[1], code):
            if _STORE.match(code, m.end()) or (m.group("a") is None and m.group("x") not in ctx.handles):
                continue
            function = "CystckType_GetNameObject" if m.group("which") == "name" else "CystckType_GetQualName"
            edits.add(m.start(), m.end(), f"{function}(S, {text[m.start('x'):m.end('x')]})")
            n += 1
        if edits:
            unit.apply(edits)
        return n


_FLAGS_WRITTEN = regex.compile(project.WRITTEN)


class TypeFlagsReads(Rule):
    """A type's flags read through a handle to the type, ``tp->tp_flags``
    (``Py_TYPE(o)->tp_flags``, ``((PyTypeObject *)t)->tp_flags``), become
    ``CystckType_GetFlags(S, tp)``, the same bits (as ``PyType_GetFlags(tp)``
    does, which the api-calls rule ports).  Stores (``tp->tp_flags |= F``),
    the flags' address, a static type's own flags (``FooType.tp_flags``,
    set before ``PyType_Ready``) and a stock type's (``PyLong_Type.tp_flags``)
    are left alone."""
    name = "type-flags-reads"
    precedence = 841
    needs = ("py-type",)
    patterns = (TypeSlotReads.patterns[0],)
    before = ("static int f(PyObject *o, PyObject *t)\n{\n"
              "    PyTypeObject *tp = Py_TYPE(o);\n"
              "    if (tp->tp_flags & Py_TPFLAGS_HEAPTYPE)\n        return 1;\n"
              "    if (Py_TYPE(o)->tp_flags & Py_TPFLAGS_LONG_SUBCLASS)\n        return 2;\n"
              "    return (((PyTypeObject *)t)->tp_flags & Py_TPFLAGS_BASETYPE) != 0;\n}\n")
    after = ("static int f(PyObject *o, PyObject *t)\n{\n"
             "    PyTypeObject *tp = CystckObject_Type(S, o);\n"
             "    if (CystckType_GetFlags(S, tp) & Py_TPFLAGS_HEAPTYPE)\n        return 1;\n"
             "    if (CystckType_GetFlags(S, CystckObject_Type(S, o)) & Py_TPFLAGS_LONG_SUBCLASS)\n        return 2;\n"
             "    return (CystckType_GetFlags(S, t) & Py_TPFLAGS_BASETYPE) != 0;\n}\n")

    def apply(self, unit):
        code = unit.masked
        if not regex.search(r"->\s*tp_flags\b", code):
            return 0
        edits, n = source.Edits(), 0
        for m, handle in _type_slot_reads(unit, "tp_flags", _FLAGS_WRITTEN, address_taken=True):
            edits.add(m.start(), m.end(), f"CystckType_GetFlags(S, {handle})")
            n += 1
        if edits:
            unit.apply(edits)
        return n
