/* CystckObject_IsInstance (tests/runtime/test_isinstance.py). */
#include "Cystck.h"

CYSTCK_DEF_METH(isinstance_def, "isinstance", isinstance_impl, CYSTCK_VARARGS,
                "isinstance(o, cls) -> 0 or 1, as CystckObject_IsInstance answers")
static int isinstance_impl(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object o, cls;
    int r;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "OO:isinstance", &o, &cls))
        return -1;
    r = CystckObject_IsInstance(S, o, cls);
    if (r < 0)
        return -1;
    return Cystck_ReturnLong(S, r);
}

static CystckDef *module_defines[] = {&isinstance_def, NULL};
static CystckModuleDef module_def = {"rt_isinstance", "isinstance through the Cystck API.", 0,
                                     module_defines};

CYSTCK_MODINIT(rt_isinstance)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
