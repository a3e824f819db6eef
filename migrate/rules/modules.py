"""Module definitions and init functions."""
import regex

from .. import cstruct, project as proj, source
from ..engine import Rule
from . import _common


_SLOT_ARRAY = regex.compile(r"^[ \t]*(?:static\s+)?PyModuleDef_Slot\s+(?P<name>\w+)\s*\[\s*\]\s*=\s*\{", regex.M)


def exec_slots(masked, text):
    """The ``PyModuleDef_Slot`` arrays of a file that only run exec
    functions (plus ``Py_mod_gil``-like flags): name -> (span of the
    array statement, [exec function names]).  Arrays with a
    ``Py_mod_create`` slot are not in it."""
    out = {}
    for m in _SLOT_ARRAY.finditer(masked):
        close = source.matching(masked, m.end() - 1)
        semi = regex.match(r"\s*;", masked[close:])
        if semi is None:
            continue
        body = masked[m.end():close - 1]
        if regex.search(r"\bPy_mod_create\b", body):
            continue
        funcs = [cstruct.strip_cast(text[e.start("f"):e.end("f")])
                 for e in regex.finditer(r"\{\s*Py_mod_exec\s*,\s*(?P<f>[^{}]+?)\s*\}", masked, pos=m.end(), endpos=close)]
        out[m.group("name")] = ((m.start(), close + semi.end()), funcs)
    return out


class ModuleDef(Rule):
    """``struct PyModuleDef d = {PyModuleDef_HEAD_INIT, name, doc, size,
    methods, ...}`` becomes ``CystckModuleDef d = {name, doc, size,
    methods}`` (a size of -1, "no per-module state", becomes 0).
    Multi-phase init (``m_slots``) has no counterpart and is reported; the
    traverse/clear/free hooks are dropped with their functions.  A forward
    declaration of such a definition, ``static struct PyModuleDef d;``,
    becomes ``static CystckModuleDef d;``."""
    name = "module-def"
    precedence = 330
    patterns = (r"\b(?:struct\s+)?PyModuleDef\s+(?P<name>\w+)\s*=\s*\{",)
    before = ('static struct PyModuleDef mod = {\n    PyModuleDef_HEAD_INIT,\n    "spam",\n    NULL,\n'
              '    -1,\n    spam_methods\n};\n')
    after = 'static CystckModuleDef mod = {\n    "spam",\n    NULL,\n    0,\n    spam_methods\n};\n'

    def apply(self, unit):
        code, text = unit.structure, unit.text
        edits = source.Edits()
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
            if "m_slots" in f and f["m_slots"].text not in (None, "NULL", "0", "nullptr") \
                    and f["m_slots"].text.strip() not in exec_slots(unit.masked, text):
                unit.leftover(m.start(), "multi-phase module init (m_slots) has no Cystck counterpart", self.name)
            open_at = m.end() - 1
            close = source.matching(code, open_at)
            head = regex.sub(r"(?:struct\s+)?PyModuleDef", "CystckModuleDef", text[m.start():open_at], count=1)
            edits.add(m.start(), close, head + "{\n" + ",\n".join("    " + v for v in vals) + "\n}")
            self._forward_declarations(code, m.group("name"), edits)
        if edits:
            unit.apply(edits)
        return edits.applied


    @staticmethod
    def _forward_declarations(code, name, edits):
        """``static struct PyModuleDef d;`` declares the definition this
        rule rewrites: it must declare the same type."""
        pattern = rf"^[ \t]*(?:static\s+)?(?P<t>(?:struct\s+)?PyModuleDef)\s+{regex.escape(name)}\s*;"
        for m in regex.finditer(pattern, code, regex.M):
            edits.add(m.start("t"), m.end("t"), "CystckModuleDef")


class MultiPhaseInit(Rule):
    """Multi-phase init whose slots only run exec functions becomes
    single-phase: ``return PyModuleDef_Init( &def );`` in the init function
    creates the module and runs each ``Py_mod_exec`` function on it
    (``PyObject *mod = PyModule_Create( &def ); if( mod == NULL ||
    exec( mod ) < 0 ) return NULL; return mod;``, which the other rules
    translate), the ``PyModuleDef_Slot`` array goes (``Py_mod_gil`` has no
    meaning for Cystck) and the definition's ``m_slots`` becomes NULL.  A ``Py_mod_create`` slot is left for a human."""
    name = "multi-phase-init"
    precedence = 325
    patterns = (r"^(?P<i>[ \t]*)return\s+PyModuleDef_Init\s*\(\s*&\s*(?P<d>\w+)\s*\)\s*;",
                r"\b(?:struct\s+)?PyModuleDef\s+(?P<name>\w+)\s*=\s*\{")
    before = ("static int spam_exec( PyObject *mod ) { return PyModule_AddIntConstant( mod, \"x\", 1 ); }\n"
              "static PyModuleDef_Slot spam_slots[] = {\n    {Py_mod_exec, (void *)spam_exec},\n    {0, NULL}\n};\n\n\n"
              "static struct PyModuleDef spam = {PyModuleDef_HEAD_INIT, \"spam\", NULL, 0, NULL, spam_slots};\n"
              "PyMODINIT_FUNC PyInit_spam(void)\n{\n    return PyModuleDef_Init( &spam );\n}\n")
    after = ("static int spam_exec( PyObject *mod ) { return PyModule_AddIntConstant( mod, \"x\", 1 ); }\n"
             "static struct PyModuleDef spam = {PyModuleDef_HEAD_INIT, \"spam\", NULL, 0, NULL, NULL};\n"
             "PyMODINIT_FUNC PyInit_spam(void)\n{\n    PyObject *mod = PyModule_Create( &spam );\n"
             "    if( mod == NULL || spam_exec( mod ) < 0 )\n        return NULL;\n    return mod;\n}\n")

    def apply(self, unit):
        code, text = unit.masked, unit.text
        arrays = exec_slots(code, text)
        if not arrays:
            return 0
        defs = {}
        for m in regex.finditer(self.patterns[1], code):
            f = cstruct.fields_of(proj.table_items(unit.structure, text, m), proj.MODULE_FIELDS)
            if "m_slots" in f and f["m_slots"].text and f["m_slots"].text.strip() in arrays:
                defs[m.group("name")] = (f["m_slots"].text.strip(), f["m_slots"])
        edits = source.Edits()
        used = set()
        for m in regex.finditer(self.patterns[0], code, regex.M):
            if m.group("d") not in defs:
                continue
            slots, item = defs[m.group("d")]
            if slots not in used:
                edits.add(item.span[0], item.span[1], text[item.span[0]:item.span[1]].replace(slots, "NULL"))
            used.add(slots)
            i = m.group("i")
            tests = "".join(f" || {fn}( mod ) < 0" for fn in arrays[slots][1])
            edits.add(m.start(), m.end(),
                      f"{i}PyObject *mod = PyModule_Create( &{m.group('d')} );\n"
                      f"{i}if( mod == NULL{tests} )\n{i}    return NULL;\n{i}return mod;")
        for name in used:
            (s, e), _ = arrays[name]
            s, e = _common.statement_line_span(text, s, e)
            blank = regex.match(r"(?:[ \t]*\n)*", text[e:])
            edits.add(s, e + blank.end(), "")
        if edits:
            unit.apply(edits)
        return edits.applied


class ModInit(Rule):
    """``PyMODINIT_FUNC PyInit_name(void)`` becomes ``CYSTCK_MODINIT(name)``,
    whose body has the state ``S`` and returns ``Cystck_Return(S, m)`` or -1
    (the returns rule does that); prototypes of the init function go."""
    name = "modinit"
    precedence = 340
    patterns = (r"\bPyMODINIT_FUNC\s+PyInit_(?P<n>\w+)\s*\(\s*(?:void)?\s*\)(?P<proto>\s*;)?",)
    before = "PyMODINIT_FUNC PyInit_spam(void);\nPyMODINIT_FUNC\nPyInit_spam(void)\n{\n    return PyModule_Create(&mod);\n}\n"
    after = "CYSTCK_MODINIT(spam)\n{\n    return PyModule_Create(&mod);\n}\n"

    def apply(self, unit):
        edits = source.Edits()
        for m in regex.finditer(self.patterns[0], unit.masked):
            if m.group("proto"):
                edits.add(*_common.statement_line_span(unit.text, m.start(), m.end()), "")
            else:
                edits.add(m.start(), m.end(), f"CYSTCK_MODINIT({m.group('n')})")
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
