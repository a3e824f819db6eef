/* Cystck_Mark / Cystck_ReleaseSince at the edges of the handle array's
 * chunks (tests/runtime/test_loop_mark.py). */
#include "Cystck.h"

#define BEFORE 90       /* 16 inline slots, a 64-slot chunk, 10 in a third */

/* fill(n): make n handles, so that closing the call gives its chunks back
 * to the runtime's spares. */
CYSTCK_DEF_METH(fill_def, "fill", fill, CYSTCK_O, NULL)
static int fill(Cystck_State *S, Cystck_Object self, Cystck_Object arg)
{
    long i, n = CystckLong_AsLong(S, arg);
    (void)self;
    for (i = 0; i < n; i++)
        if (Cystck_IsNull(CystckLong_FromLong(S, i)))
            return -1;
    return 0;
}

/* after_drops(callback): handles made before a mark, the mark's chunk
 * emptied by dropping the newest of them (after callback(), which calls
 * fill, has filled the spare chunks, so the next chunk is other memory),
 * a new handle, then Cystck_ReleaseSince: the older handles stay; returns
 * the sum of their values. */
CYSTCK_DEF_METH(after_drops_def, "after_drops", after_drops, CYSTCK_O, NULL)
static int after_drops(Cystck_State *S, Cystck_Object self, Cystck_Object callback)
{
    Cystck_Object before[BEFORE], r;
    Cystck_Scope mark;
    long i, sum = 0;
    (void)self;
    for (i = 0; i < BEFORE; i++)
        if (Cystck_IsNull(before[i] = CystckLong_FromLong(S, i)))
            return -1;
    mark = Cystck_Mark(S);
    r = CystckObject_CallNoArgs(S, callback);
    if (Cystck_IsNull(r))
        return -1;
    Cystck_Drop(S, r);
    for (i = BEFORE - 1; i >= 80; i--)
        Cystck_Drop(S, before[i]);
    if (Cystck_IsNull(CystckLong_FromLong(S, -1)))
        return -1;
    Cystck_ReleaseSince(S, &mark);
    for (i = 0; i < 80; i++)
        sum += CystckLong_AsLong(S, before[i]);
    if (CystckErr_Occurred(S))
        return -1;
    return Cystck_ReturnLong(S, sum);
}

/* per_iteration(n): n iterations that each make two handles, released at
 * the next; returns how many were made. */
CYSTCK_DEF_METH(per_iteration_def, "per_iteration", per_iteration, CYSTCK_O, NULL)
static int per_iteration(Cystck_State *S, Cystck_Object self, Cystck_Object arg)
{
    long i, n = CystckLong_AsLong(S, arg), made = 0;
    Cystck_Scope mark = Cystck_Mark(S);
    (void)self;
    for (i = 0; (Cystck_ReleaseSince(S, &mark), i < n); i++) {
        Cystck_Object a = CystckLong_FromLong(S, i), b = CystckLong_FromLong(S, -i);
        if (Cystck_IsNull(a) || Cystck_IsNull(b))
            return -1;
        made += 2;
    }
    return Cystck_ReturnLong(S, made);
}

/* carried(n): sum(range(n)) in an accumulator carried from one iteration
 * to the next by Cystck_ReleaseSinceKeep, and a null handle kept (null) */
CYSTCK_DEF_METH(carried_def, "carried", carried, CYSTCK_O, NULL)
static int carried(Cystck_State *S, Cystck_Object self, Cystck_Object arg)
{
    long i, n = CystckLong_AsLong(S, arg);
    Cystck_Object acc = CystckLong_FromLong(S, 0), none = Cystck_NULL;
    Cystck_Scope mark = Cystck_Mark(S);
    (void)self;
    Cystck_ReleaseSinceKeep(S, &mark, &none);
    if (!Cystck_IsNull(none))
        return -1;
    for (i = 0; (Cystck_ReleaseSinceKeep(S, &mark, &acc), i < n); i++) {
        Cystck_Object x = CystckLong_FromLong(S, i), t;
        if (Cystck_IsNull(x))
            return -1;
        t = CystckNumber_Add(S, acc, x);
        if (Cystck_IsNull(t))
            return -1;
        Cystck_Drop(S, acc);
        acc = t;
    }
    return Cystck_Return(S, acc);
}

static CystckDef *module_defines[] = {&fill_def, &after_drops_def, &per_iteration_def, &carried_def, NULL};
static CystckModuleDef module_def = {"rt_loop_mark", "Cystck_Mark tests.", 0, module_defines};

CYSTCK_MODINIT(rt_loop_mark)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
