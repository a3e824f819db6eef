/*
 * Argument parsing straight from the argument handles: the format language
 * of PyArg_ParseTuple(AndKeywords) without building a tuple or a dict.
 * Errors use the same exception types and wording as CPython's
 * Python/getargs.c, and mistakes are checked in its order, so a call with
 * several gets the same error.
 *
 * A format is checked whole before any value is converted: a unit Cystck
 * does not implement raises SystemError naming it, with no output written.
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
    unsigned char has_optional;  /* the format has a '|' */
    unsigned char spec[MAX_SPECS];   /* offset of each value's unit */
} Format;

/* The length of the unit at p (1 or 2 characters) if Cystck implements
 * it, else 0. */
static int unit_length(const char *p)
{
    int n;
    switch (p[0]) {
    case 'b': case 'B': case 'h': case 'H': case 'i': case 'I': case 'l': case 'k':
    case 'L': case 'K': case 'n': case 'f': case 'd': case 'D': case 'c': case 'C':
    case 'p': case 'S': case 'Y': case 'U':
        n = 1;
        break;
    case 's': case 'z': case 'y':
        n = p[1] == '#' || p[1] == '*' ? 2 : 1;
        break;
    case 'w':
        n = p[1] == '*' ? 2 : 0;
        break;
    case 'e':       /* es et es# et# */
        n = p[1] == 's' || p[1] == 't' ? 2 + (p[2] == '#') : 0;
        break;
    case 'O':
        n = p[1] == '!' || p[1] == '&' ? 2 : 1;
        break;
    default:
        return 0;
    }
    /* A modifier the unit does not take ("i#") makes another unit. */
    return n > 0 && p[n] != '\0' && strchr("#*!&", p[n]) != NULL ? 0 : n;
}

/* Raise SystemError for the unit at p, which Cystck does not implement. */
static CYSTCK_COLD int unsupported_unit(const char *fmt, const char *p)
{
    char unit[32];
    size_t n = 1;
    if (p[0] == '(') {
        n = strcspn(p, ")");
        n += p[n] == ')';
    }
    else if (p[0] == 'e') {         /* "es", "et", "es#", "et#" */
        n += p[1] != '\0';
        n += n == 2 && p[2] == '#';
    }
    else if (p[1] != '\0' && strchr("#*!&", p[1]) != NULL) {
        n = 2;
    }
    PyOS_snprintf(unit, sizeof(unit), "%.*s", (int)n, p);   /* PyErr_Format has no %.*s */
    PyErr_Format(PyExc_SystemError,
                 "CystckArg: format unit '%s' in format \"%s\" is not supported "
                 "(see docs/runtime.md, Argument parsing)", unit, fmt);
    return -1;
}

/* ---- Nested sequences: the "(...)" unit ----
 * One value, a sequence whose items the units inside convert (CPython's
 * converttuple).  Everything about it is out of line: formats without
 * parentheses never reach this code. */

#define MAX_NESTING 30

/* The length of the "(...)" unit at p, parentheses included, with *units
 * set to the number of values directly inside (if units is not NULL); 0
 * if a unit inside is none Cystck implements (*bad then points at it),
 * the ')' is missing or the nesting is too deep. */
static CYSTCK_COLD int group_length(const char *p, int depth, int *units, const char **bad)
{
    const char *q = p + 1;
    int n = 0;
    if (depth > MAX_NESTING) {
        *bad = p;
        return 0;
    }
    while (*q != ')') {
        int len = *q == '(' ? group_length(q, depth + 1, NULL, bad) : unit_length(q);
        if (len == 0) {
            if (*q != '(')
                *bad = *q == '\0' || *q == ':' || *q == ';' ? p : q;
            return 0;
        }
        q += len;
        n++;
    }
    if (units != NULL)
        *units = n;
    return (int)(q + 1 - p);
}

/* The length of the unit at p, a "(...)" one included (p was checked). */
static CYSTCK_COLD int any_unit_length(const char *p)
{
    const char *bad;
    int n = unit_length(p);
    return n > 0 ? n : group_length(p, 0, NULL, &bad);
}

/* parse_format_text's unit at p that unit_length refused: the length of a
 * "(...)" unit, or -1 with SystemError for what Cystck does not implement. */
static CYSTCK_COLD CYSTCK_NOINLINE int group_unit_length(const char *fmt, const char *p)
{
    const char *bad = p;
    int n = p[0] == '(' ? group_length(p, 0, NULL, &bad) : 0;
    return n > 0 ? n : unsupported_unit(fmt, bad);
}

static int parse_format_text(const char *fmt, Format *f)
{
    const char *p = fmt;
    int nrequired = -1, npositional = -1;
    f->fname = f->message = -1;
    f->nspecs = 0;
    for (; *p; p++) {
        int n;
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
        case ' ': case '\t':
            continue;
        }
        n = unit_length(p);
        if (n == 0 && (n = group_unit_length(fmt, p)) < 0)
            return -1;
        if (f->nspecs == MAX_SPECS || p - fmt > UCHAR_MAX) {
            PyErr_Format(PyExc_SystemError, "CystckArg: format \"%s\" too long", fmt);
            return -1;
        }
        f->spec[f->nspecs++] = (unsigned char)(p - fmt);
        p += n - 1;
    }
done:
    f->npositional = (unsigned char)(npositional >= 0 ? npositional : f->nspecs);
    f->nrequired = (unsigned char)(nrequired >= 0 ? nrequired : f->nspecs);
    f->has_optional = nrequired >= 0;
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

/* "name()" for messages, or `nameless` when the format names no function
 * (CPython says "function", or "this function" in some messages). */
static const char *describe(const Format *f, char *buf, size_t size, const char *nameless)
{
    if (f->fname < 0)
        return nameless;
    PyOS_snprintf(buf, size, "%.200s()", f->fmt + f->fname);
    return buf;
}

/* The context of a value inside "(...)" units: a copy of the format's
 * Format, its nspecs 0 (which no format that converts values has) to mark
 * it, and the item indexes from the argument down to the value. */
typedef struct {
    Format f;
    int depth;
    int levels[MAX_NESTING + 2];
} Nested;

/* Value `index` did not convert: raise CPython's seterror for msg (an
 * exception the conversion raised stands).  The format's message after
 * ';', or "[name() ]argument N[, item K...] MSG"; a msg in parentheses is
 * the caller's mistake, a SystemError. */
static CYSTCK_COLD CYSTCK_NOINLINE int argument_error(const Format *f, int index, const char *msg)
{
    char buf[512];
    size_t k = 0;
    int i;
    PyObject *exc = msg[0] == '(' ? PyExc_SystemError : PyExc_TypeError;
    if (PyErr_Occurred())
        return -1;
    if (f->message >= 0) {
        PyErr_SetString(exc, f->fmt + f->message);
        return -1;
    }
    if (f->fname >= 0)
        k = (size_t)PyOS_snprintf(buf, sizeof(buf), "%.200s() ", f->fmt + f->fname);
    k += (size_t)PyOS_snprintf(buf + k, sizeof(buf) - k, "argument %d", index + 1);
    if (f->nspecs == 0) {
        const Nested *nest = (const Nested *)f;
        for (i = 0; i < nest->depth && k < 220; i++)
            k += (size_t)PyOS_snprintf(buf + k, sizeof(buf) - k, ", item %d", nest->levels[i]);
    }
    PyOS_snprintf(buf + k, sizeof(buf) - k, " %.256s", msg);
    PyErr_SetString(exc, buf);
    return -1;
}

/* Value `index` (got) is not what its unit takes: CPython's converterr
 * and seterror.  An EXPECTED in parentheses is the caller's mistake. */
static CYSTCK_COLD CYSTCK_NOINLINE int bad_argument(const Format *f, int index, const char *expected,
                                                   PyObject *got)
{
    char msg[160];
    if (PyErr_Occurred())
        return -1;
    if (expected[0] == '(')
        PyOS_snprintf(msg, sizeof(msg), "%.100s", expected);
    else
        PyOS_snprintf(msg, sizeof(msg), "must be %.50s, not %.50s", expected,
                      got == Py_None ? "None" : Py_TYPE(got)->tp_name);
    return argument_error(f, index, msg);
}

static CYSTCK_COLD int out_of_range(const char *what, const char *side)
{
    PyErr_Format(PyExc_OverflowError, "%s is %s", what, side);
    return -1;
}

/* b h i: a C long checked against the unit's range. */
static int convert_ranged(char c, long v, va_list *va)
{
    const char *what;
    long lo, hi;
    if (c == 'b') { what = "unsigned byte integer"; lo = 0; hi = UCHAR_MAX; }
    else if (c == 'h') { what = "signed short integer"; lo = SHRT_MIN; hi = SHRT_MAX; }
    else { what = "signed integer"; lo = INT_MIN; hi = INT_MAX; }
    if (v < lo)
        return out_of_range(what, "less than minimum");
    if (v > hi)
        return out_of_range(what, "greater than maximum");
    if (c == 'b') *va_arg(*va, unsigned char *) = (unsigned char)v;
    else if (c == 'h') *va_arg(*va, short *) = (short)v;
    else *va_arg(*va, int *) = (int)v;
    return 0;
}

/* The integer units: b B h H i I l k L K n.  Conversion errors are
 * CPython's own (its PyLong_As* functions raise them). */
static int convert_integer(const Format *f, int index, char c, PyObject *o, va_list *va)
{
    switch (c) {
    case 'b': case 'h': case 'i': case 'l': {
        long v = _Cystck_AsLong(o);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (c == 'l') {
            *va_arg(*va, long *) = v;
            return 0;
        }
        return convert_ranged(c, v, va);
    }
    case 'B': case 'H': case 'I': {   /* bit fields: masked, never out of range */
        unsigned long v = PyLong_AsUnsignedLongMask(o);
        if (v == (unsigned long)-1 && PyErr_Occurred())
            return -1;
        if (c == 'B') *va_arg(*va, unsigned char *) = (unsigned char)v;
        else if (c == 'H') *va_arg(*va, unsigned short *) = (unsigned short)v;
        else *va_arg(*va, unsigned int *) = (unsigned int)v;
        return 0;
    }
    case 'k':
        if (!PyLong_Check(o))
            return bad_argument(f, index, "int", o);
        *va_arg(*va, unsigned long *) = PyLong_AsUnsignedLongMask(o);
        return 0;
    case 'K':
        if (!PyLong_Check(o))
            return bad_argument(f, index, "int", o);
        *va_arg(*va, unsigned long long *) = PyLong_AsUnsignedLongLongMask(o);
        return 0;
    case 'L': {
        long long v = PyLong_AsLongLong(o);
        if (v == -1 && PyErr_Occurred())
            return -1;
        *va_arg(*va, long long *) = v;
        return 0;
    }
    default: {      /* 'n' */
        Py_ssize_t v = -1;
        if (PyLong_CheckExact(o)) {     /* PyNumber_Index would return o itself */
            v = PyLong_AsSsize_t(o);
        }
        else {
            PyObject *index_obj = PyNumber_Index(o);
            if (index_obj != NULL) {
                v = PyLong_AsSsize_t(index_obj);
                Py_DECREF(index_obj);
            }
        }
        if (v == -1 && PyErr_Occurred())
            return -1;
        *va_arg(*va, Py_ssize_t *) = v;
        return 0;
    }
    }
}

/* The floating-point units: f d D. */
static int convert_float(char c, PyObject *o, va_list *va)
{
    if (c == 'D') {
        Py_complex v = PyComplex_AsCComplex(o);
        if (PyErr_Occurred())
            return -1;
        *va_arg(*va, Py_complex *) = v;
        return 0;
    }
    {
        double d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred())
            return -1;
        if (c == 'f') *va_arg(*va, float *) = (float)d;
        else *va_arg(*va, double *) = d;
        return 0;
    }
}

/* A C-contiguous buffer of o (CPython's getbuffer): NULL, or the kind of
 * object expected (maybe with an exception set). */
static const char *get_contiguous(PyObject *o, Py_buffer *view, int flags)
{
    if (PyObject_GetBuffer(o, view, flags) != 0)
        return "bytes-like object";
    if (!PyBuffer_IsContiguous(view, 'C')) {
        PyBuffer_Release(view);
        return "contiguous buffer";
    }
    return NULL;
}

/* The bytes of a read-only bytes-like object, valid while o lives (s# z#
 * y y#): an exporter that wants its buffers released (bytearray,
 * memoryview) is refused, since the pointer outlives the view.  NULL, or
 * the kind of object expected. */
static const char *read_only_bytes(PyObject *o, const char **p, Py_ssize_t *n)
{
    PyBufferProcs *pb = Py_TYPE(o)->tp_as_buffer;
    Py_buffer view;
    const char *expected;
    if (pb != NULL && pb->bf_releasebuffer != NULL)
        return "read-only bytes-like object";
    expected = get_contiguous(o, &view, PyBUF_SIMPLE);
    if (expected != NULL)
        return expected;
    *p = (const char *)view.buf;
    *n = view.len;
    PyBuffer_Release(&view);
    return NULL;
}

/* The string and bytes units: s s# z z# y y# c C S Y U. */
static int convert_string(const Format *f, int index, const char *code, Cystck_Object h,
                          va_list *va)
{
    PyObject *o = *h._p;
    const char *s = NULL, *expected;
    Py_ssize_t n;
    char c = code[0];
    int with_size = code[1] == '#';
    switch (c) {
    case 'c':
        if (PyBytes_Check(o) && PyBytes_GET_SIZE(o) == 1)
            *va_arg(*va, char *) = PyBytes_AS_STRING(o)[0];
        else if (PyByteArray_Check(o) && PyByteArray_GET_SIZE(o) == 1)
            *va_arg(*va, char *) = PyByteArray_AS_STRING(o)[0];
        else
            return bad_argument(f, index, "a byte string of length 1", o);
        return 0;
    case 'C':
        if (!PyUnicode_Check(o) || PyUnicode_GET_LENGTH(o) != 1)
            return bad_argument(f, index, "a unicode character", o);
        *va_arg(*va, int *) = (int)PyUnicode_READ_CHAR(o, 0);
        return 0;
    case 'S': case 'Y': case 'U':
        if (c == 'S' ? !PyBytes_Check(o) : c == 'Y' ? !PyByteArray_Check(o) : !PyUnicode_Check(o))
            return bad_argument(f, index, c == 'S' ? "bytes" : c == 'Y' ? "bytearray" : "str", o);
        *va_arg(*va, Cystck_Object *) = h;
        return 0;
    }
    if (c == 'z' && o == Py_None) {
        n = 0;
    }
    else if (c != 'y' && PyUnicode_Check(o)) {
        s = PyUnicode_AsUTF8AndSize(o, &n);
        if (s == NULL)
            return -1;
        if (!with_size && (Py_ssize_t)strlen(s) != n) {
            PyErr_SetString(PyExc_ValueError, "embedded null character");
            return -1;
        }
    }
    else if (c != 'y' && !with_size) {     /* s and z take only str */
        return bad_argument(f, index, c == 'z' ? "str or None" : "str", o);
    }
    else {
        expected = read_only_bytes(o, &s, &n);
        if (expected != NULL)
            return bad_argument(f, index, expected, o);
        if (!with_size && (Py_ssize_t)strlen(s) != n) {
            PyErr_SetString(PyExc_ValueError, "embedded null byte");
            return -1;
        }
    }
    *va_arg(*va, const char **) = s;
    if (with_size)
        *va_arg(*va, Py_ssize_t *) = n;
    return 0;
}

/* A parse's variable arguments, as the entry points start them: the
 * conversions get &va, the first member, by which convert_encoded finds the
 * list of the buffers it allocated (CPython's freelist), which
 * end_parse frees if the parse fails (and sets to NULL: the caller's
 * pointer must not be freed again).  The list is read only after a
 * failure, by a cold out-of-line function; the callers end the va_list
 * themselves (a va_end in end_parse kept GCC from inlining it: the call
 * cost every parse 16 instructions, docs/gaps.md R1).  The keyword entry
 * points leave nencoded unset: the out-of-line parsers that may convert an
 * es/et unit (bind_from_copy, parse) start the list (start_encoded), and
 * their inline fast path, which converts none, fails with -1 (nothing to
 * free), so its successful calls pay nothing for the list. */
#define MAX_ENCODED 32
typedef struct {
    va_list va;
    int nencoded;
    char **encoded[MAX_ENCODED];
} ParseArgs;

static CYSTCK_ALWAYS_INLINE void start_encoded(va_list *va)
{
    ((ParseArgs *)va)->nencoded = 0;     /* va is its first member */
}

static CYSTCK_COLD CYSTCK_NOINLINE void free_encoded(ParseArgs *pa)
{
    while (pa->nencoded > 0) {
        char **buffer = pa->encoded[--pa->nencoded];
        PyMem_Free(*buffer);
        *buffer = NULL;
    }
}

static CYSTCK_ALWAYS_INLINE int end_parse(ParseArgs *pa, int r)
{
    if (Cystck_unlikely(r <= 0)) {
        if (r == 0)
            free_encoded(pa);
        r = 0;                  /* -1: failed before the list started */
    }
    return r;
}

/* The encoded-string units: es et es# et# (CPython's getargs.c 'e'):
 * an encoding (NULL: the default), then a char ** the caller frees with
 * PyMem_Free; with '#', a Py_ssize_t * too, and a buffer of the caller's
 * if *buffer is not NULL on the call (*length is its size then).  'et'
 * passes bytes and bytearray through as they are.  A buffer allocated here
 * is recorded in the parse's ParseArgs, and freed if the parse fails, as
 * CPython's freelist does. */
static CYSTCK_COLD CYSTCK_NOINLINE int convert_encoded(const Format *f, int index, const char *code,
                                                      PyObject *o, va_list *va)
{
    const char *encoding = va_arg(*va, const char *);
    char **buffer = va_arg(*va, char **);
    int recode = code[1] == 's', with_size = code[2] == '#';
    Py_ssize_t *psize = with_size ? va_arg(*va, Py_ssize_t *) : NULL;
    PyObject *s;
    const char *ptr;
    Py_ssize_t size;
    if (encoding == NULL)
        encoding = PyUnicode_GetDefaultEncoding();
    if (buffer == NULL)
        return bad_argument(f, index, "(buffer is NULL)", o);
    if (!recode && (PyBytes_Check(o) || PyByteArray_Check(o))) {
        s = Py_NewRef(o);
        size = PyBytes_Check(o) ? PyBytes_GET_SIZE(o) : PyByteArray_GET_SIZE(o);
        ptr = PyBytes_Check(o) ? PyBytes_AS_STRING(o) : PyByteArray_AS_STRING(o);
    }
    else if (PyUnicode_Check(o)) {
        s = PyUnicode_AsEncodedString(o, encoding, NULL);
        if (s == NULL)
            return bad_argument(f, index, "(encoding failed)", o);
        size = PyBytes_GET_SIZE(s);
        ptr = PyBytes_AS_STRING(s);
    }
    else {
        return bad_argument(f, index, recode ? "str" : "str, bytes or bytearray", o);
    }
    if (with_size) {
        if (psize == NULL) {
            Py_DECREF(s);
            return bad_argument(f, index, "(buffer_len is NULL)", o);
        }
        if (*buffer != NULL && size + 1 > *psize) {
            Py_DECREF(s);
            PyErr_Format(PyExc_ValueError, "encoded string too long (%zd, maximum length %zd)",
                         size, *psize - 1);
            return -1;
        }
    }
    else if ((Py_ssize_t)strlen(ptr) != size) {
        Py_DECREF(s);
        return bad_argument(f, index, "encoded string without null bytes", o);
    }
    if (!with_size || *buffer == NULL) {
        ParseArgs *pa = (ParseArgs *)va;     /* va is its first member */
        *buffer = PyMem_New(char, size + 1);
        if (*buffer == NULL) {
            Py_DECREF(s);
            PyErr_NoMemory();
            return -1;
        }
        if (pa->nencoded < MAX_ENCODED)
            pa->encoded[pa->nencoded++] = buffer;
    }
    memcpy(*buffer, ptr, (size_t)size + 1);
    if (with_size)
        *psize = size;
    Py_DECREF(s);
    return 0;
}

/* ---- The buffer units: s* z* y* w* ----
 * The caller's Py_buffer may live on its C stack, gone by the time the
 * frame closes, so the exporter's view is kept in a small holder object
 * that a handle of the frame owns: the frame's close (or the scope's, if
 * the arguments are parsed in a scope) releases it.  The caller gets a copy
 * of the view whose obj is the holder, so PyBuffer_Release on that copy
 * (CystckBuffer_Release is exactly that) comes to holder_release: the
 * exporter's view is released there and then, and the holder itself stays
 * with the handle that owns it. */

typedef struct {
    PyObject_HEAD
    Py_buffer view;           /* the exporter's; obj is NULL once released */
} BufferHolder;

static void holder_release(PyObject *self, Py_buffer *copy)
{
    (void)copy;
    PyBuffer_Release(&((BufferHolder *)self)->view);
    /* PyBuffer_Release drops the copy's reference to the holder when this
     * returns; the frame's handle must keep its own. */
    Py_INCREF(self);
}

static void holder_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyBuffer_Release(&((BufferHolder *)self)->view);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot holder_slots[] = {
    {Py_bf_releasebuffer, (void *)holder_release},
    {Py_tp_dealloc, (void *)holder_dealloc},
    {Py_tp_doc, (void *)"A buffer an argument lent to a Cystck call, released with its frame."},
    {0, NULL}
};

static PyType_Spec holder_spec = {
    "cystck.ArgumentBuffer", sizeof(BufferHolder), 0, Py_TPFLAGS_DEFAULT, holder_slots
};

static PyObject *holder_type;

static BufferHolder *new_holder(void)
{
    BufferHolder *b;
    if (holder_type == NULL) {
        holder_type = PyType_FromSpec(&holder_spec);
        if (holder_type == NULL)
            return NULL;
    }
    b = PyObject_New(BufferHolder, (PyTypeObject *)holder_type);
    if (b != NULL)
        b->view.obj = NULL;
    return b;
}

/* Fill the holder's view as unit `code` asks of o: NULL, or the kind of
 * object expected (maybe with an exception set). */
static const char *fill_view(const char *code, PyObject *o, Py_buffer *view)
{
    if (code[0] == 'w') {
        /* CPython names a read-only object by its kind, not by the buffer
         * protocol's message. */
        if (PyObject_GetBuffer(o, view, PyBUF_WRITABLE) < 0) {
            PyErr_Clear();
            return "read-write bytes-like object";
        }
        if (!PyBuffer_IsContiguous(view, 'C')) {
            PyBuffer_Release(view);
            return "contiguous buffer";
        }
        return NULL;
    }
    if (code[0] != 'y' && PyUnicode_Check(o)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(o, &n);
        if (s == NULL)
            return "(unicode conversion error)";
        PyBuffer_FillInfo(view, o, (void *)s, n, 1, 0);
        return NULL;
    }
    return get_contiguous(o, view, PyBUF_SIMPLE);
}

static int convert_buffer(Cystck_State *S, const Format *f, int index, const char *code,
                          PyObject *o, va_list *va)
{
    Py_buffer *out = va_arg(*va, Py_buffer *);
    const char *expected;
    BufferHolder *b;
    if (code[0] == 'z' && o == Py_None)
        return PyBuffer_FillInfo(out, NULL, NULL, 0, 1, 0);
    b = new_holder();
    if (b == NULL)
        return -1;
    expected = fill_view(code, o, &b->view);
    if (expected != NULL) {
        Py_DECREF(b);
        return bad_argument(f, index, expected, o);
    }
    *out = b->view;
    out->obj = (PyObject *)b;
    return Cystck_IsNull(_Cystck_Own(S, (PyObject *)b)) ? -1 : 0;
}

static CYSTCK_COLD CYSTCK_NOINLINE int convert_group(Cystck_State *S, const Format *f, int index,
                                                    const char *code, Cystck_Object h,
                                                    va_list *va);

/* The object units: O O! O& p, and "(...)". */
static int convert_object(Cystck_State *S, const Format *f, int index, const char *code,
                          Cystck_Object h, va_list *va)
{
    PyObject *o = *h._p;
    if (code[0] != 'O') {
        int t;
        /* Here, not in convert()'s switch, where a case would cost the
         * other units a compare. */
        if (code[0] == '(')
            return convert_group(S, f, index, code, h, va);
        t = PyObject_IsTrue(o);
        if (t < 0)
            return -1;
        *va_arg(*va, int *) = t;
        return 0;
    }
    if (code[1] == '!') {
        PyObject *type = _Cystck_Get(va_arg(*va, Cystck_Object));
        if (type == NULL || !PyType_Check(type)) {
            PyErr_SetString(PyExc_SystemError, "CystckArg: O! needs a type handle");
            return -1;
        }
        if (!PyObject_TypeCheck(o, (PyTypeObject *)type))
            return bad_argument(f, index, ((PyTypeObject *)type)->tp_name, o);
    }
    else if (code[1] == '&') {
        CystckArg_Converter conv = va_arg(*va, CystckArg_Converter);
        void *out = va_arg(*va, void *);
        return conv(S, h, out) ? 0 : bad_argument(f, index, "(unspecified)", o);
    }
    *va_arg(*va, Cystck_Object *) = h;
    return 0;
}

/* Convert one value; `code` points at its format unit. */
static int convert(Cystck_State *S, const Format *f, int index, const char *code,
                   Cystck_Object h, va_list *va)
{
    switch (code[0]) {
    case 'b': case 'B': case 'h': case 'H': case 'i': case 'I':
    case 'l': case 'k': case 'L': case 'K': case 'n':
        return convert_integer(f, index, code[0], *h._p, va);
    case 'f': case 'd': case 'D':
        return convert_float(code[0], *h._p, va);
    case 's': case 'z': case 'y': case 'w':
        if (code[1] == '*')
            return convert_buffer(S, f, index, code, *h._p, va);
        return convert_string(f, index, code, h, va);
    case 'c': case 'C': case 'S': case 'Y': case 'U':
        return convert_string(f, index, code, h, va);
    case 'e':
        return convert_encoded(f, index, code, *h._p, va);
    default:        /* O O! O& p (...): parse_format_text let no other unit in */
        return convert_object(S, f, index, code, h, va);
    }
}

static void skip(const char *code, va_list *va);

/* A "(...)" unit: h must be a sequence (not bytes) of as many items as
 * the units inside, each converted by its unit; an item an O unit takes
 * gets a handle of the frame.  Messages name the argument and the items
 * down to the failing one, as CPython's converttuple and seterror do. */
static CYSTCK_COLD CYSTCK_NOINLINE int convert_group(Cystck_State *S, const Format *f, int index,
                                                    const char *code, Cystck_Object h,
                                                    va_list *va)
{
    PyObject *o = *h._p;
    const char *q, *bad;
    char msg[80];
    Nested nest;
    Py_ssize_t len;
    int i, n = 0, depth;
    group_length(code, 0, &n, &bad);      /* parse_format_text checked it */
    if (!PySequence_Check(o) || PyBytes_Check(o)) {
        PyOS_snprintf(msg, sizeof(msg), "%d-item sequence", n);
        return bad_argument(f, index, msg, o);
    }
    len = PySequence_Size(o);
    if (len != n) {
        PyOS_snprintf(msg, sizeof(msg), "must be sequence of length %d, not %zd", n, len);
        return argument_error(f, index, msg);
    }
    if (f->nspecs == 0) {
        nest = *(const Nested *)f;
    }
    else {
        nest.f = *f;
        nest.f.nspecs = 0;
        nest.depth = 0;
    }
    depth = nest.depth;
    nest.depth = depth + 1;
    for (i = 0, q = code + 1; i < n; i++, q += any_unit_length(q)) {
        PyObject *item = PySequence_GetItem(o, i);
        Cystck_Object ih;
        nest.levels[depth] = i;
        if (item == NULL) {
            PyErr_Clear();
            return argument_error(&nest.f, index, "is not retrievable");
        }
        ih = _Cystck_Own(S, item);
        if (Cystck_IsNull(ih) || convert(S, &nest.f, index, q, ih, va) < 0)
            return -1;
    }
    return 0;
}

/* skip() for a "(...)" unit: the va_args of every unit inside. */
static CYSTCK_COLD CYSTCK_NOINLINE void skip_group(const char *code, va_list *va)
{
    const char *q;
    for (q = code + 1; *q != ')'; q += any_unit_length(q)) {
        if (*q == '(')
            skip_group(q, va);
        else
            skip(q, va);
    }
}

/* How the fast paths convert a value: the common units inline, the rest
 * through convert(). */
enum { OP_GENERIC, OP_LONG, OP_SSIZE, OP_DOUBLE, OP_OBJECT };

static inline unsigned char unit_op(const char *code)
{
    return code[0] == 'l' ? OP_LONG :
           code[0] == 'n' ? OP_SSIZE :
           code[0] == 'd' ? OP_DOUBLE :
           code[0] == 'O' && code[1] != '!' && code[1] != '&' ? OP_OBJECT : OP_GENERIC;
}

/* Convert h inline as op says: 1 if done, 0 if convert() must (the unit
 * is not inline, or the object not of the exact type), -1 on error. */
static CYSTCK_ALWAYS_INLINE int convert_inline(int op, Cystck_Object h, va_list *va)
{
    PyObject *o = *h._p;
    if (op == OP_LONG) {
        if (Cystck_likely(PyLong_CheckExact(o))) {
            long v = _Cystck_AsLong(o);
            if (v == -1 && PyErr_Occurred())
                return -1;
            *va_arg(*va, long *) = v;
            return 1;
        }
    }
    else if (op == OP_SSIZE) {
        /* An exact int is its own index (convert_integer's 'n'); a
         * compact one is read without a call. */
        if (Cystck_likely(PyLong_CheckExact(o))) {
            long x;
            Py_ssize_t v = _Cystck_CompactLong(o, &x) ? (Py_ssize_t)x : PyLong_AsSsize_t(o);
            if (v == -1 && PyErr_Occurred())
                return -1;
            *va_arg(*va, Py_ssize_t *) = v;
            return 1;
        }
    }
    else if (op == OP_DOUBLE) {
        if (Cystck_likely(PyFloat_CheckExact(o))) {
            *va_arg(*va, double *) = PyFloat_AS_DOUBLE(o);
            return 1;
        }
    }
    else if (op == OP_OBJECT) {
        *va_arg(*va, Cystck_Object *) = h;
        return 1;
    }
    return 0;
}

/* Skip the va_args of a value that was not given. */
static void skip(const char *code, va_list *va)
{
    if (code[0] == 'O' && code[1] == '!')
        (void)va_arg(*va, Cystck_Object);
    else if (code[0] == 'O' && code[1] == '&')
        (void)va_arg(*va, CystckArg_Converter);
    else if (code[0] == 'e')
        (void)va_arg(*va, const char *);        /* the encoding; the buffer next */
    (void)va_arg(*va, void *);
    if (code[1] == '#' || (code[0] == 'e' && code[2] == '#'))
        (void)va_arg(*va, Py_ssize_t *);
}

/* A keyword parser: a parsed format with its keyword names interned, so
 * matching the names a call passes is mostly pointer comparisons.  Cached by
 * the addresses of the format and the keyword list, and checked against the
 * list's string pointers; like CPython's own keyword parsers it assumes the
 * format at an address does not change (they are string literals). */
#define PARSER_CACHE 32

typedef struct {
    const char *fmt;
    const char **kwlist;
    Format f;
    const char *ptrs[MAX_SPECS];
    PyObject *names[MAX_SPECS];       /* NULL for positional-only ("") */
    unsigned char op[MAX_SPECS];      /* OP_* of each value */
    unsigned char posonly;            /* leading positional-only values ("" names) */
    /* A keyword list shorter than the format parses as the format cut
     * after the last named value (all of them required if no '|' comes
     * before the cut), as CPython's
     * does until a call gives that value: then, where no '|' or '$' follows
     * it, CPython stops with a SystemError naming the rest of the format,
     * at offset cut (-1: no such error). */
    short cut;
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

/* Give e up after an error in kwlist: only its first n names were made. */
static const KwParser *kw_parser_fail(KwParser *e, int n, const char **kwlist)
{
    e->f.nspecs = (unsigned char)n;
    e->kwlist = kwlist;     /* so the names made so far are released */
    e->fmt = NULL;
    return NULL;
}

/* Cut format f after its first n values (a keyword list of n names), as
 * CPython parses it: the n named values, then a SystemError if a call got
 * that far and more units follow.  *cut is where CPython's rest of the
 * format starts, past value n-1's unit, or -1 where a '|', '$' or the
 * format's end follows that unit. */
static void cut_format(Format *f, int n, short *cut)
{
    int end = n == 0 ? 0 : f->spec[n - 1] + any_unit_length(f->fmt + f->spec[n - 1]);
    char c = f->fmt[end];
    *cut = (short)(c == '|' || c == '$' || c == ':' || c == ';' || c == '\0' ? -1 : end);
    f->nspecs = (unsigned char)n;
    if (f->nrequired > n)       /* CPython: every named value before a '|' */
        f->nrequired = (unsigned char)n;
    if (f->npositional > n)
        f->npositional = (unsigned char)n;
}

static CYSTCK_NOINLINE const KwParser *kw_parser_make(KwParser *e, const char *fmt,
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
    e->posonly = 0;
    e->cut = -1;
    for (i = 0; i < e->f.nspecs; i++) {
        if (kwlist[i] == NULL) {
            cut_format(&e->f, i, &e->cut);
            break;
        }
        if (kwlist[i][0] == '\0') {        /* positional-only: first in the list */
            if (e->posonly != i) {
                PyErr_SetString(PyExc_SystemError, "Empty keyword parameter name");
                return kw_parser_fail(e, i, kwlist);
            }
            e->posonly++;
        }
        const char *code = fmt + e->f.spec[i];
        e->op[i] = unit_op(code);
        e->ptrs[i] = kwlist[i];
        e->names[i] = kwlist[i][0] ? PyUnicode_InternFromString(kwlist[i]) : NULL;
        if (kwlist[i][0] && e->names[i] == NULL)
            return kw_parser_fail(e, i, kwlist);
    }
    if (kwlist[i] != NULL) {
        PyErr_SetString(PyExc_SystemError,
                        "CystckArg: kwlist has more names than the format has units");
        return kw_parser_fail(e, i, kwlist);
    }
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

/* Set p->src for kwobj (NULL or a tuple of names) and nargs: 0, or -1 when
 * such a call does not bind (the general path reports why). */
static int resolve_sources(KwParser *p, PyObject *kwobj, Cystck_ssize_t nargs)
{
    int i;
    p->src_nargs = -1;
    if (p->cut >= 0)            /* the general path raises CPython's SystemError */
        return -1;
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
        else if (p->f.fmt[p->f.spec[i]] == '(')     /* bind_fast skips no "(...)" */
            return -1;
        else
            p->src[i] = -1;
    }
    p->src_kw = kwobj;
    p->src_nargs = (int)nargs;
    return 0;
}

static int bind_from_copy(Cystck_State *S, const Cystck_Object *args, const Format *f,
                          const unsigned char *op, const signed char *src, const char *fmt,
                          va_list *va, int i);

/* Bind and convert each value from args through src, from value i on.
 * The inline conversions run no Python code; convert() may (__index__,
 * __float__, O& converters), and that code may parse arguments with the
 * same parser again or remake its cache entry: where f, op and src are a
 * parser's own (shared), the binding goes on from a copy before the first
 * such conversion. */
static CYSTCK_ALWAYS_INLINE
int bind_fast(Cystck_State *S, const Cystck_Object *args, const Format *f,
              const unsigned char *op, const signed char *src, const char *fmt,
              va_list *va, int i, int shared)
{
    int n = f->nspecs;
    for (; i < n; i++) {
        Cystck_Object h;
        int r, from = src[i];
        if (from < 0) {
            skip(fmt + f->spec[i], va);
            continue;
        }
        h = args[from];
        r = convert_inline(op[i], h, va);
        if (r > 0)
            continue;
        if (r < 0)
            return shared ? -1 : 0;     /* shared: no es/et converted yet */
        if (shared)
            return bind_from_copy(S, args, f, op, src, fmt, va, i);
        if (convert(S, f, i, fmt + f->spec[i], h, va) < 0)
            return 0;
    }
    return 1;
}

/* bind_fast from value i on, from a copy of the parser's format and arrays. */
static CYSTCK_NOINLINE int bind_from_copy(Cystck_State *S, const Cystck_Object *args, const Format *f,
                                          const unsigned char *op, const signed char *src,
                                          const char *fmt, va_list *va, int i)
{
    struct { Format f; unsigned char op[MAX_SPECS]; signed char src[MAX_SPECS]; } c;
    start_encoded(va);
    c.f = *f;
    memcpy(c.op, op, (size_t)f->nspecs);
    memcpy(c.src, src, (size_t)f->nspecs);
    return bind_fast(S, args, &c.f, c.op, c.src, fmt, va, i, 0);
}

/* The fast path of CystckArg_ParseTupleAndKeywords for calls that bind
 * without error: positional arguments within bounds, keyword names (a
 * vectorcall tuple) all known, none also given by position, every required
 * value given.  The call site's names tuple (vectorcall keeps one per call
 * site, a constant of its code object) is resolved once, with the number of
 * positional arguments, into where each value comes from; binding then
 * reads the values straight from args and converts the common codes
 * inline.  Returns 1 or 0 like the API (-1 for 0 when no value that may
 * allocate an es/et buffer was converted: the entry point's list of them
 * is not started), or -2 with nothing consumed from va when the general
 * path must decide. */
static CYSTCK_ALWAYS_INLINE
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
    return bind_fast(S, args, &p->f, p->op, p->src, fmt, va, 0, 1);
}

/* Match the keywords to values: bound[i] gets value i's handle (from args
 * or a keyword), or the null handle.  Done before any value converts, since
 * conversions may run Python code that remakes the parser p (and matching
 * runs none).  Returns the number of keywords that name no value, or one
 * given by position, which the general path reports; -1 on error. */
static Py_ssize_t bind_keywords(Cystck_State *S, const KwParser *p, const Cystck_Object *args,
                                Cystck_ssize_t nargs, PyObject *kwobj, Cystck_Object *bound)
{
    Py_ssize_t j = 0, left = 0;
    PyObject *key, *value;
    int i, n = p->f.nspecs;
    for (i = 0; i < n; i++)
        bound[i] = i < nargs ? args[i] : Cystck_NULL;
    if (kwobj == NULL)
        return 0;
    if (PyTuple_Check(kwobj)) {        /* vectorcall: values follow args, names are str */
        for (j = 0; j < PyTuple_GET_SIZE(kwobj); j++) {
            i = match_keyword(p->names, n, PyTuple_GET_ITEM(kwobj, j));
            if (i >= nargs)
                bound[i] = args[nargs + j];
            else
                left++;
        }
        return left;
    }
    while (PyDict_Next(kwobj, &j, &key, &value)) {     /* from tp_new, tp_init, tp_call */
        i = PyUnicode_Check(key) ? match_keyword(p->names, n, key) : -1;
        if (i < nargs) {
            left++;
            continue;
        }
        /* The dict may change while values convert: hold the value. */
        bound[i] = _Cystck_OwnBorrowed(S, value);
        if (bound[i]._p == NULL)
            return -1;
    }
    return left;
}

/* Whether keyword `name` was passed: 1, 0, or -1 on error. */
static int has_keyword(PyObject *kwobj, const char *name)
{
    PyObject *key;
    int r;
    if (PyTuple_Check(kwobj)) {
        Py_ssize_t j;
        for (j = 0; j < PyTuple_GET_SIZE(kwobj); j++)
            if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwobj, j), name) == 0)
                return 1;
        return 0;
    }
    key = PyUnicode_FromString(name);
    if (key == NULL)
        return -1;
    r = PyDict_Contains(kwobj, key);
    Py_DECREF(key);
    return r;
}

/* Every keyword was matched to a value, or some keyword is wrong: raise
 * for the first wrong one, as CPython does after binding. */
static CYSTCK_COLD int bad_keywords(const Format *f, int posonly, const char **kwlist, Cystck_ssize_t nargs,
                        PyObject *kwobj)
{
    char buf[256];
    Py_ssize_t j = 0;
    PyObject *key;
    int i, r;
    for (i = posonly; i < nargs; i++) {
        r = has_keyword(kwobj, kwlist[i]);
        if (r > 0)
            PyErr_Format(PyExc_TypeError, "argument for %s given by name ('%s') and position (%d)",
                         describe(f, buf, sizeof(buf), "function"), kwlist[i], i + 1);
        if (r != 0)
            return 0;
    }
    for (;;) {
        if (PyTuple_Check(kwobj)) {
            if (j >= PyTuple_GET_SIZE(kwobj))
                break;
            key = PyTuple_GET_ITEM(kwobj, j++);
        }
        else if (!PyDict_Next(kwobj, &j, &key, NULL)) {
            break;
        }
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "keywords must be strings");
            return 0;
        }
        for (i = posonly; i < f->nspecs; i++)
            if (PyUnicode_CompareWithASCIIString(key, kwlist[i]) == 0)
                break;
        if (i == f->nspecs) {
            PyErr_Format(PyExc_TypeError, "'%U' is an invalid keyword argument for %s", key,
                         describe(f, buf, sizeof(buf), "this function"));
            return 0;
        }
    }
    PyErr_Format(PyExc_TypeError, "invalid keyword argument for %s",
                 describe(f, buf, sizeof(buf), "this function"));
    return 0;
}

/* More positional arguments than the values before '$'. */
static CYSTCK_COLD int too_many_positional(const Format *f, Cystck_ssize_t nargs)
{
    char buf[256];
    const char *name = describe(f, buf, sizeof(buf), "function");
    if (f->npositional == 0)
        PyErr_Format(PyExc_TypeError, "%s takes no positional arguments", name);
    else
        PyErr_Format(PyExc_TypeError, "%s takes %s %d positional argument%s (%zd given)", name,
                     f->has_optional ? "at most" : "exactly", f->npositional,
                     f->npositional == 1 ? "" : "s", nargs);
    return 0;
}

/* Value i is required and was not given. */
static CYSTCK_COLD int missing_required(const Format *f, int posonly, const char **kwlist, int i,
                                        Cystck_ssize_t nargs)
{
    char buf[256];
    const char *name = describe(f, buf, sizeof(buf), "function");
    int min = posonly < f->nrequired ? posonly : f->nrequired;
    if (i >= posonly)
        PyErr_Format(PyExc_TypeError, "%s missing required argument '%s' (pos %d)",
                     name, kwlist[i], i + 1);
    else            /* CPython counts the positional values up to '$' */
        PyErr_Format(PyExc_TypeError, "%s takes %s %d positional argument%s (%zd given)", name,
                     min < f->npositional ? "at least" : "exactly", min, min == 1 ? "" : "s",
                     nargs);
    return 0;
}

/* The general path of the keyword parser: every call the fast path does
 * not take, and every mistake.  The checks run in CPython's order
 * (vgetargskeywords): the count of all arguments, then value by value
 * (conversions included), then the keywords nothing took.  `pending` is
 * the number of keywords not yet converted or reported. */
static CYSTCK_ALWAYS_INLINE int parse_keywords(Cystck_State *S, const KwParser *p,
                                               const Cystck_Object *args, Cystck_ssize_t nargs,
                                               PyObject *kwobj, va_list *va)
{
    /* Conversions may remake p: work from copies. */
    const Format fcopy = p->f, *f = &fcopy;
    const char **kwlist = p->kwlist;
    int posonly = p->posonly, cut = p->cut;
    Cystck_Object bound[MAX_SPECS];
    Py_ssize_t pending = kwobj == NULL ? 0 : PyTuple_Check(kwobj) ? PyTuple_GET_SIZE(kwobj)
                                                                  : PyDict_GET_SIZE(kwobj);
    /* Past the values before '$', CPython stops with an error. */
    int i, end = nargs > f->npositional ? f->npositional : f->nspecs;
    char buf[256];
    if (nargs + pending > f->nspecs) {
        PyErr_Format(PyExc_TypeError, "%s takes at most %d %sargument%s (%zd given)",
                     describe(f, buf, sizeof(buf), "function"), f->nspecs,
                     nargs == 0 ? "keyword " : "", f->nspecs == 1 ? "" : "s", nargs + pending);
        return 0;
    }
    if (bind_keywords(S, p, args, nargs, kwobj, bound) < 0)
        return 0;
    for (i = 0; i < end; i++) {
        const char *code = f->fmt + f->spec[i];
        Cystck_Object h = bound[i];
        if (h._p != NULL) {
            if (convert(S, f, i, code, h, va) < 0)
                return 0;
            pending -= i >= nargs;
            continue;
        }
        if (i < f->nrequired)
            return missing_required(f, posonly, kwlist, i, nargs);
        if (pending == 0)
            return 1;
        if (Cystck_unlikely(code[0] == '('))
            skip_group(code, va);
        else
            skip(code, va);
    }
    if (end < f->nspecs)
        return too_many_positional(f, nargs);
    if (cut >= 0) {
        PyErr_Format(PyExc_SystemError,
                     "more argument specifiers than keyword list entries (remaining format:'%s')",
                     f->fmt + cut);
        return 0;
    }
    return pending > 0 ? bad_keywords(f, posonly, kwlist, nargs, kwobj) : 1;
}

/* Keywords were given to a positional parser, or the wrong number of
 * arguments. */
static CYSTCK_COLD CYSTCK_NOINLINE int bad_positional(const Format *f, PyObject *kwobj,
                                                      Cystck_ssize_t nargs)
{
    char buf[256];
    int n = nargs < f->nrequired ? f->nrequired : f->nspecs;
    if (kwobj != NULL)
        PyErr_Format(PyExc_TypeError, "%s takes no keyword arguments",
                     describe(f, buf, sizeof(buf), "function"));
    else if (f->message >= 0)
        PyErr_SetString(PyExc_TypeError, f->fmt + f->message);
    else
        PyErr_Format(PyExc_TypeError, "%s takes %s %d argument%s (%zd given)",
                     describe(f, buf, sizeof(buf), "function"),
                     f->nrequired == f->nspecs ? "exactly"
                     : nargs < f->nrequired ? "at least" : "at most",
                     n, n == 1 ? "" : "s", nargs);
    return 0;
}

/* CystckArg_ParseTuple, and the keyword parser given no keyword list. */
static CYSTCK_ALWAYS_INLINE int parse_positional(Cystck_State *S, const Cystck_Object *args,
                                                 Cystck_ssize_t nargs, PyObject *kwobj,
                                                 const Format *f, va_list *va)
{
    int i;
    if (Cystck_unlikely(kwobj != NULL || nargs < f->nrequired || nargs > f->nspecs))
        return bad_positional(f, kwobj, nargs);
    for (i = 0; i < nargs; i++) {
        const char *code = f->fmt + f->spec[i];
        int r = convert_inline(unit_op(code), args[i], va);
        if (r > 0)
            continue;
        if (r < 0 || convert(S, f, i, code, args[i], va) < 0)
            return 0;
    }
    return 1;
}

/* parse_positional with the format looked up in the shared cache. */
static int parse_positional_text(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                                 PyObject *kwobj, const char *fmt, va_list *va)
{
    Format f;
    if (parse_format(fmt, &f) < 0)
        return 0;
    return parse_positional(S, args, nargs, kwobj, &f, va);
}

/* The general path of both parsers. */
static int parse(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                 Cystck_Object kw, const char *fmt, const char **kwlist, va_list *va)
{
    PyObject *kwobj = _Cystck_Get(kw);
    const KwParser *p;
    start_encoded(va);
    if (kwlist == NULL)
        return parse_positional_text(S, args, nargs, kwobj, fmt, va);
    p = kw_parser(fmt, kwlist);
    return p == NULL ? 0 : parse_keywords(S, p, args, nargs, kwobj, va);
}

int CystckArg_ParseTuple(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                         const char *fmt, ...)
{
    ParseArgs pa;
    int r;
    pa.nencoded = 0;
    va_start(pa.va, fmt);
    r = parse_positional_text(S, args, nargs, NULL, fmt, &pa.va);
    r = end_parse(&pa, r);
    va_end(pa.va);
    return r;
}

/* PyArg_ParseTuple of a tuple object rather than an argument array (a
 * helper handed its caller's tuple; a format known at run time only): each
 * item gets a handle of the current frame, which O outputs then are. */
/* The items of tuple t as handles of the current frame, in small (16) or
 * in memory the caller frees when it is not small; -1 with an exception
 * set (t no tuple: CPython's SystemError). */
static Py_ssize_t tuple_items(Cystck_State *S, Cystck_Object t, const char *name, Cystck_Object *small,
                              Cystck_Object **items)
{
    PyObject *o = _Cystck_Get(t);
    Py_ssize_t i, n;
    *items = small;
    if (o == NULL) {
        _Cystck_BadArg(S, name, t);
        return -1;
    }
    if (!PyTuple_Check(o)) {
        /* CPython's message for a non-tuple */
        PyErr_SetString(PyExc_SystemError, "new style getargs format but argument is not a tuple");
        return -1;
    }
    n = PyTuple_GET_SIZE(o);
    if (n > 16) {
        *items = (Cystck_Object *)PyMem_Malloc((size_t)n * sizeof(Cystck_Object));
        if (*items == NULL) {
            *items = small;
            PyErr_NoMemory();
            return -1;
        }
    }
    for (i = 0; i < n; i++) {
        (*items)[i] = _Cystck_OwnBorrowed(S, PyTuple_GET_ITEM(o, i));
        if (Cystck_IsNull((*items)[i])) {
            if (*items != small)
                PyMem_Free(*items);
            *items = small;
            return -1;
        }
    }
    return n;
}

int CystckArg_ParseTupleObject(Cystck_State *S, Cystck_Object t, const char *fmt, ...)
{
    Cystck_Object small[16], *items;
    Py_ssize_t n = tuple_items(S, t, "CystckArg_ParseTupleObject", small, &items);
    ParseArgs pa;
    int r;
    if (n < 0)
        return 0;
    pa.nencoded = 0;
    va_start(pa.va, fmt);
    r = parse_positional_text(S, items, n, NULL, fmt, &pa.va);
    r = end_parse(&pa, r);
    va_end(pa.va);
    if (items != small)
        PyMem_Free(items);
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

/* PyArg_ParseTupleAndKeywords of a tuple object and a keyword dict (a
 * helper given its caller's): the items get handles of the current frame,
 * the general parser takes the dict as it takes a keyword dict. */
int CystckArg_ParseTupleAndKeywordsObject(Cystck_State *S, Cystck_Object t, Cystck_Object kw,
                                          const char *fmt, const char **kwlist, ...)
{
    Cystck_Object small[16], *items;
    Py_ssize_t n;
    ParseArgs pa;
    int r;
    PyObject *k = _Cystck_Get(kw);
    if (k != NULL && !PyDict_Check(k)) {
        PyErr_BadInternalCall();        /* as CPython for keywords that are no dict */
        return 0;
    }
    if (fmt == NULL || kwlist == NULL) {
        PyErr_BadInternalCall();
        return 0;
    }
    n = tuple_items(S, t, "CystckArg_ParseTupleAndKeywordsObject", small, &items);
    if (n < 0)
        return 0;
    (void)given_keywords(&kw);
    pa.nencoded = 0;
    va_start(pa.va, kwlist);
    r = parse(S, items, n, kw, fmt, kwlist, &pa.va);
    r = end_parse(&pa, r);
    va_end(pa.va);
    if (items != small)
        PyMem_Free(items);
    return r;
}

int (CystckArg_ParseTupleAndKeywords)(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                                    Cystck_Object kw, const char *fmt, const char **kwlist, ...)
{
    ParseArgs pa;
    int r;
    PyObject *k = given_keywords(&kw);
    va_start(pa.va, kwlist);
    r = kwlist != NULL ? parse_fast(S, (KwParser *)kw_parser(fmt, kwlist), args, nargs, k, fmt, &pa.va) : -2;
    if (Cystck_unlikely(r <= 0)) {      /* one test on success: -2, -1 and 0 */
        if (r == -2)
            r = parse(S, args, nargs, kw, fmt, kwlist, &pa.va);
        r = end_parse(&pa, r);
    }
    va_end(pa.va);
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
    ParseArgs pa;
    int r = -2;
    PyObject *k = given_keywords(&kw);
    va_start(pa.va, kwlist);
    if (kwlist != NULL) {
        /* The site's format and list are the ones its parser was made for
         * (their strings are not compared: a call site's list does not
         * change, which the shared cache of the function form cannot
         * assume). */
        KwParser *p = (KwParser *)site->parser;
        if (Cystck_unlikely(p == NULL || p->fmt != fmt || p->kwlist != kwlist))
            p = site_parser(site, fmt, kwlist);
        r = parse_fast(S, p, args, nargs, k, fmt, &pa.va);
    }
    if (Cystck_unlikely(r <= 0)) {      /* one test on success: -2, -1 and 0 */
        if (r == -2)
            r = parse(S, args, nargs, kw, fmt, kwlist, &pa.va);
        r = end_parse(&pa, r);
    }
    va_end(pa.va);
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

/* 0 after an invalid handle, as after keys that are not all strings:
 * stock code tests the result for truth. */
int CystckArg_ValidateKeywordArguments(Cystck_State *S, Cystck_Object kw)
{
    PyObject *k = _Cystck_Get(kw);
    if (k == NULL) {
        _Cystck_BadArgInt(S, "CystckArg_ValidateKeywordArguments", kw);
        return 0;
    }
    return PyArg_ValidateKeywordArguments(k);
}
