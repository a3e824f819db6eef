/* A test extension for finalizers (CYSTCK_DEF_SLOT tp_finalize, PEP 442):
 * they run once, with a state, before the object dies.
 * tests/runtime/test_finalize_slot.py compares them with a Python class's
 * __del__, CPython's own finalizer. */
#include "Cystck.h"

/* A Sink appends to its log, when it dies, its tag; itself if `keep`
 * (the object comes back to life); nothing but an error if the tag is
 * None.  Its fields make it a GC type. */
typedef struct {
    Cystck_Field log;
    Cystck_Field tag;
    int keep;
} Sink;
CYSTCK_TYPE_HELPERS(Sink)

CYSTCK_DEF_SLOT(Sink_init_def, tp_init, Sink_init)
static int Sink_init(Cystck_State *S, Cystck_Object self, const Cystck_Object *args,
                     Cystck_ssize_t nargs, Cystck_Object kw)
{
    static const char *kwlist[] = {"log", "tag", "keep", NULL};
    Cystck_Object log, tag;
    int keep = 0;
    Sink *d = Sink_AsStruct(S, self);
    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, "O!O|p", kwlist, CystckList_Type, &log,
                                         &tag, &keep))
        return -1;
    CystckField_Store(S, self, &d->log, log);
    CystckField_Store(S, self, &d->tag, tag);
    d->keep = keep;
    return 0;
}

CYSTCK_DEF_SLOT(Sink_traverse_def, tp_traverse, Sink_traverse)
static int Sink_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Cystck_VISIT(&((Sink *)data)->log);
    Cystck_VISIT(&((Sink *)data)->tag);
    return 0;
}

CYSTCK_DEF_SLOT(Sink_finalize_def, tp_finalize, Sink_finalize)
static void Sink_finalize(Cystck_State *S, Cystck_Object self)
{
    Sink *d = Sink_AsStruct(S, self);
    Cystck_Object log = CystckField_Load(S, self, d->log);
    Cystck_Object tag = CystckField_Load(S, self, d->tag);
    if (Cystck_IsNull(log))
        return;                     /* never initialised */
    if (Cystck_Is(S, tag, Cystck_None)) {
        CystckErr_SetString(S, CystckExc_ValueError, "a Sink tagged None");
        return;
    }
    CystckList_Append(S, log, d->keep ? self : tag);
}

static CystckDef *Sink_defines[] = {&Sink_init_def, &Sink_traverse_def, &Sink_finalize_def, NULL};
static CystckType_Spec Sink_spec = {
    "rt_finalize.Sink", sizeof(Sink), 0, CYSTCK_TPFLAGS_BASETYPE, Sink_defines,
    "Sink(log, tag, keep=False): appends tag (or itself) to log when it dies"
};

/* A Tally has no fields (not a GC type, the runtime's plain dealloc): its
 * finalizer counts its deaths. */
static long tallies_finalized;

CYSTCK_DEF_SLOT(Tally_finalize_def, tp_finalize, Tally_finalize)
static void Tally_finalize(Cystck_State *S, Cystck_Object self)
{
    (void)S;
    (void)self;
    tallies_finalized++;
}

static CystckDef *Tally_defines[] = {&Tally_finalize_def, NULL};
static CystckType_Spec Tally_spec = {
    "rt_finalize.Tally", 0, 0, CYSTCK_TPFLAGS_BASETYPE, Tally_defines, "counts its deaths"
};

CYSTCK_DEF_METH(tallies_def, "tallies_finalized", tallies, CYSTCK_NOARGS, "Tally finalizers run")
static int tallies(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, CystckLong_FromLong(S, tallies_finalized));
}

static CystckDef *module_defines[] = {&tallies_def, NULL};
static CystckModuleDef module_def = {
    "rt_finalize", "Cystck finalizers test extension.", 0, module_defines
};

CYSTCK_MODINIT(rt_finalize)
{
    Cystck_Object m = CystckModule_Create(S, &module_def);
    Cystck_Object sink, tally;
    if (Cystck_IsNull(m))
        return -1;
    sink = CystckType_FromSpec(S, &Sink_spec, Cystck_NULL);
    if (Cystck_IsNull(sink) || CystckModule_AddType(S, m, sink) < 0)
        return -1;
    tally = CystckType_FromSpec(S, &Tally_spec, Cystck_NULL);
    if (Cystck_IsNull(tally) || CystckModule_AddType(S, m, tally) < 0)
        return -1;
    return Cystck_Return(S, m);
}
