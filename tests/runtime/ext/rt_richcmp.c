/* CYSTCK_RICHCOMPARE next to the stock Py_RETURN_RICHCOMPARE it stands
 * for (tests/runtime/test_richcompare_macro.py). */
#include "Cystck.h"

static PyObject *stock_richcompare(double a, double b, int op)
{
    Py_RETURN_RICHCOMPARE(a, b, op);
}

CYSTCK_DEF_METH(both_def, "both", both, CYSTCK_VARARGS,
                "both(a, b, op) -> (CYSTCK_RICHCOMPARE's bool, Py_RETURN_RICHCOMPARE's)")
static int both(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    double a, b;
    int op;
    Cystck_Object stock;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "ddi:both", &a, &b, &op))
        return -1;
    stock = Cystck_FromNewPyObject(S, stock_richcompare(a, b, op));
    if (Cystck_IsNull(stock))
        return -1;
    if (Cystck_PushBool(S, CYSTCK_RICHCOMPARE(a, b, op)) < 0 || Cystck_Push(S, stock) < 0)
        return -1;
    return 2;
}

static CystckDef *module_defines[] = {&both_def, NULL};
static CystckModuleDef module_def = {"rt_richcmp", "CYSTCK_RICHCOMPARE and Py_RETURN_RICHCOMPARE.", 0,
                                     module_defines};

CYSTCK_MODINIT(rt_richcmp)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
