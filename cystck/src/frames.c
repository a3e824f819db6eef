/*
 * Frames: the slow paths of the handle array and the return stack.
 *
 * A frame starts with CYSTCK_INLINE_HANDLES slots inside its Cystck_State
 * (on the trampoline's C stack).  When they run out, heap chunks of growing
 * size are chained; handles never move, so a handle stays valid while its
 * frame lives.  The total per frame is capped by the handle limit.
 */
#include "Cystck.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>


struct _Cystck_Chunk {
    struct _Cystck_Chunk *prev;
    PyObject **saved_top, **saved_base, **saved_end;   /* the previous chunk */
    Cystck_ssize_t before;     /* handles in all previous chunks */
    Cystck_ssize_t cap;
    PyObject *slots[1];
};

static Cystck_ssize_t handle_limit = CYSTCK_DEFAULT_HANDLE_LIMIT;

/* Slots a frame may take past the limit for exceptions taken out of the
 * error indicator (_Cystck_OwnException); `reserve` is that many while
 * one is being given its slot, else 0. */
#define EXCEPTION_RESERVE 16
static Cystck_ssize_t reserve;

Cystck_ssize_t Cystck_HandleLimit(void) { return handle_limit; }

void _Cystck_SetHandleLimit(Cystck_ssize_t limit) { handle_limit = limit; }

/* The end of the return stack, and setting it with the frame's state bits
 * (see Cystck_State: a slow frame's sp_limit is one entry short of the end,
 * plus its bits). */
static PyObject **stack_end(Cystck_State *S)
{
    return (PyObject **)((S->sp_limit + _CYSTCK_STATE_BITS) & ~(uintptr_t)_CYSTCK_STATE_BITS);
}

static void set_stack_end(Cystck_State *S, PyObject **end, uintptr_t bits)
{
    S->sp_limit = (uintptr_t)(end - 1) | bits;
}

/* A frame opens with only the fields its fast paths use; the others are
 * set here the first time it needs them (see Cystck_State). */
void _Cystck_GoSlow(Cystck_State *S)
{
    if (_CYSTCK_IS_SLOW(S))
        return;
    S->frame->sp_base = S->frame->stack;
    S->frame->chunk = NULL;
    S->frame->heap_args = NULL;
    S->frame->debug = NULL;
    /* an inline frame may have noted a raise (_Cystck_Raised): kept */
    set_stack_end(S, S->frame->stack + CYSTCK_INLINE_STACK, _CYSTCK_SLOW | (S->sp_limit & _CYSTCK_RAISED));
    if (_CYSTCK_DEBUG_UNCHECKED(S)) {
        /* In debug mode, no handle made yet (_Cystck_Own sends every handle
         * of debug mode here first): checked from now on, or, out of memory
         * for the record, unchecked with its slots (a debug twin's frame
         * opens with none: it gets the inline ones). */
        S->frame->debug = _Cystck_DebugNewFrame(NULL);
        if (S->frame->debug != NULL)
            S->sp_limit |= _CYSTCK_SLOW_DEBUG;
        else
            S->end = S->frame->slots + CYSTCK_INLINE_HANDLES;
    }
}

static struct _Cystck_Chunk *chunk_of(Cystck_State *S)
{
    return _CYSTCK_IS_SLOW(S) ? S->frame->chunk : NULL;
}

static struct _Cystck_DebugFrame *debug_of(Cystck_State *S)
{
    return _CYSTCK_IS_SLOW(S) ? S->frame->debug : NULL;
}

static Cystck_ssize_t chunk_count_before(Cystck_State *S)
{
    return chunk_of(S) ? S->frame->chunk->before : 0;
}

static Cystck_ssize_t live_handles(Cystck_State *S)
{
    return chunk_count_before(S) + (S->top - S->base);
}

/* The start of the handle limit's MemoryError message, by which
 * _Cystck_LimitErrorPending knows it. */
#define LIMIT_MESSAGE "Cystck handle limit exceeded"

static int raise_overflow(Cystck_State *S, Cystck_ssize_t wanted)
{
    (void)S;
    PyErr_Format(PyExc_MemoryError,
                 LIMIT_MESSAGE ": a single call may hold at most "
                 "%zd live handles (%zd requested).  Release handles early "
                 "(Cystck_Drop), or open a scope gate around the loop that "
                 "creates them (Cystck_OpenScope/Cystck_CloseScope), or raise "
                 "the limit with the CYSTCK_HANDLE_LIMIT environment variable.",
                 handle_limit, wanted);
    return -1;
}

/* Is the pending exception the handle limit's MemoryError (this runtime's
 * or another extension's: each has its own copy of it)?  Known by its
 * message, which PyErr_Format leaves unnormalized before Python 3.12 (the
 * value is the message) and in the exception's args from 3.12 on. */
int _Cystck_LimitErrorPending(void)
{
    PyObject *type, *value, *tb, *msg;
    const char *text;
    int found = 0;
    if (PyErr_Occurred() != PyExc_MemoryError)
        return 0;
    PyErr_Fetch(&type, &value, &tb);
    msg = value;
    if (msg != NULL && PyExceptionInstance_Check(msg)) {
        PyObject *args = ((PyBaseExceptionObject *)msg)->args;
        msg = args != NULL && PyTuple_GET_SIZE(args) > 0 ? PyTuple_GET_ITEM(args, 0) : NULL;
    }
    if (msg != NULL && PyUnicode_Check(msg)) {
        text = PyUnicode_AsUTF8(msg);
        if (text == NULL)
            PyErr_Clear();
        else
            found = strncmp(text, LIMIT_MESSAGE, sizeof(LIMIT_MESSAGE) - 1) == 0;
    }
    PyErr_Restore(type, value, tb);
    return found;
}

/* Freed chunks kept for the next frame that overflows, one per size class
 * (64 << 2k slots): overflowing frames then cost no allocation, and the
 * allocator's heap is not disturbed between a buffer and its realloc.  The
 * GIL serializes every frame operation, so a plain array is enough. */
#define CHUNK_CLASSES 6
static struct _Cystck_Chunk *spare_chunks[CHUNK_CLASSES];

static int size_class(Cystck_ssize_t cap)
{
    int k = 0;
    Cystck_ssize_t c = 64;
    while (c < cap && k < CHUNK_CLASSES - 1) {
        c *= 4;
        k++;
    }
    return c == cap ? k : -1;
}

static struct _Cystck_Chunk *alloc_chunk(Cystck_ssize_t cap)
{
    int k = size_class(cap);
    struct _Cystck_Chunk *c;
    if (k >= 0 && spare_chunks[k] != NULL) {
        c = spare_chunks[k];
        spare_chunks[k] = NULL;
        return c;
    }
    /* C's allocator, as debug mode's frames: its quarantine keeps closed
       frames' chunks for a while (and frees them with free), which an
       extension's tracemalloc leak tests must not see. */
    c = (struct _Cystck_Chunk *)malloc(sizeof(*c) + (size_t)(cap - 1) * sizeof(PyObject *));
    if (c != NULL)
        c->cap = cap;
    return c;
}

static void recycle_chunk(struct _Cystck_Chunk *c)
{
    int k = size_class(c->cap);
    if (k >= 0 && spare_chunks[k] == NULL)
        spare_chunks[k] = c;
    else
        free(c);
}

/* Move to a fresh heap chunk with room for at least `need` handles (or, in
 * a frame opened in debug mode, to its debug record's slots): on success
 * top == base, the first slot of the fresh area, and sp is unchanged; and
 * whatever the outcome the frame is slow.  _Cystck_OwnSlow's wrapper relies
 * on all three (include/Cystck.h). */
static int grow_handles(Cystck_State *S, Cystck_ssize_t need)
{
    Cystck_ssize_t used, prev_cap, cap;
    struct _Cystck_Chunk *c;
    _Cystck_GoSlow(S);
    if (S->frame->debug != NULL && _Cystck_OnInlineSlots(S)) {
        _Cystck_DebugFirstHandle(S);
        if (S->end - S->top >= need)
            return 0;
    }
    used = live_handles(S);
    prev_cap = S->frame->chunk ? S->frame->chunk->cap : 16;
    cap = prev_cap * 4 > 65536 ? 65536 : prev_cap * 4;
    if (S->frame->debug != NULL)
        used -= _Cystck_DebugReleasedSlots(S);  /* poisoned slots are not live */
    if (used + need > handle_limit + reserve)
        return raise_overflow(S, used + need);
    if (cap < need)
        cap = need;
    if (used + cap > handle_limit + reserve)
        cap = handle_limit + reserve - used > need ? handle_limit + reserve - used : need;
    c = alloc_chunk(cap);
    if (c == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    c->prev = S->frame->chunk;
    c->saved_top = S->top;
    c->saved_base = S->base;
    c->saved_end = S->end;
    c->before = live_handles(S);
    S->frame->chunk = c;
    S->base = S->top = c->slots;
    S->end = c->slots + c->cap;
    return 0;
}

/* Make the previous chunk (or the inline or debug slots) current again,
 * where the current chunk c was chained: c's slots are no longer the
 * frame's, and the caller gives c back. */
static inline void leave_chunk(Cystck_State *S, struct _Cystck_Chunk *c)
{
    S->top = c->saved_top;
    S->base = c->saved_base;
    S->end = c->saved_end;
    S->frame->chunk = c->prev;
}

/* The current heap chunk is empty: go back to the previous one, so handles
 * made from now on fill it again (a segmented stack). */
void _Cystck_PopChunk_Ool(Cystck_State *S)
{
    struct _Cystck_Chunk *c = chunk_of(S);
    if (c == NULL || S->top != S->base || S->frame->debug != NULL)
        return;
    leave_chunk(S, c);
    recycle_chunk(c);
    _Cystck_TrimTop(S);
}

PyObject **_Cystck_OwnSlow_Ool(Cystck_State *S, PyObject *o)
{
    if (grow_handles(S, 1) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    *S->top = o;    /* the caller reads it back (_Cystck_OwnSlow) */
    return S->top;
}

/* A handle for an exception taken out of the error indicator (PyErr_Fetch's
 * three, the raised exception), past the handle limit if need be: the error
 * path that takes one is often where reaching the limit led, and the stock
 * code it was translated from reads a null handle as "no exception" and
 * restores that, which clears the indicator.  NULL or no room even then
 * (EXCEPTION_RESERVE taken): the null handle, MemoryError set. */
Cystck_Object _Cystck_OwnException(Cystck_State *S, PyObject *o)
{
    Cystck_Object h;
    reserve = EXCEPTION_RESERVE;
    h = _Cystck_Own(S, o);
    reserve = 0;
    return h;
}

/* Can n exceptions taken out of the error indicator get their handles
 * (_Cystck_OwnException, past the limit if need be)?  0, or -1 with the
 * limit's MemoryError set, when the slots reserved past it are taken. */
int _Cystck_ExceptionRoom(Cystck_State *S, Cystck_ssize_t n)
{
    Cystck_ssize_t used;
    if (S->end - S->top >= n)
        return 0;
    _Cystck_GoSlow(S);
    used = live_handles(S);
    if (S->frame->debug != NULL)
        used -= _Cystck_DebugReleasedSlots(S);  /* as grow_handles counts */
    if (used + n > handle_limit + EXCEPTION_RESERVE)
        return raise_overflow(S, used + n);
    return 0;
}

int Cystck_CheckHandles(Cystck_State *S, Cystck_ssize_t n)
{
    if (S->end - S->top >= n)
        return 0;
    if (live_handles(S) + n > handle_limit)
        return raise_overflow(S, live_handles(S) + n);
    return 0;
}

int _Cystck_GrowStack_Ool(Cystck_State *S, Cystck_ssize_t n)
{
    Cystck_ssize_t used, cap, want;
    PyObject **mem;
    _Cystck_GoSlow(S);
    used = S->sp - S->frame->sp_base;
    cap = stack_end(S) - S->frame->sp_base;
    want = cap * 2 > used + n ? cap * 2 : used + n;
    if (used + n > handle_limit)
        return raise_overflow(S, used + n);
    if (S->frame->sp_base == S->frame->stack) {
        mem = (PyObject **)PyMem_Malloc((size_t)want * sizeof(PyObject *));
        if (mem != NULL)
            memcpy(mem, S->frame->stack, (size_t)used * sizeof(PyObject *));
    }
    else {
        mem = (PyObject **)PyMem_Realloc(S->frame->sp_base, (size_t)want * sizeof(PyObject *));
    }
    if (mem == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    S->frame->sp_base = mem;
    S->sp = mem + used;
    set_stack_end(S, mem + want, S->sp_limit & _CYSTCK_STATE_BITS);
    return 0;
}

/* Cystck_Return in a frame that is not inline (slow or checked, or one
 * that noted a raise, _Cystck_Raised: slow from here, as its wrapper says). */
int _Cystck_ReturnSlow_Ool(Cystck_State *S, PyObject **p, PyObject *o)
{
    _Cystck_GoSlow(S);
    if (_Cystck_StackFull(S) && _Cystck_GrowStack_Ool(S, 1) < 0)
        return -1;
    /* top - 1 is the newest slot, or (when the chunk is empty) a field of the
     * chunk's or the state's header, which no handle points to. */
    if (p == S->top - 1 && !_CYSTCK_CHECKED(S))
        --S->top;             /* the newest handle: move it, no refcount traffic */
    else
        Py_INCREF(o);
    *S->sp++ = o;
    return 1;
}

Cystck_Object *_Cystck_HeapArgs_Ool(Cystck_State *S, PyObject *const *args, Cystck_ssize_t n)
{
    Cystck_ssize_t i;
    Cystck_Object *h = (Cystck_Object *)PyMem_Malloc((size_t)n * sizeof(Cystck_Object));
    if (h == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (i = 0; i < n; i++)
        h[i] = _Cystck_H((PyObject **)&args[i]);
    _Cystck_GoSlow(S);
    S->frame->heap_args = h;
    return h;
}

/* Is p a live owned slot of this frame, in any of its chunks (or its
 * inline or debug slots)?  1 or 0. */
int _Cystck_OwnsSlot(Cystck_State *S, PyObject **p)
{
    struct _Cystck_Chunk *c = chunk_of(S);
    PyObject **top = S->top, **base = S->base;
    for (;;) {
        if (_Cystck_InSlots(p, base, top))
            return 1;
        if (c == NULL)
            return 0;
        top = c->saved_top;
        base = c->saved_base;
        c = c->prev;
    }
}

static int is_constant(PyObject **p)
{
    return (uintptr_t)p >= (uintptr_t)_Cystck_Consts &&
           (uintptr_t)p < (uintptr_t)(_Cystck_Consts + _CYSTCK_C_COUNT);
}

CYSTCK_NOINLINE void _Cystck_DropSlow_Ool(Cystck_State *S, Cystck_Object h)
{
    PyObject *o;
    _Cystck_SyncDebug(S);
    /* A constant is nobody's to release: no need to walk the chunks. */
    if (!_CYSTCK_CHECKED(S) && is_constant(h._p))
        return;
    if (!_Cystck_OwnsSlot(S, h._p)) {
        if (debug_of(S))
            _Cystck_DebugDropNotOwned(S, h, _CYSTCK_CALLER());
        return;     /* argument, constant or reference: not ours to release */
    }
    o = *h._p;
    if (o == NULL && debug_of(S)) {
        _Cystck_DebugBadHandle(S, "Cystck_Drop", h, _CYSTCK_CALLER());
        return;
    }
    *h._p = NULL;
    Py_XDECREF(o);
    if (debug_of(S))
        _Cystck_DebugNoteReleased(S, 1);
    else
        _Cystck_TrimTop(S);
}

PyObject *_Cystck_ConsumeSlow_Ool(Cystck_State *S, Cystck_Object h)
{
    PyObject *o = _Cystck_Get(h);
    if (o == NULL)
        return NULL;
    if (_Cystck_OwnsSlot(S, h._p)) {
        *h._p = NULL;     /* the stealing API now owns the reference */
        if (debug_of(S))
            _Cystck_DebugNoteReleased(S, 1);
        else
            _Cystck_TrimTop(S);
    }
    else {
        Py_INCREF(o);
    }
    return o;
}

/* Give a heap chunk back; in debug mode its poisoned slots stay readable in
 * quarantine so stale handles into it are reported, not dereferenced. */
static void free_chunk(Cystck_State *S, struct _Cystck_Chunk *c)
{
    if (S->frame->debug != NULL)
        _Cystck_DebugQuarantine(c->slots, c->slots + c->cap, c, _Cystck_DebugFrameName(S));
    else
        recycle_chunk(c);
}

/* Release every handle of chunk-or-inline range [base, top). */
static void release_range(PyObject **base, PyObject **top, int poison)
{
    PyObject **p;
    for (p = top; p > base; ) {
        PyObject *o = *--p;
        if (poison)
            *p = NULL;
        Py_XDECREF(o);
    }
}

/* Release the handles of the current heap chunk (poisoning them in debug
 * mode) and give the chunk back: what closing a frame or a scope does to
 * each chunk opened inside it. */
static void drop_chunk(Cystck_State *S)
{
    struct _Cystck_Chunk *c = S->frame->chunk;
    release_range(c->slots, S->top, S->frame->debug != NULL);
    leave_chunk(S, c);
    free_chunk(S, c);
}

/* Release every handle and heap chunk of a slow frame, and its heap
 * arguments (release_stack empties its return stack). */
static void release_frame(Cystck_State *S)
{
    while (S->frame->chunk != NULL)
        drop_chunk(S);
    if (S->frame->debug != NULL)
        _Cystck_DebugCloseFrame(S);
    else
        release_range(S->base, S->top, 0);
    if (S->frame->heap_args != NULL) {
        PyMem_Free(S->frame->heap_args);
        S->frame->heap_args = NULL;
    }
}

static void release_stack(Cystck_State *S)
{
    while (S->sp > S->frame->sp_base) {
        PyObject *o = *--S->sp;
        Py_DECREF(o);
    }
    if (S->frame->sp_base != S->frame->stack)
        PyMem_Free(S->frame->sp_base);
    S->sp = S->frame->sp_base = S->frame->stack;
}

void _Cystck_ReleaseSlots_Ool(PyObject **p, PyObject **top)
{
    do
        Py_XDECREF(*p);
    while (++p < top);
}

/* An exception raised through the API in S's frame (see _Cystck_Raised).
 * S may be NULL (a destructor's Cystck_unref). */
void _Cystck_NoteRaised(Cystck_State *S)
{
    if (S != NULL)
        _Cystck_Raised(S);
}

/* The callable CPython's own check would name (a new reference), found by
 * its trampoline meth among the values of every module in sys.modules: a
 * module function, or a method descriptor (or classmethod's) of a type a
 * module holds.  NULL if none (the module was never imported by name, the
 * type is not in its module's dict).  Only for a result that broke the
 * convention: the success path never looks.  The exception pending is kept. */
static PyObject *find_callable(PyCFunction meth)
{
    PyObject *modules = PyImport_GetModuleDict(), *found = NULL;
    PyObject *type, *value, *tb, *mk, *m, *key, *v;
    Py_ssize_t mpos = 0;
    if (meth == NULL || modules == NULL || !PyDict_Check(modules))
        return NULL;
    PyErr_Fetch(&type, &value, &tb);
    while (found == NULL && PyDict_Next(modules, &mpos, &mk, &m)) {
        PyObject *dict = PyModule_Check(m) ? PyModule_GetDict(m) : NULL;
        Py_ssize_t pos = 0;
        while (found == NULL && dict != NULL && PyDict_Next(dict, &pos, &key, &v)) {
            if (PyCFunction_Check(v) && PyCFunction_GET_FUNCTION(v) == meth)
                found = v;
            else if (PyType_Check(v) && ((PyTypeObject *)v)->tp_dict != NULL) {
                PyObject *tdict = ((PyTypeObject *)v)->tp_dict, *tk, *tv;
                Py_ssize_t tpos = 0;
                while (found == NULL && PyDict_Next(tdict, &tpos, &tk, &tv))
                    if ((Py_IS_TYPE(tv, &PyMethodDescr_Type) || Py_IS_TYPE(tv, &PyClassMethodDescr_Type)) &&
                        ((PyMethodDescrObject *)tv)->d_method->ml_meth == meth)
                        found = tv;
            }
        }
    }
    Py_XINCREF(found);
    PyErr_Restore(type, value, tb);
    return found;
}

/* A method's result broke the convention: raise CPython's SystemError
 * (_Py_CheckFunctionResult's message, naming the callable CPython names, or
 * func if it is not found), chained from the pending exception (its
 * __cause__ and __context__) if one is set. */
static void bad_result(PyCFunction meth, const char *func, const char *what)
{
    PyObject *type, *value, *tb, *callable;
    PyObject *ntype, *nvalue, *ntb;
    callable = find_callable(meth);
    PyErr_Fetch(&type, &value, &tb);
    if (type != NULL) {
        /* as _PyErr_FormatFromCause, before the new one is set */
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb != NULL) {
            PyException_SetTraceback(value, tb);
            Py_DECREF(tb);
        }
        Py_DECREF(type);
    }
    if (callable != NULL) {
        PyErr_Format(PyExc_SystemError, "%R %s", callable, what);
        Py_DECREF(callable);
    }
    else {
        PyErr_Format(PyExc_SystemError, "%s %s", func, what);
    }
    if (value == NULL)
        return;
    PyErr_Fetch(&ntype, &nvalue, &ntb);
    PyErr_NormalizeException(&ntype, &nvalue, &ntb);
    if (nvalue != NULL) {
        Py_INCREF(value);
        PyException_SetCause(nvalue, value);
        PyException_SetContext(nvalue, value);
    }
    else {
        Py_DECREF(value);
    }
    PyErr_Restore(ntype, nvalue, ntb);
}

PyObject *_Cystck_NoErrorSet(const char *func, PyCFunction meth)
{
    if (meth != NULL)
        bad_result(meth, func, "returned NULL without setting an exception");
    return NULL;
}

CYSTCK_NOINLINE void _Cystck_ReturnNull_Ool(Cystck_State *S, Cystck_Object h)
{
    if (h._p != NULL || PyErr_Occurred())
        _Cystck_BadArgAt(S, "Cystck_Return", h, _CYSTCK_CALLER());
}

/* A success returned with an exception pending, which the frame reports
 * in place of the result: in debug mode always (typically a misuse it
 * found, which the function ignored), and in a frame that grew heap chunks,
 * as every frame that reached the handle limit did: stock code cannot see
 * every failure there (a PyDict_Next loop stops as at its end, with
 * MemoryError set), and CPython would raise SystemError or, in some calls,
 * leave the exception pending. */
static int ignored_error(Cystck_State *S, int n)
{
    return n >= 0 && (S->frame->debug != NULL || S->frame->chunk != NULL) && PyErr_Occurred() != NULL;
}

PyObject *_Cystck_FinishSlow_Ool(Cystck_State *S, int n, const char *func, PyCFunction meth)
{
    Cystck_ssize_t pushed;
    PyObject *res = NULL;
    _Cystck_GoSlow(S);
    if (S->frame->debug != NULL)
        _Cystck_DebugNameFrame(S, func);
    pushed = S->sp - S->frame->sp_base;
    if (S->frame->debug != NULL && n >= 0)
        _Cystck_DebugUnbalancedScopes(S, func);
    if (n >= 0 && meth != NULL && (S->sp_limit & _CYSTCK_RAISED) && PyErr_Occurred()) {
        /* a method returned a value with an exception it raised through
         * the API still set: CPython's SystemError, in every call; in
         * debug mode the pending exception itself, as ignored_error does
         * (typically a misuse debug mode reported: docs/debug.md) */
        if (!_Cystck_debug)
            bad_result(meth, func, "returned a result with an exception set");
        n = -1;
    }
    if (ignored_error(S, n))
        n = -1;
    if (n < 0) {
        if (!PyErr_Occurred())
            _Cystck_NoErrorSet(func, meth);
    }
    else if (n != pushed) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_SystemError,
                         "%s returned %d but pushed %zd value%s on the return stack",
                         func, n, pushed, pushed == 1 ? "" : "s");
    }
    else if (n == 0) {
        res = Py_NewRef(Py_None);
    }
    else if (n == 1) {
        res = S->frame->sp_base[0];
        S->sp = S->frame->sp_base;      /* ownership moves to the caller */
    }
    else {
        Cystck_ssize_t i;
        res = PyTuple_New(n);
        if (res != NULL) {
            for (i = 0; i < n; i++)
                PyTuple_SET_ITEM(res, i, S->frame->sp_base[i]);
            S->sp = S->frame->sp_base;
        }
    }
    release_stack(S);
    release_frame(S);
    return res;
}

int _Cystck_FinishIntSlow_Ool(Cystck_State *S, int r, const char *func)
{
    _Cystck_GoSlow(S);
    if (S->frame->debug != NULL)
        _Cystck_DebugNameFrame(S, func);
    if (S->frame->debug != NULL && r >= 0)
        _Cystck_DebugUnbalancedScopes(S, func);
    if (ignored_error(S, r))
        r = -1;
    if (S->sp != S->frame->sp_base && !PyErr_Occurred()) {
        PyErr_Format(PyExc_SystemError,
                     "%s returns a C value but left %zd value(s) on the return stack",
                     func, (Cystck_ssize_t)(S->sp - S->frame->sp_base));
        r = -1;
    }
    release_stack(S);
    release_frame(S);
    return r;
}

/* Release the handles made since top was the top of the slots ending at
 * end: free the chunks opened since, then trim.  In debug mode the slots
 * stay poisoned (quarantine) and top does not move back. */
static void release_since(Cystck_State *S, PyObject **top, PyObject **end)
{
    while (S->end != end && S->frame->chunk != NULL)
        drop_chunk(S);
    if (S->top > top) {
        release_range(top, S->top, S->frame->debug != NULL);
        if (S->frame->debug == NULL)
            S->top = top;
        else
            _Cystck_DebugNoteReleased(S, S->top - top);
    }
}

CYSTCK_NOINLINE void _Cystck_CloseScopeSlow_Ool(Cystck_State *S, Cystck_Scope sc)
{
    _Cystck_GoSlow(S);
    if (S->frame->debug != NULL && _Cystck_DebugCloseScope(S, sc, _CYSTCK_CALLER()) < 0)
        return;     /* misuse reported; leave the gates as they are */
    release_since(S, sc.top, sc.end);
}

/* Is `end` the end of the current slots, of a chunk under them, or of the
 * frame's first slots?  Not once the chunk a mark was taken in has been
 * emptied and left (a Cystck_Drop of a handle made before the mark). */
static int in_chain(Cystck_State *S, PyObject **end)
{
    struct _Cystck_Chunk *c;
    if (S->end == end)
        return 1;
    for (c = S->frame->chunk; c != NULL; c = c->prev)
        if (c->saved_end == end)
            return 1;
    return 0;
}

CYSTCK_NOINLINE void _Cystck_ReleaseSinceSlow_Ool(Cystck_State *S, Cystck_Scope *mark)
{
    _Cystck_GoSlow(S);
    /* A mark whose chunk is gone is above every live handle: the handles
     * made since then sit below it, and are left to the frame. */
    if (!in_chain(S, mark->end))
        return;
    release_since(S, mark->top, mark->end);
    /* In debug mode the poisoned slots stay: the next iteration's handles
     * come after them, and so does the mark. */
    if (S->frame->debug != NULL && S->top > mark->top)
        mark->top = S->top;
}

/* `where` is an address in the C code that passed the bad handle (the API
 * wrappers are inlined into it), used by debug mode to name file and line. */
Cystck_Object _Cystck_BadArgAt(Cystck_State *S, const char *func, Cystck_Object h,
                               const void *where)
{
    /* The frame notes an exception, whichever: a function that ignores it
     * and returns a value is reported at its close (_Cystck_Raised). */
    _Cystck_NoteRaised(S);
    /* A null handle usually carries the error of the call that produced it:
     * keep that exception rather than masking it. */
    if (PyErr_Occurred())
        return _Cystck_H(NULL);
    if (_Cystck_debug) {
        _Cystck_SyncDebug(S);     /* so that closing the frame checks it */
        _Cystck_DebugBadHandle(S, func, h, where);
    }
    else if (h._p != NULL)
        PyErr_Format(PyExc_SystemError,
                     "%s: the handle passed was released, consumed, or used after its "
                     "call returned (run with CYSTCK_DEBUG=1 for details)", func);
    else
        PyErr_Format(PyExc_SystemError,
                     "%s: null handle passed as an argument", func);
    return _Cystck_H(NULL);
}

CYSTCK_NOINLINE Cystck_Object _Cystck_BadArg_Ool(Cystck_State *S, const char *func, Cystck_Object h)
{
    return _Cystck_BadArgAt(S, func, h, _CYSTCK_CALLER());
}

CYSTCK_NOINLINE Cystck_Object _Cystck_NullArg_Ool(Cystck_State *S, const char *func)
{
    return _Cystck_BadArgAt(S, func, _Cystck_H(NULL), _CYSTCK_CALLER());
}
