"""The list of type slots is written once, in cystck/apitable.py: the
header's list (include/cystck/autogen_slots.h) is generated from it and the
translator reads its signatures (project.slot_signatures()).  What stays
hand-written is checked against it here: the trampolines of
include/cystck/defs.h that the table names, and the translator's reading of
a signature (which parameters stand for which stock ones, which slots
return a push count)."""
import pathlib
import re

import pytest

import cystck
from cystck import gen_api
from cystck.migrate import api, project

INCLUDE = pathlib.Path(cystck.get_include())


def _headers():
    return {p.name: p.read_text() for p in sorted(INCLUDE.rglob("*.h"))}


def test_only_the_generated_header_lists_the_slots():
    defining = sorted(name for name, text in _headers().items()
                      if re.search(r"^#\s*define\s+_CYSTCK_SLOTKIND_\w+", text, re.M))
    assert defining == ["autogen_slots.h"]


def _trampoline_returns():
    """Trampoline kind -> the C type its CPython-facing function returns
    (defs.h's ``_CYSTCK_KIND_FN``), or None for a kind without one of its
    own (a value of self, traverse)."""
    fn = re.compile(r"^#define _CYSTCK_(\w+)_FN\(ATTR, FN, IMPL, ROOM\)\s*\\\s*\n"
                    r"\s*ATTR static (\w+ ?\**)\s*FN\(", re.M)
    return {m.group(1): " ".join(m.group(2).split()) for m in fn.finditer(_headers()["defs.h"])}


def test_every_slot_names_a_trampoline_of_the_header():
    defs = _headers()["defs.h"]
    for d in gen_api.slots():
        assert re.search(r"^#define _CYSTCK_%s\(SYM, IMPL\)" % d.trampoline, defs, re.M), d.name


def test_the_translator_pushes_where_the_trampoline_returns_an_object():
    """A slot whose trampoline returns ``PyObject *`` takes a push count from
    its implementation: the translator, which reads that from the stock
    slot type, must say so (``return x;`` becomes ``Cystck_Return``)."""
    returns = _trampoline_returns()
    signatures = project.slot_signatures()
    assert len(signatures) > 50
    for name, sig in signatures.items():
        kind = api.slots()[name].trampoline
        assert sig["pushes"] == (returns.get(kind) == "PyObject *"), name


def test_the_translator_reads_each_signature_as_the_table_writes_it():
    for d in gen_api.slots():
        role = project.slot_role(d.name)
        assert role is not None, d.name
        ret, params = d.implementation()
        assert role.ret == ret, d.name
        c_params = params[1:] if role.state else params
        assert [(t, n) for t, _, n in role.params] == c_params, d.name
        if d.name in project.SPECIAL_SLOTS:
            continue
        # the stock parameters, in order, nargs (counted by the trampoline) aside
        stock = [i for _, i, _ in role.params if i is not None]
        assert stock == list(range(len(stock))), d.name
        assert [n for _, i, n in role.params if i is None] in ([], ["nargs"]), d.name


def test_a_signature_read_from_a_table_line():
    line = gen_api.parse_definitions(
        "slot tp_new ~ newfunc [NEW] : int f(Cystck_State *S, Cystck_Object type, "
        "const Cystck_Object *args, Cystck_ssize_t nargs, Cystck_Object kw) ; doc")[0]
    assert line.trampoline == "NEW" and line.stock == "newfunc"
    assert project._slot_signature(line) == dict(
        params=(("Cystck_Object", 0, "type"), ("const Cystck_Object *", 1, "args"),
                ("Cystck_ssize_t", None, "nargs"), ("Cystck_Object", 2, "kw")),
        ret="int", pushes=True)
    line = gen_api.parse_definitions(
        "slot sq_ass_item ~ ssizeobjargproc [SSIZEOBJARG] : int f(Cystck_State *S, "
        "Cystck_Object self, Cystck_ssize_t i, Cystck_Object value) ; doc")[0]
    assert project._slot_signature(line)["pushes"] is False


def test_a_slot_line_without_its_trampoline_is_an_error():
    with pytest.raises(ValueError, match="trampoline"):
        gen_api.parse_definitions("slot tp_repr ~ reprfunc : int f(Cystck_State *S, Cystck_Object self) ; doc")
