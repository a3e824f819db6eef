"""A unit's comments and literals are lexed again after an edit only around
the edit (source.relex), and come out exactly as lexing the whole new text
does (issue #19: the translator's time per file)."""
import random

import pytest

from cystck.migrate import engine, project as proj, source

TEXT = r'''#include <Python.h>
/* a comment
   over two lines */
#define GREETING "hello, \
world"  /* a comment ending a directive \
           continued */
static const char *s = "a \"quoted\" string"; // a line comment
static char c = '\'';
static PyObject *f(PyObject *self, PyObject *args)
{
    const wchar_t *w = L"wide";   /* after a wide string */
    const char *u = u8"utf-8";
    return PyUnicode_FromString("/* not a comment */");
}
'''

# Edits that open, close, extend or split comments and literals, or join
# lines to a directive: what the lexing of the lines after them depends on.
SNIPPETS = ['"', "'", "/*", "*/", "//", "\n", "\\\n", "\\", "#define X ", " ", "x", 'L"', 'u8"',
            "/* a\n b */", '"abc"', "\n#", ""]


def _same(got, text):
    want = source.lex(text)
    assert got.text == text
    assert (got.blanked, got.starts, got.ends) == (want.blanked, want.starts, want.ends)


@pytest.mark.parametrize("edit", [
    (TEXT.index("world"), TEXT.index("world"), '"'),          # closes the string early
    (TEXT.index("*/"), TEXT.index("*/") + 2, ""),             # the comment now runs on
    (TEXT.index("// a line"), TEXT.index("// a line") + 2, "/*"),
    (TEXT.index("\\\nworld"), TEXT.index("\\\nworld") + 1, ""),   # the directive ends a line earlier
    (0, 0, "/* "),
    (len(TEXT), len(TEXT), "// at the end"),
    (TEXT.index("return"), TEXT.index("return"), "'"),
])
def test_an_edit_that_changes_what_follows_is_lexed_as_the_whole_text_is(edit):
    lexed = source.lex(TEXT)
    _same(source.relex(lexed, [edit]), source.relex(lexed, [edit]).text)
    _same(source.relex(lexed, [edit]), TEXT[:edit[0]] + edit[2] + TEXT[edit[1]:])


def test_random_edits_are_lexed_as_the_whole_text_is():
    rng = random.Random(19)
    text = TEXT * 3
    lexed = source.lex(text)
    for _ in range(300):
        points = sorted(rng.sample(range(len(lexed.text) + 1), 2 * rng.randint(1, 6)))
        edits = [(a, min(b, a + rng.randint(0, 6)),
                  "".join(rng.choice(SNIPPETS) for _ in range(rng.randint(0, 3))))
                 for a, b in zip(points[0::2], points[1::2])]
        got = source.relex(lexed, edits)
        _same(got, source.lex(got.text).text)
        lexed = got


def test_a_raw_string_is_lexed_with_the_whole_text():
    # where a raw string literal ends depends on text arbitrarily far on
    text = 'const char *r = R"x(a /* b )x";\nint y; /* c */\n'
    lexed = source.lex(text)
    at = text.index("int")
    got = source.relex(lexed, [(at, at, ')x" ')])
    _same(got, text[:at] + ')x" ' + text[at:])


def test_a_unit_lexes_again_only_the_lines_around_an_edit(monkeypatch):
    text = TEXT + "".join(f'static const char *s{i} = "{i}"; /* {i} */\n' for i in range(50))
    unit = engine.Unit("m.c", text, proj.build({"m.c": text}))
    assert unit.masked == source.mask(text)
    blanked = []
    real = source._blanked
    monkeypatch.setattr(source, "_blanked", lambda t, m: blanked.append(m.group()) or real(t, m))
    edits = source.Edits()
    at = text.index("s25 =")
    edits.add(at, at + 3, "renamed")
    unit.apply(edits)
    masked = unit.masked
    assert blanked == ['"25"', "/* 25 */"]
    assert masked == source.mask(unit.text)
