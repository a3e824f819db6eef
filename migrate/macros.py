"""Function-generating macros, expanded where they are used.

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
from .project import API_TOKEN

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
