/* Not a misuse: a reference held for the life of the process.
 *
 * A module keeps its type in a static Cystck_Ref made by the init function,
 * the pattern cystck-migrate produces for a stock extension's static type
 * object.  Nothing can release it (a module has no teardown hook), so debug
 * mode does not report it as a leak at exit. */
#include "Cystck.h"

typedef struct { long n; } Counter;
CYSTCK_TYPE_HELPERS(Counter)

static Cystck_Ref Counter_type;

CYSTCK_DEF_SLOT(Counter_new_def, tp_new, Counter_new)
static int Counter_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                       Cystck_ssize_t nargs, Cystck_Object kw)
{
    Counter *c;
    Cystck_Object self = Cystck_New(S, type, (void **)&c);
    (void)args; (void)nargs; (void)kw;
    if (Cystck_IsNull(self))
        return -1;
    c->n = 0;
    return Cystck_Return(S, self);
}

static CystckDef *Counter_defines[] = {&Counter_new_def, NULL};
static CystckType_Spec Counter_spec = {
    "dbg_global_ref.Counter", sizeof(Counter), 0, 0, Counter_defines, "a counter"
};

CYSTCK_DEF_METH(new_counter_def, "new_counter", new_counter, CYSTCK_NOARGS,
                "a new Counter, made through the module's type reference")
static int new_counter(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    if (Cystck_Push(S, Cystck_deref(S, Counter_type)) < 0)
        return -1;
    return Cystck_Return(S, Cystck_Call(S, 0));
}

static CystckDef *defines[] = {&new_counter_def, NULL};
static CystckModuleDef module_def = {"dbg_global_ref", NULL, 0, defines};

CYSTCK_MODINIT(dbg_global_ref)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Counter_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    Counter_type = Cystck_ref(S, type);
    if (Counter_type == NULL)
        return -1;
    return Cystck_Return(S, m);
}
