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
CYSTCK_INTERNAL void _Cystck_DebugCheckFinish(Cystck_State *S, int n, const char *func);
CYSTCK_INTERNAL void _Cystck_DebugUnbalancedScopes(Cystck_State *S, const char *func);
CYSTCK_INTERNAL void _Cystck_DebugNullArg(Cystck_State *S, const char *func);
CYSTCK_INTERNAL void _Cystck_DebugDropNotOwned(Cystck_State *S, Cystck_Object h);
CYSTCK_INTERNAL void _Cystck_DebugInit(void);

/* refs.c */
CYSTCK_INTERNAL void _Cystck_RefsAtExit(void);

/* Format "the C caller" of a runtime function for error messages: the
 * symbol and offset of the return address, when it can be found. */
CYSTCK_INTERNAL void _Cystck_DescribeAddress(const void *addr, char *buf, size_t size);

#endif /* CYSTCK_INTERNAL_H */
