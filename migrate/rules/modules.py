"""Module definitions and init functions."""
import regex

from .. import cstruct, project as proj, source
from ..engine import Rule
from . import _common


class ModuleDef(Rule):
    """``struct PyModuleDef d = {PyModuleDef_HEAD_INIT, name, doc, size,
    methods, ...}`` becomes ``CystckModuleDef d = {name, doc, size,
    methods}`` (a size of -1, "no per-module state", becomes 0).
    Multi-phase init (``m_slots``) has no counterpart and is reported; the
    traverse/clear/free hooks are dropped with their functions."""
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
            if "m_slots" in f and f["m_slots"].text not in (None, "NULL", "0", "nullptr"):
                unit.leftover(m.start(), "multi-phase module init (m_slots) has no Cystck counterpart", self.name)
            open_at = m.end() - 1
            close = source.matching(code, open_at)
            head = regex.sub(r"(?:struct\s+)?PyModuleDef", "CystckModuleDef", text[m.start():open_at], count=1)
            edits.add(m.start(), close, head + "{\n" + ",\n".join("    " + v for v in vals) + "\n}")
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
