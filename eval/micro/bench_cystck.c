/*
 * Micro-benchmarks, Cystck variant (module _micro_cystck).
 *
 * The same functions and semantics as bench_stock.c, written the way a
 * Cystck author would: handles everywhere, results through the return
 * stack, the argument parser for keywords, no reference counting.
 */
#include "Cystck.h"

#include <limits.h>

/* Built twice: as is, and without debug mode (-DCYSTCK_NO_DEBUG_MODE) under
 * another module name, to measure what debug mode costs when it is off. */
#ifdef CYSTCK_NO_DEBUG_MODE
#define MODULE_NAME "_micro_cystck_nodebug"
#else
#define MODULE_NAME "_micro_cystck"
#endif

CYSTCK_DEF_METH(noargs_def, "noargs", noargs, CYSTCK_NOARGS, "noargs() -> None")
static int noargs(Cystck_State *S, Cystck_Object mod)
{
    (void)S; (void)mod;
    return 0;
}

CYSTCK_DEF_METH(identity_def, "identity", identity, CYSTCK_O, "identity(o) -> o")
static int identity(Cystck_State *S, Cystck_Object mod, Cystck_Object o)
{
    (void)mod;
    return Cystck_Return(S, o);
}

CYSTCK_DEF_METH(long_inc_def, "long_inc", long_inc, CYSTCK_O, "long_inc(n) -> n + 1 in C long arithmetic")
static int long_inc(Cystck_State *S, Cystck_Object mod, Cystck_Object o)
{
    long n = CystckLong_AsLong(S, o);
    (void)mod;
    if (n == -1 && CystckErr_Occurred(S))
        return -1;
    if (n == LONG_MAX) {
        CystckErr_SetString(S, CystckExc_OverflowError, "long_inc() result does not fit in a C long");
        return -1;
    }
    return Cystck_ReturnLong(S, n + 1);
}

static inline int check_nargs(Cystck_State *S, const char *func, Cystck_ssize_t nargs, Cystck_ssize_t expected)
{
    if (nargs == expected)
        return 0;
    CystckErr_Format(S, CystckExc_TypeError, "%s() takes exactly %zd arguments (%zd given)",
                     func, expected, nargs);
    return -1;
}

CYSTCK_DEF_METH(add_doubles_def, "add_doubles", add_doubles, CYSTCK_VARARGS,
                "add_doubles(a, b) -> a + b as doubles")
static int add_doubles(Cystck_State *S, Cystck_Object mod, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    double a, b;
    (void)mod;
    if (check_nargs(S, "add_doubles", nargs, 2) < 0)
        return -1;
    a = CystckFloat_AsDouble(S, args[0]);
    if (a == -1.0 && CystckErr_Occurred(S))
        return -1;
    b = CystckFloat_AsDouble(S, args[1]);
    if (b == -1.0 && CystckErr_Occurred(S))
        return -1;
    return Cystck_ReturnDouble(S, a + b);
}

CYSTCK_DEF_METH(kwargs_def, "kwargs", kwargs, CYSTCK_KEYWORDS,
                "kwargs(a, b, c=0, d=0) -> a + b + c + d as C longs")
static int kwargs(Cystck_State *S, Cystck_Object mod, const Cystck_Object *args, Cystck_ssize_t nargs,
                  Cystck_Object kw)
{
    static const char *kwlist[] = {"a", "b", "c", "d", NULL};
    long a, b, c = 0, d = 0, total;
    (void)mod;
    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, "ll|ll:kwargs", kwlist, &a, &b, &c, &d))
        return -1;
    if (__builtin_add_overflow(a, b, &total) || __builtin_add_overflow(total, c, &total) ||
        __builtin_add_overflow(total, d, &total)) {
        CystckErr_SetString(S, CystckExc_OverflowError, "kwargs() sum does not fit in a C long");
        return -1;
    }
    return Cystck_ReturnLong(S, total);
}

/* The same three as typed methods (include/cystck/typed.h): the signature
 * is declared once and the trampoline unboxes and boxes inline.  Cystck
 * only; the harness compares them with the other variants' untyped ones. */
static long typed_long_inc(Cystck_State *S, Cystck_Object mod, long n)
{
    (void)mod;
    if (n == LONG_MAX) {
        CystckErr_SetString(S, CystckExc_OverflowError, "long_inc() result does not fit in a C long");
        return -1;
    }
    return n + 1;
}
CYSTCK_DEF_TYPED_POSONLY(typed_long_inc_def, "typed_long_inc", typed_long_inc, LONG,
                         "n + 1 in C long arithmetic", CYSTCK_ARG(LONG, n))

static double typed_add_doubles(Cystck_State *S, Cystck_Object mod, double a, double b)
{
    (void)S; (void)mod;
    return a + b;
}
CYSTCK_DEF_TYPED_POSONLY(typed_add_doubles_def, "typed_add_doubles", typed_add_doubles, DOUBLE,
                         "a + b as doubles", CYSTCK_ARG(DOUBLE, a), CYSTCK_ARG(DOUBLE, b))

static long typed_kwargs(Cystck_State *S, Cystck_Object mod, long a, long b, long c, long d)
{
    long total;
    (void)mod;
    if (__builtin_add_overflow(a, b, &total) || __builtin_add_overflow(total, c, &total) ||
        __builtin_add_overflow(total, d, &total)) {
        CystckErr_SetString(S, CystckExc_OverflowError, "kwargs() sum does not fit in a C long");
        return -1;
    }
    return total;
}
CYSTCK_DEF_TYPED(typed_kwargs_def, "typed_kwargs", typed_kwargs, LONG, "a + b + c + d as C longs",
                 CYSTCK_ARG(LONG, a), CYSTCK_ARG(LONG, b), CYSTCK_OPT(LONG, c, 0), CYSTCK_OPT(LONG, d, 0))

CYSTCK_DEF_METH(tuple3_def, "tuple3", tuple3, CYSTCK_VARARGS, "tuple3(a, b, c) -> (a, b, c)")
static int tuple3(Cystck_State *S, Cystck_Object mod, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    (void)mod;
    if (check_nargs(S, "tuple3", nargs, 3) < 0)
        return -1;
    /* As the HPy variant does (HPyTuple_FromArray): the items are copied
     * with a new reference each, no handle per item. */
    return Cystck_Return(S, CystckTuple_FromArray(S, args, 3));
}

CYSTCK_DEF_METH(call_callback_def, "call_callback", call_callback, CYSTCK_VARARGS,
                "call_callback(f, x) -> f(x)")
static int call_callback(Cystck_State *S, Cystck_Object mod, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    (void)mod;
    if (check_nargs(S, "call_callback", nargs, 2) < 0)
        return -1;
    /* What cystck-migrate makes of the stock variant's PyObject_CallOneArg:
     * the handles go to the call as they are (no push, no refcount pair). */
    return Cystck_Return(S, CystckObject_CallOneArg(S, args[0], args[1]));
}

CYSTCK_DEF_METH(sum_list_def, "sum_list", sum_list, CYSTCK_O,
                "sum_list(lst) -> sum of a list of ints as a C long")
static int sum_list(Cystck_State *S, Cystck_Object mod, Cystck_Object lst)
{
    Cystck_ssize_t i, n;
    long total = 0;
    (void)mod;
    if (!CystckList_Check(S, lst)) {
        CystckErr_SetString(S, CystckExc_TypeError, "sum_list() argument must be a list");
        return -1;
    }
    /* Typed element access: the items never leave the loop, so no handles. */
    n = CystckList_GET_SIZE(S, lst);
    for (i = 0; i < n; i++) {
        long v = CystckList_GetItemAsLong(S, lst, i);
        if (v == -1 && CystckErr_Occurred(S)) {
            if (CystckErr_ExceptionMatches(S, CystckExc_TypeError)) {
                CystckErr_Clear(S);
                CystckErr_SetString(S, CystckExc_TypeError, "sum_list() items must be int");
            }
            return -1;
        }
        if (__builtin_add_overflow(total, v, &total)) {
            CystckErr_SetString(S, CystckExc_OverflowError, "sum_list() sum does not fit in a C long");
            return -1;
        }
    }
    return Cystck_ReturnLong(S, total);
}

/* ---- Point(x, y) ---- */

typedef struct {
    double x, y;
} Point;
CYSTCK_TYPE_HELPERS(Point)

static Cystck_Ref Point_type;

/* A new Point of type (a handle on Point_type, which the caller has). */
static inline Cystck_Object Point_make(Cystck_State *S, Cystck_Object type, double x, double y)
{
    Point *p;
    Cystck_Object h = Cystck_New(S, type, (void **)&p);
    if (!Cystck_IsNull(h)) {
        p->x = x;
        p->y = y;
    }
    return h;
}

CYSTCK_DEF_SLOT(Point_new_def, tp_new, Point_new)
static int Point_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                     Cystck_ssize_t nargs, Cystck_Object kw)
{
    static const char *kwlist[] = {"x", "y", NULL};
    double x, y;
    if (!CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, "dd:Point", kwlist, &x, &y))
        return -1;
    return Cystck_Return(S, Point_make(S, type, x, y));
}

CYSTCK_DEF_SLOT(Point_add_def, nb_add, Point_add)
static int Point_add(Cystck_State *S, Cystck_Object a, Cystck_Object b)
{
    Cystck_Object type = Cystck_deref(S, Point_type);
    Point *pa, *pb;
    /* A released reference (SystemError set): Cystck_TypeIs would return
     * -1 for each operand, which the test below takes for "is a Point". */
    if (Cystck_IsNull(type))
        return -1;
    if (!Cystck_TypeIs(S, a, type) || !Cystck_TypeIs(S, b, type))
        return Cystck_Return(S, Cystck_NotImplemented);
    pa = Point_AsStruct(S, a);
    pb = Point_AsStruct(S, b);
    return Cystck_Return(S, Point_make(S, type, pa->x + pb->x, pa->y + pb->y));
}

CYSTCK_DEF_GET(Point_x_def, "x", Point_get_x, "the x coordinate", NULL)
static int Point_get_x(Cystck_State *S, Cystck_Object self, void *closure)
{
    (void)closure;
    return Cystck_ReturnDouble(S, Point_AsStruct(S, self)->x);
}

CYSTCK_DEF_GET(Point_y_def, "y", Point_get_y, "the y coordinate", NULL)
static int Point_get_y(Cystck_State *S, Cystck_Object self, void *closure)
{
    (void)closure;
    return Cystck_ReturnDouble(S, Point_AsStruct(S, self)->y);
}

static CystckDef *Point_defines[] = {
    &Point_new_def, &Point_add_def, &Point_x_def, &Point_y_def, NULL
};

static CystckType_Spec Point_spec = {
    MODULE_NAME ".Point", sizeof(Point), 0, 0, Point_defines,
    "Point(x, y): two doubles; + adds them component-wise."
};

/* ---- module ---- */

static CystckDef *module_defines[] = {
    &noargs_def, &identity_def, &long_inc_def, &add_doubles_def, &kwargs_def, &tuple3_def,
    &call_callback_def, &sum_list_def, &typed_long_inc_def, &typed_add_doubles_def,
    &typed_kwargs_def, NULL
};

static CystckModuleDef module_def = {
    MODULE_NAME, "Cystck micro-benchmarks: Cystck variant.", 0, module_defines
};

#ifdef CYSTCK_NO_DEBUG_MODE
CYSTCK_MODINIT(_micro_cystck_nodebug)
#else
CYSTCK_MODINIT(_micro_cystck)
#endif
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Point_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddObject(S, m, "Point", type) < 0)
        return -1;
    Point_type = Cystck_ref(S, type);
    if (Point_type == NULL)
        return -1;
    return Cystck_Return(S, m);
}
