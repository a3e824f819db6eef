/*
 * Typed methods (include/cystck/typed.h): the slow path of their binding,
 * conversions of arguments of any type, and the machine-readable
 * signatures CystckModule_Create publishes.  Errors are those of CPython
 * 3.11's PyArg_ParseTuple / PyArg_ParseTupleAndKeywords (Python/getargs.c)
 * for the equivalent format, in the same order.
 */
#include "internal.h"

#include <limits.h>
#include <string.h>

/* getargs.c's seterror for a converter's message: "f() argument 3 must be
 * str, not int". */
static int conversion_error(const _Cystck_TypedSig *sig, int i, const char *expected, PyObject *o)
{
    PyErr_Format(PyExc_TypeError, "%.200s() argument %d must be %.50s, not %.50s",
                 sig->name, i + 1, expected, o == Py_None ? "None" : Py_TYPE(o)->tp_name);
    return -1;
}

int _Cystck_TypedConvert(const _Cystck_TypedSig *sig, int i, PyObject *o, _Cystck_TypedValue *v)
{
    switch (sig->codes[i]) {
    case 'l':
        v->l = PyLong_AsLong(o);
        return v->l == -1 && PyErr_Occurred() ? -1 : 0;
    case 'L':
        v->ll = PyLong_AsLongLong(o);
        return v->ll == -1 && PyErr_Occurred() ? -1 : 0;
    case 'n': {
        PyObject *index = PyNumber_Index(o);
        if (index == NULL)
            return -1;
        v->n = PyLong_AsSsize_t(index);
        Py_DECREF(index);
        return v->n == -1 && PyErr_Occurred() ? -1 : 0;
    }
    case 'i': {
        long x = PyLong_AsLong(o);
        if (x == -1 && PyErr_Occurred())
            return -1;
        if (x > INT_MAX || x < INT_MIN) {
            PyErr_SetString(PyExc_OverflowError, x > INT_MAX ? "signed integer is greater than maximum"
                                                             : "signed integer is less than minimum");
            return -1;
        }
        v->i = (int)x;
        return 0;
    }
    case 'p':
        v->i = PyObject_IsTrue(o);
        return v->i < 0 ? -1 : 0;
    case 'd':
        v->d = PyFloat_AsDouble(o);
        return v->d == -1.0 && PyErr_Occurred() ? -1 : 0;
    case 's': {
        Py_ssize_t len;
        if (!PyUnicode_Check(o))
            return conversion_error(sig, i, "str", o);
        v->s = PyUnicode_AsUTF8AndSize(o, &len);
        if (v->s == NULL)
            return -1;
        if (strlen(v->s) != (size_t)len) {
            PyErr_SetString(PyExc_ValueError, "embedded null character");
            return -1;
        }
        return 0;
    }
    case 'O':
        v->o = o;
        return 0;
    }
    PyErr_Format(PyExc_SystemError, "%s(): unknown typed parameter code '%c'", sig->name, sig->codes[i]);
    return -1;
}

/* PyArg_ParseTuple's count check (vgetargs1). */
static int positional_count_error(const _Cystck_TypedSig *sig, Py_ssize_t nargs)
{
    int min = sig->nrequired, max = sig->nparams;
    int n = nargs < min ? min : max;
    PyErr_Format(PyExc_TypeError, "%.150s() takes %s %d argument%s (%zd given)", sig->name,
                 min == max ? "exactly" : nargs < min ? "at least" : "at most",
                 n, n == 1 ? "" : "s", nargs);
    return -1;
}

/* Where keyword `name`'s value is in the vectorcall array, or -1. */
static Py_ssize_t keyword_index(Py_ssize_t nargs, PyObject *kwnames, const char *name)
{
    Py_ssize_t k, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (k = 0; k < nkw; k++)
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), name) == 0)
            return nargs + k;
    return -1;
}

/* Is `key` one of the parameter names? */
static int is_parameter(const _Cystck_TypedSig *sig, PyObject *key)
{
    int i;
    for (i = 0; i < sig->nparams; i++)
        if (PyUnicode_CompareWithASCIIString(key, sig->names[i]) == 0)
            return 1;
    return 0;
}

/* Remember where each value of this call came from, for the next call with
 * the same keyword names (see _Cystck_TypedCache). */
static void remember(_Cystck_TypedCache *cache, Py_ssize_t nargs, PyObject *kwnames,
                     const signed char *src, unsigned present)
{
    /* The whole array (bind_keywords fills it all): a loop bounded by
       sig->nparams makes GCC -O3 warn that it may write past the array. */
    memcpy(cache->src, src, sizeof cache->src);
    Py_INCREF(kwnames);
    Py_XSETREF(cache->kwnames, kwnames);
    cache->nargs = nargs;
    cache->present = present;
}

/* vgetargskeywords, on a vectorcall: the same checks in the same order. */
static int bind_keywords(const _Cystck_TypedSig *sig, _Cystck_TypedCache *cache,
                         PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                         _Cystck_TypedValue *v, unsigned *present)
{
    Py_ssize_t nkwargs = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    Py_ssize_t k;
    signed char src[CYSTCK_TYPED_MAX_PARAMS];
    int i, len = sig->nparams;

    *present = 0;
    memset(src, -1, sizeof src);    /* not given, unless found below */
    if (nargs + nkwargs > len) {
        PyErr_Format(PyExc_TypeError, "%.200s() takes at most %d %sargument%s (%zd given)",
                     sig->name, len, nargs == 0 ? "keyword " : "", len == 1 ? "" : "s",
                     nargs + nkwargs);
        return -1;
    }
    for (i = 0; i < len; i++) {
        Py_ssize_t at = -1;
        if (i < nargs)
            at = i;
        else if (nkwargs) {
            at = keyword_index(nargs, kwnames, sig->names[i]);
            if (at >= 0)
                --nkwargs;
        }
        src[i] = (signed char)at;
        if (at >= 0) {
            if (_Cystck_TypedConvert(sig, i, args[at], &v[i]) < 0)
                return -1;
            *present |= 1u << i;
            continue;
        }
        if (i < sig->nrequired) {
            PyErr_Format(PyExc_TypeError, "%.200s() missing required argument '%s' (pos %d)",
                         sig->name, sig->names[i], i + 1);
            return -1;
        }
        if (!nkwargs)
            break;
    }
    if (nkwargs > 0) {
        /* some keyword was not taken: a parameter given twice, or an unknown name */
        for (i = 0; i < nargs; i++)
            if (keyword_index(nargs, kwnames, sig->names[i]) >= 0) {
                PyErr_Format(PyExc_TypeError,
                             "argument for %.200s() given by name ('%s') and position (%d)",
                             sig->name, sig->names[i], i + 1);
                return -1;
            }
        for (k = 0; k < PyTuple_GET_SIZE(kwnames); k++) {
            PyObject *key = PyTuple_GET_ITEM(kwnames, k);
            if (!is_parameter(sig, key)) {
                PyErr_Format(PyExc_TypeError, "'%U' is an invalid keyword argument for %.200s()",
                             key, sig->name);
                return -1;
            }
        }
    }
    if (kwnames != NULL)
        remember(cache, nargs, kwnames, src, *present);
    return 0;
}

int _Cystck_TypedBind(const _Cystck_TypedSig *sig, _Cystck_TypedCache *cache, PyObject *const *args,
                      Py_ssize_t nargs, PyObject *kwnames, _Cystck_TypedValue *v, unsigned *present)
{
    int i;
    if (sig->keywords)
        return bind_keywords(sig, cache, args, nargs, kwnames, v, present);
    /* positional only: the inline path takes every call of the right size */
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0) {
        PyErr_Format(PyExc_TypeError, "%.200s() takes no keyword arguments", sig->name);
        return -1;
    }
    if (nargs < sig->nrequired || nargs > sig->nparams)
        return positional_count_error(sig, nargs);
    *present = 0;
    for (i = 0; i < nargs; i++) {
        if (_Cystck_TypedConvert(sig, i, args[i], &v[i]) < 0)
            return -1;
        *present |= 1u << i;
    }
    return 0;
}

/* ---- machine-readable signatures ---- */

static const char *c_type_name(char code)
{
    switch (code) {
    case 'l': return "long";
    case 'L': return "long long";
    case 'n': return "Py_ssize_t";
    case 'i': return "int";
    case 'p': return "bool";
    case 'd': return "double";
    case 's': return "const char *";
    case 'O': return "object";
    case 'N': return "None";
    }
    return "?";
}

/* {"return": ..., "params": ((name, type, required), ...), "keywords": bool,
 *  "format": "ll|ll", "impl": capsule} for one signature. */
static PyObject *describe(const _Cystck_TypedSig *sig)
{
    PyObject *params = PyTuple_New(sig->nparams), *impl, *res;
    char format[2 * CYSTCK_TYPED_MAX_PARAMS + 2], *p = format;
    int i;
    if (params == NULL)
        return NULL;
    for (i = 0; i < sig->nparams; i++) {
        PyObject *item = Py_BuildValue("(ssO)", sig->names[i], c_type_name(sig->codes[i]),
                                       i < sig->nrequired ? Py_True : Py_False);
        if (item == NULL) {
            Py_DECREF(params);
            return NULL;
        }
        PyTuple_SET_ITEM(params, i, item);
        if (i == sig->nrequired)
            *p++ = '|';
        *p++ = sig->codes[i];
    }
    *p = '\0';
    impl = PyCapsule_New((void *)sig->impl, "cystck.typed_impl", NULL);
    if (impl == NULL) {
        Py_DECREF(params);
        return NULL;
    }
    res = Py_BuildValue("{sssNsOsssN}", "return", c_type_name(sig->ret), "params", params,
                        "keywords", sig->keywords ? Py_True : Py_False, "format", format,
                        "impl", impl);
    return res;
}

int _Cystck_PublishTypedSignatures(PyObject *owner, CystckDef **defines)
{
    PyObject *table = NULL;
    CystckDef **d;
    int r;
    for (d = defines; d != NULL && *d != NULL; d++) {
        PyObject *entry;
        if ((*d)->kind != CystckDef_Meth || (*d)->typed == NULL)
            continue;
        if (table == NULL && (table = PyDict_New()) == NULL)
            return -1;
        entry = describe((*d)->typed);
        r = entry == NULL ? -1 : PyDict_SetItemString(table, (*d)->typed->name, entry);
        Py_XDECREF(entry);
        if (r < 0) {
            Py_DECREF(table);
            return -1;
        }
    }
    if (table == NULL)
        return 0;
    r = PyObject_SetAttrString(owner, "__cystck_signatures__", table);
    Py_DECREF(table);
    return r;
}
