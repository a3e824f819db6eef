/*
 * Runtime-private declarations shared by the files of cystck/src/.
 */
#ifndef CYSTCK_INTERNAL_H
#define CYSTCK_INTERNAL_H

#include "Cystck.h"

/* frames.c */
CYSTCK_INTERNAL int _Cystck_OwnsSlot(Cystck_State *S, PyObject **p);
CYSTCK_INTERNAL void _Cystck_SetHandleLimit(Cystck_ssize_t limit);

/* debug.c: checked paths, active when CYSTCK_DEBUG is set at import. */
CYSTCK_INTERNAL void _Cystck_DebugCloseFrame(Cystck_State *S);
CYSTCK_INTERNAL void _Cystck_DebugUnbalancedScopes(Cystck_State *S, const char *func);
CYSTCK_INTERNAL void _Cystck_DebugBadHandle(Cystck_State *S, const char *func, Cystck_Object h,
                                            const void *where);
CYSTCK_INTERNAL void _Cystck_DebugDropNotOwned(Cystck_State *S, Cystck_Object h, const void *where);
CYSTCK_INTERNAL void _Cystck_DebugQuarantine(PyObject **begin, PyObject **end, void *mem,
                                             const char *func);
CYSTCK_INTERNAL void _Cystck_DebugInit(void);

/* refs.c */
CYSTCK_INTERNAL void _Cystck_RefsAtExit(void);

/* Describe a code address for error messages: "file.c:42 (function)" when
 * addr2line and debug information are available, else symbol+offset. */
CYSTCK_INTERNAL void _Cystck_DescribeAddress(const void *addr, char *buf, size_t size);

#endif /* CYSTCK_INTERNAL_H */
