/* Cystck_BuildValue side by side with Py_BuildValue: every case of
 * BUILD_CASES runs through both, the Cystck one with handles, the stock
 * one with the same objects. */
#include "side_by_side.h"

#include <wchar.h>

static const wchar_t wide[] = L"h\u00e9llo \u20ac\U0001F600";

/* The cases.  O(i) is object i of the argument list (a handle or a
 * PyObject*). */
#define BUILD_CASES(CASE, O)                                                   \
    CASE("u", wide)                                                            \
    CASE("u#", wide, (Py_ssize_t)3)                                            \
    CASE("u#", wide, (Py_ssize_t)-1)                                           \
    CASE("u#", wide, (Py_ssize_t)0)                                            \
    CASE("u", (const wchar_t *)NULL)                                           \
    CASE("u#", (const wchar_t *)NULL, (Py_ssize_t)4)                           \
    CASE("(u#O)", wide, (Py_ssize_t)7, O(0))                                   \
    CASE("[iu]", 5, wide)                                                      \
    CASE("{u:u#}", wide, wide, (Py_ssize_t)2)                                  \
    CASE("u#i", wide, (Py_ssize_t)1, 9)                                        \
    CASE("s#z#y#", "abc", (Py_ssize_t)2, (const char *)NULL, (Py_ssize_t)1,    \
         "xyz", (Py_ssize_t)3)                                                 \
    CASE("(sO)", "s", O(0))                                                    \
    CASE("q", 1)

#define CYSTCK_CASE(...) APPEND(out, outcome(new_ref(S, Cystck_BuildValue(S, __VA_ARGS__))));
#define STOCK_CASE(...) APPEND(out, outcome(Py_BuildValue(__VA_ARGS__)));

/* cases(a) -> (Cystck outcomes, stock outcomes), with O(0) = a. */
CYSTCK_DEF_METH(cases_def, "cases", cases, CYSTCK_O, "run every case both ways")
static int cases(Cystck_State *S, Cystck_Object self, Cystck_Object a)
{
    Cystck_Object h[1];
    PyObject *p[1], *out;
    (void)self;
    h[0] = a;
    p[0] = Cystck_AsPyObject(S, a);

    PUSH_OUTCOMES(BUILD_CASES, CYSTCK_CASE, HANDLE);
    PUSH_OUTCOMES(BUILD_CASES, STOCK_CASE, OBJECT);
    return 2;
}

static CystckDef *defines[] = {&cases_def, NULL};
static CystckModuleDef module_def = {"rt_build_value", "BuildValue both ways", 0, defines};

CYSTCK_MODINIT(rt_build_value)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
