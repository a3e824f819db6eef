/*
 * cystck/typed.h -- typed method definitions.  Included by Cystck.h.
 *
 * A typed method declares its C signature once and gets a trampoline that
 * unboxes the arguments and boxes the result with code the compiler
 * generates for that signature (no format string read at run time):
 *
 *     static long kwargs(Cystck_State *S, Cystck_Object self,
 *                        long a, long b, long c, long d) { ... }
 *     CYSTCK_DEF_TYPED(kwargs_def, "kwargs", kwargs, LONG, "the sum",
 *                      CYSTCK_ARG(LONG, a), CYSTCK_ARG(LONG, b),
 *                      CYSTCK_OPT(LONG, c, 0), CYSTCK_OPT(LONG, d, 0))
 *
 * binds like PyArg_ParseTupleAndKeywords(args, kw, "ll|ll:kwargs", ...)
 * and raises what it raises; CYSTCK_DEF_TYPED_POSONLY binds like
 * PyArg_ParseTuple.  The implementation's prototype is checked against the
 * declaration: a mismatch does not compile.  See docs/typed.md.
 */
#ifndef CYSTCK_TYPED_H
#define CYSTCK_TYPED_H

#ifdef __cplusplus
extern "C" {
#endif

/* One converted argument (the trampoline's scratch, and the slow path's). */
typedef union {
    long l;
    long long ll;
    Py_ssize_t n;
    int i;
    double d;
    const char *s;
    PyObject *o;
} _Cystck_TypedValue;

#define CYSTCK_TYPED_MAX_PARAMS 8

/* What the runtime knows of a typed method: the slow path binds and
 * converts with it, and CystckModule_Create publishes it (see
 * docs/typed.md).  One per definition, constant. */
typedef struct _Cystck_TypedSig {
    const char *name;          /* the Python name, for messages */
    int nparams, nrequired;
    int keywords;              /* 1: PyArg_ParseTupleAndKeywords, 0: PyArg_ParseTuple */
    const char *codes;         /* one PyArg format unit per parameter: "lldO" */
    char ret;                  /* result: a format unit, 'N' for None, 'O' for a push count */
    const char *const *names;  /* parameter names */
    void (*impl)(void);        /* the implementation, for callers that skip the boxing */
} _Cystck_TypedSig;

/* The last keyword-names tuple a definition was called with and where each
 * parameter's value comes from in the vectorcall array: a call site passes
 * the same constant tuple every time.  Holds a reference to the tuple. */
typedef struct {
    PyObject *kwnames;
    Py_ssize_t nargs;
    unsigned present;          /* bit i: parameter i was given */
    signed char src[CYSTCK_TYPED_MAX_PARAMS];
} _Cystck_TypedCache;

/* Bind and convert a call the inline paths do not take (the general case,
 * and every error): 0 with v and *present filled, or -1 with CPython's
 * exception for the same format. */
CYSTCK_INTERNAL int _Cystck_TypedBind(const _Cystck_TypedSig *sig, _Cystck_TypedCache *cache,
                                      PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                      _Cystck_TypedValue *v, unsigned *present);
/* Convert argument i, of any type (the inline unboxing takes only exact
 * types): 0, or -1 with the exception PyArg_Parse* raises. */
CYSTCK_INTERNAL int _Cystck_TypedConvert(const _Cystck_TypedSig *sig, int i, PyObject *o,
                                         _Cystck_TypedValue *v);

/* ---- inline unboxing of the common exact types: 1 done, 0 not handled ---- */

/* An exact int of at most one digit: its value, read inline. */
static inline int _Cystck_CompactLong(PyObject *o, long *out)
{
#if PY_VERSION_HEX >= 0x030C0000
    if (PyLong_CheckExact(o) && PyUnstable_Long_IsCompact((PyLongObject *)o)) {
        *out = (long)PyUnstable_Long_CompactValue((PyLongObject *)o);
        return 1;
    }
#elif PY_VERSION_HEX >= 0x030B0000
    if (PyLong_CheckExact(o)) {
        Py_ssize_t size = Py_SIZE(o);
        if (size >= -1 && size <= 1) {
            /* a zero's digit is not always written: test the size */
            *out = size ? (long)size * (long)((PyLongObject *)o)->ob_digit[0] : 0;
            return 1;
        }
    }
#else
    (void)o; (void)out;
#endif
    return 0;
}
/* PyLong_AsLong with a compact exact int read inline (CystckLong_AsLong, the
 * typed item accessors, the argument parser's 'l'): most ints converted are
 * small, and the stock call costs about as much as a whole Cystck call's
 * frame.  Anything else, errors included, goes to PyLong_AsLong. */
static inline long _Cystck_AsLong(PyObject *o)
{
    long v;
    return _Cystck_CompactLong(o, &v) ? v : PyLong_AsLong(o);
}
/* Digits have at most 30 bits, so a compact value fits every integer type. */
static inline int _Cystck_UnboxLong(PyObject *o, _Cystck_TypedValue *v) { return _Cystck_CompactLong(o, &v->l); }
static inline int _Cystck_UnboxLongLong(PyObject *o, _Cystck_TypedValue *v)
{
    long x;
    if (!_Cystck_CompactLong(o, &x))
        return 0;
    v->ll = x;
    return 1;
}
static inline int _Cystck_UnboxSsize(PyObject *o, _Cystck_TypedValue *v)
{
    long x;
    if (!_Cystck_CompactLong(o, &x))
        return 0;
    v->n = (Py_ssize_t)x;
    return 1;
}
static inline int _Cystck_UnboxInt(PyObject *o, _Cystck_TypedValue *v)
{
    long x;
    if (!_Cystck_CompactLong(o, &x))
        return 0;
    v->i = (int)x;
    return 1;
}
static inline int _Cystck_UnboxBool(PyObject *o, _Cystck_TypedValue *v)
{
    if (o != Py_True && o != Py_False)
        return 0;
    v->i = o == Py_True;
    return 1;
}
static inline int _Cystck_UnboxDouble(PyObject *o, _Cystck_TypedValue *v)
{
    if (!PyFloat_CheckExact(o))
        return 0;
    v->d = PyFloat_AS_DOUBLE(o);
    return 1;
}
/* Strings go through the converter: it checks for embedded nulls. */
static inline int _Cystck_UnboxStr(PyObject *o, _Cystck_TypedValue *v) { (void)o; (void)v; return 0; }
static inline int _Cystck_UnboxObject(PyObject *o, _Cystck_TypedValue *v) { v->o = o; return 1; }

/* ---- the type tags: C type, union field, format unit, unboxing ---- */

#define _CYSTCK_CTYPE_CystckT_LONG     long
#define _CYSTCK_CTYPE_CystckT_LONGLONG long long
#define _CYSTCK_CTYPE_CystckT_SSIZE    Py_ssize_t
#define _CYSTCK_CTYPE_CystckT_INT      int
#define _CYSTCK_CTYPE_CystckT_BOOL     int
#define _CYSTCK_CTYPE_CystckT_DOUBLE   double
#define _CYSTCK_CTYPE_CystckT_STR      const char *
#define _CYSTCK_CTYPE_CystckT_OBJECT   Cystck_Object

#define _CYSTCK_FIELD_CystckT_LONG     l
#define _CYSTCK_FIELD_CystckT_LONGLONG ll
#define _CYSTCK_FIELD_CystckT_SSIZE    n
#define _CYSTCK_FIELD_CystckT_INT      i
#define _CYSTCK_FIELD_CystckT_BOOL     i
#define _CYSTCK_FIELD_CystckT_DOUBLE   d
#define _CYSTCK_FIELD_CystckT_STR      s
#define _CYSTCK_FIELD_CystckT_OBJECT   o

#define _CYSTCK_CODE_CystckT_LONG      "l"
#define _CYSTCK_CODE_CystckT_LONGLONG  "L"
#define _CYSTCK_CODE_CystckT_SSIZE     "n"
#define _CYSTCK_CODE_CystckT_INT       "i"
#define _CYSTCK_CODE_CystckT_BOOL      "p"
#define _CYSTCK_CODE_CystckT_DOUBLE    "d"
#define _CYSTCK_CODE_CystckT_STR       "s"
#define _CYSTCK_CODE_CystckT_OBJECT    "O"

#define _CYSTCK_UNBOX_CystckT_LONG     _Cystck_UnboxLong
#define _CYSTCK_UNBOX_CystckT_LONGLONG _Cystck_UnboxLongLong
#define _CYSTCK_UNBOX_CystckT_SSIZE    _Cystck_UnboxSsize
#define _CYSTCK_UNBOX_CystckT_INT      _Cystck_UnboxInt
#define _CYSTCK_UNBOX_CystckT_BOOL     _Cystck_UnboxBool
#define _CYSTCK_UNBOX_CystckT_DOUBLE   _Cystck_UnboxDouble
#define _CYSTCK_UNBOX_CystckT_STR      _Cystck_UnboxStr
#define _CYSTCK_UNBOX_CystckT_OBJECT   _Cystck_UnboxObject

/* The value the implementation receives: an object parameter becomes a
 * borrowed handle (null when an optional one is not given). */
#define _CYSTCK_ARGVAL_CystckT_OBJECT(v) _Cystck_H(&(v).o)
#define _CYSTCK_ARGVAL_PLAIN(TT, v)      (v)._CYSTCK_FIELD_##TT
#define _CYSTCK_ARGVAL_CystckT_LONG(v)     _CYSTCK_ARGVAL_PLAIN(CystckT_LONG, v)
#define _CYSTCK_ARGVAL_CystckT_LONGLONG(v) _CYSTCK_ARGVAL_PLAIN(CystckT_LONGLONG, v)
#define _CYSTCK_ARGVAL_CystckT_SSIZE(v)    _CYSTCK_ARGVAL_PLAIN(CystckT_SSIZE, v)
#define _CYSTCK_ARGVAL_CystckT_INT(v)      _CYSTCK_ARGVAL_PLAIN(CystckT_INT, v)
#define _CYSTCK_ARGVAL_CystckT_BOOL(v)     _CYSTCK_ARGVAL_PLAIN(CystckT_BOOL, v)
#define _CYSTCK_ARGVAL_CystckT_DOUBLE(v)   _CYSTCK_ARGVAL_PLAIN(CystckT_DOUBLE, v)
#define _CYSTCK_ARGVAL_CystckT_STR(v)      _CYSTCK_ARGVAL_PLAIN(CystckT_STR, v)

/* A default in the text signature: as written, except that an object
 * parameter's default (the null handle) reads as None. */
#define _CYSTCK_PYDEFAULT(TT, D) _CYSTCK_PYDEFAULT_##TT(D)
#define _CYSTCK_PYDEFAULT_CystckT_LONG(D)     #D
#define _CYSTCK_PYDEFAULT_CystckT_LONGLONG(D) #D
#define _CYSTCK_PYDEFAULT_CystckT_SSIZE(D)    #D
#define _CYSTCK_PYDEFAULT_CystckT_INT(D)      #D
#define _CYSTCK_PYDEFAULT_CystckT_BOOL(D)     #D
#define _CYSTCK_PYDEFAULT_CystckT_DOUBLE(D)   #D
#define _CYSTCK_PYDEFAULT_CystckT_STR(D)      #D
#define _CYSTCK_PYDEFAULT_CystckT_OBJECT(D)   "None"

/* Results: the implementation's C return type, the runtime's code for it,
 * and how the trampoline turns it into the call's result.  A value result
 * signals an error as -1 with an exception set (Argument Clinic's rule);
 * OBJECT returns a push count and NONE returns 0 or -1, as other methods. */
#define _CYSTCK_RTYPE_CystckT_LONG     long
#define _CYSTCK_RTYPE_CystckT_LONGLONG long long
#define _CYSTCK_RTYPE_CystckT_SSIZE    Py_ssize_t
#define _CYSTCK_RTYPE_CystckT_INT      int
#define _CYSTCK_RTYPE_CystckT_BOOL     int
#define _CYSTCK_RTYPE_CystckT_DOUBLE   double
#define _CYSTCK_RTYPE_CystckT_OBJECT   int
#define _CYSTCK_RTYPE_CystckT_NONE     int

#define _CYSTCK_RCODE_CystckT_LONG     'l'
#define _CYSTCK_RCODE_CystckT_LONGLONG 'L'
#define _CYSTCK_RCODE_CystckT_SSIZE    'n'
#define _CYSTCK_RCODE_CystckT_INT      'i'
#define _CYSTCK_RCODE_CystckT_BOOL     'p'
#define _CYSTCK_RCODE_CystckT_DOUBLE   'd'
#define _CYSTCK_RCODE_CystckT_OBJECT   'O'
#define _CYSTCK_RCODE_CystckT_NONE     'N'

#define _CYSTCK_BOX_CystckT_LONG     PyLong_FromLong
#define _CYSTCK_BOX_CystckT_LONGLONG PyLong_FromLongLong
#define _CYSTCK_BOX_CystckT_SSIZE    PyLong_FromSsize_t
#define _CYSTCK_BOX_CystckT_INT      PyLong_FromLong
#define _CYSTCK_BOX_CystckT_BOOL     PyBool_FromLong
#define _CYSTCK_BOX_CystckT_DOUBLE   PyFloat_FromDouble

/* Close the frame S and box r, the value an implementation returned. */
#define _CYSTCK_TYPED_BOX(TT, S, r, func)                                     \
    ((_Cystck_FinishInt((S), 0, (func)) < 0 || ((r) == -1 && PyErr_Occurred())) \
     ? NULL : _CYSTCK_BOX_##TT(r))
#define _CYSTCK_TYPED_FINISH(TT, S, CALL, func) _CYSTCK_TYPED_FINISH_##TT(S, CALL, func)
#define _CYSTCK_TYPED_FINISH_VALUE(TT, S, CALL, func)                         \
    { _CYSTCK_RTYPE_##TT r_ = CALL; return _CYSTCK_TYPED_BOX(TT, S, r_, func); }
#define _CYSTCK_TYPED_FINISH_CystckT_LONG(S, C, f)     _CYSTCK_TYPED_FINISH_VALUE(CystckT_LONG, S, C, f)
#define _CYSTCK_TYPED_FINISH_CystckT_LONGLONG(S, C, f) _CYSTCK_TYPED_FINISH_VALUE(CystckT_LONGLONG, S, C, f)
#define _CYSTCK_TYPED_FINISH_CystckT_SSIZE(S, C, f)    _CYSTCK_TYPED_FINISH_VALUE(CystckT_SSIZE, S, C, f)
#define _CYSTCK_TYPED_FINISH_CystckT_INT(S, C, f)      _CYSTCK_TYPED_FINISH_VALUE(CystckT_INT, S, C, f)
#define _CYSTCK_TYPED_FINISH_CystckT_BOOL(S, C, f)     _CYSTCK_TYPED_FINISH_VALUE(CystckT_BOOL, S, C, f)
#define _CYSTCK_TYPED_FINISH_CystckT_DOUBLE(S, C, f)   _CYSTCK_TYPED_FINISH_VALUE(CystckT_DOUBLE, S, C, f)
#define _CYSTCK_TYPED_FINISH_CystckT_OBJECT(S, C, f)   return _Cystck_Finish((S), (C), (f));
#define _CYSTCK_TYPED_FINISH_CystckT_NONE(S, C, f)                            \
    return _Cystck_Finish((S), (C) < 0 ? -1 : 0, (f));

/* ---- parameter lists ---- */

/* A required parameter, and an optional one with its default (a literal
 * valid in C and in Python: it also appears in the text signature). */
#define CYSTCK_ARG(TYPE, NAME)          (CystckT_##TYPE, NAME, 0, 0)
#define CYSTCK_OPT(TYPE, NAME, DEFAULT) (CystckT_##TYPE, NAME, 1, DEFAULT)

/* _CYSTCK_FE(M, X, p0, p1, ...) expands M(X, i, TT, NAME, OPT, DEFAULT)
 * for each parameter. */
#define _CYSTCK_CAT(a, b) _CYSTCK_CAT_(a, b)
#define _CYSTCK_CAT_(a, b) a##b
#define _CYSTCK_STRIP(...) __VA_ARGS__
#define _CYSTCK_APPLY(M, ...) M(__VA_ARGS__)
#define _CYSTCK_NPARAMS(...) _CYSTCK_NPARAMS_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define _CYSTCK_NPARAMS_(a1, a2, a3, a4, a5, a6, a7, a8, N, ...) N
#define _CYSTCK_FE(M, X, ...) _CYSTCK_CAT(_CYSTCK_FE_, _CYSTCK_NPARAMS(__VA_ARGS__))(M, X, __VA_ARGS__)
#define _CYSTCK_FE1(M, X, i, p) _CYSTCK_APPLY(M, X, i, _CYSTCK_STRIP p)
#define _CYSTCK_FE_1(M, X, p0) _CYSTCK_FE1(M, X, 0, p0)
#define _CYSTCK_FE_2(M, X, p0, p1) _CYSTCK_FE_1(M, X, p0) _CYSTCK_FE1(M, X, 1, p1)
#define _CYSTCK_FE_3(M, X, p0, p1, p2) _CYSTCK_FE_2(M, X, p0, p1) _CYSTCK_FE1(M, X, 2, p2)
#define _CYSTCK_FE_4(M, X, p0, p1, p2, p3) _CYSTCK_FE_3(M, X, p0, p1, p2) _CYSTCK_FE1(M, X, 3, p3)
#define _CYSTCK_FE_5(M, X, p0, p1, p2, p3, p4) \
    _CYSTCK_FE_4(M, X, p0, p1, p2, p3) _CYSTCK_FE1(M, X, 4, p4)
#define _CYSTCK_FE_6(M, X, p0, p1, p2, p3, p4, p5) \
    _CYSTCK_FE_5(M, X, p0, p1, p2, p3, p4) _CYSTCK_FE1(M, X, 5, p5)
#define _CYSTCK_FE_7(M, X, p0, p1, p2, p3, p4, p5, p6) \
    _CYSTCK_FE_6(M, X, p0, p1, p2, p3, p4, p5) _CYSTCK_FE1(M, X, 6, p6)
#define _CYSTCK_FE_8(M, X, p0, p1, p2, p3, p4, p5, p6, p7) \
    _CYSTCK_FE_7(M, X, p0, p1, p2, p3, p4, p5, p6) _CYSTCK_FE1(M, X, 7, p7)
#if CYSTCK_TYPED_MAX_PARAMS != 8
#error "_CYSTCK_FE expands up to 8 parameters: keep it in step with CYSTCK_TYPED_MAX_PARAMS"
#endif

/* The pieces each parameter contributes. */
#define _CYSTCK_P_PROTO(X, i, TT, N, OPT, D)  , _CYSTCK_CTYPE_##TT
#define _CYSTCK_P_NAME(X, i, TT, N, OPT, D)   #N,
#define _CYSTCK_P_CODE(X, i, TT, N, OPT, D)   _CYSTCK_CODE_##TT
#define _CYSTCK_P_REQ(X, i, TT, N, OPT, D)    + !(OPT)
#define _CYSTCK_P_ORDER(X, i, TT, N, OPT, D)  + (!(OPT) && (i) >= (X))
#define _CYSTCK_P_TEXT(X, i, TT, N, OPT, D)   ", " #N _CYSTCK_TEXTDEF_##OPT(TT, D)
#define _CYSTCK_TEXTDEF_0(TT, D)
#define _CYSTCK_TEXTDEF_1(TT, D) "=" _CYSTCK_PYDEFAULT(TT, D)
#define _CYSTCK_P_ARG(X, i, TT, N, OPT, D)    , _CYSTCK_ARGVAL_##TT(v_[i])
/* Convert what the inline binding found (X: the signature). */
#define _CYSTCK_P_CONVERT(X, i, TT, N, OPT, D)                                \
    if (present_ & (1u << (i))) {                                             \
        if (!_CYSTCK_UNBOX_##TT(objs_[i], &v_[i]) &&                          \
            _Cystck_TypedConvert(&(X), (i), objs_[i], &v_[i]) < 0)            \
            return NULL;                                                      \
    }                                                                         \
    else                                                                      \
        v_[i]._CYSTCK_FIELD_##TT = (D);
/* After the slow path: the defaults of what was not given. */
#define _CYSTCK_P_DEFAULT(X, i, TT, N, OPT, D)                                \
    if (!(present_ & (1u << (i))))                                            \
        v_[i]._CYSTCK_FIELD_##TT = (D);

/* The objects of a call whose keyword names match the cache. */
static inline void _Cystck_TypedGather(const _Cystck_TypedCache *c, PyObject *const *args,
                                       PyObject **objs, int n)
{
    int i;
    for (i = 0; i < n; i++)
        objs[i] = c->src[i] >= 0 ? args[c->src[i]] : NULL;
}

/* The implementation's prototype.  C checks it against the definition
 * wherever that is; C++ would take a definition with other parameter types
 * for an overload, so there the implementation must be declared before the
 * CYSTCK_DEF_TYPED and is checked when the typed pointer is bound to it. */
#ifdef __cplusplus
#define _CYSTCK_TYPED_DECLARE(LINKAGE, RT, IMPL, ...)
#else
#define _CYSTCK_TYPED_DECLARE(LINKAGE, RT, IMPL, ...)                         \
    LINKAGE _CYSTCK_RTYPE_##RT IMPL(Cystck_State *, Cystck_Object             \
                                    _CYSTCK_FE(_CYSTCK_P_PROTO, ~, __VA_ARGS__));
#endif

#define _CYSTCK_TYPED_BINDING_KW(SYM)                                         \
    if (Cystck_likely(kwnames == NULL)) {                                     \
        if (Cystck_unlikely(nargs < SYM##__sig.nrequired || nargs > SYM##__sig.nparams)) \
            goto slow_;                                                       \
        present_ = (1u << nargs) - 1;                                         \
    }                                                                         \
    else if (kwnames == SYM##__cache.kwnames && nargs == SYM##__cache.nargs) { \
        _Cystck_TypedGather(&SYM##__cache, args, kwobjs_, SYM##__sig.nparams); \
        objs_ = kwobjs_;                                                      \
        present_ = SYM##__cache.present;                                      \
    }                                                                         \
    else                                                                      \
        goto slow_;
#define _CYSTCK_TYPED_BINDING_POS(SYM)                                        \
    if (Cystck_unlikely(kwnames != NULL ||                                    \
                        nargs < SYM##__sig.nrequired || nargs > SYM##__sig.nparams)) \
        goto slow_;                                                           \
    present_ = (1u << nargs) - 1;

/* Both take keywords: a positional-only method raises PyArg_ParseTuple's
 * METH_VARARGS message for them, which names the function unqualified. */
#define _CYSTCK_TYPED_KEYWORDS_KW  1
#define _CYSTCK_TYPED_KEYWORDS_POS 0
#define _CYSTCK_TYPED_FLAGS (METH_FASTCALL | METH_KEYWORDS)
#define _CYSTCK_TYPED_SLASH_KW
#define _CYSTCK_TYPED_SLASH_POS ", /"

#define _CYSTCK_DEF_TYPED(LINKAGE, MODE, SYM, NAME, IMPL, RT, DOC, ...)       \
    _CYSTCK_TYPED_DECLARE(LINKAGE, RT, IMPL, __VA_ARGS__)                     \
    static _CYSTCK_RTYPE_##RT (*const SYM##__impl)(Cystck_State *, Cystck_Object \
        _CYSTCK_FE(_CYSTCK_P_PROTO, ~, __VA_ARGS__)) = IMPL;                  \
    static const char *const SYM##__names[] = {                               \
        _CYSTCK_FE(_CYSTCK_P_NAME, ~, __VA_ARGS__) NULL };                    \
    static const _Cystck_TypedSig SYM##__sig = {                              \
        NAME, _CYSTCK_NPARAMS(__VA_ARGS__),                                   \
        0 _CYSTCK_FE(_CYSTCK_P_REQ, ~, __VA_ARGS__),                          \
        _CYSTCK_TYPED_KEYWORDS_##MODE, "" _CYSTCK_FE(_CYSTCK_P_CODE, ~, __VA_ARGS__),             \
        _CYSTCK_RCODE_##RT, SYM##__names, (void (*)(void))IMPL };             \
    /* required parameters first, as PyArg_Parse* formats have them */       \
    typedef char SYM##__required_before_optional[                             \
        (0 _CYSTCK_FE(_CYSTCK_P_ORDER, (0 _CYSTCK_FE(_CYSTCK_P_REQ, ~, __VA_ARGS__)), \
                      __VA_ARGS__)) == 0 ? 1 : -1];                           \
    static _Cystck_TypedCache SYM##__cache;                                   \
    static PyObject *_CYSTCK_TRAMP(SYM)(PyObject *self, PyObject *const *args, \
                                         Py_ssize_t nargs, PyObject *kwnames) \
    {                                                                         \
        _Cystck_TypedValue v_[_CYSTCK_NPARAMS(__VA_ARGS__)];                  \
        PyObject *kwobjs_[_CYSTCK_NPARAMS(__VA_ARGS__)];                      \
        PyObject *const *objs_ = args;                                        \
        unsigned present_;                                                    \
        (void)kwobjs_;                                                        \
        _CYSTCK_TYPED_BINDING_##MODE(SYM)                                     \
        _CYSTCK_FE(_CYSTCK_P_CONVERT, SYM##__sig, __VA_ARGS__)                \
        goto call_;                                                           \
    slow_:                                                                    \
        if (_Cystck_TypedBind(&SYM##__sig, &SYM##__cache, args, nargs,        \
                              kwnames, v_, &present_) < 0) \
            return NULL;                                                      \
        _CYSTCK_FE(_CYSTCK_P_DEFAULT, ~, __VA_ARGS__)                         \
    call_:                                                                    \
        {                                                                     \
            _CYSTCK_FRAME_LOCALS;                                             \
            _Cystck_OpenFrame(&S_, &F_, #IMPL);                                    \
            _CYSTCK_TYPED_FINISH(RT, &S_,                                     \
                SYM##__impl(&S_, _Cystck_H(&self)                             \
                            _CYSTCK_FE(_CYSTCK_P_ARG, ~, __VA_ARGS__)), #IMPL) \
        }                                                                     \
    }                                                                         \
    static CystckDef SYM = { CystckDef_Meth,                                  \
        { NAME, (PyCFunction)(void (*)(void))_CYSTCK_TRAMP(SYM),              \
          _CYSTCK_TYPED_FLAGS,                                         \
          NAME "($self" _CYSTCK_FE(_CYSTCK_P_TEXT, ~, __VA_ARGS__)            \
          _CYSTCK_TYPED_SLASH_##MODE ")\n--\n\n" DOC },                       \
        _CYSTCK_NO_SLOT, _CYSTCK_NO_MEMBER, _CYSTCK_NO_GETSET, &SYM##__sig, NULL, NULL, NULL };

/* CYSTCK_DEF_TYPED(sym, "name", impl, RET, "doc", params...)
 *   RET: LONG LONGLONG SSIZE INT BOOL DOUBLE (a C value; -1 with an
 *        exception set is an error), OBJECT (push count), NONE (0 / -1).
 *   params: CYSTCK_ARG(TYPE, name) or CYSTCK_OPT(TYPE, name, default), 1 to
 *        8, required first; TYPE: LONG LONGLONG SSIZE INT BOOL DOUBLE STR
 *        OBJECT (format units l L n i p d s O).
 * impl: RET_C impl(Cystck_State *S, Cystck_Object self, T1 name1, ...). */
#define CYSTCK_DEF_TYPED(SYM, NAME, IMPL, RET, DOC, ...) \
    _CYSTCK_DEF_TYPED(static, KW, SYM, NAME, IMPL, CystckT_##RET, DOC, __VA_ARGS__)
/* Positional-only parameters, bound like PyArg_ParseTuple. */
#define CYSTCK_DEF_TYPED_POSONLY(SYM, NAME, IMPL, RET, DOC, ...) \
    _CYSTCK_DEF_TYPED(static, POS, SYM, NAME, IMPL, CystckT_##RET, DOC, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* CYSTCK_TYPED_H */
