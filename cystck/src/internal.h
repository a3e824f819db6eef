/*
 * Runtime-private declarations shared by the files of cystck/src/.
 */
#ifndef CYSTCK_INTERNAL_H
#define CYSTCK_INTERNAL_H

#include "Cystck.h"

/* frames.c */
CYSTCK_INTERNAL Cystck_Object _Cystck_BadArgAt(Cystck_State *S, const char *func, Cystck_Object h,
                                               const void *where);
CYSTCK_INTERNAL int _Cystck_OwnsSlot(Cystck_State *S, PyObject **p);
CYSTCK_INTERNAL void _Cystck_GoSlow(Cystck_State *S);
/* An exception raised through the API in S's frame: a method that returns
 * a value with it set is reported at its close (_Cystck_Raised; S may be
 * NULL). */
CYSTCK_INTERNAL void _Cystck_NoteRaised(Cystck_State *S);
/* A frame opened in debug mode becomes checked on its first slow path:
 * call this first in every slow path that reads S->frame->debug or raises an
 * error the frame's close must check (S may be NULL). */
static inline void _Cystck_SyncDebug(Cystck_State *S)
{
    if (S != NULL && _CYSTCK_DEBUG_PENDING(S))
        _Cystck_GoSlow(S);
}
CYSTCK_INTERNAL void _Cystck_SetHandleLimit(Cystck_ssize_t limit);

/* byteswriter.c: does s[0:n] hold bytes below 0x80 only? */
CYSTCK_INTERNAL int _Cystck_AllASCII(const char *s, size_t n);

/* typed.c: the attribute __cystck_signatures__ of a module or type,
 * describing the typed methods among `defines` (none: no attribute).
 * 0, or -1 [e]. */
CYSTCK_INTERNAL int _Cystck_PublishTypedSignatures(PyObject *owner, CystckDef **defines);

/* debug.c: checked paths, active when CYSTCK_DEBUG is set at import. */
/* A debug frame's record; NULL if out of memory. */
CYSTCK_INTERNAL struct _Cystck_DebugFrame *_Cystck_DebugNewFrame(const char *func);
CYSTCK_INTERNAL void _Cystck_DebugNameFrame(Cystck_State *S, const char *func);
CYSTCK_INTERNAL void _Cystck_DebugCloseFrame(Cystck_State *S);
CYSTCK_INTERNAL void _Cystck_DebugFirstHandle(Cystck_State *S);
CYSTCK_INTERNAL void _Cystck_DebugUnbalancedScopes(Cystck_State *S, const char *func);
CYSTCK_INTERNAL void _Cystck_DebugBadHandle(Cystck_State *S, const char *func, Cystck_Object h,
                                            const void *where);
CYSTCK_INTERNAL void _Cystck_DebugDropNotOwned(Cystck_State *S, Cystck_Object h, const void *where);
CYSTCK_INTERNAL const char *_Cystck_DebugFrameName(Cystck_State *S);
CYSTCK_INTERNAL void _Cystck_DebugNoteReleased(Cystck_State *S, Cystck_ssize_t n);
CYSTCK_INTERNAL Cystck_ssize_t _Cystck_DebugReleasedSlots(Cystck_State *S);
CYSTCK_INTERNAL int _Cystck_DebugCloseScope(Cystck_State *S, Cystck_Scope sc, const void *where);
CYSTCK_INTERNAL void _Cystck_DebugBadRef(Cystck_State *S, const char *func, Cystck_Ref r,
                                         const void *where);
CYSTCK_INTERNAL Cystck_Ref _Cystck_DebugRefOfSlot(PyObject **slot);
CYSTCK_INTERNAL void _Cystck_DebugQuarantine(PyObject **begin, PyObject **end, void *mem,
                                             const char *func);
CYSTCK_INTERNAL void _Cystck_DebugInit(void);
CYSTCK_INTERNAL void _Cystck_UnicodeInit(void);     /* unicode.c: -X dev */
/* frames.c: a handle for a taken exception, past the handle limit if need be */
CYSTCK_INTERNAL Cystck_Object _Cystck_OwnException(Cystck_State *S, PyObject *o);
CYSTCK_INTERNAL int _Cystck_LimitErrorPending(void);
CYSTCK_INTERNAL int _Cystck_ExceptionRoom(Cystck_State *S, Cystck_ssize_t n);

/* module.c: fill a module definition's slots (m_slots, m_traverse...)
 * from the slot defines of def; 0, or -1 with an exception. */
CYSTCK_INTERNAL int _Cystck_SetModuleSlots(PyModuleDef *pydef, const CystckModuleDef *def);
/* The trampoline to put into a table for a definition whose release
 * trampoline is f and debug twin twin (defs.h, _CYSTCK_TWINS): the twin in
 * debug mode, where there is one.  Read when a module or type is made,
 * after _Cystck_RuntimeInit has read CYSTCK_DEBUG. */
static inline void *_Cystck_Twin(void *f, void *twin)
{
    return _Cystck_debug && twin != NULL ? twin : f;
}

/* refs.c */
CYSTCK_INTERNAL void _Cystck_RefsAtExit(void);

/* Describe a code address for error messages: "file.c:42 (function)" when
 * addr2line and debug information are available, else symbol+offset. */
CYSTCK_INTERNAL void _Cystck_DescribeAddress(const void *addr, char *buf, size_t size);

#endif /* CYSTCK_INTERNAL_H */
