/* Types of this extension whose base is another extension's type, for
 * tests/runtime/test_plain_alloc.py: subclass(base, gc) makes one, with a
 * field (GC: the type traverses it) or without (plain), its struct
 * starting with the base's `long n`.  keep(x) stores x in the field. */
#include "Cystck.h"

typedef struct {
    long n;                 /* the base's struct */
    Cystck_Field kept;
} Sub;

CYSTCK_DEF_SLOT(Sub_traverse_def, tp_traverse, Sub_traverse)
static int Sub_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Cystck_VISIT(&((Sub *)data)->kept);
    return 0;
}

CYSTCK_DEF_METH(Sub_keep_def, "keep", Sub_keep, CYSTCK_O, "keep(x): store x in the field")
static int Sub_keep(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    Sub *s = (Sub *)Cystck_AsStruct(S, self);
    if (s == NULL)
        return -1;
    CystckField_Store(S, self, &s->kept, x);
    return 0;
}

static CystckDef *GcSub_defines[] = {&Sub_traverse_def, &Sub_keep_def, NULL};
static CystckType_Spec GcSub_spec = {
    "rt_sub_of_other.GcSub", sizeof(Sub), 0, CYSTCK_TPFLAGS_BASETYPE, GcSub_defines, "a GC subtype"
};
static CystckType_Spec PlainSub_spec = {
    "rt_sub_of_other.PlainSub", sizeof(long), 0, CYSTCK_TPFLAGS_BASETYPE, NULL, "a plain subtype"
};

CYSTCK_DEF_METH(subclass_def, "subclass", subclass, CYSTCK_VARARGS,
                "subclass(base, gc): a new type of this extension with that base")
static int subclass(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    int gc;
    (void)self;
    if (nargs != 2) {
        CystckErr_SetString(S, CystckExc_TypeError, "subclass() takes 2 arguments");
        return -1;
    }
    gc = CystckObject_IsTrue(S, args[1]);
    if (gc < 0)
        return -1;
    return Cystck_Return(S, CystckType_FromSpec(S, gc ? &GcSub_spec : &PlainSub_spec, args[0]));
}

static CystckDef *module_defines[] = {&subclass_def, NULL};
static CystckModuleDef module_def = {"rt_sub_of_other", "subtypes of another extension's types", 0,
                                     module_defines};

CYSTCK_MODINIT(rt_sub_of_other)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
