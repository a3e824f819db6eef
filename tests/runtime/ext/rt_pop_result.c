/* Cystck_PopResult: an implementation called directly, its push count
 * turned into a handle. */
#include "Cystck.h"

static Cystck_ssize_t stack_after = -1;

/* Pushes o n times; n = -1 sets ValueError and returns -1. */
static int push_times(Cystck_State *S, Cystck_Object o, long n)
{
    long i;
    if (n < 0) {
        CystckErr_SetString(S, CystckExc_ValueError, "the implementation failed");
        return -1;
    }
    for (i = 0; i < n; i++)
        if (Cystck_Push(S, o) < 0)
            return -1;
    return (int)n;
}

CYSTCK_DEF_METH(call_def, "call", call, CYSTCK_VARARGS,
                "call(n, o) -> the result of an implementation that pushed o n times (-1: raised)")
static int call(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object r;
    (void)self;
    if (nargs != 2) {
        CystckErr_SetString(S, CystckExc_TypeError, "call(n, o)");
        return -1;
    }
    r = Cystck_PopResult(S, push_times(S, args[1], CystckLong_AsLong(S, args[0])));
    stack_after = Cystck_StackSize(S);
    if (Cystck_IsNull(r))
        return -1;
    return Cystck_Return(S, r);
}

CYSTCK_DEF_METH(stack_after_def, "stack_after", stack_after_call, CYSTCK_NOARGS,
                "stack_after() -> the stack's size after the last call's Cystck_PopResult")
static int stack_after_call(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_ReturnSsize(S, stack_after);
}

static CystckDef *module_defines[] = {&call_def, &stack_after_def, NULL};
static CystckModuleDef module_def = {"rt_pop_result", "Cystck_PopResult tests.", 0, module_defines};

CYSTCK_MODINIT(rt_pop_result)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
