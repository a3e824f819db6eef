/*
 * The bytes writer: C code writes bytes straight into the storage of the
 * object it returns, a bytes (CystckBytesWriter_Init) or a str whose bytes
 * are UTF-8 (CystckBytesWriter_InitStr), instead of filling a C buffer and
 * copying it into a new object at the end.
 *
 * A str is built as a compact ASCII str: its one-byte storage is where the
 * bytes go.  When every byte written is ASCII (JSON with ensure_ascii, most
 * serializers' output) that str is the result, cut to length in place;
 * otherwise the bytes are decoded as UTF-8 into a new str, the one copy
 * that cannot be avoided (UTF-8 is not a PEP 393 kind).  Growing and the
 * final cut are reallocs of the object.  The object sits in a handle slot of
 * the frame, so a writer abandoned on an error path leaks nothing.
 *
 * A writer may start in a buffer of the caller's (on its stack, say), as
 * CPython's _PyBytesWriter starts in its small_buffer: small results then
 * cost no allocation beyond the result's, copied out of the buffer at the
 * end; the first Grow moves the bytes into an object, in place from then on.
 */
#include "internal.h"

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static CYSTCK_COLD void writer_misused(Cystck_State *S, const char *func, const char *what)
{
    _Cystck_SyncDebug(S);
    PyErr_Format(PyExc_SystemError, "%s: %s", func, what);
}

/* 0, or -1 with SystemError for a writer not initialized or
 * already finished. */
static int writer_live(Cystck_State *S, CystckBytesWriter *w, const char *func)
{
    if (w == NULL || w->_start == NULL) {
        writer_misused(S, func, "the writer is not initialized, or already finished");
        return -1;
    }
    return 0;
}

static char *storage(const CystckBytesWriter *w, PyObject *o)
{
    return w->_str ? (char *)PyUnicode_1BYTE_DATA(o) : PyBytes_AS_STRING(o);
}

/* A new object of n bytes, its storage not filled yet. */
static PyObject *new_object(const CystckBytesWriter *w, Cystck_ssize_t n)
{
    return w->_str ? PyUnicode_New(n, 0x7F) : PyBytes_FromStringAndSize(NULL, n);
}

/* Bytes written so far: p - start, or -1 with SystemError if p is not in the
 * storage (a pointer of another writer, or one kept across a Grow). */
static Cystck_ssize_t written(Cystck_State *S, CystckBytesWriter *w, const char *p, const char *func)
{
    if (p < w->_start || p > w->_end) {
        writer_misused(S, func, "the write position is outside the writer's storage");
        return -1;
    }
    return p - w->_start;
}

static char *writer_init(Cystck_State *S, CystckBytesWriter *w, char *buf, Cystck_ssize_t n, int str,
                         const char *errors, const char *func)
{
    w->_start = NULL;
    w->_obj = Cystck_NULL;
    w->_str = str;
    w->_errors = errors;
    if (n < 0) {
        _Cystck_SyncDebug(S);
        PyErr_Format(PyExc_ValueError, "%s: negative size %zd", func, n);
        return NULL;
    }
    if (buf == NULL) {
        w->_obj = _Cystck_Own(S, new_object(w, n));
        if (Cystck_IsNull(w->_obj))
            return NULL;
        buf = storage(w, *w->_obj._p);
    }
    w->_start = buf;
    w->_end = buf + n;
    return buf;
}

char *CystckBytesWriter_Init(Cystck_State *S, CystckBytesWriter *w, char *buf, Cystck_ssize_t size)
{
    return writer_init(S, w, buf, size, 0, NULL, "CystckBytesWriter_Init");
}

char *CystckBytesWriter_InitStr(Cystck_State *S, CystckBytesWriter *w, char *buf, Cystck_ssize_t size,
                                const char *errors)
{
    return writer_init(S, w, buf, size, 1, errors, "CystckBytesWriter_InitStr");
}

/* Resize the object in its slot (a realloc when nothing else holds it). */
static int resize(CystckBytesWriter *w, PyObject **slot, Cystck_ssize_t n)
{
    if (w->_str)
        return PyUnicode_Resize(slot, n);
    /* _PyBytes_Resize frees the object and leaves NULL in the slot when it
     * fails: the frame then has nothing to release there. */
    return _PyBytes_Resize(slot, n);
}

/* Move what the caller's buffer holds into a new object of cap bytes. */
static int leave_buffer(Cystck_State *S, CystckBytesWriter *w, Cystck_ssize_t used, Cystck_ssize_t cap)
{
    Cystck_Object h = _Cystck_Own(S, new_object(w, cap));
    if (Cystck_IsNull(h))
        return -1;
    memcpy(storage(w, *h._p), w->_start, (size_t)used);
    w->_obj = h;
    return 0;
}

char *CystckBytesWriter_Grow(Cystck_State *S, CystckBytesWriter *w, char *p, Cystck_ssize_t n)
{
    static const char func[] = "CystckBytesWriter_Grow";
    Cystck_ssize_t used, cap;
    if (writer_live(S, w, func) < 0 || (used = written(S, w, p, func)) < 0)
        return NULL;
    if (n < 0) {
        writer_misused(S, func, "negative size");
        return NULL;
    }
    if (w->_end - p >= n)
        return p;
    if (n > PY_SSIZE_T_MAX - used) {
        PyErr_NoMemory();
        return NULL;
    }
    /* Doubling, as the C buffers this replaces usually grow: as many
     * reallocs as they made; Finish gives the unused tail back. */
    cap = w->_end - w->_start;
    cap = cap <= PY_SSIZE_T_MAX / 2 && 2 * cap > used + n ? 2 * cap : used + n;
    if (Cystck_IsNull(w->_obj) ? leave_buffer(S, w, used, cap) < 0 : resize(w, w->_obj._p, cap) < 0) {
        w->_start = NULL;       /* unusable: the frame releases the object */
        return NULL;
    }
    w->_start = storage(w, *w->_obj._p);
    w->_end = w->_start + cap;
    return w->_start + used;
}

/* Does s[0:n] hold bytes below 0x80 only?  64 bytes a step (SSE2 on
 * x86-64, else four words of 8): the scan costs a fraction of the copy it
 * replaces. */
int _Cystck_AllASCII(const char *s, size_t n)
{
    size_t i = 0;
    unsigned acc = 0;
#if defined(__SSE2__)
    for (; i + 64 <= n; i += 64) {
        __m128i v = _mm_or_si128(_mm_or_si128(_mm_loadu_si128((const __m128i *)(s + i)),
                                              _mm_loadu_si128((const __m128i *)(s + i + 16))),
                                 _mm_or_si128(_mm_loadu_si128((const __m128i *)(s + i + 32)),
                                              _mm_loadu_si128((const __m128i *)(s + i + 48))));
        if (_mm_movemask_epi8(v))
            return 0;
    }
#else
    const uint64_t high = 0x8080808080808080u;
    for (; i + 32 <= n; i += 32) {
        uint64_t a, b, c, d;
        memcpy(&a, s + i, 8);
        memcpy(&b, s + i + 8, 8);
        memcpy(&c, s + i + 16, 8);
        memcpy(&d, s + i + 24, 8);
        if ((a | b | c | d) & high)
            return 0;
    }
#endif
    for (; i < n; i++)
        acc |= (unsigned char)s[i];
    return (acc & 0x80) == 0;
}

/* The object of the bytes still in the caller's buffer: one copy, as small
 * as that buffer. */
static PyObject *from_buffer(const CystckBytesWriter *w, const char *start, Cystck_ssize_t used)
{
    if (w->_str)
        return PyUnicode_DecodeUTF8(start, used, w->_errors);
    return PyBytes_FromStringAndSize(start, used);
}

Cystck_Object CystckBytesWriter_Finish(Cystck_State *S, CystckBytesWriter *w, char *p)
{
    static const char func[] = "CystckBytesWriter_Finish";
    Cystck_Object h = w == NULL ? Cystck_NULL : w->_obj;
    PyObject **slot = h._p;
    Cystck_ssize_t used;
    if (writer_live(S, w, func) < 0 || (used = written(S, w, p, func)) < 0)
        return Cystck_NULL;
    w->_obj = Cystck_NULL;
    if (Cystck_IsNull(h)) {
        h = _Cystck_Own(S, from_buffer(w, w->_start, used));
        w->_start = NULL;
        return h;
    }
    w->_start = NULL;
    if (w->_str && !_Cystck_AllASCII(storage(w, *slot), (size_t)used)) {
        PyObject *decoded = PyUnicode_DecodeUTF8(storage(w, *slot), used, w->_errors);
        if (decoded == NULL) {
            Cystck_Drop(S, h);
            return Cystck_NULL;
        }
        Py_SETREF(*slot, decoded);
        return h;
    }
    if (p != w->_end && resize(w, slot, used) < 0) {
        Cystck_Drop(S, h);
        return Cystck_NULL;
    }
    return h;
}

void CystckBytesWriter_Discard(Cystck_State *S, CystckBytesWriter *w)
{
    if (w != NULL && w->_start != NULL) {
        Cystck_Drop(S, w->_obj);
        w->_obj = Cystck_NULL;
        w->_start = NULL;
    }
}
