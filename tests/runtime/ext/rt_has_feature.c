/* CystckType_HasFeature read as stock code reads PyType_HasFeature: a
 * truth test, `if (!PyType_HasFeature(t, F))`, what the translator makes
 * of it.  For an object that is no type the answer must read "not set". */
#include "Cystck.h"

static int last_answer = -2;

CYSTCK_DEF_METH(is_base_type_def, "is_base_type", is_base_type, CYSTCK_O,
                "is_base_type(t) -> can t be subclassed (Py_TPFLAGS_BASETYPE); TypeError for no type")
static int is_base_type(Cystck_State *S, Cystck_Object self, Cystck_Object t)
{
    (void)self;
    if (!CystckType_HasFeature(S, t, Py_TPFLAGS_BASETYPE))
        last_answer = 0;
    else
        last_answer = 1;
    if (CystckErr_Occurred(S))
        return -1;
    return Cystck_ReturnBool(S, last_answer);
}

CYSTCK_DEF_METH(last_def, "last", last, CYSTCK_NOARGS, "last() -> the branch is_base_type took last")
static int last(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_ReturnLong(S, last_answer);
}

static CystckDef *module_defines[] = {&is_base_type_def, &last_def, NULL};
static CystckModuleDef module_def = {"rt_has_feature", "CystckType_HasFeature read as a truth test.", 0,
                                     module_defines};

CYSTCK_MODINIT(rt_has_feature)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
