"""A module whose boilerplate is written with the project's own macros,
defined in its header: the method table behind an object-like macro
(``MOD_METHODS = {...};``, ``static PyMethodDef`` and a pasted name), the
module definition behind a function-like one (``MOD_DEF("doc");``), the
init behind ``MOD_INIT`` (``PyMODINIT_FUNC PASTE(PyInit_, MOD_NAME)(void)``,
a Python 2 twin in the ``#else``), its name pasted from ``MOD_NAME``,
which the compiler's command line defines (``-DMOD_NAME=...``), as
rjsmin 1.3.0's cext.h does.  The translator found neither the table nor
the init: the function was taken for a helper and the init got no
state.  The declaration-macros rule writes those uses out (and the
table-cast-macros rule the table's ``MOD_CFUNC(twice)``, a macro that
only casts the function), the init's ``MOD_ERROR(MARK(NULL))`` and
``MOD_ERROR(module)`` (through ``MOD_ADD_INT(m, ...)``) lose their
``Py_XDECREF(module)`` (a handle or a null pointer; the decref rule),
``twice``'s ``Py_INCREF(o)`` of its parsed argument, released later, is
``o = Cystck_Dup(S, o)`` (the incref rule; dropping the argument itself
is an error in debug mode), and the init
becomes ``CYSTCK_MODINIT(MOD_NAME)``, which pastes the command line's
value as the stock macro does.  Stock and translated builds answer alike,
in release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.build import build_extension
from cystck.migrate import translate

HEADER = (
    "#ifndef DECL_H\n#define DECL_H\n"
    "#ifndef MOD_NAME\n#error MOD_NAME must be defined on the command line\n#endif\n"
    "#include <Python.h>\n"
    "#define PASTE(a, b) PASTE_(a, b)\n#define PASTE_(a, b) a##b\n"
    "#define STR(n) STR_(n)\n#define STR_(n) #n\n"
    "#define MOD_METHODS_VAR PASTE(var, PASTE(MOD_NAME, _methods))\n"
    "#define MOD_METHODS static PyMethodDef MOD_METHODS_VAR[]\n"
    "#define MOD_DEF_VAR PASTE(var, PASTE(MOD_NAME, _def))\n"
    "#define MOD_DEF(doc) \\\n"
    "static struct PyModuleDef MOD_DEF_VAR = { \\\n"
    "    PyModuleDef_HEAD_INIT, STR(MOD_NAME), doc, -1, MOD_METHODS_VAR \\\n"
    "}\n"
    "#if PY_MAJOR_VERSION >= 3\n"
    "#define MOD_INIT PyMODINIT_FUNC PASTE(PyInit_, MOD_NAME)(void)\n"
    "#else\n"
    "#define MOD_INIT void PASTE(init, MOD_NAME)(void)\n"
    "#endif\n"
    "#define MOD_CREATE(def) (PyModule_Create(def))\n"
    "#define MOD_CFUNC(f) ((PyCFunction)(void (*)(void))(f))\n"
    "#define MARK(x) (x)\n"
    "#define MOD_ERROR(module) do { Py_XDECREF(module); return NULL; } while (0)\n"
    "#define MOD_ADD_INT(module, name, v) do { \\\n"
    "    if (PyModule_AddIntConstant(module, name, v) < 0) \\\n"
    "        MOD_ERROR(module); \\\n"
    "} while (0)\n"
    "#endif\n")
MODULE = (
    '#include "decl.h"\n'
    "MOD_INIT;\n"
    "static PyObject *\ntwice(PyObject *self, PyObject *args, PyObject *kwds)\n{\n"
    "    static char *kwlist[] = {\"o\", NULL};\n    PyObject *o, *r;\n"
    "    if (!PyArg_ParseTupleAndKeywords(args, kwds, \"O\", kwlist, &o))\n        return NULL;\n"
    "    if (PyFloat_Check(o)) {\n        if (!(o = PyNumber_Long(o)))\n            return NULL;\n    }\n"
    "    else\n        Py_INCREF(o);\n"
    "    r = PyNumber_Add(o, o);\n    Py_DECREF(o);\n    return r;\n}\n"
    "MOD_METHODS = {\n"
    "    {\"twice\", MOD_CFUNC(twice), METH_VARARGS | METH_KEYWORDS, NULL},\n"
    "    {NULL}\n};\n"
    "MOD_DEF(\"The module.\");\n"
    "MOD_INIT {\n"
    "    PyObject *m;\n"
    "    if (!(m = MOD_CREATE(&MOD_DEF_VAR)))\n        MOD_ERROR(MARK(NULL));\n"
    "    MOD_ADD_INT(m, \"answer\", 42);\n"
    "    if (PyModule_AddStringConstant(m, \"name\", STR(MOD_NAME)) < 0) {\n"
    "        Py_DECREF(m);\n        return NULL;\n    }\n"
    "    return m;\n}\n")
NAME = "rt_decl_macros"


def _translated():
    return translate.translate_files({"decl.h": HEADER, "m.c": MODULE})


def test_the_table_definition_and_init_are_found():
    text = _translated()["m.c"].text
    assert "CYSTCK_MODINIT(MOD_NAME)" in text
    assert "CystckDef *MOD_METHODS_VAR[]" in text and "CYSTCK_DEF_METH(twice_def" in text
    assert "CystckModuleDef MOD_DEF_VAR" in text
    assert "PyArg_ParseTupleAndKeywords" not in text
    assert "/* MOD_INIT, expanded by cystck-migrate */" in text


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    tmp = tmp_path_factory.mktemp(NAME)
    stock, ported = tmp / "stock", tmp / "cystck"
    stock.mkdir()
    ported.mkdir()
    (stock / "decl.h").write_text(HEADER)
    (stock / "m.c").write_text(MODULE)
    for path, unit in _translated().items():
        (ported / path).write_text(unit.text)
    flags = dict(define_macros=[("MOD_NAME", NAME)])
    return (build_extension(NAME, [stock / "m.c"], tmp / "build-stock", use_cystck=False,
                            include_dirs=[str(stock)], **flags),
            build_extension(NAME, [ported / "m.c"], tmp / "build-cystck", include_dirs=[str(ported)], **flags))


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_stock_and_translated_behave_alike(builds, run_script, debug):
    script = ("print((m.twice(21), m.twice(o='ab'), m.twice(2.5), m.__doc__, m.name, m.__name__, m.answer,"
              " outcome(m.twice), outcome(m.twice, 1, p=2)))\n")
    stock, ported = builds
    want = run_script(script, stock)
    assert want[:7] == (42, "abab", 4, "The module.", NAME, NAME, 42)
    assert run_script(script, ported, debug=debug) == want
