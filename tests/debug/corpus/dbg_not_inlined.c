/* Misuse: a handle used after Cystck_Drop, in an implementation that the
 * compiler does not inline into its trampoline.
 *
 * That happens to large functions and to implementations defined in another
 * file (CYSTCK_DEF_METH_EXTERN); noinline stands for both here.  The
 * misuse is the one of dbg_use_after_drop.c: what differs is the location,
 * since `return Cystck_Return(S, h)` with a bad h reaches the error path by
 * a tail call from the implementation.
 *
 * Debug mode: SystemError naming Cystck_Return, at the line of the return. */
#include "Cystck.h"

CYSTCK_DEF_METH(negated_def, "negated", negated, CYSTCK_O, "negated(x) -> -x (buggy)")
__attribute__((noinline))
static int negated(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    Cystck_Object r = CystckNumber_Negative(S, x);
    (void)self;
    if (Cystck_IsNull(r))
        return -1;
    Cystck_Drop(S, r);
    return Cystck_Return(S, r);   /* @use */
}

static CystckDef *defines[] = {&negated_def, NULL};
static CystckModuleDef module_def = {"dbg_not_inlined", NULL, 0, defines};

CYSTCK_MODINIT(dbg_not_inlined)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
