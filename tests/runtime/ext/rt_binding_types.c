/* The handles of the function and method types (CystckFunction_Type...) and
 * CystckCFunction_Check. */
#include "Cystck.h"

CYSTCK_DEF_METH(types_def, "types", types, CYSTCK_NOARGS, NULL)
static int types(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, CystckTuple_Pack(S, 6, CystckFunction_Type, CystckCFunction_Type, CystckMethod_Type,
                                             CystckClassMethod_Type, CystckStaticMethod_Type,
                                             CystckReversed_Type));
}

CYSTCK_DEF_METH(is_cfunction_def, "is_cfunction", is_cfunction, CYSTCK_O, NULL)
static int is_cfunction(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    (void)self;
    return Cystck_Return(S, CystckCFunction_Check(S, o) ? Cystck_True : Cystck_False);
}

/* same_id(o): CystckObject_Id of o through two handles, as an int */
CYSTCK_DEF_METH(same_id_def, "same_id", same_id, CYSTCK_O, NULL)
static int same_id(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    Cystck_Object other = Cystck_Dup(S, o);
    (void)self;
    if (CystckObject_Id(S, other) != CystckObject_Id(S, o))
        return (CystckErr_SetString(S, CystckExc_AssertionError, "two ids"), -1);
    return Cystck_Return(S, CystckLong_FromSize_t(S, (size_t)CystckObject_Id(S, other)));
}

CYSTCK_DEF_METH_FLAGS(class_getitem_def, "__class_getitem__", class_getitem, CYSTCK_O, METH_CLASS, NULL)
static int class_getitem(Cystck_State *S, Cystck_Object cls, Cystck_Object key)
{
    return Cystck_Return(S, Cystck_GenericAlias(S, cls, key));
}

static CystckDef *Box_defines[] = {&class_getitem_def, NULL};
static CystckType_Spec Box_spec = {"rt_binding_types.Box", 0, 0, 0, Box_defines, NULL};

static CystckDef *module_defines[] = {&types_def, &is_cfunction_def, &same_id_def, NULL};
static CystckModuleDef module_def = {"rt_binding_types", "Function and method types.", 0, module_defines};

CYSTCK_MODINIT(rt_binding_types)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Box_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
