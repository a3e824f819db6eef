"""Reading C declarations and braced initialisers out of masked text.

The rules need to know, for instance, which function a ``PyMethodDef``
entry names and with which flags, or which members of a struct are
``PyObject *``.  These helpers read such facts from the structure mask
(positions) and the real text (the values, since strings are blank in the
mask)."""
import functools
from dataclasses import dataclass

import regex

from . import libraries, source

_HEAD_INIT = regex.compile(r"^\s*Py(?:Var)?Object_HEAD_INIT\s*" + source.paren("p") + r"\s*,?")
_MODDEF_HEAD = regex.compile(r"^\s*PyModuleDef_HEAD_INIT\s*,?")
_OBJECT_HEAD_INIT = regex.compile(r"^\s*PyObject_HEAD_INIT\b")


@dataclass
class Item:
    """One element of a braced initialiser: ``key`` is the designator
    (``tp_name`` in ``.tp_name = x``) or None; ``value`` the element's text,
    or a list of Items for a nested braced list; ``span`` its position."""
    key: object
    value: object
    span: tuple

    @property
    def text(self):
        return self.value if isinstance(self.value, str) else None


def parse_init(code, text, open_at, all_branches=False):
    """Parse the braced initialiser whose '{' is at ``open_at``.  Returns
    (items, end) with ``end`` just past the closing '}'.  ``all_branches``:
    also the elements in the ``#elif``/``#else`` branches of its
    conditionals (of a table whose elements are all alike)."""
    end = source.matching(code, open_at)
    items = []
    # the elements of an initialiser are positional: where they differ per
    # version (#if ... #else ... #endif inside the braces), the first
    # branch is read, as when the other branches are not scanned
    later = [] if all_branches else source.later_branches(text, open_at, end)
    for s, e in source.split_top(code, open_at + 1, end - 1):
        piece = code[s:e]
        if not piece.strip():
            continue
        first = s + len(piece) - len(piece.lstrip())
        if any(a <= first < b for a, b in later):
            continue
        lead = len(piece) - len(piece.lstrip())
        s += lead
        piece = code[s:e]
        key = None
        m = _DESIGNATOR.match(piece)
        if m:
            key = m.group(1)
            s += m.end()
            piece = code[s:e]
        m = _HEAD_INIT.match(piece) or _MODDEF_HEAD.match(piece)
        if m and key is None:
            items.append(Item("__head__", text[s:s + m.end()].strip(), (s, s + m.end())))
            s += m.end()
            piece = code[s:e]
            lead = len(piece) - len(piece.lstrip())
            s += lead
            piece = code[s:e]
            if not piece.strip():
                continue
            m = _DESIGNATOR.match(piece)
            if m:
                key = m.group(1)
                s += m.end()
                piece = code[s:e]
        stripped = piece.rstrip()
        if stripped.startswith("{") and source.matching(code, s) == s + len(stripped):
            sub, _ = parse_init(code, text, s)
            items.append(Item(key, sub, (s, s + len(stripped))))
        else:
            items.append(Item(key, text[s:s + len(stripped)].strip(), (s, s + len(stripped))))
    return items, end


def fields_of(items, order):
    """Map field names to Items for an initialiser that may mix positional
    and designated elements (C99 rules: a positional element follows the
    previous one).  A type object whose head is ``PyObject_HEAD_INIT(NULL)``
    (Python 2's spelling, which Python 3 compiles as well) gives its
    ``ob_size`` as the first positional element after the head, ``0,``:
    that element is no field of ``order``."""
    out, pos = {}, 0
    ob_size = False
    for it in items:
        if it.key == "__head__":
            ob_size = list(order[:1]) == ["tp_name"] and bool(_OBJECT_HEAD_INIT.match(it.value))
            continue
        if it.key is not None:
            ob_size = False
            out[it.key] = it
            pos = order.index(it.key) + 1 if it.key in order else pos
        elif ob_size:
            ob_size = False
        else:
            if pos < len(order):
                out[order[pos]] = it
            pos += 1
    return out


@functools.lru_cache(maxsize=None)
def _call_cast(macros):
    """C++ named casts, and a helper library's cast macros (``#define
    as_void( o ) ( reinterpret_cast<void*>( o ) )``, see
    :mod:`.libraries`), which table entries use instead of C casts."""
    return regex.compile(r"^(?:(?:reinterpret|static|const)_cast\s*<[^<>;]*>"
                         + "".join("|" + regex.escape(m) for m in macros) + r")\s*(?=\()")


# A leading cast, and one whose parenthesis holds a type (compiled once:
# strip_cast runs for every table entry and initialiser).
_LEADING_PARENS = regex.compile(r"^\(\s*[\w\s\*\(\)]*?\)\s*(?=[\w&(])")
_TYPE_IN_PARENS = regex.compile(r"^\(\s*(?:const\s+)?[A-Za-z_][\w\s\*]*(?:\(\s*\*\s*\)\s*\([\w\s,\*]*\))?\s*\)")


def strip_cast(expr):
    """``(PyCFunction)(void(*)(void))f`` -> ``f``; ``as_void( f )`` (a
    cast macro) and ``reinterpret_cast<void*>( f )`` -> ``f``."""
    expr = expr.strip()
    call_cast = _call_cast(libraries.cast_macros())
    while True:
        m = call_cast.match(expr)
        if m and source.matching(expr, m.end()) == len(expr):
            expr = expr[m.end() + 1:-1].strip()
            continue
        m = _LEADING_PARENS.match(expr)
        if not m or not _TYPE_IN_PARENS.match(expr):
            break
        inner = expr[m.end():].strip()
        if inner == expr:
            break
        expr = inner
    return source.unparen(expr)


@dataclass
class Declarator:
    name: str
    pointer: str       # the '*'s between the base type and the name
    array: str         # '[N]' suffix, or ''
    init: tuple        # span of the initialiser expression, or None
    span: tuple        # span of the whole declarator


# The base type of a declaration, one declarator (``**name[3] = init``).
_DECL_BASE = regex.compile(r"\s*((?:(?:static|extern|const|volatile|register|struct|unsigned|signed|inline)\s+)*"
                           r"[A-Za-z_][\w:]*(?:\s*<[^;{}]*>)?(?:\s+const)?)\s*(?=[\*&\s]|$)")
#: the qualifiers a pointer may carry after its star (``*restrict p``)
POINTER_QUALIFIERS = r"(?:(?:const|volatile|restrict|__restrict__|__restrict)\b\s*)"
_DECLARATOR = regex.compile(r"\s*(?P<ptr>(?:\*\s*" + POINTER_QUALIFIERS + r"*)*)"
                            r"(?P<name>[A-Za-z_]\w*)\s*"
                            r"(?P<arr>(?:\[[^\]]*\]\s*)*)(?:=\s*(?P<init>.*\S))?\s*$", flags=regex.S)
_SPACE = regex.compile(r"\s")
_OBJECT_HEAD = regex.compile(r"\s*PyObject_(?:VAR_)?HEAD\b")
_DESIGNATOR = regex.compile(r"\.(\w+)\s*=\s*")


_NO_ALIAS_QUALIFIER = regex.compile(r"\b(?:restrict|__restrict__|__restrict)\b")
_OWN_QUALIFIERS = regex.compile(r"(?:const|volatile)+$")


def pointer_stars(ptr):
    """The stars of a declarator, ``**``, as the rules compare them:
    ``restrict`` (``__restrict``, ``__restrict__``) anywhere and ``const``
    or ``volatile`` after the last star (qualifiers of the declared
    variable itself, ``PyObject *const x``) dropped; a ``const`` between
    two stars stays (``*const*``, a pointer to const pointers)."""
    return _OWN_QUALIFIERS.sub("", _SPACE.sub("", _NO_ALIAS_QUALIFIER.sub("", ptr)))


def split_declaration(code, start, end):
    """Split ``base *a = x, **b[3]`` (no ';') into the base type span and
    declarators.  Returns (base_end, [Declarator]) or None if it does not
    look like a declaration."""
    parts = source.split_top(code, start, end)
    first_s, first_e = parts[0]
    m = _DECL_BASE.match(code[first_s:first_e])
    if not m:
        return None
    base_end = first_s + m.end(1)
    decls = []
    for i, (s, e) in enumerate(parts):
        if i == 0:
            s = base_end
        d = _DECLARATOR.match(code[s:e])
        if not d:
            return None
        init = None
        if d.group("init") is not None:
            init = (s + d.start("init"), s + d.end("init"))
        decls.append(Declarator(d.group("name"), pointer_stars(d.group("ptr")),
                                d.group("arr").strip(), init, (s, e)))
    return base_end, decls


def struct_members(code, open_at, close_at):
    """Members of a struct body: list of (base type text, Declarator, span
    of the member statement)."""
    out = []
    for s, e in source.split_top(code, open_at + 1, close_at - 1, sep=";"):
        head = _OBJECT_HEAD.match(code[s:e])
        if head:                 # the object head has no ';' of its own
            s += head.end()
        s = _skip_member_functions(code, s, e)
        piece = code[s:e]
        if not piece.strip():
            continue
        if "{" in piece:     # nested struct/union: look inside it
            b = piece.index("{")
            inner_end = source.matching(code, s + b)
            out.extend(struct_members(code, s + b, inner_end))
            continue
        parsed = split_declaration(code, s, e)
        if parsed is None:
            continue
        base_end, decls = parsed
        base = code[s:base_end].strip()
        for d in decls:
            out.append((base, d, (s, e)))
    return out


# C++: an access label, or the head of an inline member function (a
# constructor's member initialisers included) up to its body.
_ACCESS_LABEL = regex.compile(r"\s*(?:(?:public|private|protected)\s*:(?!:)\s*)+")
_FUNCTION_HEAD = regex.compile(r"\)\s*(?:(?:const|noexcept|override|final)\b\s*)*(?::(?!:)[^{;]*)?$")


def _skip_member_functions(code, s, e):
    """Where the member statement ``code[s:e]`` of a C++ class body really
    starts: after access labels and the inline member functions before it
    (``void Read() { ... }  PyObject* stream``), which have no ';'."""
    while True:
        label = _ACCESS_LABEL.match(code, s, e)
        if label and label.end() > s:
            s = label.end()
        b = code.find("{", s, e)
        if b < 0 or not _FUNCTION_HEAD.search(code, s, b):
            return s
        s = source.matching(code, b)
