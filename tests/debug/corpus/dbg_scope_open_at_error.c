/* Not a misuse: a scope gate still open when the function returns -1.
 *
 * The stock early exit `if (x == NULL) return NULL;` inside a loop becomes
 * `return -1;` with the loop's gate open.  Closing the frame releases what
 * the gate holds anyway, so debug mode reports an open gate only at a
 * successful return (dbg_open_scope.c) and lets the function's own error
 * through.  An iterator's end (-1 with no exception) is such a return too.
 *
 * Debug mode: the function's exception; a -1 with no exception set is
 * reported as that, not as an open gate. */
#include "Cystck.h"

CYSTCK_DEF_METH(int_sum_def, "int_sum", int_sum, CYSTCK_O,
                "int_sum(l) -> the sum of the ints in l")
static int int_sum(Cystck_State *S, Cystck_Object self, Cystck_Object l)
{
    Cystck_ssize_t i, n = CystckList_Size(S, l);
    long total = 0;
    (void)self;
    if (n < 0)
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope sc = Cystck_OpenScope(S);
        long v = CystckLong_AsLong(S, CystckList_GetItem(S, l, i));
        if (v == -1 && CystckErr_Occurred(S))
            return -1;                                    /* gate left open */
        total += v;
        Cystck_CloseScope(S, sc);
    }
    return Cystck_ReturnLong(S, total);
}

CYSTCK_DEF_METH(positive_sum_def, "positive_sum", positive_sum, CYSTCK_O,
                "positive_sum(l) -> the sum of the ints in l (buggy: fails on a negative "
                "one without setting an exception)")
static int positive_sum(Cystck_State *S, Cystck_Object self, Cystck_Object l)
{
    Cystck_ssize_t i, n = CystckList_Size(S, l);
    long total = 0;
    (void)self;
    if (n < 0)
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope sc = Cystck_OpenScope(S);
        long v = CystckLong_AsLong(S, CystckList_GetItem(S, l, i));
        if (v < 0)
            return -1;                      /* no exception set, gate left open */
        total += v;
        Cystck_CloseScope(S, sc);
    }
    return Cystck_ReturnLong(S, total);
}

/* An iterator whose end is found inside a gate. */
typedef struct { long next, stop; } Upto;
CYSTCK_TYPE_HELPERS(Upto)

CYSTCK_DEF_SLOT(Upto_new_def, tp_new, Upto_new)
static int Upto_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                    Cystck_ssize_t nargs, Cystck_Object kw)
{
    Upto *u;
    long stop;
    Cystck_Object self;
    if (!CystckArg_NoKeywords(S, "Upto", kw) || !CystckArg_ParseTuple(S, args, nargs, "l", &stop))
        return -1;
    self = Cystck_New(S, type, (void **)&u);
    if (Cystck_IsNull(self))
        return -1;
    u->next = 0;
    u->stop = stop;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_SELFITER(Upto_iter_def)

CYSTCK_DEF_SLOT(Upto_next_def, tp_iternext, Upto_next)
static int Upto_next(Cystck_State *S, Cystck_Object self)
{
    Upto *u = Upto_AsStruct(S, self);
    Cystck_Scope sc = Cystck_OpenScope(S);
    Cystck_Object v = CystckLong_FromLong(S, u->next);
    if (Cystck_IsNull(v) || u->next >= u->stop)
        return -1;                          /* error or end: gate left open */
    u->next++;
    return Cystck_Return(S, Cystck_CloseScopeKeep(S, sc, v));
}

static CystckDef *Upto_defines[] = {&Upto_new_def, &Upto_iter_def, &Upto_next_def, NULL};
static CystckType_Spec Upto_spec = {
    "dbg_scope_open_at_error.Upto", sizeof(Upto), 0, 0, Upto_defines, "Upto(n): 0, 1, ..., n-1"
};

static CystckDef *defines[] = {&int_sum_def, &positive_sum_def, NULL};
static CystckModuleDef module_def = {"dbg_scope_open_at_error", NULL, 0, defines};

CYSTCK_MODINIT(dbg_scope_open_at_error)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Upto_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
