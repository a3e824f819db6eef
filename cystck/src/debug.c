/*
 * Debug mode: CYSTCK_DEBUG=1 in the environment when the extension is
 * imported switches every frame to checked paths.  Release mode pays one
 * predictable branch per call (the test of _Cystck_debug in the trampoline).
 *
 * In debug mode a frame's handle slots live on the heap, are poisoned (set
 * to NULL) when the frame or a scope closes, and are kept in quarantine for
 * a while, so a stale handle reads NULL and the next API call that gets it
 * raises instead of touching a dead or recycled object.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int _Cystck_debug = 0;

#define DEBUG_FRAME_SLOTS 64
#define QUARANTINE 256

struct _Cystck_DebugFrame {
    const char *func;
    PyObject *slots[DEBUG_FRAME_SLOTS];
};

static struct _Cystck_DebugFrame *quarantine[QUARANTINE];
static size_t quarantine_next;

void _Cystck_DebugInit(void)
{
    const char *v = getenv("CYSTCK_DEBUG");
    _Cystck_debug = v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

void _Cystck_DebugOpenFrame(Cystck_State *S, const char *func)
{
    struct _Cystck_DebugFrame *df =
        (struct _Cystck_DebugFrame *)calloc(1, sizeof(struct _Cystck_DebugFrame));
    if (df == NULL)
        return;       /* out of memory: run this frame unchecked */
    df->func = func;
    S->debug = df;
    S->base = S->top = df->slots;
    S->end = df->slots + DEBUG_FRAME_SLOTS;
    S->slow = 1;
}

void _Cystck_DebugCloseFrame(Cystck_State *S)
{
    struct _Cystck_DebugFrame *df = S->debug;
    PyObject **p;
    for (p = S->top; p > S->base; ) {
        PyObject *o = *--p;
        *p = NULL;
        Py_XDECREF(o);
    }
    /* Keep the poisoned slots readable for a while, then recycle. */
    free(quarantine[quarantine_next]);
    quarantine[quarantine_next] = df;
    quarantine_next = (quarantine_next + 1) % QUARANTINE;
    S->debug = NULL;
}

void _Cystck_DebugCheckFinish(Cystck_State *S, int n, const char *func)
{
    (void)S; (void)n; (void)func;   /* the count check runs in every mode */
}

void _Cystck_DebugUnbalancedScopes(Cystck_State *S, const char *func)
{
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_SystemError,
                     "%s returned with %d scope gate(s) still open "
                     "(Cystck_OpenScope without Cystck_CloseScope)", func, S->scopes);
}

void _Cystck_DebugNullArg(Cystck_State *S, const char *func)
{
    (void)S;
    PyErr_Format(PyExc_SystemError,
                 "%s: invalid handle: null, released, consumed, or used after "
                 "its call or scope closed [CYSTCK_DEBUG]", func);
}

void _Cystck_DebugDropNotOwned(Cystck_State *S, Cystck_Object h)
{
    (void)S; (void)h;
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_SystemError,
                        "Cystck_Drop: the handle is not owned by this call (an "
                        "argument, a constant or a reference) [CYSTCK_DEBUG]");
}
