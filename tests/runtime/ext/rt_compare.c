/* CystckUnicode_Compare, CystckUnicode_Tailmatch and
 * CystckErr_WriteUnraisable (tests/runtime/test_compare.py). */
#include "Cystck.h"

CYSTCK_DEF_METH(compare_def, "compare", compare, CYSTCK_VARARGS, "compare(a, b) -> -1, 0, 1")
static int compare(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object a, b;
    int r;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "OO:compare", &a, &b))
        return -1;
    r = CystckUnicode_Compare(S, a, b);
    if (r == -1 && CystckErr_Occurred(S))
        return -1;
    return Cystck_ReturnLong(S, r);
}

CYSTCK_DEF_METH(tailmatch_def, "tailmatch", tailmatch, CYSTCK_VARARGS,
                "tailmatch(s, sub, start, end, direction) -> 0 or 1")
static int tailmatch(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object s, sub;
    Cystck_ssize_t start, end, r;
    int direction;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "OOnni:tailmatch", &s, &sub, &start, &end, &direction))
        return -1;
    r = CystckUnicode_Tailmatch(S, s, sub, start, end, direction);
    if (r == -1)
        return -1;
    return Cystck_ReturnSsize(S, r);
}

CYSTCK_DEF_METH(unraisable_def, "unraisable", unraisable, CYSTCK_VARARGS,
                "unraisable(message, obj=None): raise ValueError(message), then report it as unraisable")
static int unraisable(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    const char *message;
    Cystck_Object obj = Cystck_NULL;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "s|O:unraisable", &message, &obj))
        return -1;
    CystckErr_SetString(S, CystckExc_ValueError, message);
    CystckErr_WriteUnraisable(S, obj);
    return CystckErr_Occurred(S) ? -1 : 0;
}

static CystckDef *module_defines[] = {&compare_def, &tailmatch_def, &unraisable_def, NULL};
static CystckModuleDef module_def = {"rt_compare", "String comparison and unraisable errors.", 0,
                                     module_defines};

CYSTCK_MODINIT(rt_compare)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
