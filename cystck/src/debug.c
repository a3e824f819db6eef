/*
 * Debug mode: CYSTCK_DEBUG=1 in the environment when the extension is
 * imported switches every frame to checked paths.  Release mode pays a
 * compare with _Cystck_own_limit where a null test of a new handle's object
 * was (_Cystck_Own in Cystck.h), which in debug mode sends every new handle
 * to the slow path; a frame with no handle yet becomes a checked one on its
 * first slow path (_Cystck_GoSlow).
 *
 * In debug mode a frame's handle slots live on the heap.  Slots are never
 * reused within a frame, are poisoned (set to NULL) when a handle is
 * released or its frame or scope closes, and closed frames' slots stay in
 * quarantine for a while.  A stale handle therefore reads NULL, and the API
 * function that receives it reports what happened instead of touching a dead
 * or recycled object: the generation check of HPy's debug mode, with the
 * slot address as the generation.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>
#endif

int _Cystck_debug = 0;
uintptr_t _Cystck_own_limit = 0;

#define DEBUG_FRAME_SLOTS 64
#define QUARANTINE 1024

#define MAX_OPEN_SCOPES 64

struct _Cystck_DebugFrame {
    const char *func;
    Cystck_ssize_t released;                /* poisoned slots: not live */
    int nscopes;                            /* open scope gates, innermost last */
    PyObject **scope_tops[MAX_OPEN_SCOPES];
    PyObject *slots[DEBUG_FRAME_SLOTS];
};

/* Slots poisoned in debug mode stay in place (so stale handles are caught)
 * but hold nothing: the handle limit counts only live handles. */
void _Cystck_DebugNoteReleased(Cystck_State *S, Cystck_ssize_t n)
{
    S->frame->debug->released += n;
}

Cystck_ssize_t _Cystck_DebugReleasedSlots(Cystck_State *S)
{
    return S->frame->debug->released;
}

/* Debug frames are made without their function's name (the first slow path
 * of a frame opened in debug mode makes one); closing it names it. */
void _Cystck_DebugNameFrame(Cystck_State *S, const char *func)
{
    S->frame->debug->func = func;
}

const char *_Cystck_DebugFrameName(Cystck_State *S)
{
    return S->frame->debug != NULL ? S->frame->debug->func : NULL;
}

/* Cystck_Mark in a checked frame, or in one opened in debug mode: the
 * frame moves to its debug slots first, so the mark is a place in them. */
Cystck_Scope _Cystck_DebugMark_Ool(Cystck_State *S)
{
    Cystck_Scope sc;
    _Cystck_GoSlow(S);
    if (S->frame->debug != NULL && _Cystck_OnInlineSlots(S))
        _Cystck_DebugFirstHandle(S);
    sc.top = S->top;
    sc.end = S->end;
    return sc;
}

/* Cystck_OpenScope there: a mark that the record also keeps, to check
 * that gates close in order. */
Cystck_Scope _Cystck_DebugOpenScope_Ool(Cystck_State *S)
{
    struct _Cystck_DebugFrame *df;
    Cystck_Scope sc = _Cystck_DebugMark_Ool(S);
    df = S->frame->debug;
    if (df == NULL)
        return sc;      /* no record (out of memory): an unchecked frame */
    if (df->nscopes < MAX_OPEN_SCOPES)
        df->scope_tops[df->nscopes] = sc.top;
    df->nscopes++;
    return sc;
}

int _Cystck_DebugCloseScope(Cystck_State *S, Cystck_Scope sc, const void *where)
{
    struct _Cystck_DebugFrame *df = S->frame->debug;
    char at[512];
    const char *problem = NULL;
    if (df->nscopes == 0)
        problem = "the gate is not open: closed twice or never opened";
    else if (df->nscopes <= MAX_OPEN_SCOPES && df->scope_tops[df->nscopes - 1] != sc.top)
        problem = "not the innermost open gate: gates close in reverse order of opening";
    if (problem == NULL) {
        df->nscopes--;
        return 0;
    }
    if (!PyErr_Occurred()) {
        _Cystck_DescribeAddress(where, at, sizeof(at));
        PyErr_Format(PyExc_SystemError, "Cystck_CloseScope: %s, at %s [CYSTCK_DEBUG]", problem, at);
    }
    return -1;
}

/* Closed frames and chunks whose poisoned slots are kept readable; each is
 * freed, when a newer one takes its place, by the allocator it came from. */
typedef struct {
    PyObject **begin, **end;
    void *mem;
    void (*free_mem)(void *);
    const char *func;
} Quarantined;

static Quarantined quarantine[QUARANTINE];
static size_t quarantine_next;

/* Debug frames a newer closed one pushed out of the quarantine, for the
 * next calls to reuse: debug mode allocates its frames when the module
 * loads (QUARANTINE of them, plus some for nested calls), so the process
 * does not grow over the first QUARANTINE calls (leak tests that compare
 * the process's size around a loop of calls). */
struct spare_frame { struct spare_frame *next; };
static struct spare_frame *spare_frames;

static void spare_frame(void *mem)
{
    struct spare_frame *f = (struct spare_frame *)mem;
    f->next = spare_frames;
    spare_frames = f;
}

#define SPARE_NESTED 32

void _Cystck_DebugInit(void)
{
    const char *v = getenv("CYSTCK_DEBUG");
    static int spares_made;
    int i;
    _Cystck_debug = v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
    _Cystck_own_limit = _Cystck_debug ? UINTPTR_MAX : 0;
    if (!_Cystck_debug || spares_made)
        return;
    spares_made = 1;
    for (i = 0; i < QUARANTINE + SPARE_NESTED; i++) {
        void *f = malloc(sizeof(struct _Cystck_DebugFrame));
        if (f == NULL)
            break;
        spare_frame(f);
    }
}

static void quarantine_add(PyObject **begin, PyObject **end, void *mem, void (*free_mem)(void *),
                           const char *func)
{
    Quarantined *q = &quarantine[quarantine_next];
    if (q->mem != NULL)
        q->free_mem(q->mem);
    q->begin = begin;
    q->end = end;
    q->mem = mem;
    q->free_mem = free_mem;
    q->func = func;
    quarantine_next = (quarantine_next + 1) % QUARANTINE;
}

/* A chunk of handle slots (frames.c allocates them with malloc). */
void _Cystck_DebugQuarantine(PyObject **begin, PyObject **end, void *mem, const char *func)
{
    quarantine_add(begin, end, mem, free, func);
}

static const Quarantined *find_quarantined(PyObject **p)
{
    size_t i;
    for (i = 0; i < QUARANTINE; i++)
        if (quarantine[i].mem != NULL && p >= quarantine[i].begin && p < quarantine[i].end)
            return &quarantine[i];
    return NULL;
}

/* Debug frames are the checker's bookkeeping, from C's allocator: on
 * Python's, tracemalloc counted the quarantined ones (about 1 MB, filled
 * over the first QUARANTINE calls) against the extension, and leak tests
 * that pass in release mode failed in debug mode. */
struct _Cystck_DebugFrame *_Cystck_DebugNewFrame(const char *func)
{
    struct _Cystck_DebugFrame *df = (struct _Cystck_DebugFrame *)spare_frames;
    if (df != NULL) {
        spare_frames = spare_frames->next;
        memset(df, 0, sizeof(*df));
    }
    else
        df = (struct _Cystck_DebugFrame *)calloc(1, sizeof(struct _Cystck_DebugFrame));
    if (df != NULL)
        df->func = func;
    return df;
}

/* The first handle of a debug frame: from now on its handles live in the
 * debug frame's slots (the inline ones stay unused). */
void _Cystck_DebugFirstHandle(Cystck_State *S)
{
    struct _Cystck_DebugFrame *df = S->frame->debug;
    S->base = S->top = df->slots;
    S->end = df->slots + DEBUG_FRAME_SLOTS;
}

void _Cystck_DebugCloseFrame(Cystck_State *S)
{
    struct _Cystck_DebugFrame *df = S->frame->debug;
    PyObject **p;
    for (p = S->top; p > S->base; ) {
        PyObject *o = *--p;
        *p = NULL;
        Py_XDECREF(o);
    }
    quarantine_add(df->slots, df->slots + DEBUG_FRAME_SLOTS, df, spare_frame, df->func);
    S->frame->debug = NULL;
}

/* Called when a function returns a success count only.  A gate open at an
 * error return (-1) is the stock early exit `if (x == NULL) return NULL;`
 * inside a loop: closing the frame releases what the gate holds, so
 * requiring a Cystck_CloseScope on every error path would only add code
 * and hide the function's own error (or its missing one) behind ours. */
void _Cystck_DebugUnbalancedScopes(Cystck_State *S, const char *func)
{
    if (S->frame->debug->nscopes > 0 && !PyErr_Occurred())
        PyErr_Format(PyExc_SystemError,
                     "%s returned with %d scope gate(s) still open "
                     "(Cystck_OpenScope without Cystck_CloseScope) [CYSTCK_DEBUG]",
                     func, S->frame->debug->nscopes);
}

void _Cystck_DebugBadHandle(Cystck_State *S, const char *func, Cystck_Object h, const void *where)
{
    char at[512];
    const Quarantined *q;
    Cystck_Ref r;
    _Cystck_DescribeAddress(where, at, sizeof(at));
    if (h._p == NULL) {
        PyErr_Format(PyExc_SystemError,
                     "%s: null handle passed as an argument, at %s [CYSTCK_DEBUG]", func, at);
    }
    else if ((r = _Cystck_DebugRefOfSlot(h._p)) != NULL) {
        char made[512];
        _Cystck_DescribeAddress(r->creator, made, sizeof(made));
        PyErr_Format(PyExc_SystemError,
                     "%s: handle of a reference released by Cystck_unref (created at %s), "
                     "at %s [CYSTCK_DEBUG]", func, made, at);
    }
    else if ((q = find_quarantined(h._p)) != NULL) {
        PyErr_Format(PyExc_SystemError,
                     "%s: handle used after the call that created it returned (a handle "
                     "of %s kept past its frame), at %s [CYSTCK_DEBUG]",
                     func, q->func ? q->func : "an earlier call", at);
    }
    else if (S != NULL && _Cystck_OwnsSlot(S, h._p)) {
        PyErr_Format(PyExc_SystemError,
                     "%s: handle used after it was released (by Cystck_Drop, a closed "
                     "scope gate, or a function that consumes it), at %s [CYSTCK_DEBUG]",
                     func, at);
    }
    else {
        PyErr_Format(PyExc_SystemError,
                     "%s: invalid handle (not from this call: a stale, uninitialized or "
                     "corrupted value), at %s [CYSTCK_DEBUG]", func, at);
    }
}

void _Cystck_DebugDropNotOwned(Cystck_State *S, Cystck_Object h, const void *where)
{
    char at[512];
    (void)S; (void)h;
    if (PyErr_Occurred())
        return;
    _Cystck_DescribeAddress(where, at, sizeof(at));
    PyErr_Format(PyExc_SystemError,
                 "Cystck_Drop: the handle is not owned by this call (an argument, a "
                 "constant or a reference), at %s [CYSTCK_DEBUG]", at);
}

/* ---- Naming code addresses ---- */

#if defined(__unix__) || defined(__APPLE__)
/* Is this addr2line place ("path:42", maybe with a discriminator) in one
 * of Cystck's own headers, whose inline API functions make the innermost
 * entries of a chain? */
static int in_cystck_header(const char *place)
{
    static const char *const headers[] = {
        "/Cystck.h:", "/cystck/defs.h:", "/cystck/runtime_api.h:", "/cystck/autogen_api.h:",
        "/cystck/typed.h:", NULL
    };
    const char *const *h;
    for (h = headers; *h != NULL; h++)
        if (strstr(place, *h) != NULL)
            return 1;
    return 0;
}

static int is_entry_point(const char *func)
{
    return strstr(func, "__cystck_trampoline") != NULL || strncmp(func, "PyInit_", 7) == 0;
}

/* "file.c:42 (function)" from addr2line, or 0 if it cannot tell.  With -i
 * addr2line lists the chain of inlined calls innermost first: the API
 * wrappers (in Cystck's headers), the extension's functions, then (when the
 * compiler inlined them) the generated trampoline (or PyInit_ for a
 * CYSTCK_MODINIT body).  The extension's line is the innermost entry that
 * is none of these: the call of the API function, also where the extension's
 * own helpers were inlined into their caller (a debug twin inlines them
 * all: defs.h, _CYSTCK_TWINS).  Without such an entry, the outermost one
 * that is not an entry point. */
static int addr2line(const char *object, unsigned long offset, char *buf, size_t size)
{
    char cmd[1200], func[256], line[512], last_func[256] = "", last_line[512] = "";
    int found = 0;
    FILE *p;
    if (strchr(object, '\'') != NULL)
        return 0;
    PyOS_snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s' 0x%lx 2>/dev/null", object, offset);
    p = popen(cmd, "r");
    if (p == NULL)
        return 0;
    while (fgets(func, sizeof(func), p) != NULL && fgets(line, sizeof(line), p) != NULL) {
        func[strcspn(func, "\n")] = '\0';
        line[strcspn(line, "\n")] = '\0';
        if (found || line[0] == '?' || strstr(line, ":?") != NULL)
            continue;
        if (last_line[0] != '\0' && is_entry_point(func))
            continue;
        memcpy(last_func, func, sizeof(func));
        memcpy(last_line, line, sizeof(line));
        found = !in_cystck_header(line) && !is_entry_point(func);
    }
    pclose(p);
    if (last_line[0] == '\0')
        return 0;
    PyOS_snprintf(buf, size, "%s (%s)", last_line, last_func);
    return 1;
}
#endif

void _Cystck_DescribeAddress(const void *addr, char *buf, size_t size)
{
#if defined(__unix__) || defined(__APPLE__)
    Dl_info info;
    if (addr != NULL && dladdr(addr, &info) && info.dli_fname != NULL) {
        /* The return address points after the call: look up the call. */
        unsigned long offset = (unsigned long)((const char *)addr - (const char *)info.dli_fbase) - 1;
        if (_Cystck_debug && addr2line(info.dli_fname, offset, buf, size))
            return;
        if (info.dli_sname != NULL) {
            PyOS_snprintf(buf, size, "%s+0x%lx in %s", info.dli_sname,
                          (unsigned long)((const char *)addr - (const char *)info.dli_saddr),
                          info.dli_fname);
            return;
        }
        PyOS_snprintf(buf, size, "offset 0x%lx in %s", offset, info.dli_fname);
        return;
    }
#endif
    PyOS_snprintf(buf, size, "%p", addr);
}
