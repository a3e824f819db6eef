/* The bytes writer (CystckBytesWriter): bytes and str written straight into
 * the storage of the object returned.  Driven by test_writers.py. */
#include "Cystck.h"

#include <string.h>

/* Append each bytes of parts, growing by exactly what each needs. */
static char *write_parts(Cystck_State *S, CystckBytesWriter *w, char *p, Cystck_Object parts)
{
    Cystck_ssize_t i, n = CystckList_Size(S, parts);
    if (n < 0)
        return NULL;
    for (i = 0; i < n; i++) {
        Cystck_Object part = CystckList_GetItem(S, parts, i);
        char *data;
        Cystck_ssize_t len;
        if (CystckBytes_AsStringAndSize(S, part, &data, &len) < 0)
            return NULL;
        if (CystckBytesWriter_End(w) - p < len && (p = CystckBytesWriter_Grow(S, w, p, len)) == NULL)
            return NULL;
        memcpy(p, data, (size_t)len);
        p += len;
        Cystck_Drop(S, part);
    }
    return p;
}

CYSTCK_DEF_METH(build_def, "build", build, CYSTCK_VARARGS,
                "build(parts, size, str, errors=None, on_stack=False): the bytes (or str of UTF-8) "
                "written from the bytes in parts, into a writer started with size bytes (of a buffer "
                "on the C stack if on_stack, size <= 4096)")
static int build(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object parts;
    Cystck_ssize_t size;
    int str;
    const char *errors = NULL;
    int on_stack = 0;
    char stack[4096], *buf;
    CystckBytesWriter w;
    char *p;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "Onp|zp", &parts, &size, &str, &errors, &on_stack))
        return -1;
    if (on_stack && size > (Cystck_ssize_t)sizeof stack)
        return CystckErr_SetString(S, CystckExc_ValueError, "size > 4096 on the stack"), -1;
    buf = on_stack ? stack : NULL;
    p = str ? CystckBytesWriter_InitStr(S, &w, buf, size, errors) : CystckBytesWriter_Init(S, &w, buf, size);
    if (p == NULL || (p = write_parts(S, &w, p, parts)) == NULL)
        return -1;          /* w is abandoned: the frame releases its object */
    return Cystck_Return(S, CystckBytesWriter_Finish(S, &w, p));
}

CYSTCK_DEF_METH(in_place_def, "in_place", in_place, CYSTCK_VARARGS,
                "in_place(data, str): whether the object built from data, in a writer of exactly "
                "len(data) bytes, has its storage where the writer wrote")
static int in_place(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    const char *data;
    Cystck_ssize_t len;
    int str;
    CystckBytesWriter w;
    char *start;
    Cystck_Object result;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "y#p", &data, &len, &str))
        return -1;
    start = str ? CystckBytesWriter_InitStr(S, &w, NULL, len, NULL) : CystckBytesWriter_Init(S, &w, NULL, len);
    if (start == NULL)
        return -1;
    memcpy(start, data, (size_t)len);
    result = CystckBytesWriter_Finish(S, &w, start + len);
    if (Cystck_IsNull(result))
        return -1;
    return Cystck_ReturnBool(S, (str ? (char *)CystckUnicode_DATA(S, result)
                                     : CystckBytes_AS_STRING(S, result)) == start);
}

CYSTCK_DEF_METH(misuse_def, "misuse", misuse, CYSTCK_O,
                "misuse(k): 0 write after Finish, 1 Finish twice, 2 Finish after Discard, "
                "3 Grow from a position before the storage, 4 Finish past its end, 5 negative Grow")
static int misuse(Cystck_State *S, Cystck_Object self, Cystck_Object k)
{
    CystckBytesWriter w;
    long how = CystckLong_AsLong(S, k);
    char *p;
    (void)self;
    if ((p = CystckBytesWriter_InitStr(S, &w, NULL, 4, NULL)) == NULL)
        return -1;
    switch (how) {
    case 0: case 1:
        if (Cystck_IsNull(CystckBytesWriter_Finish(S, &w, p)))
            return -1;
        if (how == 0)
            return CystckBytesWriter_Grow(S, &w, p, 1) == NULL ? -1 : 0;
        return Cystck_Return(S, CystckBytesWriter_Finish(S, &w, p));
    case 2:
        CystckBytesWriter_Discard(S, &w);
        return Cystck_Return(S, CystckBytesWriter_Finish(S, &w, p));
    case 3:
        return CystckBytesWriter_Grow(S, &w, p - 1, 100) == NULL ? -1 : 0;
    case 4:
        return Cystck_Return(S, CystckBytesWriter_Finish(S, &w, p + 5));
    default:
        return CystckBytesWriter_Grow(S, &w, p, -1) == NULL ? -1 : 0;
    }
}

static CystckDef *writers_defines[] = {&build_def, &in_place_def, &misuse_def, NULL};

static CystckModuleDef writers_def = {"rt_writers", "the bytes writer", 0, writers_defines};

CYSTCK_MODINIT(rt_writers)
{
    return Cystck_Return(S, CystckModule_Create(S, &writers_def));
}
