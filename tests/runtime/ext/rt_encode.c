/* CystckUnicode_AsEncodedString and CystckUnicode_AsUTF8String
 * (tests/runtime/test_encode.py). */
#include "Cystck.h"

CYSTCK_DEF_METH(as_encoded_def, "as_encoded", as_encoded, CYSTCK_VARARGS,
                "as_encoded(o, encoding=None, errors=None) -> bytes (None: NULL)")
static int as_encoded(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object o;
    const char *encoding = NULL, *errors = NULL;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "O|zz:as_encoded", &o, &encoding, &errors))
        return -1;
    return Cystck_Return(S, CystckUnicode_AsEncodedString(S, o, encoding, errors));
}

CYSTCK_DEF_METH(as_utf8_def, "as_utf8", as_utf8, CYSTCK_O, "as_utf8(o) -> bytes")
static int as_utf8(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    (void)self;
    return Cystck_Return(S, CystckUnicode_AsUTF8String(S, o));
}

static CystckDef *module_defines[] = {&as_encoded_def, &as_utf8_def, NULL};
static CystckModuleDef module_def = {"rt_encode", "str to bytes through the Cystck API.", 0, module_defines};

CYSTCK_MODINIT(rt_encode)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
