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

int CystckUnicodeWriter_WriteChar(Cystck_State *S, CystckUnicodeWriter *w, Py_UCS4 c)
{
    PyObject **slot = writer_slot(S, w, "CystckUnicodeWriter_WriteChar");
    if (slot == NULL)
        return -1;
    if (c > 0x10FFFF) {
        PyErr_Format(PyExc_ValueError, "character U+%x is not in range [U+0000; U+10ffff]", c);
        return -1;
    }
    if (writer_prepare(w, slot, 1, c) < 0)
        return -1;
    PyUnicode_WRITE(PyUnicode_KIND(*slot), PyUnicode_DATA(*slot), w->_pos, c);
    w->_pos++;
    return 0;
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

/* s[start:end], clipped as str slicing clips. */
static int write_substring(Cystck_State *S, CystckUnicodeWriter *w, Cystck_Object s,
                           Cystck_ssize_t start, Cystck_ssize_t end, const char *func)
{
    PyObject **slot = writer_slot(S, w, func);
    PyObject *o = _Cystck_Get(s);
    Cystck_ssize_t len, i;
    Py_UCS4 maxchar = 0;
    int kind;
    const void *data;
    if (slot == NULL)
        return -1;
    if (o == NULL)
        return _Cystck_BadArgInt(S, func, s);
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a str, got %.200s", func, Py_TYPE(o)->tp_name);
        return -1;
    }
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

int CystckUnicodeWriter_WriteASCIIString(Cystck_State *S, CystckUnicodeWriter *w, const char *s,
                                         Cystck_ssize_t n)
{
    PyObject **slot = writer_slot(S, w, "CystckUnicodeWriter_WriteASCIIString");
    Cystck_ssize_t i;
    if (slot == NULL)
        return -1;
    if (n < 0)
        n = (Cystck_ssize_t)strlen(s);
    if (!_Cystck_AllASCII(s, (size_t)n)) {
        for (i = 0; (unsigned char)s[i] <= 0x7F; i++)
            ;
        PyErr_Format(PyExc_ValueError,
                     "CystckUnicodeWriter_WriteASCIIString: byte 0x%02x at %zd is not ASCII",
                     (unsigned char)s[i], i);
        return -1;
    }
    return write_ascii(w, slot, s, n);
}

/* ASCII (the common case) goes straight into the str; other UTF-8 is
 * decoded into a temporary str first, then copied. */
int CystckUnicodeWriter_WriteUTF8(Cystck_State *S, CystckUnicodeWriter *w, const char *s, Cystck_ssize_t n)
{
    PyObject **slot = writer_slot(S, w, "CystckUnicodeWriter_WriteUTF8");
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
    r = write_substring(S, w, _Cystck_H(&decoded), 0, PY_SSIZE_T_MAX, "CystckUnicodeWriter_WriteUTF8");
    Py_DECREF(decoded);
    return r;
}

Cystck_Object CystckUnicodeWriter_Finish(Cystck_State *S, CystckUnicodeWriter *w)
{
    PyObject **slot = writer_slot(S, w, "CystckUnicodeWriter_Finish");
    Cystck_Object h;
    if (slot == NULL)
        return Cystck_NULL;
    h = w->_str;
    w->_str = Cystck_NULL;
    if (PyUnicode_GET_LENGTH(*slot) != w->_pos && PyUnicode_Resize(slot, w->_pos) < 0) {
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
