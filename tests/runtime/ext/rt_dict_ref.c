/* CystckDict_GetItemRef (PyDict_GetItemRef of Python 3.13). */
#include "Cystck.h"

CYSTCK_DEF_METH(get_ref_def, "get_ref", get_ref, CYSTCK_VARARGS,
                "get_ref(d, key) -> (status, value or None)")
static int get_ref(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object d, key, value = Cystck_True;     /* must be overwritten */
    int status;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "OO", &d, &key))
        return -1;
    status = CystckDict_GetItemRef(S, d, key, &value);
    if (status < 0) {
        if (!Cystck_IsNull(value))
            CystckErr_SetString(S, CystckExc_AssertionError, "no null result on error");
        return -1;
    }
    if (Cystck_Push(S, CystckLong_FromLong(S, status)) < 0)
        return -1;
    if (Cystck_Push(S, Cystck_IsNull(value) ? Cystck_None : value) < 0)
        return -1;
    return 2;
}

static CystckDef *module_defines[] = {&get_ref_def, NULL};
static CystckModuleDef module_def = {"rt_dict_ref", "CystckDict_GetItemRef tests.", 0, module_defines};

CYSTCK_MODINIT(rt_dict_ref)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
