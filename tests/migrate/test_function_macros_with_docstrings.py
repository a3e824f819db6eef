"""A macro generating a function and then its docstring,
``PyDoc_STRVAR(name ## _doc, "..." #p "...\\n\\`` continued lines ``")``
(bitarray 3.12.3's COUNT_FUNC), was no function macro, so the functions it
makes had no state and called a helper taking it (6 --check errors).  It
is expanded as one whose body is a function alone is: the docstring keeps
its continued lines and takes the ``;`` of the use.  The stock and the
translated builds answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import macros, translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *binop(PyObject *args, const char *format, char op)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, format, &a, &b))
        return NULL;
    return Py_BuildValue("(OOc)", a, b, op);
}

#define PAIR_FUNC(oper, ostr)                                           \
static PyObject *                                                       \
pair_ ## oper (PyObject *module, PyObject *args)                        \
{                                                                       \
    return binop(args, "OO:pair_" #oper, *ostr);                        \
}                                                                       \
PyDoc_STRVAR(pair_ ## oper ## _doc,                                     \
"pair_" #oper "(a, b, /) -> tuple\n\
\n\
Return `(a, b, '" ostr "')`.")

PAIR_FUNC(and, "&");           /* pair_and */
PAIR_FUNC(or,  "|");           /* pair_or  */

static PyMethodDef methods[] = {
    {"pair_and", (PyCFunction) pair_and, METH_VARARGS, pair_and_doc},
    {"pair_or", (PyCFunction) pair_or, METH_VARARGS, pair_or_doc},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "docmacro", NULL, -1, methods};

PyMODINIT_FUNC PyInit_docmacro(void) { return PyModule_Create(&moddef); }
'''


def test_a_function_and_its_docstring_expand_together():
    out, n = macros.expand_function_macros(SRC)
    assert n == 2
    assert ('PyDoc_STRVAR(pair_and_doc,\n"pair_" "and" "(a, b, /) -> tuple\\n\\\n\\n\\\n'
            'Return `(a, b, \'" "&" "\')`.");           /* pair_and */') in out
    assert "#define PAIR_FUNC" not in out


def test_the_functions_made_take_the_state():
    out = translate.translate_source(SRC, "docmacro.c")
    assert "pair_or (Cystck_State *S, Cystck_Object module, const Cystck_Object *args, Cystck_ssize_t nargs)" in out


def test_a_macro_with_something_else_after_the_function_stays():
    src = SRC.replace('PyDoc_STRVAR(pair_ ## oper ## _doc,', 'DOC_STRING(pair_ ## oper ## _doc,')
    assert macros.expand_function_macros(src) == (src, 0)


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("docmacro", SRC, "print(repr([m.pair_and(1, 2), m.pair_or('x', None), m.pair_or.__doc__,"
                                          " outcome(m.pair_or, 1)]))\n")
    assert want[:2] == [(1, 2, b"&"), ("x", None, b"|")]
    assert want[2] == "pair_or(a, b, /) -> tuple\n\nReturn `(a, b, '|')`."
    assert want[3][0] == "TypeError"
