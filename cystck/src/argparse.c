/*
 * Argument parsing straight from the argument handles: the format language
 * of PyArg_ParseTuple(AndKeywords) without building a tuple or a dict.
 * Errors use the same exception types and wording as CPython.
 */
#include "internal.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

#define MAX_SPECS 64

/* A parsed format.  Positions are offsets into the format string, so a
 * cached parse stays valid for any string with the same text. */
typedef struct {
    const char *fmt;          /* the format being used now */
    short fname;              /* offset of "name" after ':', or -1 */
    short message;            /* offset of the message after ';', or -1 */
    unsigned char nspecs;     /* number of values */
    unsigned char nrequired;  /* before '|' */
    unsigned char npositional;   /* before '$' */
    unsigned char spec[MAX_SPECS];   /* offset of each value's code */
} Format;

static int parse_format_text(const char *fmt, Format *f)
{
    const char *p = fmt;
    int nrequired = -1, npositional = -1;
    f->fname = f->message = -1;
    f->nspecs = 0;
    for (; *p; p++) {
        switch (*p) {
        case '|':
            nrequired = f->nspecs;
            continue;
        case '$':
            npositional = f->nspecs;
            continue;
        case ':':
            f->fname = (short)(p + 1 - fmt);
            goto done;
        case ';':
            f->message = (short)(p + 1 - fmt);
            goto done;
        case '#': case '!': case '&': case '*':
            continue;     /* modifiers of the previous code */
        case ' ': case '\t':
            continue;
        default:
            if (f->nspecs == MAX_SPECS || p - fmt > UCHAR_MAX) {
                PyErr_SetString(PyExc_SystemError, "CystckArg: format too long");
                return -1;
            }
            f->spec[f->nspecs++] = (unsigned char)(p - fmt);
        }
    }
done:
    f->npositional = (unsigned char)(npositional >= 0 ? npositional : f->nspecs);
    f->nrequired = (unsigned char)(nrequired >= 0 ? nrequired : f->npositional);
    return 0;
}

/* Parsing a format costs more than binding the arguments it describes, so
 * parses are cached by the format's address and checked against its text. */
#define FORMAT_CACHE 64
#define FORMAT_CACHED_LEN 48

typedef struct {
    const char *addr;
    char text[FORMAT_CACHED_LEN];
    Format f;
} CachedFormat;

static CachedFormat format_cache[FORMAT_CACHE];

static int parse_format(const char *fmt, Format *f)
{
    CachedFormat *c = &format_cache[((uintptr_t)fmt >> 3) % FORMAT_CACHE];
    size_t len;
    if (c->addr == fmt && strcmp(c->text, fmt) == 0) {
        *f = c->f;
        f->fmt = fmt;
        return 0;
    }
    if (parse_format_text(fmt, f) < 0)
        return -1;
    f->fmt = fmt;
    len = strlen(fmt);
    if (len < FORMAT_CACHED_LEN) {
        memcpy(c->text, fmt, len + 1);
        c->f = *f;
        c->addr = fmt;
    }
    return 0;
}

/* "name()" or "function" for messages. */
static void describe(const Format *f, char *buf, size_t size)
{
    if (f->fname >= 0) {
        const char *fname = f->fmt + f->fname;
        size_t n = strcspn(fname, ";");
        PyOS_snprintf(buf, size, "%.*s()", (int)n, fname);
    }
    else {
        PyOS_snprintf(buf, size, "function");
    }
}

static int type_error(const Format *f, int index, const char *expected, PyObject *got)
{
    char name[128];
    describe(f, name, sizeof(name));
    if (f->message >= 0)
        PyErr_SetString(PyExc_TypeError, f->fmt + f->message);
    else
        PyErr_Format(PyExc_TypeError, "%s argument %d must be %s, not %.50s",
                     name, index + 1, expected,
                     got == Py_None ? "None" : Py_TYPE(got)->tp_name);
    return -1;
}

static int long_in_range(const Format *f, long v, long lo, long hi, const char *what)
{
    (void)f;
    if (v < lo) {
        PyErr_Format(PyExc_OverflowError, "%s is less than minimum", what);
        return -1;
    }
    if (v > hi) {
        PyErr_Format(PyExc_OverflowError, "%s is greater than maximum", what);
        return -1;
    }
    return 0;
}

static int reject_float(const Format *f, int index, PyObject *o)
{
    if (!PyLong_CheckExact(o) && PyFloat_Check(o))
        return type_error(f, index, "int", o);
    return 0;
}

/* Convert one value; `code` points at its format unit. */
static int convert(Cystck_State *S, const Format *f, int index, const char **code,
                   Cystck_Object h, va_list *va)
{
    PyObject *o = *h._p;
    char c = *(*code)++;
    long v;
    switch (c) {
    case 'b': case 'h': case 'i': case 'B': case 'H':
        if (reject_float(f, index, o) < 0) return -1;
        v = PyLong_AsLong(o);
        if (v == -1 && PyErr_Occurred()) return -1;
        if (c == 'b') {
            if (long_in_range(f, v, 0, UCHAR_MAX, "unsigned byte integer") < 0) return -1;
            *va_arg(*va, unsigned char *) = (unsigned char)v;
        } else if (c == 'B') {
            *va_arg(*va, unsigned char *) = (unsigned char)v;
        } else if (c == 'h') {
            if (long_in_range(f, v, SHRT_MIN, SHRT_MAX, "signed short integer") < 0) return -1;
            *va_arg(*va, short *) = (short)v;
        } else if (c == 'H') {
            *va_arg(*va, unsigned short *) = (unsigned short)v;
        } else {
            if (long_in_range(f, v, INT_MIN, INT_MAX, "signed integer") < 0) return -1;
            *va_arg(*va, int *) = (int)v;
        }
        return 0;
    case 'I':
        if (reject_float(f, index, o) < 0) return -1;
        *va_arg(*va, unsigned int *) = (unsigned int)PyLong_AsUnsignedLongMask(o);
        return PyErr_Occurred() ? -1 : 0;
    case 'l':
        if (reject_float(f, index, o) < 0) return -1;
        v = PyLong_AsLong(o);
        if (v == -1 && PyErr_Occurred()) return -1;
        *va_arg(*va, long *) = v;
        return 0;
    case 'k':
        if (!PyLong_Check(o)) return type_error(f, index, "int", o);
        *va_arg(*va, unsigned long *) = PyLong_AsUnsignedLongMask(o);
        return 0;
    case 'L': {
        long long ll;
        if (reject_float(f, index, o) < 0) return -1;
        ll = PyLong_AsLongLong(o);
        if (ll == -1 && PyErr_Occurred()) return -1;
        *va_arg(*va, long long *) = ll;
        return 0;
    }
    case 'K':
        if (!PyLong_Check(o)) return type_error(f, index, "int", o);
        *va_arg(*va, unsigned long long *) = PyLong_AsUnsignedLongLongMask(o);
        return 0;
    case 'n': {
        Py_ssize_t n;
        PyObject *idx;
        if (reject_float(f, index, o) < 0) return -1;
        idx = PyNumber_Index(o);
        if (idx == NULL) return -1;
        n = PyLong_AsSsize_t(idx);
        Py_DECREF(idx);
        if (n == -1 && PyErr_Occurred()) return -1;
        *va_arg(*va, Py_ssize_t *) = n;
        return 0;
    }
    case 'f': case 'd': {
        double d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred()) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                return type_error(f, index, "float", o);
            }
            return -1;
        }
        if (c == 'f') *va_arg(*va, float *) = (float)d;
        else *va_arg(*va, double *) = d;
        return 0;
    }
    case 'p': {
        int t = PyObject_IsTrue(o);
        if (t < 0) return -1;
        *va_arg(*va, int *) = t;
        return 0;
    }
    case 'c':
        if (PyBytes_Check(o) && PyBytes_GET_SIZE(o) == 1)
            *va_arg(*va, char *) = PyBytes_AS_STRING(o)[0];
        else if (PyByteArray_Check(o) && PyByteArray_GET_SIZE(o) == 1)
            *va_arg(*va, char *) = PyByteArray_AS_STRING(o)[0];
        else
            return type_error(f, index, "a byte string of length 1", o);
        return 0;
    case 'C':
        if (!PyUnicode_Check(o) || PyUnicode_GET_LENGTH(o) != 1)
            return type_error(f, index, "a unicode character", o);
        *va_arg(*va, int *) = (int)PyUnicode_READ_CHAR(o, 0);
        return 0;
    case 's': case 'z': case 'y': {
        const char *s;
        Py_ssize_t n;
        int with_size = **code == '#';
        if (with_size) (*code)++;
        if (c == 'z' && o == Py_None) {
            *va_arg(*va, const char **) = NULL;
            if (with_size) *va_arg(*va, Py_ssize_t *) = 0;
            return 0;
        }
        if (c == 'y') {
            if (!PyBytes_Check(o)) return type_error(f, index, "bytes", o);
            s = PyBytes_AS_STRING(o);
            n = PyBytes_GET_SIZE(o);
        } else {
            if (!PyUnicode_Check(o))
                return type_error(f, index, c == 'z' ? "str or None" : "str", o);
            s = PyUnicode_AsUTF8AndSize(o, &n);
            if (s == NULL) return -1;
        }
        if (!with_size && (Py_ssize_t)strlen(s) != n) {
            PyErr_SetString(PyExc_ValueError, c == 'y' ? "embedded null byte"
                                                       : "embedded null character");
            return -1;
        }
        *va_arg(*va, const char **) = s;
        if (with_size) *va_arg(*va, Py_ssize_t *) = n;
        return 0;
    }
    case 'U':
        if (!PyUnicode_Check(o)) return type_error(f, index, "str", o);
        *va_arg(*va, Cystck_Object *) = h;
        return 0;
    case 'S':
        if (!PyBytes_Check(o)) return type_error(f, index, "bytes", o);
        *va_arg(*va, Cystck_Object *) = h;
        return 0;
    case 'O':
        if (**code == '!') {
            PyObject *type = _Cystck_Get(va_arg(*va, Cystck_Object));
            (*code)++;
            if (type == NULL || !PyType_Check(type)) {
                PyErr_SetString(PyExc_SystemError, "CystckArg: O! needs a type handle");
                return -1;
            }
            if (!PyObject_TypeCheck(o, (PyTypeObject *)type))
                return type_error(f, index, ((PyTypeObject *)type)->tp_name, o);
            *va_arg(*va, Cystck_Object *) = h;
            return 0;
        }
        if (**code == '&') {
            CystckArg_Converter conv = va_arg(*va, CystckArg_Converter);
            void *out = va_arg(*va, void *);
            (*code)++;
            return conv(S, h, out) ? 0 : -1;
        }
        *va_arg(*va, Cystck_Object *) = h;
        return 0;
    default:
        PyErr_Format(PyExc_SystemError, "CystckArg: unsupported format unit '%c'", c);
        return -1;
    }
}

/* Skip the va_args of a value that was not given. */
static void skip(const char *code, va_list *va)
{
    char c = *code++;
    int with_size = *code == '#';
    switch (c) {
    case 'O':
        if (*code == '!') { (void)va_arg(*va, Cystck_Object); (void)va_arg(*va, void *); return; }
        if (*code == '&') { (void)va_arg(*va, CystckArg_Converter); (void)va_arg(*va, void *); return; }
        (void)va_arg(*va, void *);
        return;
    case 's': case 'z': case 'y':
        (void)va_arg(*va, void *);
        if (with_size) (void)va_arg(*va, void *);
        return;
    default:
        (void)va_arg(*va, void *);
    }
}

/* A keyword parser: a parsed format with its keyword names interned, so
 * matching the names a call passes is mostly pointer comparisons.  Cached by
 * the addresses of the format and the keyword list, and checked against the
 * list's string pointers; like CPython's own keyword parsers it assumes the
 * format at an address does not change (they are string literals). */
#define PARSER_CACHE 32

/* How the fast path converts a value: the common codes inline, the rest
 * through convert(). */
enum { OP_GENERIC, OP_LONG, OP_DOUBLE, OP_OBJECT };

typedef struct {
    const char *fmt;
    const char **kwlist;
    Format f;
    const char *ptrs[MAX_SPECS];
    PyObject *names[MAX_SPECS];       /* NULL for positional-only ("") */
    unsigned char op[MAX_SPECS];      /* OP_* of each value */
    unsigned char all_inline;         /* no OP_GENERIC: binding runs no Python code */
    /* The keyword names tuple a call site passed last (vectorcall keeps
     * one tuple per call site, a constant of its code object), resolved:
     * kwslot[i] is the position in it of value i's name, or -1.  kwmin is
     * the first value it names: positional arguments must stop before. */
    PyObject *kwnames;                /* strong reference, or NULL */
    signed char kwslot[MAX_SPECS];
    unsigned char kwmin;
    /* Where each value comes from for kwnames and src_nargs positional
     * arguments: its index in args, or -1 (not given, optional).  src_nargs
     * is -1 when not computed or when that call cannot bind. */
    int src_nargs;
    PyObject *src_kw;                 /* NULL or kwnames: src is for it */
    signed char src[MAX_SPECS];
} KwParser;

static KwParser parser_cache[PARSER_CACHE];

static const KwParser *kw_parser_make(KwParser *e, const char *fmt, const char **kwlist);

static inline const KwParser *kw_parser(const char *fmt, const char **kwlist)
{
    KwParser *e = &parser_cache[(((uintptr_t)kwlist >> 4) ^ ((uintptr_t)fmt >> 3)) % PARSER_CACHE];
    int i, n;
    if (Cystck_unlikely(e->kwlist != kwlist || e->fmt != fmt))
        return kw_parser_make(e, fmt, kwlist);
    n = e->f.nspecs;
    for (i = 0; i < n; i++)
        if (Cystck_unlikely(e->ptrs[i] != kwlist[i]))
            return kw_parser_make(e, fmt, kwlist);
    return e;
}

static __attribute__((noinline)) const KwParser *kw_parser_make(KwParser *e, const char *fmt,
                                                                const char **kwlist)
{
    int i;
    for (i = 0; e->kwlist != NULL && i < e->f.nspecs; i++)
        Py_CLEAR(e->names[i]);
    Py_CLEAR(e->kwnames);
    e->src_nargs = -1;
    e->kwlist = NULL;
    if (parse_format_text(fmt, &e->f) < 0)
        return NULL;
    e->f.fmt = fmt;
    for (i = 0; i < e->f.nspecs; i++) {
        if (kwlist[i] == NULL) {
            PyErr_SetString(PyExc_SystemError,
                            "CystckArg: kwlist has fewer names than the format has units");
            e->f.nspecs = (unsigned char)i;
            e->kwlist = kwlist;     /* so the names made so far are released */
            e->fmt = NULL;
            return NULL;
        }
        const char *code = fmt + e->f.spec[i];
        e->op[i] = code[0] == 'l' ? OP_LONG :
                   code[0] == 'd' ? OP_DOUBLE :
                   code[0] == 'O' && code[1] != '!' && code[1] != '&' ? OP_OBJECT : OP_GENERIC;
        e->ptrs[i] = kwlist[i];
        e->names[i] = kwlist[i][0] ? PyUnicode_InternFromString(kwlist[i]) : NULL;
        if (kwlist[i][0] && e->names[i] == NULL) {
            e->f.nspecs = (unsigned char)i;
            e->kwlist = kwlist;
            e->fmt = NULL;
            return NULL;
        }
    }
    e->all_inline = 1;
    for (i = 0; i < e->f.nspecs; i++)
        if (e->op[i] == OP_GENERIC)
            e->all_inline = 0;
    e->kwlist = kwlist;
    e->fmt = fmt;
    return e;
}

/* The format unit a keyword names, or -1 (with no exception) if none. */
static inline int match_keyword(PyObject *const *names, int n, PyObject *key)
{
    int i;
    for (i = 0; i < n; i++)
        if (names[i] == key)
            return i;
    for (i = 0; i < n; i++)
        if (names[i] != NULL && PyUnicode_Compare(names[i], key) == 0)
            return i;
    return -1;
}

/* Put keyword value v (for key, a str) into bound[], checking for mistakes. */
static inline int bind_keyword(const Format *f, PyObject *const *names,
                               const char **kwlist, Cystck_ssize_t nargs, PyObject *key,
                               Cystck_Object v, Cystck_Object *bound)
{
    char name[128];
    int idx = match_keyword(names, f->nspecs, key);
    if (idx < 0 || idx < nargs)
        describe(f, name, sizeof(name));
    if (idx < 0) {
        PyErr_Format(PyExc_TypeError, "'%U' is an invalid keyword argument for %s", key, name);
        return -1;
    }
    if (idx < nargs) {
        PyErr_Format(PyExc_TypeError, "argument for %s given by name ('%s') and position (%d)",
                     name, kwlist[idx], idx + 1);
        return -1;
    }
    bound[idx] = v;
    return 0;
}

/* Value i is required and was not given: raise, return 0. */
static int missing_required(const Format *f, const char **kwlist, int i, Cystck_ssize_t nargs)
{
    char name[128];
    describe(f, name, sizeof(name));
    if (kwlist != NULL && kwlist[i] && kwlist[i][0])
        PyErr_Format(PyExc_TypeError, "%s missing required argument '%s' (pos %d)",
                     name, kwlist[i], i + 1);
    else
        PyErr_Format(PyExc_TypeError, "%s takes %s %d argument%s (%zd given)",
                     name, f->nrequired == f->nspecs ? "exactly" : "at least",
                     f->nrequired, f->nrequired == 1 ? "" : "s", nargs);
    return 0;
}

/* Resolve a tuple of keyword names for parser p once: 0, or -1 (no
 * exception) if a name is unknown or repeated, which the general path
 * reports. */
static int resolve_kwnames(KwParser *p, PyObject *kwnames)
{
    Py_ssize_t j, nkw = PyTuple_GET_SIZE(kwnames);
    int i, kwmin = p->f.nspecs;
    Py_CLEAR(p->kwnames);
    for (i = 0; i < p->f.nspecs; i++)
        p->kwslot[i] = -1;
    if (nkw > MAX_SPECS)
        return -1;
    for (j = 0; j < nkw; j++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, j);
        int idx;
        if (!PyUnicode_Check(key))
            return -1;
        idx = match_keyword(p->names, p->f.nspecs, key);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return -1;
        }
        if (idx < 0 || p->kwslot[idx] >= 0)
            return -1;
        p->kwslot[idx] = (signed char)j;
        if (idx < kwmin)
            kwmin = idx;
    }
    p->kwmin = (unsigned char)kwmin;
    p->kwnames = Py_NewRef(kwnames);
    return 0;
}

/* The fast path of CystckArg_ParseTupleAndKeywords for calls that bind
 * without error: positional arguments within bounds, keyword names (a
 * vectorcall tuple) all known and none also given by position.  Binding
 * then reads the values straight from args through the resolved names, and
 * the common codes are converted inline.  Returns 1 or 0 like the API, or
 * -2 with nothing consumed from va when the general path must decide. */
/* Set p->src for kwobj (NULL or a tuple of names) and nargs: 0, or -1 when
 * such a call does not bind (the general path reports why). */
static int resolve_sources(KwParser *p, PyObject *kwobj, Cystck_ssize_t nargs)
{
    int i;
    p->src_nargs = -1;
    if (kwobj != NULL && kwobj != p->kwnames &&
            (!PyTuple_CheckExact(kwobj) || resolve_kwnames(p, kwobj) < 0))
        return -1;
    if (nargs > p->f.npositional || (kwobj != NULL && nargs > p->kwmin))
        return -1;
    for (i = 0; i < p->f.nspecs; i++) {
        if (i < nargs)
            p->src[i] = (signed char)i;
        else if (kwobj != NULL && p->kwslot[i] >= 0)
            p->src[i] = (signed char)(nargs + p->kwslot[i]);
        else if (i < p->f.nrequired)
            return -1;
        else
            p->src[i] = -1;
    }
    p->src_kw = kwobj;
    p->src_nargs = (int)nargs;
    return 0;
}

/* Bind and convert each value from args through src. */
static inline __attribute__((always_inline))
int bind_fast(Cystck_State *S, const Cystck_Object *args, const Format *f,
              const unsigned char *op, const signed char *src, const char *fmt,
              va_list *va, int all_inline)
{
    int i, n = f->nspecs;
    for (i = 0; i < n; i++) {
        Cystck_Object h;
        PyObject *o;
        int from = src[i];
        if (from < 0) {
            skip(fmt + f->spec[i], va);
            continue;
        }
        h = args[from];
        o = *h._p;
        if (op[i] == OP_LONG) {
            if (Cystck_likely(PyLong_CheckExact(o))) {
                long v = PyLong_AsLong(o);
                if (v == -1 && PyErr_Occurred())
                    return 0;
                *va_arg(*va, long *) = v;
                continue;
            }
        }
        else if (op[i] == OP_DOUBLE) {
            if (Cystck_likely(PyFloat_CheckExact(o))) {
                *va_arg(*va, double *) = PyFloat_AS_DOUBLE(o);
                continue;
            }
        }
        else if (op[i] == OP_OBJECT) {
            *va_arg(*va, Cystck_Object *) = h;
            continue;
        }
        (void)all_inline;
        {
            const char *code = fmt + f->spec[i];
            if (convert(S, f, i, &code, h, va) < 0)
                return 0;
        }
    }
    return 1;
}

/* The fast path of CystckArg_ParseTupleAndKeywords for calls that bind
 * without error: positional arguments within bounds, keyword names (a
 * vectorcall tuple) all known, none also given by position, every required
 * value given.  The call site's names tuple (vectorcall keeps one per call
 * site, a constant of its code object) is resolved once, with the number of
 * positional arguments, into where each value comes from; binding then
 * reads the values straight from args and converts the common codes
 * inline.  Returns 1 or 0 like the API, or -2 with nothing consumed from va
 * when the general path must decide. */
static inline __attribute__((always_inline))
int parse_fast(Cystck_State *S, KwParser *p, const Cystck_Object *args, Cystck_ssize_t nargs,
               PyObject *kwobj, const char *fmt, va_list *va)
{
    if (Cystck_unlikely(p == NULL)) {
        PyErr_Clear();          /* the general path raises it again */
        return -2;
    }
    if (Cystck_unlikely(kwobj != p->src_kw || nargs != p->src_nargs) &&
            resolve_sources(p, kwobj, nargs) < 0)
        return -2;
    if (!p->all_inline) {
        /* Conversions may run Python code that parses arguments with
         * another parser in p's cache entry (or with p and other names):
         * bind from a copy. */
        struct { Format f; unsigned char op[MAX_SPECS]; signed char src[MAX_SPECS]; } c;
        c.f = p->f;
        memcpy(c.op, p->op, c.f.nspecs);
        memcpy(c.src, p->src, c.f.nspecs);
        return bind_fast(S, args, &c.f, c.op, c.src, fmt, va, 0);
    }
    return bind_fast(S, args, &p->f, p->op, p->src, fmt, va, 1);
}

static int parse(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                 Cystck_Object kw, const char *fmt, const char **kwlist, va_list *va)
{
    Format f;
    char name[128];
    int i;
    Cystck_Object bound[MAX_SPECS];
    PyObject *kwobj = _Cystck_Get(kw);

    const KwParser *parser = NULL;

    if (kwlist != NULL) {
        parser = kw_parser(fmt, kwlist);
        if (parser == NULL)
            return 0;
        f = parser->f;
    }
    else if (parse_format(fmt, &f) < 0) {
        return 0;
    }
    if (nargs > f.npositional) {
        describe(&f, name, sizeof(name));
        if (f.npositional == f.nrequired && kwobj == NULL)
            PyErr_Format(PyExc_TypeError, "%s takes %s %d argument%s (%zd given)", name,
                         f.nrequired == f.nspecs ? "exactly" : "at most",
                         f.npositional, f.npositional == 1 ? "" : "s", nargs);
        else
            PyErr_Format(PyExc_TypeError, "%s takes at most %d %sargument%s (%zd given)",
                         name, f.npositional, kwlist ? "positional " : "",
                         f.npositional == 1 ? "" : "s", nargs);
        return 0;
    }
    for (i = 0; i < f.nspecs; i++)
        bound[i] = i < nargs ? args[i] : Cystck_NULL;
    if (kwobj != NULL) {
        PyObject *const *names;
        if (parser == NULL) {
            describe(&f, name, sizeof(name));
            PyErr_Format(PyExc_TypeError, "%s takes no keyword arguments", name);
            return 0;
        }
        names = parser->names;
        if (PyTuple_Check(kwobj)) {            /* vectorcall: values follow args,
                                                  names are always str */
            Py_ssize_t j, nkw = PyTuple_GET_SIZE(kwobj);
            for (j = 0; j < nkw; j++)
                if (bind_keyword(&f, names, kwlist, nargs, PyTuple_GET_ITEM(kwobj, j),
                                 args[nargs + j], bound) < 0)
                    return 0;
        }
        else {                                 /* a dict, from tp_new/tp_init/tp_call */
            Py_ssize_t pos = 0;
            PyObject *key, *value;
            while (PyDict_Next(kwobj, &pos, &key, &value)) {
                /* The dict may change during conversion: hold the value. */
                Cystck_Object h;
                if (!PyUnicode_Check(key)) {
                    PyErr_SetString(PyExc_TypeError, "keywords must be strings");
                    return 0;
                }
                h = _Cystck_OwnBorrowed(S, value);
                if (Cystck_IsNull(h) ||
                    bind_keyword(&f, names, kwlist, nargs, key, h, bound) < 0)
                    return 0;
            }
        }
    }
    for (i = 0; i < f.nspecs; i++) {
        const char *code = f.fmt + f.spec[i];
        if (bound[i]._p == NULL) {
            if (i < f.nrequired)
                return missing_required(&f, kwlist, i, nargs);
            skip(code, va);
            continue;
        }
        if (convert(S, &f, i, &code, bound[i], va) < 0)
            return 0;
    }
    return 1;
}

int CystckArg_ParseTuple(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                         const char *fmt, ...)
{
    va_list va;
    int r;
    va_start(va, fmt);
    r = parse(S, args, nargs, Cystck_NULL, fmt, NULL, &va);
    va_end(va);
    return r;
}

/* The keyword arguments as parse_fast and parse take them: an empty dict or
 * tuple of keywords is the same as none. */
static inline PyObject *given_keywords(Cystck_Object *kw)
{
    PyObject *k = _Cystck_Get(*kw);
    if (k != NULL && ((PyTuple_Check(k) && PyTuple_GET_SIZE(k) == 0) ||
                      (PyDict_Check(k) && PyDict_GET_SIZE(k) == 0))) {
        *kw = Cystck_NULL;
        return NULL;
    }
    return k;
}

int (CystckArg_ParseTupleAndKeywords)(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                                    Cystck_Object kw, const char *fmt, const char **kwlist, ...)
{
    va_list va;
    int r;
    PyObject *k = given_keywords(&kw);
    va_start(va, kwlist);
    r = kwlist != NULL ? parse_fast(S, (KwParser *)kw_parser(fmt, kwlist), args, nargs, k, fmt, &va) : -2;
    if (r == -2)
        r = parse(S, args, nargs, kw, fmt, kwlist, &va);
    va_end(va);
    return r;
}

/* A call site's own parser, made on its first call (and again if the site
 * passes another format or keyword list).  Never freed: like the parsers
 * of CPython's Argument Clinic, it lives as long as the extension. */
static KwParser *site_parser(_CystckArg_Site *site, const char *fmt, const char **kwlist)
{
    KwParser *p = (KwParser *)site->parser;
    if (p == NULL) {
        p = (KwParser *)PyMem_RawCalloc(1, sizeof(KwParser));
        if (p == NULL)
            return NULL;        /* the general path parses without it */
        p->src_nargs = -1;
        site->parser = p;
    }
    return (KwParser *)kw_parser_make(p, fmt, kwlist);
}

int _CystckArg_ParseTupleAndKeywordsAt(_CystckArg_Site *site, Cystck_State *S, const Cystck_Object *args,
                                       Cystck_ssize_t nargs, Cystck_Object kw, const char *fmt,
                                       const char **kwlist, ...)
{
    va_list va;
    int r = -2;
    PyObject *k = given_keywords(&kw);
    va_start(va, kwlist);
    if (kwlist != NULL) {
        /* The site's format and list are the ones its parser was made for
         * (their strings are not compared: a call site's list does not
         * change, which the shared cache of the function form cannot
         * assume). */
        KwParser *p = (KwParser *)site->parser;
        if (Cystck_unlikely(p == NULL || p->fmt != fmt || p->kwlist != kwlist))
            p = site_parser(site, fmt, kwlist);
        r = parse_fast(S, p, args, nargs, k, fmt, &va);
    }
    if (r == -2)
        r = parse(S, args, nargs, kw, fmt, kwlist, &va);
    va_end(va);
    return r;
}

int CystckArg_UnpackTuple(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                          const char *name, Cystck_ssize_t min, Cystck_ssize_t max, ...)
{
    va_list va;
    Cystck_ssize_t i;
    (void)S;
    if (nargs < min || nargs > max) {
        if (min == max)
            PyErr_Format(PyExc_TypeError, "%s expected %s%zd argument%s, got %zd",
                         name, "", min, min == 1 ? "" : "s", nargs);
        else
            PyErr_Format(PyExc_TypeError, "%s expected %s %zd argument%s, got %zd", name,
                         nargs < min ? "at least" : "at most", nargs < min ? min : max,
                         (nargs < min ? min : max) == 1 ? "" : "s", nargs);
        return 0;
    }
    va_start(va, max);
    for (i = 0; i < nargs; i++)
        *va_arg(va, Cystck_Object *) = args[i];
    va_end(va);
    return 1;
}

int CystckArg_NoKeywords(Cystck_State *S, const char *name, Cystck_Object kw)
{
    PyObject *k = _Cystck_Get(kw);
    (void)S;
    if (k == NULL || (PyDict_Check(k) && PyDict_GET_SIZE(k) == 0) ||
        (PyTuple_Check(k) && PyTuple_GET_SIZE(k) == 0))
        return 1;
    PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments", name);
    return 0;
}
