"""The calling conventions of CYSTCK_DEF_METH are written once, in
cystck/apitable.py (``conv`` lines: the stock ml_flags each stands for and
its implementation's signature): the translator reads the Role of a method
(project.method_role) and the parameters of a forwarder it writes
(rules.tables.CONV_PARAMS) from it.  The header's prototype and flags of
each convention are generated from it (autogen_slots.h); what stays
hand-written is checked against it here: the reading of a stock method's
flags (which convention, which stock parameter each of the
implementation's stands for)."""
import pathlib
import re

import pytest

import cystck
from cystck import gen_api
from cystck.migrate import api, project
from cystck.migrate.rules import tables

INCLUDE = pathlib.Path(cystck.get_include())


def _conventions():
    return [d for d in gen_api.parse_definitions() if d.kind == "conv"]


def test_the_translator_reads_the_table_s_conventions():
    assert list(api.conventions()) == [d.name for d in _conventions()]
    assert len(api.conventions()) == 4


def test_the_header_gives_each_convention_the_table_s_prototype_and_stock_flags():
    """Generated (autogen_slots.h): the header defines them nowhere else."""
    generated = (INCLUDE / "cystck" / "autogen_slots.h").read_text()
    defs = (INCLUDE / "cystck" / "defs.h").read_text()
    for d in _conventions():
        m = re.search(r"^#define _CYSTCK_FLAGS_%s\s+(.+)$" % d.name, generated, re.M)
        assert m, d.name
        assert set(re.findall(r"METH_\w+", m.group(1))) == set(d.stock.split("|")), d.name
        m = re.search(r"^#define _CYSTCK_PROTO_%s\(IMPL\) (.+)$" % d.name, generated, re.M)
        assert m and m.group(1) == d.signature.replace(" f(", " IMPL("), d.name
        assert not re.search(r"#define _CYSTCK_(?:FLAGS|PROTO)_%s\b" % d.name, defs), d.name


@pytest.mark.parametrize("fast", [True, False])
def test_a_method_with_a_convention_s_stock_flags_has_its_signature(fast):
    for d in _conventions():
        flags = d.stock if fast else d.stock.replace("METH_FASTCALL", "METH_VARARGS")
        role = project.method_role(flags)
        assert role is not None and role.kind == "meth" and role.detail == d.name, flags
        ret, params = d.implementation()
        assert params[0] == ("Cystck_State *", "S") and role.state
        assert role.ret == ret and role.pushes
        assert [(t, n) for t, _, n in role.params] == params[1:], flags
        assert tables.CONV_PARAMS[d.name] == tuple(
            f"{t} {n}".replace("* ", "*") for t, n in params[1:]), d.name
        # the stock parameters, in order; a tuple-taking method's nargs is
        # counted by the trampoline
        stock = [i for _, i, _ in role.params if i is not None]
        assert stock == list(range(len(stock))), flags
        counted = [n for _, i, n in role.params if i is None]
        assert counted == ([] if fast or "nargs" not in [n for _, n in params] else ["nargs"]), flags


@pytest.mark.parametrize("flags, conv, params", [
    ("METH_NOARGS", "CYSTCK_NOARGS", (("Cystck_Object", 0, "self"),)),
    ("METH_O | METH_COEXIST", "CYSTCK_O", (("Cystck_Object", 0, "self"), ("Cystck_Object", 1, "arg"))),
    ("METH_VARARGS", "CYSTCK_VARARGS",
     (("Cystck_Object", 0, "self"), ("const Cystck_Object *", 1, "args"), ("Cystck_ssize_t", None, "nargs"))),
    ("METH_FASTCALL", "CYSTCK_VARARGS",
     (("Cystck_Object", 0, "self"), ("const Cystck_Object *", 1, "args"), ("Cystck_ssize_t", 2, "nargs"))),
    ("METH_VARARGS | METH_KEYWORDS | METH_CLASS", "CYSTCK_KEYWORDS",
     (("Cystck_Object", 0, "self"), ("const Cystck_Object *", 1, "args"), ("Cystck_ssize_t", None, "nargs"),
      ("Cystck_Object", 2, "kw"))),
    ("METH_FASTCALL|METH_KEYWORDS", "CYSTCK_KEYWORDS",
     (("Cystck_Object", 0, "self"), ("const Cystck_Object *", 1, "args"), ("Cystck_ssize_t", 2, "nargs"),
      ("Cystck_Object", 3, "kw"))),
    # no convention flag: the positional arguments, in a tuple
    ("0", "CYSTCK_VARARGS",
     (("Cystck_Object", 0, "self"), ("const Cystck_Object *", 1, "args"), ("Cystck_ssize_t", None, "nargs"))),
    # two conventions' flags: the first of the table's wins
    ("METH_NOARGS | METH_O", "CYSTCK_NOARGS", (("Cystck_Object", 0, "self"),)),
    ("METH_O | METH_KEYWORDS", "CYSTCK_O", (("Cystck_Object", 0, "self"), ("Cystck_Object", 1, "arg"))),
])
def test_a_method_role_read_from_stock_flags(flags, conv, params):
    role = project.method_role(flags)
    assert role == project.Role("meth", conv, params, ret="int", pushes=True)


@pytest.mark.parametrize("flags", ["METH_METHOD | METH_FASTCALL | METH_KEYWORDS", "METH_VARARGS | METH_UNKNOWN"])
def test_a_method_with_a_flag_of_no_convention_has_no_role(flags):
    assert project.method_role(flags) is None
