/* Buffers: a type exporting its doubles through bf_getbuffer and
 * bf_releasebuffer, one exporting bytes with CystckBuffer_FillInfo, and
 * native blocks exposed as typed memoryviews. */
#include "Cystck.h"

/* ---- Vec: up to 8 doubles, exported as a 'd' buffer of shape (n,) ---- */

typedef struct {
    Cystck_ssize_t n;
    int frozen;             /* refuse writable buffers */
    int exports;            /* buffers handed out and not yet released */
    double data[8];
} Vec;
CYSTCK_TYPE_HELPERS(Vec)

CYSTCK_DEF_SLOT(Vec_new, tp_new, Vec_new_impl)
static int Vec_new_impl(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                        Cystck_ssize_t nargs, Cystck_Object kw)
{
    Cystck_ssize_t n, i;
    int frozen = 0;
    Vec *v;
    Cystck_Object self;
    (void)kw;
    if (!CystckArg_ParseTuple(S, args, nargs, "n|p:Vec", &n, &frozen))
        return -1;
    if (n < 0 || n > 8) {
        CystckErr_SetString(S, CystckExc_ValueError, "Vec holds 0 to 8 doubles");
        return -1;
    }
    self = Cystck_New(S, type, (void **)&v);
    if (Cystck_IsNull(self))
        return -1;
    v->n = n;
    v->frozen = frozen;
    v->exports = 0;
    for (i = 0; i < n; i++)
        v->data[i] = 1.5 * (double)i;
    return Cystck_Return(S, self);
}

/* Filled by hand: view->obj is left to the runtime. */
CYSTCK_DEF_SLOT(Vec_getbuffer, bf_getbuffer, Vec_getbuffer_impl)
static int Vec_getbuffer_impl(Cystck_State *S, Cystck_Object self, Py_buffer *view, int flags)
{
    Vec *v = Vec_AsStruct(S, self);
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && v->frozen) {
        CystckErr_SetString(S, CystckExc_BufferError, "Vec is frozen");
        return -1;
    }
    view->buf = v->data;
    view->len = v->n * (Cystck_ssize_t)sizeof(double);
    view->readonly = v->frozen;
    view->itemsize = sizeof(double);
    view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? (char *)"d" : NULL;
    view->ndim = 1;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? &v->n : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? &view->itemsize : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    v->exports++;
    return 0;
}

CYSTCK_DEF_SLOT(Vec_releasebuffer, bf_releasebuffer, Vec_releasebuffer_impl)
static void Vec_releasebuffer_impl(Cystck_State *S, Cystck_Object self, Py_buffer *view)
{
    (void)view;
    Vec_AsStruct(S, self)->exports--;
}

CYSTCK_DEF_METH(Vec_exports, "exports", Vec_exports_impl, CYSTCK_NOARGS, "buffers not yet released")
static int Vec_exports_impl(Cystck_State *S, Cystck_Object self)
{
    return Cystck_ReturnLong(S, Vec_AsStruct(S, self)->exports);
}

CYSTCK_DEF_METH(Vec_get, "get", Vec_get_impl, CYSTCK_O, "item i, read from C")
static int Vec_get_impl(Cystck_State *S, Cystck_Object self, Cystck_Object i)
{
    Cystck_ssize_t k = CystckLong_AsSsize_t(S, i);
    Vec *v = Vec_AsStruct(S, self);
    if (k < 0 || k >= v->n) {
        CystckErr_SetString(S, CystckExc_IndexError, "Vec index out of range");
        return -1;
    }
    return Cystck_ReturnDouble(S, v->data[k]);
}

static CystckDef *Vec_defines[] = {&Vec_new, &Vec_getbuffer, &Vec_releasebuffer, &Vec_exports,
                                   &Vec_get, NULL};
static CystckType_Spec Vec_spec = {"rt_buffer.Vec", sizeof(Vec), 0, 0, Vec_defines, NULL};

/* ---- Blob: 4 bytes, exported with CystckBuffer_FillInfo ---- */

typedef struct { char bytes[4]; } Blob;
CYSTCK_TYPE_HELPERS(Blob)

CYSTCK_DEF_SLOT(Blob_getbuffer, bf_getbuffer, Blob_getbuffer_impl)
static int Blob_getbuffer_impl(Cystck_State *S, Cystck_Object self, Py_buffer *view, int flags)
{
    Blob *b = Blob_AsStruct(S, self);
    b->bytes[0] = 'b'; b->bytes[1] = 'l'; b->bytes[2] = 'o'; b->bytes[3] = 'b';
    return CystckBuffer_FillInfo(S, view, self, b->bytes, 4, 1, flags);
}

static CystckDef *Blob_defines[] = {&Blob_getbuffer, NULL};
static CystckType_Spec Blob_spec = {"rt_buffer.Blob", sizeof(Blob), 0, 0, Blob_defines, NULL};

/* ---- Native blocks as typed memoryviews ---- */

/* doubles(n): n doubles i / 2 in a block the C side frees at once: the
 * view's refcount policy keeps the memory. */
CYSTCK_DEF_METH(doubles_def, "doubles", doubles, CYSTCK_O, "a 'd' memoryview of a native block")
static int doubles(Cystck_State *S, Cystck_Object self, Cystck_Object arg)
{
    Cystck_ssize_t n = CystckLong_AsSsize_t(S, arg), i;
    double *p;
    Cystck_Object view;
    (void)self;
    if (n < 0)
        return -1;
    p = (double *)CystckMem_Malloc(S, (size_t)n * sizeof(double));
    if (p == NULL)
        return -1;
    for (i = 0; i < n; i++)
        p[i] = (double)i / 2;
    view = CystckMem_AsTypedMemoryView(S, p, "d", sizeof(double), n, 0);
    CystckMem_Free(S, p);
    return Cystck_Return(S, view);
}

/* typed(format, itemsize, n): a view of a 64-byte block, for the checks. */
CYSTCK_DEF_METH(typed_def, "typed", typed, CYSTCK_VARARGS, "typed(format, itemsize, n)")
static int typed(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    const char *format;
    Cystck_ssize_t itemsize, n;
    void *p;
    Cystck_Object view;
    (void)self;
    if (!CystckArg_ParseTuple(S, args, nargs, "snn", &format, &itemsize, &n))
        return -1;
    p = CystckMem_Calloc(S, 64, 1);
    if (p == NULL)
        return -1;
    view = CystckMem_AsTypedMemoryView(S, p, format, itemsize, n, 1);
    CystckMem_Free(S, p);
    return Cystck_Return(S, view);
}

/* writable_len(o): len of o's buffer, asking for a writable one. */
CYSTCK_DEF_METH(writable_len_def, "writable_len", writable_len, CYSTCK_O, "consumer side")
static int writable_len(Cystck_State *S, Cystck_Object self, Cystck_Object o)
{
    Py_buffer view;
    Cystck_ssize_t len;
    (void)self;
    if (CystckObject_GetBuffer(S, o, &view, PyBUF_WRITABLE) < 0)
        return -1;
    len = view.len;
    CystckBuffer_Release(S, &view);
    return Cystck_ReturnSsize(S, len);
}

static CystckDef *defines[] = {&doubles_def, &typed_def, &writable_len_def, NULL};
static CystckModuleDef module_def = {"rt_buffer", "buffers", 0, defines};

CYSTCK_MODINIT(rt_buffer)
{
    Cystck_Object m = CystckModule_Create(S, &module_def);
    if (Cystck_IsNull(m)
            || CystckModule_AddType(S, m, CystckType_FromSpec(S, &Vec_spec, Cystck_NULL)) < 0
            || CystckModule_AddType(S, m, CystckType_FromSpec(S, &Blob_spec, Cystck_NULL)) < 0)
        return -1;
    return Cystck_Return(S, m);
}
