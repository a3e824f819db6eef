"""Generate the API wrappers, the header's list of slots and the API reference
from ``cystck.apitable``.

    python -m cystck.gen_api          # rewrite the generated files
    python -m cystck.gen_api --check  # exit 1 if they are out of date
"""
import argparse
import pathlib
import re
import sys
from dataclasses import dataclass, field

from cystck import apitable

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = ROOT / "include" / "cystck" / "autogen_api.h"
SLOTS_HEADER = ROOT / "include" / "cystck" / "autogen_slots.h"
DOC = ROOT / "docs" / "api.md"

_LINE = re.compile(
    r"^(?P<ret>.+?)\s*\b(?P<name>Cystck\w*)\((?P<params>.*?)\)\s*"
    r"(?:=\s*(?P<stock>\w+)(?:\s*\[(?P<flags>[^\]]*)\])?(?:\s*~\s*(?P<alias>\w+))?"
    r"|:\s*hand\s*~\s*(?P<hstock>[\w-]+)(?:\s*\[(?P<hflags>[^\]]*)\])?)"
    r"\s*(?:;\s*(?P<doc>.*))?$")


@dataclass
class Param:
    ctype: str          # "h", "h?", "h!" or a C type
    name: str

    @property
    def is_handle(self):
        return self.ctype in ("h", "h?", "h!")

    def c_decl(self):
        return f"{'Cystck_Object' if self.is_handle else self.ctype} {self.name}"


@dataclass
class Function:
    name: str
    ret: str
    params: list
    stock: str            # CPython counterpart, or "" for none
    hand: bool            # written by hand rather than generated
    calls: str = ""       # the CPython function a generated wrapper calls
    flags: set = field(default_factory=set)
    doc: str = ""
    section: str = ""

    @property
    def variadic(self):
        return any(p.ctype == "..." for p in self.params)

    @property
    def takes_state(self):
        return "nostate" not in self.flags

    def prototype(self):
        ret = "Cystck_Object" if self.ret == "h" else self.ret
        params = (["Cystck_State *S"] if self.takes_state else []) + [
            "..." if p.ctype == "..." else p.c_decl() for p in self.params]
        return f"{ret} {self.name}({', '.join(params) or 'void'})"


def _parse_params(text):
    params = []
    for chunk in filter(None, (c.strip() for c in text.split(","))):
        if chunk == "...":
            params.append(Param("...", ""))
            continue
        m = re.match(r"^(.*?)(\w+)$", chunk)
        if not m or not m.group(1).strip():
            raise ValueError(f"apitable parameter is malformed: {chunk!r}")
        ctype = m.group(1).strip()
        params.append(Param(ctype, m.group(2)))
    return params


def _table_lines(table, pattern, what):
    """(section, match) for each entry of a table, in order: ``## `` lines
    open a section, blank lines are skipped, a line ``pattern`` does not
    match is an error naming ``what`` and the line."""
    section = ""
    for lineno, raw in enumerate(table.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        m = pattern.match(line)
        if not m:
            raise ValueError(f"{what} line {lineno} is malformed: {line}")
        yield section, m


def parse(table=apitable.TABLE):
    """The table's functions, in order."""
    functions = []
    for section, m in _table_lines(table, _LINE, "apitable"):
        hand = m.group("hstock") is not None
        stock = m.group("hstock") if hand else (m.group("alias") or m.group("stock"))
        functions.append(Function(
            name=m.group("name"), ret=m.group("ret").strip(),
            params=_parse_params(m.group("params")),
            stock="" if stock == "-" else stock, hand=hand,
            calls="" if hand else m.group("stock"),
            flags=set((m.group("flags") or m.group("hflags") or "").split()),
            doc=(m.group("doc") or "").strip(), section=section))
    return functions


_DEF_LINE = re.compile(
    r"^(?P<kind>const|type|macro|conv|slot|impl)\s+(?P<name>\w+)(?P<params>\([^)]*\))?"
    r"\s*(?:~\s*(?P<stock>[^:;\[]+?))?\s*(?:\[(?P<tramp>\w+)\])?"
    r"\s*(?::\s*(?P<sig>[^;]+?))?\s*(?:;\s*(?P<doc>.*))?$")


@dataclass
class Definition:
    """A name of the header that is not an API function (apitable.DEFINITIONS)."""
    kind: str           # const, type, macro, conv, slot or impl
    name: str
    params: str = ""    # a macro's "(a, b)"
    stock: str = ""     # the CPython counterpart, or "" for none
    signature: str = "" # conv/slot/impl: the implementation's C signature, named f
    doc: str = ""
    section: str = ""
    trampoline: str = "" # slot: the kind of trampoline calling it (UNARY...)

    def implementation(self):
        """The signature's return type and parameters, (C type, name) each,
        ``Cystck_State *S`` included."""
        ret, params = self._split_signature()
        return ret, [(p.ctype, p.name) for p in _parse_params(params)]

    def declarations(self):
        """The signature's parameter declarations as the table writes them
        (``const Cystck_Object *args``), ``Cystck_State *S`` included."""
        return [d.strip() for d in self._split_signature()[1].split(",")]

    def _split_signature(self):
        m = re.match(r"^(?P<ret>.+?)\s*\bf\((?P<params>.*)\)$", self.signature)
        if not m:
            raise ValueError(f"{self.name}: the signature is malformed: {self.signature}")
        return m.group("ret").strip(), m.group("params")


def parse_definitions(table=apitable.DEFINITIONS):
    """The table's other names, in order."""
    definitions = []
    for section, m in _table_lines(table, _DEF_LINE, "apitable DEFINITIONS"):
        stock = (m.group("stock") or "-").strip()
        definitions.append(Definition(
            kind=m.group("kind"), name=m.group("name"), params=m.group("params") or "",
            stock="" if stock == "-" else stock, signature=(m.group("sig") or "").strip(),
            doc=(m.group("doc") or "").strip(), section=section,
            trampoline=m.group("tramp") or ""))
    for d in definitions:
        if (d.kind == "slot") != bool(d.trampoline):
            raise ValueError(f"apitable DEFINITIONS: {d.name}: a slot, and only a slot, "
                             f"names its trampoline ([KIND])")
    return definitions


def slots(definitions=None):
    """The slot lines of the table, in order."""
    return [d for d in (parse_definitions() if definitions is None else definitions)
            if d.kind == "slot"]


def stock_to_cystck():
    """Map each CPython API name to its Cystck counterpart (first wins)."""
    mapping = {}
    for f in parse():
        if f.stock and f.stock not in mapping:
            mapping[f.stock] = f.name
    return mapping


# Return types of the table that are pointers behind a typedef.
POINTER_TYPEDEFS = {"Cystck_Ref"}


def error_value(ret):
    """The C value a function returning `ret` gives on error (None for void):
    the null handle, NULL, -1.0 or -1."""
    if ret == "h":
        return "Cystck_NULL"
    if ret == "void":
        return None
    if ret.endswith("*") or ret in POINTER_TYPEDEFS:
        return f"({ret})NULL"
    if ret == "double":
        return "-1.0"
    return f"({ret})-1"


# A predicate whose stock counterpart cannot fail (PyList_Check, Py_IS_TYPE,
# PyObject_TypeCheck, ones documented "no error") is written as a truth
# value: `if (!PyList_Check(o))`.  After an invalid handle it answers 0
# (false, the exception set), not -1, which such a test reads as true.
_CANNOT_FAIL = re.compile(r"_Check(?:Exact)?$")


def is_predicate(f):
    """Does `f` answer a question its stock counterpart cannot fail?"""
    if f.ret != "int" or f.doc.startswith("[e]"):
        return False
    return bool(_CANNOT_FAIL.search(f.name)) or "no error" in f.doc


def function_error_value(f):
    """The value `f` returns after an invalid handle argument."""
    return "(int)0" if is_predicate(f) else error_value(f.ret)


def _error_return(f, bad):
    """The C expression a wrapper returns after an invalid handle argument;
    `bad` is a C expression naming the (first) invalid handle."""
    if f.ret == "h":
        # Not a tail call, so the error path keeps the caller's address.
        return f"(_Cystck_BadArg(S, FN, {bad}), Cystck_NULL)"
    if f.ret == "void":
        return None
    return f"(_Cystck_BadArgInt(S, FN, {bad}), {function_error_value(f)})"


def _first_bad(handles):
    """`!a_ ? a : !b_ ? b : c`: the first handle whose object is missing."""
    expr = handles[-1].name
    for p in reversed(handles[:-1]):
        expr = f"!{p.name}_ ? {p.name} : {expr}"
    return expr


def _type_check(f):
    """The check=MACRO flag: the type test the first handle's object must
    pass, for stock functions that do not test it themselves and would crash
    on another type (PyDict_Contains, PySlice_Unpack)."""
    checks = [flag[len("check="):] for flag in f.flags if flag.startswith("check=")]
    return checks[0] if checks else None


def _wrapper(f):
    handles = [p for p in f.params if p.is_handle]
    required = [p for p in handles if p.ctype != "h?"]
    body = [f"    PyObject *{p.name}_ = _Cystck_Get({p.name});" for p in handles]
    if required:
        bad = _first_bad(required)
        err = _error_return(f, bad)
        cond = " || ".join(f"!{p.name}_" for p in required)
        on_error = f"return {err};" if err else f"{{ _Cystck_BadArgInt(S, FN, {bad}); return; }}"
        body.append(f"    if (Cystck_unlikely({cond}))")
        body.append(f"        {on_error}")
    if not required:
        body.append("    (void)S;")
    check = _type_check(f)
    if check:
        first = handles[0].name
        err = error_value(f.ret)
        raise_ = (f'_Cystck_Raised(S), PyErr_Format(PyExc_SystemError, "%s: argument of the wrong type (%s)", FN, '
                  f'Py_TYPE({first}_)->tp_name)')
        body.append(f"    if (Cystck_unlikely(!{check}({first}_)))")
        body.append(f"        return ({raise_}, {err});" if err else f"        {{ {raise_}; return; }}")
    body += [f"    {p.name}_ = _Cystck_Consume(S, {p.name});"
             for p in handles if p.ctype == "h!"]
    if "raises" in f.flags:
        # the frame notes the raise: a method returning a value with it
        # still set is reported at its close (_Cystck_Raised)
        body.append("    _Cystck_Raised(S);")
    call = f"{f.calls}({', '.join(f'{p.name}_' if p.is_handle else p.name for p in f.params)})"
    if f.ret == "h":
        own = "_Cystck_OwnBorrowed" if "borrowed" in f.flags else "_Cystck_Own"
        body.append(f"    return {own}(S, {call});")
    elif f.ret == "void":
        body.append(f"    {call};")
    else:
        body.append(f"    return ({f.ret})({call});")
    head = [f"/* {f.doc} */"] if f.doc else []
    return "\n".join(head + [f"static inline {f.prototype()}", "{",
                             f'#define FN "{f.name}"', *body, "#undef FN", "}"])


def render_header(functions):
    out = ["/* Generated by `python -m cystck.gen_api` from cystck/apitable.py.",
           " * Do not edit: change the table and regenerate. */",
           "#ifndef CYSTCK_AUTOGEN_API_H", "#define CYSTCK_AUTOGEN_API_H", "",
           "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
    section = None
    for f in functions:
        if f.hand:
            continue
        if f.section != section:
            section = f.section
            out += [f"/* ---- {section} ---- */", ""]
        out += [_wrapper(f), ""]
    out += ["#ifdef __cplusplus", "}", "#endif", "", "#endif /* CYSTCK_AUTOGEN_API_H */", ""]
    return "\n".join(out)


def render_slots_header(definitions):
    """CYSTCK_DEF_METH's calling conventions (each one's implementation
    prototype and stock ml_flags) and CYSTCK_DEF_SLOT's list of slots: each
    slot's trampoline kind, in parentheses (they tell a listed slot from an
    unknown name)."""
    out = ["/* Generated by `python -m cystck.gen_api` from cystck/apitable.py.",
           " * Do not edit: change the table and regenerate.",
           " *",
           " * The calling conventions CYSTCK_DEF_METH accepts (cystck/defs.h): the",
           " * prototype of an implementation IMPL and the stock ml_flags of each.",
           " * The slots CYSTCK_DEF_SLOT accepts, each with the trampoline that",
           " * calls its implementation in parentheses; docs/api.md gives each",
           " * implementation's signature. */",
           "#ifndef CYSTCK_AUTOGEN_SLOTS_H", "#define CYSTCK_AUTOGEN_SLOTS_H", ""]
    for d in definitions:
        if d.kind != "conv":
            continue
        ret, _ = d.implementation()
        out += [f"#define _CYSTCK_PROTO_{d.name}(IMPL) {ret} IMPL({', '.join(d.declarations())})",
                f"#define _CYSTCK_FLAGS_{d.name} ({' | '.join(d.stock.split('|'))})"]
    out.append("")
    out += [f"#define _CYSTCK_SLOTKIND_{d.name} (_CYSTCK_{d.trampoline})" for d in slots(definitions)]
    out += ["", "#endif /* CYSTCK_AUTOGEN_SLOTS_H */", ""]
    return "\n".join(out)


def _cell(text):
    return text.replace("|", "\\|")


def _by_section(items):
    """(section, items) in order of each section's first appearance: a
    section may be continued further down the table."""
    sections = {}
    for item in items:
        sections.setdefault(item.section, []).append(item)
    return sections.items()


def _definition_rows(items):
    if items[0].kind in ("conv", "slot", "impl"):
        rows = ["| name | stock | the implementation's signature | returns / meaning |",
                "| --- | --- | --- | --- |"]
        for d in items:
            stock = f"`{d.stock}`" if d.stock else "—"
            rows.append(f"| `{d.name}` | {stock} | `{_cell(d.signature)}` | {_cell(d.doc)} |")
        return rows
    rows = ["| name | stock | meaning |", "| --- | --- | --- |"]
    for d in items:
        stock = f"`{_cell(d.stock)}`" if d.stock else "—"
        rows.append(f"| `{d.name}{d.params}` | {stock} | {_cell(d.doc)} |")
    return rows


def render_doc(functions, definitions=()):
    out = ["# Cystck API reference", "",
           "Generated from `cystck/apitable.py` by `python -m cystck.gen_api`.",
           "Functions take `Cystck_State *S` first (omitted below), except those",
           "marked *no S*; `h` is a handle (`Cystck_Object`), `h?` one that may be",
           "the null handle.",
           "Effects: `[h+N]` creates N owned handles, `[s+N]`/`[s-N]` pushes/pops",
           "the return stack, `[c x]` consumes handle x, `[e]` may raise (returns",
           "the null handle, -1 or NULL with an exception set).",
           "Definition macros, constants and types come first; the functions follow.", ""]
    for section, items in _by_section(definitions):
        out += ["", f"## {section}", ""] + _definition_rows(items)
    for section, items in _by_section(functions):
        out += ["", f"## {section}", "",
                "| Cystck | stock C API | effect |", "| --- | --- | --- |"]
        for f in items:
            params = ", ".join("..." if p.ctype == "..." else
                               f"{p.ctype} {p.name}" for p in f.params)
            sig = f"`{f.ret} {f.name}({params})`"
            stock = f"`{f.stock}`" if f.stock else "—"
            doc = _cell(f.doc) if f.takes_state else "*no S*; " + _cell(f.doc)
            out.append(f"| {sig} | {stock} | {doc} |")
    out.append("")
    return "\n".join(out)


def outputs():
    functions = parse()
    definitions = parse_definitions()
    return {HEADER: render_header(functions), SLOTS_HEADER: render_slots_header(definitions),
            DOC: render_doc(functions, definitions)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if a generated file is out of date")
    args = ap.parse_args(argv)
    stale = []
    for path, text in outputs().items():
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if args.check and stale:
        print("out of date: " + ", ".join(str(p.relative_to(ROOT)) for p in stale)
              + " (run python -m cystck.gen_api)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
