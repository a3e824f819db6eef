/* Cystck_CallSlotKw: a keyword slot's implementation called from C with a
 * tuple and keywords the caller made; against st_call_slot_kw.c, which
 * calls its stock functions directly. */
#include "Cystck.h"

/* a tp_call: impl(label, size=1) -> (label, size); ValueError for a
 * negative size */
static int impl(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs,
                Cystck_Object kw)
{
    static const char *kwlist[] = {"label", "size", NULL};
    Cystck_Object label;
    Cystck_ssize_t size = 1;
    (void)self;
    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, "O|n:impl", kwlist, &label, &size))
        return -1;
    if (size < 0) {
        CystckErr_SetString(S, CystckExc_ValueError, "size must not be negative");
        return -1;
    }
    return Cystck_Return(S, Cystck_BuildValue(S, "(On)", label, size));
}

/* a tp_init: the same arguments, 0 or -1 */
static int init_impl(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs,
                     Cystck_Object kw)
{
    Cystck_Object r = Cystck_PopResult(S, impl(S, self, args, nargs, kw));
    if (Cystck_IsNull(r))
        return -1;
    Cystck_Drop(S, r);
    return 0;
}

CYSTCK_DEF_METH(call_def, "call", call, CYSTCK_VARARGS, "call(argtuple, kw) -> impl(*argtuple, **kw), None for null")
static int call(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object t, kw;
    if (!CystckArg_ParseTuple(S, args, nargs, "OO", &t, &kw))
        return -1;
    if (Cystck_Is(S, t, Cystck_None))
        t = Cystck_NULL;
    if (Cystck_Is(S, kw, Cystck_None))
        kw = Cystck_NULL;
    return Cystck_Return(S, Cystck_PopResult(S, Cystck_CallSlotKw(S, impl, self, t, NULL, 0, kw)));
}

CYSTCK_DEF_METH(init_def, "init", init, CYSTCK_VARARGS, "init(argtuple, kw) -> None, or init_impl's exception")
static int init(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object t, kw;
    if (!CystckArg_ParseTuple(S, args, nargs, "OO", &t, &kw))
        return -1;
    if (Cystck_Is(S, t, Cystck_None))
        t = Cystck_NULL;
    if (Cystck_Is(S, kw, Cystck_None))
        kw = Cystck_NULL;
    if (Cystck_CallSlotKw(S, init_impl, self, t, NULL, 0, kw) < 0)
        return -1;
    return 0;
}

static CystckDef *module_defines[] = {&call_def, &init_def, NULL};
static CystckModuleDef module_def = {"rt_call_slot_kw", "Cystck_CallSlotKw tests.", 0, module_defines};

CYSTCK_MODINIT(rt_call_slot_kw)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
