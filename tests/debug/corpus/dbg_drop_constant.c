/* Misuse: Cystck_Drop of a constant handle (Cystck_None, CystckExc_*, ...).
 *
 * Constants are permanent slots, never owned by a call.  Stock counterpart:
 * Py_DECREF(Py_None) without a matching Py_INCREF, which in CPython before
 * 3.12 eventually deallocates None ("Fatal Python error: none_dealloc").
 *
 * Debug mode: SystemError naming Cystck_Drop.  Release mode: a no-op. */
#include "Cystck.h"

CYSTCK_DEF_METH(or_none_def, "or_none", or_none, CYSTCK_O, "or_none(x) -> x or None (buggy)")
static int or_none(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    Cystck_Object result = Cystck_None;
    int truth = CystckObject_IsTrue(S, x);
    (void)self;
    if (truth < 0)
        return -1;
    if (truth)
        result = x;
    if (Cystck_Push(S, result) < 0)
        return -1;
    Cystck_Drop(S, result);   /* @drop */
    return 1;
}

static CystckDef *defines[] = {&or_none_def, NULL};
static CystckModuleDef module_def = {"dbg_drop_constant", NULL, 0, defines};

CYSTCK_MODINIT(dbg_drop_constant)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
