"""The init of a module kept stock as a whole, in a file that includes
Python.h only through a header of its own (``#include "mod.h"``, which
includes Python.h): the bridge writes the Cystck init where Cystck.h
replaces Python.h, and found no such line in the init's file, so the init
stayed stock (hiredis 3.5.0: nothing of it used Cystck).  The header the
file includes, kept stock with it, now takes Cystck.h in its place.
Stock and bridged builds answer alike, in release and with
CYSTCK_DEBUG=1."""
import pytest

from cystck.migrate import translate
from cystck.migrate.rules import escape

HEADER = (
    "#ifndef MOD_H\n#define MOD_H\n"
    "#include <Python.h>\n"
    "typedef struct {\n    PyListObject list;\n    long extra;\n} TaggedList;\n"
    "#endif\n")
MODULE = (
    '#include "mod.h"\n'
    "static PyObject *twice(PyObject *self, PyObject *o) { return PyNumber_Add(o, o); }\n"
    "static PyMethodDef methods[] = {{\"twice\", twice, METH_O, NULL}, {NULL, NULL, 0, NULL}};\n"
    "static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, \"NAME\", \"The module.\", -1, methods};\n"
    "PyMODINIT_FUNC PyInit_NAME(void)\n{\n"
    "    PyObject *m = PyModule_Create(&moddef);\n"
    "    if (m && PyModule_AddIntConstant(m, \"size\", (long)sizeof(TaggedList)) < 0) {\n"
    "        Py_DECREF(m);\n        return NULL;\n    }\n"
    "    return m;\n}\n")


def _translated(name):
    return translate.translate_files({"mod.h": HEADER, "m.c": MODULE.replace("NAME", name)})


def test_the_init_is_bridged_through_the_header():
    units = _translated("rt_kept_via_header")
    for path in ("mod.h", "m.c"):
        assert units[path].text.startswith(escape.KEPT_MARK)
    assert "#include <Cystck.h>" in units["mod.h"].text and "Python.h" not in units["mod.h"].text
    assert "CYSTCK_MODINIT(rt_kept_via_header)" in units["m.c"].text
    assert "PyInit_rt_kept_via_header__stock" in units["m.c"].text
    assert not [n for n in units["m.c"].notes if "module init of 'rt_kept_via_header' kept stock" in n.message]


@pytest.fixture(scope="module")
def built(build, tmp_path_factory):
    name = "rt_kept_via_header"
    tmp = tmp_path_factory.mktemp(name)
    for path, unit in _translated(name).items():
        (tmp / path).write_text(unit.text)
    return build(name, [tmp / "m.c"], include_dirs=[str(tmp)])


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_the_bridged_module_builds_and_behaves(built, run_script, debug):
    script = ("import sys\nassert m.twice(21) == 42 and m.twice('ab') == 'abab' and m.__doc__ == 'The module.'\n"
              "assert m.size > 0\nprint(True)\n")
    assert run_script(script, built, debug=debug) is True
