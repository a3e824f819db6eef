"""What the rules need to know about the whole extension before rewriting.

Built once from the *stock* sources of every input file (the paper's
"identify the patterns" step, done across files): which functions are
methods or slots and with which calling convention, which structs are custom
object types, which globals and struct members hold Python objects, which
function-pointer types carry objects, and which functions need the state
``S``.  Rules read this; they never re-derive it from half-rewritten text.
"""
import functools
import posixpath
from dataclasses import dataclass, field, replace

import regex

from . import api, cstruct, destructors, source

# ---------------------------------------------------------------------------
# Calling conventions and slot signatures
# ---------------------------------------------------------------------------

H = "Cystck_Object"
ARGS = "const Cystck_Object *"
SSIZE = "Cystck_ssize_t"


@dataclass(frozen=True)
class Role:
    """How Cystck calls a function.  ``params`` lists (C type, index of the
    stock parameter whose name is reused or None, default name); ``ret`` is
    the new return type; ``pushes`` says the function returns a push count
    (so ``return x;`` becomes ``return Cystck_Return(S, x);``); ``state``
    says whether ``Cystck_State *S`` comes first."""
    kind: str                 # meth, slot, get, set, modinit, destroy, traverse, dropped
    detail: str = ""          # convention, slot name, module name
    params: tuple = ()
    ret: str = "int"
    pushes: bool = False
    state: bool = True

    @property
    def is_entry(self):
        return self.kind in ("meth", "slot", "get", "set", "modinit")

    @property
    def stock_fastcall(self):
        """A METH_FASTCALL method: its stock nargs is a parameter (and a
        keywords one's stock kw is already the tuple of names)."""
        return any(name == "nargs" and stock is not None for _, stock, name in self.params)


SELF = (H, 0, "self")


def _slot_signature(line):
    """A Role's fields for a slot line of the API table (cystck/apitable.py,
    read through ``api.slots()``): the implementation's parameters after
    ``S``, each reusing the name of the stock parameter in its place (a
    ``nargs`` after ``args`` has none: the trampoline counts the tuple); its
    return type; and ``pushes`` where the stock slot returns an object (its
    typedef in CPython's headers returns ``PyObject *``), which the
    implementation pushes, returning a count."""
    ret, params = _implementation(line)
    stock_ret = api.stock_typedef_returns().get(line.stock)
    if stock_ret is None:
        raise ValueError(f"the stock type of {line.name}, {line.stock}, is not in CPython's headers")
    return dict(params=params, ret=ret, pushes=stock_ret == "PyObject *")


def _implementation(line, counted_nargs=True):
    """The return type and Role params of the implementation signature of a
    slot or convention line of the API table: its parameters after ``S``,
    each reusing the name of the stock parameter in its place; with
    ``counted_nargs``, a ``nargs`` after ``args`` has none (the trampoline
    counts the stock tuple)."""
    ret, params = line.implementation()
    if params[:1] != [("Cystck_State *", "S")]:
        raise ValueError(f"the API table's {line.name} takes no state: not one the translator ports")
    out, stock = [], 0
    for ctype, name in params[1:]:
        if counted_nargs and (ctype, name) == (SSIZE, "nargs") and out and out[-1][0] == ARGS:
            out.append((ctype, None, name))
            continue
        out.append((ctype, stock, name))
        stock += 1
    return ret, tuple(out)


@functools.lru_cache(maxsize=None)
def slot_signatures():
    """Slot name -> the Role fields of its implementation, for the slots the
    API table lists, except those in SPECIAL_SLOTS (tp_traverse, whose
    implementation takes the native struct)."""
    return {name: _slot_signature(line) for name, line in api.slots().items()
            if name not in SPECIAL_SLOTS}


# Slots the runtime implements itself or that have no Cystck counterpart:
# (role kind, reason reported when the tool drops or keeps them).
SPECIAL_SLOTS = {
    "tp_dealloc": "destroy",
    "tp_traverse": "traverse",
    "tp_clear": "dropped",
    "tp_free": "dropped",
    "tp_alloc": "dropped",
}

TYPE_FIELDS = (
    "tp_name tp_basicsize tp_itemsize tp_dealloc tp_vectorcall_offset tp_getattr "
    "tp_setattr tp_as_async tp_repr tp_as_number tp_as_sequence tp_as_mapping tp_hash "
    "tp_call tp_str tp_getattro tp_setattro tp_as_buffer tp_flags tp_doc tp_traverse "
    "tp_clear tp_richcompare tp_weaklistoffset tp_iter tp_iternext tp_methods tp_members "
    "tp_getset tp_base tp_dict tp_descr_get tp_descr_set tp_dictoffset tp_init tp_alloc "
    "tp_new tp_free tp_is_gc tp_bases tp_mro tp_cache tp_subclasses tp_weaklist tp_del "
    "tp_version_tag tp_finalize tp_vectorcall").split()
NUMBER_FIELDS = (
    "nb_add nb_subtract nb_multiply nb_remainder nb_divmod nb_power nb_negative "
    "nb_positive nb_absolute nb_bool nb_invert nb_lshift nb_rshift nb_and nb_xor nb_or "
    "nb_int nb_reserved nb_float nb_inplace_add nb_inplace_subtract nb_inplace_multiply "
    "nb_inplace_remainder nb_inplace_power nb_inplace_lshift nb_inplace_rshift "
    "nb_inplace_and nb_inplace_xor nb_inplace_or nb_floor_divide nb_true_divide "
    "nb_inplace_floor_divide nb_inplace_true_divide nb_index nb_matrix_multiply "
    "nb_inplace_matrix_multiply").split()
SEQUENCE_FIELDS = ("sq_length sq_concat sq_repeat sq_item was_sq_slice sq_ass_item "
                   "was_sq_ass_slice sq_contains sq_inplace_concat sq_inplace_repeat").split()
MAPPING_FIELDS = "mp_length mp_subscript mp_ass_subscript".split()
ASYNC_FIELDS = "am_await am_aiter am_anext am_send".split()
METHOD_FIELDS = "ml_name ml_meth ml_flags ml_doc".split()
MEMBER_FIELDS = "name type offset flags doc".split()
GETSET_FIELDS = "name get set doc closure".split()
MODULE_FIELDS = "m_name m_doc m_size m_methods m_slots m_traverse m_clear m_free".split()
SPEC_FIELDS = "name basicsize itemsize flags slots".split()
SLOT_FIELDS = "slot pfunc".split()
BUFFER_FIELDS = "bf_getbuffer bf_releasebuffer".split()
SUBTABLES = {"PyNumberMethods": NUMBER_FIELDS, "PySequenceMethods": SEQUENCE_FIELDS,
             "PyMappingMethods": MAPPING_FIELDS, "PyBufferProcs": BUFFER_FIELDS,
             "PyAsyncMethods": ASYNC_FIELDS}


BINDING_FLAGS = ("METH_CLASS", "METH_STATIC")


_BINDING_FLAG = {b: regex.compile(rf"\b{b}\b") for b in BINDING_FLAGS}


def binding_flags(flags):
    """The flags of a PyMethodDef's ml_flags text that say what self is."""
    return " | ".join(b for b in BINDING_FLAGS if _BINDING_FLAG[b].search(flags))


def convention_flags(line):
    """The stock ml_flags a calling convention of the API table stands for
    (``METH_FASTCALL|METH_KEYWORDS``), METH_FASTCALL aside: it only says how
    the stock function receives its arguments (with METH_VARARGS instead, in
    a tuple), not which convention it has."""
    return frozenset(line.stock.split("|")) - {"METH_FASTCALL"}


@functools.lru_cache(maxsize=None)
def _method_role(conv, fast):
    """The Role of a method of the API table's convention ``conv`` whose
    stock function is METH_FASTCALL (``fast``: its nargs is a parameter) or
    takes a tuple (METH_VARARGS: nargs counted by the trampoline)."""
    ret, params = _implementation(api.conventions()[conv], counted_nargs=not fast)
    # a stock method returns its result (PyCFunction: PyObject *), which the
    # implementation pushes, returning the count
    return Role("meth", conv, params, ret=ret, pushes=True)


def method_role(flags):
    """The Role for a PyMethodDef's ml_flags text, or None if unsupported:
    that of the first calling convention of the API table whose stock flags
    the method has, else of the one that has none but METH_FASTCALL (the
    positional arguments)."""
    # METH_COEXIST only makes the method win over the slot wrapper of the
    # same name (``__contains__`` next to ``sq_contains``): without it the
    # wrapper serves the name, calling the same slot, so it is dropped.
    # METH_CLASS / METH_STATIC only change what self is (the class, or
    # NULL): the table rule keeps them (CYSTCK_DEF_METH_FLAGS).
    f = set(regex.findall(r"METH_\w+", flags)) - {"METH_COEXIST"} - set(BINDING_FLAGS)
    convs = {name: convention_flags(line) for name, line in api.conventions().items()}
    if f - set().union(*convs.values()) - {"METH_VARARGS", "METH_FASTCALL"}:
        return None
    conv = next((name for name, need in convs.items() if need and need <= f), None) \
        or next(name for name, need in convs.items() if not need)
    return _method_role(conv, "METH_FASTCALL" in f)


def slot_role(slot):
    if slot in SPECIAL_SLOTS:
        kind = SPECIAL_SLOTS[slot]
        if kind == "destroy":
            return Role("destroy", slot, (("void *", None, "data"),), ret="void", state=False)
        if kind == "traverse":
            return Role("traverse", slot, (("void *", None, "data"), ("Cystck_visitproc", 1, "visit"),
                                           ("void *", 2, "arg")), state=False)
        return Role("dropped", slot)
    sig = slot_signatures().get(slot)
    if sig is None:
        return None
    return Role("slot", slot, **sig)


GETTER = Role("get", "", (SELF, ("void *", 1, "closure")), pushes=True)
SETTER = Role("set", "", (SELF, (H, 1, "value"), ("void *", 2, "closure")))
MODULE_HOOK = Role("dropped", "module hook")
#: A ``tp_clear`` function that does native work beside releasing members
#: (``self->len = 0;``): kept without them, as the type's clear hook
#: (CYSTCK_DEF_CLEAR), which the runtime calls after releasing the fields.
CLEAR_HOOK = Role("clear", "tp_clear", (("void *", None, "data"),), ret="void", state=False)
#: A module state's traverse, once translated (CYSTCK_DEF_MOD_TRAVERSE): no
#: state, like a type's.
MODULE_TRAVERSE = Role("traverse", "module state", (("void *", None, "state"), ("Cystck_visitproc", 1, "visit"),
                                                    ("void *", 2, "arg")), state=False)
#: The functions of a multi-phase module's slots (PEP 489), by slot id:
#: CYSTCK_DEF_MOD_EXEC and CYSTCK_DEF_MOD_CREATE declare these signatures.
MODULE_SLOT_ROLES = {
    "Py_mod_exec": Role("slot", "Py_mod_exec", ((H, 0, "module"),)),
    "Py_mod_create": Role("slot", "Py_mod_create", ((H, 0, "spec"), ("CystckModuleDef *", 1, "def")),
                          pushes=True),
}
MODINIT = Role("modinit", "", pushes=True)
#: A stock destructor whose calls all use the API (a method that empties the
#: object, a helper taking its struct), or the part of one that does: it
#: runs in tp_dealloc (CYSTCK_DEF_DEALLOC) with a state, the object alive
#: for the call, before the runtime releases the fields and frees the
#: object.  Its signature is a finalizer's (tp_finalize).
FINALIZER = Role("slot", "tp_finalize", (SELF,), ret="void")
#: A function CPython itself calls with a ``PyObject *`` (a capsule's
#: destructor): Cystck hands the stock pointer through unchanged, so its
#: signature and body stay stock; there is no ``S`` to pass it.
STOCK_CALLBACK = Role("stock", "capsule destructor", state=False)
#: A function the extension hands to a native library through a member of
#: one of the library's structs (``strm.zalloc = my_alloc;``), using the API
#: only through the raw allocator: the library calls it with no state, so
#: its signature and body stay stock (_collect_native_callbacks).
NATIVE_CALLBACK = Role("stock", "native callback", state=False)
# A function the extension defines under the name of a stock API function
# that Cystck has (a polyfill for older Pythons, PyType_GetModuleByDef under
# #if PY_VERSION_HEX < ...).  Polyfills of functions Cystck lacks are
# translated as the extension's own helpers.
STOCK_POLYFILL = Role("stock", "stock API polyfill", state=False)
STOCK_NAME = regex.compile(r"_?Py[A-Z]?[A-Za-z0-9]*_\w+")
#: A helper that reads CPython's object structs (``tp->tp_name``,
#: ``((PyHeapTypeObject *)tp)->ht_name``), which handles do not reach:
#: it keeps its stock signature and body, and its callers lend it their
#: handles through the escape hatch.
STOCK_INTERNALS = Role("stock", "reads object internals", state=False)
#: A function stored into a slot of a type that stays stock: a struct
#: sequence's, ``FooType.tp_new = Foo_new;`` after
#: ``PyStructSequence_InitType2(&FooType, &desc)`` (CPython calls it with
#: ``PyObject *`` and no state; _collect_stock_type_slots).
STOCK_TYPE_SLOT = Role("stock", "slot of a struct-sequence type, which stays stock", state=False)
#: The stock-ABI entry the translator writes for a function of a C API
#: table exported in a capsule (rules/escape.py, capsule-table-entries):
#: stock extensions call it with ``PyObject *`` and no state, and it opens a
#: Cystck frame of its own; translating the output again leaves it as it is.
STOCK_ABI_SUFFIX = "__stock_abi"
STOCK_ABI_ENTRY = Role("stock", "stock-ABI entry of a capsule's C API table", state=False)
#: A function defined in a file kept stock as a whole (translate.kept_stock).
STOCK_KEPT = Role("stock", "defined in a file kept stock", state=False)

# ---------------------------------------------------------------------------
# Type patterns
# ---------------------------------------------------------------------------

#: stock spellings of an object pointer type (without the '*')
OBJECT_TYPES = r"(?:PyObject|PyTypeObject|PyListObject|PyTupleObject|PyDictObject|PyLongObject|PyFloatObject|PyUnicodeObject|PyBytesObject)"
#: identifiers whose presence in a function body means it uses the API
API_TOKEN = regex.compile(
    r"\b(?:_?Py[A-Z][A-Za-z0-9]*_\w+|Py_(?:None|True|False|NotImplemented|Ellipsis|INCREF|XINCREF"
    r"|DECREF|XDECREF|CLEAR|NewRef|XNewRef|RETURN_\w+|BuildValue|TYPE|SETREF|VISIT)"
    r"|PyObject|PyTypeObject|Cystck\w*)\b")


@dataclass
class FunctionInfo:
    name: str
    path: str
    static: bool
    returns_handle: bool
    handle_params: bool
    body: str = ""            # masked body text (for the needs-S analysis)
    role: Role = None
    needs_state: bool = False
    handle_positions: frozenset = frozenset()   # indexes of object parameters
    translated: bool = False  # already in Cystck form in the input
    namespaces: tuple = ()    # C++ namespaces around the definition ('' for an anonymous one)
    state_member: bool = False  # a method of a state class: S is a member (see state_classes)
    stolen: frozenset = frozenset()  # indexes of parameters the stock body releases (it steals them)
    nparams: int = 0          # the stock parameter count
    params: str = ""          # the definition's parameter list (masked)


@dataclass
class TypeInfo:
    """A custom object type: its instance struct and how it is declared."""
    struct: str               # C name of the instance struct (typedef or 'struct X')
    fields: dict = field(default_factory=dict)     # member -> base type
    object_fields: set = field(default_factory=set)  # PyObject* members -> Cystck_Field
    weaklist: set = field(default_factory=set)       # tp_weaklistoffset members -> Cystck_WeakList
    object_arrays: set = field(default_factory=set)  # those of them that are arrays (PyObject *items[N])
    field_pointers: set = field(default_factory=set)  # of those, PyObject **items in native memory
    object_pointers: set = field(default_factory=set)  # PyObject ** members (field_pointers if traverse visits items)
    struct_pointers: dict = field(default_factory=dict)  # member -> (struct it points at, is an array)
    type_vars: set = field(default_factory=set)    # PyTypeObject variables for it
    base: tuple = None        # (member, struct) when the struct starts with a base type's struct


#: The files a compiler compiles (a header is compiled as part of them).
_COMPILED_SUFFIXES = (".c", ".cc", ".cpp", ".cxx")


@dataclass
class Project:
    files: dict = field(default_factory=dict)            # path -> stock text
    roles: dict = field(default_factory=dict)            # function -> Role
    typed_methods: dict = field(default_factory=dict)    # function -> its typed form (rules/args.py)
    method_entries: list = field(default_factory=list)   # (path, table, pyname, func, flags)
    functions: dict = field(default_factory=dict)        # (path, name) -> FunctionInfo
    types: dict = field(default_factory=dict)            # struct name -> TypeInfo
    type_objects: dict = field(default_factory=dict)     # PyTypeObject var -> struct or None
    defined_type_objects: set = field(default_factory=set)  # those with an initialiser in some file
    type_traverse: dict = field(default_factory=dict)   # PyTypeObject var -> its tp_traverse function
    type_dealloc: dict = field(default_factory=dict)    # PyTypeObject var -> its tp_dealloc function
    globals: set = field(default_factory=set)            # PyObject* globals -> Cystck_Ref
    stock_struct_types: set = field(default_factory=set)   # struct-sequence types, kept stock PyTypeObjects
    static_objects: object = None   # static_objects.StaticObjects, what the static-objects rule rewrites
    handle_fields: set = field(default_factory=set)      # PyObject* members of plain structs
    ref_fields: set = field(default_factory=set)         # PyObject* members of module state
    ref_arrays: set = field(default_factory=set)         # PyObject *g[N] globals -> Cystck_Ref g[N]
    ref_array_fields: set = field(default_factory=set)   # PyObject *m[N] members of what a global holds
    handle_array_fields: set = field(default_factory=set)  # PyObject *m[N] members of other plain structs
    ref_structs: set = field(default_factory=set)        # plain structs (every name) whose members are refs
    heap_structs: set = field(default_factory=set)       # those of them in memory the extension allocates
    heap_ref_fields: set = field(default_factory=set)    # their reference members (released by Py_DECREF)
    struct_names: dict = field(default_factory=dict)     # plain struct name -> all its names (tag, typedef)
    member_structs: dict = field(default_factory=dict)   # plain struct -> {member: struct it holds or points to}
    struct_globals: dict = field(default_factory=dict)   # global variable -> its plain struct
    capsule_structs: set = field(default_factory=set)    # plain structs of C API tables exported in capsules
    module_state_structs: set = field(default_factory=set)
    state_typedefs: set = field(default_factory=set)     # fn-pointer types that get S
    fnptr_typedefs: set = field(default_factory=set)     # every fn-pointer typedef (see _state_callback_types)
    state_fields: set = field(default_factory=set)       # members of those types
    api_macros: set = field(default_factory=set)         # macros expanding to API use
    converters: set = field(default_factory=set)         # O& converter functions
    type_tables: set = field(default_factory=set)        # method/member/getset tables of types
    type_bases: dict = field(default_factory=dict)       # type variable -> base type variable
    stock_type_bases: dict = field(default_factory=dict)  # type variable -> stock base stored in code
    type_slot_stores: dict = field(default_factory=dict)  # type variable -> {slot: value stored before ready}
    subtable_stores: dict = field(default_factory=dict)   # table variable -> {slot: function stored before ready}
    init_macros: dict = None    # macro naming the init function -> module name (init_name_macros)
    macro_definitions: dict = None   # every #define of the files (macros.project_macros), found once
    head_macros: set = None     # macros standing for a type object's head (head_init_macros)
    python2_macros: frozenset = frozenset()  # defined only in Python 2's code (source.python2_only_macros)
    discard_macros: set = None  # function-like macros that only discard their argument (discard_macros)
    types_with_new: set = field(default_factory=set)     # static types whose initialiser sets tp_new
    sealed_types: set = field(default_factory=set)       # static types Python cannot instantiate
    kept_clears: set = field(default_factory=set)        # tp_clear functions other code calls
    class_type_objects: dict = field(default_factory=dict)  # C++ static member -> classes
    module_slot_arrays: set = field(default_factory=set)  # PyModuleDef_Slot arrays
    phased_method_tables: set = field(default_factory=set)  # m_methods of a def with m_slots, same file
    includers: dict = field(default_factory=dict)        # path -> paths that #include it
    classes: dict = field(default_factory=dict)          # C++ class -> CppClass
    member_handles: dict = field(default_factory=dict)   # plain struct or class -> its handle members
    member_handle_arrays: dict = field(default_factory=dict)  # plain struct -> its PyObject *m[N] members
    state_classes: set = field(default_factory=set)      # classes whose methods read S from a member
    destructor_splits: dict = field(default_factory=dict)  # destructor -> the finalizer split from it
    null_error_helpers: set = field(default_factory=set)  # void * error helpers returning a handle
    _compiled_with: dict = field(default_factory=dict, repr=False)  # path -> compiled_with(path)

    # ---- lookups used by the rules ----
    @functools.cached_property
    def ambiguous_refs(self):
        """Reference member names that a plain struct no global holds has
        too (as a handle): an access by such a name is a reference or not
        by its struct (``member_is_ref``)."""
        return {n for struct, members in self.member_handles.items() if struct not in self.ref_structs
                for n in members} & self.ref_fields

    @functools.cached_property
    def ambiguous_handles(self):
        """Handle member names (handle_fields) that a plain struct has as
        a member of another type (``fail``: an object of one struct, a
        node pointer of another): an access by such a name is a handle or
        not by its struct (``member_is_handle``)."""
        return self.handle_fields & {n for members in self.member_structs.values() for n in members}

    @functools.cached_property
    def object_field_names(self):
        """The names of custom types' object fields (Cystck_Fields)."""
        return {n for info in self.types.values() for n in info.object_fields}

    def member_is_handle(self, member, struct):
        """Is ``member`` of plain struct ``struct`` a handle?"""
        return member in self.member_handles.get(struct, ())

    def member_is_ref(self, member, struct):
        """Is ``member`` of plain struct ``struct`` a reference (None: a
        struct not known, judged by the member's name)?"""
        if struct is None or struct not in self.struct_names:
            return member in self.ref_fields
        return struct in self.ref_structs and member in self.member_handles.get(struct, ())

    def function(self, path, name):
        """The definition of ``name`` visible from ``path``: a function of
        the same file first, then a non-static one of another file."""
        info = self.functions.get((path, name))
        if info is not None:
            return info
        # a file #included by another is compiled as part of it: each
        # sees the other's static functions
        for neighbour in self.compiled_with(path):
            info = self.functions.get((neighbour, name))
            if info is not None:
                return info
        for (p, n), info in self.functions.items():
            if n == name and not info.static:
                return info
        return None

    def visible_functions(self, path):
        """Name -> the definition visible from ``path``, as ``function``
        chooses it for each name: two files' static functions of one name
        (one ``void``, one returning an object) are not one function."""
        visible = {n: info for (q, n), info in self.functions.items() if q == path}
        for neighbour in self.compiled_with(path):
            for (q, n), info in self.functions.items():
                if q == neighbour:
                    visible.setdefault(n, info)
        for (_, n), info in self.functions.items():
            if not info.static:
                visible.setdefault(n, info)
        return visible

    def compiled_with(self, path):
        """The files compiled in one unit with ``path``: those that include
        it, those it includes and, where a source file includes it (at any
        depth), the other files that one includes at any depth (a unity
        build's ``#include "x.c"`` lines, some in a file itself included:
        each sees the others' static functions)."""
        found = self._compiled_with.get(path)
        if found is None:
            includers = sorted(self.includers.get(path, ()))
            included = sorted(t for t, paths in self.includers.items() if path in paths)
            ancestors = sorted(self._reached(path, lambda f: self.includers.get(f, ())))
            units = [a for a in ancestors if a.endswith(_COMPILED_SUFFIXES)]
            siblings = sorted(set().union(*(self._reached(u, self._included_by) for u in units)) - {path})
            found = self._compiled_with[path] = list(dict.fromkeys([*includers, *included, *ancestors, *siblings]))
        return found

    def _included_by(self, path):
        return [t for t, paths in self.includers.items() if path in paths]

    @staticmethod
    def _reached(path, step):
        """The files reached from ``path`` (itself not) by repeating ``step``
        (a file -> the files next to it)."""
        seen, todo = set(), [path]
        while todo:
            for nxt in step(todo.pop()):
                if nxt not in seen and nxt != path:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def handle_makers(self, path):
        """The names of the extension's functions visible from ``path``
        that return a handle."""
        return {n for n, info in self.visible_functions(path).items() if info.returns_handle}

    def needs_state(self, path, name):
        info = self.function(path, name)
        return bool(info and info.needs_state)

    def role(self, name):
        if name == "CYSTCK_MODINIT":      # an init function already rewritten
            return MODINIT
        return self.roles.get(name)

    def struct_of_type_object(self, var):
        return self.type_objects.get(var)

    @property
    def custom_structs(self):
        return set(self.types)


NULLS = ("NULL", "0", "nullptr")       # a null pointer in an initialiser or assignment

_DEF_PATTERNS = {
    "methods": regex.compile(r"\bPyMethodDef\s+(?P<name>\w+)\s*\[[^\]]*\]\s*=\s*\{"),
    "members": regex.compile(r"\b(?:PyMemberDef|struct\s+PyMemberDef)\s+(?P<name>\w+)\s*\[[^\]]*\]\s*=\s*\{"),
    "getsets": regex.compile(r"\bPyGetSetDef\s+(?P<name>\w+)\s*\[[^\]]*\]\s*=\s*\{"),
    "type": regex.compile(r"\bPyTypeObject\s+(?P<name>\w+)\s*=\s*\{"),
    "subtable": regex.compile(r"\b(?P<kind>" + "|".join(SUBTABLES) + r")\s+(?P<name>\w+)\s*=\s*\{"),
    "slots": regex.compile(r"\bPyType_Slot\s+(?P<name>\w+)\s*\[[^\]]*\]\s*=\s*\{"),
    "spec": regex.compile(r"\bPyType_Spec\s+(?P<name>\w+)\s*=\s*\{"),
    "module": regex.compile(r"\b(?:struct\s+)?PyModuleDef\s+(?P<name>\w+)\s*=\s*\{"),
    "module_slots": regex.compile(r"\bPyModuleDef_Slot\s+(?P<name>\w+)\s*\[[^\]]*\]\s*=\s*\{"),
}


_OFFSETOF = regex.compile(r"\s*offsetof\s*\(\s*(?:struct\s+)?(?P<s>\w+)\s*,\s*(?P<f>\w+)\s*\)\s*")


def weaklist_member(project, offset):
    """(struct, member) named by a weak-list offset, ``tp_weaklistoffset
    = offsetof(Foo, weakreflist)`` or a ``__weaklistoffset__`` member's
    offset, when Foo is a custom type's struct; else None (a number, an
    expression: left for a human)."""
    m = _OFFSETOF.fullmatch(offset or "")
    if m is None or m.group("s") not in project.types:
        return None
    return m.group("s"), m.group("f")


def _weaklist(p, offset):
    """Record a weak-list member: it becomes a Cystck_WeakList, which the
    runtime fills, not an object field."""
    found = weaklist_member(p, offset)
    if found:
        info = p.types[found[0]]
        info.weaklist.add(found[1])
        info.object_fields.discard(found[1])


def is_null_function(value):
    """Is a table's function pointer null (a sentinel's, ``(PyCFunction)NULL``
    too)?"""
    return value is None or cstruct.strip_cast(value) in NULLS


def table_items(code, text, m, all_branches=False):
    """Parse the initialiser that pattern match ``m`` opens (see
    cstruct.parse_init for ``all_branches``)."""
    items, _ = cstruct.parse_init(code, text, m.end() - 1, all_branches)
    return items


_DIRECTIVE_LINE = regex.compile(r"^[ \t]*#", regex.M)


def table_elements(code, text, m, order):
    """(fields, levels) of each braced element of the table that match
    ``m`` opens, in every branch of the table's conditionals, ``levels``
    the conditionals it is in (source.guard_at).  An element with
    conditionals inside (``#if`` around its function) is read once per
    version the preprocessor can make of it."""
    open_at = m.end() - 1
    for it in table_items(code, text, m, all_branches=True):
        if not isinstance(it.value, list):
            continue
        outer = source.guard_at(text, open_at, it.span[0])
        piece = text[it.span[0]:it.span[1]]
        if not _DIRECTIVE_LINE.search(piece):
            yield cstruct.fields_of(it.value, order), outer
            continue
        for inner, variant in source.branch_variants(piece):
            items, _ = cstruct.parse_init(source.mask_directives(source.mask(variant)), variant, 0)
            yield cstruct.fields_of(items, order), outer + inner


# An object-like macro whose body is designated initialisers of a type
# object (``#define SHARED_SLOTS .tp_basicsize = sizeof(View), .tp_iter =
# view_iter,``), used as one element of several PyTypeObject initialisers.
_SLOT_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)(?:[ \t]|\\\n)+(?P<body>\.tp_\w+\s*=(?:[^\n\\]|\\.|\\\n)*)",
                           regex.M | regex.S)


def inline_type_slot_macros(text):
    """``text`` with every use of a slot macro (see _SLOT_MACRO) inside a
    PyTypeObject initialiser replaced by the macro's body, one designated
    element a line, and the macro's definition removed once no use is
    left: the type's slots are then read (and rewritten) like any other.
    Returns (new text, number of uses inlined)."""
    return _inline_macro_uses(text, slot_macro_uses)


def slot_macro_uses(text):
    """The edits inlining each use of a slot macro in a type initialiser,
    and the names of the macros inlined."""
    masked = source.mask(text)
    edits, inlined = source.Edits(), set()
    macros = {m.group("name"): m for m in _SLOT_MACRO.finditer(masked)}
    if not macros:
        return edits, inlined
    code = source.mask_directives(masked)
    uses = regex.compile(r"\b(?:" + "|".join(map(regex.escape, macros)) + r")\b")
    for m in _DEF_PATTERNS["type"].finditer(code):
        open_at = m.end() - 1
        for s, e in source.split_top(code, open_at + 1, source.matching(code, open_at) - 1):
            u = uses.fullmatch(code[s:e].strip())
            if u is None:
                continue
            d = macros[u.group()]
            at = s + len(code[s:e]) - len(code[s:e].lstrip())
            indent = text[text.rfind("\n", 0, at) + 1:at]
            lines = [ln.rstrip().rstrip("\\").strip() for ln in text[d.start("body"):d.end("body")].split("\n")]
            body = ("\n" + indent).join(ln for ln in lines if ln).rstrip(",")
            edits.add(at, at + len(code[s:e].strip()), body)
            inlined.add(u.group())
    return edits, inlined


def _inline_macro_uses(text, find_uses):
    """``text`` with the macro uses that ``find_uses`` (slot_macro_uses,
    member_macro_uses) finds inlined and the definitions no use is left
    of removed, and the number of uses inlined."""
    edits, names = find_uses(text)
    if not names:
        return text, 0
    text = edits.apply(text)
    return unused_definitions(text, names).apply(text), len(edits.items)


def unused_definitions(text, names):
    """The edits removing the #define of each macro of ``names`` that
    ``text`` no longer uses."""
    masked = source.mask(text)
    edits = source.Edits()
    for name in names:
        d = regex.search(rf"^[ \t]*#[ \t]*define[ \t]+{name}\b(?:[^\n\\]|\\.|\\\n)*\n?", masked, regex.M | regex.S)
        undefs = list(regex.finditer(rf"^[ \t]*#[ \t]*undef[ \t]+{name}\b[ \t]*\n?", masked, regex.M))
        if d and len(regex.findall(rf"\b{name}\b", masked)) == 1 + len(undefs):
            for m in [d, *undefs]:      # an #undef of a macro that is gone goes too
                edits.add(m.start(), m.end(), "")
    return edits


def expand_table_cast_macros(text, defined):
    """``text`` with each function of a method or getset table that is
    passed through a macro of the project only casting it
    (``#define CFUNC(f) ((PyCFunction)(void (*)(void))(f))``, any file's:
    ``defined`` is macros.project_macros) written out as that cast, which
    the rules see through (cstruct.strip_cast); returns (new text, number
    of uses written out)."""
    from . import macros    # (macros imports this module)
    casts = {name: defs[0] for name, defs in defined.items()
             if len(defs) == 1 and defs[0][0] is not None and len(defs[0][0]) == 1}
    if not casts or not any(kind in text for kind in ("PyMethodDef", "PyGetSetDef")):
        return text, 0
    try:
        code = source.mask_directives(source.mask(text))
    except source.ScanError:
        return text, 0
    use = regex.compile(r"(?P<name>" + "|".join(map(regex.escape, casts)) + r")\s*" + source.paren("args"))
    edits = source.Edits()
    for kind in ("methods", "getsets"):
        for m in _DEF_PATTERNS[kind].finditer(code):
            open_at = m.end() - 1
            for element in regex.finditer(r"\{", code, pos=open_at + 1, endpos=source.matching(code, open_at) - 1):
                for s, e in source.split_top(code, element.end(), source.matching(code, element.start()) - 1):
                    at = s + len(code[s:e]) - len(code[s:e].lstrip())
                    u = use.fullmatch(code, at, at + len(code[at:e].rstrip()))
                    if u is None:
                        continue
                    params, body = casts[u.group("name")]
                    arg = text[u.start("args") + 1:u.end("args") - 1].strip()
                    # (an element's field needs no parentheses around the cast)
                    written = source.unparen(macros.substitute(body, params, [arg]))
                    if regex.fullmatch(r"\w+", arg) and cstruct.strip_cast(written) == arg:
                        edits.add(u.start(), u.end(), written)
    return (edits.apply(text), len(edits.items)) if edits.items else (text, 0)


def expand_table_entry_macros(text, defined):
    """``text`` with each element of a method, getset or member table that
    is an object-like macro of the project whose body is one braced
    element (Argument Clinic's ``#define FOO_METHODDEF {"foo", (PyCFunction)
    foo, METH_O, foo__doc__},``, any file's: ``defined`` is
    macros.project_macros) written out as that element, so that the table
    lists it; returns (new text, number of uses written out)."""
    entries = {}
    for name, defs in defined.items():
        if len(defs) != 1 or defs[0][0] is not None:
            continue
        body = defs[0][1].strip()
        core = body[:-1].rstrip() if body.endswith(",") else body
        try:
            whole = core.startswith("{") and source.matching(source.mask(core), 0) == len(core)
        except source.BraceError:
            whole = False
        if whole:
            entries[name] = body if body.endswith(",") else body + ","
    if not entries or not any(kind in text for kind in ("PyMethodDef", "PyGetSetDef", "PyMemberDef")):
        return text, 0
    try:
        code = source.mask_directives(source.mask(text))
    except source.ScanError:
        return text, 0
    use = regex.compile(r"\b(?:" + "|".join(map(regex.escape, sorted(entries))) + r")\b")
    edits = source.Edits()
    for kind in ("methods", "getsets", "members"):
        for m in _DEF_PATTERNS[kind].finditer(code):
            open_at = m.end() - 1
            close, pos = source.matching(code, open_at) - 1, open_at + 1
            while pos < close:       # the table's own level, not inside its elements
                nested = code.find("{", pos, close)
                stop = close if nested < 0 else nested
                for u in use.finditer(code, pos, stop):
                    edits.add(u.start(), u.end(), entries[u.group()])
                pos = stop if nested < 0 else source.matching(code, nested)
    return (edits.apply(text), len(edits.items)) if edits.items else (text, 0)


# A function-like macro that declares the members of an instance struct,
# object head included (``#define COMMON(p) PyObject_HEAD PyObject *p##_dict;``),
# used in several struct bodies.
_MEMBER_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\((?P<params>[\w\s,]*)\)"
                             r"(?P<body>(?:[^\n\\]|\\.|\\\n)*)", regex.M | regex.S)


def inline_member_macros(text):
    """``text`` with every use of a member macro (see _MEMBER_MACRO) as a
    line of a struct body replaced by its members, one a line, the
    arguments substituted (``p##_dict`` with p = b is ``b_dict``), and the
    macro's definition removed once no use is left: the struct is then an
    instance struct like any other.  Returns (new text, uses inlined)."""
    return _inline_macro_uses(text, member_macro_uses)


def member_macro_uses(text):
    """The edits inlining each use of a member macro in a struct body, and
    the names of the macros inlined."""
    masked = source.mask(text)
    edits, inlined = source.Edits(), set()
    macros = {m.group("name"): m for m in _MEMBER_MACRO.finditer(masked)
              if regex.search(r"\bPyObject_(?:VAR_)?HEAD\b", m.group("body"))}
    if not macros:
        return edits, inlined
    code = source.mask_directives(masked)
    use = regex.compile(r"^(?P<indent>[ \t]*)(?P<name>" + "|".join(map(regex.escape, macros))
                        + r")\s*\((?P<args>[^()]*)\)[ \t]*;?[ \t]*$", regex.M)
    for m in regex.finditer(r"\bstruct\s*\w*\s*\{", code):
        open_at = m.end() - 1
        for u in use.finditer(code, open_at, source.matching(code, open_at)):
            d = macros[u.group("name")]
            params = [x.strip() for x in d.group("params").split(",") if x.strip()]
            args = [x.strip() for x in text[u.start("args"):u.end("args")].split(",")]
            if len(params) != len(args):
                continue
            body = text[d.start("body"):d.end("body")]
            for param, arg in zip(params, args):
                body = regex.sub(rf"\s*##\s*{param}\b|\b{param}\s*##\s*|\b{param}\b",
                                 lambda x, a=arg: a, body)
            lines = [ln.rstrip().rstrip("\\").strip() for ln in body.split("\n")]
            # PyObject_HEAD has no semicolon: one member a line
            members = regex.sub(r"\b(PyObject_(?:VAR_)?HEAD)\b\s*", r"\1\n", " ".join(ln for ln in lines if ln))
            members = regex.sub(r";\s*", ";\n", members).strip()
            edits.add(u.start(), u.end(), "\n".join(u.group("indent") + ln.strip()
                                                     for ln in members.split("\n") if ln.strip()))
            inlined.add(u.group("name"))
    return edits, inlined


# A function-like macro whose body is one braced element of a method,
# member or getset table (``#define METHOD(n, k) {#n, (PyCFunction)obj_##n,
# k, obj_##n##_doc}``), used as the table's elements (``METHOD(get, METH_O),``).
_ELEMENT_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\((?P<params>[\w\s,]*)\)[ \t]*"
                               r"(?P<body>\{(?:[^\n\\]|\\.|\\\n)*\})[ \t]*$", regex.M)
_TABLE_KINDS = ("methods", "members", "getsets")


def inline_table_element_macros(text):
    """``text`` with every use of an element macro (see _ELEMENT_MACRO) as
    an element of a method, member or getset table replaced by its
    expansion (``#n`` made a string, ``##`` pasted), and the macro's
    definition (and ``#undef``) removed once no use is left: the table's
    entries are then read (and rewritten) like any other.  Returns (new
    text, number of uses inlined)."""
    return _inline_macro_uses(text, table_element_macro_uses)


def table_element_macro_uses(text):
    """The edits inlining each use of an element macro in a table, and
    the names of the macros inlined."""
    from . import macros    # (macros imports this module)
    masked = source.mask(text)
    defined = {m.group("name"): m for m in _ELEMENT_MACRO.finditer(masked)}
    edits, inlined = source.Edits(), set()
    if not defined:
        return edits, inlined
    code = source.mask_directives(masked)
    use = regex.compile(r"(?P<name>" + "|".join(map(regex.escape, defined)) + r")\s*(?P<args>\((?:[^()]++|(?&args))*\))")
    for kind in _TABLE_KINDS:
        for m in _DEF_PATTERNS[kind].finditer(code):
            open_at = m.end() - 1
            for s, e in source.split_top(code, open_at + 1, source.matching(code, open_at) - 1):
                at = s + len(code[s:e]) - len(code[s:e].lstrip())
                u = use.fullmatch(code, at, at + len(code[at:e].rstrip()))
                if u is None:
                    continue
                d = defined[u.group("name")]
                params = [x.strip() for x in d.group("params").split(",") if x.strip()]
                args = [text[a:b].strip() for a, b in source.split_top(code, u.start("args") + 1, u.end("args") - 1)]
                if len(params) != len(args):
                    continue
                # (one line: the element stands in a table)
                body = " ".join(macros.expansion(text, masked, d, params, args).split("\n"))
                edits.add(u.start(), u.end(), body)
                inlined.add(u.group("name"))
    return edits, inlined


def build(files, kept_stock=frozenset(), split_destructors=True, includes=None):
    """Build the Project for ``files``: a dict path -> stock source text.
    ``kept_stock``: names of the functions defined in files kept stock as
    a whole (translate.kept_stock), which ``files`` may declare and call.
    ``split_destructors``: whether the destructor-split rule runs.
    ``includes``: the files whose ``#include`` lines tell which files are
    compiled together (default ``files``; also those without the API, such
    as a list of ``#include "x.c"`` lines)."""
    p = Project(files=dict(files))
    # every file's #defines, a header kept as it is too (a compatibility header's EXT2)
    p.python2_macros = source.python2_only_macros((files if includes is None else includes).values())
    _collect_includes(p, files if includes is None else includes)
    masks = {}
    for path, text in files.items():
        try:
            masks[path] = source.structure_mask(text)
        except source.BraceError:
            masks[path] = None      # reported by the CLI before we get here
    for path, text in files.items():
        code = masks[path]
        if code is not None:
            _collect_structs(p, code, text)
    for path, text in files.items():
        code = masks[path]
        if code is not None:
            _collect_tables(p, path, code, text)
            _collect_globals(p, code, text)
            _collect_typedefs(p, code)
            _collect_macros(p, source.mask(text))
    _collect_global_structs(p, [code for code in masks.values() if code is not None])
    _collect_heap_structs(p, [code for code in masks.values() if code is not None])
    for path, code in masks.items():
        if code is not None:
            _collect_visited_members(p, code)
            _collect_released_members(p, code, files[path])
    for code in masks.values():
        if code is not None:
            _collect_stock_callbacks(p, code)
    _collect_stock_type_slots(p, [code for code in masks.values() if code is not None])
    p.stock_struct_types = stock_struct_sequence_types(p, [code for code in masks.values() if code is not None])
    for t in p.stock_struct_types:
        p.type_objects.pop(t, None)      # no reference: the stock type object itself
    for path, text in files.items():
        code = masks[path]
        if code is not None:
            _collect_functions(p, path, code, text)
    _collect_native_callbacks(p, [code for code in masks.values() if code is not None])
    for _, name in list(p.functions):
        if name.endswith(STOCK_ABI_SUFFIX):
            p.roles[name] = STOCK_ABI_ENTRY
    _collect_null_error_helpers(p, masks)
    _collect_converters(p, masks)
    _keep_called_clears(p)
    _collect_base_stores(p, masks)
    _collect_slot_stores(p, masks)
    _collect_sealed_types(p, masks)
    _collect_stock_internals(p)
    _collect_kept_stock(p, kept_stock)
    for path, code in masks.items():
        if code is not None and "c++" in _languages(path, code):
            _collect_classes(p, code)
    _infer_state(p, masks)
    _clear_hooks(p)
    _finalize_destructors_calling_api(p)
    if split_destructors:
        _split_destructors(p, files, masks)
    return p


_LOCAL_INCLUDE = regex.compile(r'^[ \t]*#[ \t]*include[ \t]*"(?P<name>[^"\n]+)"', regex.M)


def includers(files):
    """Which of ``files`` #include which (``#include "name"``, resolved
    beside the including file as a compiler does first, else as the one
    file of the extension whose path ends with ``/name``: a folder of
    its own on the build's ``-I`` path): path -> the paths that include
    it."""
    found = {}
    for path, text in files.items():
        for m in _LOCAL_INCLUDE.finditer(text):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path), m.group("name")))
            if target not in files:
                target = _include_elsewhere(files, m.group("name"))
            if target in files and target != path:
                found.setdefault(target, set()).add(path)
    return found


def _include_elsewhere(files, name):
    """The one file of ``files`` that ``#include "name"`` reaches through
    an include path, or None (none, or several: which one the build's
    ``-I`` flags choose is unknown)."""
    name = posixpath.normpath(name)
    if name.startswith(".."):
        return None
    found = [f for f in files if f == name or f.endswith("/" + name)]
    return found[0] if len(found) == 1 else None


def _collect_includes(p, files):
    for target, paths in includers(files).items():
        p.includers.setdefault(target, set()).update(paths)


def _is_object_array(base, d):
    """Is the declarator ``d`` of type ``base`` a one-dimension array of
    objects (``PyObject *items[4]``), not a class static?"""
    return _handle_type(base, d.pointer, ()) and d.array.count("[") == 1 and not regex.match(r"static\b", base)


def _handle_type(base, ptr, project_types):
    """Is ``base`` with pointer stars ``ptr`` an object handle type?"""
    base = regex.sub(r"\b(?:const|struct|static|extern|volatile)\b", "", base).strip()
    if ptr != "*":
        return False
    return bool(regex.fullmatch(OBJECT_TYPES, base)) or base in project_types


def derived_struct(members, types):
    """The custom struct a struct starts with by value, ``typedef struct {
    Base base; PyObject *extra; } Derived;`` (the instance layout of a
    subtype: its head is the base's), or None."""
    if not members:
        return None
    base, d, _ = members[0]
    base = regex.sub(r"\b(?:const|struct|volatile)\b", "", base).strip()
    return base if not d.pointer and not d.array and base in types else None


def _collect_structs(p, code, text):
    inlined, n = inline_member_macros(text)
    if n:       # the members a macro gives a struct are the struct's members
        text, code = inlined, source.structure_mask(inlined)
    pattern = regex.compile(
        r"(?P<td>typedef\s+)?\b(?:struct|class)\s*(?P<tag>\w+)?\s*\{")
    for m in pattern.finditer(code):
        open_at = m.end() - 1
        close = source.matching(code, open_at)
        body = code[open_at:close]
        after = regex.match(r"\s*(?P<name>\w+)?\s*;", code[close:])
        names = []
        if m.group("td") and after and after.group("name"):
            names.append(after.group("name"))
        if m.group("tag"):
            names.append(m.group("tag"))
        if not names:
            continue
        members = cstruct.struct_members(code, open_at, close)
        base_struct = _base_struct_member(p, members)
        if base_struct or regex.search(r"^\s*PyObject_(?:VAR_)?HEAD\b", body[1:], regex.M):
            info = TypeInfo(struct=names[0], base=base_struct)
            for base, d, _ in members:
                if regex.match(r"static\b", base):
                    continue      # a C++ class static is no instance field
                info.fields[d.name] = base
                if _handle_type(base, d.pointer, ()) and not d.array:
                    info.object_fields.add(d.name)
                elif d.pointer == "*" and d.array.count("[") <= 1:
                    target = regex.sub(r"\b(?:const|struct)\b", "", base).strip()
                    info.struct_pointers[d.name] = (target, bool(d.array))
                if _handle_type(base, "*", ()) and d.pointer == "**" and not d.array:
                    info.object_pointers.add(d.name)
                if _handle_type(base, d.pointer, ()) and d.pointer == "*" and d.array.count("[") == 1:
                    # PyObject *items[N] (or a variable-size type's items[1]):
                    # an array of fields, item by item
                    info.object_fields.add(d.name)
                    info.object_arrays.add(d.name)
            for n in names:
                p.types[n] = info
        else:
            for n in names:
                p.struct_names[n] = frozenset(names)
            for base, d, _ in members:
                if _handle_type(base, d.pointer, ()) and not d.array and not regex.match(r"static\b", base):
                    p.handle_fields.add(d.name)
                    for n in names:
                        p.member_handles.setdefault(n, set()).add(d.name)
                elif _is_object_array(base, d):
                    p.handle_array_fields.add(d.name)
                    for n in names:
                        p.member_handle_arrays.setdefault(n, set()).add(d.name)
                elif d.pointer in ("", "*"):
                    held = regex.sub(r"\b(?:const|struct|union|volatile)\b", "", base).strip()
                    for n in names:
                        p.member_structs.setdefault(n, {})[d.name] = held


def _base_struct_member(p, members):
    """(member, struct) when the first member of a struct is, by value, the
    instance struct of another custom type (``typedef struct { BaseObject
    base; PyObject *extra; } SubObject;``): the stock idiom for a subtype
    whose instances extend the base's.  Such a struct is an instance struct
    too; its native part starts with the base's."""
    base = derived_struct(members, p.types)
    return (members[0][1].name, p.types[base].struct) if base else None


_VISITED = regex.compile(r"\bPy_VISIT\s*\(\s*(?:\(\s*\w+\s*\*\s*\)\s*)?(?P<o>\w+)\s*->\s*(?P<f>\w+)\s*"
                        r"(?P<i>\[[^\[\];]*\])?\s*\)")


def _collect_visited_members(p, code):
    """A member pointing at another custom type's struct (``Node *child``,
    ``Node *children[32]``) that the type's traverse function visits is an
    object the instance owns, not a native pointer: it becomes a field like
    a ``PyObject *`` member.  So does each item of a ``PyObject **items``
    member that it visits (``Py_VISIT(self->items[i])``): an array of
    fields the instance allocates (``Cystck_Field *items``).  (Pointers a traverse does not visit, such as
    an iterator's borrowed positions in a tree, stay native pointers.)"""
    for f in source.find_functions(code):
        role = p.roles.get(f.name)
        if not f.is_definition or role is None or role.kind != "traverse":
            continue
        params = code[f.params[0]:f.params[1]].split(",")
        first = regex.match(r"\s*(?:struct\s+)?(?P<t>\w+)\s*\*\s*(?P<n>\w+)\s*$", params[0])
        info = p.types.get(first.group("t")) if first else None
        if info is None:
            continue
        # the structs of the types this traverse serves: its own, and those
        # that begin with the same members (a "base" struct's traverse
        # shared by types whose structs extend it)
        served = [info] + [p.types[t] for var, t in p.type_objects.items()
                           if p.type_traverse.get(var) == f.name and t in p.types and p.types[t] is not info]
        for m in _VISITED.finditer(code, f.body[0], f.body[1]):
            name = m.group("f")
            if m.group("o") == first.group("n") and m.group("i") and name in info.object_pointers:
                # PyObject **items, visited item by item: an array of fields
                # in native memory, its bound the traverse's own loop
                for other in served:
                    member = _same_member(info, other, name)
                    if member is not None:
                        other.object_fields.add(member)
                        other.object_arrays.add(member)
                        other.field_pointers.add(member)
                continue
            target = info.struct_pointers.get(name)
            if m.group("o") != first.group("n") or target is None or target[0] not in p.types:
                continue
            if bool(m.group("i")) != bool(target[1]):
                continue
            for other in served:
                member = _same_member(info, other, name)
                if member is not None:
                    other.object_fields.add(member)
                    if target[1]:
                        other.object_arrays.add(member)


_RELEASED = regex.compile(r"\bPy_(?:X?DECREF|CLEAR)\s*\(\s*(?:\(\s*\w+\s*\*\s*\)\s*)?(?P<o>\w+|\(\s*\(\s*"
                          r"(?:struct\s+)?\w+\s*\*\s*\)\s*\w+\s*\))\s*->\s*(?P<f>\w+)\s*\)")


def _collect_released_members(p, code, text):
    """A member pointing at another custom type's struct (``Tree *tree``)
    that the type's ``tp_dealloc`` releases (``Py_DECREF(self->tree)``) is
    an object the instance owns, as a member its traverse visits is
    (_collect_visited_members): it becomes a field, which keeps the object
    alive (the runtime releases it with the instance).  The owner is the
    dealloc's parameter, a cast of it, or a local or object-like macro
    naming that cast.  A pointer the dealloc does not release (borrowed)
    stays a native pointer."""
    deallocs = set(p.type_dealloc.values())
    if not any(name in code for name in deallocs):
        return
    directives = source.mask(text)
    for f in source.find_functions(code):
        if not f.is_definition or f.name not in deallocs:
            continue
        served = [p.types[t] for var, t in p.type_objects.items()
                  if p.type_dealloc.get(var) == f.name and t in p.types]
        params = code[f.params[0]:f.params[1]].split(",")
        param = regex.search(r"(\w+)\s*$", params[0])
        if not served or not param:
            continue
        param = param.group(1)
        body = code[f.body[0]:f.body[1]]
        for m in _RELEASED.finditer(body):
            owner = m.group("o")
            if owner != param and not regex.fullmatch(r"\(\s*\(\s*(?:struct\s+)?\w+\s*\*\s*\)\s*"
                                                      + param + r"\s*\)", owner):
                alias = regex.escape(owner)
                cast = r"\(\s*(?:struct\s+)?\w+\s*\*\s*\)\s*" + param + r"\b"
                if not (regex.search(r"\b" + alias + r"\s*=\s*" + cast, body)
                        or regex.search(r"^[ \t]*#[ \t]*define[ \t]+" + alias + r"[ \t]+\(\s*" + cast,
                                        directives, regex.M)):
                    continue
            for info in served:
                target = info.struct_pointers.get(m.group("f"))
                if target is not None and target[0] in p.types and not target[1]:
                    info.object_fields.add(m.group("f"))


def _same_member(base, other, name):
    """The member of ``other`` at the place of ``base``'s member ``name``
    when ``other`` starts with the same member types as ``base`` up to it
    (C's common initial sequence), else None."""
    mine, theirs = list(base.fields.items()), list(other.fields.items())
    for i, (member, type_) in enumerate(mine):
        if i >= len(theirs) or theirs[i][1] != type_:
            return None
        if member == name:
            return theirs[i][0]
    return None


def _collect_tables(p, path, code, text):
    inlined, n = inline_type_slot_macros(text)
    inlined, m = inline_table_element_macros(inlined)
    if n or m:  # the slots or entries a macro gives are the type's or table's own
        text, code = inlined, source.structure_mask(inlined)
    for m in _DEF_PATTERNS["methods"].finditer(code):
        for f, _ in table_elements(code, text, m, METHOD_FIELDS):
            if "ml_meth" not in f or is_null_function(f["ml_meth"].text):
                continue
            func = cstruct.strip_cast(f["ml_meth"].text)
            flags = f["ml_flags"].text if "ml_flags" in f else ""
            role = method_role(flags)
            name = f["ml_name"].text if "ml_name" in f else '""'
            p.method_entries.append((path, m.group("name"), name, func, flags))
            if role is not None and regex.fullmatch(r"\w+", func):
                p.roles.setdefault(func, role)
    for m in _DEF_PATTERNS["getsets"].finditer(code):
        for f, _ in table_elements(code, text, m, GETSET_FIELDS):
            for key, role in (("get", GETTER), ("set", SETTER)):
                if key in f and f[key].text not in (None, "NULL", "0", "nullptr"):
                    p.roles.setdefault(cstruct.strip_cast(f[key].text), role)
    for m in _DEF_PATTERNS["members"].finditer(code):
        for it in table_items(code, text, m):
            if isinstance(it.value, list):
                f = cstruct.fields_of(it.value, MEMBER_FIELDS)
                if "name" in f and f["name"].text == '"__weaklistoffset__"' and "offset" in f:
                    _weaklist(p, f["offset"].text)
    for m in _DEF_PATTERNS["subtable"].finditer(code):
        order = SUBTABLES[m.group("kind")]
        for slot, it in cstruct.fields_of(table_items(code, text, m), order).items():
            _slot(p, slot, it.text)
    for m in _DEF_PATTERNS["type"].finditer(code):
        f = cstruct.fields_of(table_items(code, text, m), TYPE_FIELDS)
        struct = None
        if "tp_basicsize" in f and f["tp_basicsize"].text:
            s = regex.search(r"sizeof\s*\(\s*(?:struct\s+)?(\w+)\s*\)", f["tp_basicsize"].text)
            if s and s.group(1) in p.types:
                struct = p.types[s.group(1)].struct
                p.types[s.group(1)].type_vars.add(m.group("name"))
        p.type_objects[m.group("name")] = struct
        p.defined_type_objects.add(m.group("name"))
        if "tp_traverse" in f and f["tp_traverse"].text:
            p.type_traverse[m.group("name")] = cstruct.strip_cast(f["tp_traverse"].text)
        if "tp_dealloc" in f and f["tp_dealloc"].text:
            p.type_dealloc[m.group("name")] = cstruct.strip_cast(f["tp_dealloc"].text)
        for key in ("tp_methods", "tp_members", "tp_getset"):
            if key in f and f[key].text:
                p.type_tables.add(cstruct.strip_cast(f[key].text))
        if "tp_base" in f and f["tp_base"].text:
            base = regex.match(r"&\s*(\w+)$", cstruct.strip_cast(f["tp_base"].text))
            if base:
                p.type_bases[m.group("name")] = base.group(1)
        if "tp_new" in f and f["tp_new"].text not in (None,) + NULLS:
            p.types_with_new.add(m.group("name"))
        if "tp_weaklistoffset" in f:
            _weaklist(p, f["tp_weaklistoffset"].text)
        for slot, it in f.items():
            if slot.startswith("tp_") and it.text:
                _slot(p, slot, it.text)
    for m in _DEF_PATTERNS["slots"].finditer(code):
        for it in table_items(code, text, m):
            if isinstance(it.value, list):
                f = cstruct.fields_of(it.value, SLOT_FIELDS)
                if "slot" in f and "pfunc" in f and f["slot"].text:
                    slot = f["slot"].text.replace("Py_", "", 1)
                    if slot in ("tp_methods", "tp_members", "tp_getset"):
                        p.type_tables.add(cstruct.strip_cast(f["pfunc"].text))
                    else:
                        _slot(p, slot, f["pfunc"].text)
    for m in _DEF_PATTERNS["spec"].finditer(code):
        f = cstruct.fields_of(table_items(code, text, m), SPEC_FIELDS)
        if "basicsize" in f and f["basicsize"].text:
            s = regex.search(r"sizeof\s*\(\s*(?:struct\s+)?(\w+)\s*\)", f["basicsize"].text)
            if s and s.group(1) in p.types:
                p.types[s.group(1)].type_vars.add(m.group("name"))
    for m in _DEF_PATTERNS["module_slots"].finditer(code):
        p.module_slot_arrays.add(m.group("name"))
        for it in table_items(code, text, m):
            if isinstance(it.value, list):
                f = cstruct.fields_of(it.value, SLOT_FIELDS)
                role = MODULE_SLOT_ROLES.get(f["slot"].text.strip()) if "slot" in f and f["slot"].text else None
                if role and "pfunc" in f and f["pfunc"].text:
                    p.roles.setdefault(cstruct.strip_cast(f["pfunc"].text), role)
    for m in _DEF_PATTERNS["module"].finditer(code):
        f = cstruct.fields_of(table_items(code, text, m), MODULE_FIELDS)
        # a multi-phase module's functions are listed with its slots
        # (rules/modules.py: MultiPhaseInit), when both are in this file
        if all(k in f and f[k].text not in (None,) + NULLS for k in ("m_methods", "m_slots")):
            methods = cstruct.strip_cast(f["m_methods"].text)
            if any(t.group("name") == methods for t in _DEF_PATTERNS["methods"].finditer(code)):
                p.phased_method_tables.add(methods)
        for hook in ("m_traverse", "m_clear", "m_free"):
            if hook in f and f[hook].text not in (None, "NULL", "0", "nullptr"):
                p.roles.setdefault(cstruct.strip_cast(f[hook].text), MODULE_HOOK)
        if "m_size" in f and f["m_size"].text:
            s = regex.search(r"sizeof\s*\(\s*(?:struct\s+)?(\w+)\s*\)", f["m_size"].text)
            if s:
                p.module_state_structs.add(s.group(1))
    # Already translated definitions keep their roles, so that translating
    # translated code changes nothing.
    for m in regex.finditer(r"\bCYSTCK_DEF_METH(?:_FLAGS)?\s*\(\s*\w+\s*,[^,]*,\s*(?P<f>\w+)\s*,\s*(?P<c>CYSTCK_\w+)",
                            code):
        conv = api.conventions().get(m.group("c"))
        if conv:
            p.roles.setdefault(m.group("f"), method_role(conv.stock))
    for m in regex.finditer(r"\bCYSTCK_DEF_SLOT\s*\(\s*\w+\s*,\s*(?P<s>\w+)\s*,\s*(?P<f>\w+)\s*\)", code):
        _slot(p, m.group("s"), m.group("f"))
    for m in regex.finditer(r"\bCYSTCK_DEF_DESTROY\s*\(\s*\w+\s*,\s*(?P<f>\w+)\s*\)", code):
        _slot(p, "tp_dealloc", m.group("f"))
    for m in regex.finditer(r"\bCYSTCK_DEF_DEALLOC(?:_API)?\s*\(\s*\w+\s*,\s*(?P<r>\w+)\s*(?:,\s*(?P<f>\w+)\s*)?\)",
                            code):
        p.roles.setdefault(m.group("r"), FINALIZER)     # the part using the API
        if m.group("f"):
            _slot(p, "tp_dealloc", m.group("f"))
    for m in regex.finditer(r"\bCYSTCK_DEF_MOD_TRAVERSE\s*\(\s*\w+\s*,\s*(?P<f>\w+)\s*\)", code):
        p.roles.setdefault(m.group("f"), MODULE_TRAVERSE)
    for m in regex.finditer(r"\bCYSTCK_DEF_GET(?:SET)?\s*\(\s*\w+\s*,[^,]*,\s*(?P<g>\w+)\s*,(?:\s*(?P<s>\w+)\s*,)?", code):
        p.roles.setdefault(m.group("g"), GETTER)
        if m.group("s") and "GETSET" in m.group():
            p.roles.setdefault(m.group("s"), SETTER)
    for m in regex.finditer(r"\(\s*(?:struct\s+)?(\w+)\s*\*\s*\)\s*PyModule_GetState\b", code):
        p.module_state_structs.add(m.group(1))
    for m in INIT_FUNCTION.finditer(code):
        p.roles["PyInit_" + m.group("n")] = MODINIT
    named = init_name_macros(p)
    for m in regex.finditer(r"\bPyMODINIT_FUNC\s+(\w+)\s*\(", code):
        if m.group(1) in named:
            p.roles[m.group(1)] = MODINIT


_TYPE_FIELD_STORE = regex.compile(r"\b(?P<t>\w+)\s*\.\s*(?P<f>tp_new|tp_base)\s*=\s*(?P<v>[^;]+);")


#: ``FooType.tp_base = &BarType;`` (a statement of its own).
BASE_STORE = regex.compile(r"^[ \t]*(?P<t>\w+)\s*\.\s*tp_base\s*=\s*(?P<v>[^;]+);[ \t]*\n?", regex.M)


def _ready_follows(code, t, pos):
    """Is the type object ``t`` made ready (``PyType_Ready(&t)``) after ``pos``?"""
    return regex.compile(r"\bPyType_Ready\s*\(\s*(?:\(\s*PyTypeObject\s*\*\s*\)\s*)?&\s*" + regex.escape(t)
                         + r"\s*\)").search(code, pos) is not None


def stored_base(code, text, m, type_objects):
    """The base a ``BASE_STORE`` match gives a type before its
    ``PyType_Ready``: another type object of the project, ``""`` for
    ``object`` (every type's default base), None for a store that is not
    that (a type not the project's, another base, or after the type is
    ready)."""
    t = m.group("t")
    if t not in type_objects or not _ready_follows(code, t, m.end()):
        return None
    base = regex.fullmatch(r"&\s*(\w+)", cstruct.strip_cast(text[m.start("v"):m.end("v")].strip()))
    if base is None:
        return None
    if base.group(1) == "PyBaseObject_Type":
        return ""
    return base.group(1) if base.group(1) in type_objects else None


def _collect_base_stores(p, masks):
    """``FooType.tp_base = &BarType;`` before ``PyType_Ready(&FooType)``
    (the portable spelling of a base across DLLs) is the type's base, as
    in its initialiser."""
    for path, code in masks.items():
        if code is None:
            continue
        for m in BASE_STORE.finditer(code):
            base = stored_base(code, p.files[path], m, p.type_objects)
            if base:
                p.type_bases[m.group("t")] = base


#: ``FooType.tp_methods = Foo_methods;`` (a statement of its own).
SLOT_STORE = regex.compile(r"^[ \t]*(?P<t>\w+)\s*\.\s*(?P<f>tp_\w+)\s*=(?!=)\s*(?P<v>[^;]+);[ \t]*\n?", regex.M)
#: The tables a type lists in its spec's defines.
_TABLE_SLOTS = ("tp_methods", "tp_members", "tp_getset")
#: Functions a type from a spec inherits or gets from the runtime anyway.
DEFAULT_SLOT_FUNCTIONS = ("PyType_GenericNew", "PyType_GenericAlloc", "PyObject_Del", "PyObject_GC_Del",
                          "PyObject_Free", "PyObject_GenericGetAttr", "PyObject_GenericSetAttr")


def folded_slot_store(p, code, text, m):
    """The (slot, value) a ``SLOT_STORE`` match gives the spec of a type
    the project defines, stored before its ``PyType_Ready`` (a static type
    filled in the init function): a method/member/getset table, a slot
    function, or a base that is not the project's (``tp_base``, kept
    stock); None for a store that stays (another field, after the type is
    ready, a base ``stored_base`` handles)."""
    t, slot = m.group("t"), m.group("f")
    if t not in p.defined_type_objects or not _ready_follows(code, t, m.end()):
        return None
    value = cstruct.strip_cast(text[m.start("v"):m.end("v")].strip())
    if slot in SUBTABLE_SLOTS and regex.fullmatch(r"&\s*\w+", value) \
            and value.lstrip("& \t") in _stored_subtables(p, code):
        return slot, value          # a table filled in code (folded_subtable_store)
    if not regex.fullmatch(r"[A-Za-z_]\w*", value) and slot != "tp_base":
        return None
    if slot in _TABLE_SLOTS or (slot != "tp_base" and (slot_role(slot) or value in DEFAULT_SLOT_FUNCTIONS)):
        return slot, value
    if slot == "tp_base" and stored_base(code, text, m, p.type_objects) is None \
            and not regex.fullmatch(r"&\s*\w+", value):
        return slot, text[m.start("v"):m.end("v")].strip()
    return None


#: A type's number/sequence/mapping table and the declaration of one
#: without an initialiser (filled in code)
SUBTABLE_SLOTS = {"tp_as_number": "PyNumberMethods", "tp_as_sequence": "PySequenceMethods",
                  "tp_as_mapping": "PyMappingMethods"}
_BLANK_SUBTABLE = regex.compile(r"\b(?:" + "|".join(SUBTABLE_SLOTS.values()) + r")\s+(?P<name>\w+)\s*;")
#: ``table.sq_length = f;`` (a statement of its own)
SUBTABLE_STORE = regex.compile(r"^[ \t]*(?P<t>\w+)\s*\.\s*(?P<f>(?:nb|sq|mp)_\w+)\s*=(?!=)\s*(?P<v>[^;]+);[ \t]*\n?",
                               regex.M)


def _stored_subtables(p, code):
    """The number/sequence/mapping tables that the project declares
    without an initialiser (``static PySequenceMethods seq;``) and that
    ``code`` fills with functions (``seq.sq_length = f;``) before a
    ``PyType_Ready``: {table: {slot: function}}."""
    declared = {m.group("name") for text in p.files.values() for m in _BLANK_SUBTABLE.finditer(text)}
    found = {}
    for m in SUBTABLE_STORE.finditer(code):
        value = cstruct.strip_cast(m.group("v").strip())
        if m.group("t") in declared and regex.fullmatch(r"[A-Za-z_]\w*", value) \
                and regex.search(r"\bPyType_Ready\s*\(", code[m.end():]):
            found.setdefault(m.group("t"), {})[m.group("f")] = value
    return found


def folded_subtable_store(p, m):
    """Is the ``SUBTABLE_STORE`` match a slot of a table a type's spec
    takes (_collect_slot_stores)?"""
    value = cstruct.strip_cast(m.group("v").strip())
    return p.subtable_stores.get(m.group("t"), {}).get(m.group("f")) == value


#: A module's init function, defined or declared: ``PyMODINIT_FUNC
#: PyInit_spam(void)``, or with the plain return type ``PyObject *`` at the
#: start of a line (CPython finds the function by its name; older Python 3
#: templates spell it so).  ``proto``: a prototype.  Not a call, a cast of
#: another init's result or a ``static`` function named like one.  Whole
#: preprocessor lines may stand between ``PyMODINIT_FUNC`` and the name
#: (``PyMODINIT_FUNC`` / ``#if PY_MAJOR_VERSION >= 3`` / ``PyInit_spam(void)
#: {`` / ``#else`` / ``initspam(void) {`` / ``#endif``, in a mask where the
#: Python 2 branch is blank); ``i``: where the name starts.
INIT_FUNCTION = regex.compile(r"(?m)(?:(?<!^[ \t]*#[^\n]*)\bPyMODINIT_FUNC(?:\s*\n[ \t]*#(?:[^\n\\]|\\.|\\\n)*)*\s+"
                              r"|(?<=^[ \t]*)PyObject\s*\*\s*)(?P<i>PyInit_)(?P<n>\w+)"
                              r"\s*\(\s*(?:void)?\s*\)(?P<proto>\s*;)?")


#: ``#define init_function PyInit_spam``: a macro naming the module's init
#: function (one of the branches of a Python 2/3 switch, say)
_INIT_NAME_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<macro>\w+)[ \t]+PyInit_(?P<n>\w+)[ \t]*$", regex.M)


def init_name_macros(p):
    """{macro: module name} of the object-like macros of the project that
    name an init function, ``#define init_function PyInit_spam``."""
    if p.init_macros is None:
        p.init_macros = {m.group("macro"): m.group("n") for text in p.files.values() if "PyInit_" in text
                         for m in _INIT_NAME_MACRO.finditer(source.mask(text))}
    return p.init_macros


#: ``#define HEAD PyVarObject_HEAD_INIT(NULL, 0)``: a macro standing for a
#: type object's head (whose comma it hides)
_HEAD_INIT_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<macro>\w+)[ \t]+Py(?:Var)?Object_HEAD_INIT\b", regex.M)


def head_init_macros(p):
    """The object-like macros of the project that stand for a type
    object's head, ``#define HEAD PyVarObject_HEAD_INIT(NULL, 0)``: the
    first element of a type object written with one is ``HEAD "m.Box"``."""
    return _project_macros(p, "head_macros", "_HEAD_INIT", _HEAD_INIT_MACRO)


def _project_macros(p, attr, hint, pattern):
    """The macros (group ``macro``) that ``pattern`` finds in the masked
    files of the project holding ``hint``: found once, kept in ``p.<attr>``."""
    if getattr(p, attr) is None:
        setattr(p, attr, {m.group("macro") for text in p.files.values() if hint in text
                          for m in pattern.finditer(source.mask(text))})
    return getattr(p, attr)


#: ``#define UNUSED(x) (void)(x)``: a function-like macro of one parameter
#: whose expansion only discards its argument (to silence a warning)
_DISCARD_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<macro>\w+)\([ \t]*(?P<p>\w+)[ \t]*\)[ \t]*"
                               r"(?P<o>\()?[ \t]*\([ \t]*void[ \t]*\)[ \t]*(?:\([ \t]*(?P=p)[ \t]*\)|(?P=p))"
                               r"[ \t]*(?(o)\))[ \t]*$", regex.M)


def discard_macros(p):
    """The function-like macros of the project that only discard their one
    argument, ``#define UNUSED(x) (void)(x)`` or ``((void)(x))``."""
    return _project_macros(p, "discard_macros", "void", _DISCARD_MACRO)


def _collect_slot_stores(p, masks):
    """A static type whose slots are stored in the init function before
    its ``PyType_Ready`` (``FooType.tp_methods = Foo_methods;``) has them
    as if its initialiser listed them; a stock base stored so
    (``FooType.tp_base = SomeAPI->Type;``) is its spec's base, through
    the escape hatch."""
    for path, code in masks.items():
        if code is None:
            continue
        for m in SLOT_STORE.finditer(code):
            folded = folded_slot_store(p, code, p.files[path], m)
            if folded is None:
                continue
            t, (slot, value) = m.group("t"), folded
            if slot == "tp_base":
                p.stock_type_bases[t] = value
                continue
            p.type_slot_stores.setdefault(t, {})[slot] = value
            if slot in _TABLE_SLOTS:
                p.type_tables.add(value)
            elif slot in SUBTABLE_SLOTS:
                # a table filled in code: its functions are the type's slots
                table = value.lstrip("& \t")
                for f, func in _stored_subtables(p, code).get(table, {}).items():
                    p.subtable_stores.setdefault(table, {})[f] = func
                    _slot(p, f, func)
            else:
                _slot(p, slot, value)


def _collect_sealed_types(p, masks):
    """Static type objects that Python code cannot instantiate: those whose
    ``tp_new`` is set to NULL in code (after ``PyType_Ready``: the idiom
    for a type only its module creates), and those with no ``tp_new`` at
    all whose base is ``object``, which ``PyType_Ready`` makes
    non-instantiable (a type from a spec would inherit ``object``'s)."""
    stores = {}
    for path, code in masks.items():
        if code is None:
            continue
        text = p.files[path]
        for m in _TYPE_FIELD_STORE.finditer(code):
            if m.group("t") in p.type_objects:
                value = cstruct.strip_cast(text[m.start("v"):m.end("v")].strip())
                stores.setdefault(m.group("t"), []).append((m.group("f"), value))
    for t in p.type_objects:
        news = [v for f, v in stores.get(t, ()) if f == "tp_new"]
        bases = [v for f, v in stores.get(t, ()) if f == "tp_base"] + \
            ([p.type_bases[t]] if t in p.type_bases else [])
        if any(v in NULLS for v in news):
            p.sealed_types.add(t)
        elif not news and t not in p.types_with_new and \
                all(regex.fullmatch(r"&?\s*PyBaseObject_Type", b) for b in bases):
            p.sealed_types.add(t)


def _slot(p, slot, value):
    if not value:
        return
    func = cstruct.strip_cast(value)
    if not regex.fullmatch(r"[A-Za-z_]\w*", func) or func in ("NULL", "0", "nullptr"):
        return
    role = slot_role(slot)
    if role is not None:
        p.roles.setdefault(func, role)


# = {NULL}, = {0, 0}: an array of references starts empty as well
NULL_ARRAY_INIT = regex.compile(r"\]\s*=\s*\{[\s,]*(?:(?:NULL|0|nullptr)[\s,]*)*\}\s*;?\s*$")


def _collect_globals(p, code, text):
    for start, end in source.top_level_items(code):
        item = code[start:end]
        if "(" in item.split("=")[0] and not regex.search(r"=\s*", item):
            continue
        # objects held through a pointer to a custom type's struct (a
        # cached instance, `static Foo *EMPTY;`) are objects too
        structs = "".join("|" + regex.escape(t) for t in sorted(p.types))
        m = regex.match(r"\s*(?:(?:static|extern)\s+)*(?:const\s+)?(?:struct\s+)?(?P<base>" + OBJECT_TYPES + structs
                        + r")\s*\*", item)
        if not m or ("{" in item and not NULL_ARRAY_INIT.search(item)):
            continue
        parsed = cstruct.split_declaration(code, start, end - 1)
        if parsed is None:
            continue
        for d in parsed[1]:
            if d.pointer == "*" and not d.array and "(" not in code[d.span[0]:d.span[1]].split("=")[0]:
                p.globals.add(d.name)
            elif _is_object_array(m.group("base"), d) and "(" not in code[d.span[0]:d.span[1]]:
                p.ref_arrays.add(d.name)        # static PyObject *cache[N]: an array of references
    for m in regex.finditer(r"\bPyTypeObject\s+(\w+)\s*;", code):
        p.type_objects.setdefault(m.group(1), None)
    # C++ type objects kept as static members: PyTypeObject* Foo::TypeObject = ...;
    # (Cystck_Ref once translated, so that translating again sees them)
    for m in regex.finditer(r"^[ \t]*(?:PyTypeObject\s*\*|Cystck_Ref\s+)\s*(\w+)::(\w+)\s*=", code, regex.M):
        p.class_type_objects.setdefault(m.group(2), set()).add(m.group(1))
    # module-state structs hold references that outlive the call
    for struct in p.module_state_structs:
        for m in regex.finditer(r"(?:typedef\s+)?\bstruct\s*(?:\w+)?\s*\{", code):
            close = source.matching(code, m.end() - 1)
            after = regex.match(r"\s*(\w+)?\s*;", code[close:])
            tag = regex.match(r"(?:typedef\s+)?struct\s*(\w+)", code[m.start():m.end()])
            names = {after.group(1) if after else None, tag.group(1) if tag else None}
            if struct in names:
                p.ref_structs.update(names - {None})
                for base, d, _ in cstruct.struct_members(code, m.end() - 1, close):
                    if _handle_type(base, d.pointer, ()):
                        p.ref_fields.add(d.name)
                        p.handle_fields.discard(d.name)


#: ``PyCapsule_New(&table, ...)`` (``CystckCapsule_New(S, ...)`` once
#: translated), the pointer maybe cast to ``void *``: a C API exported to
#: other extensions, which read the table as stock code (rules/escape.py,
#: capsule-table-entries).
CAPSULE_TABLE = regex.compile(r"\b(?:Cystck|Py)Capsule_New\s*\(\s*(?:S\s*,\s*)?(?:\(\s*(?:const\s+)?void\s*\*\s*\)\s*)?"
                              r"(?:&\s*)?(?P<var>[A-Za-z_]\w*)\s*,")
# A name set to a table's address, ``static ExtAPI *exported = &capi;`` or
# ``void *p = (void *)&capi;`` (a local of the function making the capsule).
_TABLE_ALIAS = r"(?<![\w.>]|->)\b{var}\s*=\s*(?:\(\s*(?:const\s+)?[\w\s]*\*\s*\)\s*)?&?\s*(?P<t>[A-Za-z_]\w*)\s*[;,]"


def capsule_tables(code):
    """{table: [the CAPSULE_TABLE matches exporting it]} of masked ``code``:
    the variable named in ``PyCapsule_New``'s first argument, or the table
    a pointer named there was set to (the last assignment before the call,
    a global's initialiser or a local's in the same function)."""
    tables = {}
    for m in CAPSULE_TABLE.finditer(code):
        var = m.group("var")
        if not regex.search(rf"\b{var}\s*(?:\[[^\]]*\]\s*)?=\s*\{{", code):
            alias = None
            for alias in regex.finditer(_TABLE_ALIAS.format(var=var), code, endpos=m.start()):
                pass
            if alias is not None and alias.group("t") != var:
                var = alias.group("t")
        tables.setdefault(var, []).append(m)
    return tables


_GLOBAL_OF_STRUCT = regex.compile(r"\s*(?:(?:static|extern)\s+)*(?:const\s+)?(?:struct\s+)?(?P<t>\w+)\s*\**\s*(?P<v>\w+)\s*"
                               r"(?:\[[^\]]*\]\s*)*[=;,]")
# static struct { PyObject *cb; } H; (no typedef: a struct with its variable)
_STRUCT_WITH_GLOBAL = regex.compile(r"^[ \t]*(?:(?:static|extern)\s+)*(?:struct|union)\s*(?P<tag>\w*)\s*\{", regex.M)


def _as_references(p, struct, inner, seen):
    """Make the object members of plain struct ``struct`` (and of the
    structs it holds by value, ``inner``) references; returns the names
    of the structs made so."""
    if struct in p.types:
        return seen         # an instance struct: its own fields
    seen.add(struct)
    p.ref_structs.update(p.struct_names.get(struct, ()))
    for name in p.member_handles.get(struct, ()):
        p.ref_fields.add(name)
        p.handle_fields.discard(name)
    for name in p.member_handle_arrays.get(struct, ()):
        p.ref_array_fields.add(name)
        p.handle_array_fields.discard(name)
    for held in inner.get(struct, set()) - seen:
        _as_references(p, held, inner, seen)
    return seen


def _collect_global_structs(p, masks):
    """A plain struct holding objects that a global holds (``static holder
    H;``, an array of them, a pointer to one, ``static struct { PyObject
    *cb; } H;``, or a struct holding one by value) outlives the call: its
    object members are references, as a module state's are (the
    global-refs rule stores and reads them)."""
    inner = _structs_held_by_value(masks)
    tables = set()
    for code in masks:
        for table, calls in capsule_tables(code).items():
            tables.update([table], (m.group("var") for m in calls))

    def as_references(struct, seen):
        _as_references(p, struct, inner, seen)
    for code in masks:
        for start, end in source.top_level_items(code):
            m = _GLOBAL_OF_STRUCT.match(code, start, end)
            if m and "(" not in code[start:m.end()] and m.group("v") in tables:
                # a C API table other extensions read: its struct stays stock
                p.capsule_structs.update(p.struct_names.get(m.group("t"), {m.group("t")}))
            elif m and "(" not in code[start:m.end()]:
                as_references(m.group("t"), set())
                if m.group("t") in p.struct_names:
                    p.struct_globals[m.group("v")] = m.group("t")
        for m in _STRUCT_WITH_GLOBAL.finditer(code):
            close = source.matching(code, m.end() - 1)
            if regex.match(r"\s*\**\s*\w+", code[close:]):
                p.ref_structs.update(p.struct_names.get(m.group("tag"), ()))
                if m.group("tag") in p.struct_names:
                    p.struct_globals[regex.match(r"\s*\**\s*(\w+)", code[close:]).group(1)] = m.group("tag")
                for base, d, _ in cstruct.struct_members(code, m.end() - 1, close):
                    if _handle_type(base, d.pointer, ()) and not d.array:
                        p.ref_fields.add(d.name)
                        p.handle_fields.discard(d.name)
                    elif _is_object_array(base, d):
                        p.ref_array_fields.add(d.name)
                        p.handle_array_fields.discard(d.name)
                    elif not d.pointer:
                        as_references(regex.sub(r"\b(?:const|struct|union|volatile)\b", "", base).strip(), set())


# An allocation whose size names a struct: malloc(sizeof(T)), PyMem_Calloc(n,
# sizeof(struct T)), PyMem_Realloc(p, n * sizeof(T)), sizeof(*p) or
# sizeof p[0] of a pointer p to T; PyMem_New(T, n); PyMem_Resize(p, T, n).
_ALLOCATORS = (r"(?:PyMem_(?:Raw)?(?:Malloc|Calloc|Realloc)|PyObject_(?:Malloc|Calloc|Realloc)"
               r"|malloc|calloc|realloc)")
_ALLOC_CALL = regex.compile(r"\b" + _ALLOCATORS + r"\s*(?P<args>" + source.paren("a") + ")")
_ALLOC_NEW = regex.compile(r"\bPyMem_(?:New|NEW)\s*\(\s*(?:struct\s+)?(?P<t>\w+)\s*,")
_ALLOC_RESIZE = regex.compile(r"\bPyMem_(?:Resize|RESIZE)\s*\(\s*(?P<p>[^,()]+?)\s*,\s*(?:struct\s+)?(?P<t>\w+)\s*,")
_SIZEOF_TYPE = regex.compile(r"\bsizeof\s*\(\s*(?:const\s+)?(?:struct\s+)?(?P<t>\w+)\s*\)")
_SIZEOF_TARGET = regex.compile(r"\bsizeof\s*\(?\s*(?:\*\s*(?P<a>[\w.>-]+)|(?P<b>[\w.>-]+)\s*\[[^\]]*\])")
# the target of a store ``lhs = (T *)`` right before an allocation
_ALLOC_TARGET = regex.compile(r"(?P<lhs>(?<![\w.>])[A-Za-z_][\w.>\[\]\s-]*?)\s*=\s*(?:\(\s*[\w\s]+\*+\s*\)\s*)?$")
_FREES = r"\b(?:PyMem_(?:Raw)?Free|PyMem_(?:Del|DEL|FREE)|PyObject_Free|free)\s*\(\s*(?:\(\s*void\s*\*\s*\)\s*)?"


def _pointer_struct(code, name, before, structs):
    """The plain struct ``name`` (a variable or a member) points to, from
    the last declaration ``T *name`` before position ``before``, or None."""
    found = None
    for m in regex.finditer(r"\b(?:struct\s+)?(?P<t>\w+)\s*\*+\s*(?:const\s+)?" + regex.escape(name) + r"\b",
                            code, endpos=before):
        if m.group("t") in structs:
            found = m.group("t")
    return found


def _collect_heap_structs(p, masks):
    """A plain struct in memory the extension allocates (``PyMem_Malloc(
    sizeof(T))``, ``calloc``, ``realloc``, ``PyMem_New(T, n)``,
    ``PyMem_Resize(p, T, n)``: a list node, a hash table's entries, an
    array of such structs) whose block outlives the call that allocates it
    (stored into a member or a global, returned, or a local that function
    never frees) keeps its objects beyond the call: its object members are
    references, as those of a struct a global holds (the global-refs rule
    stores, reads and releases them).  A block freed in the call that
    allocates it (a parser state) lives for the call: its handles stay."""
    structs = set(p.struct_names) - set(p.types)
    if not structs or not any(p.member_handles.get(t) or p.member_handle_arrays.get(t) for t in structs):
        return
    inner = _structs_held_by_value(masks)
    wrappers = _allocator_wrappers(masks)
    call = regex.compile(r"\b" + _ALLOCATORS[:-1] + "".join("|" + regex.escape(w) for w in sorted(wrappers))
                         + r")\s*(?P<args>" + source.paren("a") + ")") if wrappers else _ALLOC_CALL
    for code in masks:
        for start, end in source.top_level_items(code):
            body = code.find("{", start, end)
            if body < 0 or not regex.search(r"\)\s*$", code[start:body]):
                continue          # a function definition's body only
            for struct, target in _allocations(code, body, end, structs, call):
                if not _freed_in_call(code, body, end, target):
                    seen = _as_references(p, struct, inner, set())
                    p.heap_structs.update(n for t in seen for n in p.struct_names.get(t, ()))
    for t in p.heap_structs:
        p.heap_ref_fields.update(p.member_handles.get(t, ()))


# void *memory_alloc(Py_ssize_t size) { ... return PyMem_Malloc(size); }
_VOID_POINTER_FUNCTION = regex.compile(r"(?:^|(?<=[;}]))\s*(?:(?:static|inline|extern)\s+)*void\s*\*\s*(?P<f>\w+)\s*\(")


def _allocator_wrappers(masks):
    """The extension's functions returning ``void *`` whose body calls an
    allocator (``void *memory_alloc(Py_ssize_t size) { return
    PyMem_Malloc(size); }``): their calls allocate too."""
    found = set()
    for code in masks:
        for start, end in source.top_level_items(code):
            m = _VOID_POINTER_FUNCTION.match(code, start, end)
            body = code.find("{", start, end)
            if m and body > 0 and _ALLOC_CALL.search(code, body, end):
                found.add(m.group("f"))
    return found


def _allocations(code, b0, b1, structs, call=_ALLOC_CALL):
    """(struct, target) for each allocation in code[b0:b1] whose size names
    a plain struct of ``structs``; ``target`` is what the block is stored
    into (``n``, ``self->items``), or None where it is not stored."""
    for m in _ALLOC_NEW.finditer(code, b0, b1):
        if m.group("t") in structs:
            yield m.group("t"), _store_target(code, b0, m.start())
    for m in _ALLOC_RESIZE.finditer(code, b0, b1):
        if m.group("t") in structs:
            yield m.group("t"), m.group("p").strip()
    for m in call.finditer(code, b0, b1):
        args = m.group("args")
        # every struct the size names: a header and the entries after it,
        # sizeof(keys_t) + n * sizeof(entry_t), are one block
        named = {s.group("t") for s in _SIZEOF_TYPE.finditer(args)} & structs
        for s in _SIZEOF_TARGET.finditer(args):
            name = regex.split(r"->|\.", s.group("a") or s.group("b"))[-1].strip()
            named.add(_pointer_struct(code, name, m.start(), structs))
        target = _store_target(code, b0, m.start())
        for struct in sorted(named - {None}):
            yield struct, target


def _store_target(code, b0, at):
    line = code[max(b0, at - 200):at]
    line = regex.split(r"[;{}]", line)[-1]
    m = _ALLOC_TARGET.search(line)
    return regex.sub(r"\s+", "", m.group("lhs")) if m else None


def _freed_in_call(code, b0, b1, target):
    """Is the block stored into local ``target`` freed in the same function
    body (and neither returned nor stored elsewhere)?  A member or an
    element as the target, or no target, outlives the call."""
    if target is None or not regex.fullmatch(r"[A-Za-z_]\w*", target):
        return False
    name = regex.escape(target)
    body = code[b0:b1]
    if not regex.search(_FREES + name + r"\s*\)", body):
        return False
    return not regex.search(rf"\breturn\s+(?:\(\s*\w+\s*\*\s*\)\s*)?{name}\s*;"
                            rf"|(?:->|\.|\])\s*\w*\s*(?:\[[^\]]*\]\s*)*=\s*(?:\(\s*\w+\s*\*\s*\)\s*)?{name}\s*;"
                            rf"|(?:->\s*\w+|\.\s*\w+|\])\s*=\s*{name}\s*;", body)


def _structs_held_by_value(masks):
    """struct name -> the names of the structs it holds by value."""
    held = {}
    for code in masks:
        for m in regex.finditer(r"(?P<td>typedef\s+)?\b(?:struct|union)\s*(?P<tag>\w+)?\s*\{", code):
            close = source.matching(code, m.end() - 1)
            after = regex.match(r"\s*(?P<name>\w+)?\s*;", code[close:])
            names = {m.group("tag"), after.group("name") if m.group("td") and after else None} - {None}
            bases = {regex.sub(r"\b(?:const|struct|union|volatile)\b", "", base).strip()
                     for base, d, _ in cstruct.struct_members(code, m.end() - 1, close) if not d.pointer}
            for name in names:
                held.setdefault(name, set()).update(bases)
    return held


# (also of a function type, ``typedef R (Name)(...);``, used as ``Name *f``)
_FNPTR_TYPEDEF = regex.compile(
    r"\btypedef\s+(?P<ret>[\w\s\*]+?)\s*\(\s*\*?\s*(?P<name>\w+)\s*\)\s*" + source.paren("params") + r"\s*;")
#: A declaration of a name with a function-pointer type of ``alt`` (a regex
#: alternation of typedefs): ``visit_fn f``, or ``Name *f`` of a function type.
def fnptr_declaration(alt):
    return rf"\b(?:{alt})\s*(?:\*\s*)?(?<=[\s*])(?:const\s+)?(\w+)"


# CPython's function-pointer types over objects, by their object arguments:
# a struct member or parameter of such a type holds a function of the
# extension (``binaryfunc yield;``), which takes S once translated.
STOCK_FNPTR_TYPES = {"unaryfunc": 1, "binaryfunc": 2, "ternaryfunc": 3}


def _collect_typedefs(p, code):
    stock = "|".join(STOCK_FNPTR_TYPES)
    for m in regex.finditer(rf"\b(?:{stock})\s+(\w+)\s*;", code):
        p.state_fields.add(m.group(1))
    for m in _FNPTR_TYPEDEF.finditer(code):
        p.fnptr_typedefs.add(m.group("name"))
        sig = m.group("ret") + m.group("params")
        if regex.search(OBJECT_TYPES + r"\s*\*", sig) or any(
                regex.search(rf"\b{regex.escape(t)}\s*\*", sig) for t in p.types):
            p.state_typedefs.add(m.group("name"))
    _add_state_fields(p, code)


def _add_state_fields(p, code):
    """The members and globals declared with a type of ``state_typedefs``
    (``visit_fn fn;``): calls through them take S."""
    if p.state_typedefs:
        names = "|".join(map(regex.escape, sorted(p.state_typedefs)))
        for m in regex.finditer(fnptr_declaration(names) + r"\s*;", code):
            p.state_fields.add(m.group(1))


_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)(?P<args>\([^)]*\))?(?P<body>(?:[^\n\\]|\\.|\\\n)*)",
                       regex.M | regex.S)


def _collect_macros(p, masked):
    for m in _MACRO.finditer(masked):
        # a function-like macro using the API, or an alias of an API
        # function (#define INTERN PyUnicode_InternFromString)
        alias = regex.fullmatch(r"\s*_?Py\w+\s*", m.group("body"))
        if (m.group("args") or alias) and API_TOKEN.search(m.group("body")) and not m.group("name").startswith("Py"):
            p.api_macros.add(m.group("name"))


def _stolen_params(code, f, body):
    """(indexes of the parameters whose reference the body releases,
    ``Py_DECREF(value)``, with no ``Py_INCREF(value)`` of its own: the
    function steals them; the parameter count)."""
    pieces = source.split_top(code, *f.params) if code[f.params[0]:f.params[1]].strip() else []
    names = [regex.search(r"(\w+)\s*(?:\[[^\]]*\])?\s*$", code[a:b]) for a, b in pieces]
    stolen = frozenset(i for i, n in enumerate(names)
                       if n and regex.search(rf"\bPy_X?DECREF\s*\(\s*{n.group(1)}\s*\)", body)
                       and not regex.search(rf"\bPy_X?INCREF\s*\(\s*{n.group(1)}\s*\)", body))
    return stolen, len(pieces)


# Compiled once (the regex module's cache lookup per call is slow).
_QUALIFIED_SCOPE = regex.compile(r"(?:\b\w+(?:\s*<[^<>;{}]*>)?\s*::\s*)+$")
_STATIC = regex.compile(r"\bstatic\b")
_RETURNS_HANDLE_OR_OBJECT = regex.compile(rf"(?:{OBJECT_TYPES}|\bCystck_Object)\s*\*?\s*$")
_RETURNS_OBJECT = regex.compile(rf"\b{OBJECT_TYPES}\s*\*\s*$")
_HANDLE_PARAM = regex.compile(rf"\b(?:{OBJECT_TYPES}\s*\*|Cystck_Object\b)")
_TRANSLATED = regex.compile(r"\s*Cystck_State\b")


def _collect_functions(p, path, code, text):
    types = set(p.types)
    # the patterns that name the custom types, compiled once per call
    returns_custom = regex.compile(r"\b(?:" + "|".join(map(regex.escape, types)) + r")\s*\*\s*$") if types else None
    custom_param = [regex.compile(rf"\b{regex.escape(t)}\s*\*") for t in types]
    object_param = regex.compile(rf"\s*(?:const\s+)?(?:struct\s+)?(?:{OBJECT_TYPES}"
                                 + "".join("|" + regex.escape(t) for t in types) + r")\s*\*(?!\s*\*)")
    for f in source.find_functions(code):
        head = _QUALIFIED_SCOPE.sub("", code[f.start:f.name_start])
        params = code[f.params[0]:f.params[1]]
        # `static` on a member function means "of the class", not "of the file"
        static = bool(_STATIC.search(head)) and not f.member
        ret_handle = bool(_RETURNS_HANDLE_OR_OBJECT.search(head.strip() + " ")) \
            if "Cystck_Object" in head else bool(_RETURNS_OBJECT.search(head.strip()))
        if not ret_handle and types:
            ret_handle = bool(returns_custom.search(head.strip()))
        handle_params = bool(_HANDLE_PARAM.search(params)) or any(
            pattern.search(params) for pattern in custom_param)
        positions = frozenset(
            i for i, (s, e) in enumerate(source.split_top(code, *f.params))
            if object_param.match(code[s:e]))
        if STOCK_NAME.fullmatch(f.name) and f.name in api.stock_map() and not f.member:
            # The stock API itself, not the extension's: the definition
            # stays as it is and calls of the name are stock calls.
            p.roles.setdefault(f.name, STOCK_POLYFILL)
            continue
        key = (path, f.name)
        info = p.functions.get(key)
        body = code[f.body[0]:f.body[1]] if f.body else ""
        if info is None:
            info = FunctionInfo(f.name, path, static, ret_handle, handle_params, body, p.roles.get(f.name),
                                handle_positions=positions,
                                translated=bool(_TRANSLATED.match(params)))
            p.functions[key] = info
        else:
            info.static = info.static or static
            info.returns_handle |= ret_handle
            info.handle_params |= handle_params
            if body:
                info.body += body
        if body:
            info.params = params
        if body and not info.stolen:
            info.stolen, info.nparams = _stolen_params(code, f, body)
        if body and "namespace" in code:
            info.namespaces = namespaces_at(code, f.start)


_NAMESPACE = regex.compile(r"\bnamespace\s*(?P<n>\w*)\s*\{")


def namespaces_at(code, pos):
    """The C++ namespaces around ``pos`` in ``code``, outermost first
    ('' for an anonymous one)."""
    return tuple(m.group("n") for m in _NAMESPACE.finditer(code, 0, pos)
                 if pos < source.matching(code, m.end() - 1))


def definition(project, path, name):
    """The definition of function ``name`` that ``path`` calls: its own,
    else one with external linkage in another file; None if the project
    has neither."""
    own = project.functions.get((path, name))
    if own is not None and own.body:
        return own
    return next((info for (p, n), info in project.functions.items()
                 if n == name and p != path and info.body and not info.static), None)


def declared_elsewhere(project, path, name):
    """Is function ``name`` declared or defined without ``static`` in a
    file of the extension other than ``path`` (a header's prototype, which
    the files that call it include)?  Such a function keeps its external
    linkage where ``path`` registers it as a slot."""
    return any(n == name and q != path and not info.static for (q, n), info in project.functions.items())


#: calls whose last argument is a capsule destructor (stock or translated)
_DESTRUCTOR_CALL = regex.compile(r"\b(?:Py|Cystck)Capsule_(?:New|SetDestructor)\s*" + source.paren("a"))


def _collect_stock_callbacks(p, code):
    """Capsule destructors are called by CPython with the capsule as a
    ``PyObject *``: they keep the stock signature (``STOCK_CALLBACK``)."""
    for m in _DESTRUCTOR_CALL.finditer(code):
        inner = m.group("a")[1:-1]
        args = source.split_top(inner, 0, len(inner))
        if not args:
            continue
        last = cstruct.strip_cast(inner[args[-1][0]:args[-1][1]].strip())
        if regex.fullmatch(r"[A-Za-z_]\w*", last) and last not in ("NULL", "nullptr"):
            p.roles.setdefault(last, STOCK_CALLBACK)


#: ``PyStructSequence_InitType2(&FooType, &desc)``: a type CPython fills
_STRUCT_SEQUENCE_INIT = regex.compile(r"\bPyStructSequence_InitType2?\s*\(\s*&\s*(?P<t>\w+)\s*,")


def stock_struct_sequence_types(p, codes):
    """The type objects ``codes`` fill with
    ``PyStructSequence_InitType(2)`` that no file defines with an
    initialiser: they stay stock ``PyTypeObject``s (Cystck makes no struct
    sequence), reached through the escape hatch."""
    return {m.group("t") for code in codes for m in _STRUCT_SEQUENCE_INIT.finditer(code)} \
        - p.defined_type_objects


def _collect_stock_type_slots(p, codes):
    """``STOCK_TYPE_SLOT``: the functions stored into a slot of a
    struct-sequence type (``FooType.tp_richcompare = Foo_richcompare;``),
    which keep their stock signature and body."""
    stock = stock_struct_sequence_types(p, codes)
    if not stock:
        return
    for code in codes:
        for m in SLOT_STORE.finditer(code):
            value = cstruct.strip_cast(m.group("v").strip())
            if m.group("t") in stock and regex.fullmatch(r"[A-Za-z_]\w*", value) and not is_null_function(value):
                p.roles[value] = STOCK_TYPE_SLOT


#: a function stored in a struct member: ``x.m = f;``, ``x->m = (cast)&f;``
_MEMBER_STORE = regex.compile(r"(?:\.|->)\s*(?P<m>\w+)\s*=(?!=)\s*(?:\(\s*[\w\s*]+\)\s*)?&?\s*(?P<f>\w+)\s*;")
#: the API calls a native callback may make: the raw allocator needs
#: neither the GIL nor an interpreter
_RAW_ALLOCATOR = regex.compile(r"PyMem_Raw(?:Malloc|Calloc|Realloc|Free)")


def _collect_native_callbacks(p, codes):
    """``NATIVE_CALLBACK``: a function stored in a member that no file of
    the project declares (every use of the member's name follows ``.`` or
    ``->``: a struct of a library's header), whose definition takes no
    object and calls no API function but the raw allocator."""
    stored = {}
    for code in codes:
        for m in _MEMBER_STORE.finditer(code):
            stored.setdefault(m.group("f"), set()).add(m.group("m"))
    if not stored:
        return

    def foreign(member):
        return all(regex.search(r"(?:\.|->)\s*$", code[max(0, u.start() - 8):u.start()])
                   for code in codes for u in regex.finditer(rf"(?<!\w){regex.escape(member)}\b", code))
    for code in codes:
        for f in source.find_functions(code):
            if f.name not in stored or not f.is_definition or f.member or f.name in p.roles:
                continue
            params, body = code[f.params[0]:f.params[1]], code[f.body[0]:f.body[1]]
            calls = set(regex.findall(r"(?<![\w.>])(\w+)\s*\(", body))
            api = {c for c in calls if c.startswith(("Py", "_Py"))}
            if any(n in calls for _, n in p.functions):
                continue          # it calls the extension's own functions
            if regex.search(OBJECT_TYPES, params) or any(regex.search(rf"\b{regex.escape(t)}\b", params)
                                                       for t in p.types) \
                    or any(not _RAW_ALLOCATOR.fullmatch(c) for c in api) or not api:
                continue
            if all(foreign(m) for m in stored[f.name]):
                p.roles[f.name] = NATIVE_CALLBACK
                for info in p.functions.values():
                    if info.name == f.name:
                        info.role = NATIVE_CALLBACK


def _keep_called_clears(p):
    """A ``tp_clear`` function (or a module's ``m_clear``) goes with its
    slot (the runtime clears fields through traverse, and a module's
    references with the module), unless code other than a destructor calls it
    (``Foo_clear(self)`` in ``__init__`` to reset the fields): then it is
    kept as a helper, and only the slot and the destructors' calls go (a
    clear it calls in turn is kept too)."""
    changed = True
    while changed:
        changed = False
        for name, role in list(p.roles.items()):
            if role.kind != "dropped" or role.detail not in ("tp_clear", MODULE_HOOK.detail):
                continue
            call = regex.compile(rf"(?<![\w.>]){regex.escape(name)}\s*\(")
            if any(info.name != name and info.body and call.search(info.body)
                   and (info.role is None or info.role.kind not in ("destroy", "dropped"))
                   for info in p.functions.values()):
                del p.roles[name]
                p.kept_clears.add(name)
                changed = True
                for info in p.functions.values():
                    if info.name == name:
                        info.role = None


def _clear_hooks(p):
    """A ``tp_clear`` function whose slot goes (not kept as a helper) but
    that does native work beside releasing members
    (``destructors.clear_does_native_work``: ``self->len = 0;``) becomes
    the type's clear hook (``CLEAR_HOOK``): the destroy-traverse rule keeps
    that work, and the runtime calls it after releasing the fields."""
    for info in p.functions.values():
        if info.role is not None and info.role.kind == "dropped" and info.role.detail == "tp_clear" \
                and info.body and destructors.clear_does_native_work(p, info.path, info.body, info.params):
            p.roles[info.name] = info.role = CLEAR_HOOK
            info.needs_state = False


def _finalize_destructors_calling_api(p):
    """A destructor has no state, so one that calls functions taking ``S``
    (other than a clear function, whose call goes) takes it
    (``FINALIZER``), if all its calls do: its calls may bring the object
    back to life, so a destructor that also calls a native function
    (``free(self->buf)``, ``PyMem_Free``, ``PyObject_Free(self->buf)``)
    stays one: ``_split_destructors`` moves its calls of
    the API to a finalizer of their own where it can, else they are
    reported."""
    def cleared(callee):
        role = p.role(callee)
        return role is not None and role.kind == "dropped" or callee in p.kept_clears

    def only_state_calls(info):
        # Python's allocator's releases free native memory too
        calls = {c for c in regex.findall(r"(?<![\w.>])(\w+)\s*\(", info.body)
                 if c != info.name and c not in source._KEYWORDS and c != "assert"
                 and (not c.startswith(("Py", "_Py")) or destructors.NATIVE_FREES.fullmatch(c)) and not cleared(c)}
        body = (info.body, 0, len(info.body), 0, len(info.body))
        return bool(calls) and all(p.needs_state(info.path, c) for c in calls) \
            and not destructors.member_frees(*body)      # PyObject_Free(self->buf): native too

    finalizers = {info.name for info in p.functions.values()
                  if info.role is not None and info.role.kind == "destroy" and info.body
                  and only_state_calls(info)}
    for info in p.functions.values():
        if info.name in finalizers:
            p.roles[info.name] = info.role = FINALIZER
            info.needs_state = True


def _split_destructors(p, files, masks):
    """A static destructor that calls both the API and native releases
    splits, where its two parts share nothing (``destructors.plan``), into
    a function generated from its API calls (``FINALIZER``), which the
    destructor-split rule writes, and itself, the native releases."""
    for (path, name), info in list(p.functions.items()):
        if info.role is None or info.role.kind != "destroy" or not info.body or not info.static \
                or masks.get(path) is None:
            continue
        code = masks[path]
        f = next((f for f in source.find_functions(code) if f.name == name and f.is_definition and not f.member),
                 None)
        split = f and destructors.plan(p, path, code, source.mask(files[path]), f,
                                       destructors.finalizer_name(p, name))
        if not split:
            continue
        p.destructor_splits[name] = split.finalizer
        body = "".join(code[a:b] for a, b in sorted(split.moved + split.copied))
        p.functions[(path, split.finalizer)] = replace(info, name=split.finalizer, body=body, role=FINALIZER,
                                                       needs_state=True, stolen=frozenset())
        p.roles[split.finalizer] = FINALIZER


# a member of CPython's object structs read through a variable (not
# Py_TYPE(o)->tp_name, which the py-type rule ports; not a type's MRO or
# dict, which the type-mro-dict rule ports, nor its name or flags read, which
# the type-name-reads and type-flags-reads rules port), or a heap-type cast
# (but for a read of the heap type's name, which that rule ports too)
_NAME_READ = r"(?:tp_name|ht_(?:qual)?name)\b(?!\s*=(?!=))"
#: what makes a member after it no read: a store (=, |=, ...) or an increment
WRITTEN = r"\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)"
_FLAGS_READ = r"tp_flags\b(?!" + WRITTEN + ")"
_INTERNALS = regex.compile(r"(?<![\w)])\w+\s*->\s*(?!tp_(?:mro|dict)\b|" + _NAME_READ + "|" + _FLAGS_READ
                           + r")(?:tp|ob|ht)_\w+"
                           r"|\(\s*PyHeapTypeObject\s*\*\s*\)(?!\s*\w+\s*\)\s*->\s*" + _NAME_READ + ")")


def _reads_internals(p, info):
    """Does the function read a member of CPython's object structs?  A
    member of the extension's own struct named like one (``self->ob_item``
    with ``self`` a pointer to a struct that declares ``ob_item``) is the
    extension's data, which its typed accessor reaches."""
    own = {}                   # variable -> the members of its custom struct
    for struct, t in p.types.items():
        for m in regex.finditer(rf"\b{regex.escape(struct)}\s*\*\s*(\w+)", info.params + info.body):
            own[m.group(1)] = t.fields
    for m in _INTERNALS.finditer(info.body):
        read = regex.fullmatch(r"(\w+)\s*->\s*(\w+)", m.group())
        if read is None or read.group(2) not in own.get(read.group(1), ()):
            return True
    return False


def _collect_stock_internals(p):
    """Helpers that read object internals and need nothing else of the
    port (no object result, no call of the extension's functions, no
    global reference, no custom type) stay stock (``STOCK_INTERNALS``)."""
    own = {n for _, n in p.functions}
    refs = p.globals | p.ref_arrays | set(p.type_objects) | p.ref_fields | p.ref_array_fields | set(p.types)
    for info in p.functions.values():
        if info.role is not None or not info.body or info.returns_handle \
                or not _reads_internals(p, info):
            continue
        words = set(regex.findall(r"\b\w+\b", info.body))
        if (words & refs) or any(c != info.name for c in set(regex.findall(r"\b(\w+)\s*\(", info.body)) & own):
            continue
        info.role = STOCK_INTERNALS
        p.roles.setdefault(info.name, STOCK_INTERNALS)


def _collect_kept_stock(p, names):
    """A function defined in a file kept stock keeps its stock signature
    where other files declare it, and their calls lend it handles through
    the escape hatch (a C caller would otherwise link to it with the
    Cystck signature)."""
    for info in p.functions.values():
        # only declared here: a file's own function of the same name is its own
        if info.name in names and info.role is None and not info.body:
            info.role = STOCK_KEPT
            p.roles.setdefault(info.name, STOCK_KEPT)


_VOID_POINTER_RESULT = regex.compile(r"\bvoid\s*\*\s*$")
_RETURN_STATEMENT = regex.compile(r"\breturn\b(?P<value>[^;]*);")
_RETURN_BEFORE = regex.compile(r"\breturn\s*$")


def _collect_null_error_helpers(p, masks):
    """A ``void *`` function that sets an exception and returns NULL, only
    ever called as ``return helper(...)`` by functions returning an object
    (or in a macro), is an object's error return spelt generically:
    ``return raise_bad_char(c);``.  It returns a handle, as a ``PyObject *``
    helper would (null_error_helpers; HelperSignature gives it the
    ``Cystck_Object`` result).  A ``void *`` with any other return or use
    stays a C pointer."""
    candidates = {}
    for path, code in masks.items():
        if code is None:
            continue
        for f in source.find_functions(code):
            if not f.body or not _VOID_POINTER_RESULT.search(code[f.start:f.name_start]):
                continue
            body = code[f.body[0]:f.body[1]]
            values = [m.group("value").strip() for m in _RETURN_STATEMENT.finditer(body)]
            if values and all(v == "NULL" for v in values) and API_TOKEN.search(body):
                candidates.setdefault(f.name, []).append((path, f))
    for name, defs in candidates.items():
        if _called_only_as_error_return(p, masks, name):
            p.null_error_helpers.add(name)
            for path, _ in defs:
                p.functions[(path, name)].returns_handle = True


def _called_only_as_error_return(p, masks, name):
    """Is every use of ``name`` in the project a prototype, its definition
    or a ``return name(...)`` in a macro or in a function returning an
    object or pushing its result?"""
    word = regex.compile(rf"\b{regex.escape(name)}\b")
    for path, code in masks.items():
        if code is None:
            continue
        text = source.mask(p.files[path])
        functions = source.find_functions(code)
        heads = {f.name_start for f in functions if f.name == name}
        for m in word.finditer(text):
            if m.start() in heads:
                continue
            if not regex.match(r"\s*\(", text[m.end():]) or not _RETURN_BEFORE.search(
                    text[:m.start()].replace("\\\n", " ")[-200:]):
                return False
            caller = next((f for f in functions if f.body and f.body[0] <= m.start() < f.body[1]), None)
            if caller is None:
                continue          # a macro's body: its users are the callers
            info = p.functions.get((path, caller.name))
            role = p.role(caller.name)
            if not ((info is not None and info.returns_handle) or (role is not None and role.pushes)):
                return False
    return True


def _collect_converters(p, masks):
    """Functions passed after an ``O&`` unit get the converter signature;
    they take a handle, so the ordinary helper rules give them ``S``."""
    for path, code in masks.items():
        if code is None:
            continue
        for m in regex.finditer(r"\bPyArg_Parse\w*\s*" + source.paren("a"), code):
            p.converters.update(n for n in regex.findall(r"[(,]\s*(\w+)\s*(?=,)", m.group("a"))
                                if (path, n) in p.functions)


#: a callback that opens a frame of its own, ``Cystck_OpenFrame(S)`` on a
#: Cystck_State it declares (rule thread-callback-frames)
_OWN_FRAME = regex.compile(r"\bCystck_OpenFrame\s*\(\s*S\s*\)")


def _infer_state(p, masks=None):
    """Which functions take ``Cystck_State *S``: entry points, functions
    with handle parameters or results, and functions whose body uses the
    API or calls such functions (a fixpoint over the call graph, with the
    function-pointer types their functions make take S:
    _state_callback_types)."""
    refs = p.globals | p.ref_arrays | set(p.type_objects) | p.api_macros | p.state_fields
    ref_re = regex.compile(r"\b(?:" + "|".join(map(regex.escape, sorted(refs))) + r")\b") if refs else None
    # a member access of a reference in allocated memory (n->key) reads it
    # through Cystck_deref(S, ...)
    if p.heap_ref_fields:
        heap = r"(?:->|\.)\s*(?:" + "|".join(map(regex.escape, sorted(p.heap_ref_fields))) + r")\b"
        ref_re = regex.compile((ref_re.pattern + "|" if ref_re else "") + heap)
    typed = regex.compile(r"\b(?:" + "|".join(map(regex.escape, sorted(p.types))) + r")\s*\*") if p.types else None
    for info in p.functions.values():
        role = info.role
        if (role is not None and not role.state) or _OWN_FRAME.search(info.body):
            # (a callback that opens a frame of its own declares its S)
            info.needs_state = False
            continue
        info.needs_state = bool(
            (role is not None and role.kind != "dropped") or info.returns_handle or info.handle_params
            or API_TOKEN.search(info.body) or (ref_re and ref_re.search(info.body))
            or (typed and typed.search(info.body)))
    # the methods of a class that may hold S (state_classes) get it from
    # the object: calling one does not need S
    candidates = [c for c in p.classes.values() if c.may_hold_state]
    member_calls = set().union(*(c.methods for c in candidates))
    defined_with_state = {}
    changed = True
    while changed:
        changed = False
        for info in p.functions.values():
            if info.body and info.needs_state:
                defined_with_state.setdefault(info.name, []).append(info)
        for info in p.functions.values():
            if info.needs_state or (info.role is not None and not info.role.state) or _OWN_FRAME.search(info.body):
                continue
            # A prototype follows a definition elsewhere (a header's
            # declaration of a function, or of a C++ member defined in a
            # .cpp file as Class::name).
            if not info.body and any(d.static is False or d.path == info.path
                                     or d.path in p.compiled_with(info.path)
                                     for d in defined_with_state.get(info.name, ())):
                info.needs_state = True
                changed = True
                continue
            for callee in set(regex.findall(r"\b(\w+)\s*\(", info.body)) - member_calls:
                if callee != info.name and p.needs_state(info.path, callee):
                    info.needs_state = True
                    changed = True
                    break
            else:
                # it constructs an object of a class whose methods use the API
                if any(c.constructed.search(info.body) and _class_needs_state(p, c)
                       for c in candidates if c.name != info.name):
                    info.needs_state = True
                    changed = True
        changed |= _state_callback_types(p, masks)
    _state_members(p, candidates)


def _state_callback_types(p, masks):
    """A function-pointer type without objects (``typedef int
    (*visit_fn)(Node *, int, void *)``) takes S once a function that takes
    it is bound to the type: passed where a parameter of the type is
    declared (``walk(root, collect, &c)``), or the initialiser of a local
    of the type (``visit_fn f = collect;``).  Every function bound to it
    then takes S (one without the API too: the calls through the type pass
    S), and so does every function calling through a parameter, local or
    member of a type that takes S.  Returns whether anything changed."""
    changed = False
    plain = p.fnptr_typedefs - p.state_typedefs
    if plain:
        alt = "|".join(map(regex.escape, sorted(plain)))
        typed_param = regex.compile(rf"\s*(?:const\s+)?(?P<t>{alt})\s*(?:\*\s*)?(?<=[\s*])(?:const\s+)?\w+\s*")
        positions = {}          # (path, function) -> {parameter index: type}
        for key, info in p.functions.items():
            if info.body and regex.search(rf"\b(?:{alt})\b", info.params):
                for i, (a, b) in enumerate(source.split_top(info.params, 0, len(info.params))):
                    m = typed_param.fullmatch(info.params, a, b)
                    if m:
                        positions.setdefault(key, {})[i] = m.group("t")
        bound = {}              # type -> {(path, function) bound to it}
        fn_arg = regex.compile(r"\s*(?:\(\s*\w+\s*\)\s*)?&?\s*(\w+)\s*")
        for info in p.functions.values():
            if not info.body:
                continue
            for m in regex.finditer(r"(?<![\w.>])(?P<f>\w+)\s*" + source.paren("a"), info.body, overlapped=True):
                callee = p.function(info.path, m.group("f"))
                pos = positions.get((callee.path, callee.name)) if callee is not None else None
                if not pos:
                    continue
                a = m.group("a")
                args = source.split_top(a, 1, len(a) - 1)
                for i, t in pos.items():
                    arg = fn_arg.fullmatch(a, *args[i]) if i < len(args) else None
                    f = arg and p.function(info.path, arg.group(1))
                    if f:
                        bound.setdefault(t, set()).add((f.path, f.name))
            for m in regex.finditer(rf"\b(?P<t>{alt})\s+\w+\s*=\s*(?:\(\s*\w+\s*\)\s*)?&?\s*(?P<f>\w+)\s*[;,]",
                                    info.body):
                f = p.function(info.path, m.group("f"))
                if f is not None:
                    bound.setdefault(m.group("t"), set()).add((f.path, f.name))
        for t, keys in sorted(bound.items()):
            infos = [p.functions[k] for k in sorted(keys)]
            if not any(i.needs_state for i in infos):
                continue
            p.state_typedefs.add(t)
            changed = True
            for info in infos:
                if info.role is None:
                    info.needs_state = True
        if changed:
            for code in (masks or {}).values():
                if code is not None:
                    _add_state_fields(p, code)
    if not p.state_typedefs:
        return changed
    alt = "|".join(map(regex.escape, sorted(p.state_typedefs)))
    declared = regex.compile(fnptr_declaration(alt) + r"\s*[,;)=\[]")
    members = "|".join(map(regex.escape, sorted(p.state_fields)))
    for info in p.functions.values():
        if info.needs_state or not info.body or (info.role is not None and not info.role.state):
            continue
        names = "|".join(map(regex.escape, sorted(set(declared.findall(info.params + ")"))
                                                   | set(declared.findall(info.body)))))
        if (names and regex.search(rf"(?<![\w.>])(?:{names})\s*\(|\(\s*\*\s*(?:{names})\s*\)\s*\(", info.body)) \
                or (members and regex.search(rf"(?:->|\.)\s*(?:{members})\s*(?:\)\s*)*\(", info.body)):
            info.needs_state = True
            changed = True
    return changed


# ---- C++ classes whose methods read S from a member ----

@dataclass
class CppClass:
    """A C++ class (or struct with member functions) of the extension."""
    name: str
    methods: set = field(default_factory=set)     # non-static member functions (no constructor)
    constructor: bool = False                     # declares one
    functor: bool = False                         # has an operator()
    static_methods: set = field(default_factory=set)

    @property
    def may_hold_state(self):
        """A class with a constructor (so that each object gets S when it
        is made) that is no functor (functors take S in operator(), which
        rules/cpp.py passes)."""
        return self.constructor and not self.functor and bool(self.methods)

    @functools.cached_property
    def constructed(self):
        """A use of the class's name in a body (a construction)."""
        return regex.compile(rf"(?<![\w.>~]|::)\b{regex.escape(self.name)}\b(?!\s*::)")


_CLASS_HEAD = regex.compile(r"(?<![\w.>:])(?:struct|class)\s+(?P<name>\w+)\s*(?:final\s*)?(?::(?!:)[^{;]*)?\{")


def _languages(path, code):
    from . import translate   # (translate imports this module)
    return translate.libraries(path, code)


def class_bodies(code):
    """(name, open brace, close) of each C++ struct or class body in
    ``code`` (a structure mask), nested ones included."""
    for m in _CLASS_HEAD.finditer(code):
        open_at = m.end() - 1
        try:
            yield m.group("name"), open_at, source.matching(code, open_at)
        except Exception:
            continue


def is_destructor(code, f):
    """Is the member function ``f`` a destructor (``~Box()``)?"""
    return code[:f.name_start].rstrip().endswith("~")


def _collect_classes(p, code):
    """Every C++ class body with its member functions: what state_classes
    is decided from.  Object structs (PyObject_HEAD) are types, not
    classes."""
    structs = set(p.types)
    for name, open_at, close in class_bodies(code):
        if name in structs or regex.search(r"\bPyObject_(?:VAR_)?HEAD\b", code[open_at:close]):
            continue
        c = p.classes.setdefault(name, CppClass(name))
        for f in source.find_functions(code[open_at + 1:close - 1], open_at + 1, True):
            head = code[f.start:f.name_start]
            if f.name == "operator()":
                c.functor = True
            elif f.name == name:
                c.constructor = c.constructor or not is_destructor(code, f)
            elif regex.search(r"\bstatic\b", head):
                c.static_methods.add(f.name)
            else:
                c.methods.add(f.name)


def _class_needs_state(p, c):
    """Does a member function of ``c`` (its constructor included) use the API?"""
    return any(info.needs_state for (_, n), info in p.functions.items()
               if n in c.methods or n == c.name)


def _state_members(p, candidates):
    """The classes whose member functions use the API keep their methods'
    signatures (a library's templates call them with fixed ones: a SAX
    handler, a stream) and hold ``Cystck_State *S`` as a member that the
    constructors set from a parameter: the methods stop needing S from
    their callers, the constructors take it."""
    for c in candidates:
        if not _class_needs_state(p, c):
            continue
        p.state_classes.add(c.name)
        for (_, n), info in p.functions.items():
            if n in c.methods:
                info.needs_state, info.state_member = False, True
            elif n == c.name:
                info.needs_state = True
