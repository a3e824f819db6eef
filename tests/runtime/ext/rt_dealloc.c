/* A test extension for the deallocation of types without fields (not GC):
 * the runtime's plain dealloc (Lean) and the destructor trampoline's fast
 * path (Husk), which test for a finalizer, GC and weak references inline.
 * tests/runtime/test_dealloc_paths.py gives them finalizers after they were
 * made, Python subclasses with and without GC, C subclasses without a
 * deallocator of their own, and counts the references to their types. */
#include "Cystck.h"

typedef struct { double x; } Lean;
CYSTCK_TYPE_HELPERS(Lean)

/* Instances from Cystck_New's inline path (the struct is not zeroed). */
CYSTCK_DEF_SLOT(Lean_new_def, tp_new, Lean_new)
static int Lean_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                    Cystck_ssize_t nargs, Cystck_Object kw)
{
    double x = 0.0;
    Lean *data;
    Cystck_Object self;
    if (!CystckArg_NoKeywords(S, "Lean", kw) || !CystckArg_ParseTuple(S, args, nargs, "|d:Lean", &x))
        return -1;
    self = Cystck_New(S, type, (void **)&data);
    if (Cystck_IsNull(self))
        return -1;
    data->x = x;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_MEMBER(Lean_x_def, "x", CYSTCK_MEMBER_DOUBLE, Lean, x, CYSTCK_READONLY, "the number")
static CystckDef *Lean_defines[] = {&Lean_new_def, &Lean_x_def, NULL};
static CystckType_Spec Lean_spec = {
    "rt_dealloc.Lean", sizeof(Lean), 0, CYSTCK_TPFLAGS_BASETYPE, Lean_defines,
    "Lean(x=0.0): no fields, no destructor"
};

/* A Husk's destructor counts its deaths. */
typedef struct { long n; } Husk;
CYSTCK_TYPE_HELPERS(Husk)
static long husks_destroyed;

CYSTCK_DEF_SLOT(Husk_new_def, tp_new, Husk_new)
static int Husk_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                    Cystck_ssize_t nargs, Cystck_Object kw)
{
    long n = 0;
    Husk *data;
    Cystck_Object self;
    if (!CystckArg_NoKeywords(S, "Husk", kw) || !CystckArg_ParseTuple(S, args, nargs, "|l:Husk", &n))
        return -1;
    self = Cystck_New(S, type, (void **)&data);
    if (Cystck_IsNull(self))
        return -1;
    data->n = n;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_DESTROY(Husk_destroy_def, Husk_destroy)
static void Husk_destroy(void *data)
{
    (void)data;
    husks_destroyed++;
}

CYSTCK_DEF_MEMBER(Husk_n_def, "n", CYSTCK_MEMBER_LONG, Husk, n, CYSTCK_READONLY, "the number")
static CystckDef *Husk_defines[] = {&Husk_new_def, &Husk_destroy_def, &Husk_n_def, NULL};
static CystckType_Spec Husk_spec = {
    "rt_dealloc.Husk", sizeof(Husk), 0, CYSTCK_TPFLAGS_BASETYPE, Husk_defines,
    "Husk(n=0): no fields, a destructor that counts its deaths"
};

/* C subclasses of Husk without a deallocator of their own: like stock C
 * subclasses without tp_dealloc, they inherit Husk's, so its destructor
 * runs for their instances too.  SubHusk needs nothing more; WeakHusk has
 * weak references and an (empty) field, hence GC. */
typedef struct { Husk base; } SubHusk;
static CystckDef *SubHusk_defines[] = {NULL};
static CystckType_Spec SubHusk_spec = {
    "rt_dealloc.SubHusk", sizeof(SubHusk), 0, 0, SubHusk_defines,
    "SubHusk(n=0): a C subclass of Husk without a destructor of its own"
};

typedef struct { Husk base; Cystck_Field kept; Cystck_WeakList weaklist; } WeakHusk;
CYSTCK_DEF_WEAKLIST(WeakHusk_weaklist_def, WeakHusk, weaklist)
CYSTCK_DEF_SLOT(WeakHusk_traverse_def, tp_traverse, WeakHusk_traverse)
static int WeakHusk_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Cystck_VISIT(&((WeakHusk *)data)->kept);
    return 0;
}
static CystckDef *WeakHusk_defines[] = {&WeakHusk_weaklist_def, &WeakHusk_traverse_def, NULL};
static CystckType_Spec WeakHusk_spec = {
    "rt_dealloc.WeakHusk", sizeof(WeakHusk), 0, CYSTCK_TPFLAGS_BASETYPE, WeakHusk_defines,
    "WeakHusk(n=0): a C subclass of Husk with weak references and GC"
};

CYSTCK_DEF_METH(husks_def, "husks_destroyed", husks, CYSTCK_NOARGS, "Husk destructors run")
static int husks(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, CystckLong_FromLong(S, husks_destroyed));
}

static CystckDef *module_defines[] = {&husks_def, NULL};
static CystckModuleDef module_def = {
    "rt_dealloc", "Cystck deallocation test extension.", 0, module_defines
};

CYSTCK_MODINIT(rt_dealloc)
{
    Cystck_Object m = CystckModule_Create(S, &module_def);
    Cystck_Object lean, husk, sub;
    if (Cystck_IsNull(m))
        return -1;
    lean = CystckType_FromSpec(S, &Lean_spec, Cystck_NULL);
    if (Cystck_IsNull(lean) || CystckModule_AddType(S, m, lean) < 0)
        return -1;
    husk = CystckType_FromSpec(S, &Husk_spec, Cystck_NULL);
    if (Cystck_IsNull(husk) || CystckModule_AddType(S, m, husk) < 0)
        return -1;
    sub = CystckType_FromSpec(S, &SubHusk_spec, husk);
    if (Cystck_IsNull(sub) || CystckModule_AddType(S, m, sub) < 0)
        return -1;
    sub = CystckType_FromSpec(S, &WeakHusk_spec, husk);
    if (Cystck_IsNull(sub) || CystckModule_AddType(S, m, sub) < 0)
        return -1;
    return Cystck_Return(S, m);
}
