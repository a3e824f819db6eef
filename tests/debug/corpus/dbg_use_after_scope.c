/* Misuse: a handle created inside a scope gate used after the gate closed.
 *
 * Cystck_CloseScope releases every handle created since Cystck_OpenScope;
 * the value that must survive the gate has to leave it through
 * Cystck_CloseScopeKeep.  Stock counterpart: using an object after Py_DECREF.
 *
 * Debug mode: SystemError from the API function that gets the handle. */
#include "Cystck.h"

CYSTCK_DEF_METH(last_str_def, "last_str", last_str, CYSTCK_O,
                "last_str(l) -> str(l[-1]), with a scope per item (buggy)")
static int last_str(Cystck_State *S, Cystck_Object self, Cystck_Object l)
{
    Cystck_Object last = Cystck_NULL;
    Cystck_ssize_t i, n = CystckList_Size(S, l);
    (void)self;
    if (n < 0)
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope sc = Cystck_OpenScope(S);
        last = CystckObject_Str(S, CystckList_GetItem(S, l, i));
        Cystck_CloseScope(S, sc);
    }
    return Cystck_Return(S, last);   /* @use */
}

static CystckDef *defines[] = {&last_str_def, NULL};
static CystckModuleDef module_def = {"dbg_use_after_scope", NULL, 0, defines};

CYSTCK_MODINIT(dbg_use_after_scope)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
