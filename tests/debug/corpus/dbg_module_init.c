/* Misuse in a module's init function: Cystck_Drop of a constant, ported
 * from a stock `Py_DECREF(value)` after `PyModule_AddObjectRef`.
 *
 * Debug mode: the import fails with SystemError naming Cystck_Drop, at the
 * line of the CYSTCK_MODINIT body that dropped it. */
#include "Cystck.h"

CYSTCK_DEF_METH(answer_def, "answer", answer, CYSTCK_NOARGS, "42")
static int answer(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_ReturnLong(S, 42);
}

static CystckDef *defines[] = {&answer_def, NULL};
static CystckModuleDef module_def = {"dbg_module_init", NULL, 0, defines};

CYSTCK_MODINIT(dbg_module_init)
{
    Cystck_Object m = CystckModule_Create(S, &module_def);
    if (Cystck_IsNull(m))
        return -1;
    if (CystckModule_AddObjectRef(S, m, "default", Cystck_None) < 0)
        return -1;
    Cystck_Drop(S, Cystck_None);   /* @drop */
    return Cystck_Return(S, m);
}
