/*
 * Native memory with lifetime policies (paper section 4.3, Algorithms 1-2).
 *
 * The paper attaches policies with liballocs; it is not installable here, so
 * every block carries its own header.  A block created by C starts with the
 * explicit-free policy (Algorithm 1, "not created from Python").  Exposing it
 * to Python adds a refcount policy held by an exporter object that the
 * memoryview keeps alive.  CystckMem_Free drops the explicit-free policy, the
 * exporter's death drops the refcount policy, and the memory is released
 * only when no policy remains (Algorithm 2).
 */
#include "internal.h"

#include <stddef.h>
#include <string.h>

#define BLOCK_MAGIC 0x43795374u    /* "CySt" */
#define BLOCK_DEAD  0xdeadb10cu

typedef struct {
    unsigned int magic;
    int explicit_free;             /* the C side has not freed it yet */
    Py_ssize_t owners;             /* live Python exporters (refcount policy) */
    size_t size;
    CystckMem_Finalizer finalizer;
} BlockHeader;

/* The payload starts this far after the header: sizeof(BlockHeader) rounded
 * up to the alignment of max_align_t, so that it is aligned like memory from
 * malloc (16 bytes on x86-64), as C code storing doubles, long doubles or
 * SIMD vectors in it expects.  max_align_t is C11's: an extension built
 * with -std=c99 (the runtime is compiled with the extension's flags) gets
 * the same alignment from a union of the widest scalar types. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
typedef max_align_t MaxAligned;
#else
typedef union { long double ld; long long ll; double d; void *p; void (*f)(void); } MaxAligned;
#endif
#define PAYLOAD_ALIGN offsetof(struct { char c; MaxAligned m; }, m)
#define HEADER_SPACE ((sizeof(BlockHeader) + PAYLOAD_ALIGN - 1) / PAYLOAD_ALIGN * PAYLOAD_ALIGN)
_Static_assert(HEADER_SPACE % PAYLOAD_ALIGN == 0 && HEADER_SPACE >= sizeof(BlockHeader),
               "the payload of a native block must be aligned like malloc's memory");

static void *payload_of(BlockHeader *h)
{
    return (char *)h + HEADER_SPACE;
}

static BlockHeader *block_at(void *p)
{
    return (BlockHeader *)((char *)p - HEADER_SPACE);
}

/* The header of block p, or NULL with SystemError naming func and the
 * extension's line (`where`) when p is not a live block. */
static BlockHeader *header_of(Cystck_State *S, void *p, const char *func, const void *where)
{
    BlockHeader *h = p != NULL ? block_at(p) : NULL;
    const char *problem;
    char at[512];
    if (h == NULL)
        problem = "NULL block";
    else if (h->magic == BLOCK_DEAD)
        problem = "block used after its last policy was released";
    else if (h->magic != BLOCK_MAGIC)
        problem = "pointer was not allocated by CystckMem_Malloc";
    else
        return h;
    _Cystck_SyncDebug(S);     /* so that closing the frame checks it */
    _Cystck_DescribeAddress(where, at, sizeof(at));
    PyErr_Format(PyExc_SystemError, "%s: %s, at %s%s", func, problem, at,
                 _Cystck_debug ? " [CYSTCK_DEBUG]" : "");
    return NULL;
}

static int policies(BlockHeader *h)
{
    return (h->explicit_free ? CYSTCK_POLICY_EXPLICIT_FREE : 0) |
           (h->owners > 0 ? CYSTCK_POLICY_REFCOUNT : 0);
}

/* Algorithm 2: release the memory once no policy remains. */
static void release_if_unowned(BlockHeader *h)
{
    if (policies(h) != 0)
        return;
    if (h->finalizer != NULL)
        h->finalizer(payload_of(h));
    h->magic = BLOCK_DEAD;
    if (_Cystck_debug)
        return;    /* keep it poisoned so later use is reported, not silent */
    PyMem_RawFree(h);
}

void *CystckMem_Malloc(Cystck_State *S, size_t size)
{
    BlockHeader *h;
    (void)S;
    h = (BlockHeader *)PyMem_RawMalloc(HEADER_SPACE + (size ? size : 1));
    if (h == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    memset(h, 0, sizeof(*h));
    h->magic = BLOCK_MAGIC;
    h->explicit_free = 1;
    h->size = size;
    return payload_of(h);
}

void *CystckMem_Calloc(Cystck_State *S, size_t n, size_t size)
{
    void *p;
    if (size != 0 && n > (size_t)PY_SSIZE_T_MAX / size) {
        PyErr_NoMemory();
        return NULL;
    }
    p = CystckMem_Malloc(S, n * size);
    if (p != NULL)
        memset(p, 0, n * size);
    return p;
}

void *CystckMem_Realloc(Cystck_State *S, void *p, size_t size)
{
    BlockHeader *h, *nh;
    if (p == NULL)
        return CystckMem_Malloc(S, size);
    h = header_of(S, p, "CystckMem_Realloc", _CYSTCK_CALLER());
    if (h == NULL)
        return NULL;
    if (h->owners > 0) {
        PyErr_SetString(PyExc_BufferError,
                        "CystckMem_Realloc: the block is exposed to Python and cannot move");
        return NULL;
    }
    nh = (BlockHeader *)PyMem_RawRealloc(h, HEADER_SPACE + (size ? size : 1));
    if (nh == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    nh->size = size;
    return payload_of(nh);
}

void CystckMem_Free(Cystck_State *S, void *p)
{
    BlockHeader *h;
    (void)S;
    if (p == NULL)
        return;
    h = header_of(S, p, "CystckMem_Free", _CYSTCK_CALLER());
    if (h == NULL)
        return;
    if (!h->explicit_free) {
        PyErr_SetString(PyExc_SystemError, "CystckMem_Free: block freed twice");
        return;
    }
    h->explicit_free = 0;
    release_if_unowned(h);
}

int CystckMem_SetFinalizer(Cystck_State *S, void *p, CystckMem_Finalizer fin)
{
    BlockHeader *h = header_of(S, p, "CystckMem_SetFinalizer", _CYSTCK_CALLER());
    (void)S;
    if (h == NULL)
        return -1;
    h->finalizer = fin;
    return 0;
}

int CystckMem_Policies(Cystck_State *S, void *p)
{
    BlockHeader *h;
    (void)S;
    if (p == NULL)
        return 0;
    h = block_at(p);
    if (h->magic != BLOCK_MAGIC)
        return 0;
    return policies(h);
}

/* ---- The exporter: a small object whose life is the refcount policy ----
 * It exports n items of itemsize bytes with a struct-module format ('B'
 * for plain bytes), so a memoryview of it reads typed items directly. */

typedef struct {
    PyObject_HEAD
    BlockHeader *block;
    int readonly;
    Py_ssize_t nitems;     /* the view's shape */
    Py_ssize_t itemsize;
    char *format;          /* a copy: the caller's string may not outlive the view */
} Exporter;

static int exporter_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    Exporter *e = (Exporter *)self;
    if (PyBuffer_FillInfo(view, self, payload_of(e->block), e->nitems * e->itemsize,
                          e->readonly, flags) < 0)
        return -1;
    /* FillInfo describes bytes: make it n items of the format.  A consumer
     * that asks for no format or shape sees the bytes, as the protocol says
     * (itemsize keeps the item's size then too). */
    view->itemsize = e->itemsize;
    if ((flags & PyBUF_FORMAT) == PyBUF_FORMAT)
        view->format = e->format;
    if ((flags & PyBUF_ND) == PyBUF_ND)
        view->shape = &e->nitems;
    return 0;
}

static void exporter_dealloc(PyObject *self)
{
    Exporter *e = (Exporter *)self;
    PyTypeObject *tp = Py_TYPE(self);
    e->block->owners--;
    release_if_unowned(e->block);
    PyMem_Free(e->format);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot exporter_slots[] = {
    {Py_bf_getbuffer, (void *)exporter_getbuffer},
    {Py_tp_dealloc, (void *)exporter_dealloc},
    {Py_tp_doc, (void *)"Native memory exposed by a Cystck extension."},
    {0, NULL}
};

static PyType_Spec exporter_spec = {
    "cystck.NativeBlock", sizeof(Exporter), 0, Py_TPFLAGS_DEFAULT, exporter_slots
};

static PyObject *exporter_type;

/* Is `format` one struct-module item of itemsize bytes?  0, or -1 with
 * ValueError naming func. */
static int check_format(const char *format, Cystck_ssize_t itemsize, const char *func)
{
    Py_ssize_t size;
    if (format == NULL || itemsize <= 0) {
        PyErr_Format(PyExc_ValueError, "%s: need a format and a positive item size", func);
        return -1;
    }
    size = PyBuffer_SizeFromFormat(format);
    if (size < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: '%s' is not a struct module format", func, format);
        return -1;
    }
    if (size != itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: format '%s' has %zd-byte items, not %zd",
                     func, format, size, itemsize);
        return -1;
    }
    return 0;
}

/* A memoryview of n items of block p: the exporter attaches the refcount
 * policy (Algorithm 1) and drops it when the last view of it dies. */
static Cystck_Object expose(Cystck_State *S, void *p, const char *format, Cystck_ssize_t itemsize,
                            Cystck_ssize_t n, int readonly, const char *func, const void *where)
{
    BlockHeader *h = header_of(S, p, func, where);
    Exporter *e;
    char *fmt;
    PyObject *view;
    if (h == NULL)
        return Cystck_NULL;
    if (n < 0 || (size_t)n > h->size / (size_t)itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd items of %zd bytes outside the block (%zu bytes)",
                     func, n, itemsize, h->size);
        return Cystck_NULL;
    }
    if (exporter_type == NULL) {
        exporter_type = PyType_FromSpec(&exporter_spec);
        if (exporter_type == NULL)
            return Cystck_NULL;
    }
    fmt = (char *)PyMem_Malloc(strlen(format) + 1);
    if (fmt == NULL)
        return (PyErr_NoMemory(), Cystck_NULL);
    strcpy(fmt, format);
    e = PyObject_New(Exporter, (PyTypeObject *)exporter_type);
    if (e == NULL) {
        PyMem_Free(fmt);
        return Cystck_NULL;
    }
    e->block = h;
    e->readonly = readonly;
    e->nitems = n;
    e->itemsize = itemsize;
    e->format = fmt;
    h->owners++;                 /* Algorithm 1: attach the refcount policy */
    view = PyMemoryView_FromObject((PyObject *)e);
    Py_DECREF(e);
    return _Cystck_Own(S, view);
}

Cystck_Object CystckMem_AsMemoryView(Cystck_State *S, void *p, Cystck_ssize_t size, int readonly)
{
    return expose(S, p, "B", 1, size, readonly, "CystckMem_AsMemoryView", _CYSTCK_CALLER());
}

Cystck_Object CystckMem_AsTypedMemoryView(Cystck_State *S, void *p, const char *format,
                                          Cystck_ssize_t itemsize, Cystck_ssize_t n, int readonly)
{
    const char *func = "CystckMem_AsTypedMemoryView";
    if (check_format(format, itemsize, func) < 0)
        return Cystck_NULL;
    return expose(S, p, format, itemsize, n, readonly, func, _CYSTCK_CALLER());
}
