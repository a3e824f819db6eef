/* A variable-size type whose items are objects stored inline after its
 * native struct (Cystck_NewVar, CYSTCK_VAR_HEAD, CystckVar_Size): the
 * Cystck side of test_varobj.py; st_varobj.c is the same type with the
 * stock API. */
#include "Cystck.h"

typedef struct {
    CYSTCK_VAR_HEAD
    long tag;
    Cystck_Field items[1];
} Row;
CYSTCK_TYPE_HELPERS(Row)

static Cystck_Ref Row_type;

CYSTCK_DEF_SLOT(Row_new_def, tp_new, Row_new)
static int Row_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                   Cystck_ssize_t nargs, Cystck_Object kw)
{
    Cystck_ssize_t i;
    Row *r;
    Cystck_Object self;
    if (!CystckArg_NoKeywords(S, "Row", kw))
        return -1;
    self = Cystck_NewVar(S, type, nargs, (void **)&r);
    if (Cystck_IsNull(self))
        return -1;
    r->tag = 1000 + (long)nargs;
    for (i = 0; i < nargs; i++)
        CystckField_Store(S, self, &r->items[i], args[i]);
    return Cystck_Return(S, self);
}

CYSTCK_DEF_SLOT(Row_traverse_def, tp_traverse, Row_traverse)
static int Row_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Row *r = (Row *)data;
    Cystck_ssize_t i;
    for (i = 0; i < CystckVar_DataSize(data); i++)
        Cystck_VISIT(&r->items[i]);
    return 0;
}

CYSTCK_DEF_SLOT(Row_len_def, sq_length, Row_len)
static Cystck_ssize_t Row_len(Cystck_State *S, Cystck_Object self)
{
    return CystckVar_Size(S, self);
}

CYSTCK_DEF_SLOT(Row_item_def, sq_item, Row_item)
static int Row_item(Cystck_State *S, Cystck_Object self, Cystck_ssize_t i)
{
    Row *r = Row_AsStruct(S, self);
    if (i < 0 || i >= CystckVar_Size(S, self)) {
        CystckErr_SetString(S, CystckExc_IndexError, "Row index out of range");
        return -1;
    }
    return Cystck_Return(S, CystckField_Load(S, self, r->items[i]));
}

CYSTCK_DEF_METH(Row_tag_def, "tag", Row_tag, CYSTCK_NOARGS, "tag(): 1000 + the item count, kept in the struct")
static int Row_tag(Cystck_State *S, Cystck_Object self)
{
    return Cystck_ReturnLong(S, Row_AsStruct(S, self)->tag);
}

CYSTCK_DEF_METH(Row_set_def, "set", Row_set, CYSTCK_VARARGS, "set(i, v): replace item i")
static int Row_set(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_ssize_t i;
    Cystck_Object v;
    if (!CystckArg_ParseTuple(S, args, nargs, "nO", &i, &v))
        return -1;
    if (i < 0 || i >= CystckVar_Size(S, self)) {
        CystckErr_SetString(S, CystckExc_IndexError, "Row index out of range");
        return -1;
    }
    CystckField_Store(S, self, &Row_AsStruct(S, self)->items[i], v);
    return 0;
}

static CystckDef *Row_defines[] = {&Row_new_def, &Row_traverse_def, &Row_len_def, &Row_item_def,
                                   &Row_tag_def, &Row_set_def, NULL};
static CystckType_Spec Row_spec = {
    "rt_varobj.Row", sizeof(Row) - sizeof(Cystck_Field), sizeof(Cystck_Field), 0, Row_defines,
    "Row(*items): holds the items inline"
};

/* A spec with items whose struct has no room for the item count. */
typedef struct { char c; } Tiny;
static CystckType_Spec Tiny_spec = {"rt_varobj.Tiny", 0, sizeof(Cystck_Field), 0, NULL, NULL};

CYSTCK_DEF_METH(bad_spec_def, "bad_spec", bad_spec, CYSTCK_NOARGS, "make Tiny (which fails)")
static int bad_spec(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, CystckType_FromSpec(S, &Tiny_spec, Cystck_NULL));
}

CYSTCK_DEF_METH(newvar_of_def, "newvar_of", newvar_of, CYSTCK_VARARGS, "Cystck_NewVar(type, n)")
static int newvar_of(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object type;
    Cystck_ssize_t n;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "On", &type, &n))
        return -1;
    return Cystck_Return(S, Cystck_NewVar(S, type, n, NULL));
}

CYSTCK_DEF_METH(generic_alloc_of_def, "generic_alloc_of", generic_alloc_of, CYSTCK_VARARGS,
                "CystckType_GenericAlloc(type, n)")
static int generic_alloc_of(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object type;
    Cystck_ssize_t n;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "On", &type, &n))
        return -1;
    return Cystck_Return(S, CystckType_GenericAlloc(S, type, n));
}

CYSTCK_DEF_METH(row_type_def, "row_type", row_type, CYSTCK_NOARGS, "the Row type")
static int row_type(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, Cystck_deref(S, Row_type));
}

/* A variadic helper forwarding its handles to CystckUnicode_FromFormatV. */
static Cystck_Object describe(Cystck_State *S, const char *fmt, ...)
{
    va_list va;
    Cystck_Object r;
    va_start(va, fmt);
    r = CystckUnicode_FromFormatV(S, fmt, va);
    va_end(va);
    return r;
}

CYSTCK_DEF_METH(describe_def, "describe", describe_fn, CYSTCK_VARARGS, "describe(a, b): '%S|%R|%d' of a, b, 7")
static int describe_fn(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        CystckErr_SetString(S, CystckExc_TypeError, "describe() takes 2 arguments");
        return -1;
    }
    return Cystck_Return(S, describe(S, "%S|%R|%d", args[0], args[1], 7));
}

static CystckDef *module_defines[] = {&bad_spec_def, &newvar_of_def, &generic_alloc_of_def, &row_type_def, &describe_def, NULL};
static CystckModuleDef module_def = {"rt_varobj", "Variable-size Cystck types.", 0, module_defines};

CYSTCK_MODINIT(rt_varobj)
{
    Cystck_Object m = CystckModule_Create(S, &module_def);
    Cystck_Object t = CystckType_FromSpec(S, &Row_spec, Cystck_NULL);
    if (Cystck_IsNull(m) || Cystck_IsNull(t) || CystckModule_AddType(S, m, t) < 0 ||
        (Row_type = Cystck_ref(S, t)) == NULL)
        return -1;
    return Cystck_Return(S, m);
}
