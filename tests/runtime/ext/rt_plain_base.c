/* A plain type (no GC, fixed size: Cystck_New's inline allocation) that
 * other extensions subclass, for tests/runtime/test_plain_alloc.py.  Its
 * tp_new makes instances of whatever subtype it is called for, with this
 * extension's Cystck_New, as a base type's tp_new does. */
#include "Cystck.h"

typedef struct { long n; } Base;

CYSTCK_DEF_SLOT(Base_new_def, tp_new, Base_new)
static int Base_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                    Cystck_ssize_t nargs, Cystck_Object kw)
{
    Base *b;
    Cystck_Object self;
    (void)args;
    (void)nargs;
    (void)kw;
    self = Cystck_New(S, type, (void **)&b);
    if (Cystck_IsNull(self))
        return -1;
    b->n = 7;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_MEMBER(Base_n_def, "n", CYSTCK_MEMBER_LONG, Base, n, CYSTCK_READONLY, "7")

static CystckDef *Base_defines[] = {&Base_new_def, &Base_n_def, NULL};
static CystckType_Spec Base_spec = {
    "rt_plain_base.Base", sizeof(Base), 0, CYSTCK_TPFLAGS_BASETYPE, Base_defines, "Base(): n is 7"
};

static CystckModuleDef module_def = {"rt_plain_base", "a plain base type", 0, NULL};

CYSTCK_MODINIT(rt_plain_base)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Base_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
