/* CystckType_GetMRO, CystckType_GetDict, CystckObject_HasDescrGet/Set and
 * CystckDescr_Get/Set, called as they are (tests/runtime/test_type_descr.py
 * compares them with st_type_descr.c, the stock code they replace). */
#include "Cystck.h"

CYSTCK_DEF_METH(mro_def, "mro", mro, CYSTCK_O, "mro(t) -> t's MRO")
static int mro(Cystck_State *S, Cystck_Object self, Cystck_Object t)
{
    (void)self;
    return Cystck_Return(S, CystckType_GetMRO(S, t));
}

CYSTCK_DEF_METH(dict_def, "dict", dict, CYSTCK_O, "dict(t) -> t's own dict")
static int dict(Cystck_State *S, Cystck_Object self, Cystck_Object t)
{
    (void)self;
    return Cystck_Return(S, CystckType_GetDict(S, t));
}

CYSTCK_DEF_METH(has_get_def, "has_get", has_get, CYSTCK_O, "has_get(o) -> has o's type tp_descr_get")
static int has_get(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    (void)self;
    return Cystck_ReturnBool(S, CystckObject_HasDescrGet(S, o));
}

CYSTCK_DEF_METH(has_set_def, "has_set", has_set, CYSTCK_O, "has_set(o) -> has o's type tp_descr_set")
static int has_set(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    (void)self;
    return Cystck_ReturnBool(S, CystckObject_HasDescrSet(S, o));
}

/* None stands for a null handle (the slot gets NULL). */
static Cystck_Object or_null(Cystck_State *S, Cystck_Object o)
{
    return Cystck_Is(S, o, Cystck_None) ? Cystck_NULL : o;
}

CYSTCK_DEF_METH(get_def, "get", get, CYSTCK_VARARGS, "get(d, obj, type) -> d's tp_descr_get(d, obj, type)")
static int get(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object d, obj, type;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "OOO", &d, &obj, &type))
        return -1;
    return Cystck_Return(S, CystckDescr_Get(S, d, or_null(S, obj), or_null(S, type)));
}

CYSTCK_DEF_METH(set_def, "set", set, CYSTCK_VARARGS, "set(d, obj, v) -> d's tp_descr_set(d, obj, v)")
static int set(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object d, obj, v;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "OOO", &d, &obj, &v))
        return -1;
    return CystckDescr_Set(S, d, obj, v) < 0 ? -1 : 0;
}

CYSTCK_DEF_METH(delete_def, "delete", delete, CYSTCK_VARARGS, "delete(d, obj) -> d's tp_descr_set(d, obj, NULL)")
static int delete(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object d, obj;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "OO", &d, &obj))
        return -1;
    return CystckDescr_Set(S, d, obj, Cystck_NULL) < 0 ? -1 : 0;
}

static CystckDef *module_defines[] = {&mro_def, &dict_def, &has_get_def, &has_set_def,
                                      &get_def, &set_def, &delete_def, NULL};
static CystckModuleDef module_def = {"rt_descr_api", "MRO, type dict and descriptor slots.", 0,
                                     module_defines};

CYSTCK_MODINIT(rt_descr_api)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
