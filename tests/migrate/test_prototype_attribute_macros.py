"""Prototypes whose declarator is followed by an attribute macro before
the ';' (pyxattr 0.8.1, docs/gaps.md T36):

    #define NEGATIVE_SETS_EXCEPTION __attribute__((...))   (or nothing)
    static int convert(PyObject *o, long *out) NEGATIVE_SETS_EXCEPTION;

The prototype was not taken for one (its tail held a name other than
``const``, ``noexcept`` or ``__attribute__((...))``): the definition got
the state and handles, the prototype kept its stock parameters, and the
two conflicted ("conflicting types").  A tail of object-like or
function-like macro names in capitals is an attribute macro's: the
prototype is rewritten with its definition.  Built stock and translated,
run the same, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import source, translate
from cystck.migrate.rules.escape import MARK

STOCK = r"""
#include <Python.h>

#if defined(WITH_SOME_CHECKER)
#define NEGATIVE_SETS_EXCEPTION __attribute__((some_checker_attribute))
#else
#define NEGATIVE_SETS_EXCEPTION
#endif
#define NONNULL_ARGS(...) __attribute__((nonnull(__VA_ARGS__)))

static int convert(PyObject *o, long *out)
  NEGATIVE_SETS_EXCEPTION;

static int scale(const char *how, long *value)
    NONNULL_ARGS(1, 2) NEGATIVE_SETS_EXCEPTION;

static PyObject *twice(PyObject *self, PyObject *arg)
{
    long v;
    if (convert(arg, &v) < 0)
        return NULL;
    if (scale("twice", &v) < 0)
        return NULL;
    return PyLong_FromLong(v);
}

/* -1 with TypeError unless o is an int */
static int convert(PyObject *o, long *out)
{
    if (!PyLong_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "an int is required");
        return -1;
    }
    *out = PyLong_AsLong(o);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int scale(const char *how, long *value)
{
    if (*value > 1000) {
        PyErr_Format(PyExc_OverflowError, "%s: too large", how);
        return -1;
    }
    *value *= 2;
    return 0;
}

static PyMethodDef methods[] = {
    {"twice", twice, METH_O, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "protoattr", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_protoattr(void)
{
    return PyModule_Create(&moduledef);
}
"""

SCRIPT = """
print([m.twice(21), outcome(m.twice, "21"), outcome(m.twice, 5000), m.twice(-4)])
"""


def test_prototypes_with_attribute_macros_get_the_state():
    text = translate.translate_source(STOCK, "protoattr.c")
    assert MARK not in text
    assert "static int convert(Cystck_State *S, Cystck_Object o, long *out)\n  NEGATIVE_SETS_EXCEPTION;" in text
    assert "static int scale(Cystck_State *S, const char *how, long *value)\n    NONNULL_ARGS(1, 2)" in text


def test_prototypes_with_attribute_macros_behave_as_stock(same_as_stock):
    out = same_as_stock("protoattr", STOCK, SCRIPT)
    assert out == [42, ("TypeError", "an int is required"), ("OverflowError", "twice: too large"), -8]


def test_a_lower_case_name_after_a_macro_call_is_no_prototype():
    # near miss: a variable whose type a macro spells, ``DECLARE(int) table;``,
    # and a declaration with an initialiser-like tail stay no functions
    code = "DECLARE(int) table;\nstatic int f(int a) NEGATIVE;\n"
    names = [f.name for f in source.find_functions(code)]
    assert names == ["f"]
