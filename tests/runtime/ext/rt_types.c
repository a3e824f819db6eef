/* A test extension for the life of Cystck types and instances: the order of
 * destructor and field release, instantiation, and the module of a type.
 * tests/runtime/ext/st_types.c is its stock counterpart where CPython
 * defines the behaviour. */
#include "Cystck.h"

/* ---- a destructor that walks a native structure shared by live instances ----
 *
 * A Twig keeps its parent alive through a field and sits in the parent's
 * native list of children, which its siblings share.  The parent's struct
 * is valid as long as the field holds the parent, so the destructor reads
 * the field to decide whether to leave that list.  A Twig only refers to
 * Twigs made before it, so it is never part of a cycle. */

typedef struct Twig {
    Cystck_Field parent;
    struct Twig *parent_data;                  /* the parent's struct */
    struct Twig *first_child, *next_sibling;   /* live children, newest first */
    long value;
} Twig;
CYSTCK_TYPE_HELPERS(Twig)

static long twigs_unlinked;

CYSTCK_DEF_SLOT(Twig_new_def, tp_new, Twig_new)
static int Twig_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                    Cystck_ssize_t nargs, Cystck_Object kw)
{
    static const char *kwlist[] = {"value", "parent", NULL};
    Cystck_Object parent = Cystck_None, self;
    long value;
    Twig *t;
    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, "l|O", kwlist, &value, &parent))
        return -1;
    if (!Cystck_Is(S, parent, Cystck_None) && !CystckObject_TypeCheck(S, parent, type)) {
        CystckErr_SetString(S, CystckExc_TypeError, "the parent must be a Twig");
        return -1;
    }
    self = Cystck_New(S, type, (void **)&t);
    if (Cystck_IsNull(self))
        return -1;
    t->value = value;
    if (!Cystck_Is(S, parent, Cystck_None)) {
        CystckField_Store(S, self, &t->parent, parent);
        t->parent_data = Twig_AsStruct(S, parent);
        t->next_sibling = t->parent_data->first_child;
        t->parent_data->first_child = t;
    }
    return Cystck_Return(S, self);
}

CYSTCK_DEF_SLOT(Twig_traverse_def, tp_traverse, Twig_traverse)
static int Twig_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Cystck_VISIT(&((Twig *)data)->parent);
    return 0;
}

CYSTCK_DEF_DESTROY(Twig_destroy_def, Twig_destroy)
static void Twig_destroy(void *data)
{
    Twig *t = (Twig *)data, **link;
    if (CystckField_IsNull(t->parent))
        return;                                 /* a root */
    for (link = &t->parent_data->first_child; *link != NULL; link = &(*link)->next_sibling) {
        if (*link == t) {
            *link = t->next_sibling;
            twigs_unlinked++;
            return;
        }
    }
}

CYSTCK_DEF_METH(Twig_children_def, "children", Twig_children, CYSTCK_NOARGS,
                "the values of the live children, newest first")
static int Twig_children(Cystck_State *S, Cystck_Object self)
{
    Cystck_Object values = CystckList_New(S, 0);
    Twig *c;
    if (Cystck_IsNull(values))
        return -1;
    for (c = Twig_AsStruct(S, self)->first_child; c != NULL; c = c->next_sibling)
        if (CystckList_Append(S, values, CystckLong_FromLong(S, c->value)) < 0)
            return -1;
    return Cystck_Return(S, values);
}

CYSTCK_DEF_MEMBER(Twig_value_def, "value", CYSTCK_MEMBER_LONG, Twig, value, CYSTCK_READONLY,
                  "the value given")

static CystckDef *Twig_defines[] = {
    &Twig_new_def, &Twig_traverse_def, &Twig_destroy_def, &Twig_children_def, &Twig_value_def,
    NULL
};
static CystckType_Spec Twig_spec = {
    "rt_types.Twig", sizeof(Twig), 0, 0, Twig_defines, "Twig(value, parent=None)"
};

CYSTCK_DEF_METH(twigs_unlinked_def, "twigs_unlinked", twigs_unlinked_fn, CYSTCK_NOARGS,
                "how many dying Twigs found their parent alive and left its list")
static int twigs_unlinked_fn(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_ReturnLong(S, twigs_unlinked);
}

/* ---- a destructor that frees the native memory holding the fields ---- */

typedef struct {
    Cystck_Field *items;       /* PyMem_RawCalloc'ed, so PYTHONMALLOC=debug poisons it when freed */
    Cystck_ssize_t n;
} Bag;
CYSTCK_TYPE_HELPERS(Bag)

CYSTCK_DEF_SLOT(Bag_new_def, tp_new, Bag_new)
static int Bag_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                   Cystck_ssize_t nargs, Cystck_Object kw)
{
    Cystck_ssize_t i;
    Bag *b;
    Cystck_Object self;
    if (!CystckArg_NoKeywords(S, "Bag", kw))
        return -1;
    self = Cystck_New(S, type, (void **)&b);
    if (Cystck_IsNull(self))
        return -1;
    b->items = (Cystck_Field *)PyMem_RawCalloc((size_t)nargs + 1, sizeof(Cystck_Field));
    if (b->items == NULL) {
        CystckErr_NoMemory(S);
        return -1;
    }
    for (i = 0; i < nargs; i++)
        CystckField_Store(S, self, &b->items[i], args[i]);
    b->n = nargs;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_SLOT(Bag_traverse_def, tp_traverse, Bag_traverse)
static int Bag_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Bag *b = (Bag *)data;
    Cystck_ssize_t i;
    for (i = 0; i < b->n; i++)
        Cystck_VISIT(&b->items[i]);
    return 0;
}

CYSTCK_DEF_DESTROY(Bag_destroy_def, Bag_destroy)
static void Bag_destroy(void *data)
{
    PyMem_RawFree(((Bag *)data)->items);
}

static CystckDef *Bag_defines[] = {&Bag_new_def, &Bag_traverse_def, &Bag_destroy_def, NULL};
static CystckType_Spec Bag_spec = {
    "rt_types.Bag", sizeof(Bag), 0, 0, Bag_defines, "Bag(*items): holds the items"
};

/* ---- instantiation ---- */

/* No tp_new: like a stock type from a spec, calling it makes an instance
 * with a zeroed struct (object's tp_new). */
typedef struct { long n; } Plain;

CYSTCK_DEF_MEMBER(Plain_n_def, "n", CYSTCK_MEMBER_LONG, Plain, n, 0, "a number")
static CystckDef *Plain_defines[] = {&Plain_n_def, NULL};
static CystckType_Spec Plain_spec = {
    "rt_types.Plain", sizeof(Plain), 0, 0, Plain_defines, "no tp_new"
};

/* Only the extension makes instances (stock: `tp_new = NULL` after
 * PyType_Ready). */
static CystckType_Spec Sealed_spec = {
    "rt_types.Sealed", 0, 0, CYSTCK_TPFLAGS_DISALLOW_INSTANTIATION, NULL, "made by sealed()"
};
static Cystck_Ref Sealed_type;

CYSTCK_DEF_METH(sealed_def, "sealed", sealed, CYSTCK_NOARGS, "a new Sealed")
static int sealed(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, Cystck_New(S, Cystck_deref(S, Sealed_type), NULL));
}

/* ---- the module of a type whose name has no dot ---- */

/* Made before the module, and after it. */
static CystckType_Spec Bare_spec = {"Bare", 0, 0, 0, NULL, "made by bare()"};
static CystckType_Spec Loose_spec = {"Loose", 0, 0, 0, NULL, "a type named without its module"};
static Cystck_Ref Bare_type;

CYSTCK_DEF_METH(bare_def, "bare", bare, CYSTCK_NOARGS, "a new Bare")
static int bare(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, Cystck_New(S, Cystck_deref(S, Bare_type), NULL));
}

/* ---- the module ---- */

static CystckDef *module_defines[] = {&twigs_unlinked_def, &sealed_def, &bare_def, NULL};

static CystckModuleDef module_def = {
    "rt_types", "Cystck types test extension.", 0, module_defines
};

/* Add a new type made from spec to m, and keep it in *ref if not NULL. */
static int add_type(Cystck_State *S, Cystck_Object m, CystckType_Spec *spec, Cystck_Ref *ref)
{
    Cystck_Object type = CystckType_FromSpec(S, spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return ref == NULL || (*ref = Cystck_ref(S, type)) != NULL ? 0 : -1;
}

CYSTCK_MODINIT(rt_types)
{
    Cystck_Object bare_type = CystckType_FromSpec(S, &Bare_spec, Cystck_NULL);
    Cystck_Object m = CystckModule_Create(S, &module_def);
    if (Cystck_IsNull(bare_type) || Cystck_IsNull(m) ||
        CystckModule_AddType(S, m, bare_type) < 0 || (Bare_type = Cystck_ref(S, bare_type)) == NULL)
        return -1;
    if (add_type(S, m, &Twig_spec, NULL) < 0 || add_type(S, m, &Bag_spec, NULL) < 0 ||
        add_type(S, m, &Plain_spec, NULL) < 0 || add_type(S, m, &Sealed_spec, &Sealed_type) < 0 ||
        add_type(S, m, &Loose_spec, NULL) < 0)
        return -1;
    return Cystck_Return(S, m);
}
