/* A test extension exercising the Cystck runtime: calling conventions, the
 * return stack, scopes, references, fields and GC, native memory, errors. */
#include "Cystck.h"

/* ---- calling conventions and the return stack ---- */

CYSTCK_DEF_METH(noargs_def, "noargs", noargs, CYSTCK_NOARGS, "return None")
static int noargs(Cystck_State *S, Cystck_Object self)
{
    (void)S; (void)self;
    return 0;
}

CYSTCK_DEF_METH(identity_def, "identity", identity, CYSTCK_O, "return the argument")
static int identity(Cystck_State *S, Cystck_Object self, Cystck_Object arg)
{
    (void)self;
    return Cystck_Return(S, arg);
}

/* One implementation under a second name. */
CYSTCK_DEF_METH(same_def, "same", identity, CYSTCK_O, "identity under another name")

/* An implementation with external linkage, in rt_extern.c. */
CYSTCK_DEF_METH_EXTERN(twice_def, "twice", rt_extern_twice, CYSTCK_O, "arg + arg")

CYSTCK_DEF_METH(add_def, "add", add, CYSTCK_VARARGS, "add(a, b) for two C longs")
static int add(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    long a, b;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "ll:add", &a, &b))
        return -1;
    return Cystck_Return(S, CystckLong_FromLong(S, a + b));
}

CYSTCK_DEF_METH(kw_def, "kw", kw, CYSTCK_KEYWORDS, "kw(a, b=2, *, c=3) -> (a, b, c)")
static int kw(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs,
              Cystck_Object kwnames)
{
    static const char *kwlist[] = {"a", "b", "c", NULL};
    Cystck_Object a;
    long b = 2;
    double c = 3.0;
    (void)self;
    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kwnames, "O|l$d:kw", kwlist, &a, &b, &c))
        return -1;
    if (Cystck_Push(S, a) < 0 || Cystck_PushLong(S, b) < 0 || Cystck_PushDouble(S, c) < 0)
        return -1;
    return 3;       /* three pushed values come back as a tuple */
}

/* One call site of the keyword parser given a format and a keyword list
 * (on the C stack) chosen at run time: its site parser must follow. */
CYSTCK_DEF_METH(kw_swapped_def, "kw_swapped", kw_swapped, CYSTCK_KEYWORDS,
                "kw_swapped(swap, x, y): (x, y), the names swapped when swap is true")
static int kw_swapped(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs,
                      Cystck_Object kwnames)
{
    const char *xy[] = {"swap", "x", "y", NULL};
    const char *yx[] = {"swap", "y", "x", NULL};
    int swap = nargs > 0 && CystckObject_IsTrue(S, args[0]) == 1;
    long a, b;
    (void)self;
    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kwnames, swap ? "Oll:swapped" : "Oll:straight",
                                         swap ? yx : xy, &self, &a, &b))
        return -1;
    if (Cystck_PushLong(S, a) < 0 || Cystck_PushLong(S, b) < 0)
        return -1;
    return 2;
}

CYSTCK_DEF_METH(tuple3_def, "tuple3", tuple3, CYSTCK_VARARGS, "a new 3-tuple of the arguments")
static int tuple3(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object t;
    (void)self;
    if (!CystckArg_UnpackTuple(S, args, nargs, "tuple3", 3, 3, &t, &t, &t))
        return -1;
    return Cystck_Return(S, CystckTuple_FromArray(S, args, 3));
}

CYSTCK_DEF_METH(wrong_count_def, "wrong_count", wrong_count, CYSTCK_NOARGS, "a bug: says 1, pushes 0")
static int wrong_count(Cystck_State *S, Cystck_Object self)
{
    (void)S; (void)self;
    return 1;
}

CYSTCK_DEF_METH(raise_value_error_def, "raise_value_error", raise_value_error, CYSTCK_O,
                "raise ValueError(msg)")
static int raise_value_error(Cystck_State *S, Cystck_Object self, Cystck_Object msg)
{
    const char *s = CystckUnicode_AsUTF8(S, msg);
    (void)self;
    if (s == NULL)
        return -1;
    CystckErr_SetString(S, CystckExc_ValueError, s);
    return -1;
}

CYSTCK_DEF_METH(null_handle_def, "null_handle", null_handle, CYSTCK_NOARGS,
                "pass the null handle to API functions: errors, never a crash")
static int null_handle(Cystck_State *S, Cystck_Object self)
{
    Cystck_Object r = CystckObject_GetAttr(S, Cystck_NULL, Cystck_NULL);
    (void)self;
    if (!Cystck_IsNull(r) || !CystckErr_Occurred(S))
        return Cystck_Return(S, Cystck_False);
    CystckErr_Clear(S);
    if (CystckList_Append(S, Cystck_NULL, Cystck_None) != -1 || !CystckErr_Occurred(S))
        return Cystck_Return(S, Cystck_False);
    CystckErr_Clear(S);
    {
        /* A null item after a good one: the half-built tuple is freed. */
        Cystck_Object items[2];
        items[0] = Cystck_None;
        items[1] = Cystck_NULL;
        if (!Cystck_IsNull(CystckTuple_FromArray(S, items, 2)) || !CystckErr_Occurred(S))
            return Cystck_Return(S, Cystck_False);
    }
    CystckErr_Clear(S);
    {
        /* A failed Cystck_New leaves no stale struct pointer behind. */
        void *data = &data;
        if (!Cystck_IsNull(Cystck_New(S, Cystck_NULL, &data)) || data != NULL || !CystckErr_Occurred(S))
            return Cystck_Return(S, Cystck_False);
    }
    CystckErr_Clear(S);
    if (CystckList_GetItemAsLong(S, Cystck_NULL, 0) != -1 || !CystckErr_Occurred(S))
        return Cystck_Return(S, Cystck_False);
    CystckErr_Clear(S);
    if (CystckFloat_AsDouble(S, Cystck_NULL) != -1.0 || !CystckErr_Occurred(S))
        return Cystck_Return(S, Cystck_False);
    /* Leave this last exception set: the caller must see SystemError. */
    return -1;
}

/* ---- calls from C into Python ---- */

CYSTCK_DEF_METH(call_def, "call", call, CYSTCK_VARARGS, "call(f, *args) through the stack")
static int call(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_ssize_t i;
    (void)self;
    if (nargs < 1) {
        CystckErr_SetString(S, CystckExc_TypeError, "call() needs a callable");
        return -1;
    }
    for (i = 0; i < nargs; i++)
        if (Cystck_Push(S, args[i]) < 0)
            return -1;
    return Cystck_Return(S, Cystck_Call(S, nargs - 1));
}

/* A frame of any shape: `handles` owned handles (past the inline slots
 * they go to heap chunks), `pushes` entries (past the inline stack it
 * grows), and a return value that may disagree with what was pushed.
 * Every shape must close through the right path, releasing everything. */
CYSTCK_DEF_METH(frame_shape_def, "frame_shape", frame_shape, CYSTCK_VARARGS,
                "frame_shape(o, handles, pushes, returned): hold o in handles, push it, return returned")
static int frame_shape(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object o;
    long handles, pushes, returned, i;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "Olll", &o, &handles, &pushes, &returned))
        return -1;
    for (i = 0; i < handles; i++)
        if (Cystck_IsNull(Cystck_Dup(S, o)))
            return -1;
    if (Cystck_CheckStack(S, pushes) < 0)
        return -1;
    for (i = 0; i < pushes; i++)
        if (Cystck_Push(S, o) < 0)
            return -1;
    return (int)returned;
}

CYSTCK_DEF_METH(call_kw_def, "call_kw", call_kw, CYSTCK_VARARGS, "call_kw(f, x, y): f(x, key=y)")
static int call_kw(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object f, x, y, names;
    (void)self;
    if (!CystckArg_UnpackTuple(S, args, nargs, "call_kw", 3, 3, &f, &x, &y))
        return -1;
    names = Cystck_BuildValue(S, "(s)", "key");
    if (Cystck_IsNull(names) || Cystck_Push(S, f) < 0 || Cystck_Push(S, x) < 0 || Cystck_Push(S, y) < 0)
        return -1;
    return Cystck_Return(S, Cystck_CallKw(S, 1, names));
}

CYSTCK_DEF_METH(call_method_def, "call_method", call_method, CYSTCK_VARARGS,
                "call_method(o, name, arg): o.name(arg)")
static int call_method(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object o, name, arg;
    (void)self;
    if (!CystckArg_UnpackTuple(S, args, nargs, "call_method", 3, 3, &o, &name, &arg))
        return -1;
    if (Cystck_Push(S, o) < 0 || Cystck_Push(S, arg) < 0)
        return -1;
    return Cystck_Return(S, Cystck_CallMethod(S, name, 1));
}

/* ---- lifetimes: handles die with the call ---- */

CYSTCK_DEF_METH(make_and_discard_def, "make_and_discard", make_and_discard, CYSTCK_VARARGS,
                "make_and_discard(cls, n): create n instances, keep none")
static int make_and_discard(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object cls;
    long i, n;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "Ol", &cls, &n))
        return -1;
    for (i = 0; i < n; i++)
        if (Cystck_IsNull(CystckObject_CallNoArgs(S, cls)))
            return -1;
    return 0;
}

CYSTCK_DEF_METH(churn_def, "churn", churn, CYSTCK_VARARGS,
                "churn(n, scoped): create n floats in one call, with or without scope gates")
static int churn(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    long i, n;
    int scoped;
    double total = 0;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "lp", &n, &scoped))
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope sc;
        Cystck_Object f;
        if (scoped)
            sc = Cystck_OpenScope(S);
        f = CystckFloat_FromDouble(S, (double)i);
        if (Cystck_IsNull(f))
            return -1;
        total += CystckFloat_AsDouble(S, f);
        if (scoped)
            Cystck_CloseScope(S, sc);
    }
    return Cystck_ReturnDouble(S, total);
}

CYSTCK_DEF_METH(scope_keep_def, "scope_keep", scope_keep, CYSTCK_O,
                "scope_keep(n): build str(i) in scopes, keep the last one")
static int scope_keep(Cystck_State *S, Cystck_Object self, Cystck_Object n_h)
{
    long i, n = CystckLong_AsLong(S, n_h);
    Cystck_Object kept = Cystck_None;
    (void)self;
    if (n == -1 && CystckErr_Occurred(S))
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope sc = Cystck_OpenScope(S);
        Cystck_Object s = CystckUnicode_FromFormat(S, "item-%ld", i);
        if (Cystck_IsNull(s))
            return -1;
        kept = Cystck_CloseScopeKeep(S, sc, s);
        if (i + 1 < n)
            Cystck_Drop(S, kept);
    }
    return Cystck_Return(S, kept);
}

CYSTCK_DEF_METH(sum_fast_def, "sum_fast", sum_fast, CYSTCK_O,
                "sum any iterable of numbers through CystckSequence_Fast_GetItemAsDouble")
static int sum_fast(Cystck_State *S, Cystck_Object self, Cystck_Object data)
{
    Cystck_ssize_t i, n;
    double total = 0.0;
    Cystck_Object seq = CystckSequence_Fast(S, data, "sum_fast() needs an iterable");
    (void)self;
    if (Cystck_IsNull(seq))
        return -1;
    n = CystckSequence_Fast_GET_SIZE(S, seq);
    for (i = 0; i < n; i++) {
        double v = CystckSequence_Fast_GetItemAsDouble(S, seq, i);
        if (v == -1.0 && CystckErr_Occurred(S))
            return -1;
        total += v;
    }
    /* One past the end: IndexError, whether seq is a list or a tuple. */
    if (CystckSequence_Fast_GetItemAsDouble(S, seq, n) != -1.0 || !CystckErr_Occurred(S)) {
        CystckErr_SetString(S, CystckExc_AssertionError, "no error past the end");
        return -1;
    }
    if (!CystckErr_ExceptionMatches(S, CystckExc_IndexError))
        return -1;
    CystckErr_Clear(S);
    return Cystck_ReturnDouble(S, total);
}

CYSTCK_DEF_METH(sum_list_def, "sum_list", sum_list, CYSTCK_O, "sum a list of ints, dropping each item")
static int sum_list(Cystck_State *S, Cystck_Object self, Cystck_Object lst)
{
    Cystck_ssize_t i, n;
    long total = 0;
    (void)self;
    if (!CystckList_Check(S, lst)) {
        CystckErr_SetString(S, CystckExc_TypeError, "expected a list");
        return -1;
    }
    n = CystckList_GET_SIZE(S, lst);
    for (i = 0; i < n; i++) {
        Cystck_Object item = CystckList_GET_ITEM(S, lst, i);
        long v = CystckLong_AsLong(S, item);
        if (v == -1 && CystckErr_Occurred(S))
            return -1;
        total += v;
        Cystck_Drop(S, item);
    }
    return Cystck_ReturnLong(S, total);
}

CYSTCK_DEF_METH(sum_dict_def, "sum_dict", sum_dict, CYSTCK_O,
                "sum key + value over a dict of ints with CystckDict_NextInto (no drops)")
static int sum_dict(Cystck_State *S, Cystck_Object self, Cystck_Object d)
{
    Cystck_Object key = Cystck_NULL, value = Cystck_NULL;
    Cystck_ssize_t pos = 0;
    long total = 0;
    (void)self;
    if (!CystckDict_Check(S, d)) {
        CystckErr_SetString(S, CystckExc_TypeError, "expected a dict");
        return -1;
    }
    while (CystckDict_NextInto(S, d, &pos, &key, &value)) {
        Cystck_Object sum = CystckNumber_Add(S, key, value);
        long v = CystckLong_AsLong(S, sum);
        if (v == -1 && CystckErr_Occurred(S))
            return -1;
        total += v;
        Cystck_Drop(S, sum);
    }
    if (!Cystck_IsNull(key) || !Cystck_IsNull(value)) {
        CystckErr_SetString(S, CystckExc_SystemError, "NextInto left handles behind");
        return -1;
    }
    return Cystck_ReturnLong(S, total);
}

CYSTCK_DEF_METH(sum_items_def, "sum_items", sum_items, CYSTCK_O,
                "sum a list or tuple of ints with Cystck*_GetItemInto (one handle, no drops)")
static int sum_items(Cystck_State *S, Cystck_Object self, Cystck_Object seq)
{
    Cystck_Object item = Cystck_NULL;
    Cystck_ssize_t i, n;
    int is_list = CystckList_Check(S, seq);
    long total = 0;
    (void)self;
    if (!is_list && !CystckTuple_Check(S, seq)) {
        CystckErr_SetString(S, CystckExc_TypeError, "expected a list or a tuple");
        return -1;
    }
    n = is_list ? CystckList_GET_SIZE(S, seq) : CystckTuple_GET_SIZE(S, seq);
    for (i = 0; i < n; i++) {
        long v;
        if (is_list)
            CystckList_GetItemInto(S, seq, i, &item);
        else
            CystckTuple_GetItemInto(S, seq, i, &item);
        v = CystckLong_AsLong(S, item);
        if (v == -1 && CystckErr_Occurred(S))
            return -1;
        total += v;
    }
    return Cystck_ReturnLong(S, total);
}

CYSTCK_DEF_METH(waves_def, "waves", waves, CYSTCK_VARARGS,
                "waves(rounds, depth): make `depth` handles, drop them newest first, repeat")
static int waves(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    long rounds, depth, r, i;
    Cystck_Object *hs;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "ll", &rounds, &depth))
        return -1;
    hs = (Cystck_Object *)CystckMem_Malloc(S, sizeof(Cystck_Object) * (size_t)depth);
    if (hs == NULL)
        return -1;
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < depth; i++)
            if (Cystck_IsNull(hs[i] = CystckFloat_FromDouble(S, (double)i))) {
                CystckMem_Free(S, hs);
                return -1;
            }
        for (i = depth - 1; i >= 0; i--)
            Cystck_Drop(S, hs[i]);
    }
    CystckMem_Free(S, hs);
    return Cystck_ReturnLong(S, rounds * depth);
}

CYSTCK_DEF_METH(build_list_def, "build_list", build_list, CYSTCK_O,
                "build_list(n): [0.0, 1.0, ...] with stealing SET_ITEM (no handle growth)")
static int build_list(Cystck_State *S, Cystck_Object self, Cystck_Object n_h)
{
    Cystck_ssize_t i, n = CystckLong_AsSsize_t(S, n_h);
    Cystck_Object lst;
    (void)self;
    if (n < 0)
        return -1;
    lst = CystckList_New(S, n);
    if (Cystck_IsNull(lst))
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Object f = CystckFloat_FromDouble(S, (double)i);
        if (Cystck_IsNull(f))
            return -1;
        CystckList_SET_ITEM(S, lst, i, f);
    }
    return Cystck_Return(S, lst);
}

/* ---- references that outlive the call ---- */

static Cystck_Ref kept_ref;

CYSTCK_DEF_METH(keep_def, "keep", keep, CYSTCK_O, "keep a reference to obj across calls")
static int keep(Cystck_State *S, Cystck_Object self, Cystck_Object obj)
{
    (void)self;
    if (kept_ref != NULL)
        Cystck_unref(S, kept_ref);
    kept_ref = Cystck_ref(S, obj);
    return kept_ref ? 0 : -1;
}

CYSTCK_DEF_METH(get_kept_def, "get_kept", get_kept, CYSTCK_NOARGS, "the kept object, or None")
static int get_kept(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    if (kept_ref == NULL)
        return 0;
    return Cystck_Return(S, Cystck_deref(S, kept_ref));
}

CYSTCK_DEF_METH(release_kept_def, "release_kept", release_kept, CYSTCK_NOARGS, "unref the kept object")
static int release_kept(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    Cystck_unref(S, kept_ref);
    kept_ref = NULL;
    return 0;
}

/* ---- native memory with lifetime policies ---- */

static long released_blocks;

static void count_release(void *p)
{
    (void)p;
    released_blocks++;
}

CYSTCK_DEF_METH(exposed_buffer_def, "exposed_buffer", exposed_buffer, CYSTCK_O,
                "exposed_buffer(n): a memoryview of n bytes that C frees before returning")
static int exposed_buffer(Cystck_State *S, Cystck_Object self, Cystck_Object n_h)
{
    Cystck_ssize_t i, n = CystckLong_AsSsize_t(S, n_h);
    unsigned char *buf;
    Cystck_Object view;
    (void)self;
    if (n < 0)
        return -1;
    buf = (unsigned char *)CystckMem_Malloc(S, (size_t)n);
    if (buf == NULL)
        return -1;
    CystckMem_SetFinalizer(S, buf, count_release);
    for (i = 0; i < n; i++)
        buf[i] = (unsigned char)(i % 251);
    view = CystckMem_AsMemoryView(S, buf, n, 1);
    /* The C side is done with the buffer: with the stock API this free would
     * leave the memoryview reading freed memory. */
    CystckMem_Free(S, buf);
    if (Cystck_IsNull(view))
        return -1;
    if (Cystck_Push(S, view) < 0 || Cystck_PushLong(S, CystckMem_Policies(S, buf)) < 0)
        return -1;
    return 2;
}

CYSTCK_DEF_METH(block_offsets_def, "block_offsets", block_offsets, CYSTCK_O,
                "block_offsets(n): (alignof(max_align_t), [address % that alignment of each block "
                "of 0..n bytes from CystckMem_Malloc, CystckMem_Calloc and CystckMem_Realloc])")
static int block_offsets(Cystck_State *S, Cystck_Object self, Cystck_Object n_h)
{
    const size_t align = _Alignof(max_align_t);
    Cystck_ssize_t size, n = CystckLong_AsSsize_t(S, n_h);
    Cystck_Object offsets = CystckList_New(S, 0);
    void *grown = NULL;
    (void)self;
    if (n < 0 || Cystck_IsNull(offsets))
        return -1;
    for (size = 0; size <= n; size++) {
        void *blocks[3];
        int i;
        blocks[0] = CystckMem_Malloc(S, (size_t)size);
        blocks[1] = CystckMem_Calloc(S, 1, (size_t)size);
        blocks[2] = grown = CystckMem_Realloc(S, grown, (size_t)size);
        for (i = 0; i < 3; i++) {
            if (blocks[i] == NULL)
                return -1;
            if (CystckList_Append(S, offsets, CystckLong_FromLong(S, (long)((uintptr_t)blocks[i] % align))) < 0)
                return -1;
        }
        CystckMem_Free(S, blocks[0]);
        CystckMem_Free(S, blocks[1]);
    }
    CystckMem_Free(S, grown);
    if (Cystck_PushLong(S, (long)align) < 0 || Cystck_Push(S, offsets) < 0)
        return -1;
    return 2;
}

CYSTCK_DEF_METH(released_blocks_def, "released_blocks", released_blocks_fn, CYSTCK_NOARGS,
                "how many native blocks have been released")
static int released_blocks_fn(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_ReturnLong(S, released_blocks);
}

/* ---- a custom type with a field (cyclic GC) ---- */

typedef struct {
    Cystck_Field value;
    long tag;
} Node;
CYSTCK_TYPE_HELPERS(Node)

static Cystck_Ref Node_type;

CYSTCK_DEF_SLOT(Node_new_def, tp_new, Node_new)
static int Node_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                    Cystck_ssize_t nargs, Cystck_Object kw)
{
    static const char *kwlist[] = {"value", "tag", NULL};
    Cystck_Object value = Cystck_None, self;
    long tag = 0;
    Node *data;
    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, "|Ol", kwlist, &value, &tag))
        return -1;
    self = Cystck_New(S, type, (void **)&data);
    if (Cystck_IsNull(self))
        return -1;
    CystckField_Store(S, self, &data->value, value);
    data->tag = tag;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_SLOT(Node_traverse_def, tp_traverse, Node_traverse)
static int Node_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Cystck_VISIT(&((Node *)data)->value);
    return 0;
}

CYSTCK_DEF_GETSET(Node_value_def, "value", Node_get_value, Node_set_value, "the held value", NULL)
static int Node_get_value(Cystck_State *S, Cystck_Object self, void *closure)
{
    Node *data = Node_AsStruct(S, self);
    (void)closure;
    return Cystck_Return(S, CystckField_Load(S, self, data->value));
}
static int Node_set_value(Cystck_State *S, Cystck_Object self, Cystck_Object value, void *closure)
{
    (void)closure;
    if (Cystck_IsNull(value)) {
        CystckErr_SetString(S, CystckExc_AttributeError, "cannot delete value");
        return -1;
    }
    CystckField_Store(S, self, &Node_AsStruct(S, self)->value, value);
    return 0;
}

CYSTCK_DEF_METH(Node_itself_def, "itself", Node_itself, CYSTCK_NOARGS,
                "self, through Cystck_AsStruct and Cystck_FromStruct")
static int Node_itself(Cystck_State *S, Cystck_Object self)
{
    return Cystck_Return(S, Cystck_FromStruct(S, Cystck_AsStruct(S, self)));
}

CYSTCK_DEF_MEMBER(Node_tag_def, "tag", CYSTCK_MEMBER_LONG, Node, tag, 0, "an integer tag")

CYSTCK_DEF_SLOT(Node_add_def, nb_add, Node_add)
static int Node_add(Cystck_State *S, Cystck_Object a, Cystck_Object b)
{
    Node *na, *nb, *nr;
    Cystck_Object type = Cystck_deref(S, Node_type), r;
    if (!CystckObject_TypeCheck(S, a, type) || !CystckObject_TypeCheck(S, b, type))
        return Cystck_Return(S, Cystck_NotImplemented);
    na = Node_AsStruct(S, a);
    nb = Node_AsStruct(S, b);
    r = Cystck_New(S, type, (void **)&nr);
    if (Cystck_IsNull(r))
        return -1;
    nr->tag = na->tag + nb->tag;
    CystckField_Store(S, r, &nr->value, Cystck_None);
    return Cystck_Return(S, r);
}

CYSTCK_DEF_SLOT(Node_repr_def, tp_repr, Node_repr)
static int Node_repr(Cystck_State *S, Cystck_Object self)
{
    return Cystck_Return(S, CystckUnicode_FromFormat(S, "Node(tag=%ld)", Node_AsStruct(S, self)->tag));
}

static CystckDef *Node_defines[] = {
    &Node_new_def, &Node_traverse_def, &Node_value_def, &Node_tag_def, &Node_add_def,
    &Node_itself_def,
    &Node_repr_def, NULL
};

static CystckType_Spec Node_spec = {
    "rt_basic.Node", sizeof(Node), 0, CYSTCK_TPFLAGS_BASETYPE, Node_defines,
    "A node holding one Python value."
};

/* ---- an iterator type: tp_iter from CPython, tp_iternext ours ---- */

typedef struct {
    long next, stop;
} Countdown;
CYSTCK_TYPE_HELPERS(Countdown)

CYSTCK_DEF_SLOT(Countdown_new_def, tp_new, Countdown_new)
static int Countdown_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                         Cystck_ssize_t nargs, Cystck_Object kw)
{
    long n;
    Countdown *data;
    Cystck_Object self;
    if (!CystckArg_NoKeywords(S, "Countdown", kw) ||
        !CystckArg_ParseTuple(S, args, nargs, "l:Countdown", &n))
        return -1;
    self = Cystck_New(S, type, (void **)&data);
    if (Cystck_IsNull(self))
        return -1;
    data->next = n;
    data->stop = 0;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_SELFITER(Countdown_iter_def)

CYSTCK_DEF_SLOT(Countdown_next_def, tp_iternext, Countdown_next)
static int Countdown_next(Cystck_State *S, Cystck_Object self)
{
    Countdown *data = Countdown_AsStruct(S, self);
    if (data->next <= data->stop)
        return -1;                     /* exhausted: no exception set */
    return Cystck_ReturnLong(S, data->next--);
}

CYSTCK_DEF_HASH_NOT_IMPLEMENTED(Countdown_hash_def)

static CystckDef *Countdown_defines[] = {
    &Countdown_new_def, &Countdown_iter_def, &Countdown_next_def, &Countdown_hash_def, NULL
};

static CystckType_Spec Countdown_spec = {
    "rt_basic.Countdown", sizeof(Countdown), 0, 0, Countdown_defines, "Countdown(n): n, n-1, ..., 1"
};

/* ---- module state ---- */

typedef struct { long counter; } ModState;

CYSTCK_DEF_METH(bump_def, "bump", bump, CYSTCK_NOARGS, "increment a counter in the module state")
static int bump(Cystck_State *S, Cystck_Object self)
{
    ModState *st = (ModState *)CystckModule_GetState(S, self);
    if (st == NULL)
        return -1;
    return Cystck_ReturnLong(S, ++st->counter);
}

CYSTCK_DEF_METH(c_value_def, "c_value", c_value, CYSTCK_O,
                "c_value(kind): a C value returned with the Cystck_Return* of that kind")
static int c_value(Cystck_State *S, Cystck_Object self, Cystck_Object kind)
{
    long k = CystckLong_AsLong(S, kind);
    (void)self;
    switch (k) {
    case 0: return Cystck_ReturnLong(S, -7);
    case 1: return Cystck_ReturnSsize(S, PY_SSIZE_T_MAX);
    case 2: return Cystck_ReturnLongLong(S, -(1LL << 62));
    case 3: return Cystck_ReturnDouble(S, 0.25);
    case 4: return Cystck_ReturnBool(S, 1L << 40);   /* a long: narrowed to int it would be 0 */
    case 5: return Cystck_ReturnString(S, "h\xc3\xa9");
    case 6: return Cystck_ReturnStringAndSize(S, "abcdef", 3);
    case 7: return Cystck_ReturnString(S, "\xff");   /* invalid UTF-8: -1 with the decode error */
    default:
        if (k == -1 && CystckErr_Occurred(S))
            return -1;
        CystckErr_SetString(S, CystckExc_ValueError, "unknown kind");
        return -1;
    }
}

CYSTCK_DEF_METH(drop_constants_def, "drop_constants", drop_constants, CYSTCK_O,
                "drop_constants(n): make n handles (past the inline slots for n > 16), "
                "dropping constants between them; returns the list of them")
static int drop_constants(Cystck_State *S, Cystck_Object self, Cystck_Object n_)
{
    long i, n = CystckLong_AsLong(S, n_);
    Cystck_Object list;
    (void)self;
    if (n == -1 && CystckErr_Occurred(S))
        return -1;
    list = CystckList_New(S, 0);
    for (i = 0; i < n && !Cystck_IsNull(list); i++) {
        Cystck_Object item = CystckLong_FromLong(S, i);
        Cystck_Drop(S, Cystck_None);        /* no-op: not this call's to release */
        Cystck_Drop(S, Cystck_True);
        if (Cystck_IsNull(item) || CystckList_Append(S, list, item) < 0)
            return -1;
    }
    return Cystck_Return(S, list);
}

static CystckDef *module_defines[] = {
    &noargs_def, &identity_def, &same_def, &twice_def, &add_def, &kw_def, &kw_swapped_def, &tuple3_def, &wrong_count_def,
    &raise_value_error_def, &null_handle_def, &call_def, &frame_shape_def, &call_kw_def, &call_method_def,
    &make_and_discard_def, &churn_def, &scope_keep_def, &sum_fast_def, &sum_list_def, &sum_dict_def, &sum_items_def, &waves_def, &build_list_def,
    &keep_def, &get_kept_def, &release_kept_def, &exposed_buffer_def, &released_blocks_def,
    &block_offsets_def,
    &bump_def, &c_value_def, &drop_constants_def, NULL
};

static CystckModuleDef module_def = {
    "rt_basic", "Cystck runtime test extension.", sizeof(ModState), module_defines
};

CYSTCK_MODINIT(rt_basic)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Node_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    Node_type = Cystck_ref(S, type);
    if (Node_type == NULL)
        return -1;
    type = CystckType_FromSpec(S, &Countdown_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
