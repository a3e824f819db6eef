/*
 * Hand-written object API: variadic calls, Cystck_BuildValue, tuples from
 * handles, dict iteration and the error helpers.
 */
#include "internal.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

/* ---- Cystck_BuildValue: Py_BuildValue with handles for O, S and N ---- */
/* (The units of Py_BuildValue but O& and D; p as 3.14 has it.) */

static PyObject *build_one(Cystck_State *S, const char **fmt, va_list *va);

/* The extension code that called the public function now building a value,
 * for error messages (the GIL serializes these calls). */
static const void *build_caller;

/* Build items until `end`, as a tuple or list (kind '(' or '['). */
static PyObject *build_seq(Cystck_State *S, const char **fmt, va_list *va, char end, int as_list)
{
    PyObject *list = PyList_New(0), *item;
    for (;;) {
        while (**fmt == ' ' || **fmt == ',' || **fmt == ':' || **fmt == '\t')
            (*fmt)++;
        if (**fmt == end) {
            (*fmt)++;
            break;
        }
        if (**fmt == '\0') {
            PyErr_SetString(PyExc_SystemError, "Cystck_BuildValue: unmatched bracket in format");
            Py_XDECREF(list);
            return NULL;
        }
        item = build_one(S, fmt, va);
        if (item == NULL || list == NULL || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_XDECREF(list);
            return NULL;
        }
        Py_DECREF(item);
    }
    if (as_list)
        return list;
    item = PyList_AsTuple(list);
    Py_DECREF(list);
    return item;
}

static PyObject *build_dict(Cystck_State *S, const char **fmt, va_list *va)
{
    PyObject *seq = build_seq(S, fmt, va, '}', 1), *d;
    Py_ssize_t i, n;
    if (seq == NULL)
        return NULL;
    n = PyList_GET_SIZE(seq);
    if (n % 2) {
        PyErr_SetString(PyExc_SystemError, "Cystck_BuildValue: odd number of dict items");
        Py_DECREF(seq);
        return NULL;
    }
    d = PyDict_New();
    for (i = 0; d != NULL && i < n; i += 2) {
        if (PyDict_SetItem(d, PyList_GET_ITEM(seq, i), PyList_GET_ITEM(seq, i + 1)) < 0)
            Py_CLEAR(d);
    }
    Py_DECREF(seq);
    return d;
}

/* The length after a buffer's unit: its # argument, or -1 (none). */
static Py_ssize_t build_length(const char **fmt, va_list *va)
{
    if (**fmt != '#')
        return -1;
    (*fmt)++;
    return va_arg(*va, Py_ssize_t);
}

static PyObject *build_string(const char **fmt, va_list *va, int bytes)
{
    const char *s = va_arg(*va, const char *);
    Py_ssize_t n = build_length(fmt, va);
    if (s == NULL)
        Py_RETURN_NONE;
    if (n < 0)
        n = (Py_ssize_t)strlen(s);
    return bytes ? PyBytes_FromStringAndSize(s, n) : PyUnicode_FromStringAndSize(s, n);
}

/* u, u#: a wchar_t buffer (null-terminated, or with its length) as a str. */
static PyObject *build_wide(const char **fmt, va_list *va)
{
    const wchar_t *s = va_arg(*va, const wchar_t *);
    Py_ssize_t n = build_length(fmt, va);
    if (s == NULL)
        Py_RETURN_NONE;
    return PyUnicode_FromWideChar(s, n < 0 ? (Py_ssize_t)wcslen(s) : n);
}

static PyObject *build_one(Cystck_State *S, const char **fmt, va_list *va)
{
    char c = *(*fmt)++;
    switch (c) {
    case '(': return build_seq(S, fmt, va, ')', 0);
    case '[': return build_seq(S, fmt, va, ']', 1);
    case '{': return build_dict(S, fmt, va);
    case 'b': case 'B': case 'h': case 'i': return PyLong_FromLong(va_arg(*va, int));
    case 'H': return PyLong_FromLong((long)va_arg(*va, unsigned int));
    case 'I': return PyLong_FromUnsignedLong(va_arg(*va, unsigned int));
    case 'l': return PyLong_FromLong(va_arg(*va, long));
    case 'k': return PyLong_FromUnsignedLong(va_arg(*va, unsigned long));
    case 'L': return PyLong_FromLongLong(va_arg(*va, long long));
    case 'K': return PyLong_FromUnsignedLongLong(va_arg(*va, unsigned long long));
    case 'n': return PyLong_FromSsize_t(va_arg(*va, Py_ssize_t));
    case 'd': case 'f': return PyFloat_FromDouble(va_arg(*va, double));
    case 'p': return PyBool_FromLong(va_arg(*va, int));
    case 'c': { char ch = (char)va_arg(*va, int); return PyBytes_FromStringAndSize(&ch, 1); }
    case 'C': return PyUnicode_FromOrdinal(va_arg(*va, int));
    case 's': case 'z': case 'U': return build_string(fmt, va, 0);
    case 'y': return build_string(fmt, va, 1);
    case 'u': return build_wide(fmt, va);
    case 'O': case 'S': case 'N': {
        Cystck_Object h = va_arg(*va, Cystck_Object);
        PyObject *o = _Cystck_Get(h);
        if (o == NULL) {
            _Cystck_BadArgAt(S, "Cystck_BuildValue", h, build_caller);
            return NULL;
        }
        return Py_NewRef(o);
    }
    default:
        PyErr_Format(PyExc_SystemError, "Cystck_BuildValue: bad format character '%c'", c);
        return NULL;
    }
}

/* The value for a whole format: None, one value, or a tuple of several. */
static PyObject *build_value(Cystck_State *S, const char *fmt, va_list *va)
{
    PyObject *first, *tuple;
    const char *p = fmt;
    Py_ssize_t count = 0;
    int depth = 0;
    /* Count top-level items to know whether to pack a tuple. */
    for (; *p; p++) {
        if (strchr("([{", *p)) { if (depth++ == 0) count++; }
        else if (strchr(")]}", *p)) depth--;
        else if (depth == 0 && !strchr(" ,:\t#", *p)) count++;
    }
    if (count == 0)
        Py_RETURN_NONE;
    if (count == 1) {
        while (*fmt == ' ' || *fmt == ',' || *fmt == ':' || *fmt == '\t')
            fmt++;
        first = build_one(S, &fmt, va);
        return first;
    }
    {
        /* Reuse the bracket parser by scanning as if enclosed in ( ). */
        size_t len = strlen(fmt);
        char *wrapped = (char *)PyMem_Malloc(len + 2);
        const char *w;
        if (wrapped == NULL)
            return PyErr_NoMemory();
        memcpy(wrapped, fmt, len);
        wrapped[len] = ')';
        wrapped[len + 1] = '\0';
        w = wrapped;
        tuple = build_seq(S, &w, va, ')', 0);
        PyMem_Free(wrapped);
        return tuple;
    }
}

Cystck_Object Cystck_BuildValue(Cystck_State *S, const char *fmt, ...)
{
    va_list va;
    PyObject *r;
    build_caller = _CYSTCK_CALLER();
    va_start(va, fmt);
    r = build_value(S, fmt, &va);
    va_end(va);
    return _Cystck_Own(S, r);
}

/* ---- Variadic calls ---- */

/* Gather handles up to Cystck_NULL into a vectorcall array (slot 0 free). */
static Py_ssize_t gather_args(Cystck_State *S, PyObject **buf, Py_ssize_t cap, va_list va,
                              const char *func, const void *where)
{
    Py_ssize_t n = 0;
    for (;;) {
        Cystck_Object h = va_arg(va, Cystck_Object);
        if (h._p == NULL)
            return n;
        if (*h._p == NULL) {
            _Cystck_BadArgAt(S, func, h, where);
            return -1;
        }
        if (n + 1 >= cap) {
            PyErr_Format(PyExc_SystemError, "%s: more than %zd arguments", func, cap - 2);
            return -1;
        }
        buf[1 + n++] = *h._p;
    }
}

#define MAX_VARARGS 64

Cystck_Object CystckObject_CallFunctionObjArgs(Cystck_State *S, Cystck_Object f, ...)
{
    PyObject *buf[MAX_VARARGS + 2], *f_ = _Cystck_Get(f);
    Py_ssize_t n;
    va_list va;
    if (f_ == NULL)
        return _Cystck_BadArgAt(S, "CystckObject_CallFunctionObjArgs", f, _CYSTCK_CALLER());
    va_start(va, f);
    n = gather_args(S, buf, MAX_VARARGS + 2, va, "CystckObject_CallFunctionObjArgs",
                    _CYSTCK_CALLER());
    va_end(va);
    if (n < 0)
        return Cystck_NULL;
    return _Cystck_Own(S, PyObject_Vectorcall(f_, buf + 1, (size_t)n | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL));
}

Cystck_Object CystckObject_CallMethodObjArgs(Cystck_State *S, Cystck_Object o, Cystck_Object name, ...)
{
    PyObject *buf[MAX_VARARGS + 2], *o_ = _Cystck_Get(o), *name_ = _Cystck_Get(name);
    Py_ssize_t n;
    va_list va;
    if (o_ == NULL || name_ == NULL)
        return _Cystck_BadArgAt(S, "CystckObject_CallMethodObjArgs", o_ == NULL ? o : name,
                                _CYSTCK_CALLER());
    va_start(va, name);
    n = gather_args(S, buf, MAX_VARARGS + 2, va, "CystckObject_CallMethodObjArgs",
                    _CYSTCK_CALLER());
    va_end(va);
    if (n < 0)
        return Cystck_NULL;
    buf[0] = o_;
    return _Cystck_Own(S, PyObject_VectorcallMethod(name_, buf, (size_t)(n + 1), NULL));
}

/* Cystck_CallImplKw: the argument array and keyword names a call from
 * Python would give impl.  The positional handles point into the tuple's
 * items and the keyword values' into the caller's array (both alive for
 * the call); a dict's keys become a names tuple and its values an array of
 * references held for the call (the dict may change while impl runs). */
Cystck_Object Cystck_CallImplKw(Cystck_State *S, Cystck_KeywordsImpl impl, Cystck_Object self,
                                Cystck_Object argtuple, const Cystck_Object *args, Cystck_ssize_t nargs,
                                Cystck_Object kw)
{
    PyObject *t = _Cystck_Get(argtuple), *k = _Cystck_Get(kw), *names = NULL, **vals = NULL;
    PyObject *key, *value;
    Cystck_Object inl[CYSTCK_INLINE_ARGS], *argv = inl;
    Cystck_ssize_t npos, nkw = 0, i, pos = 0;
    int pushed = -1;
    if (t == NULL)
        return _Cystck_BadArgAt(S, "Cystck_CallImplKw", argtuple, _CYSTCK_CALLER());
    if (impl == NULL || !PyTuple_Check(t) || (k != NULL && !PyTuple_Check(k) && !PyDict_Check(k))
            || (k != NULL && PyTuple_Check(k) && PyTuple_GET_SIZE(k) > 0 && args == NULL)) {
        PyErr_BadInternalCall();
        return Cystck_NULL;
    }
    npos = PyTuple_GET_SIZE(t);
    if (k != NULL)
        nkw = PyTuple_Check(k) ? PyTuple_GET_SIZE(k) : PyDict_GET_SIZE(k);
    if (npos + nkw > CYSTCK_INLINE_ARGS) {
        argv = (Cystck_Object *)PyMem_Malloc((size_t)(npos + nkw) * sizeof(Cystck_Object));
        if (argv == NULL)
            return (PyErr_NoMemory(), Cystck_NULL);
    }
    for (i = 0; i < npos; i++)
        argv[i] = _Cystck_H(&PyTuple_GET_ITEM(t, i));
    if (nkw > 0 && PyTuple_Check(k)) {
        for (i = 0; i < nkw; i++)
            argv[npos + i] = args[nargs + i];
        names = Py_NewRef(k);
    }
    else if (nkw > 0) {
        names = PyTuple_New(nkw);
        vals = (PyObject **)PyMem_Calloc((size_t)nkw, sizeof(PyObject *));
        if (names == NULL || vals == NULL) {
            if (vals == NULL)
                PyErr_NoMemory();
            goto done;
        }
        for (i = 0; i < nkw && PyDict_Next(k, &pos, &key, &value); i++) {
            if (!PyUnicode_Check(key)) {
                PyErr_SetString(PyExc_TypeError, "keywords must be strings");
                goto done;
            }
            PyTuple_SET_ITEM(names, i, Py_NewRef(key));
            vals[i] = Py_NewRef(value);
            argv[npos + i] = _Cystck_H(&vals[i]);
        }
    }
    pushed = impl(S, self, argv, npos, names != NULL ? _Cystck_H(&names) : Cystck_NULL);
done:
    if (vals != NULL) {
        for (i = 0; i < nkw; i++)
            Py_XDECREF(vals[i]);
        PyMem_Free(vals);
    }
    Py_XDECREF(names);
    if (argv != inl)
        PyMem_Free(argv);
    return Cystck_PopResult(S, pushed);
}

/* Cystck_PopResult's cases other than one value pushed. */
Cystck_Object _Cystck_PopResultSlow(Cystck_State *S, int pushed)
{
    if (pushed < 0)
        return Cystck_NULL;
    if (pushed == 0)
        return Cystck_Dup(S, Cystck_None);
    _Cystck_PopN(S, pushed < Cystck_StackSize(S) ? pushed : Cystck_StackSize(S));
    PyErr_Format(PyExc_SystemError, "an implementation called directly pushed %d values, not one", pushed);
    return Cystck_NULL;
}

/* Cystck_CallSlotKw: the positional handles point into the tuple's items
 * (alive for the call); a dict is passed on as it is; the caller's own
 * keyword names and values become a dict held for the call. */
int Cystck_CallSlotKw(Cystck_State *S, Cystck_KeywordsImpl impl, Cystck_Object self, Cystck_Object argtuple,
                      const Cystck_Object *args, Cystck_ssize_t nargs, Cystck_Object kw)
{
    PyObject *t = _Cystck_Get(argtuple), *k = _Cystck_Get(kw), *dict = NULL;
    Cystck_Object inl[CYSTCK_INLINE_ARGS], *argv = inl;
    Cystck_ssize_t npos, i;
    int r = -1;
    if (impl == NULL || (t != NULL && !PyTuple_Check(t)) || (k != NULL && !PyTuple_Check(k) && !PyDict_Check(k))
            || (k != NULL && PyTuple_Check(k) && PyTuple_GET_SIZE(k) > 0 && args == NULL)) {
        PyErr_BadInternalCall();
        return -1;
    }
    npos = t != NULL ? PyTuple_GET_SIZE(t) : 0;
    if (k != NULL && PyDict_Check(k))
        dict = Py_NewRef(k);
    else if (k != NULL && PyTuple_GET_SIZE(k) > 0) {
        dict = PyDict_New();
        if (dict == NULL)
            return -1;
        for (i = 0; i < PyTuple_GET_SIZE(k); i++) {
            PyObject *v = _Cystck_Get(args[nargs + i]);
            if (v == NULL)
                _Cystck_BadArgAt(S, "Cystck_CallSlotKw", args[nargs + i], _CYSTCK_CALLER());
            if (v == NULL || PyDict_SetItem(dict, PyTuple_GET_ITEM(k, i), v) < 0) {
                Py_DECREF(dict);
                return -1;
            }
        }
    }
    if (npos > CYSTCK_INLINE_ARGS) {
        argv = (Cystck_Object *)PyMem_Malloc((size_t)npos * sizeof(Cystck_Object));
        if (argv == NULL) {
            Py_XDECREF(dict);
            PyErr_NoMemory();
            return -1;
        }
    }
    for (i = 0; i < npos; i++)
        argv[i] = _Cystck_H(&PyTuple_GET_ITEM(t, i));
    r = impl(S, self, argv, npos, dict != NULL ? _Cystck_H(&dict) : Cystck_NULL);
    Py_XDECREF(dict);
    if (argv != inl)
        PyMem_Free(argv);
    return r;
}

/* CystckObject_Vectorcall's and _VectorcallMethod's array for more than
 * _CYSTCK_CALL_INLINE_ARGS values; the caller has checked the handles. */
CYSTCK_NOINLINE PyObject *_Cystck_VectorcallHeap(PyObject *callable, PyObject *name, const Cystck_Object *args,
                                                 Cystck_ssize_t nargs, Cystck_ssize_t total, PyObject *kwnames)
{
    PyObject **buf, *r;
    Cystck_ssize_t i;
    if ((size_t)total >= PY_SSIZE_T_MAX / sizeof(PyObject *))
        return PyErr_NoMemory();
    buf = (PyObject **)PyMem_Malloc((size_t)(total + 1) * sizeof(PyObject *));
    if (buf == NULL)
        return PyErr_NoMemory();
    for (i = 0; i < total; i++)
        buf[1 + i] = *args[i]._p;
    if (name != NULL)
        r = PyObject_VectorcallMethod(name, buf + 1, (size_t)nargs | PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames);
    else
        r = PyObject_Vectorcall(callable, buf + 1, (size_t)nargs | PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames);
    PyMem_Free(buf);
    return r;
}

/* Arguments built from a format: a tuple (a single non-tuple value is
 * wrapped, as PyObject_CallFunction does). */
static PyObject *build_args(Cystck_State *S, const char *fmt, va_list *va)
{
    PyObject *v, *t;
    if (fmt == NULL || *fmt == '\0')
        return PyTuple_New(0);
    v = build_value(S, fmt, va);
    if (v == NULL || PyTuple_Check(v))
        return v;
    t = PyTuple_Pack(1, v);
    Py_DECREF(v);
    return t;
}

Cystck_Object CystckObject_CallFunction(Cystck_State *S, Cystck_Object f, const char *fmt, ...)
{
    PyObject *f_ = _Cystck_Get(f), *args, *r;
    va_list va;
    if (f_ == NULL)
        return _Cystck_BadArgAt(S, "CystckObject_CallFunction", f, _CYSTCK_CALLER());
    build_caller = _CYSTCK_CALLER();
    va_start(va, fmt);
    args = build_args(S, fmt, &va);
    va_end(va);
    if (args == NULL)
        return Cystck_NULL;
    r = PyObject_Call(f_, args, NULL);
    Py_DECREF(args);
    return _Cystck_Own(S, r);
}

Cystck_Object CystckObject_CallMethod(Cystck_State *S, Cystck_Object o, const char *name,
                                      const char *fmt, ...)
{
    PyObject *o_ = _Cystck_Get(o), *meth, *args, *r;
    va_list va;
    if (o_ == NULL)
        return _Cystck_BadArgAt(S, "CystckObject_CallMethod", o, _CYSTCK_CALLER());
    meth = PyObject_GetAttrString(o_, name);
    if (meth == NULL)
        return Cystck_NULL;
    build_caller = _CYSTCK_CALLER();
    va_start(va, fmt);
    args = build_args(S, fmt, &va);
    va_end(va);
    if (args == NULL) {
        Py_DECREF(meth);
        return Cystck_NULL;
    }
    r = PyObject_Call(meth, args, NULL);
    Py_DECREF(meth);
    Py_DECREF(args);
    return _Cystck_Own(S, r);
}

/* ---- Strings, tuples, dicts ---- */

/* ---- PyUnicode_FromFormat with handles ----
 * The conversions that take objects (%S %R %A %U %V, and %T %N from 3.13)
 * take handles here.  A va_list cannot be rewritten, so a format with such
 * conversions is cut into pieces, each ending with one conversion, and each
 * piece goes to CPython's formatter with its argument read from our va_list
 * and converted: CPython still interprets every conversion, width and flag.
 * A format without them goes to CPython whole. */

/* One conversion of a format: where it ends and the C type of its value. */
typedef enum {
    ARG_NONE, ARG_INT, ARG_LONG, ARG_LONGLONG, ARG_SSIZE, ARG_PTRDIFF, ARG_INTMAX,
    ARG_UINT, ARG_ULONG, ARG_ULONGLONG, ARG_SIZE, ARG_UINTMAX, ARG_PTR, ARG_CSTR,
    ARG_WSTR, ARG_OBJ, ARG_OBJ_CSTR, ARG_OBJ_WSTR,
    ARG_UNKNOWN    /* a conversion CPython does not know: it handles the rest */
} FormatArg;

typedef struct {
    const char *end;   /* one past the conversion character */
    FormatArg arg;
    int stars;         /* '*' widths and precisions (int arguments before it) */
} FormatSpec;

/* The C type of an integer conversion with its length modifier. */
static FormatArg integer_arg(char conv, const char *mod)
{
    int is_signed = conv == 'd' || conv == 'i';
    if (strcmp(mod, "") == 0) return is_signed ? ARG_INT : ARG_UINT;
    if (strcmp(mod, "l") == 0) return is_signed ? ARG_LONG : ARG_ULONG;
    if (strcmp(mod, "ll") == 0) return is_signed ? ARG_LONGLONG : ARG_ULONGLONG;
    if (strcmp(mod, "z") == 0) return is_signed ? ARG_SSIZE : ARG_SIZE;
#if PY_VERSION_HEX >= 0x030C0000
    if (strcmp(mod, "t") == 0) return ARG_PTRDIFF;
    if (strcmp(mod, "j") == 0) return is_signed ? ARG_INTMAX : ARG_UINTMAX;
#endif
    return ARG_UNKNOWN;
}

/* Parse the conversion at f (which points at '%', not "%%"), with the
 * grammar of the running CPython: what it rejects is ARG_UNKNOWN. */
static FormatSpec parse_spec(const char *f)
{
    FormatSpec sp = {NULL, ARG_UNKNOWN, 0};
    char mod[3] = "";
    size_t nmod = 0;
    char conv;
    f++;
#if PY_VERSION_HEX >= 0x030C0000
    while (*f == '-' || *f == '0' || *f == '#')
        f++;
    if (*f == '*') { sp.stars++; f++; }
#else
    if (*f == '0')
        f++;
#endif
    while (*f >= '0' && *f <= '9')
        f++;
    if (*f == '.') {
        f++;
#if PY_VERSION_HEX >= 0x030C0000
        if (*f == '*') { sp.stars++; f++; }
#endif
        while (*f >= '0' && *f <= '9')
            f++;
    }
    while (nmod < 2 && strchr("lztj", *f) != NULL && *f != '\0')
        mod[nmod++] = *f++;
    mod[nmod] = '\0';
    conv = *f;
    if (conv == '\0')
        return sp;
    sp.end = f + 1;
    switch (conv) {
    case 'd': case 'i': case 'u': sp.arg = integer_arg(conv, mod); break;
    case 'x':
#if PY_VERSION_HEX >= 0x030C0000
    case 'X': case 'o':
        sp.arg = integer_arg(conv, mod);
#else
        sp.arg = nmod == 0 ? ARG_UINT : ARG_UNKNOWN;
#endif
        break;
    case 'c': sp.arg = nmod == 0 ? ARG_INT : ARG_UNKNOWN; break;
    case 'p': sp.arg = nmod == 0 ? ARG_PTR : ARG_UNKNOWN; break;
    case 'U': case 'S': case 'R': case 'A':
#if PY_VERSION_HEX >= 0x030D0000
    case 'T': case 'N':
#endif
        sp.arg = nmod == 0 ? ARG_OBJ : ARG_UNKNOWN;
        break;
#if PY_VERSION_HEX >= 0x030D0000
    case 's': sp.arg = nmod == 0 ? ARG_CSTR : strcmp(mod, "l") == 0 ? ARG_WSTR : ARG_UNKNOWN; break;
    case 'V': sp.arg = nmod == 0 ? ARG_OBJ_CSTR : strcmp(mod, "l") == 0 ? ARG_OBJ_WSTR : ARG_UNKNOWN; break;
#else
    case 's': sp.arg = nmod == 0 ? ARG_CSTR : ARG_UNKNOWN; break;
    case 'V': sp.arg = nmod == 0 ? ARG_OBJ_CSTR : ARG_UNKNOWN; break;
#endif
    default: sp.arg = ARG_UNKNOWN;
    }
    return sp;
}

/* The next conversion at or after f (skipping literal text and "%%"), or
 * NULL at the end of the format. */
static const char *next_spec(const char *f)
{
    for (f = strchr(f, '%'); f != NULL && f[1] == '%'; f = strchr(f + 2, '%'))
        ;
    return f;
}

static int takes_object(FormatArg a)
{
    return a == ARG_OBJ || a == ARG_OBJ_CSTR || a == ARG_OBJ_WSTR;
}

/* Does fmt have a conversion that takes an object (before any CPython does
 * not know)? */
static int has_object_conversion(const char *fmt)
{
    const char *f;
    for (f = next_spec(fmt); f != NULL; f = next_spec(f)) {
        FormatSpec sp = parse_spec(f);
        if (sp.arg == ARG_UNKNOWN)
            return 0;
        if (takes_object(sp.arg))
            return 1;
        f = sp.end;
    }
    return 0;
}

/* CPython's formatting of one piece: the '*' arguments, then the value(s). */
#define FORMAT_PIECE(piece, sp, w, T, ...)                                      \
    ((sp).stars == 0 ? PyUnicode_FromFormat((piece), (T)__VA_ARGS__) :          \
     (sp).stars == 1 ? PyUnicode_FromFormat((piece), (w)[0], (T)__VA_ARGS__) :  \
                       PyUnicode_FromFormat((piece), (w)[0], (w)[1], (T)__VA_ARGS__))

/* Format the piece (literal text, then the conversion sp), reading its
 * arguments from va.  NULL with an exception. */
static PyObject *format_piece(Cystck_State *S, const char *piece, FormatSpec sp, va_list *va,
                              const char *func, const void *where)
{
    int w[2] = {0, 0}, i;
    for (i = 0; i < sp.stars; i++)
        w[i] = va_arg(*va, int);
    switch (sp.arg) {
    case ARG_INT: return FORMAT_PIECE(piece, sp, w, int, va_arg(*va, int));
    case ARG_LONG: return FORMAT_PIECE(piece, sp, w, long, va_arg(*va, long));
    case ARG_LONGLONG: return FORMAT_PIECE(piece, sp, w, long long, va_arg(*va, long long));
    case ARG_SSIZE: return FORMAT_PIECE(piece, sp, w, Py_ssize_t, va_arg(*va, Py_ssize_t));
    case ARG_PTRDIFF: return FORMAT_PIECE(piece, sp, w, ptrdiff_t, va_arg(*va, ptrdiff_t));
    case ARG_INTMAX: return FORMAT_PIECE(piece, sp, w, intmax_t, va_arg(*va, intmax_t));
    case ARG_UINT: return FORMAT_PIECE(piece, sp, w, unsigned int, va_arg(*va, unsigned int));
    case ARG_ULONG: return FORMAT_PIECE(piece, sp, w, unsigned long, va_arg(*va, unsigned long));
    case ARG_ULONGLONG:
        return FORMAT_PIECE(piece, sp, w, unsigned long long, va_arg(*va, unsigned long long));
    case ARG_SIZE: return FORMAT_PIECE(piece, sp, w, size_t, va_arg(*va, size_t));
    case ARG_UINTMAX: return FORMAT_PIECE(piece, sp, w, uintmax_t, va_arg(*va, uintmax_t));
    case ARG_PTR: return FORMAT_PIECE(piece, sp, w, void *, va_arg(*va, void *));
    case ARG_CSTR: return FORMAT_PIECE(piece, sp, w, const char *, va_arg(*va, const char *));
    case ARG_WSTR: return FORMAT_PIECE(piece, sp, w, const wchar_t *, va_arg(*va, const wchar_t *));
    default: break;
    }
    {
        /* an object: a handle, which may be null only before %V's string */
        Cystck_Object h = va_arg(*va, Cystck_Object);
        PyObject *o = _Cystck_Get(h);
        if (o == NULL && (sp.arg == ARG_OBJ || h._p != NULL)) {
            _Cystck_BadArgAt(S, func, h, where);
            return NULL;
        }
        if (sp.arg == ARG_OBJ_CSTR)
            return FORMAT_PIECE(piece, sp, w, PyObject *, o, va_arg(*va, const char *));
        if (sp.arg == ARG_OBJ_WSTR)
            return FORMAT_PIECE(piece, sp, w, PyObject *, o, va_arg(*va, const wchar_t *));
        return FORMAT_PIECE(piece, sp, w, PyObject *, o);
    }
}
#undef FORMAT_PIECE

/* PyUnicode_FromFormatV with handles for the object conversions. */
static PyObject *format_v(Cystck_State *S, const char *fmt, va_list *va, const char *func,
                          const void *where)
{
    PyObject *result, *piece;
    const char *start = fmt, *f;
    char *buf;
    if (!has_object_conversion(fmt))
        return PyUnicode_FromFormatV(fmt, *va);
    buf = (char *)PyMem_Malloc(strlen(fmt) + 1);
    result = PyUnicode_FromStringAndSize("", 0);
    if (buf == NULL || result == NULL) {
        PyMem_Free(buf);
        Py_XDECREF(result);
        return PyErr_NoMemory();
    }
    for (f = next_spec(start); ; f = next_spec(start)) {
        FormatSpec sp = f != NULL ? parse_spec(f) : (FormatSpec){NULL, ARG_NONE, 0};
        if (f == NULL || sp.arg == ARG_UNKNOWN) {
            /* the literal tail, or what CPython does with the rest */
            piece = *start ? PyUnicode_FromFormatV(start, *va) : NULL;
            if (*start)
                PyUnicode_AppendAndDel(&result, piece);
            break;
        }
        memcpy(buf, start, (size_t)(sp.end - start));
        buf[sp.end - start] = '\0';
        piece = format_piece(S, buf, sp, va, func, where);
        PyUnicode_AppendAndDel(&result, piece);
        if (result == NULL)
            break;
        start = sp.end;
    }
    PyMem_Free(buf);
    return result;
}

Cystck_Object CystckUnicode_FromFormat(Cystck_State *S, const char *fmt, ...)
{
    va_list va;
    PyObject *r;
    va_start(va, fmt);
    r = format_v(S, fmt, &va, "CystckUnicode_FromFormat", _CYSTCK_CALLER());
    va_end(va);
    return _Cystck_Own(S, r);
}

Cystck_Object CystckUnicode_FromFormatV(Cystck_State *S, const char *fmt, va_list va)
{
    va_list copy;      /* format_v reads through a pointer; the caller keeps va */
    PyObject *r;
    va_copy(copy, va);
    r = format_v(S, fmt, &copy, "CystckUnicode_FromFormatV", _CYSTCK_CALLER());
    va_end(copy);
    return _Cystck_Own(S, r);
}

Cystck_Object CystckTuple_Pack(Cystck_State *S, Cystck_ssize_t n, ...)
{
    PyObject *t;
    Cystck_ssize_t i;
    va_list va;
    t = PyTuple_New(n);
    if (t == NULL)
        return Cystck_NULL;
    va_start(va, n);
    for (i = 0; i < n; i++) {
        Cystck_Object h = va_arg(va, Cystck_Object);
        PyObject *o = _Cystck_Get(h);
        if (o == NULL) {
            va_end(va);
            Py_DECREF(t);
            return _Cystck_BadArgAt(S, "CystckTuple_Pack", h, _CYSTCK_CALLER());
        }
        PyTuple_SET_ITEM(t, i, Py_NewRef(o));
    }
    va_end(va);
    return _Cystck_Own(S, t);
}

/* PyDict_GetItemRef of Python 3.13, on every version: a new handle to
 * d[key] in *result (1), or a null one for a missing key (0, no exception)
 * or an error (-1, exception set; a non-dict d is SystemError, as there). */
int CystckDict_GetItemRef(Cystck_State *S, Cystck_Object d, Cystck_Object key, Cystck_Object *result)
{
    PyObject *d_ = _Cystck_Get(d), *key_ = _Cystck_Get(key), *item;
    *result = Cystck_NULL;
    if (d_ == NULL || key_ == NULL) {
        _Cystck_BadArgAt(S, "CystckDict_GetItemRef", d_ == NULL ? d : key, _CYSTCK_CALLER());
        return -1;
    }
    item = PyDict_GetItemWithError(d_, key_);
    if (item == NULL)
        return PyErr_Occurred() ? -1 : 0;
    *result = _Cystck_OwnBorrowed(S, item);
    return Cystck_IsNull(*result) ? -1 : 1;
}

int CystckDict_Next(Cystck_State *S, Cystck_Object d, Cystck_ssize_t *pos,
                    Cystck_Object *key, Cystck_Object *value)
{
    PyObject *d_ = _Cystck_Get(d), *k, *v;
    if (d_ == NULL) {
        _Cystck_BadArgAt(S, "CystckDict_Next", d, _CYSTCK_CALLER());
        return 0;
    }
    if (!PyDict_Next(d_, pos, &k, &v))
        return 0;
    /* Each item gets fresh handles; a loop over a large dict should close a
     * scope gate per iteration (or drop them) to keep the frame small.  At
     * the handle limit the loop must stop (0, MemoryError set): a `while`
     * loop reads any other answer as another item. */
    if (key != NULL && Cystck_IsNull(*key = _Cystck_OwnBorrowed(S, k)))
        return 0;
    if (value != NULL && Cystck_IsNull(*value = _Cystck_OwnBorrowed(S, v)))
        return 0;
    return 1;
}

/* Slot reuse (CystckDict_NextInto): debug mode, null handles in debug
 * mode, and handles in older chunks.  Only a live owned slot is written. */
void _Cystck_ReplaceSlow_Ool(Cystck_State *S, Cystck_Object *h, PyObject *o)
{
    PyObject **p = h->_p;
    _Cystck_SyncDebug(S);
    if (p != NULL && _Cystck_OwnsSlot(S, p) && *p != NULL) {
        PyObject *old = *p;
        *p = o;
        Py_DECREF(old);
        return;
    }
    *h = _Cystck_Own(S, o);
}

void _Cystck_ForgetSlow_Ool(Cystck_State *S, Cystck_Object *h)
{
    PyObject **p = h->_p;
    _Cystck_SyncDebug(S);
    if (p != NULL && _Cystck_OwnsSlot(S, p) && *p != NULL)
        _Cystck_DropSlow(S, *h);
}

void _Cystck_ForgetSlot_Ool(Cystck_State *S, Cystck_Object *h)
{
    _Cystck_Forget(S, h);
}

/* The slow path of the typed element accessors: subclasses, bad index,
 * wrong container.  Returns a borrowed item or NULL with an exception. */
PyObject *_Cystck_ItemOf_Ool(Cystck_State *S, PyObject *o, Cystck_ssize_t i, int want_list, const char *func)
{
    if (o == NULL) {
        _Cystck_BadArgAt(S, func, Cystck_NULL, _CYSTCK_CALLER());
        return NULL;
    }
    if (want_list ? !PyList_Check(o) : !PyTuple_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a %s, got %.200s", func,
                     want_list ? "list" : "tuple", Py_TYPE(o)->tp_name);
        return NULL;
    }
    return want_list ? PyList_GetItem(o, i) : PyTuple_GetItem(o, i);
}

/* ---- Errors ---- */

/* Does a raise through the API leave the pending exception, the handle
 * limit's MemoryError, in place?  Stock code translated reads the null
 * handle of a call that hit the limit as "missing" (PyDict_GetItem) or "no
 * int" (a type check of a PyList_GET_ITEM) and raises its own error, which
 * would hide the reason the call failed.  Only error paths ask: a raise
 * with nothing pending pays one PyErr_Occurred. */
static int keeps_limit_error(void)
{
    return PyErr_Occurred() != NULL && _Cystck_LimitErrorPending();
}

void _Cystck_ErrSetString(PyObject *type, const char *msg)
{
    if (!keeps_limit_error())
        PyErr_SetString(type, msg);
}

void _Cystck_ErrSetObject(PyObject *type, PyObject *value)
{
    if (!keeps_limit_error())
        PyErr_SetObject(type, value);
}

void _Cystck_ErrSetNone(PyObject *type)
{
    if (!keeps_limit_error())
        PyErr_SetNone(type);
}

PyObject *_Cystck_ErrSetFromErrno(PyObject *type)
{
    if (!keeps_limit_error())
        PyErr_SetFromErrno(type);
    return NULL;
}

CYSTCK_NOINLINE Cystck_Object _CystckErr_Format_Ool(Cystck_State *S, Cystck_Object type, const char *fmt, ...)
{
    PyObject *t = _Cystck_Get(type), *msg;
    va_list va;
    if (t == NULL)
        return _Cystck_BadArgAt(S, "CystckErr_Format", type, _CYSTCK_CALLER());
    _Cystck_NoteRaised(S);
    if (keeps_limit_error())
        return Cystck_NULL;
    /* as PyErr_FormatV: the formatter may run Python code (repr), so no
     * exception may be set while it runs; if it fails, its error stays. */
    PyErr_Clear();
    va_start(va, fmt);
    msg = format_v(S, fmt, &va, "CystckErr_Format", _CYSTCK_CALLER());
    va_end(va);
    if (msg != NULL) {
        PyErr_SetObject(t, msg);
        Py_DECREF(msg);
    }
    return Cystck_NULL;
}

int CystckErr_NoMemory(Cystck_State *S)
{
    _Cystck_NoteRaised(S);
    if (!keeps_limit_error())
        PyErr_NoMemory();
    return -1;
}

int CystckErr_BadArgument(Cystck_State *S)
{
    _Cystck_NoteRaised(S);
    if (!keeps_limit_error())
        PyErr_BadArgument();
    return -1;
}

/* Normalize PyErr_Fetch's three into the exception (new reference). */
static PyObject *normalized(PyObject *type, PyObject *value, PyObject *tb)
{
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL)
        PyException_SetTraceback(value, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
}

/* An exception taken out of the indicator (PyErr_Fetch's three, stolen)
 * that no handle can hold, the limit and the slots reserved past it being
 * taken: it becomes the __context__ of the limit's MemoryError, which
 * _Cystck_ExceptionRoom has set and the caller gets with its null
 * handles, so it is reported with that error rather than lost. */
static void keep_as_context(PyObject *type, PyObject *value, PyObject *tb)
{
    PyObject *limit_type, *limit_value, *limit_tb;
    PyErr_Fetch(&limit_type, &limit_value, &limit_tb);
    value = normalized(type, value, tb);
    PyErr_NormalizeException(&limit_type, &limit_value, &limit_tb);
    if (limit_value != NULL && value != NULL)
        PyException_SetContext(limit_value, value);
    else
        Py_XDECREF(value);
    PyErr_Restore(limit_type, limit_value, limit_tb);
}

Cystck_Object CystckErr_GetRaisedException(Cystck_State *S)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (type == NULL)
        return Cystck_NULL;
    if (_Cystck_ExceptionRoom(S, 1) < 0) {
        keep_as_context(type, value, tb);
        return Cystck_NULL;
    }
    return _Cystck_OwnException(S, normalized(type, value, tb));
}

/* PyErr_Fetch's three new references, each owned by a handle of the
   frame (a null handle for an absent one, as PyErr_Fetch gives NULL). */
void CystckErr_Fetch(Cystck_State *S, Cystck_Object *type, Cystck_Object *value, Cystck_Object *traceback)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    if (t != NULL && _Cystck_ExceptionRoom(S, 1 + (v != NULL) + (tb != NULL)) < 0) {
        keep_as_context(t, v, tb);
        *type = *value = *traceback = Cystck_NULL;
        return;
    }
    *type = _Cystck_OwnException(S, t);
    *value = _Cystck_OwnException(S, v);
    *traceback = _Cystck_OwnException(S, tb);
}

/* PyErr_NormalizeException on three handles (CystckErr_Fetch's): each
   object the normalizing replaced (the value made an instance of the type,
   a type or traceback changed with it) gets a new handle of the frame,
   stored where the stock function stores the new reference; the old
   handle is released with the frame, as the handles' other objects.
   The stock function takes the three references it is given and gives
   back three: it releases each object it replaces itself, so the extra
   reference lent to it is returned here only for an object it kept (the
   old handle's own reference stays until the frame closes: the new
   exception may hold the old value, e.g. a message in its args). */
void CystckErr_NormalizeException(Cystck_State *S, Cystck_Object *type, Cystck_Object *value,
                                  Cystck_Object *traceback)
{
    Cystck_Object *slots[3] = {type, value, traceback};
    PyObject *old[3], *now[3];
    for (int i = 0; i < 3; i++)
        old[i] = now[i] = Py_XNewRef(_Cystck_Get(*slots[i]));
    PyErr_NormalizeException(&now[0], &now[1], &now[2]);
    for (int i = 0; i < 3; i++) {
        if (now[i] == old[i])
            Py_XDECREF(now[i]);
        else
            *slots[i] = _Cystck_Own(S, now[i]);
    }
}

/* PyErr_Restore steals its arguments; the handles stay the caller's
   (released with the frame), so it is given references of its own.  The
   null handles of an exception CystckErr_Fetch could not hold leave the
   limit's MemoryError in place (keep_as_context), as a raise does. */
void CystckErr_Restore(Cystck_State *S, Cystck_Object type, Cystck_Object value, Cystck_Object traceback)
{
    if (_Cystck_Get(type) != NULL)
        _Cystck_NoteRaised(S);
    if (_Cystck_Get(type) == NULL && keeps_limit_error())
        return;
    PyErr_Restore(Py_XNewRef(_Cystck_Get(type)), Py_XNewRef(_Cystck_Get(value)),
                  Py_XNewRef(_Cystck_Get(traceback)));
}

void CystckErr_SetRaisedException(Cystck_State *S, Cystck_Object exc)
{
    PyObject *e = _Cystck_Get(exc);
    if (e == NULL) {
        _Cystck_BadArgAt(S, "CystckErr_SetRaisedException", exc, _CYSTCK_CALLER());
        return;
    }
    _Cystck_NoteRaised(S);
    PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(e)), Py_NewRef(e), PyException_GetTraceback(e));
}

/* PyUnicode_FSConverter and PyUnicode_FSDecoder on handles, called directly
   or as O& converters: *result (a Cystck_Object *) becomes a handle of the
   frame owning the value of os.fsencode(o) (a bytes-like object's copy) or
   os.fsdecode(o); the stock function's value, Py_CLEANUP_SUPPORTED, or 0
   with an exception.  A null o is the stock cleanup call: *result is
   released and made the null handle, 1. */
static int fs_convert(Cystck_State *S, Cystck_Object o, void *result, int (*convert)(PyObject *, void *),
                      const char *name)
{
    Cystck_Object *out = (Cystck_Object *)result;
    PyObject *r = NULL;
    int rc;
    if (o._p == NULL) {
        Cystck_Drop(S, *out);
        *out = Cystck_NULL;
        return 1;
    }
    if (_Cystck_Get(o) == NULL) {
        _Cystck_BadArg(S, name, o);
        return 0;
    }
    rc = convert(_Cystck_Get(o), &r);
    if (!rc)
        return 0;
    *out = _Cystck_Own(S, r);
    return Cystck_IsNull(*out) ? 0 : rc;
}

int CystckUnicode_FSConverter(Cystck_State *S, Cystck_Object o, void *result)
{
    return fs_convert(S, o, result, PyUnicode_FSConverter, "CystckUnicode_FSConverter");
}

int CystckUnicode_FSDecoder(Cystck_State *S, Cystck_Object o, void *result)
{
    return fs_convert(S, o, result, PyUnicode_FSDecoder, "CystckUnicode_FSDecoder");
}

/* _PyBytes_Resize(&b, n): b's handle afterwards holds a bytes object of n
 * bytes that starts with b's old bytes.  The stock function reallocates in
 * place, for which the bytes object must have no other reference (else
 * SystemError); a handle cannot tell its slot from an argument's the caller
 * owns, so the bytes are copied into a new object, which b's handle now
 * holds, and the old handle is released.  On error, as the stock function,
 * b becomes the null handle and its object is released. */
int CystckBytes_Resize(Cystck_State *S, Cystck_Object *b, Cystck_ssize_t n)
{
    PyObject *o = _Cystck_Get(*b), *r;
    Cystck_Object old = *b;
    if (o == NULL) {
        _Cystck_BadArg(S, "CystckBytes_Resize", *b);
        return -1;
    }
    if (!PyBytes_Check(o) || n < 0) {
        *b = Cystck_NULL;
        Cystck_Drop(S, old);
        PyErr_BadInternalCall();
        return -1;
    }
    if (PyBytes_GET_SIZE(o) == n)
        return 0;
    r = PyBytes_FromStringAndSize(NULL, n);
    if (r != NULL)
        memcpy(PyBytes_AS_STRING(r), PyBytes_AS_STRING(o), (size_t)Py_MIN(n, PyBytes_GET_SIZE(o)));
    *b = _Cystck_Own(S, r);
    Cystck_Drop(S, old);
    return Cystck_IsNull(*b) ? -1 : 0;
}
