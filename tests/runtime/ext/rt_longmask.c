/* The masking integer conversions (PyLong_AsUnsigned(Long)LongMask's
 * counterparts): driven by test_long_masks.py, which compares them with
 * the stock functions called through ctypes. */
#include "Cystck.h"

CYSTCK_DEF_METH(mask_def, "mask", mask, CYSTCK_O, "CystckLong_AsUnsignedLongMask(o), or None on error")
static int mask(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    unsigned long v = CystckLong_AsUnsignedLongMask(S, o);
    (void)self;
    if (v == (unsigned long)-1 && CystckErr_Occurred(S))
        return -1;
    return Cystck_Return(S, CystckLong_FromUnsignedLong(S, v));
}

CYSTCK_DEF_METH(mask_ll_def, "mask_ll", mask_ll, CYSTCK_O, "CystckLong_AsUnsignedLongLongMask(o)")
static int mask_ll(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    unsigned long long v = CystckLong_AsUnsignedLongLongMask(S, o);
    (void)self;
    if (v == (unsigned long long)-1 && CystckErr_Occurred(S))
        return -1;
    return Cystck_Return(S, CystckLong_FromUnsignedLongLong(S, v));
}

static CystckDef *defines[] = {&mask_def, &mask_ll_def, NULL};
static CystckModuleDef longmask_def = {"rt_longmask", NULL, 0, defines};
CYSTCK_MODINIT(rt_longmask) { return Cystck_Return(S, CystckModule_Create(S, &longmask_def)); }
