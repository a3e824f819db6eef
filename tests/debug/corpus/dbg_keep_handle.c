/* Misuse: a handle kept in a static variable and used in a later call.
 *
 * A handle lives only as long as the call that created it; an object kept
 * across calls needs a Cystck_Ref.  Stock counterpart: a borrowed reference
 * (PyList_GET_ITEM) kept after its owner died (stock/stock_borrowed.c).
 *
 * Debug mode: the API function that gets the stale handle raises SystemError
 * naming the call that created it and the line that used it.  Release mode
 * reads whatever the dead C stack slot holds. */
#include "Cystck.h"

static Cystck_Object kept;

CYSTCK_DEF_METH(keep_first_def, "keep_first", keep_first, CYSTCK_O,
                "keep_first(l): remember l[0] (buggy: keeps a handle)")
static int keep_first(Cystck_State *S, Cystck_Object self, Cystck_Object l)
{
    (void)self;
    kept = CystckList_GetItem(S, l, 0);
    return Cystck_IsNull(kept) ? -1 : 0;
}

CYSTCK_DEF_METH(keep_last_def, "keep_last", keep_last, CYSTCK_O,
                "keep_last(l): remember l[-1], creating a handle per item (buggy)")
static int keep_last(Cystck_State *S, Cystck_Object self, Cystck_Object l)
{
    Cystck_ssize_t i, n = CystckList_Size(S, l);
    (void)self;
    if (n < 0)
        return -1;
    for (i = 0; i < n; i++) {
        kept = CystckList_GetItem(S, l, i);
        if (Cystck_IsNull(kept))
            return -1;
    }
    return 0;
}

CYSTCK_DEF_METH(keep_after_pushes_def, "keep_after_pushes", keep_after_pushes, CYSTCK_O,
                "keep_after_pushes(l): push 0..9, then remember l[0] (buggy: keeps a handle)")
static int keep_after_pushes(Cystck_State *S, Cystck_Object self, Cystck_Object l)
{
    /* Ten pushes fill the inline return stack, so the frame goes slow (and,
     * in debug mode, checked) on the stack before it makes its first handle:
     * that handle must still go to the debug record's slots. */
    int i;
    (void)self;
    for (i = 0; i < 10; i++)
        if (Cystck_PushLong(S, i) < 0)
            return -1;
    kept = CystckList_GetItem(S, l, 0);
    return Cystck_IsNull(kept) ? -1 : 10;
}

/* A plain type (fixed size, no GC): Cystck_New makes its instances inline,
 * and in a release-mode runtime their handles without debug mode's test
 * (_Cystck_NewInstance); debug mode must still see them. */
typedef struct { long n; } Box;
static CystckType_Spec Box_spec = {"dbg_keep_handle.Box", sizeof(Box), 0, 0, NULL, "a plain type"};
static Cystck_Ref Box_type;

CYSTCK_DEF_METH(keep_new_def, "keep_new", keep_new, CYSTCK_O,
                "keep_new(l): remember a new Box (buggy: keeps a handle)")
static int keep_new(Cystck_State *S, Cystck_Object self, Cystck_Object l)
{
    Cystck_Object type = Cystck_deref(S, Box_type);
    Box *b;
    (void)self;
    (void)l;
    if (Cystck_IsNull(type))
        return -1;
    kept = Cystck_New(S, type, (void **)&b);   /* the frame's first handle */
    if (Cystck_IsNull(kept))
        return -1;
    b->n = 1;
    return 0;
}

CYSTCK_DEF_METH(negate_kept_def, "negate_kept", negate_kept, CYSTCK_NOARGS,
                "-x for the remembered x")
static int negate_kept(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, CystckNumber_Negative(S, kept));   /* @use */
}

static CystckDef *defines[] = {&keep_first_def, &keep_last_def, &keep_after_pushes_def,
                               &keep_new_def, &negate_kept_def, NULL};
static CystckModuleDef module_def = {"dbg_keep_handle", NULL, 0, defines};

CYSTCK_MODINIT(dbg_keep_handle)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Box_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddObject(S, m, "Box", type) < 0)
        return -1;
    Box_type = Cystck_ref(S, type);
    if (Box_type == NULL)
        return -1;
    return Cystck_Return(S, m);
}
