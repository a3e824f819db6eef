"""CystckArg_ParseTuple's format cache, against PyArg_ParseTuple.

Parses are cached by the format's address.  A format that is not a string
literal must still be read by its text at every call, even when a buffer
at one address changes (a cache found by address alone, as a call site of
a literal could be, would keep the first text), and a parse must stay
right when the same call runs again inside one of its conversions.  Two
extensions, one stock and one Cystck, parse the same way; their outcomes
(values, or the exception's type and message) must be the same.
"""
import pytest

from cystck.build import build_extension, load_extension

WARNINGS = ["-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter"]

# Both sources share one body: PARSE, the value types and the result helpers
# differ.  `buffer_format` parses with the text set_format() last wrote to
# one static buffer; `nested(n, f[, x])` parses a literal format whose O&
# converter calls f(), which may call nested again.
BODY = r'''
static char format_buffer[32] = "O:first";

FUNC(set_format)
{
    const char *s;
    STRING_DECL;
    if (!PARSE("s#:set_format", &s, &n))
        return FAIL;
    if (n >= (Py_ssize_t)sizeof(format_buffer)) {
        RAISE_VALUE("format too long");
        return FAIL;
    }
    memcpy(format_buffer, s, (size_t)n + 1);
    RETURN_LONG(0);
}

FUNC(buffer_format)
{
    OBJ a = NO_OBJ;
    OBJ b = NO_OBJ;
    double d = -1.0;
    RESULT_DECL;
    /* Each format the test sets has its objects first, then at most one d. */
    if (!PARSE(format_buffer, &a, &b, &d))
        return FAIL;
    R_OBJ(a);
    R_OBJ(b);
    R_D(d);
    RETURN_RESULT;
}

CONVERTER(call_back)
{
    /* o() may parse the format that is converting it again: the outer
     * call's parse must be intact when it returns. */
    *(long *)out = CALL_BACK(o);
    return !(*(long *)out == -1 && ERR_OCCURRED);
}

FUNC(nested)
{
    long n = 0, r = 0;
    double x = 0.0;
    RESULT_DECL;
    if (!PARSE("lO&|d:nested", &n, call_back, &r, &x))
        return FAIL;
    R_LL(n);
    R_LL(r);
    R_D(x);
    RETURN_RESULT;
}
'''

STOCK = r'''
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#define FUNC(name) static PyObject *name(PyObject *self, PyObject *args)
#define PARSE(...) PyArg_ParseTuple(args, __VA_ARGS__)
#define STRING_DECL Py_ssize_t n
#define OBJ PyObject *
#define NO_OBJ NULL
#define FAIL NULL
#define RAISE_VALUE(m) PyErr_SetString(PyExc_ValueError, m)
#define RETURN_LONG(v) return PyLong_FromLong(v)
#define RESULT_DECL PyObject *res = PyList_New(0); if (res == NULL) return NULL
#define R_PUT(x) do { PyObject *x_ = (x); \
        if (x_ == NULL || PyList_Append(res, x_) < 0) { Py_XDECREF(x_); Py_DECREF(res); return NULL; } \
        Py_DECREF(x_); } while (0)
#define R_OBJ(o) R_PUT((o) ? Py_NewRef(o) : PyUnicode_FromString("<untouched>"))
#define R_D(v) R_PUT(PyFloat_FromDouble(v))
#define R_LL(v) R_PUT(PyLong_FromLongLong(v))
#define RETURN_RESULT return res
#define CONVERTER(name) static int name(PyObject *o, void *out)
#define CALL_BACK(o) call_back_stock(o)
#define ERR_OCCURRED PyErr_Occurred()

static long call_back_stock(PyObject *o)
{
    PyObject *r = PyObject_CallNoArgs(o);
    long v;
    if (r == NULL)
        return -1;
    v = PyLong_AsLong(r);
    Py_DECREF(r);
    return v;
}
''' + BODY + r'''

static PyMethodDef methods[] = {
    {"set_format", set_format, METH_VARARGS, ""},
    {"buffer_format", buffer_format, METH_VARARGS, ""},
    {"nested", nested, METH_VARARGS, ""},
    {NULL, NULL, 0, NULL}
};
static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "as_stock", "", -1, methods,
                                       NULL, NULL, NULL, NULL};
PyMODINIT_FUNC PyInit_as_stock(void) { return PyModule_Create(&moduledef); }
'''

CYSTCK = r'''
#include "Cystck.h"
#include <string.h>
#define FUNC(name) \
    CYSTCK_DEF_METH(name##_def, #name, name, CYSTCK_VARARGS, "") \
    static int name(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
#define PARSE(...) CystckArg_ParseTuple(S, args, nargs, __VA_ARGS__)
#define STRING_DECL Py_ssize_t n
#define OBJ Cystck_Object
#define NO_OBJ Cystck_NULL
#define FAIL -1
#define RAISE_VALUE(m) CystckErr_SetString(S, CystckExc_ValueError, m)
#define RETURN_LONG(v) return Cystck_Return(S, CystckLong_FromLong(S, v))
#define RESULT_DECL Cystck_Object res = CystckList_New(S, 0); if (Cystck_IsNull(res)) return -1
#define R_PUT(x) do { Cystck_Object x_ = (x); \
        if (Cystck_IsNull(x_) || CystckList_Append(S, res, x_) < 0) return -1; } while (0)
#define R_OBJ(o) R_PUT(Cystck_IsNull(o) ? CystckUnicode_FromString(S, "<untouched>") : (o))
#define R_D(v) R_PUT(CystckFloat_FromDouble(S, v))
#define R_LL(v) R_PUT(CystckLong_FromLongLong(S, v))
#define RETURN_RESULT return Cystck_Return(S, res)
#define CONVERTER(name) static int name(Cystck_State *S, Cystck_Object o, void *out)
#define CALL_BACK(o) call_back_cystck(S, o)
#define ERR_OCCURRED CystckErr_Occurred(S)

static long call_back_cystck(Cystck_State *S, Cystck_Object o)
{
    Cystck_Object r = CystckObject_CallNoArgs(S, o);
    if (Cystck_IsNull(r))
        return -1;
    return CystckLong_AsLong(S, r);
}
''' + BODY + r'''
static CystckDef *module_defines[] = {&set_format_def, &buffer_format_def, &nested_def, NULL};
static CystckModuleDef module_def = {"as_cystck", "", 0, module_defines};
CYSTCK_MODINIT(as_cystck)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
'''


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    d = tmp_path_factory.mktemp("argcache")
    (d / "as_stock.c").write_text(STOCK)
    (d / "as_cystck.c").write_text(CYSTCK)
    stock = build_extension("as_stock", [d / "as_stock.c"], d, use_cystck=False,
                            extra_compile_args=WARNINGS)
    cystck = build_extension("as_cystck", [d / "as_cystck.c"], d, extra_compile_args=WARNINGS)
    return load_extension("as_stock", stock), load_extension("as_cystck", cystck)


def outcome(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:         # the type and message are what is compared
        return (type(e).__name__, str(e))


# Formats written in turn to one buffer (each a prefix of "OOd", the
# outputs buffer_format passes): the same length with another text, longer,
# shorter, optional values, a message, and back to the first.
FORMATS = ["O:first", "O:other", "OO:pair", "O|Od:opt", "OOd;custom message", "OOd", "|O",
           "O:first"]
CALLS = [(), (1.5,), (1.5, "x"), (1.5, "x", 2.0), ("s", "t", "u")]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_format_that_is_not_a_literal_is_read_by_its_text(both, fmt):
    stock, cystck = both
    for m in both:
        m.set_format(fmt)
    for args in CALLS:
        assert outcome(cystck.buffer_format, *args) == outcome(stock.buffer_format, *args), \
            (fmt, args)


def test_a_format_parses_again_inside_its_own_conversion(both):
    results = []
    for m in both:
        calls = []

        def at_depth(n, m=m, calls=calls):
            def f():
                calls.append(n)
                if n == 0:
                    return 10
                # The same format again: a failing call, then one with the
                # optional value, while the outer call converts.
                calls.append(outcome(m.nested, "bad", f))
                return m.nested(n - 1, at_depth(n - 1), 0.5)[1] + 1
            return f

        results.append((outcome(m.nested, 3, at_depth(3)), calls))
    assert results[1] == results[0]
    assert results[0][0] == ("ok", [3, 13, 0.0])
    stock, cystck = both
    for args in [(1,), (1, 2, 3, 4), (1, 2, "x")]:
        assert outcome(cystck.nested, *args) == outcome(stock.nested, *args), args
