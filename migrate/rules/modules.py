"""Module definitions and init functions."""
import regex

from .. import cstruct, project as proj, source, static_objects
from ..engine import Rule
from . import _common, functions, tables


_SLOT_ARRAY = regex.compile(r"^[ \t]*(?P<static>static\s+)?(?:struct\s+)?PyModuleDef_Slot\s+(?P<name>\w+)\s*\[\s*\]\s*=\s*\{", regex.M)
# in a slot array: a preprocessor line, or one {slot, value} entry
_SLOT_ITEM = regex.compile(r"^(?P<dir>[ \t]*#[^\n]*)$|\{\s*(?P<id>\w+)\s*,\s*(?P<v>[^{}]*?)\s*\}|\{\s*0?\s*\}", regex.M)
_SLOT_MACROS = {"Py_mod_exec": "CYSTCK_DEF_MOD_EXEC", "Py_mod_create": "CYSTCK_DEF_MOD_CREATE"}


class ModuleDef(Rule):
    """``struct PyModuleDef d = {PyModuleDef_HEAD_INIT, name, doc, size,
    methods, ...}`` becomes ``CystckModuleDef d = {name, doc, size,
    methods}`` (a size of -1, "no per-module state", becomes 0).  With
    ``m_slots`` (multi-phase init) the defines are the slot array, which
    the multi-phase-init rule made a list of the functions and slots; the
    traverse/clear/free hooks are dropped with their functions.  A
    declaration of the definition ahead of it (``static struct PyModuleDef
    mod;``, for code that needs its address first) declares a
    ``CystckModuleDef`` too."""
    name = "module-def"
    precedence = 330
    patterns = (r"\b(?:struct\s+)?PyModuleDef\s+(?P<name>\w+)\s*=\s*\{",
                r"\b(?:struct\s+)?PyModuleDef\s+(?P<name>\w+)\s*;")
    before = ('static struct PyModuleDef mod;\n'
              'static struct PyModuleDef mod = {\n    PyModuleDef_HEAD_INIT,\n    "spam",\n    NULL,\n'
              '    -1,\n    spam_methods\n};\n')
    after = ('static CystckModuleDef mod;\n'
             'static CystckModuleDef mod = {\n    "spam",\n    NULL,\n    0,\n    spam_methods\n};\n')

    def apply(self, unit):
        code, text = unit.structure, unit.text
        edits = source.Edits()
        defined = set()
        for m in regex.finditer(self.patterns[0], code):
            f = cstruct.fields_of(proj.table_items(code, text, m), proj.MODULE_FIELDS)
            vals = []
            for key, default in (("m_name", '""'), ("m_doc", "NULL"), ("m_size", "0"), ("m_methods", "NULL")):
                v = f[key].text if key in f and f[key].text else default
                if key == "m_doc" and v == "0":
                    v = "NULL"
                if key == "m_size" and regex.fullmatch(r"-\s*1", v):
                    v = "0"
                vals.append(v)
            slots = f["m_slots"].text.strip() if "m_slots" in f and f["m_slots"].text else "NULL"
            if slots in unit.project.module_slot_arrays:
                vals[3] = slots          # the defines array the multi-phase-init rule made of it
            elif slots not in proj.NULLS:
                unit.leftover(m.start(), f"m_slots = {slots}: slot array not found", self.name)
            open_at = m.end() - 1
            close = source.matching(code, open_at)
            head = regex.sub(r"(?:struct\s+)?PyModuleDef", "CystckModuleDef", text[m.start():open_at], count=1)
            edits.add(m.start(), close, head + "{\n" + ",\n".join("    " + v for v in vals) + "\n}")
            defined.add(m.group("name"))
        for m in regex.finditer(self.patterns[1], code):
            if m.group("name") in defined or self._defined_with(unit, m.group("name")):
                edits.add(m.start(), m.start("name"), "CystckModuleDef ")
        if edits:
            unit.apply(edits)
        return edits.applied

    def _defined_with(self, unit, name):
        """Is the module definition ``name`` given (``PyModuleDef name =
        {...}``) in a file compiled with this one?  A header declares it
        ahead of the source file that includes the header and defines it;
        the two must agree on its type."""
        given = regex.compile(rf"\b(?:struct\s+)?PyModuleDef\s+{regex.escape(name)}\s*=\s*\{{")
        return any(given.search(source.mask(unit.project.files[p]))
                   for p in unit.project.compiled_with(unit.path) if p in unit.project.files)


class MultiPhaseInit(Rule):
    """Multi-phase init (PEP 489) stays multi-phase: each entry of a
    ``PyModuleDef_Slot`` array becomes a definition,
    ``CYSTCK_DEF_MOD_EXEC(sym, f)`` for ``Py_mod_exec``,
    ``CYSTCK_DEF_MOD_CREATE(sym, f)`` for ``Py_mod_create`` (the functions
    get the signatures these declare) and ``CYSTCK_DEF_MOD_SLOT(sym, id,
    value)`` for value slots such as ``Py_mod_multiple_interpreters`` and
    ``Py_mod_gil`` (docs/runtime.md says what the runtime allows), with
    the array's preprocessor conditionals; the array's name becomes the
    module's defines, written before the module definition: the
    definitions of its method table (which then gets no array of its own)
    and of its slots.  ``return PyModuleDef_Init( &def );`` stays, for the
    api-calls rule (``CystckModuleDef_Init``).  A module without slots is
    left alone."""
    name = "multi-phase-init"
    precedence = 308
    patterns = (_SLOT_ARRAY.pattern, r"\b(?:struct\s+)?PyModuleDef\s+(?P<name>\w+)\s*=\s*\{")
    before = ("static PyObject *neg(PyObject *self, PyObject *o) { return PyNumber_Negative(o); }\n"
              "static PyMethodDef spam_methods[] = {{\"neg\", neg, METH_O, NULL}, {NULL}};\n"
              "static int spam_exec( PyObject *mod ) { return PyModule_AddIntConstant( mod, \"x\", 1 ); }\n"
              "static PyModuleDef_Slot spam_slots[] = {\n    {Py_mod_exec, (void *)spam_exec},\n"
              "#ifdef Py_GIL_DISABLED\n    {Py_mod_gil, Py_MOD_GIL_NOT_USED},\n#endif\n    {0, NULL}\n};\n"
              "static struct PyModuleDef spam = {PyModuleDef_HEAD_INIT, \"spam\", NULL, 0, spam_methods, spam_slots};\n")
    after = ("static PyObject *neg(PyObject *self, PyObject *o) { return PyNumber_Negative(o); }\n"
             "static PyMethodDef spam_methods[] = {{\"neg\", neg, METH_O, NULL}, {NULL}};\n"
             "static int spam_exec( PyObject *mod ) { return PyModule_AddIntConstant( mod, \"x\", 1 ); }\n"
             "CYSTCK_DEF_MOD_EXEC(spam_exec_def, spam_exec)\n"
             "#ifdef Py_GIL_DISABLED\nCYSTCK_DEF_MOD_SLOT(spam_slots_mod_gil, Py_mod_gil, Py_MOD_GIL_NOT_USED)\n#endif\n"
             "static CystckDef *spam_slots[] = {\n    &neg_def,\n    &spam_exec_def,\n"
             "#ifdef Py_GIL_DISABLED\n    &spam_slots_mod_gil,\n#endif\n    NULL\n};\n"
             "static struct PyModuleDef spam = {PyModuleDef_HEAD_INIT, \"spam\", NULL, 0, spam_methods, spam_slots};\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        arrays = {m.group("name"): m for m in _SLOT_ARRAY.finditer(code)}
        if not arrays:
            return 0
        planned = tables.plan(unit)
        items = source.top_level_items(unit.structure)
        edits = source.Edits()
        written = set()
        for m in regex.finditer(self.patterns[1], code):
            f = cstruct.fields_of(proj.table_items(unit.structure, text, m), proj.MODULE_FIELDS)
            slots = f["m_slots"].text.strip() if "m_slots" in f and f["m_slots"].text else None
            if slots not in arrays or slots in written:
                continue
            written.add(slots)
            a = arrays[slots]
            defs, entries = self._slot_definitions(unit, a)
            methods = cstruct.strip_cast(f["m_methods"].text) if "m_methods" in f and f["m_methods"].text else None
            if methods in unit.project.phased_method_tables and methods in planned:
                entries = [e.guarded(f"    &{e.symbol},") for e in planned[methods].entries if e.ok] + entries
            elif methods not in (None,) + proj.NULLS:
                unit.leftover(m.start(), f"the functions of {methods} (another file) are not in the defines "
                              f"array {slots}: list their definitions there by hand", self.name)
            close = source.matching(code, a.end() - 1)
            end = close + regex.match(r"\s*;", code[close:]).end()
            edits.add(*_common.statement_line_span(text, a.start() + len(a.group()) - len(a.group().lstrip()), end),
                      "".join(d + "\n" for d in defs))
            static = "static " if a.group("static") else ""
            array = f"{static}CystckDef *{slots}[] = {{\n" + "".join(e + "\n" for e in entries) + "    NULL\n};\n"
            span = next((s, e) for s, e in items if s <= m.start() < e)
            at = _common.declaration_start(unit.structure, span, m.start())
            edits.add(at, at, array)
        if edits:
            unit.apply(edits)
        return edits.applied

    def _slot_definitions(self, unit, a):
        """(definition lines, defines-array lines) for the entries of the
        slot array that match ``a``, preprocessor lines in both."""
        code, text, name = unit.masked, unit.text, a.group("name")
        defs, entries = [], []
        close = source.matching(code, a.end() - 1)
        for e in _SLOT_ITEM.finditer(code, a.end(), close - 1):
            if e.group("dir"):
                directive = text[e.start("dir"):e.end("dir")].strip()
                defs.append(directive)
                entries.append(directive)
                continue
            if not e.group("id") or e.group("id") == "0":
                continue                       # the terminator
            slot, value = e.group("id"), text[e.start("v"):e.end("v")]
            if slot in _SLOT_MACROS:
                func = cstruct.strip_cast(value)
                sym = f"{func}_def"
                # a function another file declares: called through a forwarder
                impl, forwarder = functions.slot_implementation(unit, func, proj.MODULE_SLOT_ROLES[slot], sym)
                defs.append(f"{_SLOT_MACROS[slot]}({sym}, {impl}){forwarder}")
            else:
                sym = f"{name}_{slot.replace('Py_', '', 1)}"
                defs.append(f"CYSTCK_DEF_MOD_SLOT({sym}, {slot}, {value})")
            entries.append(f"    &{sym},")
        return defs, entries


class ModInit(Rule):
    """``PyMODINIT_FUNC PyInit_name(void)`` becomes ``CYSTCK_MODINIT(name)``,
    whose body has the state ``S`` and returns ``Cystck_Return(S, m)`` or -1
    (the returns rule does that); prototypes of the init function go.  An
    init spelled with the plain return type, ``PyObject *PyInit_name(void)``
    at the start of a line, is one too (proj.INIT_FUNCTION)."""
    name = "modinit"
    precedence = 340
    patterns = (proj.INIT_FUNCTION.pattern,)
    before = "PyMODINIT_FUNC PyInit_spam(void);\nPyMODINIT_FUNC\nPyInit_spam(void)\n{\n    return PyModule_Create(&mod);\n}\n"
    after = "CYSTCK_MODINIT(spam)\n{\n    return PyModule_Create(&mod);\n}\n"

    def apply(self, unit):
        edits = source.Edits()
        for m in proj.INIT_FUNCTION.finditer(unit.masked):
            between = unit.masked.rfind("\n", m.start(), m.start("i"))
            # (the text, not the mask: a conditional decided for Python 3,
            # blank_python2, has its own lines blank in the mask too)
            if between >= 0 and "#" in unit.text[m.start():m.start("i")]:
                # preprocessor lines between PyMODINIT_FUNC and the name
                # stay; PyMODINIT_FUNC's line goes
                line_end = unit.masked.index("\n", m.start())
                if m.group("proto"):
                    edits.add(*_common.statement_line_span(unit.text, m.start("i"), m.end()), "")
                else:
                    edits.add(m.start("i"), m.end(), f"CYSTCK_MODINIT({m.group('n')})")
                edits.add(*_common.statement_line_span(unit.text, m.start(), line_end), "")
            elif m.group("proto"):
                edits.add(*_common.statement_line_span(unit.text, m.start(), m.end()), "")
            else:
                edits.add(m.start(), m.end(), f"CYSTCK_MODINIT({m.group('n')})")
        # PyMODINIT_FUNC init_function(void), with #define init_function PyInit_spam
        named = proj.init_name_macros(unit.project)
        if named:
            pattern = (r"\bPyMODINIT_FUNC\s+(?P<macro>" + "|".join(map(regex.escape, sorted(named)))
                       + r")\s*\(\s*(?:void)?\s*\)(?P<proto>\s*;)?")
            for m in regex.finditer(pattern, unit.masked):
                if m.group("proto"):
                    edits.add(*_common.statement_line_span(unit.text, m.start(), m.end()), "")
                else:
                    edits.add(m.start(), m.end(), f"CYSTCK_MODINIT({named[m.group('macro')]})")
        if edits:
            unit.apply(edits)
        return edits.applied


class ModuleCreate(Rule):
    """``PyModule_Create(&def)`` becomes ``CystckModule_Create(S, &def)``;
    ``PyState_FindModule`` and ``PyModule_GetState`` on a module found that
    way have no counterpart in single-call frames and are reported."""
    name = "module-create"
    precedence = 660
    patterns = (r"\bPyModule_Create2?\s*\(\s*(?P<d>[^(),]+?)\s*(?:,[^()]*)?\)", r"\bPyState_FindModule\b")
    before = "static PyObject *m(void) { return PyModule_Create(&mod); }\n"
    after = "static PyObject *m(void) { return CystckModule_Create(S, &mod); }\n"

    def apply(self, unit):
        n = unit.sub(self.patterns[0], lambda m, t: f"CystckModule_Create(S, {t[m.start('d'):m.end('d')]})")
        from .. import api
        for m in regex.finditer(self.patterns[1], unit.masked):
            if "PyState_FindModule" in api.stock_map():
                break
            unit.leftover(m.start(), "PyState_FindModule has no Cystck counterpart: keep the module "
                          "state in a Cystck_Ref global or pass the module down", self.name)
        return n


_MODULE_DEF = regex.compile(r"\bCystckModuleDef\s+(?P<d>\w+)\s*=\s*\{")
_STATE_SIZE = regex.compile(r"\s*sizeof\s*\(\s*(?P<t>(?:struct\s+)?(?P<s>\w+))\s*\)\s*")


class ModuleStateRefs(Rule):
    """The ``PyObject *`` members of a module state are ``Cystck_Ref``s (the
    global-refs rule), which nothing releases once the state's own
    ``m_traverse``/``m_clear``/``m_free`` are gone (the destroy-traverse
    rule): a traverse function is written after the state's struct,
    visiting each reference with ``Cystck_VISIT_REF``, and listed in the
    module's defines with ``CYSTCK_DEF_MOD_TRAVERSE``, so that the GC sees
    the references and the runtime releases them with the module.  A state
    without references, or whose struct is in another file, is left
    alone."""
    name = "module-state-refs"
    precedence = 880
    # the Cystck_Ref members, the CystckModuleDef and its defines array
    needs = ("struct-members", "module-def", "method-table", "multi-phase-init")
    patterns = (_MODULE_DEF.pattern,)
    before = ("#include <Python.h>\ntypedef struct { PyObject *cache; long n; } spam_state;\n"
              "static PyObject *f(PyObject *m, PyObject *o) { return o; }\n"
              "static PyMethodDef spam_methods[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n"
              "static struct PyModuleDef spam = {PyModuleDef_HEAD_INIT, \"spam\", NULL, sizeof(spam_state), spam_methods};\n")
    after = ("#include <Python.h>\ntypedef struct { Cystck_Ref cache; long n; } spam_state;\n\n"
             "/* the references the module state holds: seen by the GC, released with the module */\n"
             "static int spam_state_refs_traverse(void *state, Cystck_visitproc visit, void *arg)\n{\n"
             "    spam_state *st = (spam_state *)state;\n"
             "    Cystck_VISIT_REF(&st->cache);\n    return 0;\n}\n"
             "static PyObject *f(PyObject *m, PyObject *o) { return o; }\n"
             "CYSTCK_DEF_METH(f_def, \"f\", f, CYSTCK_O, NULL)\n"
             "CYSTCK_DEF_MOD_TRAVERSE(spam_state_refs_def, spam_state_refs_traverse)\n"
             "static CystckDef *spam_methods[] = {\n    &f_def,\n    &spam_state_refs_def,\n    NULL\n};\n"
             "static CystckModuleDef spam = {\n    \"spam\",\n    NULL,\n    sizeof(spam_state),\n    spam_methods\n};\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        edits = source.Edits()
        n = 0
        for m in _MODULE_DEF.finditer(code):
            close = source.matching(code, m.end() - 1)
            fields = source.split_top(code, m.end(), close - 1)
            if len(fields) < 4:
                continue
            size = _STATE_SIZE.fullmatch(code, *fields[2])
            found = size and self._state_struct(code, size.group("s"))
            if not found:
                continue
            body_open, body_close, end = found
            refs = [d.name for base, d, _ in cstruct.struct_members(code, body_open, body_close)
                    if base == "Cystck_Ref" and not d.pointer and not d.array]
            sym, impl = f"{m.group('d')}_state_refs_def", f"{m.group('d')}_state_refs_traverse"
            if not refs or regex.search(rf"\b{sym}\b", code):
                continue
            define = f"CYSTCK_DEF_MOD_TRAVERSE({sym}, {impl})\n"
            defines = code[fields[3][0]:fields[3][1]].strip()
            array = regex.search(r"\bCystckDef\s*\*\s*" + regex.escape(defines) + r"\s*\[\s*\]\s*=\s*\{", code) \
                if regex.fullmatch(r"\w+", defines) else None
            terminator = array and self._terminator(code, array)
            if terminator:
                line = text.rfind("\n", 0, terminator) + 1
                span = next(((s, e) for s, e in source.top_level_items(unit.structure) if s <= array.start() < e),
                            (array.start(), array.end()))
                at = _common.declaration_start(unit.structure, span, array.start())
                listed = [(at, at, define), (line, line, f"    &{sym},\n")]
            elif defines in proj.NULLS:
                at = text.rfind("\n", 0, m.start()) + 1
                array_name = f"{m.group('d')}_defines"
                listed = [(at, at, f"{define}static CystckDef *{array_name}[] = {{&{sym}, NULL}};\n"),
                          (*fields[3], text[fields[3][0]:fields[3][1]].replace(defines, array_name))]
            else:
                continue          # a defines array this rule cannot read: left alone
            # the function first: the struct may end where the definitions start
            for edit in [(end, end, self._traverse(impl, size.group("t"), refs))] + listed:
                edits.add(*edit)
            n += 1
        if edits:
            unit.apply(edits)
        return n

    @staticmethod
    def _terminator(code, array):
        """Where the NULL that ends the defines array ``array`` is, or None."""
        close = source.matching(code, array.end() - 1)
        last = None
        for last in regex.finditer(r"\bNULL\b", code, pos=array.end(), endpos=close):
            pass
        return last.start() if last and not code[last.end():close - 1].strip(" \t\n,") else None

    @staticmethod
    def _state_struct(code, name):
        """(body open, body close, end of the definition's line) of the
        struct ``name`` (a typedef name or a tag) defined in ``code``."""
        for m in regex.finditer(r"(?:typedef\s+)?\bstruct\s*(?:\w+\s*)?\{", code):
            close = source.matching(code, m.end() - 1)
            after = regex.match(r"\s*(\w+)?\s*;[^\n]*\n?", code[close:])
            tag = regex.match(r"(?:typedef\s+)?struct\s*(\w+)", code[m.start():m.end()])
            if after and name in {after.group(1), tag.group(1) if tag else None}:
                return m.end() - 1, close, close + after.end()
        return None

    @staticmethod
    def _traverse(impl, struct_type, refs):
        visits = "".join(f"    Cystck_VISIT_REF(&st->{r});\n" for r in refs)
        return ("\n/* the references the module state holds: seen by the GC, released with the module */\n"
                f"static int {impl}(void *state, Cystck_visitproc visit, void *arg)\n{{\n"
                f"    {struct_type} *st = ({struct_type} *)state;\n{visits}    return 0;\n}}\n")


class ModuleDefTests(Rule):
    """A module's definition compared with one of the extension's own in a
    translated function, ``PyModule_GetDef(m) == &moduledef`` (or ``!=``,
    or the operands the other way round), with ``m`` a handle, becomes
    ``CystckModule_HasDef(S, m, &moduledef)`` (``!`` before it for
    ``!=``): ``PyModule_GetDef`` has no counterpart, and the modules rule
    made ``moduledef`` a ``CystckModuleDef``.  Any other use of
    ``PyModule_GetDef`` (its result kept, compared with a pointer that is
    not a definition of the file) is left to the escape hatch."""
    name = "module-def-tests"
    precedence = 844
    needs = ("module-def",)
    patterns = (r"\bPyModule_GetDef\s*\(\s*(?P<m>\w+)\s*\)\s*(?P<op>[!=]=)\s*&\s*(?P<d>\w+)\b",
                r"(?:(?<=\breturn\s*)|(?<![\w)\]]\s*))&\s*(?P<d>\w+)\s*(?P<op>[!=]=)\s*PyModule_GetDef\s*\(\s*(?P<m>\w+)\s*\)")
    before = ("static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, \"m\", NULL, 0, NULL};\n"
              "static int ours(PyObject *m)\n{\n    return PyModule_GetDef(m) == &moduledef;\n}\n")
    after = ("static CystckModuleDef moduledef = {\n    \"m\",\n    NULL,\n    0,\n    NULL\n};\n"
             "static int ours(PyObject *m)\n{\n    return CystckModule_HasDef(S, m, &moduledef);\n}\n")

    def apply(self, unit):
        code = unit.masked
        defs = set(_MODULE_DEF_NAME.findall(code))
        if not defs or "PyModule_GetDef" not in code:
            return 0
        edits = source.Edits()
        for pattern in self.patterns:
            for ctx, m in _common.matches_in_state_bodies(unit, pattern, code):
                if m.group("d") not in defs or m.group("m") not in ctx.handles:
                    continue
                negate = "!" if m.group("op") == "!=" else ""
                edits.add(m.start(), m.end(), f"{negate}CystckModule_HasDef(S, {m.group('m')}, &{m.group('d')})")
        if edits:
            unit.apply(edits)
        return edits.applied


_MODULE_DEF_NAME = regex.compile(r"\bCystckModuleDef\s+(\w+)\s*[=;]")


# the casts stock code puts on a method's implementation to compare it:
# (PyCFunction), (void *), (PyCFunction)(void (*)(void))
_FUNCTION_CASTS = r"(?:\(\s*(?:\w+\s*\**|void\s*\(\s*\*\s*\)\s*\(\s*void\s*\))\s*\)\s*)*"
_GET_FUNCTION = r"\bPyCFunction_(?:GetFunction|GET_FUNCTION)\s*" + _common.PAREN
_METHOD_DEF_LINE = regex.compile(r"\bCYSTCK_DEF_(?:METH(?:_EXTERN|_FLAGS)?|TYPED(?:_POSONLY)?)\s*\(\s*(?P<sym>\w+)\s*,"
                                 r"[^,]*,\s*(?P<impl>\w+)\s*,")


class MethodDefTests(Rule):
    """A builtin function's C function compared with one of the
    extension's method implementations, ``PyCFunction_GetFunction(f) ==
    (PyCFunction)impl`` (or ``!=``, ``PyCFunction_GET_FUNCTION``, the
    operands the other way round), becomes ``CystckCFunction_IsDef(S, f,
    &impl_def)``, ``impl_def`` being the definition the method-table rule
    made for ``impl`` (several are or-ed; ``!`` before it for ``!=``):
    after the port a function object holds the definition's trampoline,
    never ``impl``, so the stock comparison would always be false.  A
    definition that comes later in the file is declared ahead of the
    function (``static CystckDef impl_def;``, a tentative definition).
    Where the file has no definition of ``impl`` (its table is in another
    file) or, in C++, only a later one, the comparison stays stock and is
    reported.  A comparison with a function that is no method of the
    extension is left to the escape hatch (it holds what stock held)."""
    name = "method-def-tests"
    precedence = 842
    needs = ("method-table",)
    patterns = (_GET_FUNCTION + r"\s*(?P<op>[!=]=)\s*" + _FUNCTION_CASTS + r"&?\s*(?P<f>\w+)\b(?!\s*[(\[.]|\s*->)",
                r"(?:(?<=\breturn\s*)|(?<![\w)\]]\s*))" + _FUNCTION_CASTS + r"&?\s*(?P<f>\w+)\s*(?P<op>[!=]=)\s*"
                + _GET_FUNCTION)
    before = ("static PyObject *twice(PyObject *self, PyObject *o) { return PyNumber_Add(o, o); }\n"
              "static int is_twice(PyObject *f)\n{\n"
              "    return PyCFunction_GetFunction(f) == (PyCFunction)twice;\n}\n"
              "static PyMethodDef methods[] = {\n    {\"twice\", twice, METH_O, NULL},\n    {NULL}\n};\n")
    after = ("static PyObject *twice(PyObject *self, PyObject *o) { return PyNumber_Add(o, o); }\n"
             "static CystckDef twice_def;\n"
             "static int is_twice(PyObject *f)\n{\n"
             "    return CystckCFunction_IsDef(S, f, &twice_def);\n}\n"
             "CYSTCK_DEF_METH(twice_def, \"twice\", twice, CYSTCK_O, NULL)\n"
             "static CystckDef *methods[] = {\n    &twice_def,\n    NULL\n};\n")

    def apply(self, unit):
        code = unit.masked
        if not regex.search(_GET_FUNCTION, code):
            return 0
        defs = {}
        for d in _METHOD_DEF_LINE.finditer(code):
            defs.setdefault(d.group("impl"), []).append((d.group("sym"), d.start()))
        methods = {cstruct.strip_cast(e[3]) for e in unit.project.method_entries} | set(defs)
        edits, ahead = source.Edits(), {}
        for pattern in self.patterns:
            for ctx, m in _common.matches_in_state_bodies(unit, pattern, code):
                impl = m.group("f")
                if impl not in methods:
                    continue          # another C function: stock's comparison holds
                syms = defs.get(impl, [])
                if not syms or (unit.is_cpp and any(at > m.start() for _, at in syms)):
                    unit.leftover(m.start(), f"error: a function object's C function is compared with the method "
                                  f"{impl}, which after the port it never is (it holds the trampoline of {impl}'s "
                                  "definition, which this file does not give before the comparison): use "
                                  "CystckCFunction_IsDef(S, f, &def)", self.name)
                    continue
                f = unit.text[m.start("p") + 1:m.end("p") - 1].strip()
                test = " || ".join(f"CystckCFunction_IsDef(S, {f}, &{sym})" for sym, _ in syms)
                negate = m.group("op") == "!="
                if len(syms) > 1 and (negate or not _parenthesized(code, m.start(), m.end())):
                    test = f"({test})"
                edits.add(m.start(), m.end(), ("!" if negate else "") + test)
                for sym, at in syms:
                    if at > m.start():
                        ahead[sym, at] = min(ahead.get((sym, at), ctx.func.start), ctx.func.start)
        by_position = {}
        for (sym, _), at in sorted(ahead.items(), key=lambda item: item[0][1]):     # in the file's order
            by_position.setdefault(at, []).append(f"static CystckDef {sym};\n")
        for at, lines in by_position.items():
            edits.add(at, at, "".join(lines))
        if edits:
            unit.apply(edits)
        return edits.applied


def _parenthesized(code, start, end):
    """Is ``code[start:end]`` the whole of a parenthesized expression?"""
    return bool(regex.search(r"\(\s*$", code[max(0, start - 20):start]) and regex.match(r"\s*\)", code[end:]))


class StaticObjects(Rule):
    """A statically allocated instance of one of the extension's static
    types, ``PyObject marker_obj = { _PyObject_EXTRA_INIT 1, &MarkerType
    };`` (or ``{ PyObject_HEAD_INIT(&MarkerType) }``), used only by its
    address (``&marker_obj``, ``#define marker (&marker_obj)``), becomes a
    global made where its type is readied: ``PyObject *marker_obj =
    NULL;`` and, after ``if (PyType_Ready(&MarkerType) < 0) return NULL;``,
    ``if ((marker_obj = PyType_GenericAlloc(&MarkerType, 0)) == NULL)
    return NULL;`` (an instance no ``tp_new`` ran for, as the static one).
    Its address becomes the pointer, and each object-like macro naming it
    (``marker``, ``#define RETURN_MARKER return Py_INCREF(marker),
    marker``) is written out at its uses: the later rules port it as any
    global reference, a ``Cystck_Ref`` made once at init and never
    released, as the static object never dies (``item == marker``
    becomes ``Cystck_Is(S, item, Cystck_deref(S, marker_obj))``).  Cystck
    has no object outside the heap.  See ``migrate/static_objects.py``;
    the project is built from the rewritten text."""
    name = "static-objects"
    precedence = 53
    patterns = (static_objects._DEFINITION.pattern,)
    before = ("static PyTypeObject MarkerType = {PyVarObject_HEAD_INIT(NULL, 0) \"m.Marker\"};\n"
              "PyObject marker_obj = { _PyObject_EXTRA_INIT 1, &MarkerType };\n"
              "#define marker (&marker_obj)\n"
              "static int init(void) {\n    if (PyType_Ready(&MarkerType) < 0)\n        return -1;\n"
              "    return 0;\n}\n"
              "static PyObject *is_marker(PyObject *o) { return PyBool_FromLong(o == marker); }\n")
    after = ("static PyTypeObject MarkerType = {PyVarObject_HEAD_INIT(NULL, 0) \"m.Marker\"};\n"
             "PyObject *marker_obj = NULL;\n"
             "/* cystck-migrate: marker (a statically allocated object's address) is written out at its uses */\n"
             "static int init(void) {\n    if (PyType_Ready(&MarkerType) < 0)\n        return -1;\n"
             "    if ((marker_obj = PyType_GenericAlloc(&MarkerType, 0)) == NULL)\n        return -1;\n"
             "    return 0;\n}\n"
             "static PyObject *is_marker(PyObject *o) { return PyBool_FromLong(o == marker_obj); }\n")

    def apply(self, unit):
        found = unit.project.static_objects
        if not found:
            return 0
        text, count = static_objects.rewrite(unit.text, found)
        if count:
            unit.set_text(text)
        return count
