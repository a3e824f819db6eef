/* CystckUnicode_FromFormatV side by side with PyUnicode_FromFormatV: a
 * variadic helper hands its arguments on, the Cystck one with handles,
 * the stock one with the same objects. */
#include "Cystck.h"
#include <stdarg.h>

static Cystck_Object cystck_note(Cystck_State *S, const char *fmt, ...)
{
    va_list va;
    Cystck_Object r;
    va_start(va, fmt);
    r = CystckUnicode_FromFormatV(S, fmt, va);
    va_end(va);
    return r;
}

static PyObject *stock_note(const char *fmt, ...)
{
    va_list va;
    PyObject *r;
    va_start(va, fmt);
    r = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    return r;
}

/* both(a, b) -> (Cystck result, stock result) for each format */
CYSTCK_DEF_METH(both_def, "both", both, CYSTCK_VARARGS, "format both ways")
static int both(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object a, b;
    PyObject *pa, *pb;
    (void)self;
    if (!CystckArg_UnpackTuple(S, args, nargs, "both", 2, 2, &a, &b))
        return -1;
    pa = Cystck_AsPyObject(S, a);
    pb = Cystck_AsPyObject(S, b);
    if (Cystck_Push(S, cystck_note(S, "%S|%R|%A", a, a, a)) < 0 ||
            Cystck_Push(S, Cystck_FromNewPyObject(S, stock_note("%S|%R|%A", pa, pa, pa))) < 0 ||
            Cystck_Push(S, cystck_note(S, "when serializing %s item %R (%d)", "dict", b, 7)) < 0 ||
            Cystck_Push(S, Cystck_FromNewPyObject(S, stock_note("when serializing %s item %R (%d)", "dict", pb, 7))) < 0)
        return -1;
    return 4;
}

/* The null handle where %R expects an object. */
CYSTCK_DEF_METH(null_def, "null", null, CYSTCK_NOARGS, "format the null handle")
static int null(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, cystck_note(S, "repr: %R", Cystck_NULL));
}

static CystckDef *defines[] = {&both_def, &null_def, NULL};
static CystckModuleDef module_def = {"rt_format_v", "FromFormatV with handles", 0, defines};

CYSTCK_MODINIT(rt_format_v)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
