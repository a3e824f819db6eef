/* Misuse: a scope gate closed twice (more closes than opens).
 *
 * The second close releases nothing, but it unbalances the gate count: a
 * gate left open later in the same call then goes unnoticed.  No stock
 * counterpart.
 *
 * Debug mode raises SystemError naming Cystck_CloseScope at the second
 * close. */
#include "Cystck.h"

CYSTCK_DEF_METH(strs_def, "strs", strs, CYSTCK_O, "strs(l) -> [str(x) for x in l] (buggy)")
static int strs(Cystck_State *S, Cystck_Object self, Cystck_Object l)
{
    Cystck_ssize_t i, n = CystckList_Size(S, l);
    Cystck_Object out = CystckList_New(S, 0);
    (void)self;
    if (n < 0 || Cystck_IsNull(out))
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope sc = Cystck_OpenScope(S);
        if (CystckList_Append(S, out, CystckObject_Str(S, CystckList_GetItem(S, l, i))) < 0) {
            Cystck_CloseScope(S, sc);
            return -1;
        }
        Cystck_CloseScope(S, sc);
        if (i == n - 1)
            Cystck_CloseScope(S, sc);   /* @close */
    }
    return Cystck_Return(S, out);
}

static CystckDef *defines[] = {&strs_def, NULL};
static CystckModuleDef module_def = {"dbg_close_scope_twice", NULL, 0, defines};

CYSTCK_MODINIT(dbg_close_scope_twice)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
