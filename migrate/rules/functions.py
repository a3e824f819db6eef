"""Functions: signatures (paper rules 6, 7 and 9), local declarations and
assignments (rules 4, 5), casts, NULL tests on handles, identity tests,
return statements (rule 10) and passing the state to helpers."""
import regex

from .. import api, cstruct, macros, project as proj, source
from ..engine import Rule
from . import _common, escape

# Compiled once (the regex module's cache lookup per call is slow).
_WORD = regex.compile(r"\b\w+\b")
# a conditional one of whose branches is the null handle (after the returns
# rule spelled it so): c ? Cystck_NULL : v, or c ? v : Cystck_NULL
_NULL_BRANCH = regex.compile(r"(?P<c>[^?:]+)\?\s*(?:(?P<n1>Cystck_NULL)\s*:(?P<v>[^?:]+)"
                             r"|(?P<v>[^?:]+):\s*Cystck_NULL\s*)", regex.S)



_SCOPE = regex.compile(r"(?:\b\w+(?:\s*<[^<>;{}]*>)?\s*::\s*)+$")


def split_scope(head):
    """``PyObject* BinaryMul::`` -> (``PyObject* ``, ``BinaryMul::``): the
    class qualifier of an out-of-line C++ member is not part of its type."""
    m = _SCOPE.search(head)
    return (head[:m.start()], head[m.start():]) if m else (head, "")


keeps_struct_params = _common.keeps_struct_params


def render_param(ctype, name):
    """``ctype name`` (no space after a pointer's ``*``)."""
    return f"{ctype}{name}" if ctype.endswith("*") else f"{ctype} {name}"


def _replace_return_type(head, new_type):
    """``static PyObject *\\n`` -> ``static int\\n`` (keeps qualifiers and
    the layout between type and name)."""
    m = _common.function_head(head)
    if not m:
        return head
    ws = m.group("ws") or " "
    t = m.group("t")
    trailing = regex.search(r"\b(?:FASTCALL_MSVC|__cdecl|__stdcall)\s*$", t)
    suffix = " " + trailing.group() if trailing else ""
    return m.group("q") + new_type + suffix + ws


# A function-pointer parameter: ``PyObject *(*get)(Node *)``.
_FNPTR_PARAM = regex.compile(r"(?P<ret>[\w\s\*]+?)\s*\(\s*\*\s*(?P<n>\w+)\s*\)\s*\((?P<ps>[^()]*)\)")
#: The name of a function-pointer parameter whose functions take the state.
STATE_FNPTR_PARAM = regex.compile(r"\(\s*\*\s*(?P<n>\w+)\s*\)\s*\(\s*Cystck_State\b")


def convert_param(text, structs):
    """A stock parameter declaration as a Cystck one (unchanged if it holds
    no object).  A function-pointer parameter whose result or parameters
    are objects points to a function that takes the state, like a helper:
    ``PyObject *(*get)(Node *)`` becomes ``Cystck_Object (*get)(Cystck_State
    *S, Cystck_Object)``."""
    t = text.strip()
    types = proj.OBJECT_TYPES + (r"|" + "|".join(map(regex.escape, sorted(structs))) if structs else "")
    fn = _FNPTR_PARAM.fullmatch(t)
    if fn and regex.search(r"\b(?:" + types + r")\s*\*", fn.group("ret") + fn.group("ps")):
        ps = [convert_param(q, structs).strip() for q in fn.group("ps").split(",")]
        ret = "Cystck_Object " if returns_object(fn.group("ret"), structs) else fn.group("ret").strip() + " "
        return f"{ret}(*{fn.group('n')})(" + ", ".join(["Cystck_State *S"] + [q for q in ps if q and q != "void"]) + ")"
    m = regex.fullmatch(r"(?:const\s+)?(?:struct\s+)?(?:" + types + r")\s*\*\s*const\s*\*\s*(?P<n>\w*)", t)
    if m:
        return render_param("const Cystck_Object *", m.group("n")).rstrip()
    m = regex.fullmatch(r"(?:const\s+)?(?:struct\s+)?(?:" + types + r")\s*(?P<p>\*\s*\*?)\s*(?P<n>\w*)\s*(?P<a>\[[^\]]*\])?", t)
    if m:
        stars = m.group("p").replace(" ", "")
        ctype = "Cystck_Object" if stars == "*" and not m.group("a") else "Cystck_Object *"
        name = m.group("n")
        if m.group("a") and stars == "*":
            return f"Cystck_Object {name}{m.group('a')}"
        return render_param(ctype, name).rstrip() if name else ctype
    return text


def returns_object(head, structs):
    types = proj.OBJECT_TYPES + (r"|" + "|".join(map(regex.escape, sorted(structs))) if structs else "")
    return bool(regex.search(r"(?:\b(?:" + types + r")\s*\*|\bCystck_Object)\s*(?:FASTCALL_MSVC\s*)?$", head.strip()))


def _stock_entry_points(unit, code):
    """(function, role, parameters) of each function (definition or
    prototype) listed as a method, slot, getter or setter whose signature
    is still the stock one (no ``Cystck_State *S`` first); the parameters
    are _common.parse_params of ``code``."""
    for f in unit.functions():
        role = unit.project.role(f.name)
        if role is None or role.kind not in ("meth", "slot", "get", "set"):
            continue
        params = _common.parse_params(code, *f.params)
        if params and params[0].base.endswith("Cystck_State"):
            continue
        yield f, role, params


class DroppedParamDiscards(Rule):
    """An entry point's stock parameter that its Cystck signature drops (a
    METH_NOARGS method's second one, always NULL) is often named once, only
    to silence an unused-parameter warning: ``(void)args;``, or a project
    macro that expands to that, ``UNUSED(args);`` (proj.discard_macros).
    Such a statement goes with the parameter, and so does one discarding a
    METH_VARARGS argument tuple, which becomes an array (the statement would
    build a tuple for nothing); any other use of a dropped parameter is left
    for the compiler to show.  Runs before entry-signature, which drops the
    parameter."""
    name = "dropped-param-discards"
    precedence = 398
    patterns = (r"^[ \t]*(?:\(\s*void\s*\)\s*\(?\s*(?P<p>\w+)\s*\)?|(?P<m>\w+)\s*\(\s*(?P<q>\w+)\s*\))\s*;",)
    before = ("#define UNUSED(x) (void)(x)\n"
              "static PyObject *f(PyObject *self, PyObject *args)\n{\n    UNUSED(args);\n    (void)args;\n"
              "    return PyLong_FromLong(1);\n}\n"
              "static PyMethodDef m[] = {{\"f\", f, METH_NOARGS, NULL}, {NULL}};\n")
    after = ("#define UNUSED(x) (void)(x)\n"
             "static PyObject *f(PyObject *self, PyObject *args)\n{\n"
             "    return PyLong_FromLong(1);\n}\n"
             "static PyMethodDef m[] = {{\"f\", f, METH_NOARGS, NULL}, {NULL}};\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        discards = proj.discard_macros(unit.project)
        pattern = regex.compile(self.patterns[0], regex.M)
        edits = source.Edits()
        for f, role, params in _stock_entry_points(unit, code):
            if f.body is None:
                continue
            # an argument tuple that becomes an array is no object to discard
            # either: the statement would build a tuple for nothing
            kept = {idx for ctype, idx, _ in role.params if idx is not None and ctype != proj.ARGS}
            dropped = {p.name for i, p in enumerate(params) if i not in kept and p.name}
            if not dropped:
                continue
            for m in pattern.finditer(code, f.body[0] + 1, f.body[1] - 1):
                name = m.group("p") or m.group("q")
                if name in dropped and (m.group("p") or m.group("m") in discards):
                    edits.add(*_common.statement_line_span(text, m.start(), m.end()), "")
        if edits:
            unit.apply(edits)
        return edits.applied


# The statement before a declarator: type words (and pointers), then the
# declarators before it, each with an optional initializer without commas
# or parentheses (``unsigned long H, M, `` before ``S``).
_DECL_PREFIX = regex.compile(
    r"\s*(?:\bfor\s*\(\s*)?(?:(?!(?:return|goto|case|else|do|sizeof)\b)[A-Za-z_]\w*[\s*]+)+"
    r"(?:\**\s*[A-Za-z_]\w*(?:\s*\[[^\]]*\])*\s*(?:=[^,;()]*)?,\s*)*\**\s*")


#: a function that opens a frame of its own (thread-callback-frames)
_OWN_FRAME = regex.compile(r"\bCystck_OpenFrame\s*\(\s*S\s*\)")


class LocalStateName(Rule):
    """A parameter or local variable named ``S`` in a function that gets
    the state would be redeclared by the translation's ``Cystck_State *S``
    (``unsigned long H, M, S;`` in a time parser), and the API calls would
    get it as their state: it is renamed ``S_`` (with more underscores if
    that name is taken) everywhere in the function, as macro-state-param
    does for a macro parameter.  Comments and strings keep their text; a
    function where ``S`` is not declared (a global, a macro) keeps its
    ``S``; so do a function that gets no state, one that has its
    Cystck signature already (its ``S`` is the state) and one that opens a
    frame of its own (thread-callback-frames' output)."""
    name = "local-state-name"
    precedence = 111
    patterns = (r"\bS\b",)
    before = ("static PyObject *hms(long H, long M, long S)\n"
              "{ return PyLong_FromLong(H * 3600 + M * 60 + S); }\n")
    after = ("static PyObject *hms(long H, long M, long S_)\n"
             "{ return PyLong_FromLong(H * 3600 + M * 60 + S_); }\n")

    def apply(self, unit):
        code, edits = unit.masked, source.Edits()
        for ctx in _common.stateful_contexts(unit, with_locals=False):
            f = ctx.func
            if ctx.rewritten or _OWN_FRAME.search(code, *f.body) \
                    or (ctx.role is None and not unit.project.needs_state(unit.path, f.name)):
                continue         # (a Cystck signature's S is the state, so is an own frame's)
            found = list(regex.finditer(r"\bS\b", code, pos=f.params[0], endpos=f.body[1]))
            if not found or not any(self._declares(code, f, m.start()) for m in found):
                continue
            fresh = _common.renamed_state(code, f.params[0], f.body[1])
            for m in found:
                edits.add(m.start(), m.end(), fresh)
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _declares(code, f, pos):
        """Does the ``S`` at ``pos`` name a parameter or a variable being
        declared (not a use)?"""
        if pos < f.params[1]:
            start = max(code.rfind(",", f.params[0], pos), code.rfind("(", f.params[0], pos), f.params[0] - 1) + 1
        else:
            start = max(code.rfind(c, f.body[0], pos) for c in ";{}") + 1
        after = regex.match(r"\s*(?:\[[^\]]*\]\s*)*([,;=)])", code, pos=pos + 1)
        return bool(after) and bool(_DECL_PREFIX.fullmatch(code[start:pos]))


class EntrySignature(Rule):
    """Paper rules 6/7 for entry points: a function listed in a method
    table, type slot or getset gets the Cystck signature of its role, e.g. a
    METH_VARARGS method ``PyObject *f(PyObject *self, PyObject *args)``
    becomes ``int f(Cystck_State *S, Cystck_Object self, const
    Cystck_Object *args, Cystck_ssize_t nargs)`` (parameter names are
    kept).  Its result is now the number of values pushed."""
    name = "entry-signature"
    precedence = 400
    patterns = (r"(?P<name>\w+)\s*" + _common.PAREN,)
    before = ("static PyObject *add(PyObject *self, PyObject *args);\n"
              "static PyMethodDef m[] = {{\"add\", add, METH_VARARGS, NULL}, {NULL}};\n"
              "static PyObject *\nadd(PyObject *self, PyObject *args)\n{\n    return NULL;\n}\n")
    after = ("static int add(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs);\n"
             "static PyMethodDef m[] = {{\"add\", add, METH_VARARGS, NULL}, {NULL}};\n"
             "static int\nadd(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)\n"
             "{\n    return NULL;\n}\n")

    def apply(self, unit):
        code, text = unit.structure, unit.text
        edits = source.Edits()
        n = 0
        for f, role, params in _stock_entry_points(unit, code):
            used = {p.name for p in params}
            new = ["Cystck_State *S"]
            for ctype, idx, default in role.params:
                name = params[idx].name if idx is not None and idx < len(params) and params[idx].name else default
                if idx is None and default in used:
                    name = default + "_"
                new.append(render_param(ctype, name))
            edits.add(f.params[0], f.params[1], ", ".join(new))
            edits.add(f.start, f.name_start, _replace_return_type(text[f.start:f.name_start], role.ret))
            n += 1
        if edits:
            unit.apply(edits)
        return n


#: The kinds of functions a CYSTCK_DEF_* definition declares ``static``
#: (slots, module exec/create, finalizers, destructors, traverse functions,
#: getters and setters).
LINKED_KINDS = ("slot", "destroy", "traverse", "get", "set", "clear")


def external_slot(unit, func, role):
    """Does ``func``, which this file registers for a slot (or as a getter,
    setter, destructor, traverse function) of ``role``, keep its external
    linkage (another file, a header, declares it without ``static``)?
    CYSTCK_DEF_* declares its implementation static, so the definition
    calls it through a static forwarder (``slot_implementation``) and the
    entry-linkage rule leaves its definition as it is."""
    own = unit.project.role(func)
    return role.kind in LINKED_KINDS and own is not None and own.kind == role.kind and \
        [c for c, _, _ in own.params] == [c for c, _, _ in role.params] and \
        proj.declared_elsewhere(unit.project, unit.path, func)


def slot_implementation(unit, func, role, sym):
    """(the implementation to name in the CYSTCK_DEF_* definition ``sym``
    that registers ``func`` with ``role``, the text to write after that
    definition): ``func`` and nothing, or, where ``func`` keeps its
    external linkage (``external_slot``), a static forwarder named after
    the definition (two definitions may share the function),
    ``static int F__sym(Cystck_State *S, ...) { return F(S, ...); }``,
    calling it."""
    if not external_slot(unit, func, role):
        return func, ""
    name = f"{func}__{sym}"
    names = [n for _, _, n in role.params]
    params = [render_param(c, n) for c, _, n in role.params]
    if role.state:
        params, names = ["Cystck_State *S"] + params, ["S"] + names
    call = f"{func}({', '.join(names)});"
    body = f"    {call}" if role.ret == "void" else f"    return {call}"
    return name, f"\nstatic {role.ret} {name}({', '.join(params) or 'void'})\n{{\n{body}\n}}"


class EntryLinkage(Rule):
    """Slots, destructors, traverse functions, getters/setters and module
    exec/create functions get internal linkage: their
    ``CYSTCK_DEF_SLOT``/``DESTROY``/``GET``/``SET``/``MOD_EXEC``/``MOD_CREATE``
    definition (written where the table was) declares the implementation
    ``static``, which a C or C++ compiler rejects after a non-static
    definition or prototype (C++ code often relies on an anonymous namespace
    instead).  Only functions registered in the same file are touched; the
    return-type line changes anyway.  A slot function that another file
    (a header) declares without ``static`` keeps its linkage: its slot
    calls it through a static forwarder (``external_slot``), as do
    getters, setters, destructors and traverse functions.  Methods keep
    their linkage: the table rule gives non-static ones a forwarder."""
    name = "entry-linkage"
    precedence = 405
    # the rules that write those definitions (method-table those of getsets)
    needs = ("type-object", "type-spec", "multi-phase-init", "method-table")
    ROLES = ("slot", "destroy", "traverse", "get", "set", "clear")
    patterns = (r"\bCYSTCK_DEF_(?:SLOT|DESTROY|CLEAR|GET|GETSET|SET|MOD_EXEC|MOD_CREATE)\s*\((?P<args>[^;{}]*?)\)",)
    before = ("PyObject *\nBox_repr(PyObject *self)\n{\n    return PyUnicode_FromString(\"Box\");\n}\n"
              "static PyType_Slot Box_slots[] = {{Py_tp_repr, Box_repr}, {0, NULL}};\n")
    after = ("static PyObject *\nBox_repr(PyObject *self)\n{\n    return PyUnicode_FromString(\"Box\");\n}\n"
             "CYSTCK_DEF_SLOT(Box_slots_tp_repr, tp_repr, Box_repr)\n"
             "static CystckDef *Box_slots[] = {\n    &Box_slots_tp_repr,\n    NULL\n};\n")

    def apply(self, unit):
        code = unit.structure
        registered = set()
        for m in regex.finditer(self.patterns[0], code):
            registered |= set(regex.findall(r"\w+", m.group("args"))[1:])
        edits = source.Edits()
        for f in unit.functions():
            role = unit.project.role(f.name)
            if f.name not in registered or role is None or role.kind not in self.ROLES:
                continue
            if external_slot(unit, f.name, role):
                continue        # its slot calls it through a static forwarder
            head = code[f.start:f.name_start]
            if regex.search(r"\b(?:static|extern)\b", head) or "::" in head:
                continue
            edits.add(f.start, f.start, "static ")
        if edits:
            unit.apply(edits)
        return edits.applied


def _object_void_params(unit, structs):
    """{function: indexes of its ``void *p`` parameters that hold an object}:
    the body casts p to an object struct (``(Node *)(p)``, which makes a
    handle of what p points to) and gives p itself only to stock calls and
    macros (``Py_TYPE(p)``), never reading memory through it.
    Its callers pass what they have, handles, so p is one too (a
    debug-only checker, ``validate(void *o)``, called with each node)."""
    code = unit.structure
    if not structs:
        return {}
    cast = regex.compile(r"\(\s*(?:struct\s+)?(?:" + "|".join(map(regex.escape, sorted(structs))) +
                         r")\s*\*\s*\)\s*\(?\s*(\w+)")
    out = {}
    for f in unit.functions():
        if not f.is_definition:
            continue
        body = code[f.body[0]:f.body[1]]
        for i, q in enumerate(_common.parse_params(code, *f.params)):
            if q.base != "void" or not q.ptr or q.ptr.count("*") != 1 or not q.name:
                continue
            casts = {c.start(1) for c in cast.finditer(body) if c.group(1) == q.name}
            uses = [u.start() for u in regex.finditer(rf"(?<![\w.>]){q.name}\b", body)]
            if casts and all(u in casts or _object_argument(body, u) for u in uses):
                out.setdefault(f.name, set()).add(i)
    return out


def _object_argument(body, at):
    """Is the name at ``at`` a whole argument of a stock call or of a
    macro (``Py_TYPE(o)``, ``IS_NODE(o)``), which take objects?"""
    call = _common.call_of_argument(body, at)
    return call is not None and regex.match(r"\w+\s*[),]", body[at:]) is not None and \
        regex.fullmatch(r"_?Py\w+|[A-Z_][A-Z0-9_]*", call[0]) is not None


class HelperSignature(Rule):
    """Paper rules 6/7 for other functions: a function that uses the API (or
    calls one that does) gets ``Cystck_State *S`` as first parameter; its
    ``PyObject *`` parameters and results become ``Cystck_Object`` (``PyObject
    **`` becomes ``Cystck_Object *``; pointers to a custom type's struct are
    handles too, as is a ``void *`` the body casts to one: see
    _object_void_params).  Function-pointer typedefs that carry objects
    change the same way (their parameter lists over several lines too), as
    do typedefs of function types, ``typedef PyObject *(F)(PyObject *);``
    used as ``F *f``."""
    name = "helper-signature"
    precedence = 410
    patterns = (r"(?P<name>\w+)\s*" + _common.PAREN, r"\btypedef\s+(?P<ret>[\w\s\*]+?)\s*\(\s*\*?\s*(?P<name>\w+)\s*\)\s*"
                + source.paren("p") + r"\s*;")
    before = "static PyObject *twice(PyObject *o, int n)\n{\n    return PyNumber_Add(o, o);\n}\n"
    after = "static Cystck_Object twice(Cystck_State *S, Cystck_Object o, int n)\n{\n    return PyNumber_Add(o, o);\n}\n"

    def apply(self, unit):
        p = unit.project
        code, text = unit.structure, unit.text
        structs = p.custom_structs
        edits = source.Edits()
        n = 0
        object_voids = _object_void_params(unit, structs)
        for f in unit.functions():
            role = p.role(f.name)
            if role is not None or f.name.startswith("PyInit_"):
                continue
            info = p.functions.get((unit.path, f.name)) or p.function(unit.path, f.name)
            params = _common.parse_params(code, *f.params)
            if params and params[0].base.endswith("Cystck_State"):
                continue
            head, scope = split_scope(text[f.start:f.name_start])
            needs = info is not None and (info.needs_state or info.state_member)
            if not needs or proj.is_destructor(code, f):
                continue          # (a destructor takes no parameter: a class holding S has it)
            # a method of a class holding S keeps its parameter list's shape
            state = [] if info.state_member else ["Cystck_State *S"]
            kept = set() if not keeps_struct_params(f.name) else structs
            new_params = [convert_param(text[q.span[0]:q.span[1]], structs - kept) for q in params]
            for i in object_voids.get(f.name, ()):
                new_params[i] = render_param("Cystck_Object", params[i].name).rstrip()
            new_params = [x.strip() for x in new_params if x.strip() and x.strip() != "void"]
            inner = text[f.params[0]:f.params[1]]
            # ``( PyObject* o )`` keeps its padding (both sides, or none)
            pad = (regex.match(r"[ \t]*", inner).group(), regex.search(r"[ \t]*$", inner).group())
            if not inner.strip() or not all(pad):
                pad = ("", "")
            edits.add(f.params[0], f.params[1], pad[0] + ", ".join(state + new_params) + pad[1])
            if returns_object(split_scope(code[f.start:f.name_start])[0], structs) \
                    or f.name in p.null_error_helpers:
                edits.add(f.start, f.name_start - len(scope), _replace_return_type(head, "Cystck_Object"))
            n += 1
        for m in regex.finditer(self.patterns[1], code):
            if m.group("name") not in p.state_typedefs:
                continue
            inner = code[m.start("p") + 1:m.end("p") - 1]
            if regex.match(r"\s*Cystck_State\b", inner):
                continue
            ps = _common.parse_params(code, m.start("p") + 1, m.end("p") - 1)
            new_params = [convert_param(text[q.span[0]:q.span[1]], structs).strip() for q in ps]
            new_params = [x for x in new_params if x and x != "void"]
            edits.add(m.start("p") + 1, m.end("p") - 1, ", ".join(["Cystck_State *S"] + new_params))
            if returns_object(code[m.start("ret"):m.end("ret")], structs):
                # PyObject *(*f)(...): the star went, a space keeps the words apart
                edits.add(m.start("ret"), m.end("ret"), "Cystck_Object" + " " * (code[m.end("ret")] == "("))
            n += 1
        if edits:
            unit.apply(edits)
        return n


class Declarations(Rule):
    """Paper rules 4/5: local declarations ``PyObject *a, *b = NULL;``
    become ``Cystck_Object a, b = Cystck_NULL;`` (``PyObject **p`` becomes
    ``Cystck_Object *p``; a pointer to a custom type's struct is a handle
    too; an array's null items, ``PyObject *argv[] = {NULL, x}``, are
    ``Cystck_NULL``, and so is a NULL branch of a conditional initializer,
    ``PyObject *s = c ? f(x) : NULL``), also in the body of a macro that
    only functions with the state expand (``#define FAIL(c) { PyObject *s =
    PyUnicode_FromString(c); ... }``).  Function-level ``static PyObject
    *`` caches escape the call and are reported."""
    name = "declarations"
    precedence = 500
    patterns = (_common.decl_pattern(()).pattern,)
    before = ("static void f(PyObject *x)\n{\n    PyObject *a, *b = NULL;\n    PyObject **items;\n"
              "    PyObject *argv[] = {NULL, x};\n}\n")
    after = ("static void f(PyObject *x)\n{\n    Cystck_Object a, b = Cystck_NULL;\n    Cystck_Object *items;\n"
             "    Cystck_Object argv[] = {Cystck_NULL, x};\n}\n")

    def apply(self, unit):
        from .. import cstruct
        code, text = unit.structure, unit.text
        structs = unit.project.custom_structs
        dpat = _common.decl_pattern(structs)
        edits = source.Edits()
        n = 0
        # the bodies of the functions with the state, and of the macros
        # only they expand (their locals: macro_contexts)
        bodies = [(code, *f.body) for f, _ in _common.state_functions(unit)]
        bodies += [(unit.masked, b0, b1) for b0, b1, _ in macro_contexts(unit)]
        for code, b0, b1 in bodies:
            for m in dpat.finditer(code, b0, b1):
                base = m.group("base")
                if base.startswith("Cystck_Object"):
                    continue
                if unit.text[max(0, m.start("decl") - 64):m.start("decl")].rstrip().endswith(escape.MARK):
                    continue      # kept stock (sequence-fast-items' PyObject **)
                parsed = cstruct.split_declaration(code, m.start("decl"), m.end("decl"))
                if not parsed:
                    continue
                base_end, decls = parsed
                if regex.match(r"\s*static\b", code[m.start("decl"):base_end]):
                    unit.leftover(m.start("decl"), "function-level static object: it escapes the "
                                  "call; make it a Cystck_Ref global", self.name)
                    continue
                if any(d.pointer not in ("*", "**", "*const*") for d in decls):
                    continue
                edits.add(m.start("decl"), base_end, "Cystck_Object")
                for d in decls:
                    s = d.span[0]
                    star = code.index("*", s)
                    after = star + 1
                    if d.pointer == "*const*":
                        after = code.index("*", star + 1)
                    repl = "" if code[after].isspace() or not (code[star - 1].isalnum() or code[star - 1] == "_") else " "
                    if d.pointer == "**":
                        edits.add(star, after, "")
                        n += 0
                    elif d.pointer == "*" and (q := _QUALIFIERS_AFTER_STAR.match(code, after)):
                        # PyObject *restrict x, *const y: a handle is no
                        # pointer; const and volatile qualify the handle
                        kept = [w for w in q.group().split() if w in ("const", "volatile")]
                        gap = " " if code[star - 1].isalnum() or code[star - 1] == "_" else ""
                        edits.add(star, q.end(), gap + "".join(w + " " for w in kept))
                    else:
                        edits.add(star, after, repl if d.pointer == "*" else "*")
                    # a handle starts as the null handle; a pointer to handles stays NULL
                    if d.pointer == "*" and d.init is not None and d.array:
                        _null_items(code, d.init, edits)
                    elif d.pointer == "*" and d.init is not None \
                            and code[d.init[0]:d.init[1]].strip() in ("NULL", "0", "nullptr"):
                        edits.add(d.init[0], d.init[1], "Cystck_NULL")
                    elif d.pointer == "*" and d.init is not None:
                        for null in _common.conditional_nulls(code, *d.init):   # c ? h : NULL
                            edits.add(*null, "Cystck_NULL")
                n += 1
        if edits:
            unit.apply(edits)
        return n


#: qualifiers after a declarator's star: ``*restrict x``, ``*const x``
_QUALIFIERS_AFTER_STAR = regex.compile(r"\s*" + cstruct.POINTER_QUALIFIERS + "+")


def _null_items(code, init, edits):
    """The null items of an array of handles' brace initializer,
    ``{NULL, a}`` (a vectorcall array's free first slot), become
    ``Cystck_NULL``."""
    s, e = init
    if not code[s:e].startswith("{"):
        return
    for i0, i1 in source.split_top(code, s + 1, e - 1):
        item = code[i0:i1].strip()
        if item in proj.NULLS:
            at = code.index(item, i0)
            edits.add(at, at + len(item), "Cystck_NULL")


def _functor_argument(code, pos, start):
    """Is the expression at ``pos`` an argument of a C++ functor call,
    ``Op()( a, <here> )``?  Functors overload on their operands' struct
    types, so a cast there selects the overload and must keep its type."""
    depth = 0
    for i in range(pos - 1, start - 1, -1):
        c = code[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            if depth == 0:
                return c == "(" and code[start:i].rstrip().endswith(")")
            depth -= 1
        elif c in ";{}" and depth == 0:
            return False
    return False


# A stock pointer lent by the escape hatch: a cast of it is a stock cast.
_ESCAPED_POINTER = regex.compile(r"Cystck_AsPyObject\s*\(")


#: a cast to an item array of what names an array, ``(PyObject **)&args[1]``,
#: ``(PyObject **)(args + 1)``, ``(PyObject **)args``
_ITEM_ARRAY_CAST = regex.compile(r"(?P<cast>\(\s*(?:const\s+)?PyObject\s*\*\s*(?:const\s*)?\*\s*\))"
                                 r"\s*(?:&\s*(?P<a>\w+)\s*\[|\(?\s*(?P<a>\w+)\b(?!\s*\[))")


class Casts(Rule):
    """Casts between object pointer types mean nothing for handles:
    ``(PyObject *)x`` and ``(Foo *)x`` (Foo a custom type's struct) become
    ``x`` in functions that have the state (``(Foo *)*out`` becomes
    ``*out``, a handle read through a pointer; a cast of the stock pointer
    that ``Cystck_AsPyObject`` lends, or that the escape hatch marks,
    stays).  The C++ spellings
    ``reinterpret_cast<Foo*>( x )`` and ``static_cast<PyObject*>( x )`` are
    ``x`` too, except where a member is reached through the cast
    (``reinterpret_cast<Foo*>( x )->n`` becomes ``Foo_AsStruct(S, x)->n``)
    or where the cast picks a functor's overload (``Op()( a,
    reinterpret_cast<Foo*>( x ) )`` passes ``Foo_AsStruct(S, x)``).  A
    cast of a handle array (an entry point's ``args``, ``&args[1]``,
    ``args + 1``) to an item array, ``(PyObject **)&args[1]`` passed to a
    helper taking ``PyObject **`` (now ``Cystck_Object *``), is a cast to
    a handle array, ``(Cystck_Object *)&args[1]``."""
    name = "casts"
    precedence = 510
    patterns = (r"(?<!sizeof\s*)\(\s*(?:const\s+)?(?:struct\s+)?(?P<t>\w+)\s*\*\s*\)\s*(?=[\w(&!]|\*\s*\w)",
                r"\b(?:reinterpret|static)_cast\s*<\s*(?:const\s+)?(?:struct\s+)?(?P<t>\w+)\s*\*\s*>\s*"
                + _common.PAREN + r"(?P<arrow>\s*->)?")
    before = ("typedef struct { PyObject_HEAD long n; } Box;\n"
              "static PyObject *f(PyObject *o) { Box *b = (Box *)o; return (PyObject *)b; }\n"
              "static PyObject *g(PyObject *o) { Box *b = reinterpret_cast<Box*>( o );"
              " return PyLong_FromLong(reinterpret_cast<Box*>( o )->n); }\n"
              "static PyObject *h(PyObject *o) { return Op()( 1, reinterpret_cast<Box*>( o ) ); }\n")
    after = ("typedef struct { PyObject_HEAD long n; } Box;\n"
             "static PyObject *f(PyObject *o) { Box *b = o; return b; }\n"
             "static PyObject *g(PyObject *o) { Box *b = o;"
             " return PyLong_FromLong(Box_AsStruct(S, o)->n); }\n"
             "static PyObject *h(PyObject *o) { return Op()( 1, Box_AsStruct(S, o) ); }\n")

    def apply(self, unit):
        types = set(unit.project.custom_structs) | {"PyObject", "PyTypeObject", "PyListObject",
                                                      "PyTupleObject", "PyDictObject", "PyLongObject",
                                                      "PyFloatObject", "PyUnicodeObject", "PyBytesObject"}
        edits = source.Edits()
        code = unit.masked
        arrays = {c.func.start: c.arrays for c in _common.function_contexts(unit, with_locals=False)}
        for f, role in _common.state_functions(unit):
            b0, b1 = f.body
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                if m.group("t") in types and not _ESCAPED_POINTER.match(code, m.end()) \
                        and not escape.marked(unit.text, m.start()):
                    edits.add(m.start(), m.end(), "")
            for m in _ITEM_ARRAY_CAST.finditer(code, pos=b0, endpos=b1):
                if m.group("a") in arrays.get(f.start, ()) and not escape.marked(unit.text, m.start()):
                    edits.add(m.start(), m.end("cast"), "(Cystck_Object *)")
            # ``S`` is in scope where the signature has it or the function
            # will get it (the state-calls rule runs later).
            info = unit.project.function(unit.path, f.name)
            has_state = (role is not None or "Cystck_State" in code[f.params[0]:f.params[1]]
                         or (info is not None and info.needs_state))
            for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
                t = m.group("t")
                if t not in types:
                    continue          # a cast to a native or template type stays
                inner = unit.text[m.start("p") + 1:m.end("p") - 1].strip()
                typed = m.group("arrow") or _functor_argument(code, m.start(), b0)
                if typed:
                    if t not in unit.project.custom_structs or not has_state:
                        continue
                    edits.add(m.start(), m.start("arrow") if m.group("arrow") else m.end(),
                              f"{t}_AsStruct(S, {inner})")
                else:
                    edits.add(m.start(), m.end(), inner)
        if edits:
            unit.apply(edits)
        return edits.applied


class CastMacros(Rule):
    """A macro that only casts its argument to an object pointer type,
    ``#define OBJECT(o) ((PyObject *)(o))`` (or to a custom type's struct,
    ``#define BOX(o) ((Box *)(o))``), casts a handle, which means nothing:
    its body becomes ``(o)``, as the casts rule does where such a cast is
    written out (it cannot see through the macro).  Where the macro is used
    in a function that has the state, ``OBJECT(self) == other``, the use
    becomes its argument, so that the other rules see the handle (the
    identity test becomes ``Cystck_Is(S, self, other)``).  Casts to other
    types stay."""
    name = "cast-macros"
    precedence = 511
    patterns = (r"^(?P<head>[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\(\s*(?P<p>\w+)\s*\))[ \t]*"
                r"(?P<body>\(\s*\(\s*(?:const\s+)?(?:struct\s+)?(?P<t>\w+)\s*\*\s*\)\s*"
                r"(?:\(\s*(?P=p)\s*\)|(?P=p))\s*\))[ \t]*$",)
    before = ("typedef struct { PyObject_HEAD long n; } Box;\n"
              "#define OBJECT(O) ((PyObject*)(O))\n#define BOX(o) ((Box *)o)\n"
              "#define BYTES(p) ((unsigned char *)(p))\n"
              "static PyObject *f(PyObject *o) { return PyObject_Repr(OBJECT(BOX(o))); }\n"
              "static unsigned char g(char *p) { return *BYTES(p); }\n")
    after = ("typedef struct { PyObject_HEAD long n; } Box;\n"
             "#define OBJECT(O) (O)\n#define BOX(o) (o)\n"
             "#define BYTES(p) ((unsigned char *)(p))\n"
             "static PyObject *f(PyObject *o) { return PyObject_Repr(o); }\n"
             "static unsigned char g(char *p) { return *BYTES(p); }\n")

    def apply(self, unit):
        names = set()
        for text in unit.project.files.values():
            # (#define lines: no literal or comment spans them, the text will do)
            names |= self._cast_macros(unit.project, text)
        if not names:
            return 0
        n = unit.sub(self.patterns[0], lambda m, text: (
            f"{text[m.start():m.end('head')]} ({m.group('p')})" if m.group("name") in names else None),
            regex.M)
        nested = True
        while nested:           # a use inside another one's argument comes next time
            done, nested = self._strip_uses(unit, names)
            n += done
        return n

    def _cast_macros(self, project, text):
        types = set(project.custom_structs)
        return {m.group("name") for m in regex.finditer(self.patterns[0], text, regex.M)
                if regex.fullmatch(proj.OBJECT_TYPES, m.group("t")) or m.group("t") in types}

    @staticmethod
    def _strip_uses(unit, names):
        code, text, edits = unit.masked, unit.text, source.Edits()
        use = regex.compile(r"(?<![\w.>])(?:" + "|".join(map(regex.escape, sorted(names)))
                            + r")\s*" + source.paren("a"))
        nested = False
        if not use.search(code):
            return 0, False
        for ctx in _common.stateful_contexts(unit, with_locals=False):
            for m in use.finditer(code, *ctx.body):
                inner = text[m.start("a") + 1:m.end("a") - 1].strip()
                simple = regex.fullmatch(r"[\w.>-]+(?:\s*\((?:[^()]|\((?:[^()])*\))*\))?", inner)
                edits.add(m.start(), m.end(), inner if simple else f"({inner})")
                nested = nested or bool(use.search(code, m.start("a"), m.end("a")))
        if edits:
            unit.apply(edits)
        return edits.applied, nested


def _handle_returning_call(unit, group="c"):
    """A regex for a call of a function that returns a handle (its
    parentheses the group ``group``)."""
    names = {f.name for f in api.table() if f.ret == "h"}
    names |= {f.stock for f in api.table() if f.ret == "h" and f.stock}
    names |= unit.project.handle_makers(unit.path)
    alts = "|".join(map(regex.escape, sorted(names, key=len, reverse=True)))
    return rf"\b(?:{alts})\s*" + source.paren(group)


class NullHandles(Rule):
    """NULL on handles: ``h = NULL`` (or ``h = 0``; and ``*out = NULL`` through a
    pointer to a handle) becomes ``h = Cystck_NULL``; ``h ==
    NULL``, ``!h`` and ``(h = f(...)) == NULL`` become ``Cystck_IsNull(...)``;
    ``h != NULL`` (and ``NULL == f(x)``, a call returning a handle tested
    with the NULL first) and a bare ``if (h)`` (or ``assert(h)``) become
    ``!Cystck_IsNull(h)``; an assignment to a handle used as a truth value
    (``!(h = f(x))``, ``while ((h = f(x)))``, ``for (; (h = f(x)); )``)
    tests the handle it stores,
    ``Cystck_IsNull(h = f(x))``; a NULL branch of a conditional stored
    in a handle, ``h = c ? f(x) : NULL``, is ``Cystck_NULL``; in a chain ``a = h = NULL`` every target is a
    handle.  A handle alone in parentheses is tested the same way where the
    parentheses are (``if ((a) && (b))``: ``(!Cystck_IsNull(a))``; ``!(h)``:
    ``Cystck_IsNull(h)``); a call's or a cast's parentheses are none.  A ``0`` that only starts the value (``h = 0 ? a : b``, a
    macro's flag expanded into a condition) is no NULL.  A NULL that is a
    branch of a conditional whose other branch is a handle (a call that
    returns one, a handle, a conditional of handles: ``t = r ?
    PyTuple_Pack(2, a, b) : NULL``, ``f(r ? NULL : h)``) is the null
    handle; a return's value is left to the returns rule.  Only
    names declared as handles in the function (or members known to hold
    handles) are touched, so ``char *p == NULL`` stays as it is; ``*out``
    is a handle where ``out`` points at handles (``PyObject **out``)."""
    name = "null-handles"
    precedence = 520
    patterns = (r"(?P<h>H)\s*=(?!=)\s*(?:NULL|nullptr|0(?![\w.]))(?!\s*(?:[?+\-*/%^<>|&]|[=!]=))",
                r"(?P<h>H)\s*(?P<op>==|!=)\s*(?:NULL|nullptr|0(?![\w.]))",
                r"!\s*(?P<h>H)(?!\s*(?:->|\[|\(|\.|=))", r"(?<=(?:\bif|\bwhile|\bassert)\s*\(\s*|&&\s*|\|\|\s*)(?P<h>H)(?=\s*(?:\)|&&|\|\||\?))",
                r"(?<=\(\s*)(?P<h>H)(?=\s*(?:&&|\|\|))",
                r"(?<=(?<![=!<>])=\s*|[(,]\s*|\breturn\s+)(?P<h>H)(?=\s*\?)")
    before = ("static void f(PyObject *o, char *p)\n{\n    PyObject *r = NULL;\n    if (o == NULL || !r || p == NULL)\n        return;\n"
              "    if (r) r = NULL;\n    if (p && (o && r != 0))\n        return;\n"
              "    if (!(r = o) || !(p = strchr(p, 'x')))\n        return;\n    if ((o) && !(r))\n        return;\n}\n")
    after = ("static void f(PyObject *o, char *p)\n{\n    PyObject *r = Cystck_NULL;\n    if (Cystck_IsNull(o) || Cystck_IsNull(r) || p == NULL)\n        return;\n"
             "    if (!Cystck_IsNull(r)) r = Cystck_NULL;\n    if (p && (!Cystck_IsNull(o) && !Cystck_IsNull(r)))\n        return;\n"
             "    if (Cystck_IsNull(r = o) || !(p = strchr(p, 'x')))\n        return;\n"
             "    if ((!Cystck_IsNull(o)) && Cystck_IsNull(r))\n        return;\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        calls = _handle_returning_call(unit)
        hx, p = _common.HX, unit.project
        assign_in_test = regex.compile(source.paren("p") + r"\s*(?P<op>==|!=)\s*(?:NULL|nullptr)\b")
        inner_assign = regex.compile(rf"\s*(?P<h>{hx})\s*=(?!=)")
        call_only = regex.compile(r"\s*" + calls + r"\s*")
        calls_full = regex.compile(calls)
        call_test = regex.compile(calls + r"\s*(?P<op>==|!=)\s*(?:NULL|nullptr)\b")
        null_first = regex.compile(rf"(?:NULL|nullptr)\s*(?P<op>==|!=)\s*(?P<h>{hx})")
        # NULL == f(x): the test written with the NULL first
        null_first_call = regex.compile(r"(?<![\w.>])(?:NULL|nullptr)\s*(?P<op>==|!=)\s*(?P<call>" + calls
                                        + r")(?!\s*(?:->|\[|\.|\())")
        assign_opens = regex.compile(rf"\(\s*(?P<h>{hx})\s*=(?!=)")
        assign_value = regex.compile(rf"(?<![\w.>])(?P<h>{hx})\s*=(?!=)\s*")
        pats = [regex.compile(pat.replace("H", hx)) for pat in self.patterns]
        # (h), not a call's or a cast's parentheses, f(h) or (T)(h)
        parenthesized = regex.compile(rf"(?<![\w\])\]]\s*)\(\s*(?P<h>{hx})\s*\)")
        def scan_tests(ctx, b0, b1):
            # (h = expr) == NULL
            for m in assign_in_test.finditer(code, b0, b1):
                inner = code[m.start("p") + 1:m.end("p") - 1]
                a = inner_assign.match(inner)
                if (a and _common.is_handle(a.group("h"), ctx, p)) or call_only.fullmatch(inner):
                    neg = "!" if m.group("op") == "!=" else ""
                    edits.add(m.start(), m.end(), f"{neg}Cystck_IsNull({text[m.start('p') + 1:m.end('p') - 1].strip()})")
            for m in call_test.finditer(code, b0, b1):
                neg = "!" if m.group("op") == "!=" else ""
                edits.add(m.start(), m.end(), f"{neg}Cystck_IsNull({text[m.start():m.end('c')]})")
            for m in null_first_call.finditer(code, b0, b1):
                neg = "!" if m.group("op") == "!=" else ""
                edits.add(m.start(), m.end(), f"{neg}Cystck_IsNull({text[m.start('call'):m.end('call')]})")
            for m in null_first.finditer(code, b0, b1):
                if _common.is_handle(text[m.start("h"):m.end("h")], ctx, p):
                    neg = "!" if m.group("op") == "!=" else ""
                    edits.add(m.start(), m.end(), f"{neg}Cystck_IsNull({text[m.start('h'):m.end('h')]})")
            for m in assign_opens.finditer(code, b0, b1):
                if _common.is_handle(m.group("h"), ctx, p):
                    test = self._assignment_as_truth(code, text, m.start())
                    if test:
                        edits.add(*test)

        def scan(ctx, b0, b1):
            def handle(m, group="h"):
                name = text[m.start(group):m.end(group)]
                return not ctx.out_of_scope(name, m.start(group)) and _common.is_handle(name, ctx, p)
            scan_tests(ctx, b0, b1)
            for m in pats[0].finditer(code, b0, b1):
                # a chained assignment (a = h = NULL) stores into every
                # target, a comparison (x == h = ...) is none
                if not handle(m) or regex.search(r"(?:[=!<>]=|[<>])\s*$", code[max(0, m.start() - 3):m.start()]):
                    continue
                eq = code.index("=", m.end("h"))
                edits.add(eq, m.end(), "= Cystck_NULL")
            # h = c ? f(x) : NULL: the null branch of the value stored
            for m in assign_value.finditer(code, b0, b1):
                if not handle(m) or regex.search(r"(?:[=!<>]=|[<>])\s*$", code[max(0, m.start() - 3):m.start()]):
                    continue
                for null in _common.conditional_nulls(code, m.end(), _common.expression_end(code, m.end(), b1)):
                    edits.add(*null, "Cystck_NULL")
            for m in pats[1].finditer(code, b0, b1):
                if handle(m):
                    neg = "!" if m.group("op") == "!=" else ""
                    edits.add(m.start(), m.end(), f"{neg}Cystck_IsNull({text[m.start('h'):m.end('h')]})")
            for m in pats[2].finditer(code, b0, b1):
                if handle(m):
                    edits.add(m.start(), m.end(), f"Cystck_IsNull({text[m.start('h'):m.end('h')]})")
            for pat in pats[3:]:
                for m in pat.finditer(code, b0, b1):
                    if handle(m) and not regex.search(r"!\s*$", code[max(0, m.start() - 3):m.start()]):
                        edits.add(m.start(), m.end(), f"!Cystck_IsNull({text[m.start('h'):m.end('h')]})")
            # c ? f(x) : NULL, c ? NULL : h: a branch next to a handle
            for n0, n1 in self._conditional_nulls(code, b0, b1, lambda e: self._handle_value(e, ctx, p, calls_full)):
                edits.add(n0, n1, "Cystck_NULL")
            # a handle alone in parentheses, tested: if ((a) && (b)), !(h)
            for m in parenthesized.finditer(code, b0, b1):
                if not handle(m):
                    continue
                h = text[m.start("h"):m.end("h")]
                bang = self._NOT_BEFORE.search(code, max(0, m.start() - 12), m.start())
                if bang:
                    edits.add(bang.start(), m.end(), f"Cystck_IsNull({h})")
                elif _common.tested_for_truth(code, m.start(), m.end()):
                    edits.add(m.start(), m.end(), f"(!Cystck_IsNull({h}))")

        for ctx in _common.stateful_contexts(unit):
            scan(ctx, *ctx.body)
            self._through_pointers(code, ctx, edits)
        # macros: members known to hold handles, and the locals that are
        # handles in every function expanding the macro
        in_users = {start: ctx for start, _, ctx in macro_contexts(unit)}
        empty = _common.FunctionContext(None, None, [])
        for m in regex.finditer(r"^[ \t]*#[ \t]*define[ \t]+\w+(?:\([^)]*\))?(?:[^\n\\]|\\.|\\\n)*", code, regex.M):
            scan(in_users.get(m.start(), empty), m.start(), m.end())
        if edits:
            unit.apply(edits)
        return edits.applied

    # a `!` before a parenthesized value tests it
    _NOT_BEFORE = regex.compile(r"(?<![=!<>])!\s*$")

    _NULL = regex.compile(r"\b(?:NULL|nullptr)\b")
    _HANDLE_CAST = regex.compile(r"\(\s*(?:Cystck_Object|PyObject\s*\*)\s*\)\s*")
    _HANDLE_CONSTANT = regex.compile(r"Cystck_(?:NULL|None|True|False|NotImplemented|Ellipsis)")

    def _handle_value(self, expr, ctx, project, calls):
        """Is the expression text ``expr`` a handle: a call of a function
        that returns one, a name known to be one, a handle constant, or a
        conditional whose branches are (a NULL among them)?"""
        e = source.unparen(expr)
        cast = self._HANDLE_CAST.match(e)
        if cast:
            e = source.unparen(e[cast.end():])
        if calls.fullmatch(e):
            # a stock function the api-calls rule does not rename (one
            # whose counterpart differs, PyObject_New) stays stock
            name = regex.match(r"\w+", e).group()
            return not regex.match(r"_?Py", name) or name in api.stock_map()
        if self._HANDLE_CONSTANT.fullmatch(e):
            return True
        if regex.fullmatch(r"[A-Za-z_]\w*", e):
            return _common.is_handle(e, ctx, project)
        q = _common.conditional_split(e)
        if q:
            branches = [e[q[0] + 1:q[1]], e[q[1] + 1:]]
            values = [b for b in branches if not self._NULL.fullmatch(b.strip())]
            return bool(values) and all(self._handle_value(b, ctx, project, calls) for b in values)
        return False

    def _conditional_nulls(self, code, b0, b1, is_handle):
        """Spans of the NULLs in [b0, b1) that are a branch of a
        conditional expression whose other branch is a handle (``c ?
        f(x) : NULL``, ``c ? NULL : h``): the null handle.  A return's
        value is left to the returns rule (an entry point's null branch
        returns -1)."""
        out = []
        for m in self._NULL.finditer(code, b0, b1):
            before = code[b0:m.start()].rstrip()
            after = code[m.end():b1]
            if before.endswith("?") and regex.match(r"\s*:(?!:)", after):
                colon = m.end() + after.index(":")
                other = (colon + 1, _common.expression_end(code, colon + 1, b1))
                question = b0 + len(before) - 1
            elif before.endswith(":") and not before.endswith("::") and regex.match(r"\s*(?:[);,:\]}]|$)", after):
                colon = b0 + len(before) - 1
                question = _common.question_of(code, colon, b0)
                if question is None:
                    continue
                other = (question + 1, colon)
            else:
                continue
            if self._returns_own(code, question, m.start(), m.end(), b0, b1) or not is_handle(code[other[0]:other[1]]):
                continue
            out.append((m.start(), m.end()))
        return out

    @staticmethod
    def _returns_own(code, question, n0, n1, b0, b1):
        """Is the NULL at [n0, n1) one the returns rule takes, a branch of
        the conditional a ``return`` statement's value is (its ``?`` at
        ``question`` outside any bracket of the value)?"""
        stmt = max(b0, max(code.rfind(c, b0, n0) for c in ";{}") + 1)
        ret = regex.compile(r"\s*(?:\w+\s*:(?!:)\s*)?return\b").match(code, stmt, n0)
        if not ret or source.top_level_find(code, ret.end(), question + 1, "?") != question:
            return False
        semi = code.find(";", n1, b1)
        return (n0, n1) in _common.conditional_nulls(code, ret.end(), semi if semi >= 0 else b1)

    def _assignment_as_truth(self, code, text, start):
        """The edit that tests the handle an assignment ``(h = expr)`` at
        ``start`` stores, where its value is used as a truth value: ``!(h
        = f(x))`` becomes ``Cystck_IsNull(h = f(x))``, ``if ((h = f(x)))``
        and ``(h = f(x)) && ...`` become ``!Cystck_IsNull(h = f(x))``;
        None where the value is compared (``== NULL``, handled above) or
        used otherwise."""
        close = source.matching(code, start)
        assignment = text[start + 1:close - 1].strip()
        before = code[max(0, start - 12):start]
        if self._NOT_BEFORE.search(before):
            bang = start - len(before) + before.rstrip().rfind("!")
            return bang, close, f"Cystck_IsNull({assignment})"
        if _common.tested_for_truth(code, start, close):
            return start, close, f"!Cystck_IsNull({assignment})"
        return None

    _DEREF = r"\*\s*(?P<p>\w+)\b(?!\s*(?:\[|->|\.|\())"
    # not `Cystck_Object *out = NULL` (a declaration) nor `n * k == 0`, but
    # `return *out == NULL`, `else *out = NULL`
    _NOT_A_DECLARATION = r"(?:(?<=\b(?:return|else)\s*)|(?<![\w\]]\s*))"
    _THROUGH_POINTER = (
        (regex.compile(_NOT_A_DECLARATION + _DEREF + r"\s*(?P<op>==|!=)\s*(?:NULL|nullptr|0(?![\w.]))"),
         lambda m, h: ("!" if m.group("op") == "!=" else "") + f"Cystck_IsNull({h})"),
        (regex.compile(r"!\s*" + _DEREF + r"(?!\s*=)"), lambda m, h: f"Cystck_IsNull({h})"),
        (regex.compile(r"(?<=(?:\bif|\bwhile)\s*\(\s*|&&\s*|\|\|\s*)" + _DEREF + r"(?=\s*(?:\)|&&|\|\||\?))"),
         lambda m, h: f"!Cystck_IsNull({h})"),
        (regex.compile(_NOT_A_DECLARATION + _DEREF + r"(?P<eq>\s*=\s*)(?:NULL|nullptr)\b"),
         lambda m, h: f"{h}{m.group('eq')}Cystck_NULL"),
        # (*out && x), r = *out ? a : b
        (regex.compile(r"(?<=\(\s*)" + _DEREF + r"(?=\s*(?:&&|\|\|))"), lambda m, h: f"!Cystck_IsNull({h})"),
        (regex.compile(r"(?<=(?<![=!<>])=\s*|[(,]\s*|\breturn\s+)" + _DEREF + r"(?=\s*\?)"),
         lambda m, h: f"!Cystck_IsNull({h})"),
    )

    def _through_pointers(self, code, ctx, edits):
        """The same tests and stores on a handle read through a pointer,
        ``*out`` (``out`` a ``PyObject **`` output parameter): ``if
        (*out)`` becomes ``if (!Cystck_IsNull(*out))``, ``*out = NULL``
        ``*out = Cystck_NULL``."""
        b0, b1 = ctx.body
        for pattern, new in self._THROUGH_POINTER:
            for m in pattern.finditer(code, b0, b1):
                if m.group("p") in ctx.arrays:
                    edits.add(m.start(), m.end(), new(m, f"*{m.group('p')}"))


class HandleIdentity(Rule):
    """``a == b`` on two handles (``o == Py_None``, ``key == Py_True``,
    ``o != (PyObject *)&PyFloat_Type``, two object fields ``self->a ==
    self->b``, a handle and a global reference ``o == cached``, a handle
    and one of the extension's static types ``base != &FooType``, a handle
    constant and a call returning a handle ``Py_None == f(x)``) becomes ``Cystck_Is(S, a, b)``; ``!=`` becomes
    ``!Cystck_Is(...)``."""
    name = "handle-identity"
    precedence = 530
    needs = ("struct-access",)     # a field's value is a CystckField_Load
    patterns = (r"(?P<a>H)\s*(?P<op>==|!=)\s*(?P<b>H)",
                r"(?P<a>H)\s*(?P<op>==|!=)\s*(?P<b>CystckField_Load\s*" + _common.PAREN + ")")
    before = ("typedef struct { PyObject_HEAD PyObject *v; PyObject *w; } Box;\n"
              "static int f(PyObject *o, Box *b) { return o == Py_None || o != b->v || b->v == Py_None"
              " || b->v != b->w; }\n")
    after = ("typedef struct { PyObject_HEAD PyObject *v; PyObject *w; } Box;\n"
             "static int f(PyObject *o, Box *b) { return Cystck_Is(S, o, Py_None) || "
             "!Cystck_Is(S, o, CystckField_Load(S, b, Box_AsStruct(S, b)->v))"
             " || Cystck_Is(S, CystckField_Load(S, b, Box_AsStruct(S, b)->v), Py_None)"
             " || !Cystck_Is(S, CystckField_Load(S, b, Box_AsStruct(S, b)->v), "
             "CystckField_Load(S, b, Box_AsStruct(S, b)->w)); }\n")

    @staticmethod
    def _object(expr, ctx, project):
        """A handle, or a global reference (``PyObject *g``, made a
        ``Cystck_Ref`` by global-refs, which reads it in the
        ``Cystck_Is``)."""
        name = expr.strip()
        return _common.is_handle(expr, ctx, project) or (
            name in project.globals and name not in ctx.plain and name not in ctx.data_ptrs
            and not any(p.name == name for p in ctx.params))

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        pat = regex.compile(self.patterns[0].replace("H", _common.HX))
        field = regex.compile(self.patterns[1].replace("(?P<a>H)", "(?P<a>" + _common.HX + ")"))
        builtin_type = regex.compile(r"(?P<a>CystckField_Load\s*" + _common.PAREN + "|" + _common.HX + r")\s*"
                                     r"(?P<op>==|!=)\s*(?P<b>(?:\(\s*PyObject\s*\*\s*\)\s*)?&\s*Py\w+_Type\b)")
        field_first = regex.compile(r"(?P<a>CystckField_Load\s*" + _common.PAREN + r")\s*(?P<op>==|!=)\s*"
                                    r"(?P<b>" + _common.HX + ")")
        both_fields = regex.compile(r"(?P<a>CystckField_Load\s*" + _common.PAREN + r")\s*(?P<op>==|!=)\s*"
                                    r"(?P<b>CystckField_Load\s*" + source.paren("q") + ")")
        constants = "|".join(sorted(_common.HANDLE_CONSTANTS, key=len, reverse=True))
        call, call2 = _handle_returning_call(unit), _handle_returning_call(unit, "c2")
        not_more = r"(?!\s*(?:->|\[|\.|\(|[-+*/%&|^<>]=?(?![|&])))"
        constant_call = regex.compile(
            rf"(?<![\w.>])(?P<a>{constants})\s*(?P<op>==|!=)\s*(?P<b>{call}){not_more}"
            rf"|(?<![\w.>])(?P<a>{call2})\s*(?P<op>==|!=)\s*(?P<b>{constants})\b")
        own_type = None
        if unit.project.type_objects:
            cast = r"\(\s*(?:struct\s+)?\w+\s*\*\s*\)\s*"
            own_type = regex.compile(r"(?:(?<![\w.>\])])\(\s*" + cast + r"(?P<a>[A-Za-z_]\w*)\s*\)"
                                     r"|(?<![\w.>\])])\(\s*\(\s*(?P<a>[A-Za-z_]\w*)\s*\)\s*\)"
                                     r"|(?:" + cast + r")?(?P<a>" + _common.HX + r"))"
                                     r"\s*(?P<op>==|!=)\s*(?P<b>(?:\(\s*PyObject\s*\*\s*\)\s*)?"
                                     r"&\s*(?:" + "|".join(map(regex.escape, unit.project.type_objects)) + r")\b)")
        for ctx in _common.stateful_contexts(unit):
            b0, b1 = ctx.body
            # a handle compared with one of the extension's static types
            # (a reference once global-refs has run): ``base != &FooType``
            for m in (own_type.finditer(code, b0, b1) if own_type else ()):
                a, b = source.unparen(text[m.start("a"):m.end("a")].strip()), text[m.start("b"):m.end("b")]
                if _common.is_handle(a, ctx, unit.project):
                    neg = "!" if m.group("op") == "!=" else ""
                    edits.add(m.start(), m.end(), f"{neg}Cystck_Is(S, {a.strip()}, {b.strip()})")
            # two fields' values: self->a != self->b
            for m in both_fields.finditer(code, b0, b1):
                a, b = text[m.start("a"):m.end("a")], text[m.start("b"):m.end("b")]
                neg = "!" if m.group("op") == "!=" else ""
                edits.add(m.start(), m.end(), f"{neg}Cystck_Is(S, {a.strip()}, {b.strip()})")
            for m in pat.finditer(code, b0, b1):
                a, b = text[m.start("a"):m.end("a")], text[m.start("b"):m.end("b")]
                if not (self._object(a, ctx, unit.project) and self._object(b, ctx, unit.project)):
                    continue
                neg = "!" if m.group("op") == "!=" else ""
                edits.add(m.start(), m.end(), f"{neg}Cystck_Is(S, {a.strip()}, {b.strip()})")
            # a handle compared with a field's value (struct-access made it a load)
            for m in field.finditer(code, b0, b1):
                a, b = text[m.start("a"):m.end("a")], text[m.start("b"):m.end("b")]
                if _common.is_handle(a, ctx, unit.project):
                    neg = "!" if m.group("op") == "!=" else ""
                    edits.add(m.start(), m.end(), f"{neg}Cystck_Is(S, {a.strip()}, {b.strip()})")
            # the same with the field's value first: s->v == Py_None
            for m in field_first.finditer(code, b0, b1):
                a, b = text[m.start("a"):m.end("a")], text[m.start("b"):m.end("b")]
                if _common.is_handle(b, ctx, unit.project):
                    neg = "!" if m.group("op") == "!=" else ""
                    edits.add(m.start(), m.end(), f"{neg}Cystck_Is(S, {a.strip()}, {b.strip()})")
            # a handle constant compared with a call that returns a handle
            # (Py_None == f(x), f(x) != Py_True): the call's handle
            for m in constant_call.finditer(code, b0, b1):
                a, b = text[m.start("a"):m.end("a")], text[m.start("b"):m.end("b")]
                neg = "!" if m.group("op") == "!=" else ""
                edits.add(m.start(), m.end(), f"{neg}Cystck_Is(S, {a.strip()}, {b.strip()})")
            # a handle or a field's value compared with a builtin type object
            # (a constant handle once the constants rule has run)
            for m in builtin_type.finditer(code, b0, b1):
                a, b = text[m.start("a"):m.end("a")], text[m.start("b"):m.end("b")]
                if a.lstrip().startswith("CystckField_Load") or _common.is_handle(a, ctx, unit.project):
                    neg = "!" if m.group("op") == "!=" else ""
                    edits.add(m.start(), m.end(), f"{neg}Cystck_Is(S, {a.strip()}, {b.strip()})")
        if edits:
            unit.apply(edits)
        return edits.applied


def _returning_functions(unit):
    """(function, mode) for each definition whose returns the Cystck
    conventions change: "push" for entry points and init functions (they
    return a push count), "handle" for helpers returning an object."""
    code = unit.masked
    structs = unit.project.custom_structs
    for f in unit.functions():
        if not f.is_definition:
            continue
        role = unit.project.role(f.name)
        head = split_scope(code[f.start:f.name_start])[0]
        info = unit.project.functions.get((unit.path, f.name))
        if info is not None and info.translated:
            continue          # its returns are Cystck's already
        if role is not None and role.pushes:
            yield f, "push"
        elif role is None and (returns_object(head, structs) or f.name.startswith("PyInit_")):
            yield f, "push" if f.name.startswith("PyInit_") else "handle"


class MacroReturns(Rule):
    """``return NULL;`` inside a macro body returns from the function that
    expands the macro, and the returns rule cannot see it there.  When every
    function using the macro has the same error value, the macro's ``return
    NULL`` becomes it: ``return -1;`` where entry points (push counts) use
    it, ``return Cystck_NULL;`` where helpers returning a handle do.  Mixed
    users are reported as an error: the macro must be split by hand (an
    entry point returning NULL would be read as a push count of 0 with an
    exception set).  Users are found across files, through other macros
    too."""
    name = "macro-returns"
    precedence = 545
    # A closing parenthesis only after an opening one: in ``M(v, return
    # NULL)`` it ends the call.
    patterns = (r"\breturn\s*(?P<paren>\(\s*)?NULL\b(?(paren)\s*\))(?P<semi>\s*;)?",)
    before = ("#define CHECK(v) do { if ((v) < 0) return NULL; } while (0)\n"
              "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    CHECK(PyLong_AsLong(arg));\n"
              "    Py_RETURN_NONE;\n}\n"
              "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    after = ("#define CHECK(v) do { if ((v) < 0) return -1; } while (0)\n"
             "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    CHECK(PyLong_AsLong(arg));\n"
             "    Py_RETURN_NONE;\n}\n"
             "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")

    def apply(self, unit):
        code = unit.masked
        edits = source.Edits()
        users = None
        for m in MACRO_DEFINITION.finditer(code):
            returns = list(regex.finditer(self.patterns[0], code, pos=m.start("body"), endpos=m.end("body")))
            if not returns:
                continue
            if users is None:
                users = macro_users(unit.project)
            name = m.group("name")
            errors = {f: _error_value(unit.project, f) for f in sorted(users.get(name, ()))}
            values = set(errors.values())
            if len(values) == 1 and values != {"NULL"}:
                    value = values.pop()
                    for r in returns:
                        edits.add(r.start(), r.end(), f"return {value}" + (";" if r.group("semi") else ""))
            elif len(values) > 1:
                unit.leftover(m.start(), f"error: return NULL in macro {name}, which functions with different "
                              f"error values expand ({', '.join(f'{f}: {v}' for f, v in errors.items())}): "
                              "split the macro, or the entry points return a wrong value", self.name)
        if edits:
            unit.apply(edits)
        return edits.applied


class MacroReturnArguments(Rule):
    """A macro that returns one of its parameters, ``#define
    RAISE_IF(self, ret) if (...) { ...; return ret; }``, returns from the
    function expanding it whatever that function passes: ``RAISE_IF(self,
    NULL)`` in an entry point (a push count now) passes its error value,
    ``-1``, and in a helper returning a handle ``Cystck_NULL``.  Other
    arguments (``-1`` from an int slot) and uses in functions whose
    convention did not change are left alone."""
    name = "macro-return-arguments"
    precedence = 546
    patterns = (r"\breturn(?:\s+(?P<p>\w+)|\s*\(\s*(?P<p>\w+)\s*\))\s*(?:;|$)",)
    before = ("#define CHECK(v, ret) do { if ((v) < 0) return ret; } while (0)\n"
              "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    CHECK(PyLong_AsLong(arg), NULL);\n"
              "    Py_RETURN_NONE;\n}\n"
              "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    after = ("#define CHECK(v, ret) do { if ((v) < 0) return ret; } while (0)\n"
             "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    CHECK(PyLong_AsLong(arg), -1);\n"
             "    Py_RETURN_NONE;\n}\n"
             "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")

    def apply(self, unit):
        code = unit.masked
        returned = self._returned_parameters(unit.project)
        if not returned:
            return 0
        edits = source.Edits()
        contexts = {ctx.func.start: ctx for ctx in _common.function_contexts(unit)}
        for f in unit.functions():
            if not f.is_definition or not f.body:
                continue
            value = _error_value(unit.project, f.name)
            if value == "NULL":
                continue
            role = unit.project.role(f.name)
            ctx = contexts.get(f.start)
            b0, b1 = f.body
            for name, positions in returned.items():
                for use in regex.finditer(rf"(?<![\w.>]){name}\s*\(", code, pos=b0, endpos=b1):
                    close = source.matching(code, use.end() - 1)
                    args = source.split_top(code, use.end(), close - 1)
                    for i in positions:
                        if i >= len(args):
                            continue
                        s, e = args[i]
                        arg = code[s:e].strip()
                        lead = len(code[s:e]) - len(code[s:e].lstrip())
                        if arg in NULLS_RETURNED:
                            edits.add(s + lead, s + lead + len(arg), value)
                        elif role is not None and role.pushes and ctx is not None and ctx.has_state \
                                and regex.fullmatch(r"[A-Za-z_]\w*", arg) and _common.is_handle(arg, ctx, unit.project):
                            # an entry point returns its push count: the object is pushed
                            edits.add(s + lead, s + lead + len(arg), f"Cystck_Return(S, {arg})")
        if edits:
            unit.apply(edits)
        return edits.applied

    def _returned_parameters(self, project):
        """Macro name -> positions of the parameters its body returns."""
        found = {}
        for text in project.files.values():
            for m in MACRO_DEFINITION.finditer(source.mask(text)):
                if not m.group("args"):
                    continue
                params = [a.strip() for a in m.group("args")[1:-1].split(",")]
                positions = {params.index(r.group("p"))
                             for r in regex.finditer(self.patterns[0], m.group("body")) if r.group("p") in params}
                if positions:
                    found[m.group("name")] = positions
        return found


#: what a stock function returns for its error, passed to a macro that returns it
NULLS_RETURNED = ("NULL", "nullptr", "(PyObject *)NULL", "(PyObject *) NULL")


MACRO_DEFINITION = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)(?P<args>\([^)]*\))?"
                                 r"(?P<body>(?:[^\n\\]|\\.|\\\n)*)", regex.M | regex.S)


def macro_users(project):
    """Macro name -> names of the functions whose bodies expand it,
    directly or through other macros."""
    bodies = {}
    for text in project.files.values():
        for m in MACRO_DEFINITION.finditer(source.mask(text)):
            bodies[m.group("name")] = m.group("body")
    direct = {name: set() for name in bodies}
    for info in project.functions.values():
        for word in set(_WORD.findall(info.body)) & set(bodies):
            direct[word].add(info.name)
    users = {name: set(fs) for name, fs in direct.items()}
    changed = True
    while changed:                # a macro used by a macro has its users
        changed = False
        for outer, body in bodies.items():
            for inner in set(_WORD.findall(body)) & set(bodies):
                if inner != outer and not users[outer] <= users[inner]:
                    users[inner] |= users[outer]
                    changed = True
    return users


def macro_contexts(unit):
    """(start, end, context) of each ``#define`` in ``unit`` whose users
    (the functions expanding it) are all functions of ``unit`` with the
    state: the context's handles are the names that are handles in every
    user (the macro reads the locals of the function that expands it),
    minus the macro's own parameters, plus the object locals the macro's
    body declares (which the declarations rule makes handles)."""
    users = macro_users(unit.project)
    contexts = {}
    for ctx in _common.function_contexts(unit):
        contexts.setdefault(ctx.func.name, []).append((ctx, unit.masked))
    out = []
    for m in MACRO_DEFINITION.finditer(unit.masked):
        names = users.get(m.group("name"))
        if not names:
            continue
        for n in names - set(contexts):
            _stock_contexts(unit, n, contexts)
        if not all(n in contexts and all(c.has_state for c, _ in contexts[n]) for n in names):
            continue
        pairs = [c for n in names for c in contexts[n]]
        # of a function defined once per branch, the versions that expand it
        word = regex.compile(rf"\b{m.group('name')}\b")
        expanding = [(c, code) for c, code in pairs if word.search(code, *c.body)]
        ctxs = [c for c, _ in expanding] or [c for c, _ in pairs]
        params = regex.findall(r"\w+", m.group("args") or "")
        ctx = _common.FunctionContext(None, None, [])
        ctx.handles = (set.intersection(*(c.handles for c in ctxs)) - set(params)) | \
            _declared_objects(unit, m.start(), m.end())
        if {c.func.name for c, _ in expanding} >= names:    # (else some expand it through a macro)
            handles, ctx.nullable = _handle_params(m.group("name"), params, expanding, unit.project)
            ctx.handles |= handles
        ctx.typed = {h: t for h, t in ctxs[0].typed.items() if h not in params and all(c.typed.get(h) == t for c in ctxs)}
        out.append((m.start(), m.end(), ctx))
    return out


def _handle_params(name, params, users, project):
    """The parameters of function-like macro ``name`` that every use in
    ``users`` ((context, masked code) of the functions expanding it)
    gives a handle (``maybe_release(flag, obj)`` with ``obj`` an object
    each time): in the body they are handles too, tested with
    ``Cystck_IsNull`` and released like one.  A use through another
    macro, or with another count of arguments, makes it none.  Returns
    (those parameters, the ones some use gives a null pointer instead,
    ``FAIL(NULL)`` or through the project's macros ``FAIL(MARK(NULL))``,
    and the others a handle: stock, the body's ``Py_XDECREF`` of them
    takes either)."""
    if not params or not users:
        return set(), set()
    call = regex.compile(rf"(?<![\w.>]){name}\s*" + source.paren("a"))
    found, nullable, null = set(params), set(params), set()
    for ctx, code in users:
        uses = list(call.finditer(code, *ctx.body))
        if not uses:
            return set(), set()
        for c in uses:
            args = [code[s:e].strip() for s, e in source.split_top(code, c.start("a") + 1, c.end("a") - 1)]
            if len(args) != len(params):
                return set(), set()
            handles = {p for p, a in zip(params, args) if _common.is_handle(a, ctx, project)
                       and not _global_alias(a, ctx, code, project)}
            nulls = {p for p, a in zip(params, args) if p not in handles and _is_null_pointer(a, project)}
            found &= handles
            nullable &= handles | nulls
            null |= nulls
    return found, nullable & null


_NULL_POINTER = regex.compile(r"(?:\(\s*)*(?:NULL|0|nullptr|\(\s*void\s*\*\s*\)\s*0)(?:\s*\))*")


def _is_null_pointer(arg, project):
    """Is ``arg`` (masked) a null pointer constant, once the project's
    macros are expanded (``MARK(NULL)`` with ``#define MARK(x) (x)``)?"""
    if _NULL_POINTER.fullmatch(arg):
        return True
    if not regex.fullmatch(r"\w+\s*\(.*\)", arg, regex.S):
        return False
    if project.macro_definitions is None:
        project.macro_definitions = macros.project_macros(project.files.values())
    try:
        return bool(_NULL_POINTER.fullmatch(macros.expand_fully(arg, project.macro_definitions).strip()))
    except macros.Unexpandable:
        return False


def _global_alias(arg, ctx, code, project):
    """Is ``arg`` a local that the function sets from a global object
    (``PyObject *o = cache;``)?  Released in a macro, it releases the
    global's reference, which dropping a handle would not: it stays."""
    return bool(regex.fullmatch(r"\w+", arg)) and any(
        m.group(1) in project.globals
        for m in regex.compile(rf"(?<![\w.>]){arg}\s*=\s*(\w+)\s*;").finditer(code, *ctx.body))


def _declared_objects(unit, start, end):
    """The names that declarations between ``start`` and ``end`` of
    ``unit`` declare as objects (``PyObject *x``, or ``Cystck_Object x``
    once translated)."""
    from .. import cstruct
    code, names = unit.masked, set()
    for m in _common.decl_pattern(unit.project.custom_structs).finditer(code, start, end):
        parsed = cstruct.split_declaration(code, m.start("decl"), m.end("decl"))
        if parsed and not regex.match(r"\s*static\b", m.group("decl")):
            base_is_handle = m.group("base").startswith("Cystck_Object")
            names |= {d.name for d in parsed[1] if d.pointer == ("" if base_is_handle else "*") and not d.array}
    return names


def _stock_contexts(unit, name, contexts):
    """Add to ``contexts`` the contexts of function ``name`` defined in
    another file of the project (a template body the file includes), read
    from that file's stock text."""
    from ..engine import Unit
    for path, n in list(unit.project.functions):
        if n == name and path != unit.path and path in unit.project.files:
            other = Unit(path, unit.project.files[path], unit.project)
            for ctx in _common.function_contexts(other):
                if ctx.func.name == name:
                    contexts.setdefault(name, []).append((ctx, other.masked))


def _error_value(project, name):
    """What ``return NULL`` must become in function ``name``."""
    role = project.role(name)
    if (role is not None and role.pushes) or name.startswith("PyInit_"):
        return "-1"
    infos = [i for (_, n), i in project.functions.items() if n == name]
    if role is None and infos and all(i.returns_handle for i in infos):
        return "Cystck_NULL"
    return "NULL"


class ReturnCValue(Rule):
    """An entry point returning a C value converted to an object, ``return
    PyFloat_FromDouble(x);``, pushes it: ``return Cystck_ReturnDouble(S,
    x);``.  The object never gets a handle, where ``Cystck_Return(S,
    CystckFloat_FromDouble(S, x))`` gives it a slot and moves it out again.
    Likewise ``PyLong_FromLong``, ``PyLong_FromSsize_t``,
    ``PyLong_FromLongLong``, ``PyBool_FromLong``, ``PyUnicode_FromString``
    and ``PyUnicode_FromStringAndSize``, when the call is the whole returned
    expression."""
    name = "return-c-value"
    precedence = 538
    patterns = (r"\breturn\s+(?P<f>PyFloat_FromDouble|PyLong_FromLong|PyLong_FromSsize_t|PyLong_FromLongLong"
                r"|PyBool_FromLong|PyUnicode_FromString|PyUnicode_FromStringAndSize)\s*\(",)
    before = ("static PyObject *get_x(PyObject *self, void *closure)\n{\n"
              "    return PyFloat_FromDouble(((Point *)self)->x);\n}\n"
              "static PyObject *f(PyObject *self, PyObject *arg)\n{\n"
              "    return PyLong_FromLong(PyLong_AsLong(arg) + 1) ;\n}\n"
              "static PyObject *g(PyObject *self, PyObject *arg)\n{\n"
              "    return PyLong_FromLong(1) + 0;\n}\n"
              "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {\"g\", g, METH_O, NULL}, {NULL}};\n"
              "static PyGetSetDef gs[] = {{\"x\", get_x, NULL, NULL, NULL}, {NULL}};\n")
    after = ("static PyObject *get_x(PyObject *self, void *closure)\n{\n"
             "    return Cystck_ReturnDouble(S, ((Point *)self)->x);\n}\n"
             "static PyObject *f(PyObject *self, PyObject *arg)\n{\n"
             "    return Cystck_ReturnLong(S, PyLong_AsLong(arg) + 1) ;\n}\n"
             "static PyObject *g(PyObject *self, PyObject *arg)\n{\n"
             "    return PyLong_FromLong(1) + 0;\n}\n"
             "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {\"g\", g, METH_O, NULL}, {NULL}};\n"
             "static PyGetSetDef gs[] = {{\"x\", get_x, NULL, NULL, NULL}, {NULL}};\n")

    PUSHERS = {"PyFloat_FromDouble": "Cystck_ReturnDouble", "PyLong_FromLong": "Cystck_ReturnLong",
               "PyLong_FromSsize_t": "Cystck_ReturnSsize", "PyLong_FromLongLong": "Cystck_ReturnLongLong",
               "PyBool_FromLong": "Cystck_ReturnBool", "PyUnicode_FromString": "Cystck_ReturnString",
               "PyUnicode_FromStringAndSize": "Cystck_ReturnStringAndSize"}

    def apply(self, unit):
        code = unit.masked
        edits = source.Edits()
        for f, mode in _returning_functions(unit):
            if mode != "push":
                continue
            b0, b1 = f.body
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                end = source.matching(code, m.end() - 1)
                if not regex.match(r"\s*;", code[end:]):
                    continue      # the call is only part of what is returned
                edits.add(m.start("f"), m.end() - 1, self.PUSHERS[m.group("f")])
                edits.add(m.end(), m.end(), "S, ")
        if edits:
            unit.apply(edits)
        return edits.applied


class EntryTailCalls(Rule):
    """An entry point that ends by calling another entry point of the same
    convention with its own arguments, ``return impl(self, args, kwargs);``
    (an alias kept for compatibility, a deprecation wrapper), hands the
    call its argument array and returns the push count it gets:
    ``return impl(S, self, args, nargs, kwargs);``.  Other direct calls of
    entry points are reported by the state-calls rule."""
    name = "entry-tail-calls"
    precedence = 539
    patterns = (r"\breturn\s+(?P<f>\w+)\s*" + source.paren("a") + r"\s*;",)
    before = ("static PyObject *impl(PyObject *self, PyObject *args) { return PyLong_FromSsize_t(PyTuple_GET_SIZE(args)); }\n"
              "static PyObject *alias(PyObject *self, PyObject *args)\n{\n    return impl(self, args);\n}\n"
              "static PyMethodDef m[] = {{\"impl\", impl, METH_VARARGS, NULL}, {\"alias\", alias, METH_VARARGS, NULL},"
              " {NULL}};\n")
    after = ("static PyObject *impl(PyObject *self, PyObject *args) { return PyLong_FromSsize_t(PyTuple_GET_SIZE(args)); }\n"
             "static PyObject *alias(PyObject *self, PyObject *args)\n{\n    return impl(S, self, args, nargs);\n}\n"
             "static PyMethodDef m[] = {{\"impl\", impl, METH_VARARGS, NULL}, {\"alias\", alias, METH_VARARGS, NULL},"
             " {NULL}};\n")

    def apply(self, unit):
        edits = source.Edits()
        for _, m, names in _entry_calls_passing_own_params(unit, self.patterns[0]):
            edits.add(m.start("a"), m.end("a"), "(" + ", ".join(["S"] + names) + ")")
        if edits:
            unit.apply(edits)
        return edits.applied


def _entry_calls_passing_own_params(unit, pattern):
    """(context, match, names) for each call (``pattern`` on the masked
    text, its arguments in group ``a``) in an entry point that pushes, of
    another entry point of the same convention, passing on the caller's
    own stock parameters in order; ``names`` are the caller's Cystck
    parameters (after S) to pass instead."""
    code = unit.masked
    for ctx in _common.function_contexts(unit, with_locals=False):
        role = ctx.role
        if role is None or not role.pushes:
            continue
        names, stock = _own_params(ctx)
        b0, b1 = ctx.body
        for m in regex.finditer(pattern, code, pos=b0, endpos=b1):
            callee = unit.project.role(m.group("f"))
            if callee is None or not callee.pushes or \
                    [c for c, _, _ in callee.params] != [c for c, _, _ in role.params] or \
                    _keyword_slot(callee) != _keyword_slot(role):
                continue        # (a method's keywords are names, a slot's a dict)
            passed = [code[s:e].strip() for s, e in source.split_top(code, m.start("a") + 1, m.end("a") - 1)]
            if passed == stock:
                yield ctx, m, names


#: The parameters of a keyword slot's implementation (tp_new, tp_init,
#: tp_call: ``Cystck_KeywordsImpl``, its ``kw`` a dict or null).
_KEYWORD_SLOT_PARAMS = [proj.H, proj.ARGS, proj.SSIZE, proj.H]


def _keyword_slot(role):
    """Is ``role`` a slot taking an argument array and a keywords dict?"""
    return role.kind == "slot" and [c for c, _, _ in role.params] == _KEYWORD_SLOT_PARAMS


def _own_params(ctx):
    """The caller's Cystck parameter names (after S), and its stock
    parameters in order, as a stock call passing them on reads."""
    specs = ctx.role.params
    if ctx.rewritten:
        names = [q.name for q in ctx.params[1:]]
    else:
        names = [ctx.param_name(idx) or default for _, idx, default in specs]
    if len(names) != len(specs):
        return names, None
    stock = sorted((idx, names[k]) for k, (_, idx, _) in enumerate(specs) if idx is not None)
    return names, [n for _, n in stock]


#: The runtime function that turns the push count of an entry point called
#: directly into its result as a handle.
RESULT_HELPER = "Cystck_PopResult"


class EntryKeywordCalls(Rule):
    """A direct call of a ``METH_VARARGS | METH_KEYWORDS`` entry point with
    a tuple the caller made, ``r = dumps(self, argtuple, kwargs);`` (a
    writer passing a value and its own keyword arguments on to the function
    that formats), goes through the runtime: ``r = Cystck_CallImplKw(S,
    dumps, self, argtuple, args, nargs, kwargs);``, which unpacks the tuple
    into the argument array, passes the keywords as a call from Python
    would (the caller's own keyword names with their values, which follow
    its ``nargs`` positional ones in ``args``; or a dict, or none: ``NULL,
    0`` for the array) and returns the result as a handle.  A call passing
    on the caller's own arguments to an entry point of its convention is
    the entry-value-calls and entry-tail-calls rules'.

    A keyword slot's implementation (``tp_new``, ``tp_init``,
    ``tp_call``: its ``kw`` a dict), in this file or another, called with
    a tuple (or NULL) and keywords, ``Foo_init(self, argtuple, kwargs)``,
    goes through ``Cystck_CallSlotKw`` with the same arguments, which
    passes the keywords as the dict the slot gets from Python (a caller's
    own keyword names made one) and returns the implementation's result:
    ``tp_init``'s 0 or -1 as it is, the push count of ``tp_new`` and
    ``tp_call`` made a handle (``Cystck_PopResult``).  With NULL for
    both the call is the state-calls rule's."""
    name = "entry-keyword-calls"
    precedence = 536
    # the caller's Cystck parameters (args, nargs, kw) it passes on
    needs = ("entry-signature",)
    patterns = (r"(?<![\w.>]|->)(?P<f>\w+)\s*" + source.paren("a"),)
    before = ("static PyObject *dumps(PyObject *self, PyObject *args, PyObject *kw);\n"
              "static PyObject *dump(PyObject *self, PyObject *args, PyObject *kw)\n{\n"
              "    PyObject *t = PyTuple_Pack(1, PyTuple_GET_ITEM(args, 0));\n"
              "    PyObject *r = dumps(self, t, kw);\n    Py_DECREF(t);\n    return r;\n}\n"
              'static PyMethodDef m[] = {{"dumps", (PyCFunction)dumps, METH_VARARGS | METH_KEYWORDS, NULL},\n'
              '                          {"dump", (PyCFunction)dump, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n')
    after = ("static int dumps(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs, "
             "Cystck_Object kw);\n"
             "static int dump(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs, "
             "Cystck_Object kw)\n{\n"
             "    PyObject *t = PyTuple_Pack(1, PyTuple_GET_ITEM(args, 0));\n"
             "    PyObject *r = Cystck_CallImplKw(S, dumps, self, t, args, nargs, kw);\n    Py_DECREF(t);\n"
             "    return r;\n}\n"
             'static PyMethodDef m[] = {{"dumps", (PyCFunction)dumps, METH_VARARGS | METH_KEYWORDS, NULL},\n'
             '                          {"dump", (PyCFunction)dump, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n')

    def apply(self, unit):
        p = unit.project
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx in _common.function_contexts(unit, with_locals=False):
            if not ctx.has_state:
                continue
            own_kw = ctx.kw_name if ctx.role is not None and ctx.role.detail == "CYSTCK_KEYWORDS" else None
            b0, b1 = ctx.body
            done = b0
            # overlapped: a call in another call's arguments, f(g(self, t, kw))
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1, overlapped=True):
                info = p.function(unit.path, m.group("f"))
                role = info.role if info is not None else None
                slot = role is not None and _keyword_slot(role)
                if m.start() < done or role is None or not slot and (
                        role.kind != "meth" or role.detail != "CYSTCK_KEYWORDS" or role.stock_fastcall):
                    continue
                a0, a1 = m.span("a")
                passed = source.split_top(code, a0 + 1, a1 - 1)
                if len(passed) != 3:
                    continue
                own, tup, kw = (text[s:e].strip() for s, e in passed)
                if slot and tup in proj.NULLS and kw in proj.NULLS:
                    continue        # no arguments: the state-calls rule's
                if not slot and tup in proj.NULLS or (
                        ctx.role is not None and [own, tup, kw] == _own_params(ctx)[1]
                        and [c for c, _, _ in ctx.role.params] == [c for c, _, _ in role.params]
                        and _keyword_slot(ctx.role) == slot):
                    continue        # no tuple; or the caller's own arguments, passed on as they are
                own = "Cystck_NULL" if own in proj.NULLS else own
                tup = "Cystck_NULL" if tup in proj.NULLS else tup
                array = f"{ctx.args_name}, {ctx.nargs_name}" if own_kw and kw == own_kw else "NULL, 0"
                kw = "Cystck_NULL" if kw in proj.NULLS else kw
                call = f"({m.group('f')}, {own}, {tup}, {array}, {kw})"
                if slot and tup == ctx.args_name and kw == "Cystck_NULL" and ctx.nargs_name:
                    # the caller's own argument array, no keywords: as it is
                    call = f"{m.group('f')}(S, {own}, {tup}, {ctx.nargs_name}, Cystck_NULL)"
                    new = f"{RESULT_HELPER}(S, {call})" if role.pushes else call
                elif not slot:
                    new = f"Cystck_CallImplKw(S, {call[1:]}"
                elif role.pushes:
                    new = f"{RESULT_HELPER}(S, Cystck_CallSlotKw(S, {call[1:]})"
                else:
                    new = f"Cystck_CallSlotKw(S, {call[1:]}"
                edits.add(m.start(), m.end(), new)
                done = m.end()      # (a call in its arguments stays as it is)
        if edits:
            unit.apply(edits)
        return edits.applied


class EntryValueCalls(Rule):
    """An entry point that calls another entry point of the same convention
    with its own arguments and uses the result as a value (a subtype's
    ``tp_new`` calling its base's: ``self = (Sub *)Base_new(type, args,
    kwds);``) hands the call its argument array and takes the value it
    pushed: ``self = Cystck_PopResult(S, Base_new(S, type, args,
    nargs, kwds));``.
    A ``return`` of such a call is the entry-tail-calls rule's."""
    name = "entry-value-calls"
    precedence = 537
    patterns = (r"(?<![\w.>]|->)(?P<f>\w+)\s*" + source.paren("a"),)
    before = ('#include <Python.h>\n'
              "static PyObject *base_new(PyTypeObject *type, PyObject *args, PyObject *kwds)\n"
              "{\n    return type->tp_alloc(type, 0);\n}\n"
              "static PyObject *sub_new(PyTypeObject *type, PyObject *args, PyObject *kwds)\n{\n"
              "    PyObject *self = base_new(type, args, kwds);\n    return self;\n}\n"
              "static PyTypeObject Base = {PyVarObject_HEAD_INIT(NULL, 0) .tp_new = base_new};\n"
              "static PyTypeObject Sub = {PyVarObject_HEAD_INIT(NULL, 0) .tp_new = sub_new};\n")
    after = ('#include <Python.h>\n'
             "static PyObject *base_new(PyTypeObject *type, PyObject *args, PyObject *kwds)\n"
             "{\n    return type->tp_alloc(type, 0);\n}\n"
             "static PyObject *sub_new(PyTypeObject *type, PyObject *args, PyObject *kwds)\n{\n"
             "    PyObject *self = " + RESULT_HELPER + "(S, base_new(S, type, args, nargs, kwds));\n"
             "    return self;\n}\n"
             "static PyTypeObject Base = {PyVarObject_HEAD_INIT(NULL, 0) .tp_new = base_new};\n"
             "static PyTypeObject Sub = {PyVarObject_HEAD_INIT(NULL, 0) .tp_new = sub_new};\n")

    def apply(self, unit):
        code = unit.masked
        edits = source.Edits()
        for ctx, m, names in _entry_calls_passing_own_params(unit, self.patterns[0]):
            if regex.search(r"\breturn\s*$", code[ctx.body[0]:m.start()]):
                continue
            edits.add(m.start(), m.start(), f"{RESULT_HELPER}(S, ")
            edits.add(m.start("a"), m.end("a"), "(" + ", ".join(["S"] + names) + "))")
        if edits:
            unit.apply(edits)
        return edits.applied


def _calls_pushing_entry(project, expr):
    """Is ``expr`` a call of an entry point that returns a push count with
    the state already passed (a tail call the entry-tail-calls rule made)?"""
    m = regex.match(r"(\w+)\s*\(\s*S\s*[,)]", expr)
    role = project.role(m.group(1)) if m else None
    return bool(role is not None and role.pushes)


def _ends_iteration(unit, f, e):
    """Is ``e``, returned by ``f``, a local variable that may hold NULL in
    a ``tp_iternext`` slot, where stock returns NULL with no exception set
    to end the iteration (``item = next_item(it); return item;``)?"""
    role = unit.project.role(f.name)
    return role is not None and role.kind == "slot" and role.detail == "tp_iternext" and \
        bool(regex.fullmatch(r"[A-Za-z_]\w*", e)) and e not in ("NULL", "self", "S") and \
        not e.startswith(("Cystck_", "Py_"))


def _ends_iteration_call(unit, f, e):
    """Is ``e``, returned by ``f``, a call (not of an entry point) in a
    ``tp_iternext`` slot, whose NULL with no exception set ends the
    iteration (``return PyIter_Next(inner);``)?"""
    role = unit.project.role(f.name)
    return role is not None and role.kind == "slot" and role.detail == "tp_iternext" and \
        bool(regex.fullmatch(r"[A-Za-z_]\w*\s*\(.*\)", e, regex.S)) and source.balanced(e)


class Returns(Rule):
    """Paper rules 9/10: an entry point returns how many values it pushed:
    ``return NULL;`` becomes ``return -1;``, ``return x;`` becomes ``return
    Cystck_Return(S, x);``, ``Py_RETURN_NONE;`` becomes ``return 0;`` and
    ``Py_RETURN_TRUE;`` ``return Cystck_Return(S, Cystck_True);``, ``return
    c ? NULL : x;`` ``return (c) ? -1 : Cystck_Return(S, x);``, and in
    a ``tp_iternext`` slot, whose NULL returned with no exception set ends
    the iteration, ``return item;`` ``return Cystck_IsNull(item) ? -1 :
    Cystck_Return(S, item);`` (-1 with no exception set is the end there;
    a call's value, ``return PyIter_Next(it);``, is taken into a handle
    first, ``{ Cystck_Object next_ = ...; return Cystck_IsNull(next_) ? -1
    : Cystck_Return(S, next_); }``),
    ``Py_RETURN_RICHCOMPARE(a, b, op);`` ``return Cystck_ReturnBool(S,
    CYSTCK_RICHCOMPARE(a, b, op));``; ``return (NULL);`` is ``return
    NULL;``, ``return (f(self));`` (f an entry point) ``return f(self);``.  A helper
    returning a handle returns ``Cystck_NULL`` instead of NULL, and
    ``Cystck_Dup(S, Cystck_True)`` for ``Py_RETURN_TRUE``: stock returns a
    new reference that the caller releases, and releasing a constant handle
    is an error in debug mode."""
    name = "returns"
    precedence = 540
    patterns = (r"\breturn\b(?P<e>[^;]*);", r"\bPy_RETURN_(?P<k>NONE|TRUE|FALSE|NOTIMPLEMENTED)\b\s*;?",
                r"\bPy_RETURN_RICHCOMPARE\b")
    before = ("static PyObject *h(void)\n{\n    Py_RETURN_NONE;\n}\n"
              "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    if (arg == NULL)\n        return NULL;\n"
              "    if (arg == Py_None)\n        Py_RETURN_TRUE;\n    return PyNumber_Negative(arg);\n}\n"
              "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    after = ("static PyObject *h(void)\n{\n    return Cystck_Dup(S, Cystck_None);\n}\n"
             "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    if (arg == NULL)\n        return -1;\n"
             "    if (arg == Py_None)\n        return Cystck_Return(S, Cystck_True);\n"
             "    return Cystck_Return(S, PyNumber_Negative(arg));\n}\n"
             "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")

    @staticmethod
    def _richcompare(unit, m, mode, edits):
        """``Py_RETURN_RICHCOMPARE(a, b, op)`` returns the test's bool
        (``CYSTCK_RICHCOMPARE``, Cystck.h), pushed or as a new handle."""
        call = regex.match(r"\s*\(", unit.masked[m.end():])
        if call is None:
            unit.leftover(m.start(), "Py_RETURN_RICHCOMPARE without its arguments: write the comparison "
                          "and return Cystck_ReturnBool(S, ...)", "returns")
            return
        close = source.matching(unit.masked, m.end() + call.end() - 1)
        args = unit.text[m.end() + call.end():close - 1]
        test = f"CYSTCK_RICHCOMPARE({args})"
        edits.add(m.start(), close, f"return Cystck_ReturnBool(S, {test})" if mode == "push"
                  else f"return CystckBool_FromLong(S, {test})")

    NULLS = ("NULL", "0", "nullptr", "(PyObject *)NULL")

    @staticmethod
    def _entry_call(project, expr):
        """Is ``expr`` (masked) one call of an entry point, ``f(...)``?"""
        m = regex.match(r"(\w+)\s*\(", expr)
        role = project.role(m.group(1)) if m else None
        return bool(role is not None and role.is_entry and source.matching(expr, m.end() - 1) == len(expr))

    CONST = {"TRUE": "Cystck_True", "FALSE": "Cystck_False", "NOTIMPLEMENTED": "Cystck_NotImplemented",
             "NONE": "Cystck_None"}

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        nulls = self.NULLS + _null_macros(code, self.NULLS)
        for f, mode in _returning_functions(unit):
            b0, b1 = f.body
            for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
                k = m.group("k")
                if mode == "push":
                    new = "return 0;" if k == "NONE" else f"return Cystck_Return(S, {self.CONST[k]});"
                else:
                    new = f"return Cystck_Dup(S, {self.CONST[k]});"
                edits.add(m.start(), m.end(), new)
            for m in regex.finditer(self.patterns[2], code, pos=b0, endpos=b1):
                self._richcompare(unit, m, mode, edits)
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                in_macro = source.directive_end(text, m.start())
                if in_macro is not None and in_macro < m.end():
                    # a macro's body with the `;` at its uses: the
                    # expression ends with the directive
                    m = regex.match(r"\breturn\b(?P<e>.*)", code, pos=m.start(), endpos=in_macro,
                                    flags=regex.S)
                e = text[m.start("e"):m.end("e")].strip()
                # a branch of a conditional result that is NULL is the null handle
                for s0, s1 in reversed(_common.conditional_nulls(e, 0, len(e))):
                    e = e[:s0] + "Cystck_NULL" + e[s1:]
                end = ";" if code[m.end() - 1] == ";" else ""
                bare = source.unparen(code[m.start("e"):m.end("e")])
                if e.startswith("(") and (bare in self.NULLS or self._entry_call(unit.project, bare)):
                    # return (NULL); return (other_entry(self)); as without the parentheses
                    whole = code[m.start("e"):m.end("e")]
                    at = whole.index(bare)
                    e = text[m.start("e") + at:m.start("e") + at + len(bare)]
                if mode == "handle":
                    if e in nulls:
                        edits.add(m.start(), m.end(), "return Cystck_NULL" + end)
                    elif e != text[m.start("e"):m.end("e")].strip():
                        edits.add(m.start("e"), m.end("e"), f" {e}")
                    continue
                branch = _NULL_BRANCH.fullmatch(e)
                if e in nulls + ("-1",):
                    edits.add(m.start(), m.end(), "return -1" + end)
                elif branch and branch.group("v").strip() not in ("Cystck_NULL", "") \
                        and all(source.balanced(branch.group(g)) for g in ("c", "v")):
                    # c ? NULL : v: the null branch is the error (or the end
                    # of an iteration), the other the value pushed
                    c, v = branch.group("c").strip(), branch.group("v").strip()
                    new = (f"({c}) ? -1 : Cystck_Return(S, {v})" if branch.group("n1")
                           else f"({c}) ? Cystck_Return(S, {v}) : -1")
                    edits.add(m.start("e"), m.end("e"), f" {new}")
                elif not e or regex.match(r"(?:Cystck_Return\w*|CystckErr_NoMemory|PyErr_NoMemory)\s*\(", e) \
                        or _calls_pushing_entry(unit.project, e):
                    continue
                elif _ends_iteration(unit, f, e):
                    # tp_iternext's `return item;` with item NULL and no
                    # exception set ends the iteration: -1, not a push
                    edits.add(m.start("e"), m.end("e"), f" Cystck_IsNull({e}) ? -1 : Cystck_Return(S, {e})")
                elif end and _ends_iteration_call(unit, f, e):
                    # the same with a call's value, `return PyIter_Next(it);`:
                    # evaluated once, into a handle of its own
                    edits.add(m.start(), m.end(), f"{{ Cystck_Object next_ = {e}; "
                              "return Cystck_IsNull(next_) ? -1 : Cystck_Return(S, next_); }")
                else:
                    edits.add(m.start("e"), m.end("e"), f" Cystck_Return(S, {e})")
        if edits:
            unit.apply(edits)
        return edits.applied


_OBJECT_LIKE_DEFINE = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)(?![\w(])(?P<body>[^\n]*)$", regex.M)


def _null_macros(code, nulls):
    """The object-like macros of ``code`` (a mask, where code only Python 2
    compiles is blank) that every definition makes a null pointer,
    ``#define ERROR_VALUE NULL`` (returned by an init written for Python 2
    and 3), as a tuple of names."""
    values = {}
    for m in _OBJECT_LIKE_DEFINE.finditer(code):
        values.setdefault(m.group("name"), set()).add(source.unparen(m.group("body").strip()))
    return tuple(sorted(n for n, v in values.items() if v and v <= set(nulls)))


def _null_handle_args(code, open_at, positions, edits):
    """NULL passed for an object parameter becomes Cystck_NULL."""
    close = source.matching(code, open_at)
    for i, (s, e) in enumerate(source.split_top(code, open_at + 1, close - 1)):
        arg = code[s:e]
        if i in positions and arg.strip() in ("NULL", "0", "nullptr"):
            lead = len(arg) - len(arg.lstrip())
            edits.add(s + lead, s + lead + len(arg.strip()), "Cystck_NULL")


#: a call of a function whose name a macro pastes together,
#: ``SUFFIXED(parse)(a, b)`` (see source.find_functions)
PASTED_CALL = regex.compile(r"(?<![\w.>])(?P<macro>[A-Z_][A-Z0-9_]*)\s*\(\s*(?P<arg>[A-Za-z_]\w*)\s*\)"
                            r"\s*\((?!\s*S\s*[,)])")


class StateCalls(Rule):
    """Calls of functions that now take the state get ``S`` first: helpers
    that use the API and calls through function pointers whose type carries
    objects.  (Macros whose expansion uses the API keep their parameters:
    they use the ``S`` of the function that expands them.)  A direct call of an entry
    point whose parameters are all objects keeps its arguments: ``return
    f(S, a);`` from an entry point returns its push count, and ``h = f(S,
    a);`` and ``return f(S, a);`` from a helper returning an object get the
    value through ``Cystck_PopResult``.  A direct call of a setter keeps
    its arguments (objects, the closure; ``NULL`` where none is passed):
    its convention is the stock one.  Other direct calls of entry points
    are reported, with what changed (an argument array, a push count)."""
    name = "state-calls"
    precedence = 560
    # a call through a function pointer parameter takes S once
    # stock-function-pointers or helper-signature gave the parameter
    # Cystck_State; return f(...) from an entry point is
    # Cystck_Return(S, f(...)) once returns has run
    needs = ("stock-function-pointers", "helper-signature", "returns")
    patterns = (r"(?<![\w.>])(?P<f>\w+)\s*\((?!\s*S\s*[,)])", r"(?:->|\.)\s*(?P<f>\w+)\s*\((?!\s*S\s*[,)])")
    before = ("static PyObject *helper(PyObject *o) { return PyNumber_Negative(o); }\n"
              "static long g(PyObject *o) { return PyLong_AsLong(helper(o)); }\n")
    after = ("static Cystck_Object helper(Cystck_State *S, Cystck_Object o) { return PyNumber_Negative(o); }\n"
             "static long g(Cystck_State *S, Cystck_Object o) { return PyLong_AsLong(helper(S, o)); }\n")

    def apply(self, unit):
        p = unit.project
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx in _common.stateful_contexts(unit, with_locals=False):
            b0, b1 = ctx.body
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                name = m.group("f")
                if not p.needs_state(unit.path, name):
                    continue
                info = p.function(unit.path, name)
                if info is not None and info.role is not None and info.role.is_entry and \
                        not self._entry_result(unit, ctx, code, m, info.role, edits):
                    unit.leftover(m.start(), f"direct call of entry point {name}: {self._changed(info.role)}",
                                  self.name)
                self._insert(code, m, edits)
                if info is not None and info.handle_positions and not (
                        info.role is not None and info.role.is_entry
                        and any(c == proj.ARGS for c, _, _ in info.role.params)):
                    _null_handle_args(code, m.end() - 1, info.handle_positions, edits)
            for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
                if m.group("f") in p.state_fields:
                    self._insert(code, m, edits)
            for m in PASTED_CALL.finditer(code, pos=b0, endpos=b1):
                if p.needs_state(unit.path, f"{m.group('macro')}({m.group('arg')})"):
                    self._insert(code, m, edits)
            # (*(x->f))(a, b): the same call through a dereferenced member
            for m in regex.finditer(r"(?:->|\.)\s*(?P<f>\w+)\s*(?:\)\s*)+\((?!\s*S\s*[,)])", code, pos=b0, endpos=b1):
                if m.group("f") in p.state_fields:
                    self._insert(code, m, edits)
        # calls through a function-pointer parameter whose functions take
        # S, or through a parameter or local of a type that takes S
        typed = regex.compile(proj.fnptr_declaration("|".join(map(regex.escape, sorted(p.state_typedefs))))
                              + r"\s*[,;)=\[]") if p.state_typedefs else None
        for ctx in _common.function_contexts(unit, with_locals=False):
            fnptrs = {f.group("n") for f in STATE_FNPTR_PARAM.finditer(code, *ctx.func.params)}
            if typed is not None:
                fnptrs |= set(typed.findall(code[ctx.func.params[0]:ctx.func.params[1]] + ")"))
                fnptrs |= set(typed.findall(code, *ctx.body))
            for m in regex.finditer(self.patterns[0], code, pos=ctx.body[0], endpos=ctx.body[1]):
                if m.group("f") in fnptrs:
                    self._insert(code, m, edits)
            for m in regex.finditer(r"\(\s*\*\s*(?P<f>\w+)\s*\)\s*\((?!\s*S\s*[,)])", code,
                                    pos=ctx.body[0], endpos=ctx.body[1]):
                if m.group("f") in fnptrs:
                    self._insert(code, m, edits)
        # macros calling helpers: a macro uses the S of the function that
        # expands it, like the API calls inside it
        for m in regex.finditer(r"^[ \t]*#[ \t]*define[ \t]+\w+(?:\([^)]*\))?(?:[^\n\\]|\\.|\\\n)*", code, regex.M):
            head = regex.match(r"[ \t]*#[ \t]*define[ \t]+\w+", code[m.start():m.end()]).end() + m.start()
            for c in regex.finditer(self.patterns[0], code, pos=head, endpos=m.end()):
                if p.needs_state(unit.path, c.group("f")):
                    self._insert(code, c, edits)
        # a macro defined inside a function body is both: one S
        edits.items = list(dict.fromkeys(edits.items))
        if edits:
            unit.apply(edits)
        return edits.applied

    def _entry_result(self, unit, ctx, code, m, role, edits):
        """A direct call of an entry point whose parameters are all objects
        (METH_O, a slot) takes the same arguments plus S; its push count
        is the caller's own result in ``return f(...);`` from an entry
        point, or becomes a handle through Cystck_PopResult in ``h = f(...);`` (or
        a declarator ``h = f(...), g;``)
        and in ``return f(...);`` from a helper returning an object.
        Returns whether the call was taken care of."""
        open_at = m.end() - 1
        close = source.matching(code, open_at)
        if not role.pushes:
            # a setter keeps its convention (objects, the closure; an int)
            return role.kind == "set" and self._closure_only(code, open_at, close, role, edits)
        if self._closure_only(code, open_at, close, role, edits):
            pass
        elif any(c != proj.H for c, _, _ in role.params):
            if not self._no_arguments(code, open_at, close, role, edits):
                return False
        elif not self._drop_unused_nulls(code, open_at, close, role, edits):
            return False
        ret = regex.search(r"\bCystck_Return\s*\(\s*S\s*,\s*$", code[:m.start()])
        if ret and ctx.role is not None and ctx.role.pushes and regex.match(r"\s*\)\s*;", code[close:]):
            edits.add(ret.start(), m.start(), "")
            edits.add(close, close + code[close:].index(")") + 1, "")
            return True
        target = regex.search(r"(?<![\w.>])(?P<h>\w+)\s*=\s*$", code[max(0, m.start() - 80):m.start()])
        # h = f(...); and a declarator's h = f(...), g = ...;
        if target and regex.match(r"\s*[;,]", code[close:]) and target.group("h") in self._handles(unit, ctx) \
                or self._returned_as_handle(unit, ctx, code, m, close):
            edits.add(m.start(), m.start(), f"{RESULT_HELPER}(S, ")
            edits.add(close, close, ")")
            return True
        if regex.search(r"(?:^|[;{}]|\belse|(?m:^[ \t]*#[^\n]*))\s*$", code[max(0, m.start() - 200):m.start()]) \
                and regex.match(r"\s*;", code[close:]):
            # a statement, its result discarded: the value it pushed
            # becomes a handle, released with the frame
            edits.add(m.start(), m.start(), f"{RESULT_HELPER}(S, ")
            edits.add(close, close, ")")
            return True
        return False

    @staticmethod
    def _changed(role):
        """What changed in the convention of entry point ``role``, for the
        report of a direct call the rule could not port."""
        changes = []
        if any(c == proj.ARGS for c, _, _ in role.params):
            changes.append("takes an argument array")
        if role.pushes:
            changes.append("returns a push count (pop the result with Cystck_Pop)")
        return "it now " + " and ".join(changes or ["takes the state first"])

    @staticmethod
    def _closure_only(code, open_at, close, role, edits):
        """A direct call of a getter (objects, then the ``void *closure``
        last): its arguments stay, and a call that passes the objects only,
        ``Foo_get_x(self)`` (the stock definition took no closure), gets
        ``NULL`` for it, ``Foo_get_x(S, self, NULL)``.  False for any other
        entry point."""
        if not role.params or role.params[-1][0] != "void *" or role.params[-1][2] != "closure" or \
                any(c != proj.H for c, _, _ in role.params[:-1]):
            return False
        args = source.split_top(code, open_at + 1, close - 1) if code[open_at + 1:close - 1].strip() else []
        if len(args) == len(role.params) - 1:
            edits.add(close - 1, close - 1, ", NULL" if args else "NULL")
            return True
        return len(args) == len(role.params)

    @staticmethod
    def _no_arguments(code, open_at, close, role, edits):
        """A direct call of an entry point taking an argument tuple and
        keywords (``tp_new``, ``tp_call``) with NULL for both,
        ``Foo_new(type, NULL, NULL)`` (no arguments), passes an empty
        argument array and no keywords: ``Foo_new(S, type, NULL, 0,
        Cystck_NULL)``.  False for any other arguments."""
        args = source.split_top(code, open_at + 1, close - 1)
        stock = [(c, idx) for c, idx, _ in role.params if idx is not None]
        if len(args) != len(stock) or not any(c == proj.ARGS for c, _ in stock):
            return False
        nulls = [i for c, i in stock if c != proj.H or i != 0]
        if any(code[args[i][0]:args[i][1]].strip() not in proj.NULLS for i in nulls):
            return False
        for c, i in stock:
            if i in nulls:
                lead = len(code[args[i][0]:args[i][1]]) - len(code[args[i][0]:args[i][1]].lstrip())
                new = "NULL, 0" if c == proj.ARGS else "Cystck_NULL"
                edits.add(args[i][0] + lead, args[i][0] + lead + len(code[args[i][0]:args[i][1]].strip()), new)
        return True

    @staticmethod
    def _drop_unused_nulls(code, open_at, close, role, edits):
        """The arguments of a direct call at the stock positions the
        entry point no longer has (a METH_NOARGS method's unused ``args``,
        ``f(self, NULL)``) go when they are null constants, the value the
        convention passes.  False if such an argument is something else."""
        args = source.split_top(code, open_at + 1, close - 1)
        kept = {stock for _, stock, _ in role.params if stock is not None}
        if len(args) <= len(role.params):
            return True
        drop = [i for i in range(len(args)) if i not in kept]
        if any(code[args[i][0]:args[i][1]].strip() not in proj.NULLS for i in drop):
            return False
        for i in drop:
            start = args[i - 1][1] if i else args[i][0]
            end = args[i][1] if i else args[i + 1][0]
            edits.add(start, end, "")
        return True

    @staticmethod
    def _returned_as_handle(unit, ctx, code, m, close):
        """Is the call the value of ``return f(...);`` in a helper that
        returns a handle?"""
        if ctx.role is not None or not regex.search(r"(?<![\w.>])return\s+$", code[max(0, m.start() - 20):m.start()]):
            return False
        info = unit.project.function(unit.path, ctx.func.name)
        return bool(info and info.returns_handle and regex.match(r"\s*;", code[close:]))

    @staticmethod
    def _handles(unit, ctx):
        for c in _common.function_contexts(unit):
            if c.func.start == ctx.func.start:
                return c.handles
        return set()

    @staticmethod
    def _insert(code, m, edits):
        open_at = m.end() - 1
        while code[open_at] != "(":
            open_at -= 1
        empty = regex.match(r"\(\s*\)", code[open_at:])
        if empty:
            edits.add(open_at, open_at + empty.end(), "(S)")
        else:
            edits.add(open_at + 1, open_at + 1, "S, ")


class FunctionMacros(Rule):
    """A macro whose body is one function definition using the API (maybe
    followed by its docstring, ``PyDoc_STRVAR(name##_doc, "...")``), used
    only as whole top-level lines (``DEFINE_GET(Foo)``), is expanded at
    each use into an ordinary function, and its ``#define`` goes.

    A function whose name is pasted together (``type##_get``) has no role
    and no state for the rules, which can rewrite neither its signature
    nor its struct accesses inside the macro (``migrate/macros.py``).
    Other macros are left as they are."""
    name = "function-macros"
    precedence = 50
    before = ("#define DEFINE_GET(type) \\\n"
              "static PyObject *type##_get(PyObject *self) \\\n"
              "{ return PyUnicode_FromString(#type); }\n"
              "DEFINE_GET(Foo)\n")
    after = ("/* DEFINE_GET(Foo), expanded by cystck-migrate */\n"
             "static PyObject *Foo_get(PyObject *self)\n"
             "{ return PyUnicode_FromString(\"Foo\"); }\n")

    def apply(self, unit):
        text, count = macros.expand_function_macros(unit.text)
        unit.set_text(text)
        return count


class DeclarationMacros(Rule):
    """A file-scope use of a macro of the project (any file's ``#define``)
    whose expansion declares a method table (a ``PyMethodDef`` array), a
    module definition (a ``PyModuleDef``) or the module's init is written
    out, its arguments substituted, so that the rules find the table, the
    definition and the init.  Other macros in it stay for the compiler,
    but for one that names the init, expanded to ``PyInit_<name>``: a
    name pasted from a macro no file defines (``-DMOD=spam`` on the
    command line) stays that macro, ``PyInit_MOD``, whose
    ``CYSTCK_MODINIT(MOD)`` pastes its value as the stock macro did.  A
    macro defined more than once (an ``#ifdef``'s branches) is written out
    if every definition declares the same thing, and as its last one.
    Other uses, and the ``#define`` lines, are left as they are
    (``migrate/macros.py``)."""
    name = "declaration-macros"
    precedence = 51
    before = ("#define PASTE(a, b) PASTE_(a, b)\n#define PASTE_(a, b) a##b\n"
              "#define METHODS_VAR PASTE(MOD, _methods)\n"
              "#define MOD_METHODS static PyMethodDef METHODS_VAR[]\n"
              "#define MOD_INIT PyMODINIT_FUNC PASTE(PyInit_, MOD)(void)\n"
              "MOD_METHODS = {{NULL}};\nMOD_INIT;\n")
    after = ("#define PASTE(a, b) PASTE_(a, b)\n#define PASTE_(a, b) a##b\n"
             "#define METHODS_VAR PASTE(MOD, _methods)\n"
             "#define MOD_METHODS static PyMethodDef METHODS_VAR[]\n"
             "#define MOD_INIT PyMODINIT_FUNC PASTE(PyInit_, MOD)(void)\n"
             "/* MOD_METHODS, expanded by cystck-migrate */\n"
             "static PyMethodDef METHODS_VAR[] = {{NULL}};\n"
             "/* MOD_INIT, expanded by cystck-migrate */\n"
             "PyMODINIT_FUNC PyInit_MOD(void);\n")

    def apply(self, unit):
        return _write_out_project_macros(unit, macros.expand_declaration_macros)


class TableCastMacros(Rule):
    """The function of a method or getset table entry passed through a
    macro of the project (any file's) that only casts its argument,
    ``CFUNC(f)`` with ``#define CFUNC(f) ((PyCFunction)(void (*)(void))(f))``,
    is written out as that cast, which the rules see through: the table's
    function is found, and its entry and signature rewritten, as with the
    cast written by hand.  A macro doing more than casting stays."""
    name = "table-cast-macros"
    precedence = 52
    before = ("#define CFUNC(f) ((PyCFunction)(void (*)(void))(f))\n"
              "static PyObject *f(PyObject *self, PyObject *args, PyObject *kw) { return PyTuple_New(0); }\n"
              "static PyMethodDef methods[] = {{\"f\", CFUNC(f), METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n")
    after = ("#define CFUNC(f) ((PyCFunction)(void (*)(void))(f))\n"
             "static PyObject *f(PyObject *self, PyObject *args, PyObject *kw) { return PyTuple_New(0); }\n"
             "static PyMethodDef methods[] = {{\"f\", (PyCFunction)(void (*)(void))(f), "
             "METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n")

    def apply(self, unit):
        return _write_out_project_macros(unit, proj.expand_table_cast_macros)


class TableEntryMacros(Rule):
    """An element of a method, getset or member table written as an
    object-like macro of the project (any file's) whose body is one braced
    element, Argument Clinic's ``FOO_METHODDEF`` (``#define FOO_METHODDEF
    {"foo", (PyCFunction)foo, METH_O, foo__doc__},`` in its generated
    header), is written out as that element: the table lists it, its
    function is found as an entry point and its signature rewritten.  Left
    as a macro, the table rules did not see the element (the method was
    missing from the type) and its function stayed a helper.  A macro that
    is no single element (two elements, a function-like macro) stays."""
    name = "table-entry-macros"
    precedence = 54
    before = ("#define F_METHODDEF {\"f\", (PyCFunction)f, METH_NOARGS, NULL},\n"
              "static PyObject *f(PyObject *self, PyObject *unused) { return PyTuple_New(0); }\n"
              "static PyMethodDef methods[] = {\n    F_METHODDEF\n    {NULL}\n};\n")
    after = ("#define F_METHODDEF {\"f\", (PyCFunction)f, METH_NOARGS, NULL},\n"
             "static PyObject *f(PyObject *self, PyObject *unused) { return PyTuple_New(0); }\n"
             "static PyMethodDef methods[] = {\n    {\"f\", (PyCFunction)f, METH_NOARGS, NULL},\n    {NULL}\n};\n")

    def apply(self, unit):
        return _write_out_project_macros(unit, proj.expand_table_entry_macros)


class MemberReadMacros(Rule):
    """A function-like macro of the project (any file's, a public header's
    too) whose body only reads an object member of an instance struct
    through a cast of its parameter, ``#define GET_OBJECT(ob) (((Proxy
    *)(ob))->obj)``, is written out at each use in code, its argument
    substituted: ``GET_OBJECT(self)`` becomes ``(((Proxy *)self)->obj)``,
    a member access the rules translate where it stands (a
    ``CystckField_Load`` in a function with the state, a visit in a
    traverse function).  Kept a macro, its body was left a struct member
    (a ``Cystck_Field``) where its uses wanted a handle.  The ``#define``
    stays (another extension may include the header); a macro reaching a
    member that is no object, one written to (``GET_OBJECT(p) = v``, its
    address taken), and one defined more than once stay as they are."""
    name = "member-read-macros"
    precedence = 56
    before = ("typedef struct { PyObject_HEAD PyObject *obj; } Proxy;\n"
              "#define GET_OBJECT(ob) (((Proxy *)(ob))->obj)\n"
              "static PyObject *get(PyObject *self) { return PyObject_Repr(GET_OBJECT(self)); }\n")
    after = ("typedef struct { PyObject_HEAD PyObject *obj; } Proxy;\n"
             "#define GET_OBJECT(ob) (((Proxy *)(ob))->obj)\n"
             "static PyObject *get(PyObject *self) { return PyObject_Repr((((Proxy *)self)->obj)); }\n")

    _BODY = regex.compile(r"\(*\s*\(\s*\(\s*(?:struct\s+)?(?P<t>\w+)\s*\*\s*\)\s*\(?\s*(?P<p>\w+)\s*\)?\s*\)"
                          r"\s*->\s*(?P<m>\w+)\s*\)*")

    def apply(self, unit):
        p = unit.project
        if not p.types:
            return 0
        defined = macros.project_macros([unit.text] + [t for q, t in unit.project.files.items() if q != unit.path])
        readers = {}
        for name, defs in defined.items():
            if len(defs) != 1 or defs[0][0] is None or len(defs[0][0]) != 1:
                continue
            params, body = defs[0]
            m = self._BODY.fullmatch(body)
            if m is None or m.group("p") != params[0] or body.count("(") != body.count(")"):
                continue
            info = p.types.get(m.group("t"))
            if info is not None and m.group("m") in info.object_fields:
                readers[name] = (params, body)
        if not readers:
            return 0
        code = unit.masked
        uses = []
        for u in regex.finditer(r"(?<![\w.>])(?P<name>" + "|".join(map(regex.escape, readers)) + r")\s*\(", code):
            if regex.match(r"[ \t]*#[ \t]*(?:define|undef|ifn?def)[ \t]+" + u.group("name") + r"\b",
                           code, pos=code.rfind("\n", 0, u.start()) + 1):
                continue          # its own #define
            close = source.matching(code, u.end() - 1)
            after = code[close:close + 40]
            before = code[max(0, u.start() - 3):u.start()]
            if regex.match(r"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|\s*(?:\+\+|--)", after) or before.rstrip().endswith("&") \
                    and not before.rstrip().endswith("&&"):
                return 0          # written to, or its address taken: a macro for a human
            uses.append((u, close))
        edits = source.Edits()
        for u, close in uses:
            params, body = readers[u.group("name")]
            arg = unit.text[u.end():close - 1].strip()
            if not regex.fullmatch(r"[A-Za-z_]\w*", arg):
                continue          # an expression: struct-access reaches names only
            written = macros.substitute(body, params, [arg])
            edits.add(u.start(), close, regex.sub(rf"\(\s*{arg}\s*\)", arg, written))
        if edits:
            unit.apply(edits)
        return edits.applied


def _write_out_project_macros(unit, expand):
    """Apply ``expand(text, macros)`` to ``unit``, with the macros of its
    text and of the project's other files; returns its count."""
    defined = macros.project_macros([unit.text] + [t for p, t in unit.project.files.items() if p != unit.path])
    text, count = expand(unit.text, defined)
    if count:
        unit.set_text(text)
    return count


class ObjectId(Rule):
    """``PyLong_FromVoidPtr(h)`` of a handle is the object's identity as an
    int (``id(h)``, e.g. the key of an encoder's circular-reference
    markers): ``CystckLong_FromVoidPtr(S, h)``.  Of any other pointer (C
    memory, a handle to a shared memory segment) it is that address as an
    int: ``CystckLong_FromPointer(S, p)`` (a handle is a struct, so a handle
    the analysis missed is a build error, not a wrong int).  Outside a
    function with the state it stays stock (through the escape hatch)."""
    name = "object-id"
    precedence = 531
    patterns = (r"\bPyLong_FromVoidPtr\s*" + _common.PAREN,)
    before = "static PyObject *key(PyObject *o, void *p) { return p ? PyLong_FromVoidPtr(p) : PyLong_FromVoidPtr(o); }\n"
    after = "static PyObject *key(PyObject *o, void *p) { return p ? CystckLong_FromPointer(S, p) : CystckLong_FromVoidPtr(S, o); }\n"

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        pattern = regex.compile(self.patterns[0])
        for ctx in _common.stateful_contexts(unit):
            for m in pattern.finditer(code, *ctx.body):
                h = text[m.start("p") + 1:m.end("p") - 1].strip()
                if regex.fullmatch(_common.HX, h) and _common.is_handle(h, ctx, unit.project):
                    edits.add(m.start(), m.end(), f"CystckLong_FromVoidPtr(S, {h})")
                else:
                    edits.add(m.start(), m.start("p") + 1, "CystckLong_FromPointer(S, ")
        if edits:
            unit.apply(edits)
        return edits.applied


class ChainedStores(Rule):
    """A chained store whose inner target becomes a call, ``x =
    self->v = y;`` (``v`` an object field, which the struct-access rule
    stores with ``CystckField_Store``, a call with no value) or ``x = g =
    y;`` (``g`` a global reference), is split into one store a statement,
    innermost first, each next target reading the one before: ``self->v =
    y; x = self->v;``.  The same in a declaration, ``PyObject *x =
    self->v = y;`` (the store goes before it).  Only where every target is
    a name, a member or an element with a plain index, so reading a target
    again gives the value the chain stored."""
    name = "chained-stores"
    precedence = 362
    patterns = (r"(?:(?<=[{};:)])|(?<=\belse)|^)(?P<ws>[ \t]*)(?P<decl>(?!(?:else|case|do|goto)\b)(?:const\s+)?(?:struct\s+)?\w+\s*\*?\s*(?=\w+\s*=(?!=)))?"
                r"(?P<chain>(?:(?&target)\s*=(?!=)\s*){2,})(?P<e>[^;=]+);"
                r"(?(DEFINE)(?P<target>(?:\*\s*)*[A-Za-z_]\w*(?:\s*(?:->|\.)\s*\w+|\s*\[\s*\w+\s*\])*))",)
    before = ("typedef struct { PyObject_HEAD PyObject *v; } Box;\n"
              "static PyObject *f(Box *self, PyObject *y)\n{\n    PyObject *x;\n    x = self->v = y;\n"
              "    if (y)\n        x = self->v = y;\n    return x;\n}\n")
    after = ("typedef struct { PyObject_HEAD PyObject *v; } Box;\n"
             "static PyObject *f(Box *self, PyObject *y)\n{\n    PyObject *x;\n    self->v = y; x = self->v;\n"
             "    if (y)\n        { self->v = y; x = self->v; }\n    return x;\n}\n")

    _TARGET = regex.compile(r"(?:\*\s*)*[A-Za-z_]\w*(?:\s*(?:->|\.)\s*\w+|\s*\[\s*\w+\s*\])*")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        pattern = regex.compile(self.patterns[0], regex.M)
        for f in unit.functions():
            if not f.is_definition:
                continue
            for m in pattern.finditer(code, *f.body):
                targets = [text[t.start():t.end()].strip()
                           for t in self._TARGET.finditer(code, m.start("chain"), m.end("chain"))]
                if not self._worth_splitting(unit.project, targets[1:]) or self._reads_another(targets):
                    continue
                value = text[m.start("e"):m.end("e")].strip()
                stores = [f"{targets[-1]} = {value};"] + \
                    [f"{a} = {b};" for a, b in zip(reversed(targets[:-1]), reversed(targets[1:]))]
                if m.group("decl"):
                    decl = text[m.start("decl"):m.end("decl")]
                    stores[-1] = decl + stores[-1]
                new = " ".join(stores)
                if _common.in_unbraced_body(code, m.start("ws") + len(m.group("ws"))):
                    new = "{ " + new + " }"
                edits.add(m.start("ws") + len(m.group("ws")), m.end(), new)
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _worth_splitting(p, inner):
        """Does one of the inner targets (whose value the chain uses) become
        a call: an object field of a custom type, a reference?"""
        fields = set().union(*(t.object_fields for t in p.types.values())) if p.types else set()
        for t in inner:
            member = regex.search(r"(?:->|\.)\s*(\w+)$", t)
            if member and (member.group(1) in fields or member.group(1) in p.ref_fields):
                return True
            if t in p.globals:
                return True
        return False

    @staticmethod
    def _reads_another(targets):
        """Does a target read a name another target stores (``a[i] = i =
        0``)? Read again after the split, it would see the new value."""
        names = [set(regex.findall(r"\b[A-Za-z_]\w*\b", regex.sub(r"(?:->|\.)\s*\w+", "", t))) for t in targets]
        whole = [t.strip("* ") for t in targets]
        return any(whole[j] in names[i] for i in range(len(targets)) for j in range(len(targets)) if i != j)


class Iso646NullHandles(Rule):
    """The null tests of the null-handles rule spelled with the operators
    of ``<iso646.h>`` (and C++): ``not h`` becomes ``Cystck_IsNull(h)``, a
    bare handle beside ``and``/``or`` (``if (x and h)``, ``(h or y)``)
    ``!Cystck_IsNull(h)``.  Only names known as handles are touched: ``not
    done`` on an ``int`` stays."""
    name = "iso646-null-handles"
    precedence = 521
    patterns = (r"\bnot\s+(?P<h>H)(?=\s*(?:\band\b|\bor\b|[)?;,]|&&|\|\|))",
                r"(?<=\band\s+|\bor\s+|&&\s*|\|\|\s*|(?:\bif|\bwhile)\s*\(\s*|\(\s*)(?P<h>H)"
                r"(?=\s*(?:\band\b|\bor\b))",
                r"(?<=\band\s+|\bor\s+)(?P<h>H)(?=\s*(?:[)?;,]|&&|\|\|))")
    before = ("#include <iso646.h>\nstatic int f(PyObject *o, PyObject *r, int done)\n{\n"
              "    if (not o or not done)\n        return 0;\n    return (r and done) or (done and r);\n}\n")
    after = ("#include <iso646.h>\nstatic int f(PyObject *o, PyObject *r, int done)\n{\n"
             "    if (Cystck_IsNull(o) or not done)\n        return 0;\n"
             "    return (!Cystck_IsNull(r) and done) or (done and !Cystck_IsNull(r));\n}\n")

    def apply(self, unit):
        code, text, p = unit.masked, unit.text, unit.project
        # HX without its end, which refuses a word after the handle (`o or`)
        pats = [regex.compile(pat.replace("H", _common.HX_OPEN)) for pat in self.patterns]
        edits = source.Edits()
        for ctx in _common.stateful_contexts(unit):
            for i, pat in enumerate(pats):
                for m in pat.finditer(code, *ctx.body):
                    h = text[m.start("h"):m.end("h")]
                    if ctx.out_of_scope(h.strip(), m.start("h")) or not _common.is_handle(h, ctx, p):
                        continue
                    edits.add(m.start(), m.end(), f"Cystck_IsNull({h})" if i == 0 else f"!Cystck_IsNull({h})")
        if edits:
            unit.apply(edits)
        return edits.applied


#: ``#define NAME(params) body`` (continuation lines included), on masked text
_FUNCTION_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\((?P<params>[^)]*)\)"
                                r"(?P<body>(?:[^\n\\]|\\.|\\\n)*)", regex.M)


def _truth_tested_params(text):
    """{macro: positions} of the function-like macros of ``text`` whose
    body uses a parameter only as a truth value, ``!(p)`` or ``!p`` (its
    stringification ``#p`` aside), in one of its definitions at least."""
    found = {}
    for m in _FUNCTION_MACRO.finditer(source.mask(text)):
        params = [p.strip() for p in m.group("params").split(",")]
        body = m.group("body")
        for i, p in enumerate(params):
            if not regex.fullmatch(r"[A-Za-z_]\w*", p):
                continue
            uses = list(regex.finditer(rf"(?<![\w#])#?\s*\b{p}\b", body))
            tested = [u for u in uses if regex.search(rf"!\s*(?:\(\s*{p}\s*\)|{p})", body[max(0, u.start() - 4):u.end() + 2])]
            if tested and all(u in tested or u.group().startswith("#") for u in uses):
                found.setdefault(m.group("name"), set()).add(i)
    return found


class TruthMacroHandleArgs(Rule):
    """A handle passed to a function-like macro that uses that parameter
    only as a truth value, ``#define ASSERT(e) if (!(e)) abort()`` (its
    other uses give ints, ``ASSERT(n > 0)``), becomes the truth value
    ``ASSERT(!Cystck_IsNull(h))``: the body's ``!(h)`` would apply ``!``
    to the handle struct.  The macro stays; arguments that are not handles
    (a pointer, a comparison) stay."""
    name = "truth-macro-handle-args"
    precedence = 522
    before = ("#define CHECK(e) do { if (!(e)) abort(); } while (0)\n"
              "static PyObject *f(PyObject *o, char *p) { CHECK(o); CHECK(p); CHECK(p != NULL); return o; }\n")
    after = ("#define CHECK(e) do { if (!(e)) abort(); } while (0)\n"
             "static PyObject *f(PyObject *o, char *p) { CHECK(!Cystck_IsNull(o)); CHECK(p); CHECK(p != NULL);"
             " return o; }\n")

    def apply(self, unit):
        macros = {}
        for text in unit.project.files.values():
            if "#" in text and "define" in text:
                for name, positions in _truth_tested_params(text).items():
                    macros.setdefault(name, set()).update(positions)
        if not macros:
            return 0
        code, text, p = unit.masked, unit.text, unit.project
        use = regex.compile(r"(?<![\w.>#])(?P<name>" + "|".join(map(regex.escape, sorted(macros)))
                            + r")\s*(?=\()")
        edits = source.Edits()
        for ctx in _common.stateful_contexts(unit):
            for m in use.finditer(code, *ctx.body):
                open_at = m.end()
                close = source.matching(code, open_at)
                for i, (s, e) in enumerate(source.split_top(code, open_at + 1, close - 1)):
                    arg = text[s:e].strip()
                    if i not in macros[m.group("name")] or not regex.fullmatch(_common.HX, arg):
                        continue
                    if ctx.out_of_scope(arg, s) or not _common.is_handle(arg, ctx, p):
                        continue
                    lead = s + len(text[s:e]) - len(text[s:e].lstrip())
                    edits.add(lead, lead + len(arg), f"!Cystck_IsNull({arg})")
        if edits:
            unit.apply(edits)
        return edits.applied


# an assignment target ending in a member: a.b.c, p->q (the base name, the last member)
_MEMBER_TARGET = regex.compile(r"(?<![\w.>])(?P<base>[A-Za-z_]\w*)(?:\s*(?:\.|->)\s*\w+)*\s*(?:\.|->)\s*(?P<m>\w+)")


def _c_pointer_member(project, member, base_type=None):
    """Is ``member`` a C pointer slot: one the extension declares ``void
    *``, or one it declares nowhere (a system type's, ``struct
    sigevent``'s ``sigev_value.sival_ptr``), which can hold no handle?
    An undeclared member of a variable whose type ``base_type`` is a C++
    one (a template's, ``std::pair<PyObject *, int>``'s ``first``, a
    namespace's, ``auto``) is none: its type is not known to be ``void *``."""
    m = regex.escape(member)
    texts = project.files.values()
    if any(regex.search(rf"\bvoid\s*\*\s*{m}\s*[;,\[]", t) for t in texts):
        return True
    if base_type is not None and (regex.search(r"[<:]", base_type) or regex.fullmatch(r"\s*auto\s*", base_type)):
        return False
    return not any(regex.search(rf"(?:[\w*]\s+\**|\*)\s*\b{m}\s*[;,\[:]", t) for t in texts)


_NOT_A_TYPE = {"return", "else", "case", "goto", "sizeof", "do", "throw", "delete", "new"}


def _declared_type(code, start, at, name):
    """The type ``name`` is last declared with in ``code[start:at]`` (a
    function's parameters and body up to a use), templates and namespaces
    included (``std::pair<PyObject *, int>``), or None."""
    found = None
    pattern = regex.compile(r"(?P<t>(?:\b(?:const|volatile|struct|union|class)\s+)*[A-Za-z_][\w:]*"
                            r"(?:\s*<[^;{}()]*>)?)[\s*&]+\b" + regex.escape(name) + r"\s*[;,=\[)({]")
    for d in pattern.finditer(code, start, at):
        if d.group("t").split()[-1] not in _NOT_A_TYPE:
            found = d.group("t")
    return found


class HandleInCPointer(Rule):
    """A handle stored in a C pointer slot, ``job.value.ptr = self;`` (a
    member the extension declares ``void *``, or one it declares nowhere,
    a system type's: ``struct sigevent``'s ``sigev_value.sival_ptr``, handed to a C library that gives it back
    later, maybe on a thread of its own), stores the object's
    ``PyObject *`` through the escape hatch, ``Cystck_AsPyObject(S,
    self)``: as stock code stores it, borrowed (the object must outlive
    the slot, as with the stock API).  A handle initialised or assigned
    from such a slot, ``Cystck_Object self = data.ptr;``, gets a handle for
    it, ``Cystck_FromPyObject(S, (PyObject *)data.ptr)``.  Both are marked
    and reported.  An undeclared member of a variable of a C++ type
    (``std::pair<PyObject *, int> pr; pr.first = o;``) is left alone: its
    type is not known to be a pointer slot."""
    name = "handle-in-c-pointer"
    precedence = 893
    patterns = (r"(?P<t>[\w.>\s-]+?)\s*=(?!=)\s*(?P<h>\w+)\s*;",)
    before = ("struct job { void (*fn)(void *); void *ptr; };\n"
              "static PyObject *f(PyObject *self, PyObject *o) {\n    struct job j;\n    PyObject *back;\n"
              "    j.ptr = o;\n    back = j.ptr;\n    return PyLong_FromLong(back == o);\n}\n")
    after = ("struct job { void (*fn)(void *); void *ptr; };\n"
             "static PyObject *f(PyObject *self, PyObject *o) {\n    struct job j;\n    PyObject *back;\n"
             f"    j.ptr = {escape.MARK} Cystck_AsPyObject(S, o);\n"
             f"    back = {escape.MARK} Cystck_FromPyObject(S, (PyObject *)j.ptr);\n"
             "    return PyLong_FromLong(back == o);\n}\n")

    _STORE = regex.compile(r"(?P<t>" + _MEMBER_TARGET.pattern + r")\s*=(?!=)\s*(?P<h>[A-Za-z_]\w*)\s*;")
    _READ = regex.compile(r"(?<![\w.>])(?P<h>[A-Za-z_]\w*)\s*=(?!=)\s*(?P<v>" + _MEMBER_TARGET.pattern + r")\s*;")

    def apply(self, unit):
        code, text, p = unit.masked, unit.text, unit.project
        edits = source.Edits()
        for ctx in _common.stateful_contexts(unit):
            b0, b1 = ctx.body
            def handle(name, ctx=ctx):
                return _common.is_handle(name, ctx, p)
            def base_type(m, ctx=ctx):
                return _declared_type(code, ctx.func.params[0], m.start(), m.group("base"))
            for m in self._STORE.finditer(code, b0, b1):
                if handle(m.group("h")) and _c_pointer_member(p, m.group("m"), base_type(m)):
                    edits.add(m.start("h"), m.end("h"), f"{escape.MARK} Cystck_AsPyObject(S, {m.group('h')})")
                    unit.leftover(m.start(), f"escape hatch: {m.group('h')} stored in the C pointer "
                                  f"{text[m.start('t'):m.end('t')].strip()} as its PyObject * (borrowed, as stock)",
                                  self.name)
            for m in self._READ.finditer(code, b0, b1):
                if handle(m.group("h")) and m.group("h") != m.group("base") and \
                        _c_pointer_member(p, m.group("m"), base_type(m)):
                    v = text[m.start("v"):m.end("v")].strip()
                    edits.add(m.start("v"), m.end("v"), f"{escape.MARK} Cystck_FromPyObject(S, (PyObject *){v})")
                    unit.leftover(m.start(), f"escape hatch: {m.group('h')} read from the C pointer {v}, "
                                  "a PyObject * given a handle", self.name)
        if edits:
            unit.apply(edits)
        return edits.applied


class ThreadCallbackFrames(Rule):
    """A function a C library calls back on a thread of its own (never
    called by the extension's code, only handed over as a pointer, like
    ``notification.sigev_notify_function = on_event;``) that takes the GIL
    with ``g = PyGILState_Ensure();`` and gives it back with
    ``PyGILState_Release(g);`` has no caller to pass it a state: its ``S``
    parameter goes, it declares a ``Cystck_State`` of its own, opens a
    frame right after taking the GIL, ``Cystck_OpenFrame(S);``, and closes
    it (releasing every handle it made) right before giving it back,
    ``Cystck_CloseFrame(S);`` (an exception that leaves is reported
    through ``sys.unraisablehook``).  A declaration ahead of the GIL whose
    initialiser uses the state (``Cystck_Object self =
    Cystck_FromPyObject(S, ...)``) is assigned after the frame opens.
    Left alone: a function called directly, one with a ``return`` between
    the two calls or a statement using the state before the frame
    (docs/runtime.md, "Releasing the GIL")."""
    name = "thread-callback-frames"
    precedence = 894
    needs = ("handle-in-c-pointer",)
    patterns = (r"(?P<g>\w+)\s*=\s*PyGILState_Ensure\s*\(\s*\)\s*;",)
    before = ("static void on_event(union sigval v)\n{\n    PyObject *self = v.sival_ptr;\n"
              "    PyGILState_STATE g = PyGILState_Ensure();\n    PyObject_CallMethod(self, \"fired\", NULL);\n"
              "    PyGILState_Release(g);\n}\n"
              "static PyObject *f(PyObject *self, PyObject *o) {\n    struct sigevent ev;\n"
              "    ev.sigev_value.sival_ptr = self;\n    ev.sigev_notify_function = on_event;\n"
              "    return PyLong_FromLong(0);\n}\n")
    after = ("static void on_event(union sigval v)\n{\n    Cystck_State S_thread_, *S = &S_thread_;\n"
             "    PyObject *self = Cystck_NULL;\n"
             "    PyGILState_STATE g = PyGILState_Ensure();\n    Cystck_OpenFrame(S);\n"
             f"    self = {escape.MARK} Cystck_FromPyObject(S, (PyObject *)v.sival_ptr);\n"
             "    PyObject_CallMethod(self, \"fired\", NULL);\n"
             "    if (Cystck_CloseFrame(S) < 0)\n        CystckErr_WriteUnraisable(S, Cystck_NULL);\n"
             "    PyGILState_Release(g);\n}\n"
             "static PyObject *f(PyObject *self, PyObject *o) {\n    struct sigevent ev;\n"
             f"    ev.sigev_value.sival_ptr = {escape.MARK} Cystck_AsPyObject(S, self);\n"
             "    ev.sigev_notify_function = on_event;\n"
             "    return PyLong_FromLong(0);\n}\n")

    _DECL_INIT = regex.compile(r"(?P<decl>(?:const\s+)?(?:(?:struct|union)\s+)?[A-Za-z_]\w*[\s*]+"
                               r"(?P<n>[A-Za-z_]\w*))\s*=(?!=)\s*(?P<v>[^;]*)(?P<semi>;)")

    def apply(self, unit):
        code, text, p = unit.masked, unit.text, unit.project
        edits = source.Edits()
        n = 0
        for ctx in _common.stateful_contexts(unit):
            f = ctx.func
            if ctx.role is not None:
                continue
            head = regex.match(r"\s*Cystck_State\s*\*\s*S\s*(?:,\s*|(?=\)|$))", code[f.params[0]:f.params[1]])
            b0, b1 = f.body
            ensures = list(regex.finditer(self.patterns[0], code, pos=b0, endpos=b1))
            if len(ensures) != 1 or _OWN_FRAME.search(code, b0, b1):
                continue
            g = ensures[0].group("g")
            releases = list(regex.finditer(rf"\bPyGILState_Release\s*\(\s*{g}\s*\)\s*;", code, pos=b0, endpos=b1))
            if len(releases) != 1 or releases[0].start() < ensures[0].end() or \
                    regex.search(r"\breturn\b", code[ensures[0].end():releases[0].start()]) or \
                    self._called(p, f.name):
                continue
            # the Ensure's statement (a declaration too: PyGILState_STATE g = ...)
            stmt_start = max(code.rfind(";", b0, ensures[0].start()), code.rfind("{", b0, ensures[0].start()),
                             code.rfind("}", b0, ensures[0].start())) + 1
            before = code[b0 + 1:stmt_start]
            moved, ok = [], True
            for piece in self._statements(before, b0 + 1):
                s, e = piece
                if not regex.search(r"\bS\b", code[s:e]):
                    continue
                lead = len(code[s:e]) - len(code[s:e].lstrip())
                d = self._DECL_INIT.match(code, s + lead, e)
                if d is None or regex.search(r"\bS\b", d.group("decl")):
                    ok = False
                    break
                moved.append(d)
            if not ok:
                unit.leftover(f.name_start, f"{f.name} takes the GIL but uses the state before: "
                              "a frame of its own is left to a human", self.name)
                continue
            if head:            # the S helper-signature gave it
                rest = code[f.params[0] + head.end():f.params[1]].strip()
                edits.add(f.params[0], f.params[1], text[f.params[0] + head.end():f.params[1]] if rest else "void")
            indent = regex.search(r"\n([ \t]*)\S", code[b0:b1])
            indent = indent.group(1) if indent else "    "
            edits.add(b0 + 1, b0 + 1, f"\n{indent}Cystck_State S_thread_, *S = &S_thread_;")
            inits = []
            for d in moved:
                handle = _common.is_handle(d.group("n"), ctx, p)
                edits.add(d.end("decl"), d.start("semi"), " = Cystck_NULL" if handle else "")
                value = text[d.end("decl"):d.start("semi")].strip()[1:].strip()   # after the `=` (a mark with it)
                inits.append(f"\n{indent}{d.group('n')} = {value};")
            end = ensures[0].end()
            edits.add(end, end, f"\n{indent}Cystck_OpenFrame(S);" + "".join(inits))
            r0 = releases[0].start()
            line0 = text.rfind("\n", 0, r0) + 1
            ind = text[line0:r0] if not text[line0:r0].strip() else indent
            edits.add(r0, r0, f"if (Cystck_CloseFrame(S) < 0)\n{ind}    CystckErr_WriteUnraisable(S, Cystck_NULL);\n{ind}")
            n += 1
        if edits:
            unit.apply(edits)
        return n

    @staticmethod
    def _statements(segment, offset):
        """(start, end) of each statement of ``segment`` (text at ``offset``)."""
        pos = 0
        for m in regex.finditer(r";", segment):
            yield offset + pos, offset + m.end()
            pos = m.end()

    @staticmethod
    def _called(p, name):
        """Is ``name`` called (not only named) in any file of the project?"""
        call = regex.compile(rf"(?<![\w.>]){regex.escape(name)}\s*\(")
        for raw in p.files.values():
            if name not in raw:
                continue
            text = source.mask(raw)          # not in a comment or a string
            for m in call.finditer(text):
                before = text[max(0, m.start() - 200):m.start()]
                # its definition or a prototype: a type before the name
                if regex.search(r"(?:^|[;{}\n])\s*(?:(?:static|extern|inline)\s+)*\w+[\w\s*]*[\s*]$", before) and \
                        not regex.search(r"(?:return|=|,|\(|&&|\|\|)\s*$", before):
                    continue
                return True
        return False


class ApiFunctionValues(Rule):
    """An API function passed by name, not called, to one of the
    extension's functions whose parameter there is a function pointer
    over handles once translated (``binaryfunc op``, a ``typedef PyObject
    *(*fn)(PyObject *);``: ``Cystck_Object (*op)(Cystck_State *,
    Cystck_Object, Cystck_Object)``) is its Cystck counterpart, which has
    that signature: ``check(self, o, PyNumber_Add)`` becomes ``check(S,
    self, o, CystckNumber_Add)``.  Only a counterpart that returns a
    handle and takes as many handles as the pointer does; any other use
    of the name as a value (a table, a local, a pointer of another shape)
    is left alone."""
    name = "api-function-values"
    precedence = 863
    # the pointer parameter and the calls as they are once translated
    needs = ("stock-function-pointers", "helper-signature", "state-calls")
    patterns = (r"(?<![\w.>])(?P<name>_?Py\w+)\b(?!\s*\()",)
    before = ("static PyObject *apply(PyObject *a, PyObject *b, binaryfunc op) { return op(a, b); }\n"
              "static PyObject *add(PyObject *a, PyObject *b) { return apply(a, b, PyNumber_Add); }\n")
    after = ("static Cystck_Object apply(Cystck_State *S, Cystck_Object a, Cystck_Object b, "
             "Cystck_Object (*op)(Cystck_State *, Cystck_Object, Cystck_Object)) { return op(S, a, b); }\n"
             "static Cystck_Object add(Cystck_State *S, Cystck_Object a, Cystck_Object b) "
             "{ return apply(S, a, b, CystckNumber_Add); }\n")

    _POINTER = regex.compile(r"\(\s*\*\s*(?P<n>\w*)\s*\)\s*" + source.paren("ps"))

    def apply(self, unit):
        mapping, functions = api.stock_map(), api.by_name()
        masked = unit.masked
        edits = source.Edits()
        for m in regex.finditer(self.patterns[0], masked):
            target = functions.get(mapping.get(m.group("name"), ""))
            if target is None or target.ret != "h" or not target.params \
                    or not all(q.is_handle for q in target.params):
                continue
            call = _common.call_of_argument(masked, m.start())
            if call is None:
                continue
            callee, start = call
            open_at = masked.index("(", start)
            args = source.split_top(masked, open_at + 1, source.matching(masked, open_at) - 1)
            index = next((i for i, (s, e) in enumerate(args) if s <= m.start() < e), None)
            if index is None or masked[slice(*args[index])].strip() != m.group("name"):
                continue          # part of a larger argument
            arity = self._pointer_arity(callee, len(args) - index, masked)
            if arity == len(target.params):
                edits.add(m.start(), m.end(), target.name)
        if edits:
            unit.apply(edits)
        return edits.applied

    @classmethod
    def _pointer_arity(cls, callee, from_end, code):
        """How many handles, after the state, the function pointer takes
        that the definition of ``callee`` in ``code`` (one of the
        extension's functions, translated: the state may have been added
        first, so parameters count from the end) has as its ``from_end``-th
        parameter from the last; None if that is no such pointer, or the
        function is not defined in this file."""
        for d in regex.finditer(rf"(?<![\w.>]){regex.escape(callee)}\s*\(", code):
            close = source.matching(code, d.end() - 1)
            if not regex.match(r"\s*\{", code[close:]):
                continue          # a call or a prototype
            params = source.split_top(code, d.end(), close - 1)
            if from_end > len(params):
                return None
            param = code[slice(*params[len(params) - from_end])]
            ptr = cls._POINTER.search(param)
            if ptr is None:       # a typedef of a pointer: typedef R (*T)(...);
                t = regex.fullmatch(r"\s*(?:const\s+)?(?P<t>\w+)\s+\w+\s*", param)
                ptr = t and regex.search(rf"\btypedef\b[^;{{}}]*\(\s*\*\s*(?P<n>{t.group('t')})\s*\)\s*"
                                         + source.paren("ps"), code)
                if not ptr:
                    return None
            ps = [q.strip() for q in ptr.group("ps")[1:-1].split(",")]
            if not regex.fullmatch(r"Cystck_State\s*\*\s*\w*", ps[0]) \
                    or not all(regex.fullmatch(r"(?:const\s+)?Cystck_Object\s*\w*", q) for q in ps[1:]):
                return None
            return len(ps) - 1
        return None
