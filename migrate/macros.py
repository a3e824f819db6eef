"""Macros of the project written out where they are used: those that
generate functions (below), and those that declare a module's method
table, definition or init (further down, "Declaration macros").

Extensions often write one function for several types through a macro
whose body is a whole function definition with a token-pasted name::

    #define DEFINE_GET(type) \\
    static PyObject *type##_get(type##Object *self) { ... }
    DEFINE_GET(Foo)
    DEFINE_GET(Bar)

No rule sees such a function: its name (``Foo_get``) appears only after
preprocessing, so its role (a method, a slot) and whether it needs the
state ``S`` are unknown, and the rules cannot rewrite a signature or a
struct access written with ``type##Object``.  The translator therefore
writes each expansion out as an ordinary function, where every other rule
applies, and removes the macro.  It does so only for a macro whose body is
one function definition that uses the Python API (and, after it, maybe
its docstring, ``PyDoc_STRVAR(name##_doc, "...")``) and whose every use is a
whole top-level line ``NAME(args)`` of the same file; other macros are left
as they are.
"""
import regex

from . import source
from .project import API_TOKEN, INIT_FUNCTION

_DEFINE = regex.compile(
    r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)\((?P<params>[^)]*)\)(?P<body>(?:[^\n\\]|\\.|\\\n)*)\n?",
    regex.M | regex.S)
_CONTINUATION = regex.compile(r"[ \t]*\\\n")
# One function definition: a head ending in a declarator and its parameter
# list, then one braced body reaching the end of the macro.
# Its docstring may follow, PyDoc_STRVAR(name##_doc, "..."), the ';' at
# the macro's uses.
_DEFINITION = regex.compile(r"\s*[A-Za-z_][\w\s*#]*?\b[\w#]+\s*" + source.paren("p") + r"\s*"
                            + source.brace("b") + r"\s*(?:PyDoc_STRVAR\s*" + source.paren("d") + r"\s*;?\s*)?",
                            regex.S)
# Where a body is rewritten: pasting operators and identifiers.
_BODY_TOKEN = regex.compile(r"\s*##\s*|#\s*(?=[A-Za-z_])|\b[A-Za-z_]\w*\b")


def _function_macros(masked):
    """The macros of ``masked`` (a file's mask) whose body is one function
    definition using the API: name -> (match of the #define, its parameters)."""
    found = {}
    for m in _DEFINE.finditer(masked):
        body = _CONTINUATION.sub("\n", m.group("body"))
        params = [p.strip() for p in m.group("params").split(",")]
        if "..." in params or not all(regex.fullmatch(r"[A-Za-z_]\w*", p) for p in params):
            continue
        if _DEFINITION.fullmatch(body) and API_TOKEN.search(body):
            found[m.group("name")] = (m, params)
    return found


def _top_level_uses(name, code):
    """The spans of the uses of macro ``name`` in ``code`` (a structure
    mask) with their argument spans, or None if one of them is not a whole
    top-level line ``NAME(args)`` with an optional ';'."""
    uses = []
    for m in regex.finditer(rf"\b{name}\s*" + source.paren("a") + r"[ \t]*;?", code):
        line_start = code.rfind("\n", 0, m.start()) + 1
        line_end = code.find("\n", m.end())
        line_end = len(code) if line_end < 0 else line_end
        if _depth(code, m.start()) or code[line_start:m.start()].strip() or code[m.end():line_end].strip():
            return None
        inner = (m.start("a") + 1, m.end("a") - 1)
        uses.append((m.start(), m.end(), source.split_top(code, *inner)))
    return uses or None


def _depth(code, at):
    """The brace depth at offset ``at`` of ``code`` (a structure mask)."""
    return code.count("{", 0, at) - code.count("}", 0, at)


def expansion(text, masked, define, params, args):
    """The body of ``define`` with ``args`` for ``params``: ``#p`` becomes
    a string, ``##`` pastes, and continuation lines become plain lines."""
    start, end = define.span("body")
    body, body_mask = text[start:end], masked[start:end]
    values = dict(zip(params, args))
    out, pos, stringize = [], 0, False
    for tok in _BODY_TOKEN.finditer(body_mask):
        out.append(body[pos:tok.start()])
        word = tok.group()
        if "##" in word:
            out.append("")
        elif word.startswith("#"):
            stringize = True
            pos = tok.end()
            continue
        elif word in values:
            out.append('"' + values[word].replace("\\", "\\\\").replace('"', '\\"') + '"'
                       if stringize else values[word])
        else:
            out.append(body[tok.start():tok.end()])
        stringize = False
        pos = tok.end()
    out.append(body[pos:])
    expanded = _join_lines("".join(out)).strip("\n")
    expanded = "\n".join(line.rstrip() for line in expanded.split("\n")).lstrip()
    # a trailing declaration (PyDoc_STRVAR) takes the ';' its use had
    return expanded if expanded.endswith(("}", ";")) else expanded + ";"


_LITERAL_OR_CONTINUATION = regex.compile(r'"(?:[^"\\\n]|\\.|\\\n)*"|\'(?:[^\'\\\n]|\\.)*\'|[ \t]*\\\n',
                                         regex.S)


def _join_lines(body):
    """``body`` with its continuation lines made plain lines; a line
    continued inside a string literal (a docstring's ``\\n\\``) stays
    continued, as it must outside a macro too."""
    return _LITERAL_OR_CONTINUATION.sub(lambda m: m.group() if m.group()[:1] in "\"'" else "\n", body)


def expand_function_macros(text):
    """``text`` with each function-generating macro expanded at its uses
    and its #define removed; returns (new text, number of uses expanded)."""
    masked = source.mask(text)
    macros = _function_macros(masked)
    if not macros:
        return text, 0
    try:
        code = source.structure_mask(text)
    except source.ScanError:
        return text, 0
    edits, count = source.Edits(), 0
    for name, (define, params) in macros.items():
        uses = _top_level_uses(name, code)
        if uses is None or any(len(arg_spans) != len(params) for _, _, arg_spans in uses):
            continue
        edits.add(define.start(), define.end(), "")
        for start, end, arg_spans in uses:
            args = [text[s:e].strip() for s, e in arg_spans]
            call = " ".join(text[start:end].rstrip(";").split()).replace("*/", "* /")
            edits.add(start, end, f"/* {call}, expanded by cystck-migrate */\n"
                      + expansion(text, masked, define, params, args))
            count += 1
    return (edits.apply(text), count) if count else (text, 0)


# ---------------------------------------------------------------------------
# Declaration macros: a module's boilerplate behind the project's macros
# ---------------------------------------------------------------------------
#
# Some projects write the module's method table, its definition and its
# init with macros of their own header, where no rule sees them::
#
#     #define EXT_METHODS static PyMethodDef CONCATENATE(EXT_MODULE, _methods)[]
#     #define EXT_INIT_FUNC PyMODINIT_FUNC CONCATENATE(PyInit_, EXT_MODULE)(void)
#     EXT_METHODS = { {"f", f, METH_O, NULL}, {NULL} };
#     EXT_INIT_FUNC { ... }
#
# A file-scope use of such a macro (a whole line's start, outside braces)
# is written out (its arguments substituted, once) where its expansion
# declares a ``PyMethodDef`` array, a ``PyModuleDef`` or the module's init;
# the macros it names are left to the compiler, but for the init's name,
# which the rules need as ``PyInit_<name>``: that one is expanded fully
# (``PyInit_EXT_MODULE`` where EXT_MODULE comes from the command line, the
# ``-D`` the build passes; CYSTCK_MODINIT(EXT_MODULE) pastes its value).

_ANY_DEFINE = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)(?:\((?P<params>[^)]*)\))?"
                            r"(?P<body>(?:[^\n\\]|\\.|\\\n)*)", regex.M | regex.S)
_IDENTIFIER = regex.compile(r"\b[A-Za-z_]\w*\b")
_CALL_ARGS = regex.compile(r"\s*" + source.paren("a"))
_VOID_PARAMS = regex.compile(r"\s*\(\s*(?:void)?\s*\)")
#: what a written-out use must declare (its name in group ``name``)
_DECLARES = (("method table", regex.compile(r"\bPyMethodDef\s+(?P<name>\w+)\s*\[\s*\w*\s*\]")),
             ("module definition", regex.compile(r"\bPyModuleDef\s+(?P<name>\w+)\s*=")))


class Unexpandable(Exception):
    """A macro the expansion cannot follow (ambiguous, recursive, its
    arguments not matching its parameters)."""


def project_macros(texts):
    """name -> [(parameters or None for an object-like macro, body)] of
    the ``#define`` lines of ``texts`` (the code only Python 2 compiles
    left out), each body's continuation lines made plain lines."""
    found = {}
    for text in texts:
        if "define" not in text:
            continue
        masked = source.mask(text)
        for m in _ANY_DEFINE.finditer(masked):
            params = None
            if m.group("params") is not None:
                params = [p.strip() for p in m.group("params").split(",")]
                params = [] if params == [""] else params
            body = _join_lines(text[m.start("body"):m.end("body")]).strip()
            found.setdefault(m.group("name"), []).append((params, body))
    return found


def substitute(body, params, raw, expanded=None):
    """``body`` (of a macro with ``params``) with the arguments: ``raw``
    where ``#`` or ``##`` takes a parameter, ``expanded`` (default ``raw``)
    elsewhere; ``##`` pastes."""
    masked = source.lex(body).blanked
    toks = list(_BODY_TOKEN.finditer(masked))
    values, full = dict(zip(params, raw)), dict(zip(params, expanded or raw))
    out, pos, stringize = [], 0, False
    for i, tok in enumerate(toks):
        out.append(body[pos:tok.start()])
        word = tok.group()
        pos = tok.end()
        if "##" in word:
            continue
        if word.startswith("#"):
            stringize = True
            continue
        if word in values:
            pasted = i and "##" in toks[i - 1].group() or i + 1 < len(toks) and "##" in toks[i + 1].group()
            if stringize:
                out.append('"' + values[word].replace("\\", "\\\\").replace('"', '\\"') + '"')
            else:
                out.append(values[word] if pasted else full[word])
        else:
            out.append(("#" if stringize else "") + word)
        stringize = False
    out.append(body[pos:])
    return "".join(out)


def _call(macros, masked, text, at, name):
    """(end, raw arguments) of the use of function-like macro ``name``
    whose name ends at ``at``, or None if no argument list follows."""
    call = _CALL_ARGS.match(masked, at)
    if not call:
        return None
    args = [text[s:e].strip() for s, e in source.split_top(masked, call.start("a") + 1, call.end("a") - 1)]
    return call.end(), ([] if args == [""] else args)


def expand_fully(text, macros, hidden=frozenset(), seen=None, depth=0):
    """``text`` with every macro of ``macros`` expanded as a preprocessor
    does (arguments first, then the result again); a name no macro
    defines stays, and goes into ``seen``."""
    if depth > 64:
        raise Unexpandable
    seen = set() if seen is None else seen
    masked = source.lex(text).blanked
    out, pos = [], 0
    for m in _IDENTIFIER.finditer(masked):
        if m.start() < pos:
            continue
        name, defs = m.group(), macros.get(m.group())
        out.append(text[pos:m.start()])
        pos = m.end()
        call = defs and defs[0][0] is not None and _call(macros, masked, text, m.end(), name)
        if name in hidden or not defs or defs[0][0] is not None and not call:
            seen.add(name)
            out.append(name)
            continue
        if len(defs) != 1:
            raise Unexpandable
        params, body = defs[0]
        if params is None:
            out.append(expand_fully(body, macros, hidden | {name}, seen, depth + 1))
            continue
        pos, args = call
        if len(args) != len(params):
            raise Unexpandable
        full = [expand_fully(a, macros, hidden, seen, depth + 1) for a in args]
        out.append(expand_fully(substitute(body, params, args, full), macros, hidden | {name}, seen, depth + 1))
    out.append(text[pos:])
    return "".join(out)


def _init_name_expanded(text, macros):
    """``text`` (a written-out use) with a macro that names a function
    (followed by ``(void)`` or ``()``) expanded where its expansion is
    ``PyInit_<name>``, ``<name>`` one word of its expansion (a macro no
    file defines, such as one the command line does, stays whole)."""
    masked = source.lex(text).blanked
    for m in _IDENTIFIER.finditer(masked):
        defs = macros.get(m.group())
        if not defs:
            continue
        end = m.end()
        if defs[0][0] is not None:
            call = _call(macros, masked, text, m.end(), m.group())
            if not call:
                continue
            end = call[0]
        if not _VOID_PARAMS.match(masked, end):
            continue
        seen = set()
        try:
            name = expand_fully(text[m.start():end], macros, seen=seen).strip()
        except Unexpandable:
            return text
        init = regex.fullmatch(r"PyInit_(\w+)", name)
        if init and init.group(1) in seen:
            return text[:m.start()] + name + text[end:]
    return text


def _declaration(text):
    """(kind, name) of what ``text`` (a written-out use) declares, or None."""
    for kind, pattern in _DECLARES:
        m = pattern.search(source.lex(text).blanked)
        if m:
            return kind, m.group("name")
    m = INIT_FUNCTION.search(source.lex(text).blanked)
    return ("init", m.group("n")) if m else None


def _written_use(name, defs, args, macros):
    """The text a use of ``name`` (with ``args``, None for an object-like
    macro) is written out as, if each of its definitions declares the same
    thing (a Python 3 build may take either branch of an ``#ifdef``):
    the last one's."""
    written, what = None, set()
    for params, body in defs:
        if (params is None) != (args is None) or params is not None and len(params) != len(args):
            return None
        text = body if params is None else substitute(body, params, args)
        text = _init_name_expanded(text, macros)
        what.add(_declaration(text))
        written = text
    return written if len(what) == 1 and None not in what else None


def expand_declaration_macros(text, macros):
    """``text`` with each file-scope use of a macro of ``macros``
    (project_macros) that declares a method table, a module definition or
    the module's init written out, and each use on a line of its own in a
    function (the init) that declares a module definition (``MOD_DEF(m,
    "spam", doc, methods)`` expanding to ``static struct PyModuleDef def =
    {...}; m = PyModule_Create(&def);``); returns (new text, uses written
    out)."""
    if not macros:
        return text, 0
    try:
        code = source.structure_mask(text)
    except source.ScanError:
        return text, 0
    edits, count = source.Edits(), 0
    for m in _IDENTIFIER.finditer(code):
        defs = macros.get(m.group())
        line_start = code.rfind("\n", 0, m.start()) + 1
        if not defs or code[line_start:m.start()].strip():
            continue
        nested = _depth(code, m.start())
        end, args = m.end(), None
        if defs[0][0] is not None:
            call = _call(macros, code, text, m.end(), m.group())
            if not call:
                continue
            end, args = call
        written = _written_use(m.group(), defs, args, macros)
        if written is None:
            continue
        if nested and (_declaration(written)[0] != "module definition"
                       or not regex.match(r"\s*(?:$|/[/*])", code[end:code.find("\n", end) % (len(code) + 1)])):
            continue      # in a function, only a module definition, a statement of its own line
        use = " ".join(text[m.start():end].split()).replace("*/", "* /")
        edits.add(m.start(), end, f"/* {use}, expanded by cystck-migrate */\n" + written)
        count += 1
    return (edits.apply(text), count) if count else (text, 0)


def assigned_parameters(masked):
    """{name: indexes of the parameters its body assigns} of the
    function-like macros of ``masked`` (a file's mask) that assign one of
    their parameters, ``#define SWAP(a, b, t) {t tmp; tmp = a; a = b; b =
    tmp;}``: an argument there is written, as the left side of ``=`` is."""
    out = {}
    for m in _DEFINE.finditer(masked):
        params = [p.strip() for p in m.group("params").split(",")]
        body = m.group("body")
        written = {i for i, p in enumerate(params) if regex.fullmatch(r"[A-Za-z_]\w*", p) and regex.search(
            rf"(?<![\w.>#]|->)\b{p}\b\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)|(?:\+\+|--|&)\s*\b{p}\b", body)}
        if written:
            out[m.group("name")] = written
    return out
