/* Misuse: a handle used after an API function consumed it.
 *
 * CystckList_SetItem, like PyList_SetItem, takes the value over: the handle
 * passed to it is released.  Stock counterpart: using (or Py_DECREF-ing) an
 * object whose reference PyList_SetItem stole.
 *
 * Debug mode: SystemError from the next API function that gets the handle. */
#include "Cystck.h"

CYSTCK_DEF_METH(boxed_repr_def, "boxed_repr", boxed_repr, CYSTCK_O,
                "boxed_repr(x) -> ([x], repr(x)) (buggy)")
static int boxed_repr(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    Cystck_Object box = CystckList_New(S, 1);
    Cystck_Object item = Cystck_Dup(S, x);
    (void)self;
    if (Cystck_IsNull(box) || Cystck_IsNull(item))
        return -1;
    if (CystckList_SetItem(S, box, 0, item) < 0)
        return -1;
    if (Cystck_Push(S, box) < 0)
        return -1;
    if (Cystck_Push(S, CystckObject_Repr(S, item)) < 0)   /* @use */
        return -1;
    return 2;
}

static CystckDef *defines[] = {&boxed_repr_def, NULL};
static CystckModuleDef module_def = {"dbg_use_consumed", NULL, 0, defines};

CYSTCK_MODINIT(dbg_use_consumed)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
