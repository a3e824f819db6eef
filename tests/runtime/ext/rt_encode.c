/* CystckUnicode_AsEncodedString, CystckUnicode_AsUTF8String,
 * CystckUnicode_DecodeUTF8 and CystckUnicode_FromStringAndSize
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

CYSTCK_DEF_METH(decode_utf8_def, "decode_utf8", decode_utf8, CYSTCK_VARARGS,
                "decode_utf8(b, errors=None) -> str")
static int decode_utf8(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    const char *s, *errors = NULL;
    Cystck_ssize_t n;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "y#|z:decode_utf8", &s, &n, &errors))
        return -1;
    return Cystck_Return(S, CystckUnicode_DecodeUTF8(S, s, n, errors));
}

CYSTCK_DEF_METH(from_string_and_size_def, "from_string_and_size", from_string_and_size, CYSTCK_VARARGS,
                "from_string_and_size(b, n=len(b)) -> str")
static int from_string_and_size(Cystck_State *S, Cystck_Object self, const Cystck_Object *args,
                                Cystck_ssize_t nargs)
{
    const char *s;
    Cystck_ssize_t n, size = -2;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "y#|n:from_string_and_size", &s, &n, &size))
        return -1;
    return Cystck_Return(S, CystckUnicode_FromStringAndSize(S, s, size == -2 ? n : size));
}

static CystckDef *module_defines[] = {&as_encoded_def, &as_utf8_def, &decode_utf8_def, &from_string_and_size_def,
                                      NULL};
static CystckModuleDef module_def = {"rt_encode", "str to bytes and back through the Cystck API.", 0, module_defines};

CYSTCK_MODINIT(rt_encode)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
