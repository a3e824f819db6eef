/* The runtime grown to what PyPI extensions use: multi-phase init and module
 * state with fields, METH_CLASS/STATIC/COEXIST, weak references to
 * instances, code points, slices, integers as byte arrays, capsules and
 * releasing the GIL with handles held.  Driven by test_grow.py. */
#include "Cystck.h"

#include <pthread.h>
#include <string.h>

/* ---- module state ---- */

typedef struct {
    long counter;
    Cystck_Field kept;
    Cystck_Ref kept_ref;      /* a reference held by the state, made in a call */
} GrowState;

CYSTCK_DEF_MOD_TRAVERSE(grow_traverse_def, grow_traverse)
static int grow_traverse(void *state, Cystck_visitproc visit, void *arg)
{
    GrowState *st = (GrowState *)state;
    Cystck_VISIT(&st->kept);
    Cystck_VISIT_REF(&st->kept_ref);
    return 0;
}

CYSTCK_DEF_METH(bump_def, "bump", bump, CYSTCK_NOARGS, "increment this module object's counter")
static int bump(Cystck_State *S, Cystck_Object self)
{
    GrowState *st = (GrowState *)CystckModule_GetState(S, self);
    if (st == NULL)
        return -1;
    return Cystck_ReturnLong(S, ++st->counter);
}

CYSTCK_DEF_METH(keep_def, "keep", keep, CYSTCK_O, "keep obj in the module state")
static int keep(Cystck_State *S, Cystck_Object self, Cystck_Object obj)
{
    GrowState *st = (GrowState *)CystckModule_GetState(S, self);
    if (st == NULL)
        return -1;
    CystckField_Store(S, self, &st->kept, obj);
    return 0;
}

CYSTCK_DEF_METH(kept_def, "kept", kept, CYSTCK_NOARGS, "the object kept, or None")
static int kept(Cystck_State *S, Cystck_Object self)
{
    GrowState *st = (GrowState *)CystckModule_GetState(S, self);
    Cystck_Object h;
    if (st == NULL)
        return -1;
    h = CystckField_Load(S, self, st->kept);
    return Cystck_IsNull(h) ? 0 : Cystck_Return(S, h);
}

CYSTCK_DEF_METH(keep_ref_def, "keep_ref", keep_ref, CYSTCK_O, "keep obj in the state's reference")
static int keep_ref(Cystck_State *S, Cystck_Object self, Cystck_Object obj)
{
    GrowState *st = (GrowState *)CystckModule_GetState(S, self);
    if (st == NULL)
        return -1;
    Cystck_unref(S, st->kept_ref);
    st->kept_ref = Cystck_ref(S, obj);
    return st->kept_ref == NULL ? -1 : 0;
}

/* Keeps this module object alive for good (a reference nothing releases),
 * as a test suite may keep a module alive past the interpreter's exit. */
CYSTCK_DEF_METH(pin_def, "pin", pin, CYSTCK_NOARGS, "never free this module object")
static int pin(Cystck_State *S, Cystck_Object self)
{
    Py_INCREF(Cystck_AsPyObject(S, self));
    return 0;
}

/* ---- a type with weak references and bound methods ---- */

typedef struct {
    long value;
    Cystck_WeakList weaklist;
} Box;
CYSTCK_TYPE_HELPERS(Box)

static long boxes_destroyed;

CYSTCK_DEF_SLOT(Box_new_def, tp_new, Box_new)
static int Box_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                   Cystck_ssize_t nargs, Cystck_Object kw)
{
    long v = 0;
    Box *data;
    Cystck_Object self;
    if (!CystckArg_NoKeywords(S, "Box", kw) || !CystckArg_ParseTuple(S, args, nargs, "|l:Box", &v))
        return -1;
    self = Cystck_New(S, type, (void **)&data);
    if (Cystck_IsNull(self))
        return -1;
    data->value = v;
    return Cystck_Return(S, self);
}

CYSTCK_DEF_DESTROY(Box_destroy_def, Box_destroy)
static void Box_destroy(void *data)
{
    (void)data;
    boxes_destroyed++;
}

CYSTCK_DEF_WEAKLIST(Box_weaklist_def, Box, weaklist)

CYSTCK_DEF_SLOT(Box_len_def, sq_length, Box_len)
static Cystck_ssize_t Box_len(Cystck_State *S, Cystck_Object self)
{
    return Box_AsStruct(S, self)->value;
}

CYSTCK_DEF_METH_FLAGS(Box_coexist_len_def, "__len__", Box_coexist_len, CYSTCK_NOARGS, METH_COEXIST,
                      "the method beside the sq_length slot: value + 100")
static int Box_coexist_len(Cystck_State *S, Cystck_Object self)
{
    return Cystck_ReturnLong(S, Box_AsStruct(S, self)->value + 100);
}

CYSTCK_DEF_METH_FLAGS(Box_cls_def, "cls", Box_cls, CYSTCK_VARARGS, METH_CLASS,
                      "cls(*args) -> (the class it was called on, nargs)")
static int Box_cls(Cystck_State *S, Cystck_Object cls, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    (void)args;
    if (Cystck_Push(S, cls) < 0 || Cystck_PushSsize(S, nargs) < 0)
        return -1;
    return 2;
}

CYSTCK_DEF_METH_FLAGS(Box_static_def, "static", Box_static, CYSTCK_O, METH_STATIC,
                      "static(x) -> (self is the null handle, x)")
static int Box_static(Cystck_State *S, Cystck_Object self, Cystck_Object x)
{
    if (Cystck_PushBool(S, Cystck_IsNull(self)) < 0 || Cystck_Push(S, x) < 0)
        return -1;
    return 2;
}

static CystckModuleDef grow_def;

CYSTCK_DEF_METH(Box_home_def, "home", Box_home, CYSTCK_O,
                "home(how): the module of type(self) found by definition (0), the module "
                "type(self) was made for (1), or the counter in that module's state (2)")
static int Box_home(Cystck_State *S, Cystck_Object self, Cystck_Object how)
{
    Cystck_Object type = CystckObject_Type(S, self);
    GrowState *st;
    switch (CystckLong_AsLong(S, how)) {
    case 0: return Cystck_Return(S, CystckType_GetModuleByDef(S, type, &grow_def));
    case 1: return Cystck_Return(S, CystckType_GetModule(S, type));
    default:
        st = (GrowState *)CystckType_GetModuleState(S, type);
        return st == NULL ? -1 : Cystck_ReturnLong(S, st->counter);
    }
}

static CystckDef *Box_defines[] = {
    &Box_home_def,
    &Box_new_def, &Box_destroy_def, &Box_weaklist_def, &Box_len_def, &Box_coexist_len_def,
    &Box_cls_def, &Box_static_def, NULL
};
static CystckType_Spec Box_spec = {
    "rt_grow.Box", sizeof(Box), 0, CYSTCK_TPFLAGS_BASETYPE, Box_defines, "Box(value=0)"
};

/* The same without a destructor, and with a field: the runtime's own
 * deallocs (plain and generic) must clear weak references too. */
typedef struct { Cystck_WeakList weaklist; } Bare;
CYSTCK_DEF_WEAKLIST(Bare_weaklist_def, Bare, weaklist)
static CystckDef *Bare_defines[] = {&Bare_weaklist_def, NULL};
static CystckType_Spec Bare_spec = {"rt_grow.Bare", sizeof(Bare), 0, 0, Bare_defines, NULL};

typedef struct { Cystck_Field item; Cystck_WeakList weaklist; } Holder;
CYSTCK_DEF_WEAKLIST(Holder_weaklist_def, Holder, weaklist)
CYSTCK_DEF_SLOT(Holder_traverse_def, tp_traverse, Holder_traverse)
static int Holder_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Cystck_VISIT(&((Holder *)data)->item);
    return 0;
}
static CystckDef *Holder_defines[] = {&Holder_weaklist_def, &Holder_traverse_def, NULL};
static CystckType_Spec Holder_spec = {"rt_grow.Holder", sizeof(Holder), 0, 0, Holder_defines, NULL};

/* A GC type with a destructor whose instances chain through a field. */
typedef struct { Cystck_Field next; } Link;
static long links_destroyed;

CYSTCK_DEF_SLOT(Link_new_def, tp_new, Link_new)
static int Link_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                    Cystck_ssize_t nargs, Cystck_Object kw)
{
    Cystck_Object next = Cystck_None, self;
    Link *data;
    if (!CystckArg_NoKeywords(S, "Link", kw) || !CystckArg_ParseTuple(S, args, nargs, "|O:Link", &next))
        return -1;
    self = Cystck_New(S, type, (void **)&data);
    if (Cystck_IsNull(self))
        return -1;
    CystckField_Store(S, self, &data->next, next);
    return Cystck_Return(S, self);
}
CYSTCK_DEF_SLOT(Link_traverse_def, tp_traverse, Link_traverse)
static int Link_traverse(void *data, Cystck_visitproc visit, void *arg)
{
    Cystck_VISIT(&((Link *)data)->next);
    return 0;
}
CYSTCK_DEF_DESTROY(Link_destroy_def, Link_destroy)
static void Link_destroy(void *data)
{
    (void)data;
    links_destroyed++;
}
static CystckDef *Link_defines[] = {&Link_new_def, &Link_traverse_def, &Link_destroy_def, NULL};
static CystckType_Spec Link_spec = {
    "rt_grow.Link", sizeof(Link), 0, CYSTCK_TPFLAGS_BASETYPE, Link_defines, "Link(next=None)"
};

CYSTCK_DEF_METH(links_destroyed_def, "links_destroyed", links_destroyed_fn, CYSTCK_NOARGS,
                "how many Link destructors ran")
static int links_destroyed_fn(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_ReturnLong(S, links_destroyed);
}

CYSTCK_DEF_METH(boxes_destroyed_def, "boxes_destroyed", boxes_destroyed_fn, CYSTCK_NOARGS,
                "how many Box destructors ran")
static int boxes_destroyed_fn(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_ReturnLong(S, boxes_destroyed);
}

CYSTCK_DEF_METH(module_of_def, "module_of", module_of, CYSTCK_O,
                "module_of(type): CystckType_GetModuleByDef(type, this module's definition)")
static int module_of(Cystck_State *S, Cystck_Object self, Cystck_Object type)
{
    (void)self;
    return Cystck_Return(S, CystckType_GetModuleByDef(S, type, &grow_def));
}

CYSTCK_DEF_METH(find_state_def, "find_state", find_state, CYSTCK_NOARGS,
                "CystckModule_FindState on this module's definition")
static int find_state(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return CystckModule_FindState(S, &grow_def) == NULL ? -1 : 0;
}

CYSTCK_DEF_METH(new_instance_def, "new_instance", new_instance, CYSTCK_O,
                "a new instance of a Cystck type, made with Cystck_New")
static int new_instance(Cystck_State *S, Cystck_Object self, Cystck_Object type)
{
    (void)self;
    return Cystck_Return(S, Cystck_New(S, type, NULL));
}

/* ---- code points ---- */

CYSTCK_DEF_METH(unicode_new_def, "unicode_new", unicode_new, CYSTCK_VARARGS,
                "unicode_new(first, n): the str of code points first, first+1, ..., written "
                "through CystckUnicode_New and its kind's data")
static int unicode_new(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    unsigned long first;
    Cystck_ssize_t i, n;
    Cystck_Object s;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "kn", &first, &n))
        return -1;
    s = CystckUnicode_New(S, n, (Py_UCS4)(first + (unsigned long)n - 1));
    if (Cystck_IsNull(s))
        return -1;
    for (i = 0; i < n; i++) {
        Py_UCS4 c = (Py_UCS4)(first + (unsigned long)i);
        switch (CystckUnicode_KIND(S, s)) {
        case PyUnicode_1BYTE_KIND: CystckUnicode_1BYTE_DATA(S, s)[i] = (Py_UCS1)c; break;
        case PyUnicode_2BYTE_KIND: CystckUnicode_2BYTE_DATA(S, s)[i] = (Py_UCS2)c; break;
        default: CystckUnicode_4BYTE_DATA(S, s)[i] = c; break;
        }
    }
    return Cystck_Return(S, s);
}

CYSTCK_DEF_METH(code_points_def, "code_points", code_points, CYSTCK_O,
                "(READ_CHAR of each index, ReadChar of each index, MAX_CHAR_VALUE)")
static int code_points(Cystck_State *S, Cystck_Object self, Cystck_Object s)
{
    Cystck_ssize_t i, n = CystckUnicode_GetLength(S, s);
    Cystck_Object fast, checked;
    (void)self;
    if (n < 0)
        return -1;
    fast = CystckList_New(S, n);
    checked = CystckList_New(S, n);
    if (Cystck_IsNull(fast) || Cystck_IsNull(checked))
        return -1;
    for (i = 0; i < n; i++) {
        Py_UCS4 c = CystckUnicode_ReadChar(S, s, i);
        if (c == (Py_UCS4)-1)
            return -1;
        CystckList_SET_ITEM(S, fast, i, CystckLong_FromUnsignedLong(S, CystckUnicode_READ_CHAR(S, s, i)));
        CystckList_SET_ITEM(S, checked, i, CystckLong_FromUnsignedLong(S, c));
    }
    if (Cystck_Push(S, fast) < 0 || Cystck_Push(S, checked) < 0 ||
        Cystck_PushLong(S, (long)CystckUnicode_MAX_CHAR_VALUE(S, s)) < 0)
        return -1;
    return 3;
}

CYSTCK_DEF_METH(read_char_def, "read_char", read_char, CYSTCK_VARARGS, "read_char(s, i): CystckUnicode_ReadChar")
static int read_char(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object s;
    Cystck_ssize_t i;
    Py_UCS4 c;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "On", &s, &i))
        return -1;
    c = CystckUnicode_ReadChar(S, s, i);
    return c == (Py_UCS4)-1 ? -1 : Cystck_ReturnLong(S, (long)c);
}

CYSTCK_DEF_METH(write_chars_def, "write_chars", write_chars, CYSTCK_VARARGS,
                "write_chars(template, c, share): a copy of template with every code point "
                "replaced by c through CystckUnicode_WriteChar; share: write to template itself")
static int write_chars(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object t, s;
    unsigned long c;
    int share;
    Cystck_ssize_t i, n;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "Okp", &t, &c, &share))
        return -1;
    n = CystckUnicode_GetLength(S, t);
    if (n < 0)
        return -1;
    s = share ? t : CystckUnicode_New(S, n, CystckUnicode_MAX_CHAR_VALUE(S, t));
    if (Cystck_IsNull(s))
        return -1;
    for (i = 0; i < n; i++)
        if (CystckUnicode_WriteChar(S, s, i, (Py_UCS4)c) < 0)
            return -1;
    return Cystck_Return(S, s);
}

/* ---- the str writer ---- */

/* One part: int -> WriteChar, str -> WriteStr, bytes -> WriteASCIIString,
 * (str, start, end) -> WriteSubstring, (bytes,) -> WriteUTF8. */
static int write_part(Cystck_State *S, CystckUnicodeWriter *w, Cystck_Object part)
{
    if (CystckLong_Check(S, part)) {
        unsigned long c = CystckLong_AsUnsignedLong(S, part);
        return c == (unsigned long)-1 && CystckErr_Occurred(S) ? -1
               : CystckUnicodeWriter_WriteChar(S, w, (Py_UCS4)c);
    }
    if (CystckBytes_Check(S, part))
        return CystckUnicodeWriter_WriteASCIIString(S, w, CystckBytes_AS_STRING(S, part),
                                                    CystckBytes_GET_SIZE(S, part));
    if (CystckTuple_Check(S, part) && CystckTuple_GET_SIZE(S, part) == 1) {
        Cystck_Object b = CystckTuple_GET_ITEM(S, part, 0);
        return CystckUnicodeWriter_WriteUTF8(S, w, CystckBytes_AsString(S, b), CystckBytes_Size(S, b));
    }
    if (CystckTuple_Check(S, part)) {
        Cystck_Object s;
        Cystck_ssize_t start, end;
        if (!CystckArg_ParseTuple(S, (const Cystck_Object[]){CystckTuple_GetItem(S, part, 0),
                                     CystckTuple_GetItem(S, part, 1), CystckTuple_GetItem(S, part, 2)},
                                  3, "Onn", &s, &start, &end))
            return -1;
        return CystckUnicodeWriter_WriteSubstring(S, w, s, start, end);
    }
    return CystckUnicodeWriter_WriteStr(S, w, part);
}

CYSTCK_DEF_METH(build_str_def, "build_str", build_str, CYSTCK_O,
                "build_str(parts): the str a CystckUnicodeWriter builds from parts")
static int build_str(Cystck_State *S, Cystck_Object self, Cystck_Object parts)
{
    CystckUnicodeWriter w;
    Cystck_ssize_t i, n = CystckList_Size(S, parts);
    (void)self;
    if (n < 0 || CystckUnicodeWriter_Init(S, &w) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        Cystck_Scope sc = Cystck_OpenScope(S);
        int r = write_part(S, &w, CystckList_GetItem(S, parts, i));
        Cystck_CloseScope(S, sc);
        if (r < 0)
            return -1;          /* w is abandoned: the frame releases its str */
    }
    return Cystck_Return(S, CystckUnicodeWriter_Finish(S, &w));
}

CYSTCK_DEF_METH(writer_misuse_def, "writer_misuse", writer_misuse, CYSTCK_O,
                "writer_misuse(k): 0 write after Finish, 1 Finish twice, 2 write after Dealloc")
static int writer_misuse(Cystck_State *S, Cystck_Object self, Cystck_Object k)
{
    CystckUnicodeWriter w;
    long how = CystckLong_AsLong(S, k);
    (void)self;
    if (CystckUnicodeWriter_Init(S, &w) < 0 || CystckUnicodeWriter_WriteChar(S, &w, 'x') < 0)
        return -1;
    if (how == 2)
        CystckUnicodeWriter_Dealloc(S, &w);
    else if (Cystck_IsNull(CystckUnicodeWriter_Finish(S, &w)))
        return -1;
    if (how == 1)
        return Cystck_Return(S, CystckUnicodeWriter_Finish(S, &w));
    return CystckUnicodeWriter_WriteChar(S, &w, 'y');
}

/* ---- slices, slice assignment, indices ---- */

CYSTCK_DEF_METH(slice_indices_def, "slice_indices", slice_indices, CYSTCK_VARARGS,
                "slice_indices(s, length): CystckSlice_GetIndicesEx, then the same through "
                "CystckSlice_Unpack and CystckSlice_AdjustIndices: two (start, stop, step, len)")
static int slice_indices(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object s;
    Cystck_ssize_t length, start, stop, step, len, start2, stop2, step2, len2;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "On", &s, &length))
        return -1;
    if (CystckSlice_GetIndicesEx(S, s, length, &start, &stop, &step, &len) < 0 ||
        CystckSlice_Unpack(S, s, &start2, &stop2, &step2) < 0)
        return -1;
    len2 = CystckSlice_AdjustIndices(S, length, &start2, &stop2, step2);
    return Cystck_Return(S, Cystck_BuildValue(S, "(nnnn)(nnnn)", start, stop, step, len,
                                              start2, stop2, step2, len2));
}

CYSTCK_DEF_METH(list_set_slice_def, "list_set_slice", list_set_slice, CYSTCK_VARARGS,
                "list_set_slice(l, lo, hi, v): CystckList_SetSlice; v None deletes")
static int list_set_slice(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object l, v;
    Cystck_ssize_t lo, hi;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "OnnO", &l, &lo, &hi, &v))
        return -1;
    if (CystckList_SetSlice(S, l, lo, hi, Cystck_Is(S, v, Cystck_None) ? Cystck_NULL : v) < 0)
        return -1;
    return Cystck_ReturnLong(S, 0);
}

CYSTCK_DEF_METH(seq_slices_def, "seq_slices", seq_slices, CYSTCK_VARARGS,
                "seq_slices(seq, v): seq[1:3] = v, then del seq[0:1], then del seq[-1]")
static int seq_slices(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    (void)self;
    if (nargs != 2)
        return CystckErr_BadArgument(S);
    if (CystckSequence_SetSlice(S, args[0], 1, 3, args[1]) < 0 ||
        CystckSequence_DelSlice(S, args[0], 0, 1) < 0 ||
        CystckSequence_DelItem(S, args[0], -1) < 0)
        return -1;
    return 0;
}

CYSTCK_DEF_METH(as_ssize_def, "as_ssize", as_ssize, CYSTCK_VARARGS,
                "as_ssize(o, clip): CystckNumber_AsSsize_t with OverflowError, or clipped")
static int as_ssize(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object o;
    int clip;
    Cystck_ssize_t v;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "Op", &o, &clip))
        return -1;
    v = CystckNumber_AsSsize_t(S, o, clip ? Cystck_NULL : CystckExc_OverflowError);
    if (v == -1 && CystckErr_Occurred(S))
        return -1;
    return Cystck_ReturnSsize(S, v);
}

/* ---- integers as byte arrays ---- */

CYSTCK_DEF_METH(to_bytes_def, "to_bytes", to_bytes, CYSTCK_VARARGS,
                "to_bytes(o, n, little, signed): CystckLong_AsByteArray")
static int to_bytes(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_Object o;
    Cystck_ssize_t n;
    int little, is_signed;
    unsigned char buf[64];
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "Onpp", &o, &n, &little, &is_signed))
        return -1;
    if (n < 0 || n > (Cystck_ssize_t)sizeof(buf))
        return CystckErr_BadArgument(S);
    if (CystckLong_AsByteArray(S, o, buf, (size_t)n, little, is_signed) < 0)
        return -1;
    return Cystck_Return(S, CystckBytes_FromStringAndSize(S, (const char *)buf, n));
}

CYSTCK_DEF_METH(from_bytes_def, "from_bytes", from_bytes, CYSTCK_VARARGS,
                "from_bytes(b, little, signed): CystckLong_FromByteArray")
static int from_bytes(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    const char *b;
    Cystck_ssize_t n;
    int little, is_signed;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "y#pp", &b, &n, &little, &is_signed))
        return -1;
    return Cystck_Return(S, CystckLong_FromByteArray(S, (const unsigned char *)b, (size_t)n,
                                                     little, is_signed));
}

/* ---- capsules ---- */

static int capi_value = 42;
static int capi_other = 7;

CYSTCK_DEF_METH(capsule_roundtrip_def, "capsule_roundtrip", capsule_roundtrip, CYSTCK_O,
                "capsule_roundtrip(name): what the capsule functions say of a capsule named name")
static int capsule_roundtrip(Cystck_State *S, Cystck_Object self, Cystck_Object name_)
{
    const char *name = CystckUnicode_AsUTF8(S, name_);
    Cystck_Object c;
    int valid_before, valid_other;
    (void)self;
    if (name == NULL)
        return -1;
    c = CystckCapsule_New(S, &capi_value, name, NULL);
    if (Cystck_IsNull(c))
        return -1;
    valid_before = CystckCapsule_IsValid(S, c, name);
    valid_other = CystckCapsule_IsValid(S, c, "other.name");
    if (CystckCapsule_SetContext(S, c, &capi_other) < 0 ||
        CystckCapsule_SetPointer(S, c, &capi_other) < 0 ||
        CystckCapsule_SetName(S, c, "rt_grow.renamed") < 0)
        return -1;
    return Cystck_Return(S, Cystck_BuildValue(
        S, "(iisiiii)", valid_before, valid_other, CystckCapsule_GetName(S, c),
        CystckCapsule_GetContext(S, c) == &capi_other,
        *(int *)CystckCapsule_GetPointer(S, c, "rt_grow.renamed"),
        CystckCapsule_CheckExact(S, c), CystckCapsule_CheckExact(S, name_)));
}

CYSTCK_DEF_METH(capsule_import_def, "capsule_import", capsule_import, CYSTCK_O,
                "capsule_import(name): the int the pointer of the capsule at name points to")
static int capsule_import(Cystck_State *S, Cystck_Object self, Cystck_Object name_)
{
    const char *name = CystckUnicode_AsUTF8(S, name_);
    int *p;
    (void)self;
    if (name == NULL || (p = (int *)CystckCapsule_Import(S, name, 0)) == NULL)
        return -1;
    return Cystck_ReturnLong(S, *p);
}

/* ---- releasing the GIL with handles held ---- */

CYSTCK_DEF_METH(checksum_nogil_def, "checksum_nogil", checksum_nogil, CYSTCK_O,
                "checksum_nogil(b) -> (b, a checksum of its bytes computed without the GIL)")
static int checksum_nogil(Cystck_State *S, Cystck_Object self, Cystck_Object b)
{
    char *data;
    Cystck_ssize_t i, n;
    unsigned long sum = 0;
    Cystck_Object copy = CystckBytes_FromStringAndSize(S, NULL, 0);
    (void)self;
    if (Cystck_IsNull(copy) || CystckBytes_AsStringAndSize(S, b, &data, &n) < 0)
        return -1;
    /* No API call and no handle between these two lines: only the native
     * data reached before, which the handles keep alive. */
    Py_BEGIN_ALLOW_THREADS
    for (i = 0; i < n; i++)
        sum = sum * 31 + (unsigned char)data[i];
    Py_END_ALLOW_THREADS
    /* The handles made before are still valid. */
    if (Cystck_Push(S, b) < 0 || Cystck_Push(S, copy) < 0 || Cystck_PushLong(S, (long)(sum & 0x7fffffff)) < 0)
        return -1;
    return 3;
}

/* A C thread, started without the GIL, that calls back into Python: it
 * takes the GIL and opens a frame of its own. */
typedef struct {
    Cystck_Ref f;
    long n;
    Cystck_Ref results;       /* a list, filled by the thread */
    int failed;
} Callback;

static void *callback_thread(void *arg)
{
    Callback *cb = (Callback *)arg;
    PyGILState_STATE g = PyGILState_Ensure();
    Cystck_State S_, *S = &S_;
    long i;
    Cystck_OpenFrame(S);
    for (i = 0; i < cb->n && !cb->failed; i++) {
        Cystck_Object r;
        if (Cystck_Push(S, Cystck_deref(S, cb->f)) < 0 || Cystck_PushLong(S, i) < 0)
            cb->failed = 1;
        else if (Cystck_IsNull(r = Cystck_Call(S, 1)) ||
                 CystckList_Append(S, Cystck_deref(S, cb->results), r) < 0)
            cb->failed = 1;
    }
    if (Cystck_CloseFrame(S) < 0)
        cb->failed = 1;
    if (cb->failed)
        PyErr_Print();
    PyGILState_Release(g);
    return NULL;
}

CYSTCK_DEF_METH(call_from_thread_def, "call_from_thread", call_from_thread, CYSTCK_VARARGS,
                "call_from_thread(f, n): [f(0), ..., f(n-1)] called from a C thread")
static int call_from_thread(Cystck_State *S, Cystck_Object self, const Cystck_Object *args,
                            Cystck_ssize_t nargs)
{
    Callback cb = {NULL, 0, NULL, 0};
    Cystck_Object f, results;
    pthread_t t;
    int err;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "Ol", &f, &cb.n))
        return -1;
    results = CystckList_New(S, 0);
    if (Cystck_IsNull(results) || (cb.f = Cystck_ref(S, f)) == NULL ||
        (cb.results = Cystck_ref(S, results)) == NULL)
        return -1;
    Py_BEGIN_ALLOW_THREADS
    err = pthread_create(&t, NULL, callback_thread, &cb);
    if (err == 0)
        pthread_join(t, NULL);
    Py_END_ALLOW_THREADS
    Cystck_unref(S, cb.f);
    Cystck_unref(S, cb.results);
    if (err != 0 || cb.failed) {
        CystckErr_SetString(S, CystckExc_RuntimeError, "the callback thread failed");
        return -1;
    }
    return Cystck_Return(S, results);
}

/* ---- the module ---- */

static long execs;

CYSTCK_DEF_MOD_EXEC(grow_exec_def, grow_exec)
static int grow_exec(Cystck_State *S, Cystck_Object m)
{
    Cystck_Object type, capsule;
    execs++;
    if (CystckModule_AddIntConstant(S, m, "execs", execs) < 0)
        return -1;
    type = CystckType_FromModuleAndSpec(S, m, &Box_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    type = CystckType_FromSpec(S, &Bare_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    type = CystckType_FromSpec(S, &Holder_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    type = CystckType_FromSpec(S, &Link_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    capsule = CystckCapsule_New(S, &capi_value, "rt_grow.CAPI", NULL);
    return CystckModule_AddObjectRef(S, m, "CAPI", capsule);
}

/* A second exec slot runs after the first, on the same module. */
CYSTCK_DEF_MOD_EXEC(grow_exec2_def, grow_exec2)
static int grow_exec2(Cystck_State *S, Cystck_Object m)
{
    Cystck_Object execs_ = CystckObject_GetAttrString(S, m, "execs");
    return CystckModule_AddObjectRef(S, m, "execs_seen_by_second_slot", execs_);
}

CYSTCK_DEF_METH(single_phase_def, "single_phase", single_phase, CYSTCK_NOARGS,
                "CystckModule_Create on this module's (multi-phase) definition")
static int single_phase(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, CystckModule_Create(S, &grow_def));
}

static CystckDef *grow_defines[] = {
    &bump_def, &keep_def, &kept_def, &keep_ref_def, &boxes_destroyed_def, &links_destroyed_def, &new_instance_def, &module_of_def, &find_state_def,
    &unicode_new_def, &build_str_def, &writer_misuse_def, &code_points_def, &read_char_def, &write_chars_def,
    &slice_indices_def, &list_set_slice_def, &seq_slices_def, &as_ssize_def,
    &to_bytes_def, &from_bytes_def, &capsule_roundtrip_def, &capsule_import_def,
    &checksum_nogil_def, &call_from_thread_def, &single_phase_def,
    &grow_traverse_def, &grow_exec_def, &grow_exec2_def, NULL
};

static CystckModuleDef grow_def = {
    "rt_grow", "multi-phase Cystck test module", sizeof(GrowState), grow_defines
};

CYSTCK_MODINIT(rt_grow)
{
    return Cystck_Return(S, CystckModuleDef_Init(S, &grow_def));
}

/* ---- a second module in the same file, with a create slot ---- */

static CystckModuleDef created_def;

CYSTCK_DEF_MOD_CREATE(created_create_def, created_create)
static int created_create(Cystck_State *S, Cystck_Object spec, CystckModuleDef *def)
{
    Cystck_Object name = CystckObject_GetAttrString(S, spec, "name");
    Cystck_Object m = Cystck_IsNull(name) ? Cystck_NULL : CystckModule_NewObject(S, name);
    if (Cystck_IsNull(m) ||
        CystckObject_SetAttrString(S, m, "def_is_ours", def == &created_def ? Cystck_True : Cystck_False) < 0)
        return -1;
    return Cystck_Return(S, m);
}

CYSTCK_DEF_MOD_EXEC(created_exec_def, created_exec)
static int created_exec(Cystck_State *S, Cystck_Object m)
{
    Cystck_Object name = CystckModule_GetNameObject(S, m);
    return CystckObject_SetAttrString(S, m, "name_seen_by_exec", name);
}

/* No type refers to this module: without its functions, nothing but the
 * caller keeps it alive, and it is freed without the cyclic GC. */
static CystckDef *created_defines[] = {
    &created_create_def, &created_exec_def, &keep_def, &keep_ref_def, &pin_def, &grow_traverse_def, NULL
};
static CystckModuleDef created_def = {"rt_grow_created", NULL, sizeof(GrowState), created_defines};

CYSTCK_MODINIT(rt_grow_created)
{
    return Cystck_Return(S, CystckModuleDef_Init(S, &created_def));
}

/* ---- a third module, declaring an own GIL per interpreter and no GIL ---- */

#ifdef Py_mod_multiple_interpreters
CYSTCK_DEF_MOD_SLOT(isolated_interpreters_def, Py_mod_multiple_interpreters,
                    Py_MOD_PER_INTERPRETER_GIL_SUPPORTED)
#endif
#ifdef Py_mod_gil
CYSTCK_DEF_MOD_SLOT(isolated_gil_def, Py_mod_gil, Py_MOD_GIL_NOT_USED)
#endif
static CystckDef *isolated_defines[] = {
#ifdef Py_mod_multiple_interpreters
    &isolated_interpreters_def,
#endif
#ifdef Py_mod_gil
    &isolated_gil_def,
#endif
    NULL
};
static CystckModuleDef isolated_def = {"rt_grow_isolated", NULL, 0, isolated_defines};

CYSTCK_MODINIT(rt_grow_isolated)
{
    return Cystck_Return(S, CystckModuleDef_Init(S, &isolated_def));
}
