/*
 * The str writer: builds a str in place, in the narrowest PEP 393 kind that
 * holds what was written, widened only when a wider code point arrives.
 * The str under construction sits in a handle slot of the frame, so a
 * writer abandoned on an error path leaks nothing, and finishing it costs
 * no copy: the final resize is a realloc, and the handle is the result.
 * Public API only (PyUnicode_New, PyUnicode_Resize, PyUnicode_CopyCharacters),
 * so it does not depend on CPython's private _PyUnicodeWriter.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static PyObject **writer_slot(Cystck_State *S, CystckUnicodeWriter *w, const char *func)
{
    if (w == NULL || Cystck_IsNull(w->_str)) {
        _Cystck_SyncDebug(S);
        PyErr_Format(PyExc_SystemError, "%s: the writer is not initialized, or already finished", func);
        return NULL;
    }
    return w->_str._p;
}

/* The largest code point of the kind that holds c (ASCII counts as one). */
static Py_UCS4 kind_max(Py_UCS4 c)
{
    return c < 0x80 ? 0x7F : c < 0x100 ? 0xFF : c < 0x10000 ? 0xFFFF : 0x10FFFF;
}

/* Room for n more code points up to maxchar: a longer str, or a wider one when maxchar does not
 * fit the current kind.  The unused tail is cut off by Finish. */
static int writer_prepare(CystckUnicodeWriter *w, PyObject **slot, Cystck_ssize_t n, Py_UCS4 maxchar)
{
    PyObject *old = *slot, *wider;
    Cystck_ssize_t cap = PyUnicode_GET_LENGTH(old), need;
    Py_UCS4 have = cap > 0 ? PyUnicode_MAX_CHAR_VALUE(old) : 0;

    if (n > PY_SSIZE_T_MAX - w->_pos) {
        PyErr_NoMemory();
        return -1;
    }
    need = w->_pos + n;
    if (need <= cap && maxchar <= have)
        return 0;
    if (need > cap)         /* over-allocate by a quarter, as CPython's writer */
        need = need <= PY_SSIZE_T_MAX - need / 4 ? need + need / 4 : need;
    else
        need = cap;
    if (maxchar <= have)
        return PyUnicode_Resize(slot, need);
    wider = PyUnicode_New(need, kind_max(maxchar > have ? maxchar : have));
    if (wider == NULL)
        return -1;
    if (w->_pos > 0 && PyUnicode_CopyCharacters(wider, 0, old, 0, w->_pos) < 0) {
        Py_DECREF(wider);
        return -1;
    }
    *slot = wider;
    Py_DECREF(old);
    return 0;
}

int CystckUnicodeWriter_Init(Cystck_State *S, CystckUnicodeWriter *w)
{
    w->_pos = 0;
    w->_str = _Cystck_Own(S, PyUnicode_New(0, 0));
    return Cystck_IsNull(w->_str) ? -1 : 0;
}

/* Is c a code point?  ValueError if not. */
static int is_code_point(Py_UCS4 c)
{
    if (c <= 0x10FFFF)
        return 1;
    PyErr_Format(PyExc_ValueError, "character U+%x is not in range [U+0000; U+10ffff]", c);
    return 0;
}

static int write_char(Cystck_State *S, CystckUnicodeWriter *w, Py_UCS4 c, const char *func)
{
    PyObject **slot = writer_slot(S, w, func);
    if (slot == NULL)
        return -1;
    if (!is_code_point(c) || writer_prepare(w, slot, 1, c) < 0)
        return -1;
    PyUnicode_WRITE(PyUnicode_KIND(*slot), PyUnicode_DATA(*slot), w->_pos, c);
    w->_pos++;
    return 0;
}

int CystckUnicodeWriter_WriteChar(Cystck_State *S, CystckUnicodeWriter *w, Py_UCS4 c)
{
    return write_char(S, w, c, "CystckUnicodeWriter_WriteChar");
}

/* Copy n code points known to fit to's kind.  Same kinds are copied here:
 * PyUnicode_CopyCharacters checks Latin-1 going into an ASCII str from
 * the start of the source, not from from_start (CPython 3.11), and would
 * refuse an ASCII slice of a Latin-1 str. */
static int copy_chars(PyObject *to, Cystck_ssize_t to_start, PyObject *from, Cystck_ssize_t from_start,
                      Cystck_ssize_t n)
{
    int kind = PyUnicode_KIND(to);
    if (kind != (int)PyUnicode_KIND(from))
        return PyUnicode_CopyCharacters(to, to_start, from, from_start, n) < 0 ? -1 : 0;
    memcpy((char *)PyUnicode_DATA(to) + to_start * kind,
           (const char *)PyUnicode_DATA(from) + from_start * kind, (size_t)(n * kind));
    return 0;
}

/* The str s is, or NULL with an exception set (a bad handle, or another
 * type: TypeError). */
static PyObject *str_argument(Cystck_State *S, Cystck_Object s, const char *func)
{
    PyObject *o = _Cystck_Get(s);
    if (o == NULL) {
        _Cystck_BadArg(S, func, s);
        return NULL;
    }
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a str, got %.200s", func, Py_TYPE(o)->tp_name);
        return NULL;
    }
    return o;
}

/* s[start:end], clipped as str slicing clips. */
static int write_substring(Cystck_State *S, CystckUnicodeWriter *w, Cystck_Object s,
                           Cystck_ssize_t start, Cystck_ssize_t end, const char *func)
{
    PyObject **slot = writer_slot(S, w, func);
    PyObject *o;
    Cystck_ssize_t len, i;
    Py_UCS4 maxchar = 0;
    int kind;
    const void *data;
    if (slot == NULL || (o = str_argument(S, s, func)) == NULL)
        return -1;
    len = PyUnicode_GET_LENGTH(o);
    start = start < 0 ? 0 : start > len ? len : start;
    end = end < start ? start : end > len ? len : end;
    if (end == start)
        return 0;
    /* The code points written decide the kind: the whole str's kind may be
     * wider than its slice needs. */
    kind = PyUnicode_KIND(o);
    data = PyUnicode_DATA(o);
    if (start == 0 && end == len)
        maxchar = PyUnicode_MAX_CHAR_VALUE(o);
    else
        for (i = start; i < end && maxchar < PyUnicode_MAX_CHAR_VALUE(o); i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c > maxchar)
                maxchar = kind_max(c);
        }
    if (writer_prepare(w, slot, end - start, maxchar) < 0 ||
        copy_chars(*slot, w->_pos, o, start, end - start) < 0)
        return -1;
    w->_pos += end - start;
    return 0;
}

int CystckUnicodeWriter_WriteStr(Cystck_State *S, CystckUnicodeWriter *w, Cystck_Object s)
{
    return write_substring(S, w, s, 0, PY_SSIZE_T_MAX, "CystckUnicodeWriter_WriteStr");
}

int CystckUnicodeWriter_WriteSubstring(Cystck_State *S, CystckUnicodeWriter *w, Cystck_Object s,
                                       Cystck_ssize_t start, Cystck_ssize_t end)
{
    return write_substring(S, w, s, start, end, "CystckUnicodeWriter_WriteSubstring");
}

/* Append n bytes known to be ASCII, straight into the str. */
static int write_ascii(CystckUnicodeWriter *w, PyObject **slot, const char *s, Cystck_ssize_t n)
{
    Cystck_ssize_t i;
    int kind;
    void *data;
    if (writer_prepare(w, slot, n, 0x7F) < 0)
        return -1;
    kind = PyUnicode_KIND(*slot);
    data = PyUnicode_DATA(*slot);
    if (kind == PyUnicode_1BYTE_KIND)
        memcpy((Py_UCS1 *)data + w->_pos, s, (size_t)n);
    else
        for (i = 0; i < n; i++)
            PyUnicode_WRITE(kind, data, w->_pos + i, (Py_UCS1)s[i]);
    w->_pos += n;
    return 0;
}

static int write_ascii_checked(Cystck_State *S, CystckUnicodeWriter *w, const char *s, Cystck_ssize_t n,
                               const char *func)
{
    PyObject **slot = writer_slot(S, w, func);
    Cystck_ssize_t i;
    if (slot == NULL)
        return -1;
    if (n < 0)
        n = (Cystck_ssize_t)strlen(s);
    if (!_Cystck_AllASCII(s, (size_t)n)) {
        for (i = 0; (unsigned char)s[i] <= 0x7F; i++)
            ;
        PyErr_Format(PyExc_ValueError, "%s: byte 0x%02x at %zd is not ASCII", func, (unsigned char)s[i], i);
        return -1;
    }
    return write_ascii(w, slot, s, n);
}

int CystckUnicodeWriter_WriteASCIIString(Cystck_State *S, CystckUnicodeWriter *w, const char *s,
                                         Cystck_ssize_t n)
{
    return write_ascii_checked(S, w, s, n, "CystckUnicodeWriter_WriteASCIIString");
}

/* ASCII (the common case) goes straight into the str; other UTF-8 is
 * decoded into a temporary str first, then copied. */
static int write_utf8(Cystck_State *S, CystckUnicodeWriter *w, const char *s, Cystck_ssize_t n, const char *func)
{
    PyObject **slot = writer_slot(S, w, func);
    PyObject *decoded;
    int r;
    if (slot == NULL)
        return -1;
    if (n < 0)
        n = (Cystck_ssize_t)strlen(s);
    if (_Cystck_AllASCII(s, (size_t)n))
        return write_ascii(w, slot, s, n);
    decoded = PyUnicode_DecodeUTF8(s, n, "strict");
    if (decoded == NULL)
        return -1;
    r = write_substring(S, w, _Cystck_H(&decoded), 0, PY_SSIZE_T_MAX, func);
    Py_DECREF(decoded);
    return r;
}

int CystckUnicodeWriter_WriteUTF8(Cystck_State *S, CystckUnicodeWriter *w, const char *s, Cystck_ssize_t n)
{
    return write_utf8(S, w, s, n, "CystckUnicodeWriter_WriteUTF8");
}

/* The str in *slot cut to the w->_pos code points written: a realloc, no copy. */
static int writer_cut(CystckUnicodeWriter *w, PyObject **slot)
{
    return PyUnicode_GET_LENGTH(*slot) == w->_pos ? 0 : PyUnicode_Resize(slot, w->_pos);
}

Cystck_Object CystckUnicodeWriter_Finish(Cystck_State *S, CystckUnicodeWriter *w)
{
    PyObject **slot = writer_slot(S, w, "CystckUnicodeWriter_Finish");
    Cystck_Object h;
    if (slot == NULL)
        return Cystck_NULL;
    h = w->_str;
    w->_str = Cystck_NULL;
    if (writer_cut(w, slot) < 0) {
        Cystck_Drop(S, h);
        return Cystck_NULL;
    }
    return h;
}

void CystckUnicodeWriter_Dealloc(Cystck_State *S, CystckUnicodeWriter *w)
{
    if (w != NULL && !Cystck_IsNull(w->_str)) {
        Cystck_Drop(S, w->_str);
        w->_str = Cystck_NULL;
    }
}

/* ---- The pointer writer (CPython 3.14's PyUnicodeWriter) ----
 * A CystckUnicodeWriter on the heap whose "handle" is the address of the
 * writer's own reference to the str, not a slot of a frame: the writer
 * outlives the call that created it (C code keeps it in a struct and
 * finishes it in another call), and the functions above work on it
 * unchanged.  Finish gives the str a handle of the calling frame. */
struct CystckStrWriter_s {
    CystckUnicodeWriter w;
    PyObject *str;              /* owned by the writer; w._str points here */
};

static CystckUnicodeWriter *inner(CystckStrWriter *w)
{
    return w != NULL ? &w->w : NULL;
}

CystckStrWriter *CystckStrWriter_Create(Cystck_State *S, Cystck_ssize_t length)
{
    CystckStrWriter *w;
    (void)S;
    if (length < 0) {
        PyErr_SetString(PyExc_ValueError, "CystckStrWriter_Create: length must be positive");
        return NULL;
    }
    w = malloc(sizeof *w);      /* C's allocator, as the debug quarantine's blocks (release_writer) */
    if (w == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    /* length ASCII code points of room: writer_prepare widens on demand,
     * and the finishing cut gives back what was not written */
    w->str = PyUnicode_New(length, length > 0 ? 0x7F : 0);
    if (w->str == NULL) {
        free(w);
        return NULL;
    }
    w->w._str = _Cystck_H(&w->str);
    w->w._pos = 0;
    return w;
}

int CystckStrWriter_WriteChar(Cystck_State *S, CystckStrWriter *w, Py_UCS4 c)
{
    return write_char(S, inner(w), c, "CystckStrWriter_WriteChar");
}

/* Writes the str that str(o) or repr(o) made, then drops it. */
static int write_new_str(Cystck_State *S, CystckStrWriter *w, PyObject *s, const char *func)
{
    int r;
    if (s == NULL)
        return -1;
    r = write_substring(S, inner(w), _Cystck_H(&s), 0, PY_SSIZE_T_MAX, func);
    Py_DECREF(s);
    return r;
}

/* str(o), as PyUnicodeWriter_WriteStr: a str subclass's __str__ counts. */
int CystckStrWriter_WriteStr(Cystck_State *S, CystckStrWriter *w, Cystck_Object o)
{
    PyObject *obj = _Cystck_Get(o);
    if (writer_slot(S, inner(w), "CystckStrWriter_WriteStr") == NULL)
        return -1;
    if (obj == NULL)
        return _Cystck_BadArgInt(S, "CystckStrWriter_WriteStr", o);
    if (PyUnicode_CheckExact(obj))
        return write_substring(S, inner(w), o, 0, PY_SSIZE_T_MAX, "CystckStrWriter_WriteStr");
    return write_new_str(S, w, PyObject_Str(obj), "CystckStrWriter_WriteStr");
}

/* repr(o); "<NULL>" for the null handle, as PyUnicodeWriter_WriteRepr(w, NULL). */
int CystckStrWriter_WriteRepr(Cystck_State *S, CystckStrWriter *w, Cystck_Object o)
{
    PyObject *obj = _Cystck_Get(o);
    if (writer_slot(S, inner(w), "CystckStrWriter_WriteRepr") == NULL)
        return -1;
    if (obj == NULL)
        return write_ascii_checked(S, inner(w), "<NULL>", 6, "CystckStrWriter_WriteRepr");
    return write_new_str(S, w, PyObject_Repr(obj), "CystckStrWriter_WriteRepr");
}

/* s[start:end], the bounds checked as PyUnicodeWriter_WriteSubstring checks
 * them (CystckUnicodeWriter_WriteSubstring clips them as slicing does). */
int CystckStrWriter_WriteSubstring(Cystck_State *S, CystckStrWriter *w, Cystck_Object s,
                                   Cystck_ssize_t start, Cystck_ssize_t end)
{
    static const char func[] = "CystckStrWriter_WriteSubstring";
    PyObject *o;
    if (writer_slot(S, inner(w), func) == NULL || (o = str_argument(S, s, func)) == NULL)
        return -1;
    if (start < 0 || start > end) {
        PyErr_Format(PyExc_ValueError, "%s: invalid start argument", func);
        return -1;
    }
    if (end > PyUnicode_GET_LENGTH(o)) {
        PyErr_Format(PyExc_ValueError, "%s: invalid end argument", func);
        return -1;
    }
    return write_substring(S, inner(w), s, start, end, func);
}

int CystckStrWriter_WriteUTF8(Cystck_State *S, CystckStrWriter *w, const char *s, Cystck_ssize_t n)
{
    return write_utf8(S, inner(w), s, n, "CystckStrWriter_WriteUTF8");
}

int CystckStrWriter_WriteASCII(Cystck_State *S, CystckStrWriter *w, const char *s, Cystck_ssize_t n)
{
    return write_ascii_checked(S, inner(w), s, n, "CystckStrWriter_WriteASCII");
}

/* Each code point checked first (CPython 3.11's PyUnicode_FromKindAndData
 * would build a str holding one past U+10FFFF). */
int CystckStrWriter_WriteUCS4(Cystck_State *S, CystckStrWriter *w, const Py_UCS4 *s, Cystck_ssize_t n)
{
    PyObject **slot = writer_slot(S, inner(w), "CystckStrWriter_WriteUCS4");
    Py_UCS4 maxchar = 0;
    Cystck_ssize_t i;
    int kind;
    void *data;
    if (slot == NULL)
        return -1;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "CystckStrWriter_WriteUCS4: size must be positive");
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (!is_code_point(s[i]))
            return -1;
        maxchar = s[i] > maxchar ? s[i] : maxchar;
    }
    if (writer_prepare(&w->w, slot, n, maxchar) < 0)
        return -1;
    kind = PyUnicode_KIND(*slot);
    data = PyUnicode_DATA(*slot);
    for (i = 0; i < n; i++)
        PyUnicode_WRITE(kind, data, w->w._pos + i, s[i]);
    w->w._pos += n;
    return 0;
}

int CystckStrWriter_WriteWideChar(Cystck_State *S, CystckStrWriter *w, const wchar_t *s, Cystck_ssize_t n)
{
    if (writer_slot(S, inner(w), "CystckStrWriter_WriteWideChar") == NULL)
        return -1;
    return write_new_str(S, w, PyUnicode_FromWideChar(s, n), "CystckStrWriter_WriteWideChar");
}

/* Frees w, whose str is gone.  In debug mode w is quarantined instead,
 * marked finished, so that a call with it after Finish or Discard raises
 * SystemError (until a thousand newer blocks push it out). */
static void release_writer(CystckStrWriter *w, const char *func)
{
    w->str = NULL;
    w->w._str = Cystck_NULL;
    if (_Cystck_debug)
        _Cystck_DebugQuarantine(NULL, NULL, w, func);
    else
        free(w);
}

/* The str, with a handle of the calling frame; w is freed, even on error. */
Cystck_Object CystckStrWriter_Finish(Cystck_State *S, CystckStrWriter *w)
{
    PyObject **slot = writer_slot(S, inner(w), "CystckStrWriter_Finish");
    PyObject *str;
    if (slot == NULL)
        return Cystck_NULL;
    str = writer_cut(&w->w, slot) < 0 ? NULL : w->str;
    if (str == NULL)
        Py_DECREF(w->str);
    release_writer(w, "CystckStrWriter_Finish");
    return _Cystck_Own(S, str);
}

void CystckStrWriter_Discard(Cystck_State *S, CystckStrWriter *w)
{
    if (w == NULL || writer_slot(S, &w->w, "CystckStrWriter_Discard") == NULL)
        return;                 /* a writer already ended (debug mode): SystemError */
    Py_DECREF(w->str);
    release_writer(w, "CystckStrWriter_Discard");
}

/* Copy s[0:n] to dst while checking it is ASCII, 64 bytes a step (SSE2
 * on x86-64, else four words of 8): 0 at the first step with a byte >= 0x80
 * (dst then holds an unspecified prefix).  Under callgrind, as on the CPU,
 * this costs a fraction of CPython's decoder, which moves 8 bytes a step. */
static int copy_ascii(char *dst, const char *s, size_t n)
{
    size_t i = 0;
    unsigned acc = 0;
#if defined(__SSE2__)
    for (; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i)), b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32)), d = _mm_loadu_si128((const __m128i *)(s + i + 48));
        if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))))
            return 0;
        _mm_storeu_si128((__m128i *)(dst + i), a);
        _mm_storeu_si128((__m128i *)(dst + i + 16), b);
        _mm_storeu_si128((__m128i *)(dst + i + 32), c);
        _mm_storeu_si128((__m128i *)(dst + i + 48), d);
    }
#else
    const uint64_t high = 0x8080808080808080u;
    for (; i + 32 <= n; i += 32) {
        uint64_t w[4];
        memcpy(w, s + i, 32);
        if ((w[0] | w[1] | w[2] | w[3]) & high)
            return 0;
        memcpy(dst + i, w, 32);
    }
#endif
    for (; i < n; i++)
        acc |= (unsigned char)(dst[i] = s[i]);
    return (acc & 0x80) == 0;
}

/* Below this many bytes CPython's decoder is as quick, and it returns its
 * cached one-character strs. */
#define ASCII_COPY_MIN 64

/* ASCII text goes straight into a new compact ASCII str.  Text whose first
 * 64 bytes are not all ASCII goes to CPython at once; text that turns out
 * not to be ASCII further on costs that str's allocation and the copy so
 * far, then goes to CPython too. */
PyObject *_Cystck_DecodeUTF8(const char *s, Cystck_ssize_t n, const char *errors)
{
    if (n >= ASCII_COPY_MIN && _Cystck_AllASCII(s, ASCII_COPY_MIN)) {
        PyObject *u = PyUnicode_New(n, 0x7F);
        if (u == NULL || copy_ascii((char *)PyUnicode_1BYTE_DATA(u), s, (size_t)n))
            return u;
        Py_DECREF(u);
    }
    return PyUnicode_DecodeUTF8(s, n, errors);
}

/* ------------------------------------------------------------------ */
/* str -> UTF-8 bytes                                                   */
/* ------------------------------------------------------------------ */

/* Runs of ASCII are copied 16 code points a step (SSE2 on x86-64): most
 * text, even text that is not ASCII as a whole, is mostly ASCII, and
 * CPython's encoder (stringlib/codecs.h) moves one code point a step.  Each
 * ascii_prefix_ucsN writes the next 16 code points narrowed to bytes (those
 * past the first one that is not ASCII are garbage, overwritten later) and
 * returns how many of them are ASCII before the first that is not (16: all). */
#if defined(__SSE2__)
static inline int ascii_prefix(unsigned not_ascii)
{
    return __builtin_ctz(not_ascii | 0x10000u);
}

static int ascii_prefix_ucs1(char *out, const Py_UCS1 *p)
{
    __m128i a = _mm_loadu_si128((const __m128i *)p);
    _mm_storeu_si128((__m128i *)out, a);
    return ascii_prefix((unsigned)_mm_movemask_epi8(a));
}

static int ascii_prefix_ucs2(char *out, const Py_UCS2 *p)
{
    __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 8));
    /* + 0x7F80, saturated: the sign bit is set from 0x80 up; the signed
     * pack keeps it, in bit 7 of each byte. */
    __m128i bias = _mm_set1_epi16(0x7F80);
    __m128i sign = _mm_packs_epi16(_mm_adds_epu16(a, bias), _mm_adds_epu16(b, bias));
    _mm_storeu_si128((__m128i *)out, _mm_packus_epi16(a, b));
    return ascii_prefix((unsigned)_mm_movemask_epi8(sign));
}

static int ascii_prefix_ucs4(char *out, const Py_UCS4 *p)
{
    __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 4));
    __m128i c = _mm_loadu_si128((const __m128i *)(p + 8)), d = _mm_loadu_si128((const __m128i *)(p + 12));
    /* Code points are below 2**31: the saturating packs keep ASCII as it
     * is and turn everything else into a byte of 0x80 or more. */
    __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
    _mm_storeu_si128((__m128i *)out, bytes);
    return ascii_prefix((unsigned)_mm_movemask_epi8(bytes));
}
#define ASCII_PREFIX(kind, out, p) ascii_prefix_ucs##kind(out, p)
#else
#define ASCII_PREFIX(kind, out, p) ascii_prefix_any(out, p, kind)
static inline int ascii_prefix_any(char *out, const void *p, int kind)
{
    int k = 0;
    Py_UCS4 c;
    while (k < 16 && (c = PyUnicode_READ(kind, p, k)) < 0x80)
        out[k++] = (char)c;
    return k;
}
#endif

/* A code point from U+0800 to U+FFFF as its three UTF-8 bytes, in one
 * 4-byte store where the byte order allows (the fourth byte is written
 * over next, or lands in the slack after the output). */
static inline void put3(char *q, Py_UCS4 c)
{
#if PY_LITTLE_ENDIAN
    uint32_t v = (0xE0 | (c >> 12)) | ((0x80 | ((c >> 6) & 0x3F)) << 8) | ((0x80 | (c & 0x3F)) << 16);
    memcpy(q, &v, 4);
#else
    q[0] = (char)(0xE0 | (c >> 12));
    q[1] = (char)(0x80 | ((c >> 6) & 0x3F));
    q[2] = (char)(0x80 | (c & 0x3F));
#endif
}

/* Encode the n code points at p (kind 1, 2 or 4) into out, which has room
 * for n times the kind's widest UTF-8 form and one byte more: the bytes
 * written, or -1 at the first surrogate (whose encoding is up to the error
 * handler).  Every ASCII
 * code point with 16 more to go starts a block (writing 16 bytes is safe:
 * 16 code points have room for at least that). */
#define DEFINE_ENCODE(kind, type)                                                     \
    static Cystck_ssize_t encode_ucs##kind(char *out, const type *p, Cystck_ssize_t n) \
    {                                                                                 \
        const type *end = p + n;                                                      \
        char *q = out;                                                                \
        while (p < end) {                                                             \
            Py_UCS4 c = *p;                                                           \
            if (c < 0x80) {                                                           \
                if (end - p >= 16) {                                                  \
                    int k = ASCII_PREFIX(kind, q, p);                                 \
                    p += k;                                                           \
                    q += k;                                                           \
                    continue;                                                         \
                }                                                                     \
                *q++ = (char)c;                                                       \
            }                                                                         \
            else if (c < 0x800) {                                                     \
                q[0] = (char)(0xC0 | (c >> 6));                                       \
                q[1] = (char)(0x80 | (c & 0x3F));                                     \
                q += 2;                                                               \
            }                                                                         \
            else if ((c & 0xFFFFF800u) == 0xD800)                                     \
                return -1;                                                            \
            else if (c < 0x10000) {                                                   \
                put3(q, c);                                                           \
                q += 3;                                                               \
            }                                                                         \
            else {                                                                    \
                q[0] = (char)(0xF0 | (c >> 18));                                      \
                q[1] = (char)(0x80 | ((c >> 12) & 0x3F));                             \
                q[2] = (char)(0x80 | ((c >> 6) & 0x3F));                              \
                q[3] = (char)(0x80 | (c & 0x3F));                                     \
                q += 4;                                                               \
            }                                                                         \
            p++;                                                                      \
        }                                                                             \
        return q - out;                                                               \
    }
DEFINE_ENCODE(1, Py_UCS1)
DEFINE_ENCODE(2, Py_UCS2)
DEFINE_ENCODE(4, Py_UCS4)

/* Bytes that an encoder may write past the end of its output: put3's one,
 * utf8_block_ucs2's three. */
#define ENCODE_SLACK 3

#if defined(__SSE2__)
/* (m & a) | (~m & b), 16 bits a lane. */
static inline __m128i select16(__m128i m, __m128i a, __m128i b)
{
    return _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b));
}

/* Eight UCS-2 code points at p as UTF-8 at q, all eight at once: the bytes
 * written, or -1 if one of them is a surrogate (the one-by-one path decides
 * about it).  Text that mixes scripts (CJK or Cyrillic with ASCII
 * punctuation and digits) changes width every few code points, where a
 * loop over code points pays a branch chain per code point.  Each code
 * point's 1 to 3 bytes are computed in a 32-bit lane, then stored 4 bytes
 * a lane, each store moving on by that code point's length: the extra
 * bytes are overwritten by the next store, or land in ENCODE_SLACK. */
static inline int utf8_block_ucs2(char *q, const Py_UCS2 *p)
{
    const __m128i x = _mm_loadu_si128((const __m128i *)p);
    const __m128i surrogate = _mm_cmpeq_epi16(_mm_and_si128(x, _mm_set1_epi16((short)0xF800)),
                                              _mm_set1_epi16((short)0xD800));
    /* Unsigned comparisons as signed ones, with the sign bit flipped. */
    const __m128i flipped = _mm_xor_si128(x, _mm_set1_epi16((short)0x8000));
    const __m128i wide2 = _mm_cmpgt_epi16(flipped, _mm_set1_epi16((short)(0x7F ^ 0x8000)));    /* >= 0x80 */
    const __m128i wide3 = _mm_cmpgt_epi16(flipped, _mm_set1_epi16((short)(0x7FF ^ 0x8000)));   /* >= 0x800 */
    const __m128i cont = _mm_set1_epi16(0x80), six = _mm_set1_epi16(0x3F);
    __m128i last, two, three, first, len, lanes;
    char *start = q;
    if (_mm_movemask_epi8(surrogate))
        return -1;
    if (!_mm_movemask_epi8(wide2)) {
        _mm_storel_epi64((__m128i *)q, _mm_packus_epi16(x, x));
        return 8;
    }
    last = _mm_or_si128(_mm_and_si128(x, six), cont);                        /* 10xxxxxx of bits 0-5 */
    two = _mm_or_si128(_mm_or_si128(_mm_srli_epi16(x, 6), _mm_set1_epi16(0xC0)), _mm_slli_epi16(last, 8));
    three = _mm_or_si128(_mm_or_si128(_mm_srli_epi16(x, 12), _mm_set1_epi16(0xE0)),
                         _mm_slli_epi16(_mm_or_si128(_mm_and_si128(_mm_srli_epi16(x, 6), six), cont), 8));
    first = select16(wide3, three, select16(wide2, two, x));                 /* the first two bytes */
    last = _mm_and_si128(wide3, last);                                        /* the third, if any */
    len = _mm_sub_epi16(_mm_sub_epi16(_mm_set1_epi16(1), wide2), wide3);     /* 1 + (>= 0x80) + (>= 0x800) */
#define STORE_LANE(i)                                       \
    do {                                                    \
        uint32_t v_ = (uint32_t)_mm_cvtsi128_si32(lanes);   \
        memcpy(q, &v_, 4);                                  \
        q += _mm_extract_epi16(len, i);                     \
        lanes = _mm_srli_si128(lanes, 4);                   \
    } while (0)
    lanes = _mm_unpacklo_epi16(first, last);
    STORE_LANE(0); STORE_LANE(1); STORE_LANE(2); STORE_LANE(3);
    lanes = _mm_unpackhi_epi16(first, last);
    STORE_LANE(4); STORE_LANE(5); STORE_LANE(6); STORE_LANE(7);
#undef STORE_LANE
    return (int)(q - start);
}

/* UCS-2 text eight code points a step; the one-by-one encoder takes a
 * surrogate's block one code point (and the last code points) at a time:
 * a block padded to eight costs more than the few code points left. */
static Cystck_ssize_t encode_ucs2_blocks(char *out, const Py_UCS2 *p, Cystck_ssize_t n)
{
    const Py_UCS2 *end = p + n;
    char *q = out;
    while (end - p >= 8) {
        int k = utf8_block_ucs2(q, p);
        if (k >= 0) {
            p += 8;
            q += k;
            continue;
        }
        k = (int)encode_ucs2(q, p, 1);
        if (k < 0)
            return -1;
        p++;
        q += k;
    }
    if (p < end) {
        Cystck_ssize_t k = encode_ucs2(q, p, end - p);
        if (k < 0)
            return -1;
        q += k;
    }
    return q - out;
}
#define ENCODE_UCS2 encode_ucs2_blocks
#else
#define ENCODE_UCS2 encode_ucs2
#endif

/* Up to this many bytes of output are encoded on the C stack, then copied
 * into a bytes of the exact size (as CPython's _PyBytesWriter does);
 * longer text is encoded into a bytes of the widest size, then shrunk. */
#define ENCODE_STACK_BYTES 512

static Cystck_ssize_t encode_kind(char *out, int kind, const void *data, Cystck_ssize_t n)
{
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        return encode_ucs1(out, (const Py_UCS1 *)data, n);
    case PyUnicode_2BYTE_KIND:
        return ENCODE_UCS2(out, (const Py_UCS2 *)data, n);
    default:
        return encode_ucs4(out, (const Py_UCS4 *)data, n);
    }
}

/* Does CPython check the error handler's name before encoding?  In a
 * debug build, and in development mode (-X dev), which is set at startup:
 * asked once, when the runtime starts (until then: let CPython check). */
int _Cystck_errors_checked_first = 1;

void _Cystck_UnicodeInit(void)
{
#ifndef Py_DEBUG
    PyObject *flags = PySys_GetObject("flags"), *v;   /* borrowed */
    v = flags != NULL ? PyObject_GetAttrString(flags, "dev_mode") : NULL;
    if (v == NULL)
        PyErr_Clear();
    _Cystck_errors_checked_first = v == NULL || PyObject_IsTrue(v) != 0;   /* unknown: let CPython check */
    Py_XDECREF(v);
#endif
}

/* A str that is not compact ASCII as UTF-8 bytes (PyUnicode_AsEncodedString
 * with the default encoding, PyUnicode_AsUTF8String): the runtime encodes
 * text without surrogates itself, the same bytes as CPython's encoder;
 * surrogates, which only the error handler can place, send the whole str
 * to CPython, as does a named handler that CPython looks up first (also
 * for compact ASCII, which the inline path sends here then). */
PyObject *_Cystck_EncodeUTF8(PyObject *o, const char *errors)
{
    char stack[ENCODE_STACK_BYTES + ENCODE_SLACK];
    Cystck_ssize_t n, size, max_size;
    int kind;
    PyObject *bytes = NULL;
    if (errors != NULL && _Cystck_errors_checked_first)
        return PyUnicode_AsEncodedString(o, NULL, errors);
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(o) < 0)
        return NULL;
#endif
    n = PyUnicode_GET_LENGTH(o);
    kind = PyUnicode_KIND(o);
    /* 1 byte per code point becomes at most 2, 2 at most 3, 4 at most 4. */
    if (n > PY_SSIZE_T_MAX / 4)
        return PyUnicode_AsEncodedString(o, NULL, errors);
    max_size = n * (kind == PyUnicode_1BYTE_KIND ? 2 : kind == PyUnicode_2BYTE_KIND ? 3 : 4);
    if (max_size <= ENCODE_STACK_BYTES) {
        size = encode_kind(stack, kind, PyUnicode_DATA(o), n);
        if (size >= 0)
            return PyBytes_FromStringAndSize(stack, size);
    }
    else {
        /* The bytes object's own terminating NUL is one byte of slack. */
        bytes = PyBytes_FromStringAndSize(NULL, max_size + ENCODE_SLACK - 1);
        if (bytes == NULL)
            return NULL;
        size = encode_kind(PyBytes_AS_STRING(bytes), kind, PyUnicode_DATA(o), n);
        if (size >= 0)
            return _PyBytes_Resize(&bytes, size) < 0 ? NULL : bytes;
        Py_DECREF(bytes);
    }
    return PyUnicode_AsEncodedString(o, NULL, errors);
}
