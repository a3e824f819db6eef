/* Misuse: a handle used after Cystck_Drop released it.
 *
 * Stock counterpart: using an object after Py_DECREF
 * (stock/stock_use_after_decref.c).
 *
 * Debug mode: SystemError from the API function that gets the released
 * handle, at the line that used it. */
#include "Cystck.h"

static Cystck_Ref cached;

CYSTCK_DEF_METH(square_def, "square", square, CYSTCK_O, "square(n) -> n * n (buggy)")
static int square(Cystck_State *S, Cystck_Object self, Cystck_Object n)
{
    Cystck_Object sq = CystckNumber_Multiply(S, n, n);
    long long v;
    (void)self;
    if (Cystck_IsNull(sq))
        return -1;
    Cystck_Drop(S, sq);
    v = CystckLong_AsLongLong(S, sq);   /* @use */
    if (v == -1 && CystckErr_Occurred(S))
        return -1;
    return Cystck_Return(S, CystckLong_FromLongLong(S, v));
}

/* The same misuse with an API function implemented out of line in the
 * runtime (Cystck_ref) rather than inline in the header. */
CYSTCK_DEF_METH(cache_square_def, "cache_square", cache_square, CYSTCK_O,
                "cache_square(n): keep n * n for later (buggy)")
static int cache_square(Cystck_State *S, Cystck_Object self, Cystck_Object n)
{
    Cystck_Object sq = CystckNumber_Multiply(S, n, n);
    (void)self;
    if (Cystck_IsNull(sq))
        return -1;
    Cystck_Drop(S, sq);
    if (cached != NULL)
        Cystck_unref(S, cached);
    cached = Cystck_ref(S, sq);   /* @ref */
    return cached == NULL ? -1 : 0;
}

static CystckDef *defines[] = {&square_def, &cache_square_def, NULL};
static CystckModuleDef module_def = {"dbg_use_after_drop", NULL, 0, defines};

CYSTCK_MODINIT(dbg_use_after_drop)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
