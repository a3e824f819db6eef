/* Misuse: a released handle stored in an instance field.
 *
 * CystckField_Store(S, owner, &f, Cystck_NULL) clears a field on purpose; a
 * handle that was released is a different thing and must not clear it
 * silently.  Stock counterpart: storing a pointer after Py_DECREF, which
 * leaves the field dangling.
 *
 * Cystck raises SystemError naming CystckField_Store. */
#include "Cystck.h"

typedef struct { Cystck_Field label; } Tag;
CYSTCK_TYPE_HELPERS(Tag)

CYSTCK_DEF_SLOT(Tag_new_def, tp_new, Tag_new)
static int Tag_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                   Cystck_ssize_t nargs, Cystck_Object kw)
{
    Tag *t;
    Cystck_Object self = Cystck_New(S, type, (void **)&t);
    (void)args; (void)nargs; (void)kw;
    if (Cystck_IsNull(self))
        return -1;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_SLOT(Tag_traverse_def, tp_traverse, Tag_traverse)
static int Tag_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Cystck_VISIT(&((Tag *)data)->label);
    return 0;
}

CYSTCK_DEF_GET(Tag_label_def, "label", Tag_get_label, "the label, or None", NULL)
static int Tag_get_label(Cystck_State *S, Cystck_Object self, void *closure)
{
    Cystck_Object label = CystckField_Load(S, self, Tag_AsStruct(S, self)->label);
    (void)closure;
    return Cystck_Return(S, Cystck_IsNull(label) ? Cystck_None : label);
}

CYSTCK_DEF_METH(Tag_set_label_def, "set_label", Tag_set_label, CYSTCK_O,
                "set_label(x): label = str(x).upper() (buggy)")
static int Tag_set_label(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    Cystck_Object s = CystckObject_Str(S, x), upper;
    if (Cystck_IsNull(s))
        return -1;
    upper = CystckObject_CallMethod(S, s, "upper", NULL);
    Cystck_Drop(S, upper);
    CystckField_Store(S, self, &Tag_AsStruct(S, self)->label, upper);   /* @store */
    return 0;
}

static CystckDef *Tag_defines[] = {&Tag_new_def, &Tag_traverse_def, &Tag_label_def,
                                   &Tag_set_label_def, NULL};
static CystckType_Spec Tag_spec = {
    "dbg_stale_field.Tag", sizeof(Tag), 0, 0, Tag_defines, "Tag() with a label field"
};

static CystckDef *defines[] = {NULL};
static CystckModuleDef module_def = {"dbg_stale_field", NULL, 0, defines};

CYSTCK_MODINIT(dbg_stale_field)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Tag_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
