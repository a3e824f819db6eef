"""The rule engine: named rewriting rules applied in order of precedence.

A rule (paper section 6.1) is a pattern and a transformation.  Here it is a
subclass of :class:`Rule` with a docstring saying what it does and why, a
``precedence`` (lower runs first), its ``patterns`` (regular expressions of
the ``regex`` package, matched on masked text, see :mod:`.source`), an
``apply`` method performing the transformation, and a ``before``/``after``
example.  Rules register themselves by subclassing; a *pack* is the module
that defines them (``core``, ``types``...).

All rules run in one order, that of their precedence, whatever their pack.
A rule whose patterns expect what another rule writes (the
``CYSTCK_DEF_SLOT`` lines of the type-object rule, the ``Cystck*`` calls of
the api-calls rule) says so in ``needs``, the names of those rules; the
precedence puts every rule after what it needs.  Choosing rules by name or
pack (``--rules``) adds what they need, and leaving one out (``--exclude``)
leaves out what needs it, so a rule never runs on text it does not expect
(see :func:`selection`).  The test suite translates each rule's ``before``
(stock C or C++) with the rule and what it needs, and compares the result
with ``after``; it also checks that the rule leaves alone a near miss of
what it rewrites (its entry in tests/migrate/test_rules_leave_alone.py).

The engine translates one :class:`Unit` (a file) at a time, in the context of
a :class:`~.project.Project` built beforehand from every input file, so that
a rule in ``ujson.c`` knows that ``ujson_dumps``, defined in ``encode.c``, is
a METH_VARARGS|METH_KEYWORDS method.
"""
import functools
from collections import Counter
from dataclasses import dataclass, field

import regex

from . import source

_REGISTRY = {}
# The end of a sentence in a docstring: a full stop followed by two spaces,
# or by a line break and a capital ("e.g. a" and "x.get()" are no ends).
_SENTENCE_END = regex.compile(r"\.(?:  (?=\S)|\n\s*(?=[A-Z]))")
# The rules' patterns (Unit.sub), compiled once each: the regex module's
# own cache lookup per call is slow.
_compiled = functools.lru_cache(maxsize=1024)(regex.compile)


class Rule:
    """Base class of every rule.  Subclasses define ``name`` (unique,
    kebab-case), ``precedence``, ``patterns``, ``before``, ``after`` and
    ``apply(unit) -> int`` (the number of transformations made), and
    ``needs`` if they expect another rule's output."""

    name = None
    pack = None
    precedence = 500
    #: Names of the rules whose output this rule's patterns expect: they
    #: run before it (a lower precedence) and are chosen with it.
    needs = ()
    patterns = ()
    before = ""
    after = ""
    #: Only for files in this language ("c++") or that use this helper
    #: library (see Unit.libraries); None means every file.
    library = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name is None:
            return
        if cls.name in _REGISTRY:
            raise ValueError(f"two rules are named {cls.name!r}")
        cls.pack = cls.__module__.rsplit(".", 1)[-1]
        _REGISTRY[cls.name] = cls

    def applies_to(self, unit):
        return self.library is None or self.library in unit.libraries

    def apply(self, unit):
        raise NotImplementedError

    @classmethod
    def summary(cls):
        """The first sentence of the docstring as plain text (no RST
        literal markup, one space between words)."""
        paragraph = (cls.__doc__ or "").strip().split("\n\n")[0]
        end = _SENTENCE_END.search(paragraph)
        return " ".join(paragraph[:end.start() + 1 if end else None].split()).replace("``", "")


def all_rules():
    """Every registered rule class, in order of application."""
    from . import rules  # noqa: F401  (importing the packs registers them)
    return sorted(_REGISTRY.values(), key=lambda r: (r.precedence, r.name))


def selection(only=None, exclude=None):
    """(rule classes to run in order, names added, names left out): the
    rules or packs named in ``only`` (every rule if None) and what they
    need, transitively ("added" lists what ``only`` did not name), without
    those named in ``exclude`` and whatever needs one of them ("left out"
    lists those ``exclude`` did not name).  Unknown names raise
    ValueError."""
    classes = all_rules()
    known = {c.name for c in classes} | {c.pack for c in classes}
    for name in list(only or []) + list(exclude or []):
        if name not in known:
            raise ValueError(f"unknown rule or pack {name!r} (see --list-rules)")
    named = {c.name for c in classes if not only or c.name in only or c.pack in only}
    chosen = _closure(named, lambda c: c.needs, classes)
    barred = {c.name for c in classes if exclude and (c.name in exclude or c.pack in exclude)}
    dropped = _closure(barred, lambda c: [d.name for d in classes if c.name in d.needs], classes)
    run = [c for c in classes if c.name in chosen - dropped]
    return run, sorted(chosen - named - dropped), sorted((dropped - barred) & chosen)


def _closure(names, neighbours, classes):
    """``names`` and every rule reached from them through ``neighbours``."""
    by_name = {c.name: c for c in classes}
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += neighbours(by_name[name])
    return seen


def select_rules(only=None, exclude=None):
    """Rule instances for the names (or pack names) in ``only`` and what
    they need, minus ``exclude`` and what needs it (see selection())."""
    return [c() for c in selection(only, exclude)[0]]


@dataclass
class Note:
    """Something for a human: a construct left untranslated or a warning."""
    kind: str          # "leftover" or a warning category
    path: str
    line: int
    message: str
    rule: str = ""
    pos: int = None       # offset in the unit's text while it is rewritten

    def to_dict(self):
        return {"kind": self.kind, "file": self.path, "line": self.line,
                "message": self.message, "rule": self.rule}


@dataclass
class Unit:
    """One file being translated."""
    path: str                 # as shown in reports (relative to the input)
    original: str
    project: object
    text: str = None
    libraries: set = field(default_factory=set)
    kept_stock: bool = False  # kept stock as a whole (translate.kept_stock)
    counts: Counter = field(default_factory=Counter)
    notes: list = field(default_factory=list)
    # What is derived from the text (masks, functions, function contexts)
    # is computed once per version of the text, not per rule: the rules ask
    # for it again and again.  _derived holds it for the current text,
    # _previous the last value of each key for an earlier text (see derived()).
    _derived: dict = field(default_factory=dict, repr=False)
    _previous: dict = field(default_factory=dict, repr=False)
    # (earlier text, the edits that changed it, or None if unknown) for each
    # change of the text since it was last lexed: the lexing of the current
    # text starts from the last one (see lexed).
    _changes: list = field(default_factory=list, repr=False)

    def __post_init__(self):
        if self.text is None:
            self.text = self.original

    @property
    def is_cpp(self):
        return "c++" in self.libraries

    # ---- the current text and its masks ----
    def set_text(self, text, edits=None):
        """Make ``text`` the current text; ``edits`` are the (start, end,
        new) of the current text that make it (Edits.done), if known."""
        if text != self.text:
            self._changes.append((self.text, edits))
            self.text = text
            self._previous.update(self._derived)
            self._derived = {}

    def derived(self, key, compute):
        """The value under ``key`` derived from the current text: computed
        by ``compute(previous)`` on first use after each change of the text.
        ``previous`` is the last value computed under ``key`` for an earlier
        text (None at first), from which ``compute`` may take what an edit
        left intact: a rule changes a few functions, not all of them."""
        if key not in self._derived:
            self._derived[key] = compute(self._previous.get(key))
        return self._derived[key]

    @property
    def masked(self):
        # a macro another file defines only for Python 2 (EXT2) decides too
        return self.derived("masked", lambda _: source.blank_python2(
            self.lexed.blanked, getattr(self.project, "python2_macros", ())))

    @property
    def lexed(self):
        """source.lex of the current text: lexed again from the last text
        lexed, around the edits since (most rules change a few lines)."""
        return self.derived("lexed", self._lex)

    def _lex(self, previous):
        changes, self._changes = self._changes, []
        at = next((i for i, (text, _) in enumerate(changes) if previous and text is previous.text), None)
        if at is None or any(edits is None for _, edits in changes[at:]):
            return source.lex(self.text)
        lexed = previous
        for _, edits in changes[at:]:
            lexed = source.relex(lexed, edits)
        # the text itself, so that the next edit finds it in _changes
        return source.Lexed(self.text, lexed.blanked, lexed.starts, lexed.ends)

    @property
    def structure(self):
        return self.derived("structure", lambda _: source.structure_mask(self.text, self.masked))

    def functions(self):
        """The functions of the current text (source.find_functions), found
        once per text; each call gets its own copies to change."""
        _, found = self.derived("functions", self._find_functions)
        return [f.moved(0) for f in found]

    def _find_functions(self, previous):
        """(functions by top-level item, functions): the items unchanged
        since ``previous`` keep their functions."""
        by_item = {}
        found = source.find_functions(self.structure, memo=(previous[0] if previous else {}, by_item))
        return by_item, found

    # ---- helpers for rules ----
    def apply(self, edits):
        """Apply ``edits`` (made on the current text), keeping the positions
        of notes in step so that they point at the right output line."""
        self.set_text(edits.apply(self.text), tuple(edits.done))
        for n in self.notes:
            if n.pos is not None:
                n.pos = edits.map_position(n.pos)

    def finish_notes(self):
        """Give every note the line of its position in the final text."""
        for n in self.notes:
            if n.pos is not None:
                n.line = source.line_of(self.text, n.pos)
        return self.notes

    def sub(self, pattern, repl, flags=0, span=None):
        """Replace matches of ``pattern`` found on the masked text.
        ``repl(match, text)`` gets the match (on the mask) and the real
        text, and returns the replacement or None to keep the match.
        Returns the number of replacements."""
        edits = source.Edits()
        masked = self.masked
        start, end = span or (0, len(masked))
        for m in _compiled(pattern, flags).finditer(masked, start, end):
            new = repl(m, self.text)
            if new is not None and new != self.text[m.start():m.end()]:
                edits.add(m.start(), m.end(), new)
        if edits:
            self.apply(edits)
        return edits.applied

    def note(self, kind, pos, message, rule=""):
        """Record a note at a position of the current text (kept in step
        with later edits, see apply())."""
        self.notes.append(Note(kind, self.path, 0, message, rule, pos))

    def leftover(self, pos, message, rule=""):
        self.note("leftover", pos, message, rule)


def translate(unit, rules):
    """Apply ``rules`` to ``unit`` in order; record per-rule counts."""
    for rule in rules:
        if not rule.applies_to(unit):
            continue
        n = rule.apply(unit)
        if n:
            unit.counts[rule.name] += n
    return unit
