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
 */
#include "internal.h"

#include <string.h>

static CYSTCK_COLD void writer_misused(Cystck_State *S, const char *func, const char *what)
{
    _Cystck_SyncDebug(S);
    PyErr_Format(PyExc_SystemError, "%s: %s", func, what);
}

/* The slot of w's object, or NULL with SystemError for a writer not
 * initialized or already finished. */
static PyObject **writer_slot(Cystck_State *S, CystckBytesWriter *w, const char *func)
{
    if (w == NULL || Cystck_IsNull(w->_obj)) {
        writer_misused(S, func, "the writer is not initialized, or already finished");
        return NULL;
    }
    return w->_obj._p;
}

static char *storage(const CystckBytesWriter *w, PyObject *o)
{
    return w->_str ? (char *)PyUnicode_1BYTE_DATA(o) : PyBytes_AS_STRING(o);
}

static Cystck_ssize_t capacity(const CystckBytesWriter *w, PyObject *o)
{
    return w->_str ? PyUnicode_GET_LENGTH(o) : PyBytes_GET_SIZE(o);
}

/* Bytes written so far: p - start, or -1 with SystemError if p is not in the
 * storage (a pointer of another writer, or one kept across a Grow). */
static Cystck_ssize_t written(Cystck_State *S, CystckBytesWriter *w, PyObject *o, const char *p,
                              const char *func)
{
    const char *start = storage(w, o);
    if (p < start || p > w->_end) {
        writer_misused(S, func, "the write position is outside the writer's storage");
        return -1;
    }
    return p - start;
}

/* The object of n bytes (its storage not filled yet) held by w's handle. */
static char *writer_init(Cystck_State *S, CystckBytesWriter *w, Cystck_ssize_t n, int str,
                         const char *errors, const char *func)
{
    PyObject *o;
    w->_obj = Cystck_NULL;
    if (n < 0) {
        _Cystck_SyncDebug(S);
        PyErr_Format(PyExc_ValueError, "%s: negative size %zd", func, n);
        return NULL;
    }
    o = str ? PyUnicode_New(n, 0x7F) : PyBytes_FromStringAndSize(NULL, n);
    w->_obj = _Cystck_Own(S, o);
    if (Cystck_IsNull(w->_obj))
        return NULL;
    w->_str = str;
    w->_errors = errors;
    w->_end = storage(w, o) + n;
    return storage(w, o);
}

char *CystckBytesWriter_Init(Cystck_State *S, CystckBytesWriter *w, Cystck_ssize_t size)
{
    return writer_init(S, w, size, 0, NULL, "CystckBytesWriter_Init");
}

char *CystckBytesWriter_InitStr(Cystck_State *S, CystckBytesWriter *w, Cystck_ssize_t size,
                                const char *errors)
{
    return writer_init(S, w, size, 1, errors, "CystckBytesWriter_InitStr");
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

char *CystckBytesWriter_Grow(Cystck_State *S, CystckBytesWriter *w, char *p, Cystck_ssize_t n)
{
    static const char func[] = "CystckBytesWriter_Grow";
    PyObject **slot = writer_slot(S, w, func);
    Cystck_ssize_t used, cap;
    if (slot == NULL || (used = written(S, w, *slot, p, func)) < 0)
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
    cap = capacity(w, *slot);
    cap = cap <= PY_SSIZE_T_MAX / 2 && 2 * cap > used + n ? 2 * cap : used + n;
    if (resize(w, slot, cap) < 0) {
        if (*slot == NULL)
            w->_obj = Cystck_NULL;
        return NULL;
    }
    w->_end = storage(w, *slot) + cap;
    return storage(w, *slot) + used;
}

/* Does s[0:n] hold bytes below 0x80 only?  Eight at a time, four words per
 * step: the scan costs a fraction of the copy it replaces. */
static int all_ascii(const char *s, size_t n)
{
    const size_t high = (size_t)-1 / 0xFF * 0x80;
    size_t i = 0, acc = 0;
    for (; i + 4 * sizeof(size_t) <= n; i += 4 * sizeof(size_t)) {
        size_t w[4];
        memcpy(w, s + i, sizeof w);
        if ((w[0] | w[1] | w[2] | w[3]) & high)
            return 0;
    }
    for (; i < n; i++)
        acc |= (unsigned char)s[i];
    return (acc & 0x80) == 0;
}

Cystck_Object CystckBytesWriter_Finish(Cystck_State *S, CystckBytesWriter *w, char *p)
{
    static const char func[] = "CystckBytesWriter_Finish";
    PyObject **slot = writer_slot(S, w, func);
    Cystck_Object h;
    Cystck_ssize_t used;
    if (slot == NULL || (used = written(S, w, *slot, p, func)) < 0)
        return Cystck_NULL;
    h = w->_obj;
    w->_obj = Cystck_NULL;
    if (w->_str && !all_ascii(storage(w, *slot), (size_t)used)) {
        PyObject *decoded = PyUnicode_DecodeUTF8(storage(w, *slot), used, w->_errors);
        if (decoded == NULL) {
            Cystck_Drop(S, h);
            return Cystck_NULL;
        }
        Py_SETREF(*slot, decoded);
        return h;
    }
    if (used != capacity(w, *slot) && resize(w, slot, used) < 0) {
        Cystck_Drop(S, h);
        return Cystck_NULL;
    }
    return h;
}

void CystckBytesWriter_Discard(Cystck_State *S, CystckBytesWriter *w)
{
    if (w != NULL && !Cystck_IsNull(w->_obj)) {
        Cystck_Drop(S, w->_obj);
        w->_obj = Cystck_NULL;
    }
}
