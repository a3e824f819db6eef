/* CystckUnicode_FromFormat and CystckErr_Format side by side with their
 * stock counterparts: every case of FORMAT_CASES runs through both, the
 * Cystck one with handles, the stock one with the same objects. */
#include "side_by_side.h"

/* The cases.  O(i) is object i of the argument list (a handle or a
 * PyObject*); O(3) is null, for %V's fallback string. */
#define FORMAT_CASES(CASE, O)                                                     \
    CASE("plain text, no conversion")                                            \
    CASE("%S|%R|%A", O(0), O(0), O(0))                                           \
    CASE("%U and %V", O(0), O(0), "unused")                                      \
    CASE("%V", O(3), "fallback \xc3\xa9")                                        \
    CASE("%d %ld %lld %zd|%S|%u %lu %llu %zu|%R|%x %i %c %%|%A", -1, -2L, -3LL,  \
         (Py_ssize_t)-4, O(1), 5u, 6UL, 7ULL, (size_t)8, O(1), 255, 9, 'z', O(1)) \
    CASE("[%5S][%.2R][%8.3A][%05d][%-3d]", O(0), O(0), O(0), 42, 7)             \
    CASE("%s then %S", "c string", O(1))                                          \
    CASE("%p is %S", (void *)0x1234, O(1))                                        \
    CASE("%R before an unknown %y conversion %S", O(1), O(0))                     \
    CASE("non-ASCII \xc3\xa9 before %S", O(1))                                    \
    CASE("%S ends with a bad %", O(1))                                            \
    CASE("%R raises", O(2))                                                       \
    CASE("%c out of range %S", 0x110000, O(1))

/* The outcome of raising with CystckErr_Format or PyErr_Format. */
static PyObject *raised(void)
{
    return outcome(NULL);
}

#define CYSTCK_CASE(...) \
    APPEND(out, outcome(new_ref(S, CystckUnicode_FromFormat(S, __VA_ARGS__))));
#define CYSTCK_RAISE(...) \
    CystckErr_Format(S, CystckExc_ValueError, __VA_ARGS__); APPEND(out, raised());
#define STOCK_CASE(...) APPEND(out, outcome(PyUnicode_FromFormat(__VA_ARGS__)));
#define STOCK_RAISE(...) PyErr_Format(PyExc_ValueError, __VA_ARGS__); APPEND(out, raised());

/* cases(a, b, c) -> (Cystck outcomes, stock outcomes) for FromFormat and
 * for Err_Format, with O(0) = a, O(1) = b, O(2) = c. */
CYSTCK_DEF_METH(cases_def, "cases", cases, CYSTCK_VARARGS, "run every case both ways")
static int cases(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object h[4];
    PyObject *p[4], *out;
    int i;
    (void)self;
    if (!CystckArg_UnpackTuple(S, args, nargs, "cases", 3, 3, &h[0], &h[1], &h[2]))
        return -1;
    h[3] = Cystck_NULL;
    for (i = 0; i < 3; i++)
        p[i] = Cystck_AsPyObject(S, h[i]);
    p[3] = NULL;

    PUSH_OUTCOMES(FORMAT_CASES, CYSTCK_CASE, HANDLE);
    PUSH_OUTCOMES(FORMAT_CASES, STOCK_CASE, OBJECT);
    PUSH_OUTCOMES(FORMAT_CASES, CYSTCK_RAISE, HANDLE);
    PUSH_OUTCOMES(FORMAT_CASES, STOCK_RAISE, OBJECT);
    return 4;
}

/* The null handle where an object conversion expects an object. */
CYSTCK_DEF_METH(null_def, "null", null, CYSTCK_NOARGS, "format the null handle")
static int null(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, CystckUnicode_FromFormat(S, "repr: %R", Cystck_NULL));
}

/* Handles made by CystckErr_Format's own arguments: CystckErr_Format works
 * on a copy of the frame's header, which must be taken after they are made
 * (else the frame forgets them, and their objects leak). */
CYSTCK_DEF_METH(err_arg_handles_def, "err_arg_handles", err_arg_handles, CYSTCK_O,
                "raise ValueError naming o, through two new handles on o")
static int err_arg_handles(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    (void)self;
    CystckErr_Format(S, CystckExc_ValueError, "%R %S", Cystck_Dup(S, o), Cystck_Dup(S, o));
    return -1;
}

static CystckDef *defines[] = {&cases_def, &null_def, &err_arg_handles_def, NULL};
static CystckModuleDef module_def = {"rt_format", "FromFormat with handles", 0, defines};

CYSTCK_MODINIT(rt_format)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
