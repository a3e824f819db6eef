/* Misuse: a reference never released.
 *
 * Stock counterpart: a missing Py_DECREF (stock/stock_leak.c), which leaks
 * silently.  Handles cannot leak: the call releases them (see hold below);
 * references outlive the call, so they can.
 *
 * Debug mode: at interpreter exit, one ResourceWarning line on stderr per
 * reference still held, naming where Cystck_ref created it. */
#include "Cystck.h"

#define HISTORY 4

static Cystck_Ref history[HISTORY];
static int next_slot;

CYSTCK_DEF_METH(remember_def, "remember", remember, CYSTCK_O,
                "remember(x): keep the last few values (buggy: drops old ones unreleased)")
static int remember(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    Cystck_Ref r = Cystck_ref(S, x);   /* @created */
    (void)self;
    if (r == NULL)
        return -1;
    history[next_slot] = r;
    next_slot = (next_slot + 1) % HISTORY;
    return 0;
}

CYSTCK_DEF_METH(forget_def, "forget", forget, CYSTCK_NOARGS, "release what remember kept")
static int forget(Cystck_State *S, Cystck_Object self)
{
    int i;
    (void)self;
    for (i = 0; i < HISTORY; i++) {
        Cystck_unref(S, history[i]);
        history[i] = NULL;
    }
    return 0;
}

CYSTCK_DEF_METH(hold_def, "hold", hold, CYSTCK_O,
                "hold(x): take handles on x and never drop them (not a leak)")
static int hold(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    int i;
    (void)self;
    for (i = 0; i < 3; i++)
        if (Cystck_IsNull(Cystck_Dup(S, x)))
            return -1;
    return 0;
}

static CystckDef *defines[] = {&remember_def, &forget_def, &hold_def, NULL};
static CystckModuleDef module_def = {"dbg_leaked_ref", NULL, 0, defines};

CYSTCK_MODINIT(dbg_leaked_ref)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
