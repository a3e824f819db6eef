/* Misuse: a function whose returned count does not match what it pushed.
 *
 * An implementation returns the number of values it pushed on the return
 * stack.  No stock counterpart: a stock function returns one PyObject*.
 *
 * Checked in every mode (it costs nothing on the fast path): SystemError
 * naming the function, with both counts. */
#include "Cystck.h"

CYSTCK_DEF_METH(forgot_push_def, "forgot_push", forgot_push, CYSTCK_O,
                "forgot_push(x) -> x + 1 (buggy: computes it, never pushes it)")
static int forgot_push(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    Cystck_Object r = CystckNumber_Add(S, x, x);
    (void)self;
    if (Cystck_IsNull(r))
        return -1;
    return 1;
}

CYSTCK_DEF_METH(pushed_two_def, "pushed_two", pushed_two, CYSTCK_O,
                "pushed_two(x) -> (x, -x) (buggy: says one value)")
static int pushed_two(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    (void)self;
    if (Cystck_Push(S, x) < 0 || Cystck_Push(S, CystckNumber_Negative(S, x)) < 0)
        return -1;
    return 1;
}

static CystckDef *defines[] = {&forgot_push_def, &pushed_two_def, NULL};
static CystckModuleDef module_def = {"dbg_wrong_count", NULL, 0, defines};

CYSTCK_MODINIT(dbg_wrong_count)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
