/* Misuse: a scope gate still open when the function returns.
 *
 * Every Cystck_OpenScope needs its Cystck_CloseScope (or
 * Cystck_CloseScopeKeep) on every path; here an early exit skips it.  No
 * stock counterpart.
 *
 * Debug mode: SystemError naming the function and the number of open gates. */
#include "Cystck.h"

CYSTCK_DEF_METH(find_def, "find", find, CYSTCK_VARARGS,
                "find(l, x) -> first index i with l[i] == x, or -1 (buggy)")
static int find(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object l, x;
    Cystck_ssize_t i, n;
    (void)self;
    if (!CystckArg_UnpackTuple(S, args, nargs, "find", 2, 2, &l, &x))
        return -1;
    if ((n = CystckList_Size(S, l)) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope sc = Cystck_OpenScope(S);
        int eq = CystckObject_RichCompareBool(S, CystckList_GetItem(S, l, i), x, Py_EQ);
        if (eq != 0)
            return eq < 0 ? -1 : Cystck_ReturnLong(S, (long)i);   /* gate left open */
        Cystck_CloseScope(S, sc);
    }
    return Cystck_ReturnLong(S, -1);
}

/* The same misuse in a setter, whose trampoline returns a C int. */
typedef struct { long total; } Acc;
CYSTCK_TYPE_HELPERS(Acc)

CYSTCK_DEF_SLOT(Acc_new_def, tp_new, Acc_new)
static int Acc_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                   Cystck_ssize_t nargs, Cystck_Object kw)
{
    Acc *acc;
    Cystck_Object self = Cystck_New(S, type, (void **)&acc);
    (void)args; (void)nargs; (void)kw;
    if (Cystck_IsNull(self))
        return -1;
    acc->total = 0;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_GETSET(Acc_total_def, "total", Acc_get_total, Acc_set_total,
                  "the sum of the items last assigned", NULL)
static int Acc_get_total(Cystck_State *S, Cystck_Object self, void *closure)
{
    (void)closure;
    return Cystck_ReturnLong(S, Acc_AsStruct(S, self)->total);
}

static int Acc_set_total(Cystck_State *S, Cystck_Object self, Cystck_Object value, void *closure)
{
    long total = 0;
    Cystck_ssize_t i, n = CystckList_Size(S, value);
    (void)closure;
    if (n < 0)
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope sc = Cystck_OpenScope(S);
        long v = CystckLong_AsLong(S, CystckList_GetItem(S, value, i));
        if (v == -1 && CystckErr_Occurred(S)) {
            Cystck_CloseScope(S, sc);
            return -1;
        }
        if (v == 0)
            break;              /* gate left open */
        total += v;
        Cystck_CloseScope(S, sc);
    }
    Acc_AsStruct(S, self)->total = total;
    return 0;
}

static CystckDef *Acc_defines[] = {&Acc_new_def, &Acc_total_def, NULL};
static CystckType_Spec Acc_spec = {
    "dbg_open_scope.Acc", sizeof(Acc), 0, 0, Acc_defines,
    "acc.total = [1, 2, 0, 4] sums the items up to the first 0"
};

static CystckDef *defines[] = {&find_def, NULL};
static CystckModuleDef module_def = {"dbg_open_scope", NULL, 0, defines};

CYSTCK_MODINIT(dbg_open_scope)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Acc_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
