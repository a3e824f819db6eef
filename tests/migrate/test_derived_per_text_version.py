"""What the engine derives from a unit's text (functions, function contexts)
is found again after an edit only where the edit changed the text, and is
then exactly what a fresh unit of the new text finds (issue #19: the
translator's time per file)."""
from cystck.migrate import engine, project as proj, source
from cystck.migrate.rules import _common

TEXT = """#include <Python.h>

static PyObject *first(PyObject *self, PyObject *args)
{
    PyObject *r = NULL;
    return r;
}

static PyObject *second(PyObject *self, PyObject *o)
{
    PyObject *t = o;
    char *kwlist[] = {"a", NULL};
    return t;
}
"""
# A line added to first(): second() is unchanged but moves.
EDITED = TEXT.replace("    return r;\n", "    Py_XINCREF(r);\n    return r;\n", 1)


def _unit(text):
    return engine.Unit("m.c", text, proj.build({"m.c": text}))


def _counting(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, counted)
    return calls


def test_contexts_after_an_edit_are_found_again_only_for_the_changed_function(monkeypatch):
    unit = _unit(TEXT)
    _common.function_contexts(unit)
    unit.set_text(EDITED)
    computed = _counting(monkeypatch, _common, "_context")
    after = _common.function_contexts(unit)
    assert [args[1].name for args in computed] == ["first"]
    assert after == _common.function_contexts(_unit(EDITED))
    second = after[1]
    assert second.func.name == "second" and EDITED[second.body[0]:second.body[1]].startswith("{\n    PyObject *t")
    assert second.scoped["t"][0][0] == EDITED.index("    PyObject *t")


def test_contexts_handed_out_are_copies():
    unit = _unit(TEXT)
    _common.function_contexts(unit)[0].handles.add("not_a_handle")
    assert "not_a_handle" not in _common.function_contexts(unit)[0].handles


def test_functions_after_an_edit_are_found_again_only_in_the_changed_item(monkeypatch):
    expected = source.find_functions(source.structure_mask(EDITED))
    unit = _unit(TEXT)
    unit.functions()
    unit.set_text(EDITED)
    scanned = _counting(monkeypatch, source, "_item_functions")
    assert unit.functions() == expected
    assert len(scanned) == 1 and "first(" in scanned[0][0] and "second(" not in scanned[0][0]


def test_an_unchanged_text_derives_nothing_again(monkeypatch):
    unit = _unit(TEXT)
    _common.function_contexts(unit)
    unit.set_text(TEXT)
    computed = _counting(monkeypatch, _common, "_contexts")
    masked = _counting(monkeypatch, source, "mask")
    _common.function_contexts(unit)
    assert unit.masked and not computed and not masked


def test_a_text_is_masked_once_however_many_helpers_mask_it():
    # The project pass, several rules and helpers mask each file's original
    # text again; the mask of a text is computed once and shared.
    text = TEXT + "/* " + "x" * 40 + " */\n"      # a text no other test masked
    first = source.mask(text)
    assert source.mask(text) is first
    assert source.mask(text[:-1] + "\n") is first          # an equal text, another object
    assert first.endswith(" " * 46 + "\n") and first.startswith(TEXT[:9])


def test_a_parameter_list_is_parsed_once_and_handed_out_as_copies(monkeypatch):
    # Function contexts are derived again after each rule that changes a
    # function, mostly with its parameter list unchanged and moved.
    searched = []
    pattern = _common._PARAM_NAME
    monkeypatch.setattr(_common, "_PARAM_NAME", type("Counted", (), {
        "search": lambda self, piece: searched.append(piece) or pattern.search(piece)})())
    code = "int f(PyObject *self, PyObject *args_seen_once);"
    start, end = code.index("(") + 1, code.index(")")
    first = _common.parse_params(code, start, end)
    moved = _common.parse_params("  " + code, start + 2, end + 2)
    assert [p.name for p in first] == ["self", "args_seen_once"] and len(searched) == 2
    assert [p.span[0] - 2 for p in moved] == [p.span[0] for p in first]
    first[0].name = "changed"
    assert _common.parse_params(code, start, end)[0].name == "self"


def test_a_function_head_is_judged_once_however_many_versions_have_it(monkeypatch):
    # top_level_items judges the head of every braced block of every
    # version of a text; an edit leaves most heads as they were.
    judged = []
    pattern = source._FUNC_HEAD
    monkeypatch.setattr(source, "_FUNC_HEAD", type("Counted", (), {
        "finditer": lambda self, head: judged.append(head) or pattern.finditer(head)})())
    text = TEXT.replace("first(", "first_judged_once(").replace("second(", "second_judged_once(")
    source.top_level_items(source.structure_mask(text))
    first = len(judged)
    source.top_level_items(source.structure_mask(text.replace("return r;", "return  r;")))
    assert first >= 2 and len(judged) == first
