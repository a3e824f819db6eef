"""The boundary of the files kept stock as a whole (translate.kept_stock):
what Python calls into them becomes Cystck, their code stays stock.

* The module's init becomes a Cystck init (``CYSTCK_MODINIT``) that runs
  the stock one, renamed ``PyInit_<name>__stock``, through the escape
  hatch: the stock init still adds the module's objects and its static
  types, and the Cystck init gives the result a handle.
* The module's definition becomes a ``CystckModuleDef`` (name and doc of
  the stock ``PyModuleDef``, read through the macro that spells it if
  any, and the Cystck methods of its table): the Cystck init makes the
  module from it, and the stock init's ``PyModule_Create(&def)`` becomes a
  hand-over of that module.  A definition with a state, slots, or a table
  not bridged whole stays stock (the init still bridged), reported.
* Each entry of a method table (``PyMethodDef name[] = {...}`` at file or
  namespace scope) becomes a Cystck method (``CYSTCK_DEF_METH``) that lends
  its handles to the unchanged stock function (``Cystck_AsPyObject``) and
  gives its result a handle (``Cystck_FromNewPyObject``); the stock table
  keeps the Cystck method's ``PyMethodDef`` in the entry's place.

Every such spot is marked (escape.MARK) and reported with file:line.  The
method tables of class templates (``PyMethodDef Foo<T>::methods[]``), an
entry inside a preprocessor conditional, and conventions the bridge cannot
lend (``METH_KEYWORDS``, ``METH_FASTCALL``) stay stock, reported."""
import regex

from . import cstruct, project as proj, source
from .rules.escape import MARK
from .rules.tables import CONV_PARAMS

RULE = "kept-stock-bridge"
STOCK_INIT_SUFFIX = "__stock"
# (the kept mark, blank in the mask, may stand before it on the first line)
_INCLUDE = regex.compile(r'^[ \t]*\K#[ \t]*include[ \t]*', regex.M)
_PYTHON_H = regex.compile(r'<Python\.h>|"Python\.h"')
_LITERAL_INIT = regex.compile(r"\bPyInit_(?P<name>\w+)\b")
# ``#define MOD_INIT(name) PyMODINIT_FUNC PyInit_##name(void)``: a macro
# that names the init after its argument (its body runs to the first line
# not continued by a backslash).
_FUNCTION_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<macro>\w+)\((?P<params>[^)]*)\)"
                                r"(?P<body>(?:[^\n\\]|\\.)*)", regex.M | regex.S)
_MODULE_CREATE = regex.compile(r"\bPyModule_Create\s*\(\s*&\s*(?P<def>\w+)\s*\)")
_INCLUDE_CYSTCK = regex.compile(r"#[ \t]*include[ \t]*<Cystck\.h>")
_PASTED_INIT = regex.compile(r"\bPyInit_\s*##\s*(?P<param>\w+)")
_TABLE = regex.compile(r"(?<![\w:>])PyMethodDef\s+(?P<name>\w+)\s*\[\s*\]\s*=\s*(?=\{)")
_METH_FLAG = regex.compile(r"\bMETH_(\w+)\b")
#: stock convention -> (Cystck convention, the handle lent as the stock
#: function's second argument)
_LENT = {"NOARGS": ("CYSTCK_NOARGS", "Cystck_NULL"), "O": ("CYSTCK_O", "arg"),
         "VARARGS": ("CYSTCK_VARARGS", "tuple")}
_BINDING = {"CLASS", "STATIC", "COEXIST"}


def bridge(units):
    """Bridge the boundary of the kept-stock ``units`` (path -> engine.Unit,
    their text the stock text behind the kept mark)."""
    exports = {}
    for unit in units.values():
        for table, export in _bridge_tables(unit).items():
            exports.setdefault(table, []).append(export)
    for name, (unit, pos) in _module_inits(units).items():
        _bridge_init(units, name, unit, pos, exports)


# ---------------------------------------------------------------------------
# the module init
# ---------------------------------------------------------------------------

def _module_inits(units):
    """name -> (unit, position) of each module init the units define, named
    literally (``PyInit_spam(void) {``) or by a macro pasting its argument
    (``MOD_INIT(spam) {``)."""
    macros = {}
    for unit in units.values():
        for m in _FUNCTION_MACRO.finditer(unit.masked):
            params = [p.strip() for p in m.group("params").split(",")]
            pasted = _PASTED_INIT.search(m.group("body"))
            if pasted and pasted.group("param") in params:
                macros[m.group("macro")] = params.index(pasted.group("param"))
    found = {}
    for unit in units.values():
        code = unit.masked
        for m in _LITERAL_INIT.finditer(code):
            after = regex.match(r"\s*" + source.paren("p") + r"\s*\{", code[m.end():])
            if after:
                found.setdefault(m.group("name"), (unit, m.start()))
        for macro, index in macros.items():
            for m in regex.finditer(rf"(?<![\w#])\b{macro}\s*" + source.paren("a") + r"\s*\{", code):
                args = [a.strip() for a in m.group("a")[1:-1].split(",")]
                if index < len(args) and regex.fullmatch(r"\w+", args[index]):
                    found.setdefault(args[index], (unit, m.start()))
    return found


def _bridge_init(units, name, unit, pos, exports):
    """Rename the stock init everywhere in the kept files (where it is
    declared, defined, befriended) and append the Cystck init to the file
    defining it; with the module's Cystck definition where the stock one
    can be read (_module_definition)."""
    definition, why_stock = _module_definition(units, unit, pos, exports)
    if not _include_cystck(unit) and not any(_include_cystck(units[p]) for p in _included(units, unit)):
        unit.leftover(pos, f"module init of '{name}' kept stock: neither its file nor a kept header "
                           "it includes includes Python.h, where the bridge would include Cystck.h",
                      rule=RULE)
        return
    stock = f"PyInit_{name}{STOCK_INIT_SUFFIX}"
    for other in units.values():
        other.sub(rf"\bPyInit_{name}\b", lambda m, t: stock)
        other.sub(_PASTED_INIT, lambda m, t: m.group() + "##" + STOCK_INIT_SUFFIX)
    if definition:
        block = _init_with_definition(unit, name, stock, definition)
        message = (f"module init of '{name}' bridged: a Cystck init making the module from its Cystck "
                   f"definition and running the stock {stock} on it through the escape hatch")
    else:
        block = (f"\n/* The module's init: a Cystck init running the stock one ({stock} above,\n"
                 " * kept stock), which makes the module and adds its types. */\n"
                 f"CYSTCK_MODINIT({name})\n{{\n"
                 f"    return Cystck_Return(S, Cystck_FromNewPyObject(S, {MARK} {stock}()));\n}}\n")
        message = (f"module init of '{name}' bridged: a Cystck init running the stock {stock} through "
                   f"the escape hatch; its module definition stays stock ({why_stock})")
    text = unit.text.rstrip("\n") + "\n"
    unit.set_text(text + block)
    unit.leftover(len(text) + block.index("CYSTCK_MODINIT"), message, rule=RULE)


def _module_definition(units, init_unit, init_pos, exports):
    """(unit, def name, m_name, m_doc, defines) of the stock module
    definition the init makes its module from, its method table bridged
    (``exports``: table -> names of the arrays of its Cystck definitions)
    and its fields read through the macro the init uses, if any:
    ``MOD_DEF(m, "spam", functions, doc)`` with ``#define MOD_DEF(ob, name,
    methods, doc) static PyModuleDef d = {..., name, doc, -1, methods};
    ob = PyModule_Create(&d);``.  Or (None, why not)."""
    creates = [(u, m) for u in units.values() for m in _MODULE_CREATE.finditer(u.masked)]
    if len(creates) != 1:
        return None, f"{len(creates)} PyModule_Create(&def) calls in the kept files, not one"
    unit, create = creates[0]
    macro = next((m for m in _FUNCTION_MACRO.finditer(unit.masked)
                  if m.start("body") <= create.start() < m.end("body")), None)
    if unit is not init_unit and macro is None:
        return None, "PyModule_Create is called outside the init's file and macros"
    # continuation lines blank (same length) for reading a macro's initialiser
    code, text = (t.replace("\\\n", "  ") for t in (unit.masked, unit.text))
    found = list(regex.finditer(rf"\b(?:struct\s+)?PyModuleDef\s+{create['def']}\s*=\s*\{{",
                                code[:create.start()]))
    if not found:
        return None, f"no initialiser of {create['def']} before its PyModule_Create"
    fields = cstruct.fields_of(proj.table_items(code, text, found[-1]), proj.MODULE_FIELDS)
    values = {k: (fields[k].text or "").strip() if k in fields else "" for k in proj.MODULE_FIELDS}
    if macro is not None:
        params = [p.strip() for p in macro["params"].split(",")]
        use = regex.compile(rf"(?<![\w#])\b{macro['macro']}\s*" + source.paren("a")).search(
            init_unit.masked, init_pos)
        if use is None:
            return None, f"the init does not use {macro['macro']}"
        args = [init_unit.text[s:e].strip() for s, e in source.split_top(
            init_unit.masked, use.start("a") + 1, use.end("a") - 1)]
        if len(args) != len(params):
            return None, f"{macro['macro']} used with {len(args)} arguments"
        values = {k: args[params.index(v)] if v in params else v for k, v in values.items()}
    table = cstruct.strip_cast(values["m_methods"])
    if len(exports.get(table, ())) != 1:
        return None, f"its method table {table or '(none)'} is not one table at file scope bridged whole"
    if any(values[k] not in ("", "0", "NULL", "nullptr") for k in proj.MODULE_FIELDS[4:]):
        return None, "it has slots or GC functions"
    if not regex.fullmatch(r"-\s*1|0|", values["m_size"]):
        return None, "it has a module state"
    literal = r'(?:"(?:[^"\\]|\\.)*"\s*)+|\w+'
    if not regex.fullmatch(literal, values["m_name"]) or not regex.fullmatch(literal + "|", values["m_doc"]):
        return None, "its name or doc is not a string or a name"
    doc = "NULL" if values["m_doc"] in ("", "0", "nullptr") else values["m_doc"]
    return (unit, create["def"], values["m_name"], doc, exports[table][0]), None


def _init_with_definition(init_unit, name, stock, definition):
    """The Cystck init making the module from its Cystck definition and
    running the stock init, whose PyModule_Create(&def) becomes the hand-over
    of that module (declared after the include of Cystck.h)."""
    unit, stock_def, m_name, doc, defines = definition
    hand_over = f"{name}__cystck_module"
    unit.sub(rf"\bPyModule_Create(?=\s*\(\s*&\s*{stock_def}\s*\))", lambda m, t: hand_over)
    include = _INCLUDE_CYSTCK.search(init_unit.text)
    edits = source.Edits()
    edits.add(include.end(), include.end(),
              f"\nstatic PyObject *{hand_over}(PyModuleDef *stock_def);  /* the module bridge, at the end */")
    init_unit.apply(edits)
    declared = f"CystckDef *{defines}[] =" in init_unit.text
    return (f"\n/* The module: its definition is Cystck, and the stock init ({stock} above, kept\n"
            " * stock), run by the Cystck init, gets the module made from it where it made its own\n"
            " * (PyModule_Create) and adds its other objects and its types. */\n"
            + ("" if declared else f"extern CystckDef *{defines}[];\n")
            + f"static CystckModuleDef {name}__cystck_def = {{{m_name}, {doc}, 0, {defines}}};\n"
            f"static PyObject *{name}__cystck_made;     /* lent by the Cystck init while the stock one runs */\n\n"
            f"static PyObject *{hand_over}(PyModuleDef *stock_def)\n{{\n"
            "    (void)stock_def;     /* the Cystck definition stands for it */\n"
            f"    Py_XINCREF({name}__cystck_made);\n    return {name}__cystck_made;\n}}\n\n"
            f"CYSTCK_MODINIT({name})\n{{\n"
            f"    Cystck_Object m = CystckModule_Create(S, &{name}__cystck_def);\n"
            "    if (Cystck_IsNull(m))\n        return -1;\n"
            f"    {name}__cystck_made = Cystck_AsPyObject(S, m);\n"
            f"    Cystck_Object made = Cystck_FromNewPyObject(S, {MARK} {stock}());\n"
            f"    {name}__cystck_made = NULL;\n"
            "    return Cystck_Return(S, made);\n}\n")


def _included(units, unit):
    """The paths of the kept ``units`` that ``unit`` includes (``#include
    "mod.h"``), in order of path: where Python.h is included for it when its
    own file does not (all stay stock, so Cystck.h, which includes Python.h,
    may stand in any of them)."""
    found = proj.includers({p: u.original for p, u in units.items()})   # (the text has the kept mark)
    return sorted(p for p, by in found.items() if unit.path in by)


def _include_cystck(unit):
    """Include Cystck.h (which includes Python.h) in place of Python.h,
    on the same line; False if the file does not include Python.h."""
    if "Cystck.h" in unit.text:
        return True
    # the directive found on the mask (outside comments), its file name read
    # from the text (the mask blanks ``"Python.h"`` as a string)
    m = next((m for m in _INCLUDE.finditer(unit.masked)
              if _PYTHON_H.match(unit.text, m.end())), None)
    if not m:
        return False
    end = _PYTHON_H.match(unit.text, m.end()).end()
    unit.set_text(unit.text[:m.start()] + "#include <Cystck.h>" + unit.text[end:])
    return True


# ---------------------------------------------------------------------------
# method tables
# ---------------------------------------------------------------------------

def _bridge_tables(unit):
    """Bridge the unit's method tables; returns table -> the name of the
    array of its Cystck definitions, for the tables at file scope (a
    module definition elsewhere may name them)."""
    exports = {}
    if not unit.is_cpp:
        return exports  # the entries become copies of the Cystck methods' PyMethodDef: C++ initialisers
    for m in reversed(list(_TABLE.finditer(unit.masked))):
        export = _bridge_table(unit, m.group("name"), m.start(), m.end())
        if export:
            exports[m.group("name")] = export
    return exports


def _bridge_table(unit, table, start, open_at):
    """Bridge the entries of the table whose initialiser opens at
    ``open_at``: the Cystck methods go right before it (where the stock
    functions it names are visible).  Returns the name of the array of its
    Cystck definitions, if it has one."""
    code, text = unit.masked, unit.text
    end = source.matching(code, open_at)
    conditional = regex.search(r"^[ \t]*#", code[open_at:end], regex.M)
    entries = []
    for s, e in source.split_top(code, open_at + 1, end - 1):
        at = s + len(code[s:e]) - len(code[s:e].lstrip())
        piece = code[at:e].rstrip()
        if piece.startswith("{") and not _is_sentinel(text[at + 1:at + len(piece) - 1]):
            entries.append((at, at + len(piece)))
    if not entries:
        return None
    if conditional:
        unit.leftover(start, f"method table '{table}' kept stock: entries inside preprocessor "
                             "conditionals", rule=RULE)
        return None
    line_start = text.rfind("\n", 0, start) + 1
    blocks, symbols, edits = [], [], source.Edits()
    for index, (s, e) in enumerate(entries):
        fields = [text[a:b].strip() for a, b in source.split_top(code, s + 1, e - 1)]
        made = _bridged_entry(table, index, fields, f"{table}__call_stock")
        if made is None:
            unit.leftover(s, f"method table '{table}': entry {fields[0] if fields else '?'} kept stock "
                             "(a convention the bridge cannot lend)", rule=RULE)
            continue
        sym, block = made
        blocks.append(block)
        symbols.append(sym)
        edits.add(s, e, f"{sym}.meth")
    if not blocks:
        return None
    if not _include_cystck(unit):
        unit.leftover(start, f"method table '{table}' kept stock: its file does not include Python.h "
                             "itself, where the bridge would include Cystck.h", rule=RULE)
        return None
    # A module definition may stand on the Cystck definitions of a table
    # reachable from another file, and with all of its entries.
    exported = code.count("{", 0, start) == code.count("}", 0, start) and len(blocks) == len(entries)
    export = f"{_ident(unit.path)}_{table}__cystck_defines" if exported else None
    shift = len(unit.text) - len(text)        # the include line's edit is above the table
    text, line_start = unit.text, line_start + shift
    header = _call_stock(f"{table}__call_stock") + (
        f"/* The entries of {table}: Cystck methods calling the stock functions (kept stock). */\n")
    inserted = header + "\n".join(blocks) + "\n"
    if export:
        inserted += (f"/* The Cystck definitions of the entries of {table}, for a module definition naming it. */\n"
                     f"CystckDef *{export}[] = {{\n" + "".join(f"    &{s},\n" for s in symbols) + "    NULL\n};\n\n")
    moved = source.Edits()
    for s, e, new in edits.items:
        moved.add(s + shift, e + shift, new)
    moved.add(line_start, line_start, inserted)
    unit.apply(moved)
    for index, block in enumerate(blocks):
        pos = line_start + len(header) + sum(len(b) + 1 for b in blocks[:index])
        unit.leftover(pos, f"method table '{table}': entry {block.split(chr(34))[1]!r} bridged to the "
                           "stock function through the escape hatch", rule=RULE)
    return export


def _ident(path):
    return regex.sub(r"\W+", "_", path).strip("_")


def _is_sentinel(inside):
    """``{NULL, NULL, 0, NULL}``, ``{0}``, ``{}``: the table's end."""
    first = inside.split(",")[0].strip()
    return first in ("", "0", "NULL", "nullptr")


def _call_stock(helper):
    """The one escape hatch of a table's bridge: a stock function called
    with handles lent (the null handle as NULL: a static method's self, a
    function without arguments' second one) and its result given a handle."""
    return (f"/* A stock function called with the handles lent, its result given a handle. */\n"
            f"static int {helper}(Cystck_State *S, PyCFunction f, Cystck_Object self, Cystck_Object arg)\n{{\n"
            f"    return Cystck_Return(S, Cystck_FromNewPyObject(S, {MARK} f(\n"
            "        Cystck_IsNull(self) ? NULL : Cystck_AsPyObject(S, self),\n"
            "        Cystck_IsNull(arg) ? NULL : Cystck_AsPyObject(S, arg))));\n}\n\n")


def _bridged_entry(table, index, fields, helper):
    """(symbol, code) of the Cystck method standing for the stock entry
    ``{"name", func, flags, doc}``, calling it through ``helper``
    (_call_stock), or None if its convention cannot be lent."""
    if len(fields) < 3 or not fields[0].startswith('"'):
        return None
    flags = set(_METH_FLAG.findall(fields[2]))
    calling = flags - _BINDING
    if len(calling) != 1 or next(iter(calling)) not in _LENT:
        return None
    conv, second = _LENT[next(iter(calling))]
    binding = " | ".join(f"METH_{f}" for f in sorted(flags & _BINDING))
    ident = regex.sub(r"\W+", "_", fields[0].strip('"')).strip("_") or "entry"
    impl = f"{table}__{index}_{ident}"
    doc = fields[3] if len(fields) > 3 and fields[3] not in ("0", "") else "NULL"
    define = (f"CYSTCK_DEF_METH_FLAGS({impl}_def, {fields[0]}, {impl}, {conv}, {binding}, {doc})" if binding
              else f"CYSTCK_DEF_METH({impl}_def, {fields[0]}, {impl}, {conv}, {doc})")
    body = []
    if second == "tuple":
        body += ["    Cystck_Object tuple = CystckTuple_FromArray(S, args, nargs);",
                 "    if (Cystck_IsNull(tuple))", "        return -1;"]
    # The entry's own expression is a PyCFunction (with its cast, if any),
    # called as CPython calls it.
    body.append(f"    return {helper}(S, {fields[1]}, self, {second});")
    code = (f"{define}\nstatic int {impl}(Cystck_State *S, {', '.join(CONV_PARAMS[conv])})\n{{\n" + "\n".join(body) + "\n}\n")
    return f"{impl}_def", code
