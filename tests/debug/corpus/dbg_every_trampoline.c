/* Misuse: a handle used after Cystck_Drop, once in each kind of entry point
 * (method conventions, getter and setter, slots of every signature).
 *
 * Debug mode reaches a function through its trampoline's debug twin, which
 * the runtime puts into the method, getset and slot tables when it makes the
 * module or type (include/cystck/defs.h, _CYSTCK_TWINS).  A kind whose twin
 * is not used runs unchecked, and its misuse goes unreported.  The misuse is
 * in one helper that every entry point calls, which the compiler inlines
 * into some callers and not others; the location must be the helper's line.
 *
 * Debug mode: SystemError naming CystckObject_IsTrue, at the helper's line,
 * from every entry point.  Release mode: the released slot still holds the
 * argument (alive in the caller), so each call returns normally. */
#include "Cystck.h"

/* The handle h is used after its release; x stays alive in the caller. */
static int stale_truth(Cystck_State *S, Cystck_Object x)
{
    Cystck_Object h = Cystck_Dup(S, x);
    if (Cystck_IsNull(h))
        return -1;
    Cystck_Drop(S, h);
    return CystckObject_IsTrue(S, h);   /* @use */
}

/* The push count of a function returning bool(x) through the misuse. */
static int return_truth(Cystck_State *S, Cystck_Object x)
{
    int t = stale_truth(S, x);
    if (t < 0)
        return -1;
    return Cystck_Return(S, CystckBool_FromLong(S, t));
}

CYSTCK_DEF_METH(noargs_def, "noargs", noargs, CYSTCK_NOARGS, "noargs() -> bool(module)")
static int noargs(Cystck_State *S, Cystck_Object self)
{
    return return_truth(S, self);
}

CYSTCK_DEF_METH(one_def, "one", one, CYSTCK_O, "one(x) -> bool(x)")
static int one(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    (void)self;
    return return_truth(S, x);
}

CYSTCK_DEF_METH(varargs_def, "varargs", varargs, CYSTCK_VARARGS, "varargs(x) -> bool(x)")
static int varargs(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    (void)self;
    if (nargs != 1) {
        CystckErr_SetString(S, CystckExc_TypeError, "varargs takes 1 argument");
        return -1;
    }
    return return_truth(S, args[0]);
}

CYSTCK_DEF_METH(keywords_def, "keywords", keywords, CYSTCK_KEYWORDS, "keywords(x) -> bool(x)")
static int keywords(Cystck_State *S, Cystck_Object self, const Cystck_Object *args,
                    Cystck_ssize_t nargs, Cystck_Object kw)
{
    (void)self;
    if (nargs != 1 || !Cystck_IsNull(kw)) {
        CystckErr_SetString(S, CystckExc_TypeError, "keywords takes 1 positional argument");
        return -1;
    }
    return return_truth(S, args[0]);
}

/* A type with one slot of each trampoline kind. */
typedef struct { long n; } Box;
CYSTCK_TYPE_HELPERS(Box)

CYSTCK_DEF_SLOT(Box_new_def, tp_new, Box_new)
static int Box_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                   Cystck_ssize_t nargs, Cystck_Object kw)
{
    Box *box;
    Cystck_Object self;
    (void)kw;
    if (nargs > 0 && stale_truth(S, args[0]) < 0)
        return -1;
    self = Cystck_New(S, type, (void **)&box);
    if (Cystck_IsNull(self))
        return -1;
    box->n = nargs;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_SLOT(Box_init_def, tp_init, Box_init)
static int Box_init(Cystck_State *S, Cystck_Object self, const Cystck_Object *args,
                    Cystck_ssize_t nargs, Cystck_Object kw)
{
    (void)args; (void)nargs; (void)kw;
    return stale_truth(S, self) < 0 ? -1 : 0;
}

CYSTCK_DEF_SLOT(Box_call_def, tp_call, Box_call)
static int Box_call(Cystck_State *S, Cystck_Object self, const Cystck_Object *args,
                    Cystck_ssize_t nargs, Cystck_Object kw)
{
    (void)args; (void)nargs; (void)kw;
    return return_truth(S, self);
}

CYSTCK_DEF_SLOT(Box_repr_def, tp_repr, Box_repr)
static int Box_repr(Cystck_State *S, Cystck_Object self)
{
    if (stale_truth(S, self) < 0)
        return -1;
    return Cystck_Return(S, CystckUnicode_FromString(S, "Box"));
}

CYSTCK_DEF_SLOT(Box_iternext_def, tp_iternext, Box_iternext)
static int Box_iternext(Cystck_State *S, Cystck_Object self)
{
    return return_truth(S, self);
}

CYSTCK_DEF_SLOT(Box_add_def, nb_add, Box_add)
static int Box_add(Cystck_State *S, Cystck_Object a, Cystck_Object b)
{
    (void)a;
    return return_truth(S, b);
}

CYSTCK_DEF_SLOT(Box_pow_def, nb_power, Box_pow)
static int Box_pow(Cystck_State *S, Cystck_Object a, Cystck_Object b, Cystck_Object c)
{
    (void)a; (void)c;
    return return_truth(S, b);
}

CYSTCK_DEF_SLOT(Box_richcompare_def, tp_richcompare, Box_richcompare)
static int Box_richcompare(Cystck_State *S, Cystck_Object a, Cystck_Object b, int op)
{
    (void)a; (void)op;
    return return_truth(S, b);
}

CYSTCK_DEF_SLOT(Box_hash_def, tp_hash, Box_hash)
static Cystck_hash_t Box_hash(Cystck_State *S, Cystck_Object self)
{
    return stale_truth(S, self) < 0 ? -1 : 7;
}

CYSTCK_DEF_SLOT(Box_len_def, sq_length, Box_len)
static Cystck_ssize_t Box_len(Cystck_State *S, Cystck_Object self)
{
    return stale_truth(S, self) < 0 ? -1 : 3;
}

CYSTCK_DEF_SLOT(Box_bool_def, nb_bool, Box_bool)
static int Box_bool(Cystck_State *S, Cystck_Object self)
{
    Cystck_Object n = CystckLong_FromLong(S, 1);   /* not self: bool(self) would come back here */
    (void)self;
    if (Cystck_IsNull(n))
        return -1;
    return stale_truth(S, n);
}

CYSTCK_DEF_SLOT(Box_item_def, sq_item, Box_item)
static int Box_item(Cystck_State *S, Cystck_Object self, Cystck_ssize_t i)
{
    (void)i;
    return return_truth(S, self);
}

CYSTCK_DEF_SLOT(Box_ass_item_def, sq_ass_item, Box_ass_item)
static int Box_ass_item(Cystck_State *S, Cystck_Object self, Cystck_ssize_t i, Cystck_Object v)
{
    (void)i; (void)v;
    return stale_truth(S, self) < 0 ? -1 : 0;
}

CYSTCK_DEF_SLOT(Box_ass_subscript_def, mp_ass_subscript, Box_ass_subscript)
static int Box_ass_subscript(Cystck_State *S, Cystck_Object self, Cystck_Object k, Cystck_Object v)
{
    (void)self; (void)v;
    return stale_truth(S, k) < 0 ? -1 : 0;
}

CYSTCK_DEF_SLOT(Box_contains_def, sq_contains, Box_contains)
static int Box_contains(Cystck_State *S, Cystck_Object self, Cystck_Object v)
{
    (void)self;
    return stale_truth(S, v);
}

static int Box_get_value(Cystck_State *S, Cystck_Object self, void *closure)
{
    (void)closure;
    return return_truth(S, self);
}
static int Box_set_value(Cystck_State *S, Cystck_Object self, Cystck_Object value, void *closure)
{
    (void)self; (void)closure;
    return stale_truth(S, value) < 0 ? -1 : 0;
}
CYSTCK_DEF_GETSET(Box_value_def, "value", Box_get_value, Box_set_value, "bool of itself", NULL)

static CystckDef *Box_defines[] = {
    &Box_new_def, &Box_init_def, &Box_call_def, &Box_repr_def, &Box_iternext_def, &Box_add_def,
    &Box_pow_def, &Box_richcompare_def, &Box_hash_def, &Box_len_def, &Box_bool_def, &Box_item_def,
    &Box_ass_item_def, &Box_ass_subscript_def, &Box_contains_def, &Box_value_def, NULL
};
static CystckType_Spec Box_spec = {
    "dbg_every_trampoline.Box", sizeof(Box), 0, 0, Box_defines, "Box(x): every slot misuses a handle"
};

static CystckDef *defines[] = {&noargs_def, &one_def, &varargs_def, &keywords_def, NULL};
static CystckModuleDef module_def = {"dbg_every_trampoline", NULL, 0, defines};

CYSTCK_MODINIT(dbg_every_trampoline)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Box_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
