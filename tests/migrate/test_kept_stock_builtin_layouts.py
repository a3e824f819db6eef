"""A struct that extends a builtin type's instance struct by value (a str
subclass with fields of its own: multidict 6.7.1's istr) has no Cystck
counterpart: its file, and every file compiled with it, is kept stock as a
whole (translate.kept_stock, reported), and the module's multi-phase init
is bridged (migrate/bridge.py).  Before, the struct was taken for a plain
struct whose object members are handles, and its casts of handles did not
compile (multidict: 8 of its 66 --check errors)."""
import pytest

from cystck.migrate import translate
from cystck.migrate.rules import escape

ISTR = (
    "#include <Python.h>\n"
    "typedef struct {\n    PyUnicodeObject str;\n    PyObject *canonical;\n} istrobject;\n"
    "static PyObject *istr_canonical(PyObject *self, PyObject *unused)\n{\n"
    "    return Py_NewRef(((istrobject *)self)->canonical);\n}\n")
MODULE = (
    "#include <Python.h>\n"
    '#include "istr.h"\n'
    "static PyObject *upper(PyObject *self, PyObject *o) { return PyObject_CallMethod(o, \"upper\", NULL); }\n"
    "static PyMethodDef methods[] = {{\"upper\", upper, METH_O, NULL}, {NULL, NULL, 0, NULL}};\n"
    "static int exec_mod(PyObject *m) { return PyModule_AddIntConstant(m, \"answer\", 42); }\n"
    "static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_mod}, {0, NULL}};\n"
    "static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, \"NAME\", \"The module.\", 0, methods, slots};\n"
    "PyMODINIT_FUNC PyInit_NAME(void) { return PyModuleDef_Init(&moddef); }\n")


def _translated(name="rt_kept_builtin"):
    return translate.translate_files({"istr.h": ISTR, "m.c": MODULE.replace("NAME", name)})


def test_a_builtin_layout_subtype_keeps_its_files_stock_and_is_reported():
    units = _translated()
    for path in ("istr.h", "m.c"):
        assert units[path].text.startswith(escape.KEPT_MARK)
    assert "Cystck_Object" not in units["istr.h"].text
    reasons = [n.message for n in units["istr.h"].notes if n.rule == "kept-stock"]
    assert reasons and "'istrobject' extends the instance struct of a builtin type (PyUnicodeObject)" \
        in reasons[0]
    assert "CYSTCK_MODINIT(rt_kept_builtin)" in units["m.c"].text


def test_a_kept_file_including_python_h_in_quotes_is_bridged():
    """``#include "Python.h"`` (zope.i18nmessageid 8.4's spelling) is the
    include the bridge replaces with Cystck.h as ``<Python.h>`` is: the
    init is bridged (before, the mask blanked the quoted name as a string,
    and the init was kept stock, reported "neither its file nor a kept
    header it includes includes Python.h").  (Negative: the include in a
    comment is none: with no other, the init stays stock, reported.)"""
    quoted = {"istr.h": ISTR.replace("<Python.h>", '"Python.h"'),
              "m.c": MODULE.replace("NAME", "q").replace("<Python.h>", '"Python.h"')}
    units = translate.translate_files(quoted)
    assert "CYSTCK_MODINIT(q)" in units["m.c"].text
    assert '#include <Cystck.h>' in units["m.c"].text
    commented = {p: t.replace('#include "Python.h"', '/* #include "Python.h" */') for p, t in quoted.items()}
    units = translate.translate_files(commented)
    assert "CYSTCK_MODINIT(q)" not in units["m.c"].text
    assert [n for n in units["m.c"].notes if "neither its file nor a kept header" in n.message]


@pytest.mark.parametrize("first_member", [
    "PyObject_HEAD",                 # the object head
    "PyObject ob_base;",             # the object head spelled out
    "PyVarObject ob_base;",
    "PyUnicodeObject *str;",         # a pointer, not the layout
    "PyDateTime_CAPI api;",          # a struct of datetime.h that is no object
])
def test_structs_that_extend_no_builtin_layout_are_translated(first_member):
    units = translate.translate_files({"istr.h": ISTR.replace("PyUnicodeObject str;", first_member),
                                       "m.c": MODULE.replace("NAME", "plain")})
    for unit in units.values():
        assert not unit.text.startswith(escape.KEPT_MARK)
    assert "Cystck_State *S" in units["m.c"].text


@pytest.fixture(scope="module")
def kept(build, tmp_path_factory):
    name = "rt_kept_builtin"
    tmp = tmp_path_factory.mktemp(name)
    for path, unit in _translated(name).items():
        (tmp / path).write_text(unit.text)
    return name, build(name, [tmp / "m.c"], include_dirs=[str(tmp)])


CALLS = "assert m.upper('a') == 'A' and m.answer == 42 and m.__doc__ == 'The module.'\n"


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_the_kept_module_with_multi_phase_init_builds_and_behaves(kept, run_script, debug):
    assert run_script(CALLS + "print(True)\n", kept[1], debug=debug) is True
