"""The text model the rules work on: C source as a string, plus a *mask*.

The paper's tool removes comments before matching (section 6.1, step 1).  We
must keep them in the output, so instead of removing them we match against a
masked copy of the text of the same length, where the inside of comments,
string literals and character literals is blanked.  A pattern can therefore
never match inside a comment or a string, and every match position is also a
position in the real text, so replacements splice into the original with its
comments and formatting intact.

This module also finds the few structures the rules need (top-level
functions, their bodies, braced initialisers, statements); it is a scanner,
not a parser, and says so where it guesses.
"""
import bisect
from dataclasses import dataclass, field
from functools import lru_cache

import regex

# Blank replacement keeps offsets and line numbers: newlines survive.
_LEXEME = regex.compile(
    r'''
      (?P<lc>//[^\n]*)
    | (?P<bc>/\*.*?(?:\*/|\Z))
    | (?P<str>(?:\b[LuU]|\bu8)?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)"
             |(?:\b[LuU]|\bu8)?"(?:[^"\\\n]|\\.|\\\n)*(?P<strend>")?)
    | (?P<chr>(?:\b[LuU]|\bu8)?'(?:[^'\\\n]|\\.)*(?P<chrend>')?)
    ''', regex.X | regex.S)


def _blank(s):
    return "\n".join(" " * len(part) for part in s.split("\n"))


def _blank_spliced(s):
    """Spaces for a comment or literal, keeping its newlines and each
    line-continuation backslash: one inside a multi-line ``#define`` keeps
    the directive's lines joined (C splices lines before it sees comments)."""
    parts = s.split("\n")
    kept = [" " * (len(p) - 1) + "\\" if p.endswith("\\") else " " * len(p) for p in parts[:-1]]
    return "\n".join(kept + [" " * len(parts[-1])])


def _in_directive(text, pos):
    """Does ``pos`` lie on a preprocessor directive's logical line (its
    first physical line starts with ``#``, the ones before ``pos`` end in a
    backslash)?  Only there does a backslash ending a comment's line join
    lines; in a comment elsewhere (an example ``#define`` quoted in a
    header's doc comment) it is just text."""
    start = text.rfind("\n", 0, pos) + 1
    while start >= 2 and text[start - 2] == "\\":
        start = text.rfind("\n", 0, start - 1) + 1
    return text[start:pos].lstrip(" \t").startswith("#")


def directive_end(text, pos):
    """The end of the preprocessor directive whose logical line holds
    ``pos`` (before its last newline), or None outside directives."""
    if not _in_directive(text, pos):
        return None
    end = text.find("\n", pos)
    while end > 0 and text[end - 1] == "\\":
        end = text.find("\n", end + 1)
    return len(text) if end < 0 else end


def _blanked(text, m):
    """The mask of the comment or literal ``m`` (a match of _LEXEME)."""
    tok = m.group()
    blank = _blank_spliced if "\n" in tok and _in_directive(text, m.start()) else _blank
    if m.group("lc") is not None or m.group("bc") is not None:
        return blank(tok)
    quote = '"' if m.group("str") is not None else "'"
    first, last = tok.index(quote), len(tok) - 1
    if last > first and tok[last] == quote:
        return tok[:first + 1] + blank(tok[first + 1:last]) + quote
    return tok[:first + 1] + blank(tok[first + 1:])


# The project pass, the rules and the report mask each file's original
# text (and many a rule's output) several times over; the masks of the
# last few texts are kept.
@lru_cache(maxsize=32)
def mask(text):
    """Copy of ``text`` with comments and the inside of literals blanked,
    and the code only Python 2 compiles (``blank_python2``)."""
    return blank_python2(lex(text).blanked)


@dataclass(frozen=True)
class Lexed:
    """A text's comments and literals: their spans (``starts``, ``ends``)
    and the text with them blanked (``mask`` before ``blank_python2``).
    ``relex`` finds those of an edited text from them."""
    text: str
    blanked: str
    starts: list
    ends: list


@lru_cache(maxsize=8)
def lex(text):
    return _lex_from(text, 0, [], [], [])


def _lex_from(text, pos, pieces, starts, ends):
    """Lexed of ``text``, continuing from ``pos`` (where no comment or
    literal is open) the ``pieces`` of the blanked text and the spans
    found before it."""
    for m in _LEXEME.finditer(text, pos):
        pieces += [text[pos:m.start()], _blanked(text, m)]
        starts.append(m.start())
        ends.append(m.end())
        pos = m.end()
    pieces.append(text[pos:])
    return Lexed(text, "".join(pieces), starts, ends)


# Where a raw string literal could open.  Whether one does depends on text
# arbitrarily far on (its closing delimiter), which relex does not follow.
_RAW_OPENING = regex.compile(r'R"[^()\\\s]{0,16}\(')


def relex(lexed, edits):
    """``lex`` of the text that ``edits`` (non-overlapping (start, end, new)
    of ``lexed.text``, in order: ``Edits.done``) make.  Only the lines
    around each edit are lexed again; the rest keeps its spans and mask,
    shifted.  Lexing restarts at a line start before the edit where no
    comment or literal is open (so that one an edit extends or closes is
    lexed again), and rejoins the old spans at the first logical line start
    (the start of a comment spanning lines is judged by its line, see
    _in_directive) at least two characters past the edit where neither the
    old nor the new text has a comment or literal open."""
    old, starts, ends = lexed.text, lexed.starts, lexed.ends
    text = _applied(old, edits)
    if not edits or _RAW_OPENING.search(old) or _RAW_OPENING.search(text):
        return lex(text)
    # each edit's start and end in the new text, and the shift after it
    new_spans, shifts, shift = [], [], 0
    for start, end, new in edits:
        new_spans.append((start + shift, start + shift + len(new)))
        shift += len(new) - (end - start)
        shifts.append(shift)
    new_starts = [s for s, _ in new_spans]
    restarts = [_restart(old, starts, ends, start) for start, _, _ in edits]
    pieces, out_starts, out_ends = [], [], []
    _copy(lexed, 0, restarts[0], 0, pieces, out_starts, out_ends)
    pos, first = restarts[0], 0          # lexing from pos (new text) for edits[first:]
    while True:
        rejoined = _lex_window(text, pos, first, new_spans, new_starts, shifts, restarts, starts, ends,
                               pieces, out_starts, out_ends)
        if rejoined is None:
            return Lexed(text, "".join(pieces), out_starts, out_ends)
        q, passed = rejoined
        shift = shifts[passed - 1]
        stop = restarts[passed] if passed < len(edits) else len(old)
        _copy(lexed, q - shift, stop, shift, pieces, out_starts, out_ends)
        if passed == len(edits):
            return Lexed(text, "".join(pieces), out_starts, out_ends)
        pos, first = stop + shift, passed


def _applied(text, edits):
    out, pos = [], 0
    for start, end, new in edits:
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _restart(text, starts, ends, pos):
    """A line start at or before ``pos`` where no comment or literal of
    ``text`` (spans ``starts``, ``ends``) is open or ends: one that ends
    at or after ``pos`` may end elsewhere once ``pos`` changes."""
    while True:
        line = text.rfind("\n", 0, pos) + 1
        i = bisect.bisect_left(starts, line) - 1
        if i < 0 or ends[i] < line:
            return line
        pos = starts[i]


def _copy(lexed, start, stop, shift, pieces, out_starts, out_ends):
    """Take lexed's blanked text and spans of ``[start, stop)`` (where no
    span is open at either end), shifted by ``shift``."""
    pieces.append(lexed.blanked[start:stop])
    lo = bisect.bisect_left(lexed.starts, start)
    hi = bisect.bisect_left(lexed.starts, stop)
    out_starts += [s + shift for s in lexed.starts[lo:hi]]
    out_ends += [e + shift for e in lexed.ends[lo:hi]]


def _lex_window(text, pos, first, new_spans, new_starts, shifts, restarts, starts, ends,
                pieces, out_starts, out_ends):
    """Lex ``text`` from ``pos`` on, past ``edits[first]``, to where the old
    spans can be taken again: (that position, the number of edits before
    it); None if that is nowhere before the end."""
    for m in _LEXEME.finditer(text, pos):
        rejoined = _rejoin(text, pos, m.start(), first, new_spans, new_starts, shifts, restarts, starts, ends)
        if rejoined is not None:
            pieces.append(text[pos:rejoined[0]])
            return rejoined
        pieces += [text[pos:m.start()], _blanked(text, m)]
        out_starts.append(m.start())
        out_ends.append(m.end())
        pos = m.end()
    rejoined = _rejoin(text, pos, len(text), first, new_spans, new_starts, shifts, restarts, starts, ends)
    if rejoined is not None:
        pieces.append(text[pos:rejoined[0]])
        return rejoined
    pieces.append(text[pos:])
    return None


def _rejoin(text, gap, gap_end, first, new_spans, new_starts, shifts, restarts, starts, ends):
    """The first position q in ``text[gap:gap_end]`` (outside the new
    text's comments and literals) where the old spans can be taken again,
    as (q, the number of edits before q); None if there is none."""
    q = gap if gap > 0 and text[gap - 1] == "\n" else text.find("\n", gap, gap_end) + 1
    while 0 < q <= gap_end:
        passed = bisect.bisect_left(new_starts, q)
        if (passed > first and q >= new_spans[passed - 1][1] + 2 and text[q - 2] != "\\"
                and (passed == len(new_spans) or q - shifts[passed - 1] <= restarts[passed])):
            old_q = q - shifts[passed - 1]
            i = bisect.bisect_right(starts, old_q) - 1
            if i < 0 or ends[i] <= old_q or starts[i] == old_q:
                return q, passed
        q = text.find("\n", q, gap_end) + 1
    return None


# Conditions on the Python version that Python 3 always decides the same way.
_MAJOR = r"PY_MAJOR_VERSION\s*(?P<op><=|>=|==|!=|<|>)\s*(?P<v>\d+)"
_HEX = r"PY_VERSION_HEX\s*(?P<op><=|>=|==|!=|<|>)\s*(?P<v>0[xX][0-9a-fA-F]+)"
_VERSION_TEST = regex.compile(rf"^[ \t]*#[ \t]*if[ \t]+\(?\s*(?:{_MAJOR}|{_HEX})\s*\)?"
                              r"(?P<rest>\s*(?:\|\||&&).*)?\s*$")
_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _python3_decides(line):
    """For an ``#if`` on the Python version alone (or joined by ``||`` or
    ``&&`` to anything else where that cannot change the outcome): True if
    it holds on every Python 3, False if on none, None otherwise."""
    m = _VERSION_TEST.match(line)
    if m is None:
        return None
    op, v = m.group("op"), m.group("v")
    if v.lower().startswith("0x"):
        bound, low, high = int(v, 16), 0x03000000, 0x03FFFFFF
    else:
        bound, low, high = int(v), 3, 3
    at_low, at_high = _COMPARE[op](low, bound), _COMPARE[op](high, bound)
    if op in ("==", "!=") and low <= bound <= high and low != high:
        return None
    if at_low != at_high:
        return None                     # depends on the Python 3 version
    rest = (m.group("rest") or "").strip()
    if rest.startswith("||") and not at_low or rest.startswith("&&") and at_low:
        return None
    return at_low


def _version_test_lines(masked):
    """The lines of ``masked`` that _VERSION_TEST may match: found from the
    names it tests, which str.find finds much faster than a regex finds
    line starts."""
    for name in ("PY_MAJOR_VERSION", "PY_VERSION_HEX"):
        at = masked.find(name)
        while at >= 0:
            start = masked.rfind("\n", 0, at) + 1
            end = masked.find("\n", at)
            end = len(masked) if end < 0 else end
            yield masked[start:end]
            at = masked.find(name, end)


# A conditional on one macro alone: ``#ifdef M``, ``#ifndef M``, ``#if
# defined(M)``, ``#if !defined(M)``.
_MACRO_TEST = regex.compile(r"^[ \t]*#[ \t]*(?:(?P<k>ifdef|ifndef)[ \t]+(?P<m>\w+)"
                            r"|if[ \t]+(?P<neg>![ \t]*)?defined[ \t]*(?:\([ \t]*(?P<p>\w+)[ \t]*\)|[ \t]+(?P<b>\w+)))"
                            r"[ \t]*$")
# Code only one major version compiles: Python 2's module init, Python 3's
# (and its translation: the rules see the text as the translation goes).
_PYTHON2_ONLY = regex.compile(r"\bPy_InitModule\w*\s*\(")
_PYTHON3_ONLY = regex.compile(r"\b(?:Cystck|Py)Module_Create2?\s*\(|\bPyModuleDef_HEAD_INIT\b"
                              r"|\bPyInit_\w+\s*\(|\bCYSTCK_MODINIT\s*\(")


def _macro_test(line):
    """(macro, holds when defined) of a conditional on one macro alone, or None."""
    m = _MACRO_TEST.match(line)
    if m is None:
        return None
    if m.group("k"):
        return m.group("m"), m.group("k") == "ifdef"
    return m.group("p") or m.group("b"), not m.group("neg")


def python3_macros(masked):
    """The macros that stand for "Python 3" in this text, as a build's
    ``define_macros`` may set one (``-D_PYTHON3``): a macro tested alone
    (``#ifdef M`` ... ``#else`` ... ``#endif``) whose branch taken when it
    is defined has code only Python 3 compiles (``PyModule_Create``,
    ``PyModuleDef_HEAD_INIT``, ``PyInit_``) and whose other branch code
    only Python 2 compiles (``Py_InitModule``).  A macro tested with no
    such evidence (a feature switch) is not one."""
    if "Py_InitModule" not in masked:
        return {}
    lines = masked.split("\n")
    found = {}
    stack = []           # per open conditional: (macro and sense, or None; [first branch, later ones])
    for line in lines:
        m = _CONDITIONAL.match(line) if "#" in line else None
        if m is None:
            for _, texts in stack:
                texts[-1].append(line)
            continue
        kind = m.group(1)
        if kind.startswith("if"):
            stack.append((_macro_test(line), [[]]))
        elif kind in ("elif", "else") and stack:
            stack[-1][1].append([])
            if kind == "elif":
                stack[-1] = (None, stack[-1][1])
        elif kind == "endif" and stack:
            test, texts = stack.pop()
            if test is None or len(texts) != 2:
                continue
            macro, when_defined = test
            first, other = "\n".join(texts[0]), "\n".join(texts[1])
            defined, undefined = (first, other) if when_defined else (other, first)
            if (_PYTHON3_ONLY.search(defined) and _PYTHON2_ONLY.search(undefined)
                    and not _PYTHON2_ONLY.search(defined)):
                found[macro] = True
            elif (_PYTHON2_ONLY.search(defined) and _PYTHON3_ONLY.search(undefined)
                    and not _PYTHON2_ONLY.search(undefined)):
                found[macro] = False
    return found


def blank_python2(masked, python2_macros=()):
    """Blank the code of conditional branches that only Python 2 compiles
    (``#if PY_MAJOR_VERSION < 3``, the ``#else`` of ``#if
    PY_MAJOR_VERSION >= 3``, ``PY_VERSION_HEX < 0x03000000``, and the
    conditionals on a macro that python3_macros finds stands for a major
    version, ``#ifdef _PYTHON3`` ... ``#else``..., or on one of
    ``python2_macros``, macros defined only in such code, maybe in another
    file (python2_only_macros): ``#ifdef EXT2`` is never taken): Cystck
    needs Python 3, so that code is never compiled; it is copied as it is,
    as comments are, and neither rewritten nor reported."""
    macros = python3_macros(masked)
    for name in python2_macros:
        if name in masked:
            macros.setdefault(name, False)
    if not macros and not any(_python3_decides(line) is not None for line in _version_test_lines(masked)):
        return masked       # the common case: the line-by-line pass would change nothing

    def decides(line, kind):
        if kind == "if" and (v := _python3_decides(line)) is not None:
            return v
        test = _macro_test(line) if macros else None
        if test is None or test[0] not in macros:
            return None
        return macros[test[0]] == test[1]
    lines = masked.split("\n")
    with_elif = _groups_with_elif(lines)
    groups = []          # per open #if: [dead in its first branch, dead in the later ones, in a later branch]
    changed = False

    def dead(gs):
        return any(g[2] and g[1] or not g[2] and g[0] for g in gs)
    dead_here = False    # dead(groups), which only conditionals change
    for i, line in enumerate(lines):
        m = _CONDITIONAL.match(line) if "#" in line else None
        if m:
            kind = m.group(1)
            if kind.startswith("if"):
                # a decided conditional's own lines go too: for the scanner
                # its live branch is plain code, as it is to a compiler
                decided = decides(line, kind) if i not in with_elif else None
                blank = dead(groups) or decided is not None
                groups.append([decided is False, decided is True, False, decided is not None])
            else:
                blank = dead(groups[:-1]) or bool(groups) and groups[-1][3]
                if kind in ("elif", "else") and groups:
                    groups[-1][2] = True
                elif kind == "endif" and groups:
                    groups.pop()
            dead_here = dead(groups)
        else:
            blank = dead_here
        if blank and line.strip():
            lines[i] = " " * len(line)
            changed = True
    return "\n".join(lines) if changed else masked


_DEFINE_OR_UNDEF = regex.compile(r"^[ \t]*#[ \t]*(?P<k>define|undef)[ \t]+(?P<n>[A-Za-z_]\w*)", regex.M)
# names CPython's headers may define: never judged from the extension's text
_PYTHON_NAMES = regex.compile(r"_?(?:Py|PY)")


def python2_only_macros(texts):
    """The macros that every file of ``texts`` (an extension's files)
    defines only in code only Python 2 compiles (blank_python2: a
    compatibility header's ``#if PY_MAJOR_VERSION >= 3`` ... ``#else``
    ``#define EXT2`` ``#endif``), never elsewhere and never ``#undef``'d:
    on Python 3 they are not defined, so ``#ifdef EXT2`` is Python 2's
    branch in any file.  Names CPython's headers may define (``Py``,
    ``PY``...) are left out."""
    dead, live = set(), set()
    for text in texts:
        blanked = lex(text).blanked
        if "define" not in blanked:
            continue
        decided = blank_python2(blanked)
        for m in _DEFINE_OR_UNDEF.finditer(blanked):
            name = m.group("n")
            if _PYTHON_NAMES.match(name):
                continue
            if m.group("k") == "define" and decided is not blanked and not decided[m.start():m.end()].strip():
                dead.add(name)
            else:
                live.add(name)
    return frozenset(dead - live)


def _groups_with_elif(lines):
    """Indexes of the ``#if`` lines whose conditional has an ``#elif``."""
    out, stack = set(), []
    for i, line in enumerate(lines):
        m = _CONDITIONAL.match(line) if "#" in line else None
        if m is None:
            continue
        kind = m.group(1)
        if kind.startswith("if"):
            stack.append(i)
        elif kind == "elif" and stack:
            out.add(stack[-1])
        elif kind == "endif" and stack:
            stack.pop()
    return out


_DIRECTIVE = regex.compile(r"^[ \t]*#(?:[^\n\\]|\\.|\\\n)*", regex.M | regex.S)
_CONDITIONAL = regex.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b", regex.M)


def mask_directives(masked, first_branch_only=False):
    """Also blank preprocessor lines (and, on request, every ``#else`` /
    ``#elif`` branch), for scanning the brace structure of the code."""
    out = _DIRECTIVE.sub(lambda m: _blank(m.group()), masked)
    if not first_branch_only:
        return out
    chars = list(out)
    depth_skipping = []          # per open #if: are we inside a later branch?
    lines = masked.split("\n")
    offset = 0
    for line in lines:
        m = _CONDITIONAL.match(line)
        if m:
            kind = m.group(1)
            if kind.startswith("if"):
                depth_skipping.append(False)
            elif kind in ("elif", "else") and depth_skipping:
                depth_skipping[-1] = True
            elif kind == "endif" and depth_skipping:
                depth_skipping.pop()
        elif any(depth_skipping):
            for i in range(offset, offset + len(line)):
                chars[i] = " "
        offset += len(line) + 1
    return "".join(chars)


class ScanError(ValueError):
    """Input the scanner cannot make sense of, at ``line`` (1-based)."""

    def __init__(self, problem, line):
        super().__init__(f"{problem} at line {line}")
        self.problem, self.line = problem, line


class BraceError(ScanError):
    """Unbalanced braces, parentheses or brackets."""


_BRACKETS = regex.compile(r"[()\[\]{}]")


def check_balance(code):
    """Raise BraceError naming the line of the first imbalance in ``code``
    (a mask with directives blanked)."""
    if balanced(code):
        return          # the common case, checked without positions
    stack = []
    pairs = {")": "(", "]": "[", "}": "{"}
    for m in _BRACKETS.finditer(code):
        c, i = m.group(), m.start()
        if c in "([{":
            stack.append((c, i))
        else:
            if not stack:
                raise BraceError(f"unbalanced '{c}'", line_of(code, i))
            if stack[-1][0] != pairs[c]:
                opener, at = stack[-1]
                raise BraceError(f"unbalanced '{c}': the '{opener}' of line {line_of(code, at)} is not closed",
                                 line_of(code, i))
            stack.pop()
    if stack:
        c, i = stack[-1]
        raise BraceError(f"unclosed '{c}'", line_of(code, i))


def check_scannable(text):
    """Raise ScanError at the first thing in ``text`` that the scanner
    would silently misread: an unterminated comment or literal, an
    unmatched conditional directive, unbalanced brackets."""
    masked = mask(text)
    _check_lexemes(text, masked)
    _check_conditionals(masked)
    check_balance(mask_directives(masked, first_branch_only=True))


def _check_lexemes(text, masked):
    quiet = [m.span() for m in _DIRECTIVE.finditer(masked)] + _disabled_groups(masked)
    for m in _LEXEME.finditer(text):
        if m.group("bc") is not None:
            if len(m.group()) < 4 or not m.group().endswith("*/"):
                raise ScanError("unterminated comment", line_of(text, m.start()))
            continue
        # Compilers accept stray quotes in #error lines and #if 0 groups.
        open_string = m.group("str") is not None and m.group("delim") is None and m.group("strend") is None
        open_char = m.group("chr") is not None and m.group("chrend") is None
        if (open_string or open_char) and not any(s <= m.start() < e for s, e in quiet):
            quote = '"' if open_string else "'"
            raise ScanError(f"missing terminating {quote} character", line_of(text, m.start()))


_IF_ZERO = regex.compile(r"^[ \t]*#[ \t]*if[ \t]+0[ \t]*$")


def _disabled_groups(masked):
    """Spans of ``#if 0`` groups (up to their #else, #elif or #endif)."""
    spans, stack, offset = [], [], 0
    for line in masked.split("\n"):
        m = _CONDITIONAL.match(line)
        if m:
            kind = m.group(1)
            if kind.startswith("if"):
                stack.append(offset if _IF_ZERO.match(line) else None)
            elif stack:
                if stack[-1] is not None:
                    spans.append((stack[-1], offset))
                if kind == "endif":
                    stack.pop()
                else:
                    stack[-1] = None
        offset += len(line) + 1
    return spans


def _check_conditionals(masked):
    """Every #else, #elif and #endif has its #if, every #if its #endif."""
    opened = []
    for number, line in enumerate(masked.split("\n"), 1):
        m = _CONDITIONAL.match(line)
        if m:
            kind = m.group(1)
            if kind.startswith("if"):
                opened.append(number)
            elif not opened:
                raise ScanError(f"#{kind} without #if", number)
            elif kind == "endif":
                opened.pop()
    if opened:
        raise ScanError("unterminated #if", opened[-1])


def balanced(code):
    """Do the brackets of ``code`` close what they open, in order?  (Taking
    out adjacent pairs until none is left empties exactly the balanced
    sequences; str.replace does it much faster than a loop per bracket.)"""
    brackets = "".join(_BRACKETS.findall(code))
    while True:
        shorter = brackets.replace("()", "").replace("[]", "").replace("{}", "")
        if len(shorter) == len(brackets):
            return not brackets
        brackets = shorter


def mask_split_branches(masked):
    """``mask_directives`` that also blanks the later branches of just the
    conditionals with a branch whose brackets do not balance on its own
    (``#if A`` ``} else if (x) {`` ``#else`` ``} else {`` ``#endif``): the
    other conditionals keep every branch, so functions defined once per
    branch (one version for old Pythons, one for new) are all seen.  Inner
    conditionals are settled first, so an outer branch is judged as
    scanned."""
    out = list(mask_directives(masked))
    groups = []                  # per open #if: offsets where its branches start
    offset = 0
    for line in masked.split("\n"):
        m = _CONDITIONAL.match(line)
        if m:
            kind = m.group(1)
            if kind.startswith("if"):
                groups.append([offset + len(line)])
            elif groups and kind in ("elif", "else"):
                groups[-1] += [offset, offset + len(line)]
            elif groups:
                bounds = groups.pop() + [offset]
                branches = list(zip(bounds[0::2], bounds[1::2]))
                if not all(balanced("".join(out[a:b])) for a, b in branches):
                    for a, b in branches[1:]:
                        out[a:b] = [c if c == "\n" else " " for c in out[a:b]]
        offset += len(line) + 1
    return "".join(out)


def later_branches(text, start, end):
    """Spans of the ``#elif``/``#else`` branches of the conditionals that
    lie wholly in ``text[start:end]``."""
    spans, stack = [], []
    for m in _CONDITIONAL.finditer(text, start, end):
        kind = m.group(1)
        line_end = text.find("\n", m.end())
        line_end = end if line_end < 0 else line_end
        if kind.startswith("if"):
            stack.append(None)
        elif not stack:
            continue
        elif kind in ("elif", "else"):
            if stack[-1] is None:
                stack[-1] = line_end
        else:
            if stack[-1] is not None:
                spans.append((stack[-1], m.start()))
            stack.pop()
    return spans


def _conditional_lines(text, start, end):
    """(start, end of line, kind, directive) of each conditional directive
    in ``text[start:end]``, the directive's continuation lines included."""
    for m in _CONDITIONAL.finditer(text, start, end):
        d = _DIRECTIVE.match(text, m.start())
        yield m.start(), d.end(), m.group(1), d.group().strip()


def guard_at(text, start, pos):
    """The conditionals opened in ``text[start:pos]`` and still open at
    ``pos``: one list of directives per level, from its ``#if`` to the
    ``#elif``/``#else`` of the branch ``pos`` lies in.  Written before a
    line (and one ``#endif`` per level after it), they compile that line
    exactly when ``text[pos]`` is compiled."""
    stack = []
    for _, _, kind, line in _conditional_lines(text, start, pos):
        if kind.startswith("if"):
            stack.append([line])
        elif not stack:
            continue
        elif kind in ("elif", "else"):
            stack[-1].append(line)
        else:
            stack.pop()
    return stack


def guarded(levels, line):
    """``line`` inside the conditionals ``levels`` (see guard_at)."""
    return "\n".join([d for level in levels for d in level] + [line] + ["#endif"] * len(levels))


def branch_variants(text):
    """The versions of ``text`` (a piece of code with whole conditionals
    inside) that the preprocessor can make of it: a list of (levels,
    variant) with ``levels`` as guard_at gives them; ``[([], text)]`` when
    it has no conditional.  A conditional without ``#else`` gets one, with
    nothing in it."""
    lines = list(_conditional_lines(text, 0, len(text)))
    if not lines or not lines[0][2].startswith("if"):
        return [([], text)]
    depth, branches = 0, []      # (directive, body start, body end)
    for start, line_end, kind, line in lines:
        if kind.startswith("if"):
            depth += 1
            if depth == 1:
                branches.append([line, line_end, None])
        elif kind in ("elif", "else") and depth == 1:
            branches[-1][2] = start
            branches.append([line, line_end, None])
        elif kind == "endif":
            depth -= 1
            if depth == 0:
                branches[-1][2] = start
                close = (start, line_end)
                break
    else:
        return [([], text)]
    if not branches[-1][0].lstrip("# \t").startswith("else"):
        branches.append(["#else", close[0], close[0]])
    out, seen = [], []
    for directive, body_start, body_end in branches:
        seen.append(directive)
        variant = text[:lines[0][0]] + text[body_start:body_end] + text[close[1]:]
        out += [([list(seen)] + inner, v) for inner, v in branch_variants(variant)]
    return out


def structure_mask(text, masked=None):
    """The mask used for finding functions: comments, literals and
    directives blanked; if both branches of some ``#if`` together do not
    balance, only the first branch of that conditional is kept (of every
    conditional, if that is not enough).  ``masked`` is ``mask(text)``
    where the caller has it already."""
    masked = mask(text) if masked is None else masked
    code = mask_directives(masked)
    try:
        check_balance(code)
        return code
    except BraceError:
        pass
    code = mask_split_branches(masked)
    try:
        check_balance(code)
        return code
    except BraceError:
        code = mask_directives(masked, first_branch_only=True)
        check_balance(code)
        return code


def paren(name):
    """A regex group matching a balanced ``( ... )`` (on masked text)."""
    return rf"(?P<{name}>\((?:[^()]++|(?&{name}))*\))"


def brace(name):
    return rf"(?P<{name}>\{{(?:[^{{}}]++|(?&{name}))*\}})"


_PAIRS = {"(": regex.compile(r"[()]"), "[": regex.compile(r"[\[\]]"), "{": regex.compile(r"[{}]")}


def matching(code, i):
    """Index just past the bracket closing the one at ``code[i]``."""
    opener = code[i]
    depth = 0
    for m in _PAIRS[opener].finditer(code, i):
        if m.group() == opener:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.end()
    raise BraceError(f"unclosed '{opener}' at line {code.count(chr(10), 0, i) + 1}")


def unparen(expr):
    """``expr`` without the parentheses that enclose all of it (``((x))``
    is ``x``), stripped; on masked text, so that brackets in literals do
    not count."""
    expr = expr.strip()
    while expr.startswith("(") and matching(expr, 0) == len(expr):
        expr = expr[1:-1].strip()
    return expr


def split_top(code, start, end, sep=","):
    """Spans of the pieces of ``code[start:end]`` separated by ``sep`` (a
    character, or an operator such as ``&&``) at nesting depth zero."""
    spans, depth, last, first = [], 0, start, sep[0]
    for i in range(start, end):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == first and depth == 0 and i >= last and code.startswith(sep, i, end):
            spans.append((last, i))
            last = i + len(sep)
    spans.append((last, end))
    return spans


_COMPOUND = regex.compile(r"(if|while|for|switch)\b\s*(?=\()")
_DO = regex.compile(r"do\b")
_ELSE = regex.compile(r"\s*else\b")
_WHILE_TAIL = regex.compile(r"\s*while\s*" + paren("c") + r"\s*;")


def skip_blank(code, i, end):
    """The first position from ``i`` (at most ``end``) that is no white
    space."""
    while i < end and code[i].isspace():
        i += 1
    return i


def statement_end(code, i, end):
    """Where the statement starting at ``code[i]`` ends: a block, an ``if``
    (with its ``else``), ``for``/``while``/``switch`` with its body, a
    ``do ... while (...);``, or a simple statement after its ``;``.  None
    when it does not end before ``end`` or a closing bracket it did not
    open comes first."""
    if i >= end:
        return None
    if code[i] == "{":
        j = matching(code, i)
        return j if j <= end else None
    m = _COMPOUND.match(code, i, end)
    if m:
        j = statement_end(code, skip_blank(code, matching(code, m.end()), end), end)
        if j is not None and m.group(1) == "if":
            k = _ELSE.match(code, j, end)
            if k:
                return statement_end(code, skip_blank(code, k.end(), end), end)
        return j
    if _DO.match(code, i, end):
        j = statement_end(code, skip_blank(code, i + 2, end), end)
        k = _WHILE_TAIL.match(code, j, end) if j is not None else None
        return k.end() if k else None
    k = top_level_find(code, i, end, ";")
    return k + 1 if k is not None and code[k] == ";" else None


def top_level_find(code, start, end, chars):
    """The first position in ``code[start:end]`` that holds, at nesting
    depth zero, one of ``chars`` or a closing bracket opened before
    ``start``; None if there is none."""
    depth = 0
    for i in range(start, end):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif c in chars and depth == 0:
            return i
    return None


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def excerpt(code, limit=40):
    """``code`` on one line for a message, cut after at most ``limit``
    characters where no identifier or number is split, ending with '...'."""
    flat = " ".join(code.split())
    if len(flat) <= limit:
        return flat
    end = limit
    while end > 0 and _is_word(flat[end - 1]) and _is_word(flat[end]):
        end -= 1
    if end == 0:                 # one long word: keep it whole
        end = regex.match(r"\w+", flat).end()
    return flat[:end].rstrip() + "..."


def _is_word(c):
    return c.isalnum() or c == "_"


@dataclass
class Function:
    """A function definition or prototype found at the top level, or a
    member function declared or defined inside a struct/class body."""
    name: str
    start: int            # start of the declaration (return type)
    name_start: int
    params: tuple         # (start, end) of the text inside the parentheses
    body: tuple = None    # (start, end) of the body including braces, or None
    end: int = 0          # end of the definition or of the prototype's ';'
    member: bool = False  # declared in a C++ struct/class body

    @property
    def is_definition(self):
        return self.body is not None

    def moved(self, delta):
        """A copy with every position shifted by ``delta``."""
        return Function(self.name, self.start + delta, self.name_start + delta,
                        (self.params[0] + delta, self.params[1] + delta),
                        None if self.body is None else (self.body[0] + delta, self.body[1] + delta),
                        self.end + delta, self.member)


_KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "else", "do",
             "case", "defined", "__attribute__", "__declspec", "alignof",
             "_Alignof", "decltype", "catch", "typeof", "__typeof__"}
# A declarator name followed by a parameter list, at the top level.
_FUNC_HEAD = regex.compile(r"(?P<name>[A-Za-z_]\w*)\s*" + paren("params"))


# The member initialisers after a C++ constructor's parameters, ``Box(int
# n) : n(n), data(NULL) {``: calls in the head that are not the declarator.
_CTOR_INITIALIZERS = regex.compile(r"\s*(?:noexcept\s*)?:(?!:)[^;]*$")
_CALL_OPERATOR = regex.compile(r"operator\s*\(\s*\)\s*" + paren("params"))
# A line holding one macro call and nothing else (no type, no semicolon).
_MACRO_LINE = regex.compile(r"[A-Z_][A-Z0-9_]*\s*" + paren("args") + r"[ \t]*\n\s*")
_TOP = regex.compile(r"[{};]")
_TRANSPARENT = regex.compile(r'(?:\bextern\s+"\s*"|\bnamespace(?:\s+[\w:]+)?)\s*$')


def top_level_items(code):
    """Spans (start, end) of top-level items: a statement ending with ';'
    at depth 0, or a braced block with what precedes it.  ``extern "C"`` and
    ``namespace`` blocks are entered, not treated as items."""
    items, start, pos, n = [], 0, 0, len(code)
    transparent = 0           # extern "C" / namespace blocks we are inside
    while True:
        m = _TOP.search(code, pos)
        if m is None:
            break
        c, i = m.group(), m.start()
        if c == ";":
            items.append((start, i + 1))
            start = pos = i + 1
            continue
        if c == "}":
            if transparent:
                transparent -= 1
            start = pos = i + 1
            continue
        head = code[start:i]
        # (the literal tests first: a regex search through every head is slow)
        if ("extern" in head or "namespace" in head) and _TRANSPARENT.search(head):
            transparent += 1
            start = pos = i + 1
            continue
        end = matching(code, i)
        if _is_function_head(head):
            items.append((start, end))
            start = pos = end
            continue
        # a braced block followed by declarators and ';' (struct, initialiser)
        nxt = _TOP.search(code, end)
        if nxt is not None and nxt.group() == ";":
            items.append((start, nxt.end()))
            start = pos = nxt.end()
        else:
            items.append((start, end))
            start = pos = end
    return items


_HEAD_END = regex.compile(r"\)\s*(?:const|noexcept|override|final|throw\s*\(\s*\))*\s*$")
_ASSIGN_END = regex.compile(r"=\s*$")


# top_level_items asks again for every braced block of every version of a
# text, and most heads are those of the version before.
@lru_cache(maxsize=4096)
def _is_function_head(head):
    """Does ``head`` (text before a '{') end with a function declarator?"""
    stripped = head.rstrip()
    if not stripped.endswith(")") and not _HEAD_END.search(stripped):
        return False
    if _ASSIGN_END.search(stripped) or _assigns_outside_parens(stripped):
        return False
    m = None
    for m in _FUNC_HEAD.finditer(stripped):
        pass
    return bool(m) and m.group("name") not in _KEYWORDS


_PAREN_OR_ASSIGN = regex.compile(r"[()=]")


def _assigns_outside_parens(s):
    """Is there an '=' outside parentheses in ``s``?  Heads hold blanked
    comments, so only the parentheses and '=' are looked at."""
    if "=" not in s:
        return False
    depth = 0
    for m in _PAREN_OR_ASSIGN.finditer(s):
        c = m.group()
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0:
            return True
    return False


CLASS_BODY = regex.compile(r"(?:^|[;)\s])(?:struct|class)\s+\w+\s*(?::[^{;]*)?\{")
_ACCESS = regex.compile(r"\s*(?:(?:public|private|protected)\s*:\s*)+")
_TYPEDEF = regex.compile(r"\s*(?:typedef|using)\b")
_STARTS_WITH_NAME = regex.compile(r"\s*[A-Za-z_]")
# What may follow a prototype's parameter list before its ';': qualifiers,
# ``__attribute__((...))``, and attribute macros, names in capitals with or
# without arguments (``static int f(PyObject *o) NEGATIVE_SETS_EXCEPTION;``,
# ``__THROW``, ``NONNULL(1)``): after a declarator at the top level nothing
# else is valid C.  A lower-case name there is a variable (``DECLARE(int)
# table;``), not a function.
_PROTOTYPE_TAIL = regex.compile(r"(?:__attribute__\s*\(\(.*\)\)|const|noexcept|;|\s"
                                r"|[A-Z_][A-Z0-9_]*\b(?:\s*" + paren("args") + r")?)*",
                                flags=regex.S)


# A declarator whose name a macro pastes together, ``SUFFIXED(parse)(int
# x)``: the macro call with one identifier, then the parameter list.
_PASTED_ARG = regex.compile(r"\(\s*(?P<arg>[A-Za-z_]\w*)\s*\)")
_PASTED_PARAMS = regex.compile(r"\s*" + paren("params"))


def _pasted_name(head, m):
    """For a declarator ``MACRO(base)(params)`` matched by _FUNC_HEAD as
    ``MACRO(base)``: its name, written ``MACRO(base)`` as calls spell it,
    and the span of the real parameter list; None for any other."""
    arg = _PASTED_ARG.fullmatch(m.group("params"))
    rest = _PASTED_PARAMS.match(head, m.end("params"))
    if arg is None or rest is None or not regex.fullmatch(r"[A-Z_][A-Z0-9_]*", m.group("name")):
        return None
    return f"{m.group('name')}({arg.group('arg')})", (rest.start("params"), rest.end("params"))


def find_functions(code, offset=0, member=False, memo=None):
    """Function definitions and prototypes at the top level of ``code`` (a
    structure mask), and the member functions of C++ struct/class bodies
    (``static bool Ready();``, inline ``TypeCheck``), which need the same
    rewriting.  Function-pointer typedefs and variables are skipped.

    ``memo``, a pair (earlier, now) of dicts from the text of a top-level
    item to its functions (positions relative to the item), spares finding
    them again in an item unchanged since an earlier text: they are taken
    from ``earlier`` or found, and recorded in ``now``."""
    found = []
    for start, end in top_level_items(code):
        if memo is None:
            found += _item_functions(code, start, end, offset, member)
            continue
        item = code[start:end]
        earlier, now = memo
        relative = earlier.get(item)
        if relative is None:
            relative = _item_functions(item, 0, len(item), 0, member)
        now[item] = relative
        found += [f.moved(offset + start) for f in relative]
    return found


def _item_functions(code, start, end, offset, member):
    """The functions find_functions finds in the top-level item
    ``code[start:end]``."""
    item = code[start:end]
    # (the literal tests first: a regex search through every item is slow)
    cls = CLASS_BODY.search(item) if "struct" in item or "class" in item else None
    if cls is not None and not _is_function_head(item[:item.find("{")]):
        open_at = start + cls.end() - 1
        close_at = matching(code, open_at)
        return find_functions(code[open_at + 1:close_at - 1], offset + open_at + 1, True)
    access = _ACCESS.match(item) if member else None
    if access is not None:
        start += access.end()
        item = code[start:end]
    lead = len(item) - len(item.lstrip())
    if _TYPEDEF.match(item):
        return []
    brace_at = item.find("{")
    head_end = brace_at if brace_at >= 0 else len(item)
    head = item[:head_end]
    if brace_at >= 0 and not _is_function_head(head):
        return []
    if brace_at < 0 and _assigns_outside_parens(head):
        return []
    m = None
    for cand in _FUNC_HEAD.finditer(head):
        if cand.group("name") not in _KEYWORDS:
            m = cand   # the last declarator: earlier ones are macro calls
                       # such as CYSTCK_DEF_METH(...) on lines before it
            if _CTOR_INITIALIZERS.match(head, cand.end()):
                break  # a constructor's ``: member(value), ...`` follows
            if brace_at < 0 and _PROTOTYPE_TAIL.fullmatch(head, cand.end()):
                break  # later ones are attribute macros (``f(int a) NONNULL(1);``)
    name, params = (m.group("name"), (m.start("params"), m.end("params"))) if m else (None, None)
    if name == "operator":
        # a functor's call operator: ``operator()( T a, U b )``
        call = _CALL_OPERATOR.match(head, m.start("name"))
        if call is None:
            return []      # other operators are left alone
        name, params = "operator()", (call.start("params"), call.end("params"))
    if m is None:
        return []
    pasted = _pasted_name(head, m)
    if pasted is not None:
        name, params = pasted
    # `int (*fp)(int)` is a pointer, not a function
    before = head[:m.start()].rstrip()
    if before.endswith("(*") or before.endswith("(") or before.endswith("*("):
        return []
    if not _STARTS_WITH_NAME.match(head, lead) and brace_at < 0:
        return []
    after = head[params[1]:].strip()
    if brace_at < 0 and after and not _PROTOTYPE_TAIL.fullmatch(after):
        return []
    # Lines before the declaration that are whole macro calls with no
    # semicolon (CYSTCK_TYPE_HELPERS(T) after a struct) belong to the
    # same top-level item but not to the function.
    while (macro := _MACRO_LINE.match(head, lead)) is not None and macro.end() <= m.start():
        lead = macro.end()
    base = offset + start
    f = Function(name=name, start=base + lead, name_start=base + m.start("name"),
                 params=(base + params[0] + 1, base + params[1] - 1),
                 end=offset + end, member=member)
    if brace_at >= 0:
        f.body = (base + brace_at, offset + end)
    return [f]


@dataclass
class Edits:
    """Non-overlapping replacements on one text, applied together."""
    items: list = field(default_factory=list)
    applied: int = 0          # edits that changed the text in the last apply()
    done: list = field(default_factory=list)

    def add(self, start, end, new):
        self.items.append((start, end, new))

    def apply(self, text):
        out, pos, self.applied, self.done = [], 0, 0, []
        for start, end, new in sorted(self.items, key=lambda e: (e[0], e[1])):
            if start < pos:
                continue          # overlapping: the earlier edit wins
            out.append(text[pos:start])
            out.append(new)
            pos = end
            self.applied += text[start:end] != new
            self.done.append((start, end, new))
        out.append(text[pos:])
        return "".join(out)

    def map_position(self, pos):
        """Where ``pos`` of the old text is in the text apply() returned."""
        shift = 0
        for start, end, new in self.done:
            if pos < start:
                break
            if pos < end:
                return start + shift
            shift += len(new) - (end - start)
        return pos + shift

    def __len__(self):
        return len(self.items)
