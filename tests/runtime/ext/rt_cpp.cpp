// A C++ extension built against Cystck: the header works from C++11 on.
#include "Cystck.h"

#include <string>
#include <vector>

CYSTCK_DEF_METH(join_def, "join", join, CYSTCK_VARARGS, "join(*strings) with '-' using std::string")
static int join(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    (void)self;
    std::string out;
    for (Cystck_ssize_t i = 0; i < nargs; i++) {
        const char *s = CystckUnicode_AsUTF8(S, args[i]);
        if (s == nullptr)
            return -1;
        if (i)
            out += '-';
        out += s;
    }
    return Cystck_Return(S, CystckUnicode_FromStringAndSize(S, out.data(), (Cystck_ssize_t)out.size()));
}

CYSTCK_DEF_METH(squares_def, "squares", squares, CYSTCK_O, "[i*i for i in range(n)] via std::vector")
static int squares(Cystck_State *S, Cystck_Object self, Cystck_Object n_h)
{
    (void)self;
    long n = CystckLong_AsLong(S, n_h);
    if (n == -1 && CystckErr_Occurred(S))
        return -1;
    std::vector<long> v;
    for (long i = 0; i < n; i++)
        v.push_back(i * i);
    Cystck_Object lst = CystckList_New(S, 0);
    for (long x : v) {
        Cystck_Scope sc = Cystck_OpenScope(S);
        if (CystckList_Append(S, lst, CystckLong_FromLong(S, x)) < 0)
            return -1;
        Cystck_CloseScope(S, sc);
    }
    return Cystck_Return(S, lst);
}

struct Counter {
    long count;
};
CYSTCK_TYPE_HELPERS(Counter)

CYSTCK_DEF_METH(Counter_incr_def, "incr", Counter_incr, CYSTCK_NOARGS, "count += 1")
static int Counter_incr(Cystck_State *S, Cystck_Object self)
{
    return Cystck_ReturnLong(S, ++Counter_AsStruct(S, self)->count);
}

static CystckDef *Counter_defines[] = {&Counter_incr_def, nullptr};
static CystckType_Spec Counter_spec = {"rt_cpp.Counter", sizeof(Counter), 0, 0, Counter_defines, nullptr};

static CystckDef *module_defines[] = {&join_def, &squares_def, nullptr};
static CystckModuleDef module_def = {"rt_cpp", "C++ test extension", 0, module_defines};

CYSTCK_MODINIT(rt_cpp)
{
    Cystck_Object m = CystckModule_Create(S, &module_def);
    Cystck_Object t = CystckType_FromSpec(S, &Counter_spec, Cystck_NULL);
    if (Cystck_IsNull(m) || Cystck_IsNull(t) || CystckModule_AddType(S, m, t) < 0)
        return -1;
    return Cystck_Return(S, m);
}
