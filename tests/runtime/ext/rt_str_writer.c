/* The pointer str writer (CystckStrWriter, CPython 3.14's PyUnicodeWriter):
 * built in one call (build), or kept in a static pointer across calls
 * (start, add, finish, discard) as an extension keeps it in a struct. */
#include "Cystck.h"

#include <string.h>
#include <wchar.h>

/* A list of code points, copied into buf (at most 64). */
static Cystck_ssize_t code_points(Cystck_State *S, Cystck_Object list, Py_UCS4 *buf)
{
    Cystck_ssize_t i, n = CystckList_Size(S, list);
    if (n < 0)
        return -1;
    if (n > 64) {
        CystckErr_SetString(S, CystckExc_ValueError, "at most 64 code points");
        return -1;
    }
    for (i = 0; i < n; i++) {
        unsigned long c = CystckLong_AsUnsignedLong(S, CystckList_GetItem(S, list, i));
        if (c == (unsigned long)-1 && CystckErr_Occurred(S))
            return -1;
        buf[i] = (Py_UCS4)c;
    }
    return n;
}

/* (kind, value): "repr" -> WriteRepr (None: the null handle), "ucs4" ->
 * WriteUCS4 of a list of code points, "wide" -> WriteWideChar of one,
 * "utf8" -> WriteUTF8 of bytes. */
static int write_tagged(Cystck_State *S, CystckStrWriter *w, const char *kind, Cystck_Object v)
{
    Py_UCS4 ucs4[64];
    wchar_t wide[64];
    Cystck_ssize_t i, n;
    if (strcmp(kind, "repr") == 0)
        return CystckStrWriter_WriteRepr(S, w, Cystck_Is(S, v, Cystck_None) ? Cystck_NULL : v);
    if (strcmp(kind, "utf8") == 0)
        return CystckStrWriter_WriteUTF8(S, w, CystckBytes_AsString(S, v), CystckBytes_Size(S, v));
    if ((n = code_points(S, v, ucs4)) < 0)
        return -1;
    if (strcmp(kind, "ucs4") == 0)
        return CystckStrWriter_WriteUCS4(S, w, ucs4, n);
    for (i = 0; i < n; i++)
        wide[i] = (wchar_t)ucs4[i];
    return CystckStrWriter_WriteWideChar(S, w, wide, n);
}

/* One part: int -> WriteChar, str -> WriteStr, bytes -> WriteASCII,
 * (str, start, end) -> WriteSubstring, (kind: str, value) -> write_tagged,
 * anything else -> WriteStr (str(part)). */
static int write_part(Cystck_State *S, CystckStrWriter *w, Cystck_Object part)
{
    if (CystckLong_CheckExact(S, part)) {
        unsigned long c = CystckLong_AsUnsignedLong(S, part);
        return c == (unsigned long)-1 && CystckErr_Occurred(S) ? -1 : CystckStrWriter_WriteChar(S, w, (Py_UCS4)c);
    }
    if (CystckBytes_Check(S, part))
        return CystckStrWriter_WriteASCII(S, w, CystckBytes_AS_STRING(S, part), CystckBytes_GET_SIZE(S, part));
    if (CystckTuple_CheckExact(S, part) && CystckTuple_GET_SIZE(S, part) == 3) {
        Cystck_ssize_t start = CystckLong_AsSsize_t(S, CystckTuple_GET_ITEM(S, part, 1));
        Cystck_ssize_t end = CystckLong_AsSsize_t(S, CystckTuple_GET_ITEM(S, part, 2));
        if (CystckErr_Occurred(S))
            return -1;
        return CystckStrWriter_WriteSubstring(S, w, CystckTuple_GET_ITEM(S, part, 0), start, end);
    }
    if (CystckTuple_CheckExact(S, part) && CystckTuple_GET_SIZE(S, part) == 2) {
        const char *kind = CystckUnicode_AsUTF8(S, CystckTuple_GET_ITEM(S, part, 0));
        return kind == NULL ? -1 : write_tagged(S, w, kind, CystckTuple_GET_ITEM(S, part, 1));
    }
    return CystckStrWriter_WriteStr(S, w, part);
}

static int write_parts(Cystck_State *S, CystckStrWriter *w, Cystck_Object parts)
{
    Cystck_ssize_t i, n = CystckList_Size(S, parts);
    if (n < 0)
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope sc = Cystck_OpenScope(S);
        int r = write_part(S, w, CystckList_GetItem(S, parts, i));
        Cystck_CloseScope(S, sc);
        if (r < 0)
            return -1;
    }
    return 0;
}

CYSTCK_DEF_METH(build_def, "build", build, CYSTCK_VARARGS,
                "build(parts, length): the str a CystckStrWriter created with length builds from parts")
static int build(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    CystckStrWriter *w;
    Cystck_ssize_t length;
    (void)self;
    if (nargs != 2) {
        CystckErr_SetString(S, CystckExc_TypeError, "build(parts, length)");
        return -1;
    }
    if ((length = CystckLong_AsSsize_t(S, args[1])) == -1 && CystckErr_Occurred(S))
        return -1;
    if ((w = CystckStrWriter_Create(S, length)) == NULL)
        return -1;
    if (write_parts(S, w, args[0]) < 0) {
        CystckStrWriter_Discard(S, w);
        return -1;
    }
    return Cystck_Return(S, CystckStrWriter_Finish(S, w));
}

/* The writer kept across calls, as an extension keeps it in a struct. */
static CystckStrWriter *pending;

CYSTCK_DEF_METH(start_def, "start", start, CYSTCK_O, "start(length): create the pending writer")
static int start(Cystck_State *S, Cystck_Object self, Cystck_Object length)
{
    Cystck_ssize_t n = CystckLong_AsSsize_t(S, length);
    (void)self;
    if (n == -1 && CystckErr_Occurred(S))
        return -1;
    CystckStrWriter_Discard(S, pending);
    pending = CystckStrWriter_Create(S, n);
    return pending == NULL ? -1 : 0;
}

CYSTCK_DEF_METH(add_def, "add", add, CYSTCK_O, "add(parts): write parts into the pending writer")
static int add(Cystck_State *S, Cystck_Object self, Cystck_Object parts)
{
    (void)self;
    return write_parts(S, pending, parts) < 0 ? -1 : 0;
}

CYSTCK_DEF_METH(finish_def, "finish", finish, CYSTCK_NOARGS, "finish(): finish the pending writer (then none is pending)")
static int finish(Cystck_State *S, Cystck_Object self)
{
    Cystck_Object s = CystckStrWriter_Finish(S, pending);
    (void)self;
    pending = NULL;
    return Cystck_Return(S, s);
}

CYSTCK_DEF_METH(discard_def, "discard", discard, CYSTCK_NOARGS, "discard(): discard the pending writer, if any")
static int discard(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    CystckStrWriter_Discard(S, pending);
    pending = NULL;
    return 0;
}

CYSTCK_DEF_METH(use_after_end_def, "use_after_end", use_after_end, CYSTCK_O,
                "use_after_end(k): the writer used after it ended (debug mode only: else freed memory): "
                "0 write after Finish, 1 Finish twice, 2 Finish after Discard, 3 Discard twice")
static int use_after_end(Cystck_State *S, Cystck_Object self, Cystck_Object k)
{
    long how = CystckLong_AsLong(S, k);
    CystckStrWriter *w = CystckStrWriter_Create(S, 0);
    (void)self;
    if (w == NULL || CystckStrWriter_WriteChar(S, w, 'x') < 0)
        return -1;
    if (how < 2 && Cystck_IsNull(CystckStrWriter_Finish(S, w)))
        return -1;
    if (how >= 2)
        CystckStrWriter_Discard(S, w);
    if (how == 0)
        return CystckStrWriter_WriteChar(S, w, 'y');
    if (how == 3) {
        CystckStrWriter_Discard(S, w);
        return CystckErr_Occurred(S) ? -1 : 0;
    }
    return Cystck_Return(S, CystckStrWriter_Finish(S, w));
}

static CystckDef *str_writer_defines[] = {&build_def, &start_def, &add_def, &finish_def, &discard_def,
                                          &use_after_end_def, NULL};

static CystckModuleDef str_writer_def = {"rt_str_writer", "the pointer str writer", 0, str_writer_defines};

CYSTCK_MODINIT(rt_str_writer)
{
    return Cystck_Return(S, CystckModule_Create(S, &str_writer_def));
}
