"""Function-like macros whose bodies the other rules translate but whose
parameters or token pasting hide what the body means: a parameter named
like the state, a global named by pasting tokens."""
import regex

from .. import api, project as proj, source
from . import _common
from ..engine import Rule

#: ``#define NAME(params) body`` (continuation lines included), on masked text
MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\((?P<params>[^)]*)\)"
                      r"(?P<body>(?:[^\n\\]|\\.|\\\n)*)", regex.M)


def _uses_state(project, path, body):
    """Will the translated body of a macro use the state ``S``?"""
    if proj.API_TOKEN.search(body):
        return True
    return any(project.needs_state(path, callee) for callee in regex.findall(r"\b(\w+)\s*\(", body))


class MacroStateParam(Rule):
    """A macro parameter named ``S`` would capture the state that the
    translation passes to the API calls of the macro's body
    (``#define NEW(S) PyUnicode_FromString(#S)`` would expand
    ``CystckUnicode_FromString(S, #S)`` with the argument as the state), so
    it is renamed ``S_`` (with more underscores if that name is taken) in
    the parameter list and the body.  Macros whose body does not use the
    API keep their parameter."""
    name = "macro-state-param"
    precedence = 110
    patterns = (MACRO.pattern,)
    before = ("#define NEW(S) if (!(s##S = PyUnicode_FromString(#S))) return -1\n"
              "#define MAX(S, T) ((S) > (T) ? (S) : (T))\n")
    after = ("#define NEW(S_) if (!(s##S_ = PyUnicode_FromString(#S_))) return -1\n"
             "#define MAX(S, T) ((S) > (T) ? (S) : (T))\n")

    def apply(self, unit):
        code, edits = unit.masked, source.Edits()
        for m in MACRO.finditer(code):
            params = [p.strip() for p in m.group("params").split(",")]
            if "S" not in params or not _uses_state(unit.project, unit.path, m.group("body")):
                continue
            fresh = _common.renamed_state(code, m.start("params"), m.end("body"))
            for start, end in (m.span("params"), m.span("body")):
                for t in regex.finditer(r"\bS\b", code, pos=start, endpos=end):
                    edits.add(t.start(), t.end(), fresh)
        if edits:
            unit.apply(edits)
        return edits.applied


def _expression_end(code, start, end, stop=",;"):
    """Where the expression starting at ``start`` ends: at a ``)`` or a
    character of ``stop`` of its own depth, or at the end of the macro body
    (before a trailing line continuation)."""
    i = source.top_level_find(code, start, end, stop)
    return i if i is not None else len(code[:end].rstrip(" \t\n\\"))


def _macro_arguments(code, name, index):
    """The text of argument ``index`` of every use of macro ``name``, or
    None where a use does not have it."""
    found = []
    for m in regex.finditer(rf"(?<!define\s+)\b{name}\s*" + source.paren("a"), code):
        inner = m.group("a")[1:-1]
        args = source.split_top(inner, 0, len(inner))
        found.append(inner[args[index][0]:args[index][1]].strip() if index < len(args) else None)
    return found


class PastedGlobalStores(Rule):
    """A macro that stores into a global named by token pasting,
    ``#define INIT(n) str_##n = PyUnicode_FromString(#n)``, stores a
    reference when every use of the macro names a global that holds
    objects (``INIT(name)`` for ``static PyObject *str_name;``): the value
    becomes ``Cystck_ref(S, value)``, as the global-refs rule does for a
    store it can see.  A pasted name that is not such a global for some
    use stays."""
    name = "pasted-global-stores"
    precedence = 695
    patterns = (r"(?P<pre>\w+)\s*##\s*(?P<p>\w+)\s*=(?!=)\s*",)
    before = ("static PyObject *str_a, *str_b;\nstatic int count_a;\n"
              "static int init(void)\n{\n"
              "#define INIT(n) if (!(str_##n = PyUnicode_FromString(#n))) return -1\n"
              "    INIT(a);\n    INIT(b);\n"
              "#define ZERO(n) count_##n = 0\n    ZERO(a);\n    return 0;\n}\n")
    after = ("static PyObject *str_a, *str_b;\nstatic int count_a;\n"
             "static int init(void)\n{\n"
             "#define INIT(n) if (!(str_##n = Cystck_ref(S, PyUnicode_FromString(#n)))) return -1\n"
             "    INIT(a);\n    INIT(b);\n"
             "#define ZERO(n) count_##n = 0\n    ZERO(a);\n    return 0;\n}\n")

    def apply(self, unit):
        code, text, edits = unit.masked, unit.text, source.Edits()
        refs = unit.project.globals
        if not refs:
            return 0
        for m in MACRO.finditer(code):
            params = [p.strip() for p in m.group("params").split(",")]
            for s in regex.finditer(self.patterns[0], code, pos=m.start("body"), endpos=m.end("body")):
                if s.group("p") not in params:
                    continue
                args = _macro_arguments(code, m.group("name"), params.index(s.group("p")))
                if not args or not all(a and s.group("pre") + a in refs for a in args):
                    continue
                end = _expression_end(code, s.end(), m.end("body"))
                value = text[s.end():end].rstrip()
                if value.startswith("Cystck_ref("):
                    continue
                edits.add(s.end(), s.end() + len(value), f"Cystck_ref(S, {value})")
        if edits:
            unit.apply(edits)
        return edits.applied


#: ``#define NAME body`` or ``#define NAME(params) body`` (continuation lines included), on masked text
ANY_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+\w+(?:\([^)]*\))?(?P<body>(?:[^\n\\]|\\.|\\\n)*)", regex.M)
_CONSTANT_HANDLE = r"Cystck_(?:None|True|False|NotImplemented|Ellipsis|NULL)"


def _is_handle_value(text):
    """Is ``text`` (a macro's expression, translated) a handle: a constant
    or a call of an API function returning one?"""
    text = text.strip()
    if regex.fullmatch(_CONSTANT_HANDLE, text):
        return True
    call = regex.fullmatch(r"(?P<f>Cystck\w+)\s*" + source.paren("a"), text)
    f = call and api.by_name().get(call.group("f"))
    return bool(f and f.ret == "h")


class MacroHandleValues(Rule):
    """A macro whose value is a handle (``#define RESULT (ok ?
    PyUnicode_FromString(s) : NULL)``, ``ok ? Py_INCREF(Py_None), Py_None :
    NULL``) gives the null handle, not ``NULL``, in the other branch of
    its conditional, ``(ok ? CystckUnicode_FromString(S, s) :
    Cystck_NULL)``, and a constant handle takes no reference
    (``Py_INCREF(Cystck_None), `` goes): what the null-handles and incref
    rules do in function bodies.  A conditional between C values stays."""
    name = "macro-handle-values"
    precedence = 851
    needs = ("constants", "api-calls")    # it knows a handle by its Cystck name
    patterns = (ANY_MACRO.pattern,)
    before = ("#define RESULT (ok ? PyUnicode_FromString(s) : NULL)\n"
              "#define DONE (ok ? Py_INCREF(Py_None), Py_None : NULL)\n"
              "#define SIZE (ok ? strlen(s) : 0)\n")
    after = ("#define RESULT (ok ? CystckUnicode_FromString(S, s) : Cystck_NULL)\n"
             "#define DONE (ok ? Cystck_None : Cystck_NULL)\n"
             "#define SIZE (ok ? strlen(s) : 0)\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        if "Cystck" not in code:
            return 0
        edits = source.Edits()
        for m in ANY_MACRO.finditer(code):
            b0, b1 = m.span("body")
            for inc in regex.finditer(r"\bPy_X?INCREF\(\s*" + _CONSTANT_HANDLE + r"\s*\)\s*,\s*", code, pos=b0, endpos=b1):
                edits.add(inc.start(), inc.end(), "")
            for q in regex.finditer(r"\?", code, pos=b0, endpos=b1):
                colon = _expression_end(code, q.end(), b1, ":")
                if colon >= b1 or code[colon] != ":":
                    continue
                end = _expression_end(code, colon + 1, b1, ",;?")
                first, second = (q.end(), colon), (colon + 1, end)
                for null, other in ((second, first), (first, second)):
                    value = code[null[0]:null[1]]
                    if regex.fullmatch(r"\s*(?:NULL|0|nullptr)\s*", value) and _is_handle_value(
                            regex.sub(r"\bPy_X?INCREF\(\s*" + _CONSTANT_HANDLE + r"\s*\)\s*,\s*", "",
                                      text[other[0]:other[1]]).replace("\\\n", " ")):
                        lead = null[0] + len(value) - len(value.lstrip())
                        edits.add(lead, lead + len(value.strip()), "Cystck_NULL")
        if edits:
            unit.apply(edits)
        return edits.applied


class CastAliasMacros(Rule):
    """An object-like macro that names a handle cast to a custom type's
    struct, ``#define box ((Box *)self)`` (a method's shorthand for its
    own instance, often ``#undef``'d at the function's end), is written
    out at each use up to its ``#undef`` or its next ``#define`` (else to
    the end of the file): the casts and struct-access rules cannot see
    through the name, and see ``((Box *)self)->n`` (which becomes
    ``Box_AsStruct(S, self)->n``) and ``f(((Box *)self))`` (which passes
    the handle).  Member names (``p->box``), the name in directives and
    casts to other structs stay."""
    name = "cast-alias-macros"
    precedence = 120
    patterns = (r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)[ \t]+\(\s*\(\s*(?:struct\s+)?(?P<t>\w+)"
                r"\s*\*\s*\)\s*(?:\w+|\(\s*\w+\s*\))\s*\)[ \t]*$",)
    before = ("typedef struct { PyObject_HEAD long n; } Box;\n"
              "static PyObject *get(PyObject *self) {\n#define box ((Box *)self)\n"
              "    return PyLong_FromLong(box->n);\n#undef box\n}\n"
              "#define data ((char *)buf)\n")
    after = ("typedef struct { PyObject_HEAD long n; } Box;\n"
             "static PyObject *get(PyObject *self) {\n#define box ((Box *)self)\n"
             "    return PyLong_FromLong(((Box *)self)->n);\n#undef box\n}\n"
             "#define data ((char *)buf)\n")

    def apply(self, unit):
        types = set(unit.project.custom_structs)
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for m in regex.finditer(self.patterns[0], code, regex.M):
            if m.group("t") not in types:
                continue
            name, body = m.group("name"), text[m.end("name"):m.end()].strip()
            # its scope: up to its #undef or its next #define
            end = regex.compile(r"^[ \t]*#[ \t]*(?:undef|define)[ \t]+" + regex.escape(name) + r"\b",
                                regex.M).search(code, m.end())
            use = regex.compile(r"(?<!(?:\.|->|\bdefined)\s*\(?\s*|^[ \t]*#[ \t]*\w+[ \t]*\(?[ \t]*)\b"
                                + regex.escape(name) + r"\b", regex.M)
            for u in use.finditer(code, m.end(), end.start() if end else len(code)):
                edits.add(u.start(), u.end(), body)
        if edits:
            unit.apply(edits)
        return edits.applied


#: ``#define F(name) name``: a macro that is its argument.
_IDENTITY_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\(\s*(?P<p>\w+)\s*\)[ \t]*(?P=p)[ \t]*$",
                                regex.M)


class IdentityNameMacros(Rule):
    """A macro that is its argument, ``#define F(name) name``, wrapped
    around an API name (``F(PyTuple_GetItem)(t, 0)``, a hook for another
    build to substitute its own functions) hides the call from every
    rule: the use becomes the name itself, ``PyTuple_GetItem(t, 0)``,
    which the API rules translate.  Another definition of the macro
    (``#define F(name) name##_custom``, a fault-injection build's) no
    longer applies to those calls: it is reported where it is defined.
    Uses around other names stay."""
    name = "identity-name-macros"
    precedence = 115
    patterns = (_IDENTITY_MACRO.pattern,)
    before = ("#define F(name) name\n"
              "static PyObject *first(PyObject *t) { return F(PyTuple_GetItem)(t, 0); }\n"
              "static int twice(int n) { return F(helper)(n); }\n")
    after = ("#define F(name) name\n"
             "static PyObject *first(PyObject *t) { return PyTuple_GetItem(t, 0); }\n"
             "static int twice(int n) { return F(helper)(n); }\n")

    def apply(self, unit):
        names = set()
        for text in unit.project.files.values():
            names |= {m.group("name") for m in _IDENTITY_MACRO.finditer(text)}
        if not names:
            return 0
        alternative = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>" + "|".join(sorted(names))
                                    + r")\(\s*\w+\s*\)", regex.M)
        for m in alternative.finditer(unit.masked):
            if not _IDENTITY_MACRO.match(unit.masked, m.start()):
                unit.leftover(m.start(), f"macro '{m.group('name')}' is its argument in another "
                              f"definition: its uses around API names were written out as the "
                              f"names, so this definition no longer applies to them", rule=self.name)
        use = r"\b(?:" + "|".join(sorted(names)) + r")\(\s*(?P<api>_?Py\w+)\s*\)"
        return unit.sub(use, lambda m, text: m.group("api"))


#: ``#define NEWREF(o) (Py_INCREF(o), (o))``: a macro that is a new
#: reference to its argument (``Py_NewRef`` as older code spells it).
_NEWREF_MACRO = regex.compile(
    r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\(\s*(?P<p>\w+)\s*\)[ \t]*\(\s*(?P<inc>Py_X?INCREF)\s*\("
    r"\s*(?:(?P=p)|\(\s*(?P=p)\s*\))\s*\)\s*,\s*(?:(?P=p)|\(\s*(?P=p)\s*\))\s*\)[ \t]*$", regex.M)


class NewRefMacros(Rule):
    """A macro that is a new reference to its argument, ``#define
    NEWREF(o) (Py_INCREF(o), (o))``, is written out at its uses in the
    functions that get the state, ``r = NEWREF(x);`` as ``r =
    (Py_INCREF(x), x);``, the idiom the comma-incref rule ports (a handle
    of its own where the reference is released, consumed or returned by a
    helper).  Left as it is, the increment in the macro's body would take
    a handle (it does not compile).  The definition stays, for the
    functions that stay stock; other macros' uses stay."""
    name = "newref-macros"
    precedence = 117
    patterns = (_NEWREF_MACRO.pattern,)
    before = ("#define NEWREF(o) (Py_INCREF(o), (o))\n#define TWICE(o) (f(o), (o))\n"
              "static PyObject *first(PyObject *t) { PyObject *r = NEWREF(t); return TWICE(r); }\n")
    after = ("#define NEWREF(o) (Py_INCREF(o), (o))\n#define TWICE(o) (f(o), (o))\n"
             "static PyObject *first(PyObject *t) { PyObject *r = (Py_INCREF(t), t); return TWICE(r); }\n")

    def apply(self, unit):
        increments = {}
        for text in unit.project.files.values():
            increments.update((m.group("name"), m.group("inc")) for m in _NEWREF_MACRO.finditer(text))
        if not increments:
            return 0
        use = regex.compile(r"(?<![\w.>])(?P<name>" + "|".join(map(regex.escape, sorted(increments)))
                            + r")\s*" + source.paren("a"))
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for f, _ in _common.state_functions(unit):
            for m in use.finditer(code, *f.body):
                arg = text[m.start("a") + 1:m.end("a") - 1].strip()
                if arg:
                    edits.add(m.start(), m.end(), f"({increments[m.group('name')]}({arg}), {arg})")
        if edits:
            unit.apply(edits)
        return edits.applied


#: ``#define NAME(a, b) (PyFoo_Bar(a, b))``: a macro that is one API call
#: of its parameters, in order (each maybe parenthesised), maybe in
#: parentheses itself.
_API_CALL_MACRO = regex.compile(
    r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\((?P<params>[^)]*)\)[ \t]*"
    r"(?P<body>\(?[ \t]*(?P<api>_?Py\w+)[ \t]*" + source.paren("a") + r"[ \t]*\)?)[ \t]*$", regex.M)


def _api_call_macros(project):
    """name -> API function of each macro of the project's files that is
    one call of that API function on its parameters (``#define
    TYPE_OF(o) (Py_TYPE(o))``); a name defined so for two functions is
    none."""
    found = {}
    for text in project.files.values():
        masked = source.mask(text)
        for m in _API_CALL_MACRO.finditer(masked):
            name, api_name = m.group("name"), m.group("api")
            params = [p.strip() for p in m.group("params").split(",")]
            inner = m.group("a")[1:-1]
            args = [source.unparen(inner[s:e]).strip() for s, e in source.split_top(inner, 0, len(inner))] \
                if inner.strip() else []
            call = masked[m.start("api"):m.end("a")]
            if (name.startswith(("Py", "_Py")) or not proj.API_TOKEN.fullmatch(api_name) or args != params
                    or not all(regex.fullmatch(r"[A-Za-z_]\w*", p) for p in params)
                    or source.unparen(m.group("body")) != call):
                continue
            if found.get(name, api_name) != api_name:
                found[name] = None
            else:
                found[name] = api_name
    return {n: f for n, f in found.items() if f}


class ApiCallMacros(Rule):
    """A macro that is one API call of its parameters, ``#define
    TYPE_OF(o) (Py_TYPE(o))`` (a spelling kept for older Pythons), hides
    the call from every rule: its translated body would need the state in
    destructors, which have none, and ``TYPE_OF(self)->tp_free(self)``
    would stay a slot call on a handle.  Its uses become the call,
    ``Py_TYPE(self)->tp_free(self)``, which the other rules port where
    it is.  The definition stays (unused); another definition of the
    name (``#define TYPE_OF(o) ((o)->ob_type)`` for Python 2) no longer
    applies to those uses: it is reported where it is.  Macros with more
    in their body (``(Py_TYPE(o) == t)``), arguments in another order,
    or defined as two different calls stay."""
    name = "api-call-macros"
    precedence = 116
    patterns = (_API_CALL_MACRO.pattern,)
    before = ("#define TYPE_OF(o) (Py_TYPE(o))\n#define IS(o, t) (Py_TYPE(o) == (t))\n"
              "static int same(PyObject *a, PyObject *b) { return IS(a, TYPE_OF(b)); }\n")
    after = ("#define TYPE_OF(o) (Py_TYPE(o))\n#define IS(o, t) (Py_TYPE(o) == (t))\n"
             "static int same(PyObject *a, PyObject *b) { return IS(a, Py_TYPE(b)); }\n")

    def apply(self, unit):
        aliases = _api_call_macros(unit.project)
        if not aliases:
            return 0
        names = "|".join(map(regex.escape, sorted(aliases)))
        code = unit.masked
        for m in regex.finditer(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>" + names + r")\b", code, regex.M):
            alias = _API_CALL_MACRO.match(code, m.start())
            if not alias or alias.group("api") != aliases[m.group("name")]:
                unit.leftover(m.start(), f"macro '{m.group('name')}' is a call of {aliases[m.group('name')]} "
                              f"in another definition: its uses were written out as that call, so this "
                              f"definition no longer applies to them", rule=self.name)
        use = regex.compile(r"(?<![\w.>]|define[ \t]+)(?P<name>" + names + r")\s*" + source.paren("a"))
        applied = 0
        while True:       # outermost uses first, then those in their arguments
            code, text, edits = unit.masked, unit.text, source.Edits()
            for m in use.finditer(code):
                inner = (m.start("a") + 1, m.end("a") - 1)
                args = [text[s:e].strip() for s, e in source.split_top(code, *inner)] \
                    if code[inner[0]:inner[1]].strip() else []
                edits.add(m.start(), m.end(), f"{aliases[m.group('name')]}({', '.join(args)})")
            if not edits:
                return applied
            unit.apply(edits)
            applied += edits.applied
