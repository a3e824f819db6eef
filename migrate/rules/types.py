"""Custom types: instance structs, static ``PyTypeObject``s and
``PyType_Spec``s, their method/member/getset tables, slot functions with
native-struct access, deallocation and GC traversal."""
import regex

from .. import cstruct, destructors, libraries, project as proj, source
from ..engine import Rule
from . import _common, functions, tables
from .escape import MARK

# Compiled once (the regex module's cache lookup per call is slow).
_STRUCT_DEFINITION = regex.compile(r"\s*(?:typedef\s+)?(?:struct|class)\b[^;(]*\{")


def _inline_macro_uses(unit, find_uses):
    """Inline the macro uses that ``find_uses`` (a project function giving
    the edits and the names of the macros used) finds in the unit, then
    remove the definitions no use is left of; the number of uses inlined."""
    edits, names = find_uses(unit.text)
    if not names:
        return 0
    unit.apply(edits)
    n = edits.applied
    unit.apply(proj.unused_definitions(unit.text, names))
    return n


class StructMemberMacros(Rule):
    """A function-like macro that declares the members of several instance
    structs, object head included (``#define COMMON(p) PyObject_HEAD
    PyObject *p##_dict;``, used as ``COMMON(a)`` in a struct body), is
    expanded in each struct, one member a line with the arguments pasted
    in, and its definition goes once no use is left: the structs are then
    instance structs for the other rules (the project pass already did)."""
    name = "struct-member-macros"
    precedence = 150
    patterns = (r"\bstruct\s*\w*\s*\{",)
    before = ('#define COMMON(p) \\\n    PyObject_HEAD \\\n    PyObject *p##_dict; \\\n    long p##_n;\n\n'
              'typedef struct {\n    COMMON(a)\n    double extra;\n} A;\n')
    after = ('\n'
             'typedef struct {\n    PyObject_HEAD\n    PyObject *a_dict;\n    long a_n;\n    double extra;\n} A;\n')

    def apply(self, unit):
        return _inline_macro_uses(unit, proj.member_macro_uses)


class ObjectStruct(Rule):
    """An instance struct loses its ``PyObject_HEAD`` (the runtime keeps the
    head before the native struct), its ``PyObject *`` members become
    ``Cystck_Field`` (visible to the GC through traverse; the one that
    ``tp_weaklistoffset`` names a ``Cystck_WeakList``), and the typed
    accessor ``Name_AsStruct(S, h)`` is declared after it with
    ``CYSTCK_TYPE_HELPERS``.  A struct that starts with another instance
    struct by value (``typedef struct { Box base; PyObject *tag; } Tagged;``,
    a subtype's layout) is an instance struct too: its base member stays,
    the rest is treated alike.  A variable-size instance's
    ``PyObject_VAR_HEAD`` becomes ``CYSTCK_VAR_HEAD`` (room for the item
    count) and its inline items, ``PyObject *items[1]``, an array of
    fields, ``Cystck_Field items[1]``."""
    name = "object-struct"
    precedence = 200
    patterns = (r"(?P<td>typedef\s+)?\bstruct\s*(?P<tag>\w+)?\s*\{", r"^\s*PyObject_(?:VAR_)?HEAD\b[ \t;]*\n?")
    before = ("typedef struct {\n    PyObject_HEAD\n    PyObject *value;\n    long n;\n} Box;\n"
              "typedef struct {\n    Box base;\n    PyObject *tag;\n} Tagged;\n"
              "typedef struct {\n    Box *box;\n    PyObject *tag;\n} Holder;\n")
    after = ("typedef struct {\n    Cystck_Field value;\n    long n;\n} Box;\n"
             "CYSTCK_TYPE_HELPERS(Box)\n"
             "typedef struct {\n    Box base;\n    Cystck_Field tag;\n} Tagged;\n"
             "CYSTCK_TYPE_HELPERS(Tagged)\n"
             "typedef struct {\n    Box *box;\n    PyObject *tag;\n} Holder;\n")

    def apply(self, unit):
        code, text = unit.structure, unit.text
        edits = source.Edits()
        n = 0
        for m in regex.finditer(self.patterns[0], code):
            open_at = m.end() - 1
            close = source.matching(code, open_at)
            head = regex.search(self.patterns[1], code[open_at + 1:close], regex.M)
            members = cstruct.struct_members(code, open_at, close)
            after = regex.match(r"\s*(?P<name>\w+)?\s*;", code[close:])
            name = after.group("name") if (m.group("td") and after and after.group("name")) else None
            info = unit.project.types.get(name or m.group("tag") or "")
            if head:
                self._drop_head(text, code, open_at + 1, head, edits)
            elif not (info and info.base):
                continue       # neither a head nor a base type's struct first: a plain struct
            for base, d, span in members:
                if info and d.name in info.weaklist:
                    self._retype(unit, code, span, d.name, "Cystck_WeakList", edits)
                elif info and d.name in info.object_fields:
                    self._retype(unit, code, span, d.name, "Cystck_Field", edits)
            end = close + (after.end() if after else 0)
            helpers = f"\nCYSTCK_TYPE_HELPERS({name})" if name else \
                f"\ntypedef struct {m.group('tag')} {m.group('tag')};\nCYSTCK_TYPE_HELPERS({m.group('tag')})"
            edits.add(end, end, helpers)
            n += 1
        if edits:
            unit.apply(edits)
        return n

    def _retype(self, unit, code, span, member, new_type, edits):
        """The member declared at ``span`` (``PyObject *name;``) gets
        ``new_type``; one declaring several names is reported."""
        decl = regex.match(r"\s*(?:const\s+)?(?:struct\s+)?\w+\s*\*\s*", code[span[0]:span[1]])
        if decl and "," not in code[span[0]:span[1]]:
            edits.add(span[0] + len(decl.group()) - len(decl.group().lstrip()),
                      span[0] + decl.end(), new_type + " ")
        else:
            unit.leftover(span[0], f"member {member}: split this declaration so that "
                                   f"it can become a {new_type}", self.name)

    @staticmethod
    def _drop_head(text, code, offset, head, edits):
        hs = offset + head.start()
        he = offset + head.end()
        token = hs + len(head.group()) - len(head.group().lstrip())
        line_s = text.rfind("\n", 0, token) + 1
        if "VAR_HEAD" in head.group():
            # room for CPython's item count, kept out of the native data
            edits.add(token, token + len("PyObject_VAR_HEAD"), "CYSTCK_VAR_HEAD")
        elif text[line_s:token].strip() == "" and code[he - 1:he] == "\n":
            edits.add(line_s, he, "")          # the head is alone on its line
        else:
            edits.add(token, token + len(head.group().strip()), "")


class FieldArrayAllocations(Rule):
    """The storage of an array of fields in native memory (a ``PyObject
    **items`` member that the type's traverse visits item by item, which
    object-struct declares ``Cystck_Field *items``) is allocated for
    fields: in a value stored into the member, and in ``PyMem_Resize`` of
    it, ``sizeof(PyObject *)`` becomes ``sizeof(Cystck_Field)``, a
    ``(PyObject **)`` cast ``(Cystck_Field *)`` and ``PyMem_New(PyObject *,
    n)`` ``PyMem_New(Cystck_Field, n)``.  The memory a stock allocator
    zeroes holds empty fields; the items are then stored and loaded with
    the field API (struct-access)."""
    name = "field-array-allocations"
    precedence = 205
    patterns = (r"->\s*(?P<m>\w+)\s*=(?!=)", r"\bPyMem_Resize\s*\(\s*(?P<x>[^,;]*?->\s*(?P<m>\w+))\s*,")
    before = ("typedef struct { PyObject_HEAD PyObject **items; Py_ssize_t n; } Vec;\n"
              "static int Vec_traverse(Vec *self, visitproc visit, void *arg)\n{\n"
              "    for (Py_ssize_t i = 0; i < self->n; i++)\n        Py_VISIT(self->items[i]);\n    return 0;\n}\n"
              "static PyTypeObject VecType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Vec\",\n"
              "    .tp_basicsize = sizeof(Vec), .tp_traverse = (traverseproc)Vec_traverse};\n"
              "static int grow(Vec *v, Py_ssize_t n)\n{\n"
              "    v->items = (PyObject **)PyMem_Calloc(n, sizeof(PyObject *));\n    return v->items ? 0 : -1;\n}\n")
    after = ("typedef struct { PyObject_HEAD PyObject **items; Py_ssize_t n; } Vec;\n"
             "static int Vec_traverse(Vec *self, visitproc visit, void *arg)\n{\n"
             "    for (Py_ssize_t i = 0; i < self->n; i++)\n        Py_VISIT(self->items[i]);\n    return 0;\n}\n"
             "static PyTypeObject VecType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Vec\",\n"
             "    .tp_basicsize = sizeof(Vec), .tp_traverse = (traverseproc)Vec_traverse};\n"
             "static int grow(Vec *v, Py_ssize_t n)\n{\n"
             "    v->items = (Cystck_Field *)PyMem_Calloc(n, sizeof(Cystck_Field));\n    return v->items ? 0 : -1;\n}\n")

    _SPELLINGS = ((r"\(\s*PyObject\s*\*\s*\*\s*\)", "(Cystck_Field *)"),
                  (r"\bsizeof\s*\(\s*PyObject\s*\*\s*\)", "sizeof(Cystck_Field)"),
                  (r"\bPyMem_New\s*\(\s*PyObject\s*\*\s*,", "PyMem_New(Cystck_Field,"))

    def apply(self, unit):
        members = {m for info in unit.project.types.values() for m in info.field_pointers}
        if not members:
            return 0
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for m in regex.finditer(self.patterns[0], code):
            if m.group("m") in members:
                end = _common.expression_end(code, m.end(), len(code))
                self._respell(code, m.end(), end, edits)
        for m in regex.finditer(self.patterns[1], code):
            if m.group("m") in members:
                close = source.matching(code, code.index("(", m.start()))
                spelled = regex.match(r"\s*PyObject\s*\*\s*(?=,)", code[m.end():close])
                if spelled:
                    edits.add(m.end(), m.end() + spelled.end(), " Cystck_Field")
                self._respell(code, m.end() + (spelled.end() if spelled else 0), close, edits)
        if edits:
            unit.apply(edits)
        return edits.applied

    def _respell(self, code, start, end, edits):
        for pattern, spelling in self._SPELLINGS:
            for s in regex.finditer(pattern, code, pos=start, endpos=end):
                edits.add(s.start(), s.end(), spelling)


class StructMembers(Rule):
    """``PyObject *`` members of plain structs (encoder contexts, parser
    states living for one call) become ``Cystck_Object`` handles; members of
    a module-state struct, or of a plain struct that a global holds
    (``static holder H;``, an array of them, a pointer to one), become
    ``Cystck_Ref`` because they outlive the call (the global-refs rule
    stores and reads them); so do those of a plain struct in memory the
    extension allocates and keeps beyond the allocating call (a list node
    ``PyMem_Malloc(sizeof(node))``'d, an array of structs ``PyMem_New``'d:
    project._collect_heap_structs).  An array member, ``PyObject *items[N];``, is
    an array of the one or the other.  That goes by struct: a member of
    another plain struct named like one of those stays a handle (and so
    do its accesses, by the declaration of their first name:
    _common.member_owner).  An unnamed struct, ``static struct { PyObject
    *last; } memo;``, goes by its members' names."""
    name = "struct-members"
    precedence = 210
    patterns = (r"\bstruct\s*\w*\s*\{",)
    before = "typedef struct {\n    PyObject *dict;\n    int n;\n} Ctx;\nstatic void f(Ctx *c) { g(c->dict); }\n"
    after = "typedef struct {\n    Cystck_Object dict;\n    int n;\n} Ctx;\nstatic void f(Ctx *c) { g(c->dict); }\n"

    def apply(self, unit):
        p = unit.project
        if not p.handle_fields and not p.ref_fields and not p.ref_array_fields and not p.handle_array_fields:
            return 0
        code = unit.structure
        edits = source.Edits()
        for m in regex.finditer(r"(?:typedef\s+)?\b(?:struct|union|class)\s*(?P<tag>\w+)?\s*\{", code):
            open_at = m.end() - 1
            close = source.matching(code, open_at)
            if regex.search(r"^\s*PyObject_(?:VAR_)?HEAD\b", code[open_at + 1:close], regex.M):
                continue
            if m.start() > 0 and regex.search(r"\b(?:struct|union|class)\s*\w*\s*\{[^{}]*$", code[:m.start()]):
                continue   # nested: handled with its parent
            struct = self._named(code, m, close)
            if struct in p.capsule_structs:
                continue   # a C API table exported in a capsule, read by stock extensions
            for base, d, span in cstruct.struct_members(code, open_at, close):
                if d.array:
                    self._array(p, code, base, d, span, edits)
                    continue
                if d.name not in p.handle_fields and d.name not in p.ref_fields:
                    continue
                if not regex.fullmatch(r"\s*(?:const\s+)?" + proj.OBJECT_TYPES, base) or d.pointer != "*":
                    continue
                decl = regex.match(r"\s*(?:const\s+)?" + proj.OBJECT_TYPES + r"\s*\*\s*", code[span[0]:span[1]])
                if decl and "," not in code[span[0]:span[1]]:
                    new = "Cystck_Ref " if p.member_is_ref(d.name, struct) else "Cystck_Object "
                    edits.add(span[0] + len(decl.group()) - len(decl.group().lstrip()), span[0] + decl.end(), new)
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _named(code, m, close):
        """The name of the struct whose definition ``m`` opens (its tag, or
        its typedef name), or None for an unnamed one: which of its members
        are references goes by the struct where it has a name (a plain
        struct a global holds), by the member's name otherwise."""
        if m.group("tag"):
            return m.group("tag")
        after = regex.match(r"\s*(\w+)\s*;", code[close:])
        return after.group(1) if after and m.group().startswith("typedef") else None


    @staticmethod
    def _array(p, code, base, d, span, edits):
        """``PyObject *items[N];``: ``Cystck_Ref items[N];`` where a global
        holds the struct, ``Cystck_Object items[N];`` where it lives for
        the call."""
        if d.name in p.ref_array_fields:
            new = "Cystck_Ref "
        elif d.name in p.handle_array_fields:
            new = "Cystck_Object "
        else:
            return
        decl = regex.match(r"\s*(?:const\s+)?" + proj.OBJECT_TYPES + r"\s*\*\s*", code[span[0]:span[1]])
        if decl and d.pointer == "*" and "," not in code[span[0]:span[1]]:
            edits.add(span[0] + len(decl.group()) - len(decl.group().lstrip()), span[0] + decl.end(), new)


_GENERIC_SLOTS = {("tp_iter", "PyObject_SelfIter"): "CYSTCK_DEF_SELFITER",
                  ("tp_hash", "PyObject_HashNotImplemented"): "CYSTCK_DEF_HASH_NOT_IMPLEMENTED"}


def _slot_defs(unit, owner, slot_values, where):
    """CYSTCK_DEF_SLOT lines for {slot: function}; returns (lines, symbols)."""
    lines, symbols = [], []
    for slot, value in slot_values:
        func = cstruct.strip_cast(value)
        if func in ("NULL", "0", ""):
            continue
        if func in proj.DEFAULT_SLOT_FUNCTIONS:
            continue      # the runtime's defaults do the same
        sym = f"{owner}_{slot}"
        if (slot, func) in _GENERIC_SLOTS:    # CPython's own, touching no handle
            lines.append(f"{_GENERIC_SLOTS[slot, func]}({sym})")
            symbols.append(sym)
            continue
        role = proj.slot_role(slot)
        if role is None or not regex.fullmatch(r"[A-Za-z_]\w*", func) or func.startswith("Py"):
            unit.leftover(where, f"slot {slot} = {func} has no Cystck counterpart", "type-object")
            continue
        if role.kind == "dropped" and slot == "tp_clear" and getattr(unit.project.role(func), "kind", None) == "clear":
            # the native work of the extension's clear, after the runtime's
            impl, forwarder = functions.slot_implementation(unit, func, unit.project.role(func), sym)
            lines.append(f"CYSTCK_DEF_CLEAR({sym}, {impl}){forwarder}")
            symbols.append(sym)
            continue
        if role.kind == "dropped":
            continue
        # a deallocator calling the API keeps it in tp_dealloc, before the
        # destructor (if split off, destructor-split); a function another
        # file declares is called through a forwarder
        if role.kind == "destroy" and unit.project.role(func) is proj.FINALIZER:
            impl, forwarder = functions.slot_implementation(unit, func, proj.FINALIZER, f"{sym}_release")
            lines.append(f"CYSTCK_DEF_DEALLOC_API({sym}, {impl}){forwarder}")
        elif role.kind == "destroy" and func in unit.project.destructor_splits:
            impl, forwarder = functions.slot_implementation(unit, func, role, sym)
            lines.append(f"CYSTCK_DEF_DEALLOC({sym}, {unit.project.destructor_splits[func]}, {impl}){forwarder}")
        elif role.kind == "destroy":
            impl, forwarder = functions.slot_implementation(unit, func, role, sym)
            lines.append(f"CYSTCK_DEF_DESTROY({sym}, {impl}){forwarder}")
        else:
            impl, forwarder = functions.slot_implementation(unit, func, role, sym)
            lines.append(f"CYSTCK_DEF_SLOT({sym}, {slot}, {impl}){forwarder}")
        symbols.append(sym)
    return lines, symbols


def _flags(unit, text, where):
    """The Cystck flags for a stock flags expression.  Flags under a
    preprocessor conditional (``#if PY_VERSION_HEX >= ...`` around ``|
    Py_TPFLAGS_IMMUTABLETYPE``) keep their conditional, each directive on
    a line of its own, the expression ending with a new line."""
    text = text or "0"
    if not regex.search(r"^[ \t]*#", text, regex.M):
        return _flag_list(unit, text, where)
    out, depth, conditional = [], 0, []
    for line in text.split("\n"):
        directive = regex.match(r"[ \t]*#[ \t]*(?P<k>\w+)", line)
        if directive:
            out.append(line.strip())
            depth += {"if": 1, "ifdef": 1, "ifndef": 1, "endif": -1}.get(directive.group("k"), 0)
            continue
        flags = _flag_list(unit, line, where)
        if flags == "0":
            continue
        out.append(("    | " + flags) if depth or conditional else flags)
        conditional.append(flags)
    if not conditional or regex.match(r"#", out[0]):
        out.insert(0, "0")
    # the initialiser's value ends before a trailing #endif (masked as
    # blank): close what the value opened
    out += ["#endif"] * depth
    return "\n".join(out) + "\n"


def _flag_list(unit, text, where):
    flags = [f.strip() for f in regex.split(r"\|", text) if f.strip()]
    out = []
    for f in flags:
        # Py_TPFLAGS_HAVE_FINALIZE: CPython ignores it since 3.8 (a finalizer is its slot)
        if f in ("Py_TPFLAGS_DEFAULT", "Py_TPFLAGS_HAVE_GC", "0", "Py_TPFLAGS_HAVE_VERSION_TAG",
                 "Py_TPFLAGS_HAVE_FINALIZE"):
            continue
        if f in ("Py_TPFLAGS_BASETYPE", "Py_TPFLAGS_DISALLOW_INSTANTIATION"):
            out.append(f.replace("Py_", "CYSTCK_", 1))
        else:
            unit.leftover(where, f"type flag {f} kept as is: Cystck defines no counterpart", "type-object")
            out.append(f)
    return " | ".join(out) or "0"


def _table_symbols(unit, planned, table_name, where):
    t = planned.get(table_name)
    if t is None:
        unit.leftover(where, f"table {table_name} is not in this file: list its definitions by hand",
                      "type-object")
        return []
    return [e for e in t.entries if e.ok]      # each in its conditionals


class TypeSlotMacros(Rule):
    """A macro that gives several static types the same slots (``#define
    SHARED_SLOTS .tp_basicsize = sizeof(View), .tp_iter = view_iter``,
    used as an element of their ``PyTypeObject`` initialisers) is
    expanded in each initialiser, one designated element a line, and its
    definition goes once no use is left: the type-object rule then reads
    those slots as the type's own (the project pass already did)."""
    name = "type-slot-macros"
    precedence = 285
    patterns = (r"\bPyTypeObject\s+(?P<name>\w+)\s*=\s*\{",)
    before = ('#define VIEW_SLOTS \\\n    .tp_basicsize = sizeof(View), \\\n    .tp_iter = view_iter,\n\n'
              'static PyTypeObject KeysType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    "keys",\n    VIEW_SLOTS\n};\n'
              'static PyTypeObject ItemsType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    "items",\n    VIEW_SLOTS\n};\n')
    after = ('\n'
             'static PyTypeObject KeysType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    "keys",\n'
             '    .tp_basicsize = sizeof(View),\n    .tp_iter = view_iter\n};\n'
             'static PyTypeObject ItemsType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    "items",\n'
             '    .tp_basicsize = sizeof(View),\n    .tp_iter = view_iter\n};\n')

    def apply(self, unit):
        return _inline_macro_uses(unit, proj.slot_macro_uses)


class TableElementMacros(Rule):
    """A function-like macro whose body is one braced table element
    (``#define METHOD(n, k) {#n, (PyCFunction)obj_##n, k, obj_##n##_doc}``,
    used as the elements of a ``PyMethodDef``, ``PyMemberDef`` or
    ``PyGetSetDef`` array) is expanded at each use, ``#n`` made a string
    and ``##`` pasted as the preprocessor does, and its definition (and
    ``#undef``) goes once no use is left: the table rules then read (and
    rewrite) the entries, and the project pass knows the functions as
    methods with their calling conventions (it expands them too)."""
    name = "table-element-macros"
    precedence = 286
    patterns = (r"\b(?:PyMethodDef|PyMemberDef|PyGetSetDef)\s+\w+\s*\[",)
    before = ('#define METHOD(n, k) {#n, (PyCFunction)box_##n, k, NULL}\n'
              'static PyMethodDef box_methods[] = {\n    METHOD(get, METH_O),\n    {NULL}\n};\n#undef METHOD\n')
    after = ('static PyMethodDef box_methods[] = {\n    {"get", (PyCFunction)box_get, METH_O, NULL},\n    {NULL}\n};\n')

    def apply(self, unit):
        return _inline_macro_uses(unit, proj.table_element_macro_uses)


class DisallowInstantiation(Rule):
    """A static type that Python code cannot instantiate says so with
    ``Py_TPFLAGS_DISALLOW_INSTANTIATION``, which the type-object rule
    carries into its spec: ``FooType.tp_new = NULL;`` after
    ``PyType_Ready`` (the idiom for a type only its module creates) goes,
    and the flag is added to ``FooType``'s ``tp_flags``.  So is it for a
    static type with no ``tp_new`` at all whose base is ``object``:
    ``PyType_Ready`` makes such a type non-instantiable, where a type from
    a spec inherits ``object``'s ``tp_new`` and ``type(x)()`` would make an
    instance that its methods do not expect.  A type given a ``tp_new``
    (in its initialiser or by ``FooType.tp_new = PyType_GenericNew;``) or
    another base keeps what it has."""
    name = "disallow-instantiation"
    precedence = 290
    patterns = (r"\bPyTypeObject\s+(?P<name>\w+)\s*=\s*\{",
                r"\b(?P<t>\w+)\s*\.\s*tp_new\s*=\s*(?:NULL|0|nullptr)\s*;")
    before = ('static PyTypeObject CursorType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = "m.Cursor",\n'
              '    .tp_flags = Py_TPFLAGS_DEFAULT,\n    .tp_new = PyType_GenericNew,\n};\n'
              'static int ready(void)\n{\n    if (PyType_Ready(&CursorType) < 0)\n        return -1;\n'
              '    CursorType.tp_new = NULL;\n    return 0;\n}\n')
    after = ('static PyTypeObject CursorType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = "m.Cursor",\n'
             '    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,\n    .tp_new = PyType_GenericNew,\n};\n'
             'static int ready(void)\n{\n    if (PyType_Ready(&CursorType) < 0)\n        return -1;\n'
             '    return 0;\n}\n')

    def apply(self, unit):
        sealed = unit.project.sealed_types
        if not sealed:
            return 0
        code, text = unit.structure, unit.text
        edits = source.Edits()
        for m in regex.finditer(self.patterns[0], code):
            if m.group("name") in sealed:
                self._add_flag(unit, m, edits)
        for m in regex.finditer(self.patterns[1], code):
            if m.group("t") not in sealed:
                continue
            if _common.in_unbraced_body(code, m.start()):
                edits.add(m.start(), m.end(), ";")
            else:
                edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")
        if edits:
            unit.apply(edits)
        return edits.applied

    def _add_flag(self, unit, m, edits):
        code, text = unit.structure, unit.text
        items = proj.table_items(code, text, m)
        flags = cstruct.fields_of(items, proj.TYPE_FIELDS).get("tp_flags")
        if flags is not None and flags.text:
            if "Py_TPFLAGS_DISALLOW_INSTANTIATION" not in flags.text:
                edits.add(flags.span[1], flags.span[1], " | Py_TPFLAGS_DISALLOW_INSTANTIATION")
        elif not unit.is_cpp and items:
            # No tp_flags: a designated one after the last element (C allows it).
            last = items[-1].span[1]
            edits.add(last, last, ",\n    .tp_flags = Py_TPFLAGS_DISALLOW_INSTANTIATION")
        else:
            unit.leftover(m.start(), f"{m.group('name')} cannot be instantiated: add "
                          "Py_TPFLAGS_DISALLOW_INSTANTIATION to its tp_flags", self.name)


def _fields_traverse(p, fields, slot_values):
    """(name, definition) of a traverse function visiting every object
    member of a type's struct, for a type that has such members but no
    traverse (a stock type without GC): the runtime finds a struct's
    Cystck_Fields only through traverse, to zero them in a new instance
    and release them when it dies.  None if the type needs none."""
    if any(k == "tp_traverse" and v and v.strip() not in ("NULL", "0") for k, v in slot_values):
        return None
    size = fields["tp_basicsize"].text if "tp_basicsize" in fields else None
    # sizeof(Foo), or sizeof(Foo) - sizeof(PyObject *) for a variable-size
    # struct whose last member holds the first item
    sm = regex.fullmatch(r"\s*sizeof\s*\(\s*(?P<s>(?:struct\s+)?(?P<n>\w+))\s*\)"
                         r"(?:\s*-\s*sizeof\s*\(\s*PyObject\s*\*\s*\))?\s*", size or "")
    info = p.types.get(sm.group("n")) if sm else None
    if info is None or not info.object_fields:
        return None
    struct = sm.group("s")
    name = f"cystck_migrate_{sm.group('n')}_traverse"
    p.roles[name] = proj.slot_role("tp_traverse")
    var = "tp_itemsize" in fields and (fields["tp_itemsize"].text or "0").strip() not in proj.NULLS
    visits = "".join(_visit_field(f, f in info.object_arrays, var)
                     for f in info.fields if f in info.object_fields)
    index = "    Cystck_ssize_t i;\n" if info.object_arrays & set(info.fields) else ""
    return name, (f"/* cystck-migrate: the runtime finds the fields of {struct} through traverse. */\n"
                  f"static int {name}(void *data, Cystck_visitproc visit, void *arg)\n{{\n"
                  f"    {struct} *self = ({struct} *)data;\n{index}{visits}    return 0;\n}}")


def _visit_field(f, array, var):
    """The traverse statement visiting member f: an array of fields item
    by item, up to the item count for a variable-size type's items."""
    if not array:
        return f"    Cystck_VISIT(&self->{f});\n"
    bound = "CystckVar_DataSize(data)" if var else f"(Cystck_ssize_t)(sizeof(self->{f}) / sizeof(self->{f}[0]))"
    return f"    for (i = 0; i < {bound}; i++)\n        Cystck_VISIT(&self->{f}[i]);\n"


class TypeObject(Rule):
    """A static ``PyTypeObject`` (with its number/sequence/mapping tables)
    becomes ``CYSTCK_DEF_SLOT``/``CYSTCK_DEF_DESTROY`` definitions (and
    ``CYSTCK_DEF_WEAKLIST`` for ``tp_weaklistoffset = offsetof(...)``,
    ``CYSTCK_DEF_DICT`` for ``tp_dictoffset = offsetof(Foo, dict)`` of an
    object member), a
    ``defines`` array that also lists the type's methods, members and
    getsets, and a ``CystckType_Spec`` named ``<type>_spec``.  The type
    variable itself becomes a ``static Cystck_Ref`` filled by the init
    function (see the ``type-ready`` rule); so does each name of a
    declaration ahead, ``static PyTypeObject BoxType, RowType;``.  ``tp_clear``, ``tp_alloc`` and
    ``tp_free`` are dropped: the runtime clears fields through traverse and
    allocates and frees instances itself.  Slots and tables stored in code
    before the type's ``PyType_Ready`` (``FooType.tp_methods =
    Foo_methods;`` in the init function) are the type's as if its
    initialiser listed them (the ``type-ready`` rule removes the stores)."""
    name = "type-object"
    precedence = 300
    # (a declaration may name several: ``static PyTypeObject BoxType, RowType;``)
    patterns = (r"\bPyTypeObject\s+(?P<name>\w+)\s*=\s*\{", r"\bPyTypeObject\s+(?P<name>\w+(?:\s*,\s*\w+)*)\s*;")
    before = ('typedef struct { long n; } Box;\nstatic PyTypeObject BoxType;\n'
              'static PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = "m.Box",\n'
              '    .tp_basicsize = sizeof(Box),\n    .tp_flags = Py_TPFLAGS_DEFAULT,\n    .tp_repr = Box_repr,\n};\n')
    after = ('typedef struct { long n; } Box;\nstatic Cystck_Ref BoxType;\n'
             'CYSTCK_DEF_SLOT(BoxType_tp_repr, tp_repr, Box_repr)\n'
             'static CystckDef *BoxType_defines[] = {\n    &BoxType_tp_repr,\n    NULL\n};\n'
             'static CystckType_Spec BoxType_spec = {\n    "m.Box",\n    sizeof(Box),\n    0,\n    0,\n'
             '    BoxType_defines,\n    NULL\n};\n')

    def apply(self, unit):
        code, text = unit.structure, unit.text
        defs = list(regex.finditer(self.patterns[0], code))
        if not defs:
            return self._declarations_elsewhere(unit)
        planned = tables.plan(unit)
        items = source.top_level_items(code)
        subtables = {}
        for m in proj._DEF_PATTERNS["subtable"].finditer(code):
            span = next(((s, e) for s, e in items if s <= m.start() < e), None)
            order = proj.SUBTABLES[m.group("kind")]
            subtables[m.group("name")] = (span, cstruct.fields_of(proj.table_items(code, text, m), order))
        forward = {}
        edits = source.Edits()
        for m in regex.finditer(self.patterns[1], code):
            names = _declared_names(m)
            forward.update(dict.fromkeys(names, m))
            new = _declaration(unit, m, names)
            if new is not None:
                edits.add(m.start(), m.end(), new)
        for m in defs:
            name = m.group("name")
            span = next(((s, e) for s, e in items if s <= m.start() < e), None)
            f = cstruct.fields_of(proj.table_items(code, text, m), proj.TYPE_FIELDS)
            for key, value in unit.project.type_slot_stores.get(name, {}).items():
                f[key] = cstruct.Item(key, value, (m.start(), m.start()))    # stored in the init
            slot_values, symbols, removed, weaklist = [], [], [], []
            for key, it in f.items():
                if key.startswith("tp_as_") and it.text:
                    sub = regex.sub(r"^&\s*", "", it.text.strip())
                    if sub in subtables:
                        sspan, sf = subtables[sub]
                        slot_values += [(k, v.text) for k, v in sf.items() if v.text]
                        removed.append(sspan)
                    elif sub in unit.project.subtable_stores:
                        # a table filled in the init function (type-ready removes the stores)
                        slot_values += list(unit.project.subtable_stores[sub].items())
                    elif it.text not in ("NULL", "0", "nullptr"):
                        unit.leftover(m.start(), f"{key} = {it.text}: table not found", self.name)
                elif key in ("tp_methods", "tp_members", "tp_getset") and it.text not in (None, "NULL", "0", "nullptr"):
                    symbols += _table_symbols(unit, planned, it.text.strip(), m.start())
                elif key == "tp_weaklistoffset" and proj.weaklist_member(unit.project, it.text):
                    struct, member = proj.weaklist_member(unit.project, it.text)
                    weaklist.append(f"CYSTCK_DEF_WEAKLIST({name}_weaklist, {struct}, {member})")
                    symbols.append(f"{name}_weaklist")
                elif key == "tp_dictoffset" and self._dict_member(unit.project, it.text):
                    struct, member = self._dict_member(unit.project, it.text)
                    weaklist.append(f"CYSTCK_DEF_DICT({name}_dict, {struct}, {member})")
                    symbols.append(f"{name}_dict")
                elif key in ("tp_dictoffset", "tp_weaklistoffset", "tp_vectorcall_offset",
                             "tp_getattr", "tp_setattr", "tp_descr_get", "tp_descr_set", "tp_is_gc",
                             "tp_as_buffer", "tp_vectorcall") \
                        and it.text not in (None, "NULL", "0", "nullptr"):
                    unit.leftover(m.start(), f"{key} = {it.text}: no Cystck counterpart", self.name)
                elif key.startswith("tp_") and key not in ("tp_name", "tp_basicsize", "tp_itemsize",
                                                            "tp_flags", "tp_doc", "tp_base"):
                    slot_values.append((key, it.text))
            traverse = _fields_traverse(unit.project, f, slot_values)
            if traverse:
                slot_values.append(("tp_traverse", traverse[0]))
            lines, slot_syms = _slot_defs(unit, name, slot_values, m.start())
            out = ([traverse[1]] if traverse else []) + lines + weaklist + \
                [tables.defines_array(f"{name}_defines", slot_syms + symbols)]
            static = "static " if regex.search(r"\bstatic\b", code[span[0]:m.start()]) else ""
            if name not in forward:
                out.append(f"{static}Cystck_Ref {name};")
            fields = [f[k].text if k in f and f[k].text else d for k, d in
                      (("tp_name", '""'), ("tp_basicsize", "0"), ("tp_itemsize", "0"))]
            # `HEAD "m.Box"`, a macro for the head before the name: the spec has no head
            head = regex.match(r"(?P<macro>[A-Za-z_]\w*)\s+(?=\")", fields[0])
            if head and head.group("macro") in proj.head_init_macros(unit.project):
                fields[0] = fields[0][head.end():]
            fields.append(_flags(unit, f["tp_flags"].text if "tp_flags" in f else "0", m.start()))
            fields.append(f"{name}_defines")
            fields.append(f["tp_doc"].text if "tp_doc" in f and f["tp_doc"].text else "NULL")
            body = ",\n".join("    " + x for x in fields)
            # another file readies a type it declares: the spec is as visible as the type
            spec_static = static if not static and _declared_in_other_files(unit, name) else "static "
            out.append(f"{spec_static}CystckType_Spec {name}_spec = {{\n{body}\n}};")
            edits.add(_common.declaration_start(code, span, m.start()),
                      span[1], "\n".join(out))
            for s, e in removed:
                edits.add(*_common.statement_line_span(text, s + len(code[s:e]) - len(code[s:e].lstrip()), e), "")
        unit.apply(edits)
        return len(defs)

    @staticmethod
    def _dict_member(project, offset):
        """(struct, member) named by ``tp_dictoffset = offsetof(Foo, dict)``
        where the member holds an object (a Cystck_Field once translated,
        the one PyObject * CPython reads): CYSTCK_DEF_DICT.  Else None (a
        number, an expression, a member of another type: reported)."""
        found = proj.weaklist_member(project, offset)
        if found and found[1] in project.types[found[0]].object_fields:
            return found
        return None

    def _declarations_elsewhere(self, unit):
        """A file (a header) that only declares type objects defined in
        another file, ``PyTypeObject FooType;``, declares their references:
        ``Cystck_Ref FooType;`` (``extern`` stays).  A type object no file of
        the extension defines (another library's) is left alone."""
        code = unit.structure
        edits = source.Edits()
        for m in regex.finditer(self.patterns[1], code):
            new = _declaration(unit, m, _declared_names(m))
            if new is not None:
                edits.add(m.start(), m.end(), new)
        unit.apply(edits)
        return edits.applied


def _declaration(unit, m, names):
    """What the declaration ``m`` of type objects ``names`` becomes: the
    references of those some file defines with an initialiser, and a stock
    declaration of its own for the others (another library's type, a
    struct-sequence type that PyStructSequence_InitType2 fills), which
    stay stock; None where every name stays stock."""
    defined = unit.project.defined_type_objects
    refs = [n for n in names if n in defined]
    if not refs:
        return None
    new = f"Cystck_Ref {', '.join(refs)};{_spec_declarations(unit, refs)}"
    others = [n for n in names if n not in defined]
    if others:
        # one declaration each: ``extern PyTypeObject Other;`` stays
        lead = regex.search(r"(?:\b(?:static|extern|const)\s+)*$", unit.structure[:m.start()]).group()
        new += f" {lead}PyTypeObject {', '.join(others)};"
    return new


def _external_type_objects(project):
    """The type objects a file of ``project`` defines without ``static``
    (``PyTypeObject FooType = {...}``): name -> the defining file."""
    found = {}
    for path, text in project.files.items():
        code = source.mask(text)
        for m in regex.finditer(TypeObject.patterns[0], code):
            if not regex.search(r"\bstatic\b", code[code.rfind(";", 0, m.start()) + 1:m.start()].rsplit("}", 1)[-1]):
                found[m.group("name")] = path
    return found


def _declared_in_other_files(unit, name):
    """Does a file of the project other than ``unit``'s declare the type
    object ``name`` (``extern PyTypeObject FooType;``, in a header)?"""
    for path, text in unit.project.files.items():
        if path == unit.path or name not in text:
            continue
        if any(name in _declared_names(m) for m in regex.finditer(TypeObject.patterns[1], source.mask(text))):
            return True
    return False


def _spec_declarations(unit, names):
    """`` extern CystckType_Spec FooType_spec;`` for each of ``names`` that
    another file defines without ``static`` while this file only declares
    it: the file that readies the type (``CystckType_FromSpec(S,
    &FooType_spec, ...)``) sees the spec where it sees the type (the
    type-object rule makes that spec external)."""
    homes = _external_type_objects(unit.project)
    return "".join(f" extern CystckType_Spec {n}_spec;" for n in names
                   if n in homes and homes[n] != unit.path)


def _declared_names(m):
    """The names a ``PyTypeObject a, b;`` declaration (TypeObject's second
    pattern) declares."""
    return [n.strip() for n in m.group("name").split(",")]


class TypeSpec(Rule):
    """A ``PyType_Slot`` array becomes ``CYSTCK_DEF_SLOT`` definitions and a
    ``CystckDef *`` array of the same name (listing the methods, members and
    getsets named by ``Py_tp_methods``...); a ``PyType_Spec`` becomes a
    ``CystckType_Spec`` (``Py_tp_doc`` moves into it)."""
    name = "type-spec"
    precedence = 305
    patterns = (r"\bPyType_Slot\s+(?P<name>\w+)\s*\[[^\]]*\]\s*=\s*\{", r"\bPyType_Spec\s+(?P<name>\w+)\s*=\s*\{")
    before = ('static PyType_Slot Box_slots[] = {\n    {Py_tp_repr, Box_repr},\n    {Py_tp_doc, "a box"},\n'
              '    {0, NULL}\n};\nstatic PyType_Spec Box_spec = {"m.Box", sizeof(Box), 0, Py_TPFLAGS_DEFAULT, Box_slots};\n')
    after = ('CYSTCK_DEF_SLOT(Box_slots_tp_repr, tp_repr, Box_repr)\n'
             'static CystckDef *Box_slots[] = {\n    &Box_slots_tp_repr,\n    NULL\n};\n'
             'static CystckType_Spec Box_spec = {"m.Box", sizeof(Box), 0, 0, Box_slots, "a box"};\n')

    def apply(self, unit):
        code, text = unit.structure, unit.text
        slot_arrays = list(regex.finditer(self.patterns[0], code))
        specs = list(regex.finditer(self.patterns[1], code))
        if not slot_arrays and not specs:
            return 0
        planned = tables.plan(unit)
        items = source.top_level_items(code)
        docs = {}
        edits = source.Edits()
        for m in slot_arrays:
            name = m.group("name")
            span = next(((s, e) for s, e in items if s <= m.start() < e), None)
            values, symbols = [], []
            for it in proj.table_items(code, text, m):
                if not isinstance(it.value, list):
                    continue
                f = cstruct.fields_of(it.value, proj.SLOT_FIELDS)
                if "slot" not in f or not f["slot"].text or f["slot"].text.strip() == "0":
                    continue
                slot = f["slot"].text.strip().replace("Py_", "", 1)
                value = f["pfunc"].text if "pfunc" in f else ""
                if slot == "tp_doc":
                    docs[name] = value
                elif slot in ("tp_methods", "tp_members", "tp_getset"):
                    symbols += _table_symbols(unit, planned, cstruct.strip_cast(value), m.start())
                else:
                    values.append((slot, value))
            lines, slot_syms = _slot_defs(unit, name, values, m.start())
            static = "static " if regex.search(r"\bstatic\b", code[span[0]:m.start()]) else ""
            lines.append(tables.defines_array(name, slot_syms + symbols, static=bool(static)))
            edits.add(_common.declaration_start(code, span, m.start()),
                      span[1], "\n".join(lines))
        for m in specs:
            items_ = proj.table_items(code, text, m)
            f = cstruct.fields_of(items_, proj.SPEC_FIELDS)
            slots = f["slots"].text.strip() if "slots" in f and f["slots"].text else "NULL"
            vals = [f[k].text if k in f and f[k].text else "0" for k in ("name", "basicsize", "itemsize")]
            vals.append(_flags(unit, f["flags"].text if "flags" in f else "0", m.start()))
            vals.append(slots)
            vals.append(docs.get(slots, "NULL"))
            open_at = m.end() - 1
            close = source.matching(code, open_at)
            head = text[m.start():open_at].replace("PyType_Spec", "CystckType_Spec", 1)
            multiline = "\n" in text[open_at:close]
            body = (",\n".join("    " + v for v in vals) + "\n") if multiline else ", ".join(vals)
            edits.add(m.start(), close, f"{head}{{{chr(10) if multiline else ''}{body}}}")
        unit.apply(edits)
        return len(slot_arrays) + len(specs)


class ClassTypeStatics(Rule):
    """C++ extensions keep a type's spec and type object as static members
    of the instance struct (``static PyType_Spec TypeObject_Spec; static
    PyTypeObject* TypeObject;``, defined as ``PyTypeObject* Foo::TypeObject
    = NULL;``).  The spec becomes a ``CystckType_Spec`` with the same
    initialisers (its first five fields are ``PyType_Spec``'s: name, sizes,
    flags, and the slot array, which the type-spec rule made a defines
    array); the type object becomes a ``Cystck_Ref``, set from the created
    type, which a helper library's cast macro hands over (see
    ``libraries.py``): ``TypeObject = as_type( PyType_FromSpec( &spec )
    );`` becomes ``TypeObject = Cystck_ref(S, PyType_FromSpec( &spec ));``
    (the type-ready rule then translates the call)."""
    name = "class-type-statics"
    precedence = 306
    patterns = (r"^(?P<lead>[ \t]*static[ \t]+)PyType_Spec(?=\s+\w+\s*;)",
                r"^(?P<lead>[ \t]*static[ \t]+)PyTypeObject\s*\*\s*(?=\w+\s*;)",
                r"^(?P<lead>[ \t]*)PyType_Spec(?=\s+\w+::\w+\s*=)",
                r"^(?P<lead>[ \t]*)PyTypeObject\s*\*\s*(?=(?P<c>\w+)::(?P<m>\w+)\s*=)")
    before = ("struct Box\n{\n    PyObject_HEAD\n    static PyType_Spec TypeObject_Spec;\n"
              "    static PyTypeObject* TypeObject;\n    static bool Ready();\n};\n"
              "PyTypeObject* Box::TypeObject = NULL;\n"
              "PyType_Spec Box::TypeObject_Spec = { \"m.Box\", sizeof( Box ), 0, Py_TPFLAGS_DEFAULT, Box_slots };\n"
              "bool Box::Ready()\n{\n    return TypeObject != 0;\n}\n")
    after = ("struct Box\n{\n    PyObject_HEAD\n    static CystckType_Spec TypeObject_Spec;\n"
             "    static Cystck_Ref TypeObject;\n    static bool Ready();\n};\n"
             "Cystck_Ref Box::TypeObject = NULL;\n"
             "CystckType_Spec Box::TypeObject_Spec = { \"m.Box\", sizeof( Box ), 0, Py_TPFLAGS_DEFAULT, Box_slots };\n"
             "bool Box::Ready()\n{\n    return TypeObject != 0;\n}\n")

    def apply(self, unit):
        code = unit.structure
        edits = source.Edits()
        members = set()
        # static members: inside a top-level struct/class definition only
        # (a function-level static cache is the declarations rule's report)
        # (the item may begin with the CYSTCK_TYPE_HELPERS line that the
        # struct rule wrote after the previous struct)
        structs = [(s, e) for s, e in source.top_level_items(code)
                   if _STRUCT_DEFINITION.match(code[s:e])
                   or source.CLASS_BODY.search(code[s:e])]
        for pat, new in ((self.patterns[0], "CystckType_Spec"), (self.patterns[1], "Cystck_Ref ")):
            for m in regex.finditer(pat, code, regex.M):
                if any(s < m.start() < e for s, e in structs):
                    edits.add(m.end("lead"), m.end(), new)
        for m in regex.finditer(self.patterns[2], code, regex.M):
            edits.add(m.end("lead"), m.end(), "CystckType_Spec")
        for m in regex.finditer(self.patterns[3], code, regex.M):
            edits.add(m.end("lead"), m.end(), "Cystck_Ref ")
            members.add(m.group("m"))
        # Only the members defined here as type objects, assigned in a
        # function that has (or will get) the state.
        cast = libraries.cast_macro_pattern("PyTypeObject*")
        for m in regex.finditer(r"(?P<x>\b\w+)\s*=\s*" + cast + r"\s*" + _common.PAREN + r"\s*;", code):
            if m.group("x") not in members:
                continue
            inner = unit.text[m.start("p") + 1:m.end("p") - 1].strip()
            edits.add(m.start(), m.end(), f"{unit.text[m.start():m.end('x')]} = Cystck_ref(S, {inner});")
        if edits:
            unit.apply(edits)
        return edits.applied


class MethodTable(Rule):
    """A ``PyMethodDef`` array becomes one ``CYSTCK_DEF_METH(fn_def, "name",
    fn, CYSTCK_<CONV>, doc)`` per entry, ``CYSTCK_DEF_METH_EXTERN`` where
    fn has external linkage (defined in this file or another, in the
    table's C++ namespaces; else a static forwarder calls it), and a
    second name for fn gets a definition of its own (the convention from the flags:
    METH_NOARGS, METH_O, METH_VARARGS/METH_FASTCALL -> CYSTCK_VARARGS, with
    METH_KEYWORDS -> CYSTCK_KEYWORDS) and, for module tables, a
    ``static CystckDef *name[]`` array (a multi-phase module lists its
    functions in its slot array instead).  Member and getset tables become
    ``CYSTCK_DEF_MEMBER``/``CYSTCK_DEF_GET(SET)`` lines the same way.
    METH_CLASS/METH_STATIC give ``CYSTCK_DEF_METH_FLAGS``; a stock function
    as fn (``Py_GenericAlias``) gets a forwarder calling its Cystck
    counterpart.  An entry in a preprocessor conditional keeps it, around
    its definition and its line in the defines array; an entry with a
    conditional inside is translated once per version, each in its
    conditional."""
    name = "method-table"
    precedence = 310
    patterns = (proj._DEF_PATTERNS["methods"].pattern, proj._DEF_PATTERNS["members"].pattern,
                proj._DEF_PATTERNS["getsets"].pattern)
    before = ('static PyObject *f(PyObject *self, PyObject *args) { return NULL; }\n'
              'static PyMethodDef methods[] = {\n    {"f", (PyCFunction)f, METH_VARARGS, "doc"},\n'
              '    {NULL, NULL, 0, NULL}\n};\n')
    after = ('static PyObject *f(PyObject *self, PyObject *args) { return NULL; }\n'
             'CYSTCK_DEF_METH(f_def, "f", f, CYSTCK_VARARGS, "doc")\n'
             'static CystckDef *methods[] = {\n    &f_def,\n    NULL\n};\n')

    def apply(self, unit):
        planned = tables.plan(unit)
        if not planned:
            return 0
        code, text = unit.structure, unit.text
        edits = source.Edits()
        n = 0
        for t in planned.values():
            s, e = t.span
            s += len(code[s:e]) - len(code[s:e].lstrip())
            lines = [entry.guarded(entry.code) for entry in t.entries if entry.code]
            for entry in t.entries:
                if not entry.ok:
                    unit.leftover(s, entry.code.strip("/* ").rstrip(" */"), self.name)
            if t.kind == "methods" and t.name not in unit.project.type_tables | unit.project.phased_method_tables:
                static = bool(regex.search(r"\bstatic\b", code[s:e].split("=")[0]))
                lines.append(tables.defines_array(t.name, [x for x in t.entries if x.ok], static))
            edits.add(s, e, "\n".join(lines))
            n += len(t.entries)
        unit.apply(edits)
        return n


#: a destructor's call of a clear function, which the destroy-traverse rule
#: removes, its result cast away or not
_DROPPED_CALL = regex.compile(r"(?:\(\s*void\s*\)\s*)?(?:\b(\w+)\s*\(\s*\(\s*PyObject\s*\*\s*\)\s*\w+\s*\)"
                              r"|\b(\w+)\s*\(\s*\w+\s*\))\s*;")


class DestroyTraverse(Rule):
    """Deallocators become Cystck destructors ``void f(void *data)`` and
    traverse functions take the native struct: ``Py_VISIT(self->x)`` becomes
    ``Cystck_VISIT(&self->x)``, and ``Py_VISIT(n->key)`` of a reference
    (a member of a plain struct in memory the instance owns, a node of its
    table) ``Cystck_VISIT_REF(&n->key)``.  In destructors the freeing of the object
    (``tp_free``, also ``self->ob_type->tp_free``, ``PyObject_Del``), GC untracking, the clearing of weak
    references (the runtime clears them before the destructor runs), the trashcan
    (``Py_TRASHCAN_BEGIN``...``Py_TRASHCAN_END``, both ends), the releasing of
    object members and of a heap type's reference to its type are removed, and so is a store of NULL in an
    object member (``self->v = NULL;``, a ``Py_CLEAR`` spelled out): the runtime does them after the destructor
    has released native resources; a free of other memory
    (``PyObject_Free(self->buf)``) stays.  The release of a reference in
    memory the instance owns, ``Py_DECREF(n->key)``, becomes
    ``Cystck_unref(NULL, n->key); n->key = NULL;`` (no state in a
    destructor; traverse may have released it already).  So does the call of the
    finalizer (``if (PyObject_CallFinalizerFromDealloc(self) < 0)
    return;``): the runtime calls it before the destructor, which is then
    never called for an object brought back to life (any other use of the
    call's value sees 0).  A NULL test of an object member there
    (``if (self->v)``) becomes ``!CystckField_IsNull(self->v)``, and
    ``Py_SIZE(self)`` there and in traverse ``CystckVar_DataSize(self)``.  ``tp_clear`` functions and module
    traverse/clear/free hooks are removed; the runtime clears fields through
    traverse.  A ``tp_clear`` function that also does native work
    (``cleared += self->len; self->len = 0;``, ``PyMem_Free(self->buf)``:
    ``destructors.clear_does_native_work``) is kept without its releases as
    the type's clear hook, ``void f(void *data)`` (its returns return
    nothing), which ``CYSTCK_DEF_CLEAR`` registers: the runtime calls it
    after releasing the fields, and a destructor's call of it stays (the
    runtime takes the fields before the destructor runs).  A ``tp_clear`` function or module hook that code other than
    destructors calls (``Foo_clear(self)`` in ``__init__``, ``mod_clear(NULL)``
    on a failed init) stays, as a helper."""
    name = "destroy-traverse"
    precedence = 370
    patterns = (r"\bPy_VISIT\s*" + _common.PAREN + r"\s*;",
                r"\b(?:Py_TYPE\s*\([^()]*\)\s*->\s*tp_free|PyObject_(?:GC_)?Del|PyObject_Free"
                r"|PyObject_GC_UnTrack|PyObject_ClearWeakRefs|Py_X?DECREF|Py_CLEAR|Py_TRASHCAN_\w+"
                r"|(?:\w+\s*->\s*)?\w+\s*->\s*tp_free)\s*"      # also self->ob_type->tp_free
                + _common.PAREN + r"\s*;",
                # the trashcan bounds the recursion of stock deallocators; the
                # runtime deallocates, so both ends go, with or without ';'
                r"\bPy_TRASHCAN_(?:BEGIN|SAFE_BEGIN)\s*" + source.paren("t") + r"[ \t]*;?|\bPy_TRASHCAN_(?:END|SAFE_END)"
                r"\b(?:\s*\(\s*\w*\s*\))?[ \t]*;?")
    before = ("typedef struct { PyObject_HEAD PyObject *v; double *buf; } Box;\n"
              "static void Box_dealloc(Box *self)\n{\n    PyObject_GC_UnTrack(self);\n    free(self->buf);\n"
              "    Py_XDECREF(self->v);\n    self->v = NULL;\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
              "static int Box_traverse(Box *self, visitproc visit, void *arg)\n{\n"
              "    Py_VISIT(self->v);\n    return 0;\n}\n"
              "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Box_dealloc,"
              " .tp_traverse = (traverseproc)Box_traverse};\n")
    after = ("typedef struct { PyObject_HEAD PyObject *v; double *buf; } Box;\n"
             "static void Box_dealloc(void *data)\n{\n    Box *self = (Box *)data;\n    free(self->buf);\n}\n"
             "static int Box_traverse(void *data, Cystck_visitproc visit, void *arg)\n{\n"
             "    Box *self = (Box *)data;\n    Cystck_VISIT(&self->v);\n    return 0;\n}\n"
             "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Box_dealloc,"
             " .tp_traverse = (traverseproc)Box_traverse};\n")

    # ``PyObject *ob = ((Foo *)self)->v;`` (or ``self->v``) in a traverse
    # function: a local holding an object member's value
    _MEMBER_LOCAL = regex.compile(r"\bPyObject\s*\*\s*(?P<l>\w+)\s*=\s*(?P<e>\(*\s*(?:\(\s*(?:struct\s+)?\w+\s*\*\s*\)\s*)?"
                                  r"\w+\s*\)*\s*->\s*(?P<m>\w+)\s*\)*)\s*;")

    @classmethod
    def _member_locals(cls, p, code, text, b0, b1, edits):
        """A local of a traverse function given an object member's value
        and then only tested against NULL and visited, ``PyObject *ob =
        self->v; if (ob != NULL) return visit(ob, arg);``, points at the
        field instead: ``Cystck_Field *ob = &self->v;``, its tests
        ``!CystckField_IsNull(*ob)``, and ``visit(ob, arg)`` visits the
        field.  A local used otherwise stays (reported by the compiler)."""
        for m in cls._MEMBER_LOCAL.finditer(code, b0, b1):
            if m.group("m") not in p.object_field_names:
                continue
            local = m.group("l")
            uses = list(regex.finditer(rf"(?<![\w.>]){local}\b", code, pos=m.end(), endpos=b1))
            tests = regex.compile(rf"{local}\s*(?P<op>!=|==)\s*NULL\b")
            visits = regex.compile(rf"\bvisit\s*\(\s*{local}\s*,")
            plan = []
            for u in uses:
                t = tests.match(code, u.start())
                if t:
                    neg = "!" if t.group("op") == "!=" else ""
                    plan.append((t.start(), t.end(), f"{neg}CystckField_IsNull(*{local})"))
                elif visits.search(code, max(b0, u.start() - 40), u.end() + 1) and \
                        regex.search(r"\bvisit\s*\(\s*$", code[max(b0, u.start() - 40):u.start()]):
                    continue
                else:
                    plan = None
                    break
            if plan is None or not uses:
                continue
            edits.add(m.start(), m.start("e"), f"Cystck_Field *{local} = &")
            for s0, e0, new in plan:
                edits.add(s0, e0, new)

    def apply(self, unit):
        p = unit.project
        code, text = unit.structure, unit.text
        edits = source.Edits()
        n = 0
        for f in unit.functions():
            role = p.role(f.name)
            if role is None or role.kind not in ("destroy", "traverse", "dropped", "clear"):
                continue
            if role.kind == "dropped":
                if role.detail in ("tp_free", "tp_alloc"):
                    continue
                s = f.start
                edits.add(*_common.statement_line_span(text, s, f.end), "")
                if f.is_definition:
                    unit.note("removed", s, f"{f.name} ({role.detail}) removed: the Cystck runtime "
                              "clears object fields through traverse", self.name)
                n += 1
                continue
            params = _common.parse_params(code, *f.params)
            if not params or params[0].base == "void":
                continue            # already translated
            first = params[0]
            struct = _common.struct_name(first.base, p.custom_structs)
            if role.kind in ("destroy", "clear"):
                new_params = "void *data" if struct else f"void *{first.name}"
            else:
                rest = [text[q.span[0]:q.span[1]].strip() for q in params[1:]]
                rest = [regex.sub(r"\bvisitproc\b", "Cystck_visitproc", r) for r in rest]
                new_params = ", ".join(["void *data" if struct else f"void *{first.name}"] + rest)
            edits.add(f.params[0], f.params[1], new_params)
            if role.kind == "clear":
                edits.add(f.start, f.name_start, functions._replace_return_type(text[f.start:f.name_start], "void"))
            n += 1
            if not f.is_definition:
                continue
            b0, b1 = f.body
            if role.kind == "clear":
                # a void function now: its last return goes, the others return nothing
                for m in regex.finditer(r"\breturn\b[^;]*;", code, pos=b0, endpos=b1):
                    if not code[m.end():b1 - 1].strip() and not _common.in_unbraced_body(code, m.start()):
                        edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")
                    else:
                        edits.add(m.start(), m.end(), "return;")
            if struct:
                indent = self._indent(text, b0, b1)
                edits.add(b0 + 1, b0 + 1, f"\n{indent}{struct} *{first.name} = ({struct} *)data;")
            self._drop_api_asserts(unit, b0, b1, edits)
            # on the mask that keeps directives: a macro defined in the body
            # (#define VISIT_FIELD(f) Py_VISIT(self->f); over an X-macro list
            # of fields) visits the same fields
            for m in regex.finditer(self.patterns[0], unit.masked, pos=b0, endpos=b1):
                inner = text[m.start("p") + 1:m.end("p") - 1].strip()
                if regex.match(r"Py_TYPE\b", inner):
                    edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")
                elif self._visits_ref(unit, f, inner):
                    # a reference in memory the instance owns (a node of its
                    # table): the GC sees its object, clearing releases it
                    edits.add(m.start(), m.end(), f"Cystck_VISIT_REF(&{inner});")
                else:
                    edits.add(m.start(), m.end(), f"Cystck_VISIT(&{inner});")
            if role.kind == "traverse":
                self._member_locals(p, code, text, b0, b1, edits)
            if role.kind in ("destroy", "clear"):
                self.drop_runtime_releases(code, text, b0, b1, edits, first.name,
                                           heap_ref=lambda inner, f=f: self._heap_ref(unit, f, inner))
                if struct:
                    self._drop_field_null_stores(p, code, text, first.name, struct, b0, b1, edits)
            if struct:
                self._item_counts(code, first.name, b0, b1, edits)
                self._field_null_tests(p, code, first.name, struct, b0, b1, edits)
            if struct or role.kind in ("destroy", "clear"):
                # also a destructor taking a PyObject *: its tp_clear call goes
                self._report_state_calls(unit, b0, b1)
                for m in _DROPPED_CALL.finditer(code, pos=b0, endpos=b1):
                    callee = m.group(1) or m.group(2)
                    r = p.role(callee)
                    if r is not None and r.kind == "dropped" or callee in p.kept_clears:
                        edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")
        if edits:
            unit.apply(edits)
            self._drop_unused_locals(unit)
        return n

    @staticmethod
    def _visits_ref(unit, f, inner):
        """Is the visited ``inner`` (``n->key``) a reference: a member of a
        plain struct whose members are references (one in allocated
        memory, or one a global holds), by its struct where known?"""
        p = unit.project
        m = regex.search(r"(?:->|\.)\s*(\w+)\s*$", inner)
        if not m or m.group(1) not in p.ref_fields:
            return False
        ctx = next((c for c in _common.function_contexts(unit) if c.func.name == f.name), None)
        owner = _common.member_owner(inner, ctx, p)
        if owner is None:     # by name, unless a custom type has an object field so named
            return m.group(1) in p.heap_ref_fields and (m.group(1) not in p.object_field_names
                                                        or _common.deep_access(inner))
        return p.member_is_ref(m.group(1), owner)

    @classmethod
    def _heap_ref(cls, unit, f, inner):
        """Is the released ``inner`` a reference in memory the extension
        allocates (``n->key`` of a node)?"""
        m = regex.search(r"(?:->|\.)\s*(\w+)\s*$", inner.strip())
        return bool(m) and m.group(1) in unit.project.heap_ref_fields and cls._visits_ref(unit, f, inner.strip())

    @classmethod
    def drop_runtime_releases(cls, code, text, b0, b1, edits, param=None, heap_ref=None, state="NULL"):
        """What the runtime does after a destructor goes from its body:
        freeing the object, releasing its members and its type, untracking
        it, clearing its weak references, the trashcan.  A free of other
        memory (``PyObject_Free(self->buf)``) stays.  So does the release
        of a reference in memory the instance owns (``heap_ref(inner)``:
        ``Py_DECREF(n->key)`` of a node of its table), which becomes
        ``Cystck_unref(state, n->key); n->key = NULL;`` (a destructor has
        no state: NULL; the type's traverse, which visits such references,
        may have released it already, leaving NULL, which unref ignores)."""
        members = {m.start() for m in destructors.member_frees(code, b0, b1, b0, b1, param)}
        for m in regex.finditer(cls.patterns[1], code, pos=b0, endpos=b1):
            if m.start() in members:
                continue
            inner = text[m.start("p") + 1:m.end("p") - 1]
            if heap_ref is not None and regex.match(r"\s*Py_(?:X?DECREF|CLEAR)\b", code[m.start():m.end()]) \
                    and heap_ref(inner):
                r = inner.strip()
                new = f"Cystck_unref({state}, {r}); {r} = NULL;"
                edits.add(m.start(), m.end(), "{ " + new + " }" if _common.in_unbraced_body(code, m.start()) else new)
                continue
            if regex.match(r"\s*Py_X?DECREF|\s*Py_CLEAR", code[m.start():m.end()]) and \
                    "->" not in inner and "." not in inner:
                continue      # a local, not a member: leave it for a human
            if _common.in_unbraced_body(code, m.start()):
                edits.add(m.start(), m.end(), ";")
            else:
                edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")
        for m in regex.finditer(cls.patterns[2], code, pos=b0, endpos=b1):
            edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")
        cls._drop_finalizer_calls(code, text, b0, b1, edits)
        cls._drop_type_release(code, text, b0, b1, edits)

    @staticmethod
    def _drop_finalizer_calls(code, text, b0, b1, edits):
        """The runtime calls the finalizer before the destructor, and runs
        no destructor of an object the finalizer brought back to life: a
        stock deallocator's ``if (PyObject_CallFinalizerFromDealloc(op) <
        0) return;`` goes, and any other call of it there is 0 (not
        brought back)."""
        gone = []
        for m in destructors.CALL_FINALIZER.finditer(code, b0, b1):
            edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")
            gone.append((m.start(), m.end()))
        for m in regex.finditer(r"\bPyObject_CallFinalizerFromDealloc\s*" + _common.PAREN, code, pos=b0, endpos=b1):
            if not any(a <= m.start() < b for a, b in gone):
                edits.add(m.start(), m.end(), "0")

    @staticmethod
    def _field_null_tests(p, code, name, struct, b0, b1, edits):
        """In a destructor the struct's object members are fields read
        without the API: ``if (self->v)`` becomes ``if
        (!CystckField_IsNull(self->v))`` (and ``!self->v``, ``== NULL`` the
        same way); any other use of the member is left alone."""
        info = p.types.get(struct) if struct else None
        if info is None or not (info.object_fields or info.base):
            return
        for m in regex.finditer(rf"(?<![\w.>]){regex.escape(name)}\s*->\s*(?P<f>\w+)\b(?P<i>\s*\[[^\[\];]*\])?",
                                code, pos=b0, endpos=b1):
            if m.group("f") in info.object_fields and \
                    (m.group("i") is not None) == (m.group("f") in info.object_arrays):
                index = (m.group("i") or "").strip()
                test = _field_null_test(code, m.start(), m.end(), f"{name}->{m.group('f')}{index}")
                if test:
                    edits.add(*test)
        # a member of a base type's struct, reached by base-struct-upcast's cast
        upcast = rf"\(\s*\(\s*(?P<t>\w+)\s*\*\s*\)\s*{regex.escape(name)}\s*\)\s*->\s*(?P<f>\w+)\b"
        for m in regex.finditer(upcast, code, pos=b0, endpos=b1):
            base = p.types.get(m.group("t"))
            if base is not None and m.group("f") in base.object_fields:
                test = _field_null_test(code, m.start(), m.end(),
                                        f"(({m.group('t')} *){name})->{m.group('f')}")
                if test:
                    edits.add(*test)

    @staticmethod
    def _drop_field_null_stores(p, code, text, name, struct, b0, b1, edits):
        """In a destructor a store of NULL in an object member, ``self->v =
        NULL;`` (after ``Py_XDECREF(self->v);``, or alone), goes like the
        ``Py_CLEAR(self->v)`` it spells out: the runtime releases the
        fields after the destructor (the member is a ``Cystck_Field``,
        which a NULL does not convert to)."""
        info = p.types.get(struct)
        if info is None or not info.object_fields:
            return
        store = regex.compile(rf"(?<![\w.>]){regex.escape(name)}\s*->\s*(?P<f>\w+)\s*=\s*(?:NULL|0|nullptr)\s*;")
        for m in store.finditer(code, pos=b0, endpos=b1):
            if m.group("f") not in info.object_fields or m.group("f") in info.object_arrays or \
                    not _common.at_statement_start(code, m.start()):
                continue
            if _common.in_unbraced_body(code, m.start()):
                edits.add(m.start(), m.end(), ";")
            else:
                edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")

    def _drop_api_asserts(self, unit, b0, b1, edits):
        """An ``assert`` whose test uses the API (``assert(Foo_Check(self))``,
        a type check) cannot run in a destructor or traverse function,
        which have no state: it goes (an assertion only; the runtime calls
        them with the native struct of an instance of the type)."""
        p = unit.project
        for m in regex.finditer(r"\bassert\s*" + _common.PAREN + r"\s*;", unit.masked, pos=b0, endpos=b1):
            test = unit.masked[m.start("p"):m.end("p")]
            if proj.API_TOKEN.search(test) or any(regex.search(rf"\b{regex.escape(n)}\b", test) for n in p.api_macros) \
                    or any(p.needs_state(unit.path, c) for c in regex.findall(r"(\w+)\s*\(", test)):
                edits.add(*_common.statement_line_span(unit.text, m.start(), m.end()), "")
                unit.note("removed", m.start(), "assert using the API removed: destructors and traverse "
                          "functions have no state", self.name)

    @staticmethod
    def _item_counts(code, name, b0, b1, edits):
        """Py_SIZE(self) of the struct a destructor or traverse function
        gets is the item count of its instance: CystckVar_DataSize(self)
        (they have no state for CystckVar_Size)."""
        for m in regex.finditer(rf"\bPy_SIZE\s*\(\s*(?:\(\s*\w+\s*\*\s*\)\s*)?{regex.escape(name)}\s*\)",
                                code, pos=b0, endpos=b1):
            edits.add(m.start(), m.end(), f"CystckVar_DataSize({name})")

    def _report_state_calls(self, unit, b0, b1):
        """A destructor has no state: a call of a function that uses the API
        (``Foo_clear(self)``) cannot be ported there and is an error to
        rewrite by hand (the runtime releases object fields itself)."""
        p = unit.project
        for m in regex.finditer(r"(?<![\w.>])(?P<f>\w+)\s*\(", unit.masked, pos=b0, endpos=b1):
            name = m.group("f")
            role = p.role(name)
            if (role is not None and role.kind in ("dropped", "clear") or name in p.kept_clears) and \
                    _DROPPED_CALL.match(unit.masked, m.start()):
                continue      # a call of a clear function, removed below
            if p.needs_state(unit.path, name):
                unit.leftover(m.start(), f"error: destructor calls {m.group('f')}, which uses the API: a "
                              "destructor has no state; release native resources only (the runtime releases "
                              "object fields)", self.name)

    @staticmethod
    def _drop_type_release(code, text, b0, b1, edits):
        """An instance of a heap type owns a reference to its type, which a
        stock deallocator releases after freeing the object (``PyTypeObject
        *tp = Py_TYPE(self); ... Py_DECREF(tp);``).  The runtime releases
        it now, and a destructor has no state to reach the type with."""
        local = regex.compile(r"(?:PyTypeObject|PyObject)\s*\*\s*(?P<v>\w+)\s*=\s*"
                              r"(?:\(\s*\w+\s*\*\s*\)\s*)?Py_TYPE\s*" + source.paren("q") + r"\s*;")
        for m in local.finditer(code, b0, b1):
            v = regex.escape(m.group("v"))
            rest = code[m.end():b1]
            uses = regex.findall(rf"\b{v}\b(?!\s*->\s*tp_free\b)", rest)    # tp_free goes anyway
            releases = list(regex.finditer(rf"\bPy_X?DECREF\s*\(\s*(?:\(\s*PyObject\s*\*\s*\)\s*)?{v}\s*\)\s*;",
                                           code, pos=m.end(), endpos=b1))
            if len(uses) != len(releases):
                continue          # the type is used for something else: a human decides
            edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")
            for r in releases:
                edits.add(*_common.statement_line_span(text, r.start(), r.end()), "")
        for m in regex.finditer(r"\bPy_X?DECREF\s*\(\s*(?:\(\s*PyObject\s*\*\s*\)\s*)?Py_TYPE\s*"
                                + source.paren("q") + r"\s*\)\s*;", code, pos=b0, endpos=b1):
            edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")

    @staticmethod
    def _drop_unused_locals(unit):
        """A destructor left with nothing to do but its ``Foo *self =
        (Foo *)data;`` keeps an empty body (the local would be unused)."""
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for f in unit.functions():
            role = unit.project.role(f.name)
            if not f.is_definition or role is None or role.kind not in ("destroy", "clear"):
                continue
            b0, b1 = f.body
            m = regex.compile(r"[ \t]*\w+\s*\*\s*(?P<n>\w+)\s*=\s*\(\s*\w+\s*\*\s*\)\s*data\s*;[ \t]*\n?").search(code, b0, b1)
            if m and not regex.search(rf"\b{m.group('n')}\b", code[m.end():b1]):
                edits.add(m.start(), m.end(), "")
        if edits:
            unit.apply(edits)

    @staticmethod
    def _indent(text, b0, b1):
        m = regex.search(r"\n([ \t]+)\S", text[b0:b1])
        return m.group(1) if m else "    "


def _weaklist_members(project):
    """(struct, member) of the members that hold a type's weak references."""
    return {(struct, m) for struct, info in project.types.items() for m in info.weaklist}


# ``((Foo *)self)->f`` or ``self->f``: a member read through a pointer
_MEMBER_OF = (r"(?:\(\s*\(\s*(?:struct\s+)?(?P<cast>\w+)\s*\*\s*\)\s*\w+\s*\)|(?<![\w.>])(?P<var>\w+))"
              r"\s*->\s*(?P<f>\w+)")


def _owner_struct(ctx, m):
    """The struct whose member ``m`` (a _MEMBER_OF match) reads, when the
    function's declarations say it; None otherwise."""
    if m.group("cast"):
        return m.group("cast")
    var = m.group("var")
    return ctx.typed.get(var) or ctx.data_ptrs.get(var)


class FinalizerReleases(Rule):
    """A stock destructor whose calls all use the API (``Foo_clear(self)``,
    a method) takes the state (``project.FINALIZER``) and is listed as
    ``CYSTCK_DEF_DEALLOC_API``: it still runs in ``tp_dealloc``, for Python
    subclasses' instances too, keeps its calls and loses what the runtime
    does after it, as a destructor does (freeing the object, releasing its
    object members and its type, untracking it, clearing its weak
    references).  A destructor that only releases goes on being one, and
    so does one that also calls a native function (``free``): the
    destructor-split rule moves its API calls to a function of their own
    where it can."""
    name = "finalizer-releases"
    precedence = 371
    before = ("typedef struct { PyObject_HEAD PyObject *d; } Bag;\n"
              "static PyObject *Bag_empty(Bag *self) { PyDict_Clear(self->d); Py_RETURN_NONE; }\n"
              "static void Bag_dealloc(Bag *self)\n{\n    Bag_empty(self);\n    Py_XDECREF(self->d);\n"
              "    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
              "static PyTypeObject BagType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Bag_dealloc};\n")
    after = ("typedef struct { PyObject_HEAD PyObject *d; } Bag;\n"
             "static PyObject *Bag_empty(Bag *self) { PyDict_Clear(self->d); Py_RETURN_NONE; }\n"
             "static void Bag_dealloc(Bag *self)\n{\n    Bag_empty(self);\n}\n"
             "static PyTypeObject BagType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Bag_dealloc};\n")

    def apply(self, unit):
        code, text = unit.structure, unit.text
        edits = source.Edits()
        for f in unit.functions():
            if not f.is_definition or unit.project.role(f.name) is not proj.FINALIZER:
                continue
            b0, b1 = f.body
            DestroyTraverse.drop_runtime_releases(code, text, b0, b1, edits, destructors.param_name(code, f),
                                                  heap_ref=lambda inner, f=f: DestroyTraverse._heap_ref(unit, f, inner),
                                                  state="S")
        if edits:
            unit.apply(edits)
        return edits.applied


class DestructorSplit(Rule):
    """A stock destructor that calls both the API (``Foo_reset(self)``, a
    method) and native releases (``free(self->buf)``, ``PyMem_Free``,
    ``PyObject_Free(self->buf)``) splits in two: its statements up to the
    last API call become a function of their own,
    ``Foo_dealloc_finalize``, defined before it (a ``project.FINALIZER``,
    which the finalizer-releases rule ports and the type-object rule lists
    with the destructor, ``CYSTCK_DEF_DEALLOC``), and the rest, the native
    releases, stays the destructor.  Both run in ``tp_dealloc``, as the
    stock one did (for a Python subclass defining ``__del__`` too), the
    API calls first, with a state; they may bring the object back to life,
    so native memory is freed in the destructor only.  The split is made
    only where the two parts share no local state and no control flow
    (``migrate/destructors.py``): a statement mixing both, a native release
    before an API call, a ``return`` or a local both parts use (an alias of
    the parameter aside) keep the destructor whole, its API calls reported.
    An ``if`` mixing both, ``if (self->owns) { Foo_reset(self);
    free(self->buf); }``, splits too, the test in both parts, where it
    reads only members of the object that hold no object and that nothing
    but ``tp_new`` and the destructor writes."""
    name = "destructor-split"
    precedence = 60
    before = ("typedef struct { PyObject_HEAD PyObject *d; double *buf; } Bag;\n"
              "static PyObject *Bag_empty(Bag *self) { PyDict_Clear(self->d); Py_RETURN_NONE; }\n"
              "static void\nBag_dealloc(Bag *self)\n{\n    /* empty it first */\n    Bag_empty(self);\n"
              "    Py_XDECREF(self->d);\n    free(self->buf);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
              "static PyTypeObject BagType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Bag_dealloc};\n")
    after = ("typedef struct { PyObject_HEAD PyObject *d; double *buf; } Bag;\n"
             "static PyObject *Bag_empty(Bag *self) { PyDict_Clear(self->d); Py_RETURN_NONE; }\n"
             "static void\nBag_dealloc_finalize(Bag *self)\n{\n    /* empty it first */\n    Bag_empty(self);\n}\n\n"
             "static void\nBag_dealloc(Bag *self)\n{\n"
             "    Py_XDECREF(self->d);\n    free(self->buf);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
             "static PyTypeObject BagType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Bag_dealloc};\n")

    def apply(self, unit):
        p = unit.project
        if not p.destructor_splits:
            return 0
        code, text = unit.structure, unit.text
        edits = source.Edits()
        n = 0
        for f in unit.functions():
            finalizer = p.destructor_splits.get(f.name)
            if finalizer is None or not f.is_definition or (unit.path, finalizer) not in p.functions:
                continue
            # the project planned the split on this same text: no rule before
            # this one edits function bodies
            split = destructors.plan(p, unit.path, code, unit.masked, f, finalizer)
            if split is None:
                continue
            edits.add(f.start, f.start, split.finalizer_text(text, f))
            for a, b in split.moved:
                edits.add(a, b, "")
            n += 1
        if edits:
            unit.apply(edits)
        return n


class WeakLists(Rule):
    """A type's weak references are the runtime's (``CYSTCK_DEF_WEAKLIST``,
    which the type-object and type-spec rules make of
    ``tp_weaklistoffset = offsetof(Foo, weakreflist)`` and of a
    ``__weaklistoffset__`` member; the member becomes a
    ``Cystck_WeakList``): the runtime starts the list empty and clears it
    before the destructor runs, so ``PyObject_ClearWeakRefs(self)`` in a
    destructor goes (with an ``if (self->weakreflist)`` guarding it), and
    so does ``self->weakreflist = NULL;``.  ``PyObject_ClearWeakRefs``
    elsewhere, and the members of types without a weak list, stay."""
    name = "weak-lists"
    precedence = 365
    patterns = (r"\bif\s*\(\s*" + _MEMBER_OF + r"\s*(?:!=\s*(?:NULL|0|nullptr)\s*)?\)\s*(?P<b>\{)?\s*"
                r"PyObject_ClearWeakRefs\s*" + _common.PAREN + r"\s*;(?(b)\s*\})",
                r"\bPyObject_ClearWeakRefs\s*" + _common.PAREN + r"\s*;",
                _MEMBER_OF + r"\s*=\s*(?:NULL|0|nullptr)\s*;")
    before = ("typedef struct { PyObject_HEAD PyObject *weakreflist; long n; } Box;\n"
              "static PyObject *Box_new(PyTypeObject *type, PyObject *args, PyObject *kw)\n{\n"
              "    Box *self = (Box *)type->tp_alloc(type, 0);\n    self->weakreflist = NULL;\n"
              "    return (PyObject *)self;\n}\n"
              "static void Box_dealloc(Box *self)\n{\n    if (self->weakreflist != NULL)\n"
              "        PyObject_ClearWeakRefs((PyObject *)self);\n    free_native(self->n);\n}\n"
              "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Box_dealloc,"
              " .tp_weaklistoffset = offsetof(Box, weakreflist), .tp_new = Box_new};\n")
    after = ("typedef struct { PyObject_HEAD PyObject *weakreflist; long n; } Box;\n"
             "static PyObject *Box_new(PyTypeObject *type, PyObject *args, PyObject *kw)\n{\n"
             "    Box *self = (Box *)type->tp_alloc(type, 0);\n"
             "    return (PyObject *)self;\n}\n"
             "static void Box_dealloc(Box *self)\n{\n    free_native(self->n);\n}\n"
             "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Box_dealloc,"
             " .tp_weaklistoffset = offsetof(Box, weakreflist), .tp_new = Box_new};\n")

    def apply(self, unit):
        p = unit.project
        members = _weaklist_members(p)
        if not members:
            return 0
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx in _common.function_contexts(unit):
            b0, b1 = ctx.body
            is_weak_list = lambda m: (_owner_struct(ctx, m), m.group("f")) in members  # noqa: E731
            if ctx.role is not None and ctx.role.kind == "destroy":
                for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                    if is_weak_list(m):
                        self._remove(code, text, m, edits)
                for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
                    self._remove(code, text, m, edits)    # a guard removed above wins
            for m in regex.finditer(self.patterns[2], code, pos=b0, endpos=b1):
                if is_weak_list(m):
                    self._remove(code, text, m, edits)
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _remove(code, text, m, edits):
        if _common.in_unbraced_body(code, m.start()):
            edits.add(m.start(), m.end(), ";")
        else:
            edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")


class BaseStructUpcast(Rule):
    """A subtype's struct starts with its base type's struct (``typedef
    struct { Base base; PyObject *extra; } Sub;``), so reaching the base
    part is an upcast: ``&self->base`` becomes ``((Base *)self)`` (the
    handle itself once the casts rule has run) and ``self->base.v`` becomes
    ``((Base *)self)->v``, which the struct-access rule turns into a read,
    store or NULL test of ``Base_AsStruct(S, self)->v``.  A chain of bases
    (``self->mid.base.v``) casts to the innermost one reached."""
    name = "base-struct-upcast"
    precedence = 364
    patterns = (r"(?<![\w.>])(?P<h>\w+)\s*->\s*(?P<m>\w+)(?P<chain>(?:\s*\.\s*\w+)*)",)
    before = ("typedef struct { PyObject_HEAD PyObject *v; } Base;\n"
              "typedef struct { Base base; long n; } Sub;\n"
              "static int check(Base *b);\n"
              "static PyObject *get(Sub *self)\n{\n"
              "    if (!self->base.v || check(&self->base) < 0)\n        return NULL;\n"
              "    return PyLong_FromLong(self->n);\n}\n")
    after = ("typedef struct { PyObject_HEAD PyObject *v; } Base;\n"
             "typedef struct { Base base; long n; } Sub;\n"
             "static int check(Base *b);\n"
             "static PyObject *get(Sub *self)\n{\n"
             "    if (!((Base *)self)->v || check((Base *)self) < 0)\n        return NULL;\n"
             "    return PyLong_FromLong(self->n);\n}\n")

    def apply(self, unit):
        p = unit.project
        if not any(info.base for info in p.types.values()):
            return 0
        code = unit.masked
        edits = source.Edits()
        for ctx in _common.function_contexts(unit):
            structs = {**ctx.typed, **ctx.data_ptrs}
            b0, b1 = ctx.body
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                struct = structs.get(m.group("h"))
                if struct is None:
                    continue
                edit = self._upcast(p, code, m, struct)
                if edit:
                    edits.add(*edit)
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _upcast(p, code, m, struct):
        """The edit for the access ``m`` to a ``struct`` pointer: the base
        members it walks through become one cast."""
        names = [m.group("m")] + regex.findall(r"\w+", m.group("chain"))
        info, walked = p.types.get(struct), 0
        while info is not None and info.base and walked < len(names) and names[walked] == info.base[0]:
            struct, info, walked = info.base[1], p.types.get(info.base[1]), walked + 1
        if walked == 0:
            return None
        cast = f"(({struct} *){m.group('h')})"
        if walked == len(names):
            # the whole base: only its address is an upcast
            if not regex.search(r"&\s*$", code[max(0, m.start() - 4):m.start()]) or \
                    regex.match(r"\s*(?:->|\[|\.)", code[m.end():]):
                return None
            amp = code.rindex("&", 0, m.start())
            if regex.search(r"[(,=]\s*$", code[:amp]) and regex.match(r"\s*[),;]", code[m.end():]):
                cast = cast[1:-1]        # a whole argument or value: no parentheses needed
            return amp, m.end(), cast
        # cut the chain right after the last base member walked through
        rest = regex.match(r"(?:\s*\.\s*\w+){%d}" % (walked - 1), m.group("chain"))
        start = m.start("chain") + rest.end() if walked > 1 else m.end("m")
        dot = regex.match(r"\s*\.\s*", code[start:])
        return m.start(), start + dot.end(), cast + "->"


class OwnFunctionPointerLocals(Rule):
    """A local of one of CPython's function-pointer types over objects
    given only the extension's own functions (``unaryfunc f = neg; if (x)
    f = inv; return f(o);``) holds functions that take the state and
    handles once translated: it is declared with their pointer type and
    calls through it pass ``S``.  Where those functions are helpers
    returning a handle, ``Cystck_Object (*f)(Cystck_State *,
    Cystck_Object)``; where they are entry points whose parameters are all
    objects (a slot, a METH_O method: they return a push count now), ``int
    (*f)(Cystck_State *, Cystck_Object)`` and each call takes the result it
    pushed as a handle, ``Cystck_PopResult(S, f(S, o))``.  A local also
    given anything else (another type's slot: slot-pointer-calls), given a
    mix of helpers and entry points, or used other than called, assigned
    and tested is left alone (and reported by the compiler)."""
    name = "own-function-pointer-locals"
    precedence = 374
    patterns = (r"\b(?P<t>unaryfunc|binaryfunc|ternaryfunc)\s+(?P<n>\w+)\s*(?P<init>=[^;]*)?;",)
    before = ("static PyObject *neg(PyObject *o) { return PyNumber_Negative(o); }\n"
              "static PyObject *f(PyObject *self, PyObject *o)\n{\n    unaryfunc g = neg;\n    return g(o);\n}\n")
    after = ("static PyObject *neg(PyObject *o) { return PyNumber_Negative(o); }\n"
             "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
             "    Cystck_Object (*g)(Cystck_State *, Cystck_Object) = neg;\n    return g(S, o);\n}\n")
    _VALUE = r"\s*(?:\(\s*(?:unaryfunc|binaryfunc|ternaryfunc)\s*\)\s*)?&?\s*(?P<f>\w+)\s*;"

    def apply(self, unit):
        code = unit.masked
        if not regex.search(self.patterns[0], code):
            return 0
        edits = source.Edits()
        for ctx in _common.function_contexts(unit, with_locals=False):
            b0, b1 = ctx.body
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                self._local(unit, code, m, b1, edits)
        if edits:
            unit.apply(edits)
        return edits.applied

    def _local(self, unit, code, m, b1, edits):
        n, arity = m.group("n"), proj.STOCK_FNPTR_TYPES[m.group("t")]
        name = regex.escape(n)
        values = []
        if m.group("init"):
            v = regex.fullmatch(r"=" + self._VALUE, code[m.start("init"):m.end()])
            if v is None:
                return
            values.append(v.group("f"))
        calls, assigned = [], []
        for u in regex.finditer(rf"(?<![\w.>])(?P<star>\(\s*\*\s*)?{name}\b", code, pos=m.end(), endpos=b1):
            after = code[u.end():]
            if u.group("star"):
                close = regex.match(r"\s*\)\s*\(", after)
                if close is None:
                    return
                calls.append(u.end() + close.end() - 1)
            elif regex.match(r"\s*\(", after):
                calls.append(u.end() + regex.match(r"\s*\(", after).end() - 1)
            elif regex.match(r"\s*=(?!=)", after):
                v = regex.match(r"\s*=" + self._VALUE, after)
                if v is None:
                    return
                values.append(v.group("f"))
            elif not regex.match(r"\s*(?:[=!]=|\)|&&|\|\|)", after) and \
                    not regex.search(r"(?:!|\(|&&|\|\|)\s*$", code[max(0, u.start() - 8):u.start()]):
                return            # handed on, or its address taken
        kinds = {self._kind(unit, f, arity) for f in values}
        if not values or len(kinds) != 1 or None in kinds:
            return
        kind = kinds.pop()
        ret = "int" if kind == "entry" else "Cystck_Object"
        edits.add(m.start(), m.end("n"), f"{ret} (*{n})(Cystck_State *{', Cystck_Object' * arity})")
        for open_at in calls:
            empty = not code[open_at + 1:source.matching(code, open_at) - 1].strip()
            edits.add(open_at + 1, open_at + 1, "S" if empty else "S, ")
            if kind == "entry":
                start = self._callee_start(code, open_at)
                edits.add(start, start, "Cystck_PopResult(S, ")
                close = source.matching(code, open_at)
                edits.add(close, close, ")")

    @staticmethod
    def _callee_start(code, open_at):
        """Where the callee of the call whose argument list opens at
        ``open_at`` starts: ``f`` or ``(*f)``."""
        before = code[:open_at].rstrip()
        if before.endswith(")"):
            return code.rindex("(", 0, len(before) - 1)
        return regex.search(r"\w+$", before).start()

    @staticmethod
    def _kind(unit, f, arity):
        """"entry" for an entry point of the extension whose parameters are
        ``arity`` objects and that pushes its result, "helper" for a helper
        that takes the state and returns a handle, None otherwise."""
        info = unit.project.function(unit.path, f)
        if info is None or not info.body or info.translated:
            return None
        role = info.role
        if role is not None:
            if role.is_entry and role.pushes and role.state and len(role.params) == arity and \
                    all(c == proj.H for c, _, _ in role.params):
                return "entry"
            return None
        if info.needs_state and info.returns_handle and info.nparams == arity and \
                len(info.handle_positions) == arity:
            return "helper"
        return None


class StockFunctionPointers(Rule):
    """A struct member or a parameter of one of CPython's function-pointer
    types over objects (``binaryfunc yield``: the extension keeps one of its
    own functions to call later) holds a function that takes the state and
    handles once translated: ``Cystck_Object (*yield)(Cystck_State *,
    Cystck_Object, Cystck_Object)``; calls through it pass ``S`` (the
    state-calls rule).  Casts in type tables (``(binaryfunc)f``) are left
    to the table rules."""
    name = "stock-function-pointers"
    precedence = 375
    patterns = (r"(?P<t>\b(?:unaryfunc|binaryfunc|ternaryfunc))\s+(?P<n>\w+)\s*(?=[;,)])",)
    before = ("typedef struct { PyObject_HEAD binaryfunc yield; } It;\n"
              "static PyObject *call(It *it, binaryfunc f, PyObject *a) { return f(a, a); }\n")
    after = ("typedef struct { PyObject_HEAD Cystck_Object (*yield)(Cystck_State *, Cystck_Object, Cystck_Object); } It;\n"
             "static PyObject *call(It *it, Cystck_Object (*f)(Cystck_State *, Cystck_Object, Cystck_Object), "
             "PyObject *a) { return f(a, a); }\n")

    def apply(self, unit):
        def declarator(m, text):
            n = proj.STOCK_FNPTR_TYPES[m.group("t")]
            return f"Cystck_Object (*{m.group('n')})(Cystck_State *{', Cystck_Object' * n})"
        return unit.sub(self.patterns[0], declarator)


class MacroParamStructCasts(Rule):
    """A macro that casts one of its parameters to a custom struct,
    ``#define RO(self) (((Foo *) self)->readonly)``, and that every
    function expanding it (all of this file, all with the state) passes a
    handle there, reaches the struct through the typed accessor:
    ``(Foo_AsStruct(S, self)->readonly)``.  A cast of such a parameter
    that reaches no member, ``ensure((Foo *)object)`` (the function now
    takes the handle), is dropped as the casts rule drops it in a
    function's body: ``ensure(object)``.  A macro some use of which passes
    anything else (a struct pointer, an expression) is left alone, and so
    is a parameter the body only dereferences (``(o)->lock``): the
    macro-struct-args rule passes the struct at its uses instead."""
    name = "macro-param-struct-casts"
    precedence = 379
    patterns = (r"\(\s*\(\s*(?:struct\s+)?(?P<t>\w+)\s*\*\s*\)\s*(?P<h>\w+)\s*\)\s*->",)
    before = ("typedef struct { PyObject_HEAD int ro; } Box;\n#define RO(o) (((Box *) o)->ro)\n"
              "#define NEG(o) neg((Box *)(o))\n"
              "static PyObject *f(Box *self, PyObject *x)\n{\n    if (RO(self))\n        return NULL;\n"
              "    return NEG(x);\n}\n")
    after = ("typedef struct { PyObject_HEAD int ro; } Box;\n#define RO(o) (Box_AsStruct(S, o)->ro)\n"
             "#define NEG(o) neg((o))\n"
             "static PyObject *f(Box *self, PyObject *x)\n{\n    if (RO(self))\n        return NULL;\n"
             "    return NEG(x);\n}\n")

    def apply(self, unit):
        p = unit.project
        if not p.types:
            return 0
        code = unit.masked
        contexts = {c.func.name: c for c in _common.stateful_contexts(unit)}
        users = functions.macro_users(p)
        struct_only = _struct_only_macro_params(p)
        edits = source.Edits()
        for m in functions.MACRO_DEFINITION.finditer(code):
            if not m.group("args"):
                continue
            names = users.get(m.group("name")) or set()
            if not names or not names <= set(contexts):
                continue
            params = [a.strip() for a in m.group("args")[1:-1].split(",")]
            ctxs = [contexts[n] for n in names]
            for c in regex.finditer(self.patterns[0], code, pos=m.start("body"), endpos=m.end("body")):
                if c.group("t") in p.types and c.group("h") in params \
                        and self._arg_structs(code, m.group("name"), params.index(c.group("h")), ctxs, p) is not None:
                    edits.add(c.start(), c.end(), f"{p.types[c.group('t')].struct}_AsStruct(S, {c.group('h')})->")
            # a cast that reaches no member: the handle itself
            for c in regex.finditer(self._BARE_CAST, code, pos=m.start("body"), endpos=m.end("body")):
                if c.group("t") in p.types and c.group("h") in params \
                        and not self._REACHES.match(code, c.end()) \
                        and self._arg_structs(code, m.group("name"), params.index(c.group("h")), ctxs, p) is not None:
                    edits.add(c.start(), c.start("v"), "")
            # no cast, a->n: the struct of the handles every use passes
            for c in regex.finditer(self._UNCAST, code, pos=m.start("body"), endpos=m.end("body")):
                if c.group("h") not in params \
                        or params.index(c.group("h")) in struct_only.get(m.group("name"), ()):
                    continue      # only reaches a struct: macro-struct-args gives its uses the struct
                structs = self._arg_structs(code, m.group("name"), params.index(c.group("h")), ctxs, p)
                if structs and len(structs) == 1 and None not in structs:
                    t = p.types[next(iter(structs))]
                    if c.group("f") in t.fields and c.group("f") not in t.object_fields:
                        edits.add(c.start(), c.end("f") - len(c.group("f")), f"{t.struct}_AsStruct(S, {c.group('h')})->")
        if edits:
            unit.apply(edits)
        return edits.applied

    _REACHES = regex.compile(r"\s*(?:->|\)\s*->)")
    _BARE_CAST = (r"(?<!sizeof\s*)\(\s*(?:struct\s+)?(?P<t>\w+)\s*\*\s*\)\s*"
                  r"(?P<v>(?P<h>[A-Za-z_]\w*)|\(\s*(?P<h>[A-Za-z_]\w*)\s*\))")
    _UNCAST = r"(?<![\w.>)])(?:(?P<h>[A-Za-z_]\w*)|\(\s*(?P<h>[A-Za-z_]\w*)\s*\))\s*->\s*(?P<f>\w+)"

    @staticmethod
    def _arg_structs(code, macro, position, contexts, p):
        """The custom structs (None for a handle of no known one) of what
        the uses of ``macro`` in these functions pass at ``position``; None
        if one of them passes no handle, or there is no use."""
        structs = set()
        for ctx in contexts:
            b0, b1 = ctx.body
            for use in regex.finditer(rf"(?<![\w.>]){macro}\s*\(", code, pos=b0, endpos=b1):
                if source.directive_end(code, use.start()) is not None:
                    continue          # its own #define (or #undef) in the body
                args = source.split_top(code, use.end(), source.matching(code, use.end() - 1) - 1)
                arg = code[slice(*args[position])].strip() if position < len(args) else ""
                if not arg or not _common.is_handle(arg, ctx, p):
                    return None
                structs.add(ctx.struct_at(arg, use.start()))
        return structs or None


class StructAccess(Rule):
    """Access to the native struct of a custom-type handle goes through the
    typed accessor: ``self->n`` (``self`` a ``Foo *``) and ``((Foo *)o)->n``
    become ``Foo_AsStruct(S, self)->n``.  Object members are fields:
    ``self->v = x;`` becomes ``CystckField_Store(S, self,
    &Foo_AsStruct(S, self)->v, x);``, reads become ``CystckField_Load``,
    NULL tests ``CystckField_IsNull``, comparisons with a handle
    ``Cystck_Is``, ``self->v->n`` (``v`` a ``Bar *``) reaches
    ``Bar_AsStruct(S, CystckField_Load(...))->n``, and reference counting on them
    disappears (the store keeps the reference).  A store whose value is
    used, ``if (!(self->v = f(x)))``, becomes a store and then a test of
    the field, ``if ((CystckField_Store(S, self, &..., f(x)),
    CystckField_IsNull(...)))`` (also as a ``for`` loop's condition); one
    whose value is otherwise used (``return self->v = x;``, an operand of a
    comma) stores and then loads it, ``(CystckField_Store(...),
    CystckField_Load(...))``."""
    name = "struct-access"
    precedence = 380
    patterns = (r"\(\s*\(\s*(?:struct\s+)?(?P<t>\w+)\s*\*\s*\)\s*(?P<h>\w+)\s*\)\s*->",
                r"(?<![\w.>])(?P<h>\w+)\s*->\s*(?P<f>\w+)")
    before = ("typedef struct { PyObject_HEAD PyObject *v; long n; } Box;\n"
              "static PyObject *get(Box *self, PyObject *x)\n{\n    self->n++;\n"
              "    Py_XDECREF(self->v);\n    self->v = x;\n    if (!(self->v = PyObject_Repr(x)))\n        return NULL;\n"
              "    return self->v;\n}\n")
    after = ("typedef struct { PyObject_HEAD PyObject *v; long n; } Box;\n"
             "static PyObject *get(Box *self, PyObject *x)\n{\n    Box_AsStruct(S, self)->n++;\n"
             "    CystckField_Store(S, self, &Box_AsStruct(S, self)->v, x);\n"
             "    if ((CystckField_Store(S, self, &Box_AsStruct(S, self)->v, PyObject_Repr(x)), "
             "CystckField_IsNull(Box_AsStruct(S, self)->v)))\n        return NULL;\n"
             "    return CystckField_Load(S, self, Box_AsStruct(S, self)->v);\n}\n")

    def apply(self, unit):
        p = unit.project
        if not p.types:
            return 0
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx in _common.stateful_contexts(unit):
            b0, b1 = ctx.body
            # ((Foo *)h)->  ->  Foo_AsStruct(S, h)->
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                t = m.group("t")
                if t in p.types:
                    s = p.types[t].struct
                    self._access(unit, code, text, m, m.group("h"), s, edits, b1,
                                 prefix=f"{s}_AsStruct(S, {m.group('h')})->", start=m.start())
            self._typed_accesses(unit, code, text, ctx, b0, b1, edits)
        # macros reaching the struct of a local that is the same custom
        # type in every function expanding them
        bodies = [c.body for c in _common.function_contexts(unit, with_locals=False)]
        for b0, b1, ctx in functions.macro_contexts(unit):
            if ctx.typed and not any(f0 <= b0 < f1 for f0, f1 in bodies):   # one defined in a body was seen there
                self._typed_accesses(unit, code, text, ctx, b0, b1, edits)
        if edits:
            unit.apply(edits)
        return edits.applied

    def _typed_accesses(self, unit, code, text, ctx, b0, b1, edits):
        """``h->n`` for the handles ``h`` of a custom type in [b0, b1)."""
        p = unit.project
        for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
            h = m.group("h")
            struct = ctx.struct_at(h, m.start())
            if struct is None:
                continue
            s = p.types[struct].struct
            arrow = code.index("->", m.start())
            self._access(unit, code, text, m, h, s, edits, b1,
                         prefix=f"{s}_AsStruct(S, {h})->", start=m.start(), field_at=arrow + 2)

    def _access(self, unit, code, text, m, h, struct, edits, b1, prefix, start, field_at=None):
        info = unit.project.types.get(struct)
        end_arrow = m.end() if field_at is None else field_at
        fm = regex.match(r"\s*(\w+)", code[end_arrow:])
        if not fm:
            return
        fname = fm.group(1)
        fend = end_arrow + fm.end()
        if info is not None and _names_object_fields(code, start, fname, info.object_fields):
            pass                          # a macro parameter that always names an object field
        elif info is None or fname not in info.object_fields:
            edits.add(start, end_arrow, prefix)
            return
        field_expr = f"{prefix}{fname}"
        around = None
        if fname in info.object_arrays:
            # self->items[i] is the field; self->items alone is the array
            sub = regex.match(r"\s*\[", code[fend:])
            if not sub:
                edits.add(start, end_arrow, prefix)
                return
            close = source.matching(code, fend + sub.end() - 1)
            field_expr += text[fend:close].strip()
            fend = close

            def around(s0, head, tail, s1):
                """The field written in place, head before it and tail
                after it: the index is left to its own matches (accesses
                of the object's other members, self->items[self->n])."""
                edits.add(s0, end_arrow, head + prefix)
                edits.add(fend, s1, tail)
        before = code[:start]
        after = code[fend:fend + 2000]      # a value may be a long call over several lines
        # Py_SETREF/Py_XSETREF(self->v, expr) -> CystckField_Store (which
        # releases the old value)
        sr = regex.search(r"\bPy_X?SETREF\s*\(\s*$", before[-40:])
        if sr and regex.match(r"\s*,", after):
            ws = start - (len(before[-40:]) - sr.start())
            comma = fend + regex.match(r"\s*,\s*", after).end()
            if around:
                around(ws, f"CystckField_Store(S, {h}, &", ", ", comma)
            else:
                edits.add(ws, comma, f"CystckField_Store(S, {h}, &{field_expr}, ")
            null = regex.match(r"(?:NULL|0|nullptr)(?=\s*\))", code[comma:])
            if null:
                edits.add(comma, comma + null.end(), "Cystck_NULL")
            return
        # Py_INCREF/Py_DECREF/Py_XDECREF(self->v);  -> nothing
        rc = regex.search(r"\bPy_X?(?:INC|DEC)REF\s*\(\s*$", before[-40:])
        if rc and regex.match(r"\s*\)\s*;", after):
            ws = start - (len(before[-40:]) - rc.start())
            we = fend + regex.match(r"\s*\)\s*;", after).end()
            edits.add(*_common.statement_line_span(text, ws, we), "")
            return
        cl = regex.search(r"\bPy_CLEAR\s*\(\s*$", before[-40:])
        if cl and regex.match(r"\s*\)\s*;", after):
            ws = start - (len(before[-40:]) - cl.start())
            we = fend + regex.match(r"\s*\)\s*;", after).end()
            if around:
                around(ws, f"CystckField_Store(S, {h}, &", ", Cystck_NULL);", we)
            else:
                edits.add(ws, we, f"CystckField_Store(S, {h}, &{field_expr}, Cystck_NULL);")
            return
        used = _stored_value_used(code, start, fend, field_expr, f"CystckField_Load(S, {h}, {field_expr})")
        if used:
            # (self->v = expr) used as a value: a store, then the field
            (head0, head1), (tail0, tail1, tail) = used
            edits.add(head0, head1, f"(CystckField_Store(S, {h}, &{field_expr}, ")
            edits.add(tail0, tail1, tail)
            return
        # self->v = expr
        asg = regex.match(r"\s*=(?!=)\s*", after)
        e1 = _common.expression_end(code, fend + asg.end(), b1) if asg else None
        if asg and e1 > fend + asg.end():
            # only the assignment around the value is rewritten, so that
            # accesses inside the value are translated by their own matches
            e0 = fend + asg.end()
            statement = regex.match(r"\s*;", code[e1:]) and _common.at_statement_start(code, start)
            if statement and around:
                around(start, f"CystckField_Store(S, {h}, &", ", ", e0)
            elif statement:
                edits.add(start, e0, f"CystckField_Store(S, {h}, &{field_expr}, ")
            else:       # return self->v = x, (self->v = x, b): a store, then the field
                edits.add(start, e0, f"(CystckField_Store(S, {h}, &{field_expr}, ")
            if text[e0:e1].strip() in ("NULL", "0", "nullptr"):
                edits.add(e0, e1, "Cystck_NULL")
            else:
                for null in _common.conditional_nulls(code, e0, e1):   # c ? h : NULL
                    edits.add(*null, "Cystck_NULL")
            if statement:
                # up to the `;`: after the tail of a store in the value, at e1 too
                semi = code.index(";", e1) + 1
                edits.add(e1, semi, ")" + text[e1:semi])
            else:
                edits.add(e1, e1, f"), CystckField_Load(S, {h}, {field_expr}))")
            return
        test = _field_null_test(code, start, fend, field_expr)
        if test:
            edits.add(*test)
            return
        if regex.search(r"(?<!&)&\s*$", before[-5:]):      # &self->v, not a && self->v
            edits.add(start, end_arrow, prefix)
            return
        load = f"CystckField_Load(S, {h}, {field_expr})"
        # self->v == o compares objects: identity of handles
        same = regex.match(r"\s*(?P<op>==|!=)\s*(?P<o>\w+)\b(?!\s*(?:\(|\[|->|\.))", after)
        if same and same.group("o") not in ("NULL", "0", "nullptr"):
            neg = "!" if same.group("op") == "!=" else ""
            edits.add(start, fend + same.end(), f"{neg}Cystck_Is(S, {load}, {same.group('o')})")
            return
        # self->v->n: the struct of the object the field holds, if its type is known
        target = regex.sub(r"\b(?:const|struct)\b", "", info.fields.get(fname, "")).strip()
        if regex.match(r"\s*->", after) and fname not in info.object_arrays and target in unit.project.types:
            load = f"{unit.project.types[target].struct}_AsStruct(S, {load})"
        if around:
            around(start, f"CystckField_Load(S, {h}, ", ")", fend)
        else:
            edits.add(start, fend, load)


def _stored_value_used(code, start, fend, field_expr, load):
    """Where the field access ``code[start:fend]`` is assigned in
    parentheses whose value is used, ``if (!(self->v = f(x)))``: the
    spans that turn it into a comma expression, the store and then a
    test or load of the field (CystckField_Store has no value), as
    ``((head0, head1), (tail0, tail1, tail))``; the value ``f(x)`` between
    them is left to its own rules.  None where the assignment is a
    statement or no assignment."""
    open_ = len(code[:start].rstrip()) - 1
    if open_ < 0 or code[open_] != "(":
        return None
    close = source.matching(code, open_)
    asg = regex.match(r"\s*=(?!=)\s*", code[fend:close - 1])
    value = code[fend + asg.end():close - 1] if asg else ""
    if not value.strip() or "," in regex.sub(r"\((?:[^()]++|(?R))*\)", "", value):
        return None                   # no assignment, or (self->v = a, b)
    e0 = fend + asg.end()
    e1 = e0 + len(value.rstrip())
    before = code[max(0, open_ - 12):open_]
    caller = regex.search(r"(?:\w+|[)\]])\s*$", before)
    keyword = bool(caller) and regex.fullmatch(r"(?:if|while)\s*", caller.group())
    if caller and not keyword and not regex.fullmatch(r"return\s*", caller.group()):
        return None                   # f(self->v = x): an argument, not a group
    null = regex.match(r"\s*(==|!=)\s*(?:NULL|0|nullptr)\b", code[close:])
    head0 = open_
    if null:
        tail1 = close + null.end()
        test = f"{'!' if null.group(1) == '!=' else ''}CystckField_IsNull({field_expr})"
    elif keyword:                     # if (self->v = f(x))
        tail1, test = close, f"!CystckField_IsNull({field_expr})"
    elif regex.search(r"(?<![=!<>])!\s*$", before):
        head0, tail1 = open_ - len(before) + before.rstrip().rfind("!"), close
        test = f"CystckField_IsNull({field_expr})"
    elif _common.tested_for_truth(code, open_, close):
        tail1, test = close, f"!CystckField_IsNull({field_expr})"
    else:
        tail1, test = close, load
    return (head0, e0), (e1, tail1, f"), {test})")


def _names_object_fields(code, pos, name, fields):
    """Is ``name``, at ``pos``, a parameter of the ``#define`` around
    ``pos`` that every expansion of the macro in ``code`` gives the name
    of one of ``fields`` (``#define LOAD(f, n) self->f = get(n)`` used as
    ``LOAD(v, "v")``)?"""
    line = code.rfind("\n", 0, pos) + 1
    for m in MACRO_WITH_PARAMS.finditer(code, max(0, pos - 4000), pos + 1):
        if not m.start() <= pos < m.end() or m.start() > line:
            continue
        params = [q.strip() for q in m.group("params").split(",")]
        if name not in params:
            return False
        at = params.index(name)
        passed = []
        for use in regex.finditer(rf"\b{m.group('name')}\s*\(", code):
            if m.start() <= use.start() < m.end():
                continue
            args = source.split_top(code, use.end(), source.matching(code, use.end() - 1) - 1)
            if len(args) != len(params):
                return False
            passed.append(code[args[at][0]:args[at][1]].strip())
        return bool(passed) and all(a in fields for a in passed)
    return False


MACRO_WITH_PARAMS = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\((?P<params>[^)]*)\)"
                                  r"(?:[^\n\\]|\\.|\\\n)*", regex.M | regex.S)


def _field_null_test(code, start, fend, field_expr):
    """The edit ``(start, end, text)`` that turns a NULL test of the field
    access ``code[start:fend]`` into ``CystckField_IsNull(field_expr)``
    (``== NULL``, ``!= NULL``, ``!f``, and ``f`` as a condition of ``if``,
    ``while``, ``&&``, ``||`` or ``?``), or None where the access is no
    such test.  CystckField_IsNull needs no state, so destructors use it
    too."""
    # (a wide window: an argument on its own line follows its comma and a
    # run of indentation)
    before, after = code[max(0, start - 200):start], code[fend:fend + 200]
    null = regex.match(r"\s*(==|!=)\s*(?:NULL|0|nullptr)\b", after)
    if null:
        neg = "!" if null.group(1) == "!=" else ""
        return start, fend + null.end(), f"{neg}CystckField_IsNull({field_expr})"
    if regex.search(r"(?<!&)&\s*$", before[-5:]):
        return None                   # &self->v: the field's address
    if regex.search(r"!\s*$", before[-3:]):
        bang = start - len(before) + before.rstrip().rfind("!")
        return bang, fend, f"CystckField_IsNull({field_expr})"
    # if( self->v ), a && self->v: a test of the field
    if regex.search(r"(?:\b(?:if|while)\s*\(|&&|\|\|)\s*$", before) and \
            regex.match(r"\s*(?:\)|&&|\|\||\?)", after):
        return start, fend, f"!CystckField_IsNull({field_expr})"
    # f(self->v ? self->v : Py_None), x = self->v ? a : b: the condition of a ?:
    if regex.search(r"(?:(?<![=!<>])=|[(,]|\breturn)\s*$", before) and regex.match(r"\s*\?", after):
        return start, fend, f"!CystckField_IsNull({field_expr})"
    return None


class MacroStructArgs(Rule):
    """A macro that only reaches the native struct of an argument
    (``#define LOCK(o) acquire((o)->lock)``) is given the struct: where an
    argument is a custom-type handle, ``LOCK(self)`` becomes
    ``LOCK(Foo_AsStruct(S, self))``, so the body's ``->`` still reaches a
    struct (the struct-access rule cannot see inside macro bodies).  An
    argument the macro also uses as an object is left as it is, and so are
    fallback definitions of stock macros (``#ifndef Py_TYPE`` / ``#define
    Py_TYPE(o) ((o)->ob_type)``): the stock macro is the one compiled."""
    name = "macro-struct-args"
    precedence = 382
    patterns = (r"(?<![\w.>])(?P<m>\w+)\s*\(",)
    before = ("typedef struct { PyObject_HEAD long lock; } Box;\n"
              "#define LOCK(o) take(&(o)->lock)\n"
              "static PyObject *get(Box *self, PyObject *x)\n{\n    LOCK(self);\n    return PyNumber_Negative(x);\n}\n")
    after = ("typedef struct { PyObject_HEAD long lock; } Box;\n"
             "#define LOCK(o) take(&(o)->lock)\n"
             "static PyObject *get(Box *self, PyObject *x)\n{\n    LOCK(Box_AsStruct(S, self));\n"
             "    return PyNumber_Negative(x);\n}\n")

    def apply(self, unit):
        p = unit.project
        if not p.types:
            return 0
        macros = _struct_only_macro_params(p)
        if not macros:
            return 0
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            positions = macros.get(m.group("m"))
            if not positions:
                continue
            close = source.matching(code, m.end() - 1)
            for i, (a0, a1) in enumerate(source.split_top(code, m.end(), close - 1)):
                arg = regex.sub(r"^\(\s*(\w+)\s*\)$", r"\1", code[a0:a1].strip())
                if i in positions and arg in ctx.typed:
                    lead = a0 + len(code[a0:a1]) - len(code[a0:a1].lstrip())
                    struct = p.types[ctx.typed[arg]].struct
                    edits.add(lead, lead + len(code[a0:a1].strip()), f"{struct}_AsStruct(S, {arg})")
        if edits:
            unit.apply(edits)
        return edits.applied


def _struct_only_macro_params(project):
    """Macro name -> indexes of its parameters that the body uses only to
    reach a struct member (``o->x``, ``(o)->x``), for macros of every file."""
    from .functions import MACRO_DEFINITION
    out = {}
    for text in project.files.values():
        for m in MACRO_DEFINITION.finditer(source.mask(text)):
            if not m.group("args") or regex.match(r"_?Py", m.group("name")):
                continue      # a fallback for a stock macro: the stock one is used
            params = [a.strip() for a in m.group("args")[1:-1].split(",")]
            body = m.group("body")
            positions = set()
            for i, name in enumerate(params):
                if not regex.fullmatch(r"\w+", name):
                    continue
                uses = regex.findall(rf"(?<![\w.>]|->)\b{name}\b", body)
                derefs = regex.findall(rf"(?:\(\s*{name}\s*\)|(?<![\w.>]|->)\b{name}\b)\s*->", body)
                if uses and len(uses) == len(derefs):
                    positions.add(i)
            if positions:
                out[m.group("name")] = positions
    return out


class StructPointerMembers(Rule):
    """A member that points at a custom type's native struct (``Node
    *next``, a linked list of objects owned elsewhere) stays a native
    pointer; where it meets a handle it is converted: ``h = s->next;``
    becomes ``h = (s->next ? Cystck_FromStruct(S, s->next) : Cystck_NULL);``,
    ``s->next = h;`` becomes ``s->next = Node_AsStruct(S, h);``, a
    comparison with a handle compares with ``Node_AsStruct(S, h)``, and an
    object field read through it, ``s->next->v``, is
    ``CystckField_Load(S, Cystck_FromStruct(S, s->next), s->next->v)``.
    The pointer holds no reference, as in stock code."""
    name = "struct-pointer-members"
    precedence = 526
    patterns = (r"->\s*(?P<m>\w+)\b(?!\s*\()",
                r"(?:\w+_AsStruct\s*\(\s*S\s*,\s*\w+\s*\)|(?<![\w.>])\w+)(?:\s*->\s*\w+)*\s*$")
    before = ("typedef struct Node { PyObject_HEAD PyObject *v; struct Node *next; } Node;\n"
              "static PyObject *f(Node *self, Node *other)\n{\n    Node *n = self->next;\n"
              "    if (n == other)\n        return PyNumber_Negative(self->next->v);\n"
              "    self->next = other;\n    return NULL;\n}\n")
    after = ("typedef struct Node { PyObject_HEAD PyObject *v; struct Node *next; } Node;\n"
             "static PyObject *f(Node *self, Node *other)\n{\n"
             "    Node *n = (self->next ? Cystck_FromStruct(S, self->next) : Cystck_NULL);\n"
             "    if (n == other)\n        return PyNumber_Negative(CystckField_Load(S, "
             "Cystck_FromStruct(S, self->next), self->next->v));\n"
             "    self->next = Node_AsStruct(S, other);\n    return NULL;\n}\n")

    def apply(self, unit):
        p = unit.project
        members = _struct_pointer_members(p)
        if not members:
            return 0
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx, m in _common.matches_in_state_bodies(unit, self.patterns[0], code):
            b0, b1 = ctx.body
            struct, array = members.get(m.group("m"), (None, False))
            sub = regex.match(r"\s*\[", code[m.end():])
            if struct is None or bool(sub) != array:
                continue
            end = source.matching(code, m.end() + sub.end() - 1) if sub else m.end()
            chain = regex.search(self.patterns[1], code[b0:m.start()])
            if chain is None or chain.group().startswith("Cystck"):
                continue
            self._convert(unit, ctx, code, text, b0 + chain.start(), end, struct, edits)
        if edits:
            unit.apply(edits)
        return edits.applied

    def _convert(self, unit, ctx, code, text, start, end, struct, edits):
        e = text[start:end]
        accessor = f"{unit.project.types[struct].struct}_AsStruct"
        after, before = code[end:end + 200], code[max(0, start - 200):start]
        before_at = start - len(before)
        field = regex.match(r"\s*->\s*(?P<f>\w+)\b(?!\s*(?:\(|->))(?!\s*=[^=])", after)
        if field:
            if field.group("f") in unit.project.types[struct].object_fields:
                edits.add(start, end + field.end(),
                          f"CystckField_Load(S, Cystck_FromStruct(S, {e}), {e}->{field.group('f')})")
            return
        store = regex.match(r"\s*=(?!=)\s*(?P<h>\w+|CystckField_Load\s*\([^;]*\))\s*;", after)
        if store and (store.group("h") in ctx.handles or store.group("h").startswith("CystckField_Load")):
            h0 = end + store.start("h")
            edits.add(h0, h0 + len(store.group("h")), f"{accessor}(S, {store.group('h')})")
            return
        cmp_after = regex.match(r"\s*[!=]=\s*(?P<h>\w+)\b(?!\s*(?:\(|->|\[))", after)
        if cmp_after and cmp_after.group("h") in ctx.handles:
            h0 = end + cmp_after.start("h")
            edits.add(h0, h0 + len(cmp_after.group("h")), f"{accessor}(S, {cmp_after.group('h')})")
            return
        cmp_before = regex.search(r"(?<![\w.>])(?P<h>\w+)\s*[!=]=\s*$", before)
        if cmp_before and cmp_before.group("h") in ctx.handles:
            edits.add(before_at + cmp_before.start("h"), before_at + cmp_before.end("h"),
                      f"{accessor}(S, {cmp_before.group('h')})")
            return
        load = regex.search(r"(?<![\w.>])(?P<h>\w+)\s*=\s*(?P<p>\(\s*)?$", before)
        if load and load.group("h") in ctx.handles and \
                regex.match(r"\s*\)\s*;" if load.group("p") else r"\s*;", after):
            edits.add(start, end, f"({e} ? Cystck_FromStruct(S, {e}) : Cystck_NULL)")


def _struct_pointer_members(project):
    """Member name -> (custom struct, is an array), for members declared
    as pointers to a custom type's struct (``Node *next``, or ``Node
    *path[8]``, in any struct of the project), when the name means one
    struct only."""
    out, ambiguous = {}, set()
    for text in project.files.values():
        code = source.structure_mask(text)
        for m in regex.finditer(r"\bstruct\s*\w*\s*\{", code):
            open_at = m.end() - 1
            for base, d, _ in cstruct.struct_members(code, open_at, source.matching(code, open_at)):
                t = regex.sub(r"\b(?:const|struct)\b", "", base).strip()
                if d.pointer != "*" or d.array.count("[") > 1 or t not in project.types or \
                        any(d.name in i.object_fields for i in project.types.values()):
                    continue          # an owned object (visited by traverse) is a field
                if out.get(d.name, (t, bool(d.array))) != (t, bool(d.array)):
                    ambiguous.add(d.name)
                out[d.name] = (t, bool(d.array))
    return {k: v for k, v in out.items() if k not in ambiguous}


# An item count in an allocation call: no comma, one level of parentheses.
_COUNT = r"(?:[^(),]|\((?:[^()])*\))*"


class ObjectNew(Rule):
    """Instance allocation goes through the runtime: ``PyObject_New(Foo,
    &FooType)`` (its macro spelling ``PyObject_NEW`` too) and
    ``PyObject_GC_New`` become ``Cystck_New(S, type, NULL)``, which, as
    they, need not zero the native struct; ``type->tp_alloc(type, 0)``
    (also ``Py_TYPE(self)->tp_alloc(Py_TYPE(self), 0)``, a static type's
    ``FooType.tp_alloc(&FooType, 0)`` and ``PyType_GenericAlloc(type,
    0)``) become ``Cystck_NewZeroed(S, type, NULL)``, which zeroes it as
    stock's generic tp_alloc does (code reads fields its tp_new never
    sets); ``PyType_GenericNew(type, args, kw)`` becomes
    ``CystckType_GenericNew(S, type)`` (zeroed too); ``PyObject_GC_Track``
    is dropped (the runtime tracks GC instances).  A variable-size
    instance keeps its item count: ``PyObject_GC_NewVar(Foo, &FooType,
    n)`` becomes ``Cystck_NewVar(S, type, n, NULL)`` (which zeroes);
    ``type->tp_alloc(type, n)`` and ``PyType_GenericAlloc(type, n)``, whose
    type may have no items (stock's generic tp_alloc then ignores the
    count), become ``CystckType_GenericAlloc(S, type, n)``, which does the
    same."""
    name = "object-new"
    precedence = 640
    patterns = (r"\bPyObject_(?:GC_)?(?:New(?:Var)?|NEW(?:_VAR)?)\s*\(\s*(?:struct\s+)?\w+\s*,\s*(?P<t>[^,()]+(?:\([^()]*\))?)\s*"
                r"(?:,(?P<n>" + _COUNT + r"))?\)",
                r"(?P<t>\w+|\(\s*\w+\s*\)|Py_TYPE\s*\(\s*\w+\s*\))\s*->\s*tp_alloc\s*"
                r"\(\s*(?P<a>\w+|Py_TYPE\s*\(\s*\w+\s*\))\s*,(?P<n>" + _COUNT + r")\)",
                r"\bPyType_GenericAlloc\s*\(\s*(?P<t>[^,()]+?)\s*,(?P<n>" + _COUNT + r")\)",
                r"\bPyType_GenericNew\s*\(\s*(?P<t>(?:&\s*)?\w+(?:\s*::\s*\w+)*)\s*,[^()]*\)",
                r"^[ \t]*PyObject_GC_Track\s*" + _common.PAREN + r"\s*;[ \t]*\n?",
                r"\b(?P<s>\w+)\s*\.\s*tp_alloc\s*\(\s*&\s*(?P<t>\w+)\s*,(?P<n>" + _COUNT + r")\)")
    before = "static PyObject *f(PyTypeObject *type) { Box *b = PyObject_New(Box, &BoxType); return type->tp_alloc(type, 0); }\n"
    after = "static PyObject *f(PyTypeObject *type) { Box *b = Cystck_New(S, &BoxType, NULL); return Cystck_NewZeroed(S, type, NULL); }\n"

    def apply(self, unit):
        n = unit.sub(self.patterns[0], lambda m, t: self._new(m, t, zero=False))
        for pat in self.patterns[1:3]:
            n += unit.sub(pat, self._new)
        n += unit.sub(self.patterns[3], lambda m, t: f"CystckType_GenericNew(S, {m.group('t')})")
        n += unit.sub(self.patterns[4], lambda m, t: "", regex.M)
        # FooType.tp_alloc(&FooType, 0): a static type's own slot
        n += unit.sub(self.patterns[5], lambda m, t: None if m.group("s") != m.group("t") else
                      self._new(m, t).replace(f"S, {m.group('t')},", f"S, &{m.group('t')},", 1))
        return n


    @staticmethod
    def _new(m, text, zero=True):
        """The runtime's allocation for the match: zero for a tp_alloc
        (stock's zeroes), not for PyObject_New (stock's does not); a count
        for a tp_alloc goes to its type's own (CystckType_GenericAlloc:
        none is needed where the type has no items), PyObject_NewVar's is
        the item count of a variable-size type (Cystck_NewVar)."""
        t = text[m.start("t"):m.end("t")].strip()
        bare = regex.sub(r"^\(\s*(\w+)\s*\)$", r"\1", t)
        if "a" in m.groupdict() and m.group("a") is not None and \
                regex.sub(r"\s+", "", m.group("a")) != regex.sub(r"\s+", "", bare):
            return None           # allocating another type than the one whose slot it calls
        count = text[m.start("n"):m.end("n")].strip() if m.group("n") is not None else "0"
        if count not in ("0", ""):
            return f"CystckType_GenericAlloc(S, {bare}, {count})" if zero else \
                f"Cystck_NewVar(S, {bare}, {count}, NULL)"
        return f"Cystck_New{'Zeroed' if zero else ''}(S, {bare}, NULL)"


class TypeReady(Rule):
    """Types are created from their spec in the init function and kept in
    their ``Cystck_Ref``: ``PyType_Ready(&FooType) < 0`` becomes ``(FooType
    = Cystck_ref(S, CystckType_FromSpec(S, &FooType_spec, base))) == NULL``;
    ``PyType_FromSpec(&spec)`` and ``PyType_FromSpecWithBases(&spec, b)``
    become ``CystckType_FromSpec(S, &spec, Cystck_NULL / b)``,
    ``PyType_FromModuleAndSpec(m, &spec, b)`` ``CystckType_FromModuleAndSpec(S,
    m, &spec, b)`` (the type keeps its module, for ``PyType_GetModuleByDef``);
    ``PyModule_AddType(m, &FooType)`` adds ``Cystck_deref(S, FooType)``.
    ``FooType.tp_base = &BarType;`` before ``PyType_Ready(&FooType)`` goes:
    ``BarType`` is the spec's base (``&PyBaseObject_Type``, the default,
    none); a stock base stored so (``FooType.tp_base =
    SomeAPI->BaseType;``) is lent to ``CystckType_FromSpec`` through the
    escape hatch, reported.  The other slots stored before ``PyType_Ready``
    are in the spec (``type-object``) and their stores go."""
    name = "type-ready"
    precedence = 645
    patterns = (r"\bPyType_Ready\s*\(\s*(?:\(\s*PyTypeObject\s*\*\s*\)\s*)?&\s*(?P<t>\w+)\s*\)(?P<cmp>\s*<\s*0)?",
                r"\bPyType_FromSpec\s*\(\s*(?P<s>[^()]+?)\s*\)",
                r"\bPyType_FromSpecWithBases\s*\(\s*(?P<s>[^(),]+?)\s*,",
                r"\bPyType_FromModuleAndSpec\s*\(\s*(?P<m>[^(),]+?)\s*,\s*(?P<s>[^(),]+?)\s*,\s*(?P<b>[^()]+?)\s*\)",
                r"\bPyModule_AddType\s*\(\s*(?P<m>[^(),]+?)\s*,\s*(?:\(\s*PyTypeObject\s*\*\s*\)\s*)?&\s*(?P<t>\w+)\s*\)")
    before = "static int init(PyObject *m) { if (PyType_Ready(&BoxType) < 0) return -1; return PyModule_AddType(m, &BoxType); }\n"
    after = ("static int init(PyObject *m) { if ((BoxType = Cystck_ref(S, CystckType_FromSpec(S, &BoxType_spec, Cystck_NULL))) == NULL) return -1;"
             " return CystckModule_AddType(S, m, Cystck_deref(S, BoxType)); }\n")

    def apply(self, unit):
        bases = unit.project.type_bases
        # a base stored before PyType_Ready is the spec's base (project.stored_base)
        n = unit.sub(proj.BASE_STORE.pattern, lambda m, t: None if proj.stored_base(
            unit.masked, t, m, unit.project.type_objects) is None else "", flags=regex.M)
        # the slots stored before PyType_Ready are in the spec (type-object)
        n += unit.sub(proj.SLOT_STORE.pattern, lambda m, t: None if proj.folded_slot_store(
            unit.project, unit.masked, t, m) is None else "", flags=regex.M)
        # and so are the functions stored in a table the type takes
        n += unit.sub(proj.SUBTABLE_STORE.pattern, lambda m, t: "" if proj.folded_subtable_store(
            unit.project, m) else None, flags=regex.M)

        def ready(m, text):
            t = m.group("t")
            base = f"Cystck_deref(S, {bases[t]})" if t in bases else "Cystck_NULL"
            if t in unit.project.stock_type_bases:
                base = f"Cystck_FromPyObject(S, {MARK} (PyObject *)({unit.project.stock_type_bases[t]}))"
                unit.leftover(m.start(), f"escape hatch: the base of {t}, "
                              f"{unit.project.stock_type_bases[t]}, is a stock type: lent as it is", self.name)
            assign = f"({t} = Cystck_ref(S, CystckType_FromSpec(S, &{t}_spec, {base})))"
            return f"{assign} == NULL" if m.group("cmp") else f"({assign} == NULL ? -1 : 0)"
        n += unit.sub(self.patterns[0], ready)
        n += unit.sub(self.patterns[1], lambda m, t: f"CystckType_FromSpec(S, {t[m.start('s'):m.end('s')]}, Cystck_NULL)")
        n += unit.sub(self.patterns[2], lambda m, t: f"CystckType_FromSpec(S, {t[m.start('s'):m.end('s')]},")
        n += unit.sub(self.patterns[3], lambda m, t: "CystckType_FromModuleAndSpec(S, " + t[m.start('m'):m.end('m')]
                      + ", " + t[m.start('s'):m.end('s')] + ", "
                      + ("Cystck_NULL" if m.group("b").strip() in ("NULL", "0", "nullptr") else t[m.start('b'):m.end('b')]) + ")")
        n += unit.sub(self.patterns[4], lambda m, t: f"CystckModule_AddType(S, {t[m.start('m'):m.end('m')]}, "
                      f"Cystck_deref(S, {m.group('t')}))")
        n += self._never_readied(unit)
        return n

    def _never_readied(self, unit):
        """A type object no file readies (stock code may make instances of
        a static type with ``PyObject_New`` alone, an iterator's) still
        needs its reference: the module's init makes it from its spec
        first, when the type's file is compiled with the init's (defined
        before the init, in it or in a file it includes)."""
        init = regex.search(r"\bCYSTCK_MODINIT\s*\(\s*\w+\s*\)\s*\{", unit.masked)
        if init is None:
            return 0
        p = unit.project
        readied = set()
        for text in p.files.values():
            readied |= set(regex.findall(r"\bPyType_Ready\s*\(\s*(?:\(\s*PyTypeObject\s*\*\s*\)\s*)?&\s*(\w+)",
                                         text))
        made = []
        for path in [unit.path] + sorted(p.compiled_with(unit.path)):
            code = source.mask(p.files.get(path, ""))
            for m in regex.finditer(r"\bPyTypeObject\s+(?P<t>\w+)\s*=\s*\{", code):
                t = m.group("t")
                if t in readied or t in made:
                    continue
                spec = regex.search(r"\bCystckType_Spec\s+" + regex.escape(t) + r"_spec\s*=", unit.masked)
                if path == unit.path and (spec is None or spec.start() > init.start()):
                    continue
                if path != unit.path and not regex.search(r'^[ \t]*#[ \t]*include[ \t]*"(?:[^"]*/)?'
                                                          + regex.escape(path.rsplit("/", 1)[-1]) + '"',
                                                          unit.text[:init.start()], regex.M):
                    continue
                made.append(t)
        if not made:
            return 0
        lines = "".join(
            f"\n    /* cystck-migrate: {t} is never readied (its instances are made with PyObject_New): "
            f"its type is made here */\n"
            f"    if (({t} = Cystck_ref(S, CystckType_FromSpec(S, &{t}_spec, Cystck_NULL))) == NULL)\n"
            f"        return -1;" for t in made)
        edits = source.Edits()
        edits.add(init.end(), init.end(), lines)
        unit.apply(edits)
        return len(made)


class SetTypeOfTypeObjects(Rule):
    """``Py_SET_TYPE(&FooType, &PyType_Type);`` (or ``Py_TYPE(&FooType) =
    &PyType_Type;``) of a static type that becomes a spec goes: compilers
    that cannot take ``&PyType_Type`` in a static initialiser needed it,
    while a type made from a spec is an instance of ``type`` already.  A
    statement naming another metatype, or a type object that stays, is
    left alone."""
    name = "set-type-of-type-objects"
    precedence = 646
    patterns = (r"^[ \t]*(?:Py_SET_TYPE\s*\(\s*(?:\(\s*PyObject\s*\*\s*\)\s*)?&\s*(?P<t>\w+)\s*,"
                r"|Py_TYPE\s*\(\s*(?:\(\s*PyObject\s*\*\s*\)\s*)?&\s*(?P<t>\w+)\s*\)\s*=)"
                r"\s*&\s*PyType_Type\s*\)?\s*;[ \t]*\n",)
    before = ("static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) \"m.Box\"};\n"
              "static int init(PyObject *m)\n{\n    if (PyType_Ready(&BoxType) < 0)\n        return -1;\n"
              "    Py_SET_TYPE(&BoxType, &PyType_Type);\n    return 0;\n}\n")
    after = ("static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) \"m.Box\"};\n"
             "static int init(PyObject *m)\n{\n    if (PyType_Ready(&BoxType) < 0)\n        return -1;\n"
             "    return 0;\n}\n")

    def apply(self, unit):
        types = unit.project.type_objects
        return unit.sub(self.patterns[0], lambda m, t: "" if m.group("t") in types else None, flags=regex.M)


def _spec_has_new(project, spec):
    """Does the PyType_Spec ``spec`` (in the stock sources) list a
    Py_tp_new slot, so that calling its type creates instances?"""
    for text in project.files.values():
        code = source.structure_mask(text)
        for m in regex.finditer(rf"\bPyType_Spec\s+{regex.escape(spec)}\s*=\s*\{{", code):
            f = cstruct.fields_of(proj.table_items(code, text, m), proj.SPEC_FIELDS)
            slots = cstruct.strip_cast(f["slots"].text) if "slots" in f and f["slots"].text else None
            for s in regex.finditer(rf"\bPyType_Slot\s+{regex.escape(slots or '')}\s*\[[^\]]*\]\s*=\s*\{{", code):
                if any(isinstance(it.value, list) and cstruct.fields_of(it.value, proj.SLOT_FIELDS).get("slot")
                       and cstruct.fields_of(it.value, proj.SLOT_FIELDS)["slot"].text == "Py_tp_new"
                       for it in proj.table_items(code, text, s)):
                    return True
    return False


class RuntimeVectorcall(Rule):
    """``((PyTypeObject *)t)->tp_vectorcall = f;`` on a type made from a
    spec with a Py_tp_new slot goes, reported.

    A vectorcall function only makes calling the type faster: its tp_new
    and tp_init do the same work, and Cystck defines no vectorcall for
    types (``f`` is no longer used: a static ``f`` that nothing else refers
    to goes too).  On a type without tp_new the statement stays, reported,
    for a human."""
    name = "runtime-vectorcall"
    precedence = 295
    patterns = (r"(?:\(\s*\(\s*PyTypeObject\s*\*\s*\)\s*(?P<t>\w+)\s*\)|(?P<t>\w+))\s*->\s*tp_vectorcall\s*="
                r"\s*(?:\(\s*vectorcallfunc\s*\)\s*)?(?P<f>\w+)\s*;[ \t]*",)
    before = ("static PyType_Slot Foo_slots[] = {{Py_tp_new, Foo_new}, {0, NULL}};\n"
              "static PyType_Spec Foo_spec = {\"m.Foo\", 0, 0, 0, Foo_slots};\n"
              "static int exec(PyObject *m)\n{\n    PyObject *t = PyType_FromSpec(&Foo_spec);\n"
              "    ((PyTypeObject *)t)->tp_vectorcall = Foo_vectorcall;\n"
              "    return PyModule_AddObject(m, \"Foo\", t);\n}\n")
    after = ("static PyType_Slot Foo_slots[] = {{Py_tp_new, Foo_new}, {0, NULL}};\n"
             "static PyType_Spec Foo_spec = {\"m.Foo\", 0, 0, 0, Foo_slots};\n"
             "static int exec(PyObject *m)\n{\n    PyObject *t = PyType_FromSpec(&Foo_spec);\n"
             "    /* cystck-migrate: tp_vectorcall = Foo_vectorcall dropped: calls go through tp_new */\n"
             "    return PyModule_AddObject(m, \"Foo\", t);\n}\n")

    def apply(self, unit):
        code = unit.masked
        edits = source.Edits()
        dropped = set()
        for f in unit.functions():
            if not f.is_definition:
                continue
            b0, b1 = f.body
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                t, fn = m.group("t"), m.group("f")
                made = None
                for made in regex.finditer(rf"\b{t}\s*=\s*(?:\(\s*\w+\s*\*\s*\)\s*)?(?:Py|Cystck)Type_From\w*Spec\w*\s*"
                                           + source.paren("a"), code, pos=b0, endpos=m.start()):
                    pass
                spec = regex.search(r"&\s*(\w+)", made.group("a")) if made else None
                if spec is None or not _spec_has_new(unit.project, spec.group(1)):
                    unit.leftover(m.start(), f"tp_vectorcall = {fn}: no Cystck counterpart (the type has no "
                                  "tp_new of its own to call instead)", self.name)
                    continue
                edits.add(m.start(), m.end(), f"/* cystck-migrate: tp_vectorcall = {fn} dropped: "
                          "calls go through tp_new */")
                unit.leftover(m.start(), f"tp_vectorcall = {fn} dropped: Cystck defines no vectorcall for "
                              f"types, calls go through tp_new and tp_init ({fn} is no longer used)", self.name)
                dropped.add(fn)
        if edits:
            unit.apply(edits)
        applied = edits.applied
        for fn in sorted(dropped):
            self._remove_if_unused(unit, fn)
        return applied

    def _remove_if_unused(self, unit, fn):
        """A static vectorcall function that nothing refers to any more goes
        with its prototypes (it would not compile warning-free, unused and
        in stock form); one another file could see stays."""
        p = unit.project
        decls = [f for f in unit.functions() if f.name == fn and not f.member]
        info = p.functions.get((unit.path, fn))
        if not decls or info is None or not info.static or p.includers.get(unit.path):
            return
        spans = [(f.start, f.end) for f in decls]
        if any(not any(s <= u.start() < e for s, e in spans)
               for u in regex.finditer(rf"\b{regex.escape(fn)}\b", unit.masked)):
            return          # still referred to: a human decides
        edits = source.Edits()
        for s, e in spans:
            edits.add(*_common.statement_line_span(unit.text, s, e), "")
        unit.note("removed", decls[-1].start, f"{fn} removed: nothing calls it once its tp_vectorcall "
                  "assignment is dropped", self.name)
        unit.apply(edits)


class FieldPointerParams(Rule):
    """A helper that takes the address of an object field, ``static
    PyObject *ensure(Box *self, PyObject **field)`` called as ``ensure(self,
    &self->cache)`` at every call, gets a ``Cystck_Field *``: reads of
    ``*field`` become ``CystckField_Load(S, self, *field)``, null tests
    ``CystckField_IsNull(*field)`` and stores ``*field = v;``
    ``CystckField_Store(S, self, field, v);`` (the owner is the parameter
    every call passes the field's object as).  A parameter that some call
    passes anything else, or that the body uses other than through ``*``,
    stays a handle pointer."""
    name = "field-pointer-params"
    precedence = 575
    patterns = (r"(?<![\w.>])\*\s*(?P<f>\w+)\b",)
    before = ("typedef struct { PyObject_HEAD PyObject *cache; } Box;\n"
              "static PyObject *ensure(Box *self, PyObject **field)\n{\n"
              "    if (*field == NULL)\n        *field = PyDict_New();\n    return *field;\n}\n"
              "static PyObject *get(Box *self) { return ensure(self, &self->cache); }\n")
    after = ("typedef struct { PyObject_HEAD PyObject *cache; } Box;\n"
             "static PyObject *ensure(Box *self, Cystck_Field *field)\n{\n"
             "    if (CystckField_IsNull(*field))\n        CystckField_Store(S, self, field, PyDict_New());\n"
             "    return CystckField_Load(S, self, *field);\n}\n"
             "static PyObject *get(Box *self) { return ensure(self, &self->cache); }\n")

    _FIELD_ARG = regex.compile(r"&\s*(?:(?P<t>\w+)_AsStruct\s*\(\s*S\s*,\s*(?P<x>\w+)\s*\)|(?P<x>\w+))"
                               r"\s*->\s*(?P<m>\w+)\s*")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        if not regex.search(r"(?:Cystck_Object\s*\*|PyObject\s*\*\s*\*)\s*\w+\s*[,)]", code):
            return 0
        for ctx in _common.function_contexts(unit, with_locals=False):
            if not ctx.func.is_definition or ctx.role is not None:
                continue
            for i, param in enumerate(ctx.params):
                if param.base not in ("Cystck_Object", "PyObject") or param.ptr not in ("*", "**") \
                        or (param.base == "PyObject") != (param.ptr == "**"):
                    continue
                owner = self._owner(unit, code, ctx, i)
                if owner is None or not self._only_dereferenced(code, ctx, param.name):
                    continue
                s, e = param.span
                edits.add(s, e, text[s:e].replace(text[s:e].strip(), f"Cystck_Field *{param.name}"))
                self._body(code, text, ctx, param.name, owner, edits)
        if edits:
            unit.apply(edits)
        return edits.applied

    def _owner(self, unit, code, ctx, index):
        """The name of the parameter that every call passes as the owner of
        the field it passes at ``index``, or None."""
        name, p = ctx.func.name, unit.project
        calls = list(regex.finditer(rf"(?<![\w.>]){regex.escape(name)}\s*" + source.paren("a"), code))
        owners = None
        for c in calls:
            if c.start() == ctx.func.name_start:
                continue
            inner = c.group("a")[1:-1]
            args = [inner[a:b].strip() for a, b in source.split_top(inner, 0, len(inner))]
            params = [q.name for q in ctx.params]
            if len(args) != len(params):
                return None
            field = self._FIELD_ARG.fullmatch(args[index])
            if field is None or not any(field.group("m") in info.object_fields for info in p.types.values()):
                return None
            here = {params[j] for j, a in enumerate(args) if j != index and a == field.group("x")}
            owners = here if owners is None else owners & here
        return sorted(owners)[0] if owners else None

    @staticmethod
    def _only_dereferenced(code, ctx, name):
        b0, b1 = ctx.body
        uses = regex.findall(rf"(?<![\w.>]){regex.escape(name)}\b", code[b0:b1])
        derefs = regex.findall(rf"(?<![\w.>])\*\s*{regex.escape(name)}\b", code[b0:b1])
        return bool(uses) and len(uses) == len(derefs)

    @staticmethod
    def _body(code, text, ctx, name, owner, edits):
        b0, b1 = ctx.body
        n = regex.escape(name)
        taken = []
        for m in regex.finditer(rf"\bCystck_IsNull\s*\(\s*\*\s*{n}\s*\)", code, pos=b0, endpos=b1):
            edits.add(m.start(), m.end(), f"CystckField_IsNull(*{name})")
            taken.append((m.start(), m.end()))
        for m in regex.finditer(rf"(?<![\w.>])\*\s*{n}\s*==\s*NULL\b", code, pos=b0, endpos=b1):
            edits.add(m.start(), m.end(), f"CystckField_IsNull(*{name})")
            taken.append((m.start(), m.end()))
        for m in regex.finditer(rf"(?<![\w.>])\*\s*{n}\s*=(?!=)\s*(?P<v>[^;]+);", code, pos=b0, endpos=b1):
            value = text[m.start("v"):m.end("v")].strip()
            value = "Cystck_NULL" if value in ("NULL", "0") else value
            edits.add(m.start(), m.end(), f"CystckField_Store(S, {owner}, {name}, {value});")
            taken.append((m.start(), m.end()))
        for m in regex.finditer(rf"(?<![\w.>])\*\s*{n}\b", code, pos=b0, endpos=b1):
            if not any(s <= m.start() < e for s, e in taken):
                edits.add(m.start(), m.end(), f"CystckField_Load(S, {owner}, *{name})")


class RefPointerParams(Rule):
    """A helper that takes the address of a reference, a module-state
    member or a global that outlives the call (``static int intern(PyObject
    **slot, const char *s)`` called as ``intern(&st->name, "name")`` at
    every call), gets a ``Cystck_Ref *``: stores ``*slot = v;`` become
    ``*slot = Cystck_ref(S, v);``, null tests test the reference and other
    reads of ``*slot`` are ``Cystck_deref(S, *slot)``.  A parameter that
    some call passes anything else, or that the body uses other than
    through ``*``, stays a handle pointer."""
    name = "ref-pointer-params"
    precedence = 576
    patterns = (r"(?<![\w.>])\*\s*(?P<f>\w+)\b",)
    before = ("typedef struct { PyObject *name; } State;\n"
              "static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, \"m\", NULL, sizeof(State)};\n"
              "static int intern(PyObject **slot, const char *s)\n{\n"
              "    if (*slot == NULL)\n        *slot = PyUnicode_InternFromString(s);\n"
              "    return PyObject_Hash(*slot) == -1 ? -1 : 0;\n}\n"
              "static int init(State *st) { return intern(&st->name, \"name\"); }\n")
    after = ("typedef struct { PyObject *name; } State;\n"
             "static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, \"m\", NULL, sizeof(State)};\n"
             "static int intern(Cystck_Ref *slot, const char *s)\n{\n"
             "    if (*slot == NULL)\n        *slot = Cystck_ref(S, PyUnicode_InternFromString(s));\n"
             "    return PyObject_Hash(Cystck_deref(S, *slot)) == -1 ? -1 : 0;\n}\n"
             "static int init(State *st) { return intern(&st->name, \"name\"); }\n")

    _REF_ARG = regex.compile(r"&\s*(?:(?P<chain>\w+(?:\s*(?:->|\.)\s*\w+)*)\s*(?:->|\.)\s*)?(?P<m>\w+)\s*")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        p = unit.project
        if not (p.ref_fields or p.globals):
            return 0
        edits = source.Edits()
        for ctx in _common.stateful_contexts(unit, with_locals=False):
            if not ctx.func.is_definition or ctx.role is not None:
                continue
            for i, param in enumerate(ctx.params):
                if param.base not in ("Cystck_Object", "PyObject") or param.ptr not in ("*", "**") \
                        or (param.base == "PyObject") != (param.ptr == "**"):
                    continue
                if not self._always_a_ref(unit, code, ctx, i) \
                        or not FieldPointerParams._only_dereferenced(code, ctx, param.name):
                    continue
                s, e = param.span
                edits.add(s, e, text[s:e].replace(text[s:e].strip(), f"Cystck_Ref *{param.name}"))
                self._body(code, text, ctx, param.name, edits)
        if edits:
            unit.apply(edits)
        return edits.applied

    def _always_a_ref(self, unit, code, ctx, index):
        """Does every call of the function pass, at ``index``, the address
        of a module-state member or of a global reference?"""
        p = unit.project
        calls = [c for c in regex.finditer(rf"(?<![\w.>]){regex.escape(ctx.func.name)}\s*" + source.paren("a"),
                                           code) if c.start() != ctx.func.name_start]
        for c in calls:
            inner = c.group("a")[1:-1]
            args = [inner[a:b].strip() for a, b in source.split_top(inner, 0, len(inner))]
            if len(args) != len(ctx.params):
                return False
            ref = self._REF_ARG.fullmatch(args[index])
            if ref is None or not (ref.group("m") in p.ref_fields if ref.group("chain")
                                   else ref.group("m") in p.globals):
                return False
        return bool(calls)

    @staticmethod
    def _body(code, text, ctx, name, edits):
        b0, b1 = ctx.body
        n = regex.escape(name)
        taken = []
        for m in regex.finditer(rf"\bCystck_IsNull\s*\(\s*\*\s*{n}\s*\)", code, pos=b0, endpos=b1):
            edits.add(m.start(), m.end(), f"*{name} == NULL")
            taken.append((m.start(), m.end()))
        for m in regex.finditer(rf"(?<![\w.>])\*\s*{n}\s*[!=]=\s*(?:NULL|0)\b", code, pos=b0, endpos=b1):
            taken.append((m.start(), m.end()))
        for m in regex.finditer(rf"(?<![\w.>])\*\s*{n}\s*=(?!=)\s*(?P<v>[^;]+);", code, pos=b0, endpos=b1):
            value = text[m.start("v"):m.end("v")].strip()
            if value not in ("NULL", "0", "Cystck_NULL"):
                edits.add(m.start("v"), m.end("v"), f"Cystck_ref(S, {value})")
            else:
                edits.add(m.start("v"), m.end("v"), "NULL")
            taken.append((m.start(), m.end()))
        for m in regex.finditer(rf"(?<![\w.>])\*\s*{n}\b", code, pos=b0, endpos=b1):
            if not any(s <= m.start() < e for s, e in taken):
                edits.add(m.start(), m.end(), f"Cystck_deref(S, *{name})")


class SpecPointers(Rule):
    """A pointer to a type spec in a translated function, ``static int
    add_type(PyObject *m, PyType_Spec *spec)``, is a ``CystckType_Spec *``:
    the ``type-spec`` rule made every spec one, and the translated
    ``CystckType_FromSpec`` calls take them.  Functions that stay stock
    keep ``PyType_Spec``."""
    name = "spec-pointers"
    precedence = 577
    patterns = (r"\bPyType_Spec(?=\s*\*)",)
    before = ("static PyObject *make(PyObject *m, PyType_Spec *spec)\n{\n"
              "    return PyType_FromModuleAndSpec(m, spec, NULL);\n}\n")
    after = ("static PyObject *make(PyObject *m, CystckType_Spec *spec)\n{\n"
             "    return PyType_FromModuleAndSpec(m, spec, NULL);\n}\n")

    def apply(self, unit):
        code = unit.masked
        edits = source.Edits()
        for ctx in _common.stateful_contexts(unit, with_locals=False):
            if not ctx.func.is_definition:
                continue
            for m in regex.finditer(self.patterns[0], code, pos=ctx.func.name_start, endpos=ctx.body[1]):
                edits.add(m.start(), m.end(), "CystckType_Spec")
        if edits:
            unit.apply(edits)
        return edits.applied
