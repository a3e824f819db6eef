/* Typed methods (include/cystck/typed.h), built as C (typed_ext) and as
 * C++ (typed_ext_cpp.cpp includes this file).  typed_stock.c has the same
 * functions with the stock PyArg_Parse* formats, for differential tests. */
#include "Cystck.h"

#include <limits.h>

#ifdef TYPED_EXT_CPP
#define MODULE_NAME "typed_ext_cpp"
#else
#define MODULE_NAME "typed_ext"
#endif

/* In C++ the implementation comes first: see CYSTCK_DEF_TYPED. */
static long kwargs_impl(Cystck_State *S, Cystck_Object self, long a, long b, long c, long d)
{
    long total;
    (void)self;
    if (__builtin_add_overflow(a, b, &total) || __builtin_add_overflow(total, c, &total) ||
        __builtin_add_overflow(total, d, &total)) {
        CystckErr_SetString(S, CystckExc_OverflowError, "kwargs() sum does not fit in a C long");
        return -1;
    }
    return total;
}
CYSTCK_DEF_TYPED(kwargs_def, "kwargs", kwargs_impl, LONG, "the sum as a C long",
                 CYSTCK_ARG(LONG, a), CYSTCK_ARG(LONG, b), CYSTCK_OPT(LONG, c, 0), CYSTCK_OPT(LONG, d, 0))

static long long_inc_impl(Cystck_State *S, Cystck_Object self, long n)
{
    (void)self;
    if (n == LONG_MAX) {
        CystckErr_SetString(S, CystckExc_OverflowError, "long_inc() result does not fit in a C long");
        return -1;
    }
    return n + 1;
}
CYSTCK_DEF_TYPED_POSONLY(long_inc_def, "long_inc", long_inc_impl, LONG, "n + 1",
                         CYSTCK_ARG(LONG, n))

static double add_doubles_impl(Cystck_State *S, Cystck_Object self, double a, double b)
{
    (void)S; (void)self;
    return a + b;
}
CYSTCK_DEF_TYPED_POSONLY(add_doubles_def, "add_doubles", add_doubles_impl, DOUBLE, "a + b",
                         CYSTCK_ARG(DOUBLE, a), CYSTCK_ARG(DOUBLE, b))

/* Every parameter type, returned as a tuple through the stack. */
static int mixed_impl(Cystck_State *S, Cystck_Object self, const char *s, Py_ssize_t n, double x,
                      int flag, Cystck_Object obj, long long big, int i)
{
    (void)self;
    if (Cystck_PushString(S, s) < 0 || Cystck_PushSsize(S, n) < 0 || Cystck_PushDouble(S, x) < 0 ||
        Cystck_PushBool(S, flag) < 0 ||
        (Cystck_IsNull(obj) ? Cystck_PushNone(S) : Cystck_Push(S, obj)) < 0 ||
        Cystck_PushLongLong(S, big) < 0 || Cystck_PushLong(S, i) < 0)
        return -1;
    return 7;
}
CYSTCK_DEF_TYPED(mixed_def, "mixed", mixed_impl, OBJECT, "all the types",
                 CYSTCK_ARG(STR, s), CYSTCK_ARG(SSIZE, n), CYSTCK_OPT(DOUBLE, x, 1.5),
                 CYSTCK_OPT(BOOL, flag, 0), CYSTCK_OPT(OBJECT, obj, NULL),
                 CYSTCK_OPT(LONGLONG, big, -7), CYSTCK_OPT(INT, i, 0))

/* -1 is a value unless an exception is set. */
static int half_impl(Cystck_State *S, Cystck_Object self, int n)
{
    (void)self;
    if (n % 2) {
        CystckErr_SetString(S, CystckExc_ValueError, "odd");
        return -1;
    }
    return n / 2;
}
CYSTCK_DEF_TYPED(half_def, "half", half_impl, INT, "n / 2 for even n", CYSTCK_ARG(INT, n))

static int check_impl(Cystck_State *S, Cystck_Object self, int ok)
{
    (void)self;
    if (!ok) {
        CystckErr_SetString(S, CystckExc_ValueError, "not ok");
        return -1;
    }
    return 0;
}
CYSTCK_DEF_TYPED(check_def, "check", check_impl, NONE, "None, or ValueError", CYSTCK_ARG(BOOL, ok))

/* Handles the implementation creates are released with its frame. */
static Py_ssize_t length_impl(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    Cystck_Object copy;
    (void)self;
    copy = CystckSequence_List(S, o);
    if (Cystck_IsNull(copy))
        return -1;
    return CystckList_Size(S, copy);
}
CYSTCK_DEF_TYPED(length_def, "length", length_impl, SSIZE, "len(list(o))", CYSTCK_ARG(OBJECT, o))

/* A typed method of a type: self is the instance. */
static Cystck_Object scaled_impl(Cystck_State *S, Cystck_Object self, double k);
static int scaled(Cystck_State *S, Cystck_Object self, double k)
{
    return Cystck_Return(S, scaled_impl(S, self, k));
}
CYSTCK_DEF_TYPED(scaled_def, "scaled", scaled, OBJECT, "(self, k * 2.0)", CYSTCK_ARG(DOUBLE, k))
static Cystck_Object scaled_impl(Cystck_State *S, Cystck_Object self, double k)
{
    Cystck_Object twice = CystckFloat_FromDouble(S, k * 2.0);
    Cystck_Object items[2];
    if (Cystck_IsNull(twice))
        return Cystck_NULL;
    items[0] = self;
    items[1] = twice;
    return CystckTuple_FromArray(S, items, 2);
}

static CystckDef *Scaler_defines[] = { &scaled_def, NULL };
static CystckType_Spec Scaler_spec = {
    MODULE_NAME ".Scaler", 0, 0, CYSTCK_TPFLAGS_BASETYPE, Scaler_defines, "has a typed method"
};

static CystckDef *module_defines[] = {
    &kwargs_def, &long_inc_def, &add_doubles_def, &mixed_def, &half_def, &check_def, &length_def,
    NULL
};

static CystckModuleDef moduledef = { MODULE_NAME, "typed methods", 0, module_defines };

#ifdef TYPED_EXT_CPP
CYSTCK_MODINIT(typed_ext_cpp)
#else
CYSTCK_MODINIT(typed_ext)
#endif
{
    Cystck_Object m = CystckModule_Create(S, &moduledef), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Scaler_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
