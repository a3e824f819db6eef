/* A type with tp_descr_get: its instances are descriptors that report what
 * they were given, (obj, type), with None for a null handle. */
#include "Cystck.h"

typedef struct { long unused; } Desc;
CYSTCK_TYPE_HELPERS(Desc)

static Cystck_Object or_none(Cystck_Object h)
{
    return Cystck_IsNull(h) ? Cystck_None : h;
}

CYSTCK_DEF_SLOT(Desc_get_def, tp_descr_get, Desc_get)
static int Desc_get(Cystck_State *S, Cystck_Object self, Cystck_Object obj, Cystck_Object type)
{
    (void)self;
    if (!Cystck_IsNull(obj) && CystckObject_HasAttrString(S, obj, "fail"))
        return (CystckErr_SetString(S, CystckExc_ValueError, "asked to fail"), -1);
    return Cystck_Return(S, CystckTuple_Pack(S, 2, or_none(obj), or_none(type)));
}

static CystckDef *Desc_defines[] = {&Desc_get_def, NULL};
static CystckType_Spec Desc_spec = {"rt_descr.Desc", sizeof(Desc), 0, 0, Desc_defines, NULL};

static CystckModuleDef module_def = {"rt_descr", "tp_descr_get tests.", 0, NULL};

CYSTCK_MODINIT(rt_descr)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Desc_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
