/* The in-place number slots beyond += -= *= /= //=: an Acc holds a C long
 * that each one updates in place (the instance itself is the result). */
#include "Cystck.h"

typedef struct { long v; } Acc;
CYSTCK_TYPE_HELPERS(Acc)

CYSTCK_DEF_SLOT(Acc_new_def, tp_new, Acc_new)
static int Acc_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args, Cystck_ssize_t nargs,
                   Cystck_Object kw)
{
    long v;
    Acc *data;
    Cystck_Object self;
    (void)kw;
    if (!CystckArg_ParseTuple(S, args, nargs, "l", &v))
        return -1;
    self = Cystck_New(S, type, (void **)&data);
    if (Cystck_IsNull(self))
        return -1;
    data->v = v;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_SLOT(Acc_int_def, nb_int, Acc_int)
static int Acc_int(Cystck_State *S, Cystck_Object self)
{
    return Cystck_Return(S, CystckLong_FromLong(S, Acc_AsStruct(S, self)->v));
}

/* a op= b for an int b; the matrix product is a product here */
static int update(Cystck_State *S, Cystck_Object a, Cystck_Object b, char op)
{
    long x = CystckLong_AsLong(S, b), *v = &Acc_AsStruct(S, a)->v;
    if (x == -1 && CystckErr_Occurred(S))
        return -1;
    switch (op) {
    case '%': *v %= x; break;
    case '<': *v <<= x; break;
    case '>': *v >>= x; break;
    case '&': *v &= x; break;
    case '|': *v |= x; break;
    case '^': *v ^= x; break;
    case '@': *v *= x; break;
    default: { long r = 1; while (x-- > 0) r *= *v; *v = r; }
    }
    return Cystck_Return(S, a);
}

#define INPLACE(NAME, OP)                                                   \
    CYSTCK_DEF_SLOT(Acc_##NAME##_def, nb_inplace_##NAME, Acc_##NAME)        \
    static int Acc_##NAME(Cystck_State *S, Cystck_Object a, Cystck_Object b) \
    {                                                                       \
        return update(S, a, b, OP);                                         \
    }
INPLACE(remainder, '%')
INPLACE(lshift, '<')
INPLACE(rshift, '>')
INPLACE(and, '&')
INPLACE(or, '|')
INPLACE(xor, '^')
INPLACE(matrix_multiply, '@')

CYSTCK_DEF_SLOT(Acc_power_def, nb_inplace_power, Acc_power)
static int Acc_power(Cystck_State *S, Cystck_Object a, Cystck_Object b, Cystck_Object c)
{
    if (!Cystck_Is(S, c, Cystck_None))
        return (CystckErr_SetString(S, CystckExc_TypeError, "no modulo"), -1);
    return update(S, a, b, '*');
}

static CystckDef *Acc_defines[] = {&Acc_new_def, &Acc_int_def, &Acc_remainder_def, &Acc_lshift_def,
                                   &Acc_rshift_def, &Acc_and_def, &Acc_or_def, &Acc_xor_def,
                                   &Acc_matrix_multiply_def, &Acc_power_def, NULL};
static CystckType_Spec Acc_spec = {"rt_inplace_slots.Acc", sizeof(Acc), 0, 0, Acc_defines, NULL};

static CystckModuleDef module_def = {"rt_inplace_slots", "In-place number slots.", 0, NULL};

CYSTCK_MODINIT(rt_inplace_slots)
{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Acc_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}
