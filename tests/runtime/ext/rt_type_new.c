/* Cystck_New after a type test: Cystck_TypeIs and CystckObject_TypeCheck
 * tell the compiler that a type equal to an object's type is a type, so
 * Cystck_New's own PyType_Check folds away after them.  Whatever the
 * handles, the result must be what the tests and Cystck_New say. */
#include "Cystck.h"

/* new_if_type_is(o, t, exact): a new t (Cystck_New) if o's type is t, or,
 * with exact false, a subtype of t; None otherwise. */
CYSTCK_DEF_METH(new_if_type_is_def, "new_if_type_is", new_if_type_is, CYSTCK_VARARGS,
                "new_if_type_is(o, t, exact): a new t if type(o) is t (exact) or a subtype, else None")
static int new_if_type_is(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    int exact, is;
    (void)self;
    if (nargs != 3) {
        CystckErr_SetString(S, CystckExc_TypeError, "new_if_type_is() takes 3 arguments");
        return -1;
    }
    exact = CystckObject_IsTrue(S, args[2]);
    if (exact < 0)
        return -1;
    is = exact ? Cystck_TypeIs(S, args[0], args[1]) : CystckObject_TypeCheck(S, args[0], args[1]);
    if (!is)
        return Cystck_Return(S, Cystck_None);
    return Cystck_Return(S, Cystck_New(S, args[1], NULL));
}

/* new_of_type_of(o): Cystck_New(type(o)) when type(o) is o's class as the
 * type test sees it: the type handle comes from the object, as a slot
 * function's operands give it. */
CYSTCK_DEF_METH(new_of_type_of_def, "new_of_type_of", new_of_type_of, CYSTCK_O,
                "new_of_type_of(o): a new instance of type(o), through Cystck_TypeIs")
static int new_of_type_of(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    Cystck_Object t = CystckObject_Type(S, o);
    (void)self;
    if (Cystck_IsNull(t))
        return -1;
    if (!Cystck_TypeIs(S, o, t)) {
        CystckErr_SetString(S, CystckExc_SystemError, "type(o) is not o's type");
        return -1;
    }
    return Cystck_Return(S, Cystck_New(S, t, NULL));
}

/* new_pair(t): (x, x) for x = Cystck_New(t): the handle made after
 * Cystck_New's general case (a type that is not plain, or not a type:
 * TypeError) and the return after it. */
CYSTCK_DEF_METH(new_pair_def, "new_pair", new_pair, CYSTCK_O,
                "new_pair(t): (x, x) for a new instance x of t (TypeError if t is not a type)")
static int new_pair(Cystck_State *S, Cystck_Object self, Cystck_Object t)
{
    Cystck_Object items[2];
    (void)self;
    items[0] = Cystck_New(S, t, NULL);
    if (Cystck_IsNull(items[0]))
        return -1;
    items[1] = Cystck_Dup(S, items[0]);
    return Cystck_Return(S, CystckTuple_FromArray(S, items, 2));
}

/* new_after(t, k): k handles made first (Cystck_Dup of t), then
 * Cystck_New(t, &data).  Where the new object's handle cannot be made (the
 * handle limit), Cystck_New gives the null handle and *data = NULL (not the
 * address of the object it released): then "limit" with the MemoryError
 * cleared ("data_set" if it was set); else the instance. */
CYSTCK_DEF_METH(new_after_def, "new_after", new_after, CYSTCK_VARARGS,
                "new_after(t, k): Cystck_New(t) after k handles")
static int new_after(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_ssize_t i, k;
    Cystck_Object h;
    void *data = &data;
    (void)self;
    if (nargs != 2) {
        CystckErr_SetString(S, CystckExc_TypeError, "new_after() takes 2 arguments");
        return -1;
    }
    k = CystckLong_AsSsize_t(S, args[1]);
    if (k == -1 && CystckErr_Occurred(S))
        return -1;
    for (i = 0; i < k; i++)
        if (Cystck_IsNull(Cystck_Dup(S, args[0])))
            return -1;
    h = Cystck_New(S, args[0], &data);
    if (!Cystck_IsNull(h))
        return Cystck_Return(S, h);
    /* at the limit: no handle for a message, but a pushed result needs none */
    if (!CystckErr_ExceptionMatches(S, CystckExc_MemoryError))
        return -1;
    CystckErr_Clear(S);
    return Cystck_ReturnString(S, data == NULL ? "limit" : "data_set");
}

static CystckDef *defines[] = {&new_if_type_is_def, &new_of_type_of_def, &new_pair_def, &new_after_def, NULL};
static CystckModuleDef module_def = {"rt_type_new", "Cystck_New after a type test", 0, defines};

CYSTCK_MODINIT(rt_type_new)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
