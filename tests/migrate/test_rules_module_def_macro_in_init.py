"""A macro that declares the module definition and creates the module,
used as a statement of the init (zope.proxy 7.3's ``MOD_DEF(m, name, doc,
methods)``: ``static struct PyModuleDef moduledef = {...}; m =
PyModule_Create(&moduledef);``): the declaration-macros rule wrote out
file-scope uses only, so the stock ``PyModuleDef`` stayed, given the
translated method table, and ``CystckModule_Create`` got it ("passing
argument 2 of 'CystckModule_Create' from incompatible pointer type"; the
module crashed at import).  A use on a line of its own in a function is
written out now when it declares a module definition; other macros used in
functions stay."""
from cystck.migrate import translate

MODDEF = r'''#include <Python.h>

#define MOD_DEF(ob, name, doc, methods) \
        static struct PyModuleDef moduledef = { \
          PyModuleDef_HEAD_INIT, name, doc, -1, methods, }; \
        ob = PyModule_Create(&moduledef);

#define ADD_ONE(x) ((x) + 1)

static PyObject *
same(PyObject *self, PyObject *o)
{
    Py_INCREF(o);
    return o;
}

static PyMethodDef module_functions[] = {
    {"same", same, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

PyMODINIT_FUNC
PyInit_moddefmacro(void)
{
    PyObject *m;

    MOD_DEF(m, "moddefmacro", "the doc", module_functions)

    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "two", ADD_ONE(1)) < 0)
        return NULL;
    return m;
}
'''


def test_the_module_definition_macro_in_the_init_is_written_out():
    out = translate.translate_source(MODDEF, "moddefmacro.c")
    assert '/* MOD_DEF(m, "moddefmacro", "the doc", module_functions), expanded by cystck-migrate */' in out
    assert "static CystckModuleDef moduledef = {" in out
    assert "m = CystckModule_Create(S, &moduledef);" in out
    # a macro in the init that declares nothing stays
    assert "ADD_ONE(1)" in out


def test_the_module_definition_macro_behaves_like_the_stock_build(same_as_stock):
    script = "print(repr([m.__doc__, m.two, m.same('x'), outcome(m.same)[0]]))\n"
    assert same_as_stock("moddefmacro", MODDEF, script) == ["the doc", 2, "x", "TypeError"]
