"""Statically allocated objects: ``PyObject marker_obj = {
_PyObject_EXTRA_INIT 1, &MarkerType };`` (or ``{ PyObject_HEAD_INIT(&MarkerType)
}``), an instance of one of the extension's static types that the
extension's code reaches only by its address (``&marker_obj``, often
through an object-like macro, ``#define marker (&marker_obj)``).

Cystck has no object outside the heap: every object is made by the
runtime.  Such an object becomes what stock code writes when it makes a
singleton at init, a global ``PyObject *marker_obj = NULL;`` set where its
type is readied, ``if ((marker_obj = PyType_GenericAlloc(&MarkerType, 0))
== NULL)`` followed by what the readying does on failure (an instance no
``tp_new``/``tp_init`` ran for, as the static one); its address becomes the
pointer, and each object-like macro naming it is written out at its uses,
so that the rules port it as any global reference (a ``Cystck_Ref`` made
once at init, never released, as the static object never dies).

The rewrite is on the stock text of every file of the extension, before
the project is built (translate.py), and again by the ``static-objects``
rule on each file (rules/modules.py), as function-macros does.  An
object named otherwise than by its address, one whose type is not the
extension's, or one whose type is readied nowhere in a checked ``if``
is left as it is."""
import regex

from . import source

# ``PyObject marker_obj = { _PyObject_EXTRA_INIT 1, &T };`` or ``{ PyObject_HEAD_INIT(&T) }``
_DEFINITION = regex.compile(
    r"^(?P<lead>[ \t]*(?:static[ \t]+)?)PyObject\s+(?P<name>[A-Za-z_]\w*)\s*=\s*\{\s*"
    r"(?:(?:_PyObject_EXTRA_INIT\s*)?1\s*,\s*(?:\(\s*PyTypeObject\s*\*\s*\)\s*)?&\s*(?P<t>\w+)\s*,?"
    r"|PyObject_HEAD_INIT\s*\(\s*(?:\(\s*PyTypeObject\s*\*\s*\)\s*)?&\s*(?P<t2>\w+)\s*\)\s*,?)\s*\}\s*;", regex.M)
_OBJECT_MACRO = regex.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>[A-Za-z_]\w*)(?![\w(])(?P<body>(?:[^\n\\]|\\.)*)$",
                              regex.M | regex.S)
_TYPE_DEFINITION = r"\bPyTypeObject\s+{t}\s*=\s*\{{"
_READY = r"\bPyType_Ready\s*\(\s*(?:\(\s*PyTypeObject\s*\*\s*\)\s*)?&\s*{t}\s*\)"


class StaticObjects:
    """What ``find`` found: ``objects`` (name -> its type object) and
    ``macros`` (object-like macro -> its body, every such macro in it
    written out, one line)."""

    def __init__(self, objects=None, macros=None):
        self.objects = objects or {}
        self.macros = macros or {}

    def __bool__(self):
        return bool(self.objects)


def _uses(masked, name):
    """The uses of identifier ``name`` in ``masked``, outside directives
    that name a macro (``#define``/``#undef``/``#ifdef``/``defined``) and
    member names (``p->name``)."""
    for m in regex.finditer(r"(?<![\w.>])\b" + regex.escape(name) + r"\b", masked):
        line = masked[masked.rfind("\n", 0, m.start()) + 1:m.start()]
        if regex.fullmatch(r"[ \t]*#[ \t]*(?:define|undef|ifdef|ifndef)[ \t]+", line) or \
                regex.search(r"\bdefined\s*\(?\s*$", line) or regex.search(r"->\s*$", line):
            continue
        yield m


def find(files):
    """The statically allocated objects of ``files`` (path -> stock text)
    that can be made at init, and the object-like macros to write out."""
    masked = {p: source.mask(t) for p, t in files.items()}
    candidates = {}
    for path, code in masked.items():
        for m in _DEFINITION.finditer(code):
            candidates[m.group("name")] = m.group("t") or m.group("t2")
    objects = {}
    for name, t in candidates.items():
        typed = any(regex.search(_TYPE_DEFINITION.format(t=regex.escape(t)), c) for c in masked.values())
        ready = any(_ready_statement(c, t) for c in masked.values())
        if not typed or not ready:
            continue
        # every use is its address (or the definition, or an extern declaration)
        ok = True
        for code in masked.values():
            for m in _uses(code, name):
                before = code[:m.start()]
                if regex.search(r"&\s*(?:\(\s*)?$", before) and not regex.search(r"&&\s*(?:\(\s*)?$", before):
                    continue
                if regex.search(r"\bPyObject\s+$", before):
                    continue
                ok = False
        if ok:
            objects[name] = t
    if not objects:
        return StaticObjects()
    # object-like macros naming one, directly or through another such macro
    defs = {}
    for path, code in masked.items():
        for m in _OBJECT_MACRO.finditer(code):
            body = files[path][m.start("body"):m.end("body")]
            defs.setdefault(m.group("name"), " ".join(body.replace("\\\n", " ").split()))
    macros = {}
    names = set(objects)
    changed = True
    while changed:
        changed = False
        for macro, body in defs.items():
            if macro not in macros and regex.search(r"\b(?:" + "|".join(map(regex.escape, sorted(names))) + r")\b",
                                                    body):
                macros[macro] = body
                names.add(macro)
                changed = True
    for macro in macros:
        body = macros[macro]
        for _ in range(len(macros)):
            new = regex.sub(r"\b(?:" + "|".join(map(regex.escape, sorted(macros))) + r")\b",
                            lambda u: macros[u.group()], body)
            if new == body:
                break
            body = new
        macros[macro] = body
    return StaticObjects(objects, macros)


def _ready_statement(code, t):
    """(start of the ``if``, end of its condition, end of the statement)
    of the first ``if (...)`` whose condition readies ``t``, or None."""
    ready = regex.compile(_READY.format(t=regex.escape(t)))
    for m in regex.finditer(r"\bif\s*(?=\()", code):
        try:
            close = source.matching(code, m.end())
        except source.BraceError:
            continue
        if not ready.search(code, m.end(), close):
            continue
        end = source.statement_end(code, source.skip_blank(code, close, len(code)), len(code))
        if end is not None:
            return m.start(), close, end
    return None


def rewrite(text, found):
    """``text`` with the objects of ``found`` (a StaticObjects) made
    global pointers set at init; returns (new text, number of changes)."""
    if not found:
        return text, 0
    count = 0
    masked = source.mask(text)
    # 1. the macros written out at their uses, their definitions gone
    edits = source.Edits()
    for m in _OBJECT_MACRO.finditer(masked):
        if m.group("name") in found.macros:
            edits.add(m.start(), m.end(), f"/* cystck-migrate: {m.group('name')} (a statically allocated "
                                          f"object's address) is written out at its uses */")
    for macro, body in found.macros.items():
        for u in _uses(masked, macro):
            if not any(d.start() <= u.start() < d.end() for d in _OBJECT_MACRO.finditer(masked)
                       if d.group("name") in found.macros):
                edits.add(u.start(), u.end(), body)
    if edits:
        text = edits.apply(text)
        count += edits.applied
    # 2. the objects: definitions, declarations, addresses, made where their type is readied
    masked = source.mask(text)
    edits = source.Edits()
    for m in _DEFINITION.finditer(masked):
        name = m.group("name")
        if name in found.objects:
            edits.add(m.start(), m.end(), f"{m.group('lead')}PyObject *{name} = NULL;")
    names = "|".join(map(regex.escape, sorted(found.objects)))
    for m in regex.finditer(r"\bextern\s+PyObject\s+(?P<name>" + names + r")\s*;", masked):
        edits.add(m.start(), m.end(), f"extern PyObject *{m.group('name')};")
    for m in regex.finditer(r"(?:\(\s*PyObject\s*\*\s*\)\s*)?(?:\(\s*&\s*(?P<a>" + names + r")\s*\)"
                            r"|(?<!&)&\s*(?P<b>" + names + r")\b)", masked):
        edits.add(m.start(), m.end(), m.group("a") or m.group("b"))
    for name, t in sorted(found.objects.items()):
        where = _ready_statement(masked, t)
        if where is None:
            continue
        start, close, end = where
        action = text[source.skip_blank(masked, close, end):end]
        gap = text[close:source.skip_blank(masked, close, end)]
        indent = regex.match(r"[ \t]*", text[text.rfind("\n", 0, start) + 1:]).group()
        edits.add(end, end, f"\n{indent}if (({name} = PyType_GenericAlloc(&{t}, 0)) == NULL){gap}{action}")
    if edits:
        text = edits.apply(text)
        count += edits.applied
    return text, count
