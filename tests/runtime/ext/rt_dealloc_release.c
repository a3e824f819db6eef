/* A test extension for deallocators in two parts (CYSTCK_DEF_DEALLOC):
 * the part calling the API runs in tp_dealloc, where a stock deallocator
 * calls it, for Python subclasses' instances too, then the destructor.
 * tests/runtime/test_dealloc_release.py. */
#include "Cystck.h"

/* Destructors run (native releases). */
static long destroyed;

/* A Note appends its tag to its log when it dies; itself if `keep` (the
 * object comes back to life); nothing but an error if the tag is None. */
typedef struct {
    Cystck_Field log;
    Cystck_Field tag;
    int keep;
} Note;
CYSTCK_TYPE_HELPERS(Note)

CYSTCK_DEF_SLOT(Note_init_def, tp_init, Note_init)
static int Note_init(Cystck_State *S, Cystck_Object self, const Cystck_Object *args,
                     Cystck_ssize_t nargs, Cystck_Object kw)
{
    static const char *kwlist[] = {"log", "tag", "keep", NULL};
    Cystck_Object log, tag;
    int keep = 0;
    Note *d = Note_AsStruct(S, self);
    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, "O!O|p", kwlist, CystckList_Type, &log,
                                         &tag, &keep))
        return -1;
    CystckField_Store(S, self, &d->log, log);
    CystckField_Store(S, self, &d->tag, tag);
    d->keep = keep;
    return 0;
}

CYSTCK_DEF_SLOT(Note_traverse_def, tp_traverse, Note_traverse)
static int Note_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Cystck_VISIT(&((Note *)data)->log);
    Cystck_VISIT(&((Note *)data)->tag);
    return 0;
}

CYSTCK_DEF_DEALLOC(Note_dealloc_def, Note_release, Note_destroy)
static void Note_release(Cystck_State *S, Cystck_Object self)
{
    Note *d = Note_AsStruct(S, self);
    Cystck_Object log = CystckField_Load(S, self, d->log);
    Cystck_Object tag = CystckField_Load(S, self, d->tag);
    if (Cystck_IsNull(log))
        return;                     /* never initialised, or cleared by the collector */
    if (Cystck_Is(S, tag, Cystck_None)) {
        CystckErr_SetString(S, CystckExc_ValueError, "a Note tagged None");
        return;
    }
    if (d->keep) {
        d->keep = 0;                /* back to life once */
        CystckList_Append(S, log, self);
    } else {
        CystckList_Append(S, log, tag);
    }
}

static void Note_destroy(void *data)
{
    (void)data;
    destroyed++;
}

static CystckDef *Note_defines[] = {&Note_init_def, &Note_traverse_def, &Note_dealloc_def, NULL};
static CystckType_Spec Note_spec = {
    "rt_dealloc_release.Note", sizeof(Note), 0, CYSTCK_TPFLAGS_BASETYPE, Note_defines,
    "Note(log, tag, keep=False): appends tag (or itself, once) to log when it dies"
};

/* A Count has no fields (not a GC type) and no destructor: its
 * deallocator only calls the API, counting its deaths in a module global. */
static long counted;

CYSTCK_DEF_DEALLOC_API(Count_dealloc_def, Count_release)
static void Count_release(Cystck_State *S, Cystck_Object self)
{
    (void)S;
    (void)self;
    counted++;
}

static CystckDef *Count_defines[] = {&Count_dealloc_def, NULL};
static CystckType_Spec Count_spec = {
    "rt_dealloc_release.Count", 0, 0, CYSTCK_TPFLAGS_BASETYPE, Count_defines, "counts its deaths"
};

CYSTCK_DEF_METH(counts_def, "counts", counts, CYSTCK_NOARGS, "(Count deaths, Note destructors run)")
static int counts(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, CystckTuple_Pack(S, 2, CystckLong_FromLong(S, counted),
                                             CystckLong_FromLong(S, destroyed)));
}

static CystckDef *module_defines[] = {&counts_def, NULL};
static CystckModuleDef module_def = {
    "rt_dealloc_release", "Cystck deallocators in two parts test extension.", 0, module_defines
};

CYSTCK_MODINIT(rt_dealloc_release)
{
    Cystck_Object m = CystckModule_Create(S, &module_def);
    Cystck_Object note, count;
    if (Cystck_IsNull(m))
        return -1;
    note = CystckType_FromSpec(S, &Note_spec, Cystck_NULL);
    if (Cystck_IsNull(note) || CystckModule_AddType(S, m, note) < 0)
        return -1;
    count = CystckType_FromSpec(S, &Count_spec, Cystck_NULL);
    if (Cystck_IsNull(count) || CystckModule_AddType(S, m, count) < 0)
        return -1;
    return Cystck_Return(S, m);
}
