/* The in-place number operators and matrix multiplication, one function
 * applying the one named by index (tests/runtime/test_inplace.py compares
 * each with Python's operator module). */
#include "Cystck.h"

typedef Cystck_Object (*binary_op)(Cystck_State *S, Cystck_Object a, Cystck_Object b);

static Cystck_Object inplace_power(Cystck_State *S, Cystck_Object a, Cystck_Object b)
{
    return CystckNumber_InPlacePower(S, a, b, Cystck_None);
}

static const binary_op ops[] = {
    CystckNumber_InPlaceAdd, CystckNumber_InPlaceSubtract, CystckNumber_InPlaceMultiply,
    CystckNumber_InPlaceMatrixMultiply, CystckNumber_InPlaceTrueDivide,
    CystckNumber_InPlaceFloorDivide, CystckNumber_InPlaceRemainder, inplace_power,
    CystckNumber_InPlaceLshift, CystckNumber_InPlaceRshift, CystckNumber_InPlaceAnd,
    CystckNumber_InPlaceOr, CystckNumber_InPlaceXor, CystckNumber_MatrixMultiply,
};

CYSTCK_DEF_METH(apply_def, "apply", apply, CYSTCK_VARARGS, "apply(i, a, b): ops[i](a, b)")
static int apply(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    int i;
    Cystck_Object a, b;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "iOO:apply", &i, &a, &b))
        return -1;
    if (i < 0 || i >= (int)(sizeof(ops) / sizeof(ops[0]))) {
        CystckErr_SetString(S, CystckExc_IndexError, "no such operator");
        return -1;
    }
    return Cystck_Return(S, ops[i](S, a, b));
}

static CystckDef *module_defines[] = {&apply_def, NULL};
static CystckModuleDef module_def = {"rt_inplace", "In-place operators.", 0, module_defines};

CYSTCK_MODINIT(rt_inplace)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
