/* CystckLong_FromVoidPtr, against id() (builtin_id: PyLong_FromVoidPtr(v)). */
#include "Cystck.h"

CYSTCK_DEF_METH(object_id_def, "object_id", object_id, CYSTCK_O, "object_id(o) -> id(o)")
static int object_id(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    (void)self;
    return Cystck_Return(S, CystckLong_FromVoidPtr(S, o));
}

static CystckDef *module_defines[] = {&object_id_def, NULL};
static CystckModuleDef module_def = {"rt_object_id", "CystckLong_FromVoidPtr tests.", 0, module_defines};

CYSTCK_MODINIT(rt_object_id)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
