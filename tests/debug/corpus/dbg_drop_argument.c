/* Misuse: Cystck_Drop of an argument handle.
 *
 * Arguments are borrowed from the caller; only handles created by the call
 * may be dropped.  Stock counterpart: Py_DECREF of a borrowed argument, one
 * release too many (stock/stock_double_decref.c).
 *
 * Debug mode: SystemError naming Cystck_Drop, even though the function goes
 * on and returns normally.  Release mode: the drop is a no-op. */
#include "Cystck.h"

CYSTCK_DEF_METH(length_def, "length", length, CYSTCK_O, "length(seq) -> len(seq) (buggy)")
static int length(Cystck_State *S, Cystck_Object self, Cystck_Object seq)
{
    Cystck_ssize_t n = CystckObject_Length(S, seq);
    (void)self;
    Cystck_Drop(S, seq);   /* @drop */
    if (n < 0)
        return -1;
    return Cystck_Return(S, CystckLong_FromSsize_t(S, n));
}

/* The same misuse in a slot that returns a C value (sq_length). */
typedef struct { Cystck_ssize_t n; } Bag;
CYSTCK_TYPE_HELPERS(Bag)

CYSTCK_DEF_SLOT(Bag_new_def, tp_new, Bag_new)
static int Bag_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                   Cystck_ssize_t nargs, Cystck_Object kw)
{
    Bag *bag;
    Cystck_Object self = Cystck_New(S, type, (void **)&bag);
    (void)args; (void)kw;
    if (Cystck_IsNull(self))
        return -1;
    bag->n = nargs;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_SLOT(Bag_len_def, sq_length, Bag_len)
static Cystck_ssize_t Bag_len(Cystck_State *S, Cystck_Object self)
{
    Cystck_ssize_t n = Bag_AsStruct(S, self)->n;
    Cystck_Drop(S, self);   /* @slot_drop */
    return n;
}

static CystckDef *Bag_defines[] = {&Bag_new_def, &Bag_len_def, NULL};
static CystckType_Spec Bag_spec = {
    "dbg_drop_argument.Bag", sizeof(Bag), 0, 0, Bag_defines, "Bag(*items): len() is the item count"
};

static CystckDef *defines[] = {&length_def, NULL};
static CystckModuleDef module_def = {"dbg_drop_argument", NULL, 0, defines};

CYSTCK_MODINIT(dbg_drop_argument)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Bag_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
