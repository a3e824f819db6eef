/*
 * piconumpy: a tiny one-dimensional float64 array, written with HPy 0.9.
 *
 * One source, built twice: for HPy's CPython ABI (compiled against CPython,
 * HPy calls become inline C-API calls) and for HPy's universal ABI (one
 * binary for every interpreter, every HPy call goes through the context's
 * function table).  It implements exactly the behaviour of the stock variant
 * (src/piconumpy.c): same storage (a malloc'ed double[]), same accepted
 * operands, same exceptions -- with the same messages, except where HPy 0.9's
 * argument parser words them its own way -- so that any timing difference
 * between the variants comes from the API.
 */
#include <stdio.h>
#include <stdlib.h>
#include "hpy.h"

typedef struct {
    HPy_ssize_t size;
    double *data;
} ArrayObject;

HPyType_HELPERS(ArrayObject)

/* The array type, created by the module's exec slot.  Operators need it to
   recognise their operands and to create their results; HPy handles must
   not outlive a call, so it is kept in an HPyGlobal. */
static HPyGlobal ArrayType;

/* Creates an array of `size` elements whose contents are uninitialised
   (every caller fills all of them).  On success *out points to its
   struct. */
static HPy
Array_alloc(HPyContext *ctx, HPy type, HPy_ssize_t size, ArrayObject **out)
{
    ArrayObject *self;
    HPy h;

    if (size > HPY_SSIZE_T_MAX / (HPy_ssize_t)sizeof(double)) {
        return HPyErr_NoMemory(ctx);
    }
    h = HPy_New(ctx, type, &self);
    if (HPy_IsNull(h)) {
        return HPy_NULL;
    }
    self->size = size;
    /* malloc(0) may legitimately return NULL; an empty array never reads
       its data pointer, so only a failed non-empty allocation is an error. */
    self->data = (double *)malloc(size * sizeof(double));
    if (self->data == NULL && size > 0) {
        HPy_Close(ctx, h);
        return HPyErr_NoMemory(ctx);
    }
    *out = self;
    return h;
}

HPyDef_SLOT(Array_destroy, HPy_tp_destroy)
static void
Array_destroy_impl(void *obj)
{
    ArrayObject *self = (ArrayObject *)obj;
    free(self->data);
}

/* Fills a new array from a list or tuple, reading each item as a float. */
static HPy
Array_from_sequence(HPyContext *ctx, HPy type, HPy seq)
{
    ArrayObject *self;
    HPy_ssize_t i, n;
    HPy result;

    n = HPy_Length(ctx, seq);
    if (n < 0) {
        return HPy_NULL;
    }
    result = Array_alloc(ctx, type, n, &self);
    if (HPy_IsNull(result)) {
        return HPy_NULL;
    }
    for (i = 0; i < n; i++) {
        HPy item = HPy_GetItem_i(ctx, seq, i);
        double value;
        if (HPy_IsNull(item)) {
            HPy_Close(ctx, result);
            return HPy_NULL;
        }
        value = HPyFloat_AsDouble(ctx, item);
        HPy_Close(ctx, item);
        if (value == -1.0 && HPyErr_Occurred(ctx)) {
            HPy_Close(ctx, result);
            return HPy_NULL;
        }
        self->data[i] = value;
    }
    return result;
}

HPyDef_SLOT(Array_new, HPy_tp_new)
static HPy
Array_new_impl(HPyContext *ctx, HPy type, const HPy *args, HPy_ssize_t nargs,
               HPy kw)
{
    HPy data, list, result;

    /* The argument is positional-only, as in the stock variant.  (HPy
       0.9's HPyArg_ParseKeywordsDict would not reject extra positional or
       unknown keyword arguments, HPyArg_Parse does reject extra ones.) */
    if (!HPy_IsNull(kw) && HPy_Length(ctx, kw) != 0) {
        return HPyErr_SetString(ctx, ctx->h_TypeError,
                                "array() takes no keyword arguments");
    }
    if (!HPyArg_Parse(ctx, NULL, args, nargs, "O:array", &data)) {
        return HPy_NULL;
    }
    if (HPyList_Check(ctx, data) || HPyTuple_Check(ctx, data)) {
        return Array_from_sequence(ctx, type, data);
    }
    /* Any other iterable is first collected into a list, as the stock
       variant's PySequence_Fast does, with the same message for objects
       that are not iterable.  HPy 0.9 has no HPy_GetIter to tell "not
       iterable" from a TypeError raised while iterating, so unlike the
       stock variant the message also replaces the latter. */
    list = HPy_Call(ctx, ctx->h_ListType, &data, 1, HPy_NULL);
    if (HPy_IsNull(list)) {
        if (HPyErr_ExceptionMatches(ctx, ctx->h_TypeError)) {
            HPyErr_SetString(ctx, ctx->h_TypeError,
                             "array() argument must be an iterable of numbers");
        }
        return HPy_NULL;
    }
    result = Array_from_sequence(ctx, type, list);
    HPy_Close(ctx, list);
    return result;
}

HPyDef_SLOT(Array_length, HPy_sq_length)
static HPy_ssize_t
Array_length_impl(HPyContext *ctx, HPy self)
{
    return ArrayObject_AsStruct(ctx, self)->size;
}

/* As in the stock variant, the interpreter has already added len(a) to a
   negative index before calling sq_item / sq_ass_item. */
HPyDef_SLOT(Array_item, HPy_sq_item)
static HPy
Array_item_impl(HPyContext *ctx, HPy h_self, HPy_ssize_t i)
{
    ArrayObject *self = ArrayObject_AsStruct(ctx, h_self);
    if (i < 0 || i >= self->size) {
        return HPyErr_SetString(ctx, ctx->h_IndexError,
                                "array index out of range");
    }
    return HPyFloat_FromDouble(ctx, self->data[i]);
}

HPyDef_SLOT(Array_ass_item, HPy_sq_ass_item)
static int
Array_ass_item_impl(HPyContext *ctx, HPy h_self, HPy_ssize_t i, HPy value)
{
    ArrayObject *self = ArrayObject_AsStruct(ctx, h_self);
    double x;

    if (HPy_IsNull(value)) {
        HPyErr_SetString(ctx, ctx->h_TypeError, "array items cannot be deleted");
        return -1;
    }
    if (i < 0 || i >= self->size) {
        HPyErr_SetString(ctx, ctx->h_IndexError,
                         "array assignment index out of range");
        return -1;
    }
    x = HPyFloat_AsDouble(ctx, value);
    if (x == -1.0 && HPyErr_Occurred(ctx)) {
        return -1;
    }
    self->data[i] = x;
    return 0;
}

/* Shared by + and -: returns a new uninitialised array of the operands'
   common size and their structs, NotImplemented if either operand is not an
   array, or HPy_NULL with ValueError if the sizes differ. */
static HPy
Array_binary_result(HPyContext *ctx, HPy left, HPy right,
                    ArrayObject **a, ArrayObject **b, ArrayObject **result)
{
    HPy type = HPyGlobal_Load(ctx, ArrayType);
    HPy h_result;

    if (!HPy_TypeCheck(ctx, left, type) || !HPy_TypeCheck(ctx, right, type)) {
        HPy_Close(ctx, type);
        return HPy_Dup(ctx, ctx->h_NotImplemented);
    }
    *a = ArrayObject_AsStruct(ctx, left);
    *b = ArrayObject_AsStruct(ctx, right);
    if ((*a)->size != (*b)->size) {
        /* HPyErr_Format does not exist in HPy 0.9; build the message the
           stock variant gets from PyErr_Format. */
        char message[96];
        snprintf(message, sizeof(message),
                 "operands have different sizes (%zd and %zd)",
                 (*a)->size, (*b)->size);
        HPy_Close(ctx, type);
        return HPyErr_SetString(ctx, ctx->h_ValueError, message);
    }
    h_result = Array_alloc(ctx, type, (*a)->size, result);
    HPy_Close(ctx, type);
    return h_result;
}

HPyDef_SLOT(Array_add, HPy_nb_add)
static HPy
Array_add_impl(HPyContext *ctx, HPy left, HPy right)
{
    ArrayObject *a, *b, *result = NULL;
    HPy_ssize_t i;
    HPy h_result = Array_binary_result(ctx, left, right, &a, &b, &result);

    if (result == NULL) {
        return h_result;   /* NotImplemented or an error */
    }
    for (i = 0; i < a->size; i++) {
        result->data[i] = a->data[i] + b->data[i];
    }
    return h_result;
}

HPyDef_SLOT(Array_subtract, HPy_nb_subtract)
static HPy
Array_subtract_impl(HPyContext *ctx, HPy left, HPy right)
{
    ArrayObject *a, *b, *result = NULL;
    HPy_ssize_t i;
    HPy h_result = Array_binary_result(ctx, left, right, &a, &b, &result);

    if (result == NULL) {
        return h_result;   /* NotImplemented or an error */
    }
    for (i = 0; i < a->size; i++) {
        result->data[i] = a->data[i] - b->data[i];
    }
    return h_result;
}

/* Reads a Python int or float operand.  Returns 1 and stores the value on
   success, 0 if the object is not a scalar we accept (the operator then
   returns NotImplemented), and -1 with an exception set if the conversion
   failed (an int too large for a double). */
static int
scalar_as_double(HPyContext *ctx, HPy obj, double *value)
{
    if (HPy_TypeCheck(ctx, obj, ctx->h_FloatType)) {
        *value = HPyFloat_AsDouble(ctx, obj);
        return 1;
    }
    if (HPy_TypeCheck(ctx, obj, ctx->h_LongType)) {
        *value = HPyLong_AsDouble(ctx, obj);
        if (*value == -1.0 && HPyErr_Occurred(ctx)) {
            return -1;
        }
        return 1;
    }
    return 0;
}

/* nb_multiply is called for both a * s and s * a. */
HPyDef_SLOT(Array_multiply, HPy_nb_multiply)
static HPy
Array_multiply_impl(HPyContext *ctx, HPy left, HPy right)
{
    HPy type = HPyGlobal_Load(ctx, ArrayType);
    HPy h_array, other, h_result;
    ArrayObject *a, *result;
    double factor;
    HPy_ssize_t i;
    int ok;

    if (HPy_TypeCheck(ctx, left, type)) {
        h_array = left;
        other = right;
    }
    else {
        h_array = right;
        other = left;
    }
    ok = scalar_as_double(ctx, other, &factor);
    if (ok <= 0) {
        HPy_Close(ctx, type);
        return ok < 0 ? HPy_NULL : HPy_Dup(ctx, ctx->h_NotImplemented);
    }
    a = ArrayObject_AsStruct(ctx, h_array);
    h_result = Array_alloc(ctx, type, a->size, &result);
    HPy_Close(ctx, type);
    if (HPy_IsNull(h_result)) {
        return HPy_NULL;
    }
    for (i = 0; i < a->size; i++) {
        result->data[i] = a->data[i] * factor;
    }
    return h_result;
}

HPyDef_SLOT(Array_true_divide, HPy_nb_true_divide)
static HPy
Array_true_divide_impl(HPyContext *ctx, HPy left, HPy right)
{
    HPy type = HPyGlobal_Load(ctx, ArrayType);
    HPy h_result;
    ArrayObject *a, *result;
    double divisor;
    HPy_ssize_t i;
    int ok;

    /* Only array / scalar is defined; scalar / array is not. */
    if (!HPy_TypeCheck(ctx, left, type)) {
        HPy_Close(ctx, type);
        return HPy_Dup(ctx, ctx->h_NotImplemented);
    }
    ok = scalar_as_double(ctx, right, &divisor);
    if (ok <= 0) {
        HPy_Close(ctx, type);
        return ok < 0 ? HPy_NULL : HPy_Dup(ctx, ctx->h_NotImplemented);
    }
    if (divisor == 0.0) {
        HPy_Close(ctx, type);
        return HPyErr_SetString(ctx, ctx->h_ZeroDivisionError,
                                "division by zero");
    }
    a = ArrayObject_AsStruct(ctx, left);
    h_result = Array_alloc(ctx, type, a->size, &result);
    HPy_Close(ctx, type);
    if (HPy_IsNull(h_result)) {
        return HPy_NULL;
    }
    for (i = 0; i < a->size; i++) {
        result->data[i] = a->data[i] / divisor;
    }
    return h_result;
}

HPyDef_METH(Array_tolist, "tolist", HPyFunc_NOARGS,
            .doc = "Return the elements as a list of floats.")
static HPy
Array_tolist_impl(HPyContext *ctx, HPy h_self)
{
    ArrayObject *self = ArrayObject_AsStruct(ctx, h_self);
    HPyListBuilder builder = HPyListBuilder_New(ctx, self->size);
    HPy_ssize_t i;

    for (i = 0; i < self->size; i++) {
        HPy item = HPyFloat_FromDouble(ctx, self->data[i]);
        if (HPy_IsNull(item)) {
            HPyListBuilder_Cancel(ctx, builder);
            return HPy_NULL;
        }
        HPyListBuilder_Set(ctx, builder, i, item);
        HPy_Close(ctx, item);
    }
    /* Build reports a failed HPyListBuilder_New as well. */
    return HPyListBuilder_Build(ctx, builder);
}

HPyDef_MEMBER(Array_size, "size", HPyMember_HPYSSIZET,
              offsetof(ArrayObject, size), .readonly = 1,
              .doc = "Number of elements.")

static HPyDef *Array_defines[] = {
    &Array_new,
    &Array_destroy,
    &Array_length,
    &Array_item,
    &Array_ass_item,
    &Array_add,
    &Array_subtract,
    &Array_multiply,
    &Array_true_divide,
    &Array_tolist,
    &Array_size,
    NULL
};

static HPyType_Spec Array_spec = {
    .name = "piconumpy.array",
    .doc = "array(iterable)\n\n"
           "One-dimensional array of float64 built from an iterable of numbers.",
    .basicsize = sizeof(ArrayObject),
    .flags = HPy_TPFLAGS_DEFAULT,
    .builtin_shape = SHAPE(ArrayObject),
    .defines = Array_defines,
};

HPyDef_METH(empty, "empty", HPyFunc_VARARGS,
            .doc = "empty(size)\n\nReturn a new array of `size` elements, all zero.")
static HPy
empty_impl(HPyContext *ctx, HPy module, const HPy *args, size_t nargs)
{
    HPy_ssize_t size, i;
    ArrayObject *result;
    HPy type, h_result;

    if (!HPyArg_Parse(ctx, NULL, args, nargs, "n:empty", &size)) {
        return HPy_NULL;
    }
    if (size < 0) {
        return HPyErr_SetString(ctx, ctx->h_ValueError,
                                "negative dimensions are not allowed");
    }
    type = HPyGlobal_Load(ctx, ArrayType);
    h_result = Array_alloc(ctx, type, size, &result);
    HPy_Close(ctx, type);
    if (HPy_IsNull(h_result)) {
        return HPy_NULL;
    }
    /* Unlike NumPy's empty(), fill with zeros, as the stock variant does. */
    for (i = 0; i < size; i++) {
        result->data[i] = 0.0;
    }
    return h_result;
}

HPyDef_SLOT(piconumpy_exec, HPy_mod_exec)
static int
piconumpy_exec_impl(HPyContext *ctx, HPy module)
{
    HPy type = HPyType_FromSpec(ctx, &Array_spec, NULL);
    if (HPy_IsNull(type)) {
        return -1;
    }
    if (HPy_SetAttr_s(ctx, module, "array", type) < 0) {
        HPy_Close(ctx, type);
        return -1;
    }
    HPyGlobal_Store(ctx, &ArrayType, type);
    HPy_Close(ctx, type);
    return 0;
}

static HPyDef *piconumpy_defines[] = {
    &empty,
    &piconumpy_exec,
    NULL
};

static HPyGlobal *piconumpy_globals[] = {
    &ArrayType,
    NULL
};

static HPyModuleDef piconumpy_def = {
    .doc = "A tiny one-dimensional float64 array (HPy).",
    .defines = piconumpy_defines,
    .globals = piconumpy_globals,
};

HPy_MODINIT(piconumpy, piconumpy_def)
