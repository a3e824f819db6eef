/*
 * Micro-benchmarks, HPy variant: one source built for both HPy ABIs.
 *
 *   HPY_ABI_CPYTHON   -> module _micro_hpy_cpython   (a regular CPython extension)
 *   HPY_ABI_UNIVERSAL -> module _micro_hpy_universal (loaded by hpy.universal)
 *
 * hpy.devel's build step defines exactly one of the two macros; the module
 * name is derived from it, so both builds can be loaded side by side in one
 * process and nobody has to keep a second name in sync by hand.
 *
 * Written against HPy 0.9's public API the way its documentation recommends:
 * HPyFunc_NOARGS / O / VARARGS / KEYWORDS (the vectorcall-style conventions),
 * HPyArg_ParseKeywords for keywords, a pure HPy type (no PyObject_HEAD) whose
 * type object is kept in an HPyGlobal.  Semantics match bench_stock.c except
 * where HPy's argument parser is more lenient (see README.md).
 */
#include <limits.h>
#include "hpy.h"

#if defined(HPY_ABI_CPYTHON)
#  define MICRO_MODNAME _micro_hpy_cpython
#elif defined(HPY_ABI_UNIVERSAL)
#  define MICRO_MODNAME _micro_hpy_universal
#else
#  error "build bench_hpy.c through hpy.devel with the cpython or universal ABI"
#endif

/* Two-step expansion so the macro's value, not its name, reaches # and ##. */
#define MICRO_STR_(x) #x
#define MICRO_STR(x) MICRO_STR_(x)
#define MICRO_MODINIT(name, def) HPy_MODINIT(name, def)

static int
check_nargs(HPyContext *ctx, const char *msg, size_t nargs, size_t expected)
{
    if (nargs == expected)
        return 0;
    HPyErr_SetString(ctx, ctx->h_TypeError, msg);
    return -1;
}

HPyDef_METH(noargs, "noargs", HPyFunc_NOARGS, .doc = "noargs() -> None")
static HPy
noargs_impl(HPyContext *ctx, HPy self)
{
    return HPy_Dup(ctx, ctx->h_None);
}

HPyDef_METH(identity, "identity", HPyFunc_O, .doc = "identity(o) -> o")
static HPy
identity_impl(HPyContext *ctx, HPy self, HPy o)
{
    return HPy_Dup(ctx, o);
}

HPyDef_METH(long_inc, "long_inc", HPyFunc_O,
            .doc = "long_inc(n) -> n + 1 in C long arithmetic")
static HPy
long_inc_impl(HPyContext *ctx, HPy self, HPy o)
{
    long n = HPyLong_AsLong(ctx, o);
    if (n == -1 && HPyErr_Occurred(ctx))
        return HPy_NULL;
    if (n == LONG_MAX)
        return HPyErr_SetString(ctx, ctx->h_OverflowError,
                                "long_inc() result does not fit in a C long");
    return HPyLong_FromLong(ctx, n + 1);
}

HPyDef_METH(add_doubles, "add_doubles", HPyFunc_VARARGS,
            .doc = "add_doubles(a, b) -> a + b as doubles")
static HPy
add_doubles_impl(HPyContext *ctx, HPy self, const HPy *args, size_t nargs)
{
    if (check_nargs(ctx, "add_doubles() takes exactly 2 arguments", nargs, 2) < 0)
        return HPy_NULL;
    double a = HPyFloat_AsDouble(ctx, args[0]);
    if (a == -1.0 && HPyErr_Occurred(ctx))
        return HPy_NULL;
    double b = HPyFloat_AsDouble(ctx, args[1]);
    if (b == -1.0 && HPyErr_Occurred(ctx))
        return HPy_NULL;
    return HPyFloat_FromDouble(ctx, a + b);
}

HPyDef_METH(kwargs, "kwargs", HPyFunc_KEYWORDS,
            .doc = "kwargs(a, b, c=0, d=0) -> a + b + c + d as C longs")
static HPy
kwargs_impl(HPyContext *ctx, HPy self, const HPy *args, size_t nargs, HPy kwnames)
{
    static const char *kwlist[] = {"a", "b", "c", "d", NULL};
    long a, b, c = 0, d = 0;
    /* "l" creates no handles, so no HPyTracker is needed. */
    if (!HPyArg_ParseKeywords(ctx, NULL, args, nargs, kwnames, "ll|ll:kwargs", kwlist,
                              &a, &b, &c, &d))
        return HPy_NULL;
    long total;
    if (__builtin_add_overflow(a, b, &total) || __builtin_add_overflow(total, c, &total) ||
        __builtin_add_overflow(total, d, &total))
        return HPyErr_SetString(ctx, ctx->h_OverflowError,
                                "kwargs() sum does not fit in a C long");
    return HPyLong_FromLong(ctx, total);
}

HPyDef_METH(tuple3, "tuple3", HPyFunc_VARARGS, .doc = "tuple3(a, b, c) -> (a, b, c)")
static HPy
tuple3_impl(HPyContext *ctx, HPy self, const HPy *args, size_t nargs)
{
    if (check_nargs(ctx, "tuple3() takes exactly 3 arguments", nargs, 3) < 0)
        return HPy_NULL;
    /* HPyTuple_FromArray only reads the array; its parameter just is not
     * declared const in HPy 0.9. */
    return HPyTuple_FromArray(ctx, (HPy *)args, 3);
}

HPyDef_METH(call_callback, "call_callback", HPyFunc_VARARGS,
            .doc = "call_callback(f, x) -> f(x)")
static HPy
call_callback_impl(HPyContext *ctx, HPy self, const HPy *args, size_t nargs)
{
    if (check_nargs(ctx, "call_callback() takes exactly 2 arguments", nargs, 2) < 0)
        return HPy_NULL;
    /* HPy_Call is HPy's vectorcall: no argument tuple is built. */
    return HPy_Call(ctx, args[0], &args[1], 1, HPy_NULL);
}

HPyDef_METH(sum_list, "sum_list", HPyFunc_O,
            .doc = "sum_list(lst) -> sum of a list of ints as a C long")
static HPy
sum_list_impl(HPyContext *ctx, HPy self, HPy lst)
{
    if (!HPyList_Check(ctx, lst))
        return HPyErr_SetString(ctx, ctx->h_TypeError, "sum_list() argument must be a list");
    /* Read once, as in the stock variant: nothing in the loop runs Python
     * code, so the list cannot change size. */
    HPy_ssize_t n = HPy_Length(ctx, lst);
    if (n < 0)
        return HPy_NULL;
    long total = 0;
    for (HPy_ssize_t i = 0; i < n; i++) {
        HPy item = HPy_GetItem_i(ctx, lst, i);
        if (HPy_IsNull(item))
            return HPy_NULL;
        /* HPy 0.9 has no HPyLong_Check; a type check against int is its
         * equivalent (subclasses included). */
        if (!HPy_TypeCheck(ctx, item, ctx->h_LongType)) {
            HPy_Close(ctx, item);
            return HPyErr_SetString(ctx, ctx->h_TypeError, "sum_list() items must be int");
        }
        long v = HPyLong_AsLong(ctx, item);
        HPy_Close(ctx, item);
        if (v == -1 && HPyErr_Occurred(ctx))
            return HPy_NULL;
        if (__builtin_add_overflow(total, v, &total))
            return HPyErr_SetString(ctx, ctx->h_OverflowError,
                                    "sum_list() sum does not fit in a C long");
    }
    return HPyLong_FromLong(ctx, total);
}

/* ------------------------------------------------------------------ */
/* Point(x, y)                                                          */
/* ------------------------------------------------------------------ */

typedef struct {
    double x, y;
} PointObject;

HPyType_HELPERS(PointObject)

/* The type object, for the type checks and allocation in nb_add; HPy's
 * replacement for a static PyTypeObject. */
static HPyGlobal Point_type;

HPyDef_SLOT(Point_new, HPy_tp_new)
static HPy
Point_new_impl(HPyContext *ctx, HPy type, const HPy *args, HPy_ssize_t nargs, HPy kw)
{
    static const char *kwlist[] = {"x", "y", NULL};
    double x, y;
    if (!HPyArg_ParseKeywordsDict(ctx, NULL, args, nargs, kw, "dd:Point", kwlist, &x, &y))
        return HPy_NULL;
    PointObject *p;
    HPy h = HPy_New(ctx, type, &p);
    if (HPy_IsNull(h))
        return HPy_NULL;
    p->x = x;
    p->y = y;
    return h;
}

HPyDef_SLOT(Point_add, HPy_nb_add)
static HPy
Point_add_impl(HPyContext *ctx, HPy a, HPy b)
{
    HPy type = HPyGlobal_Load(ctx, Point_type);
    if (!HPy_TypeCheck(ctx, a, type) || !HPy_TypeCheck(ctx, b, type)) {
        HPy_Close(ctx, type);
        return HPy_Dup(ctx, ctx->h_NotImplemented);
    }
    PointObject *pa = PointObject_AsStruct(ctx, a);
    PointObject *pb = PointObject_AsStruct(ctx, b);
    PointObject *r;
    HPy h = HPy_New(ctx, type, &r);
    HPy_Close(ctx, type);
    if (HPy_IsNull(h))
        return HPy_NULL;
    r->x = pa->x + pb->x;
    r->y = pa->y + pb->y;
    return h;
}

/* Get descriptors rather than HPyDef_MEMBER: the benchmark measures a
 * getter call. */
HPyDef_GET(Point_x, "x", .doc = "the x coordinate")
static HPy
Point_x_get(HPyContext *ctx, HPy self, void *closure)
{
    return HPyFloat_FromDouble(ctx, PointObject_AsStruct(ctx, self)->x);
}

HPyDef_GET(Point_y, "y", .doc = "the y coordinate")
static HPy
Point_y_get(HPyContext *ctx, HPy self, void *closure)
{
    return HPyFloat_FromDouble(ctx, PointObject_AsStruct(ctx, self)->y);
}

static HPyDef *Point_defines[] = {&Point_new, &Point_add, &Point_x, &Point_y, NULL};

static HPyType_Spec Point_spec = {
    .name = MICRO_STR(MICRO_MODNAME) ".Point",
    .doc = "Point(x, y): two doubles; + adds them component-wise.",
    .basicsize = sizeof(PointObject),
    /* Final, like the stock variant's Point, so the type checks above
     * mean "is a Point" exactly. */
    .flags = HPy_TPFLAGS_DEFAULT,
    .builtin_shape = SHAPE(PointObject),
    .defines = Point_defines,
};

/* ------------------------------------------------------------------ */
/* Module                                                               */
/* ------------------------------------------------------------------ */

HPyDef_SLOT(micro_exec, HPy_mod_exec)
static int
micro_exec_impl(HPyContext *ctx, HPy module)
{
    HPy type = HPyType_FromSpec(ctx, &Point_spec, NULL);
    if (HPy_IsNull(type))
        return -1;
    HPyGlobal_Store(ctx, &Point_type, type);
    int rc = HPy_SetAttr_s(ctx, module, "Point", type);
    HPy_Close(ctx, type);
    return rc;
}

static HPyDef *module_defines[] = {
    &noargs, &identity, &long_inc, &add_doubles, &kwargs, &tuple3,
    &call_callback, &sum_list, &micro_exec, NULL
};

static HPyGlobal *module_globals[] = {&Point_type, NULL};

static HPyModuleDef moduledef = {
    .doc = "Cystck micro-benchmarks: HPy variant (" MICRO_STR(MICRO_MODNAME) ").",
    .size = 0,
    .defines = module_defines,
    .globals = module_globals,
};

MICRO_MODINIT(MICRO_MODNAME, moduledef)
