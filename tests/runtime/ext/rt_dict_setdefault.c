/* CystckDict_SetDefault, against st_dict_setdefault.c (PyDict_SetDefault). */
#include "Cystck.h"

CYSTCK_DEF_METH(setdefault_def, "setdefault", setdefault, CYSTCK_VARARGS,
                "setdefault(d, key, dflt) -> d.setdefault(key, dflt)")
static int setdefault(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object d, key, dflt;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "OOO", &d, &key, &dflt))
        return -1;
    return Cystck_Return(S, CystckDict_SetDefault(S, d, key, dflt));
}

static CystckDef *module_defines[] = {&setdefault_def, NULL};
static CystckModuleDef module_def = {"rt_dict_setdefault", "CystckDict_SetDefault tests.", 0, module_defines};

CYSTCK_MODINIT(rt_dict_setdefault)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
