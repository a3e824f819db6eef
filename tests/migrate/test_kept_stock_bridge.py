"""The boundary of the files kept stock as a whole (migrate/bridge.py): the
module's definition and init become Cystck, the init running the stock one
through the escape hatch, and each entry of a method table a Cystck method
lending its handles to the unchanged stock function.  Built and called, in
release and with CYSTCK_DEBUG=1."""
import pytest

from cystck.build import load_extension
from cystck.migrate import analysis, translate
from cystck.migrate.rules import escape

# A class template that is the instance layout of a type per instantiation
# (so its files stay stock), and macros that name the init after the module
# and make the module from a definition of the macro's own.
TEMPLATE_HEADER = (
    "#include <Python.h>\n"
    "#define MOD_DEF(ob, name, methods, doc) \\\n"
    "    static struct PyModuleDef moduledef = { \\\n"
    "        PyModuleDef_HEAD_INIT, name, doc, -1, methods}; \\\n"
    "    ob = PyModule_Create(&moduledef);\n"
    "#define MOD_INIT(name) PyMODINIT_FUNC PyInit_##name(void)\n"
    "#define MOD_FRIEND(name) PyObject *PyInit_##name(void)\n"
    "MOD_INIT(NAME);\n"
    "extern PyMethodDef functions[];\n"
    "template <typename T>\n"
    "class Vec {\n"
    "public:\n"
    "    static bool check(PyObject *o) { return Py_TYPE(o) == &pytype; }\n"
    "private:\n"
    "    PyObject_VAR_HEAD\n"
    "    T items[1];\n"
    "    static PyTypeObject pytype;\n"
    "    friend MOD_FRIEND(NAME);\n"
    "};\n")
FUNCTIONS = (
    "#include <Python.h>\n"
    '#include "vec.hh"\n'
    "namespace {\n"
    "PyObject *twice(PyObject *self, PyObject *args)\n{\n"
    "    long v;\n"
    '    if (!PyArg_ParseTuple(args, "l", &v))\n        return NULL;\n'
    "    return PyLong_FromLong(2 * v);\n}\n"
    'PyObject *hello(PyObject *self, PyObject *unused) { return PyUnicode_FromString("hello"); }\n'
    "PyObject *same(PyObject *self, PyObject *o) { Py_INCREF(o); return o; }\n"
    "PyObject *count(PyObject *self, PyObject *args, PyObject *kw)\n{\n"
    "    return PyLong_FromSsize_t(PyTuple_GET_SIZE(args) + (kw ? PyDict_Size(kw) : 0));\n}\n"
    "}\n"
    "PyMethodDef functions[] = {\n"
    '    {"twice", twice, METH_VARARGS, "Twice a number."},\n'
    '    {"hello", hello, METH_NOARGS},\n'
    '    {"same", (PyCFunction)same, METH_O, NULL},\n'
    "    {NULL, NULL, 0, NULL}\n"
    "};\n")
KEYWORDS_ENTRY = '    {"count", (PyCFunction)(void (*)(void))count, METH_VARARGS | METH_KEYWORDS, NULL},\n'
MODULE = (
    "#include <Python.h>\n"
    '#include "vec.hh"\n'
    "template <typename T> PyTypeObject Vec<T>::pytype = {\n"
    '    PyVarObject_HEAD_INIT(NULL, 0) "NAME.Vec", sizeof(Vec<T>), sizeof(T)};\n'
    'PyDoc_STRVAR(module_doc, "The module.");\n'
    "MOD_INIT(NAME)\n{\n"
    "    if (PyType_Ready(&Vec<long>::pytype) < 0)\n        return NULL;\n"
    "    PyObject *m;\n"
    '    MOD_DEF(m, "NAME", functions, module_doc)\n'
    "    if (m == NULL)\n        return NULL;\n"
    "    Py_INCREF(&Vec<long>::pytype);\n"
    '    PyModule_AddObject(m, "Vec_long", (PyObject *)&Vec<long>::pytype);\n'
    "    return m;\n}\n")


def _component(name="spam", functions=FUNCTIONS, module=MODULE, header=TEMPLATE_HEADER):
    files = {"vec.hh": header.replace("NAME", name), "funcs.cc": functions.replace("NAME", name),
             "m.cc": module.replace("NAME", name)}
    return files, translate.translate_files(files)


def _with_keywords(functions=FUNCTIONS):
    return functions.replace("    {NULL, NULL, 0, NULL}\n", KEYWORDS_ENTRY + "    {NULL, NULL, 0, NULL}\n")


def _bridge_notes(units):
    return {(n.path, n.line): n.message for u in units.values() for n in u.finish_notes()
            if n.rule == "kept-stock-bridge"}


def test_the_module_definition_init_and_method_table_of_kept_files_are_bridged():
    """Before: the kept files were stock as a whole; the module's init,
    definition and entry points used no Cystck.  After: each entry of the
    table is a Cystck method lending its handles to the stock function (the
    table holds its PyMethodDef); the stock init is renamed where the
    macros name it; a Cystck init makes the module from a Cystck definition
    (the stock one's name and doc, read through the macro, and the table's
    Cystck methods) and runs the stock init, whose PyModule_Create hands
    that module over.  Every spot is a reported left-over."""
    files, units = _component()
    header, funcs, module = (units[p].text for p in ("vec.hh", "funcs.cc", "m.cc"))
    assert "    ob = spam__cystck_module(&moduledef);\n" in header
    assert "#define MOD_INIT(name) PyMODINIT_FUNC PyInit_##name##__stock(void)" in header
    assert "#define MOD_FRIEND(name) PyObject *PyInit_##name##__stock(void)" in header
    assert funcs.startswith(f"{escape.KEPT_MARK} #include <Cystck.h>\n")
    assert 'CYSTCK_DEF_METH(functions__0_twice_def, "twice", functions__0_twice, CYSTCK_VARARGS, ' \
           '"Twice a number.")' in funcs
    assert ("    Cystck_Object tuple = CystckTuple_FromArray(S, args, nargs);\n"
            "    if (Cystck_IsNull(tuple))\n        return -1;\n"
            "    return functions__call_stock(S, twice, self, tuple);\n") in funcs
    assert "    return functions__call_stock(S, hello, self, Cystck_NULL);\n" in funcs
    assert "    return functions__call_stock(S, (PyCFunction)same, self, arg);\n" in funcs
    # the one escape hatch of the table: the handles lent, the result given a handle
    assert ("static int functions__call_stock(Cystck_State *S, PyCFunction f, Cystck_Object self, "
            "Cystck_Object arg)\n{\n"
            f"    return Cystck_Return(S, Cystck_FromNewPyObject(S, {escape.MARK} f(\n"
            "        Cystck_IsNull(self) ? NULL : Cystck_AsPyObject(S, self),\n"
            "        Cystck_IsNull(arg) ? NULL : Cystck_AsPyObject(S, arg))));\n}\n") in funcs
    assert funcs.count(escape.MARK) == 1
    assert ("CystckDef *funcs_cc_functions__cystck_defines[] = {\n    &functions__0_twice_def,\n"
            "    &functions__1_hello_def,\n    &functions__2_same_def,\n    NULL\n};\n") in funcs
    table = funcs[funcs.index("PyMethodDef functions[]"):]
    assert "    functions__0_twice_def.meth,\n    functions__1_hello_def.meth," in table
    assert module.startswith(f"{escape.KEPT_MARK} #include <Cystck.h>\n"
                             "static PyObject *spam__cystck_module(PyModuleDef *stock_def);")
    assert ("extern CystckDef *funcs_cc_functions__cystck_defines[];\n"
            'static CystckModuleDef spam__cystck_def = {"spam", module_doc, 0, '
            "funcs_cc_functions__cystck_defines};\n") in module
    assert ("CYSTCK_MODINIT(spam)\n{\n    Cystck_Object m = CystckModule_Create(S, &spam__cystck_def);\n"
            "    if (Cystck_IsNull(m))\n        return -1;\n"
            "    spam__cystck_made = Cystck_AsPyObject(S, m);\n"
            f"    Cystck_Object made = Cystck_FromNewPyObject(S, {escape.MARK} PyInit_spam__stock());\n") in module
    notes = _bridge_notes(units)
    for (path, line), message in notes.items():
        text = units[path].text.splitlines()[line - 1]
        if "entry 'twice' bridged" in message:
            assert text.startswith("CYSTCK_DEF_METH(functions__0_twice_def")
        elif "module init of 'spam' bridged" in message:
            assert text == "CYSTCK_MODINIT(spam)" and "Cystck definition" in message
    assert sum("bridged" in m for m in notes.values()) == 4     # 3 entries and the init
    assert all(analysis.analyse(u) == [] for u in units.values())


def test_a_module_definition_in_the_inits_own_file_is_bridged_too():
    """The definition, table and init of one file, the init named
    literally: the same bridge, without an extern declaration."""
    single = ("#include <Python.h>\ntemplate <typename T>\nclass Vec {\n    PyObject_VAR_HEAD\n"
              "    T items[1];\n    static PyTypeObject pytype;\n};\n")
    module = (FUNCTIONS.replace("PyMethodDef functions[]", "static PyMethodDef functions[]")
              + 'static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "one", NULL, -1, functions};\n'
              "PyMODINIT_FUNC PyInit_one(void)\n{\n    return PyModule_Create(&moddef);\n}\n")
    units = translate.translate_files({"vec.hh": single, "m.cc": module})
    out = units["m.cc"].text
    assert "PyMODINIT_FUNC PyInit_one__stock(void)\n{\n    return one__cystck_module(&moddef);\n}\n" in out
    assert "extern CystckDef" not in out
    assert 'static CystckModuleDef one__cystck_def = {"one", NULL, 0, m_cc_functions__cystck_defines};' in out


def test_what_the_bridge_cannot_lend_stays_stock_and_is_reported():
    """Negative: an entry with keywords keeps its stock function pointer,
    so its table is not whole in Cystck and the module keeps its stock
    definition (the init still bridged); both reported.  A module with a
    state keeps its stock definition too.  The stock code around the
    boundary and a class template's method table are left as they are."""
    _, units = _component(functions=_with_keywords())
    funcs, module = units["funcs.cc"].text, units["m.cc"].text
    assert KEYWORDS_ENTRY in funcs and "__cystck_defines" not in funcs
    assert "PyModule_Create(&moduledef)" in units["vec.hh"].text
    assert "CYSTCK_MODINIT(spam)\n{\n    return Cystck_Return(S, Cystck_FromNewPyObject(" \
           f"S, {escape.MARK} PyInit_spam__stock()));\n}}\n" in module
    notes = list(_bridge_notes(units).values())
    assert any('entry "count" kept stock' in n for n in notes)
    assert any("its module definition stays stock (its method table functions is not one table at "
               "file scope bridged whole)" in n for n in notes)
    stock_body = FUNCTIONS[FUNCTIONS.index("namespace {"):FUNCTIONS.index("PyMethodDef functions")]
    assert stock_body in funcs
    _, units = _component(header=TEMPLATE_HEADER.replace("-1, methods", "8, methods"))
    assert any("(it has a module state)" in n for n in _bridge_notes(units).values())
    assert "PyModule_Create(&moduledef)" in units["vec.hh"].text
    template_table = ("#include <Python.h>\ntemplate <typename T>\nstruct Box {\n    PyObject_HEAD\n"
                      "    static PyTypeObject pytype;\n    static PyMethodDef methods[];\n};\n"
                      "template <typename T> PyObject *get(PyObject *self, PyObject *unused);\n"
                      'template <typename T> PyMethodDef Box<T>::methods[] = {\n    {"get", get<T>, METH_NOARGS},\n'
                      "    {0, 0, 0, 0}\n};\n")
    unit = translate.translate_files({"box.cc": template_table})["box.cc"]
    assert unit.text == f"{escape.KEPT_MARK} {template_table}"


def test_tables_in_conditionals_and_files_not_kept_are_left_alone():
    """Negative: a table with an entry under #ifdef stays stock (reported);
    a file not kept stock has its table and init translated by the ordinary
    rules, not bridged."""
    conditional = FUNCTIONS.replace('    {"hello", hello, METH_NOARGS},\n',
                                    '#ifdef WITH_HELLO\n    {"hello", hello, METH_NOARGS},\n#endif\n')
    _, units = _component(functions=conditional)
    assert "_def.meth" not in units["funcs.cc"].text and "CYSTCK_MODINIT(spam)" in units["m.cc"].text
    assert any("'functions' kept stock: entries inside preprocessor conditionals" in n
               for n in _bridge_notes(units).values())
    plain = ("#include <Python.h>\n"
             "static PyObject *hello(PyObject *self, PyObject *unused) { return PyLong_FromLong(1); }\n"
             'static PyMethodDef functions[] = {{"hello", hello, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};\n'
             'static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "plain", NULL, -1, functions};\n'
             "PyMODINIT_FUNC PyInit_plain(void) { return PyModule_Create(&moddef); }\n")
    out = translate.translate_files({"plain.cc": plain})["plain.cc"].text
    assert "__stock" not in out and escape.MARK not in out and "_def.meth" not in out


CALLS = (
    "assert m.twice(21) == 42 and m.hello() == 'hello'\n"
    "o = object()\n"
    "assert m.same(o) is o and m.twice.__doc__ == 'Twice a number.'\n"
    "assert m.__doc__ == 'The module.' and isinstance(m.Vec_long, type)\n"
    "assert m.Vec_long.__name__ == 'Vec'\n"
    "assert not hasattr(m, 'count') or m.count(1, 2, a=3) == 3\n"
    "for bad in (('x',), ()):\n"
    "    try:\n        m.twice(*bad)\n    except TypeError:\n        pass\n"
    "    else:\n        raise AssertionError('no TypeError')\n")


def _build(build, tmp_path_factory, name, functions):
    _, units = _component(name, functions=functions)
    tmp = tmp_path_factory.mktemp(name)
    for path, unit in units.items():
        (tmp / path).write_text(unit.text)
    return build(name, [tmp / "funcs.cc", tmp / "m.cc"], include_dirs=[str(tmp)], language="c++")


@pytest.fixture(scope="module", params=["whole", "keywords"])
def bridged(request, build, tmp_path_factory):
    """The module with its definition bridged (whole), and with its stock
    definition (a keywords entry in its table)."""
    name = f"rt_kept_bridge_{request.param}"
    functions = FUNCTIONS if request.param == "whole" else _with_keywords()
    return name, _build(build, tmp_path_factory, name, functions)


def test_the_bridged_module_builds_and_behaves_as_stock(bridged):
    name, path = bridged
    m = load_extension(name, path)
    exec(CALLS, {"m": m})
    assert hasattr(m, "count") == name.endswith("keywords")


def test_the_bridged_module_behaves_with_debug_checks(bridged, run_script):
    _, path = bridged
    assert run_script(CALLS + "print(True)\n", path, debug=True) is True


def test_binding_flags_are_kept_and_a_static_method_lends_no_self():
    """A kept type's (non-template) table: METH_CLASS and METH_STATIC stay
    on the Cystck method; the stock static method gets NULL for self, as
    CPython gives it (the null handle is lent as NULL)."""
    header = ("#include <Python.h>\ntemplate <typename T>\nclass Vec {\n    PyObject_VAR_HEAD\n"
              "    T items[1];\n    static PyTypeObject pytype;\n};\n")
    table = ('#include <Python.h>\n#include "vec.hh"\n'
             "PyObject *make(PyObject *cls, PyObject *args);\nPyObject *version(PyObject *self, PyObject *args);\n"
             "PyMethodDef vec_methods[] = {\n"
             '    {"make", make, METH_VARARGS | METH_CLASS, NULL},\n'
             '    {"version", version, METH_STATIC | METH_VARARGS, NULL},\n'
             "    {NULL}\n};\n")
    out = translate.translate_files({"vec.hh": header, "t.cc": table})["t.cc"].text
    assert ('CYSTCK_DEF_METH_FLAGS(vec_methods__0_make_def, "make", vec_methods__0_make, CYSTCK_VARARGS, '
            "METH_CLASS, NULL)") in out
    assert "return vec_methods__call_stock(S, make, self, tuple);" in out
    assert ('CYSTCK_DEF_METH_FLAGS(vec_methods__1_version_def, "version", vec_methods__1_version, '
            "CYSTCK_VARARGS, METH_STATIC, NULL)") in out
    assert "return vec_methods__call_stock(S, version, self, tuple);" in out
    assert "Cystck_IsNull(self) ? NULL : Cystck_AsPyObject(S, self)" in out
