/* Misuse: scope gates closed out of order (the outer gate before the inner).
 *
 * Gates nest: closing the outer one releases the inner gate's handles too,
 * and the later close of the inner gate then releases handles it never
 * guarded.  No stock counterpart.
 *
 * Debug mode raises SystemError naming Cystck_CloseScope at the first
 * close that is not the innermost open gate. */
#include "Cystck.h"

CYSTCK_DEF_METH(pairs_def, "pairs", pairs, CYSTCK_O,
                "pairs(l) -> [(repr(x), str(x)) for x in l] (buggy)")
static int pairs(Cystck_State *S, Cystck_Object self, Cystck_Object l)
{
    Cystck_ssize_t i, n = CystckList_Size(S, l);
    Cystck_Object out = CystckList_New(S, 0);
    (void)self;
    if (n < 0 || Cystck_IsNull(out))
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope outer = Cystck_OpenScope(S), inner;
        Cystck_Object item = CystckList_GetItem(S, l, i), r;
        inner = Cystck_OpenScope(S);
        r = CystckTuple_Pack(S, 2, CystckObject_Repr(S, item), CystckObject_Str(S, item));
        if (CystckList_Append(S, out, r) < 0)
            return -1;
        Cystck_CloseScope(S, outer);   /* @close */
        Cystck_CloseScope(S, inner);
    }
    return Cystck_Return(S, out);
}

static CystckDef *defines[] = {&pairs_def, NULL};
static CystckModuleDef module_def = {"dbg_crossed_scopes", NULL, 0, defines};

CYSTCK_MODINIT(dbg_crossed_scopes)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
