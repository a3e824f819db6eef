/* Misuse: a reference used after Cystck_unref released it.
 *
 * Stock counterpart: using a cached object after Py_DECREF of the cache's
 * reference (stock/stock_use_after_decref.c).
 *
 * Debug mode: SystemError from the function that gets the released
 * reference, or a handle Cystck_deref made from it, at the line of the use. */
#include "Cystck.h"

static Cystck_Ref cached;

CYSTCK_DEF_METH(set_cached_def, "set_cached", set_cached, CYSTCK_O, "set_cached(x): cache x")
static int set_cached(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    (void)self;
    if (cached != NULL)
        Cystck_unref(S, cached);
    cached = Cystck_ref(S, x);
    return cached == NULL ? -1 : 0;
}

CYSTCK_DEF_METH(pop_cached_def, "pop_cached", pop_cached, CYSTCK_NOARGS,
                "return the cached value and clear the cache (buggy)")
static int pop_cached(Cystck_State *S, Cystck_Object self)
{
    Cystck_Object value = Cystck_deref(S, cached);
    (void)self;
    Cystck_unref(S, cached);
    cached = NULL;
    return Cystck_Return(S, value);   /* @use_handle */
}

CYSTCK_DEF_METH(clear_cached_def, "clear_cached", clear_cached, CYSTCK_NOARGS,
                "clear the cache (buggy: leaves the released reference in place)")
static int clear_cached(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    Cystck_unref(S, cached);
    return 0;
}

CYSTCK_DEF_METH(cached_repr_def, "cached_repr", cached_repr, CYSTCK_NOARGS,
                "repr of the cached value")
static int cached_repr(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, CystckObject_Repr(S, Cystck_deref(S, cached)));   /* @deref */
}

static CystckDef *defines[] = {&set_cached_def, &pop_cached_def, &clear_cached_def,
                               &cached_repr_def, NULL};
static CystckModuleDef module_def = {"dbg_released_ref", NULL, 0, defines};

CYSTCK_MODINIT(dbg_released_ref)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
