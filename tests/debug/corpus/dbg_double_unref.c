/* Misuse: a reference released twice.
 *
 * Stock counterpart: Py_DECREF twice for one reference
 * (stock/stock_double_decref.c): the object is freed while others still
 * use it.
 *
 * Debug mode: SystemError naming Cystck_unref, at the second release, and
 * where the reference was created. */
#include "Cystck.h"

static Cystck_Ref callback;

CYSTCK_DEF_METH(set_callback_def, "set_callback", set_callback, CYSTCK_O,
                "set_callback(f): remember f")
static int set_callback(Cystck_State *S, Cystck_Object self, Cystck_Object f)
{
    (void)self;
    if (callback != NULL)
        Cystck_unref(S, callback);
    callback = Cystck_ref(S, f);   /* @created */
    return callback == NULL ? -1 : 0;
}

CYSTCK_DEF_METH(clear_callback_def, "clear_callback", clear_callback, CYSTCK_NOARGS,
                "forget the callback (buggy: leaves the released reference in place)")
static int clear_callback(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    Cystck_unref(S, callback);   /* @unref */
    return 0;
}

static CystckDef *defines[] = {&set_callback_def, &clear_callback_def, NULL};
static CystckModuleDef module_def = {"dbg_double_unref", NULL, 0, defines};

CYSTCK_MODINIT(dbg_double_unref)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
