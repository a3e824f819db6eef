/*
 * cystck/runtime_api.h -- API functions written by hand in the runtime
 * (cystck/src/).  Each is listed in cystck/apitable.py with "hand", so the
 * API reference and the translator know about it.  Included by Cystck.h.
 */
#ifndef CYSTCK_RUNTIME_API_H
#define CYSTCK_RUNTIME_API_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Objects and calls ---- */
/* t is the type of an object, hence a type: saying so lets the compiler
 * drop a later PyType_Check(t) (Cystck_New's, after a Cystck_TypeIs). */
static inline void _Cystck_KnownType(PyObject *t)
{
    _CYSTCK_ASSUME(PyType_Check(t));
}
/* CystckObject_TypeCheck's test when o's type is not t itself: out of line
 * and without S, so that the inline exact test keeps no other work (GCC
 * hoisted the PyType_Check above the comparison: 3 instructions per check)
 * and the header stays in registers. */
CYSTCK_INTERNAL CYSTCK_NOINLINE int _Cystck_IsInstanceOfSubtype(PyObject *o, PyObject *t);
/* isinstance(o, type) for a type object; 0 (no exception) if type is not a type. */
static inline int CystckObject_TypeCheck(Cystck_State *S, Cystck_Object o, Cystck_Object type)
{
    PyObject *o_ = _Cystck_Get(o), *t_ = _Cystck_Get(type);
    if (Cystck_unlikely(!o_ || !t_))
        return (_Cystck_BadArgInt(S, "CystckObject_TypeCheck", !o_ ? o : type), 0);
    if ((PyObject *)Py_TYPE(o_) == t_) {        /* the common case: no subtype walk */
        _Cystck_KnownType(t_);
        return 1;
    }
    return _Cystck_IsInstanceOfSubtype(o_, t_);
}
CYSTCK_INTERNAL Cystck_Object CystckObject_CallFunctionObjArgs(Cystck_State *S, Cystck_Object f, ...);
CYSTCK_INTERNAL Cystck_Object CystckObject_CallMethodObjArgs(Cystck_State *S, Cystck_Object o, Cystck_Object name, ...);
CYSTCK_INTERNAL Cystck_Object CystckObject_CallFunction(Cystck_State *S, Cystck_Object f, const char *fmt, ...);
CYSTCK_INTERNAL Cystck_Object CystckObject_CallMethod(Cystck_State *S, Cystck_Object o, const char *name, const char *fmt, ...);
CYSTCK_INTERNAL Cystck_Object Cystck_BuildValue(Cystck_State *S, const char *fmt, ...);

/* [s-pushed, h+1, e] The result of an implementation called directly,
 * from the count it returned: the null handle for -1 (its exception set),
 * None for 0, the value it pushed for 1.  More than one value is a
 * SystemError (the values dropped). */
CYSTCK_INTERNAL CYSTCK_NOINLINE Cystck_Object _Cystck_PopResultSlow(Cystck_State *S, int pushed);
static inline Cystck_Object Cystck_PopResult(Cystck_State *S, int pushed)
{
    if (Cystck_likely(pushed == 1))
        return Cystck_Pop(S);
    return _Cystck_PopResultSlow(S, pushed);
}

/* A CYSTCK_KEYWORDS implementation, as the type of a pointer to one. */
typedef int (*Cystck_KeywordsImpl)(Cystck_State *S, Cystck_Object self, const Cystck_Object *args,
                                   Cystck_ssize_t nargs, Cystck_Object kw);
/* impl(self, *argtuple, **keywords) called directly from C, as Python would
 * call it: the positional arguments are the items of the tuple argtuple;
 * kw is null (none), a dict, or a tuple of names whose values follow the
 * nargs positional ones in args (a CYSTCK_KEYWORDS caller's own keyword
 * arguments, passed on).  impl gets them as a call from Python gives them
 * (kw null or the names); its result as a new handle (None for a push
 * count of 0), or the null handle with its exception. */
CYSTCK_INTERNAL Cystck_Object Cystck_CallImplKw(Cystck_State *S, Cystck_KeywordsImpl impl, Cystck_Object self,
                                                Cystck_Object argtuple, const Cystck_Object *args,
                                                Cystck_ssize_t nargs, Cystck_Object kw);

/* impl(self, *argtuple, **keywords) for the implementation of a keyword
 * slot (tp_new, tp_init, tp_call: its kw is a dict) called directly from
 * C: argtuple is null (no positional arguments) or a tuple; kw is null, a
 * dict (passed on as it is, as a stock call passes it), or a tuple of
 * names whose values follow the nargs positional ones in args (a
 * CYSTCK_KEYWORDS caller's own keyword arguments: made a dict, null if
 * there are none).  Returns what impl returns (a push count, tp_init's 0
 * or -1), or -1 with an exception if the arguments are not those. */
CYSTCK_INTERNAL int Cystck_CallSlotKw(Cystck_State *S, Cystck_KeywordsImpl impl, Cystck_Object self,
                                      Cystck_Object argtuple, const Cystck_Object *args,
                                      Cystck_ssize_t nargs, Cystck_Object kw);

/* Calls with handles as the arguments (HPy_Call's counterpart): the
 * callee reads args[0..n+k) as they are.  Each handle is alive for the
 * whole call (the frame owns it, or the caller's caller does), so no
 * reference changes hands: where Cystck_Call's stack owns what is pushed
 * (an incref per push, a decref per value after the call), these copy
 * the objects into a vectorcall array on the C stack.  Up to
 * _CYSTCK_CALL_INLINE_ARGS values inline; more go through a heap array. */
#define _CYSTCK_CALL_INLINE_ARGS 8
CYSTCK_INTERNAL CYSTCK_NOINLINE PyObject *_Cystck_VectorcallHeap(PyObject *callable, PyObject *name,
                                                                const Cystck_Object *args,
                                                                Cystck_ssize_t nargs, Cystck_ssize_t total,
                                                                PyObject *kwnames);
/* callable(*args) when name is NULL, else args[0].name(*args[1:]). */
static inline Cystck_Object _Cystck_CallHandles(Cystck_State *S, const char *func, PyObject *callable,
                                                PyObject *name, const Cystck_Object *args, size_t nargsf,
                                                Cystck_Object kwnames)
{
    PyObject *buf[1 + _CYSTCK_CALL_INLINE_ARGS], *kw = _Cystck_Get(kwnames), *r;
    Cystck_ssize_t n = PyVectorcall_NARGS(nargsf), total = n, i;
    if (kw != NULL) {
        /* PyObject_Vectorcall reads kwnames as a tuple unchecked */
        if (Cystck_unlikely(!PyTuple_Check(kw))) {
            PyErr_Format(PyExc_SystemError, "%s: kwnames must be a tuple of keyword names, not %.100s",
                         func, Py_TYPE(kw)->tp_name);
            return Cystck_NULL;
        }
        total += PyTuple_GET_SIZE(kw);
    }
    /* An empty asm that "writes" buf: where GCC calls this function rather
     * than inlining it, it may not see that the call reads no more entries
     * than the loop stored, and warns (-Wmaybe-uninitialized, an error with
     * -Werror: tests/runtime/test_bad_handles.py's sweeps).  No code. */
    _CYSTCK_INITIALIZED(buf);
    /* straight-line code for the usual small constant count */
    _CYSTCK_UNROLL4
    for (i = 0; i < total; i++) {
        PyObject *o = _Cystck_Get(args[i]);
        if (Cystck_unlikely(o == NULL))
            return (_Cystck_BadArg(S, func, args[i]), Cystck_NULL);
        if (i < _CYSTCK_CALL_INLINE_ARGS)
            buf[1 + i] = o;
    }
    if (Cystck_unlikely(total > _CYSTCK_CALL_INLINE_ARGS))
        r = _Cystck_VectorcallHeap(callable, name, args, n, total, kw);
    else if (name != NULL)
        r = PyObject_VectorcallMethod(name, buf + 1, (size_t)n | PY_VECTORCALL_ARGUMENTS_OFFSET, kw);
    else
        r = PyObject_Vectorcall(callable, buf + 1, (size_t)n | PY_VECTORCALL_ARGUMENTS_OFFSET, kw);
    return _Cystck_Own(S, r);
}
/* [h+1, e] f(*args[:n], **dict(zip(kwnames, args[n:]))), n =
 * PyVectorcall_NARGS(nargsf): PyObject_Vectorcall with handles.  The
 * handles are read, not consumed; PY_VECTORCALL_ARGUMENTS_OFFSET in nargsf
 * is allowed and ignored (args[-1] is never written). */
static inline Cystck_Object CystckObject_Vectorcall(Cystck_State *S, Cystck_Object f, const Cystck_Object *args,
                                                    size_t nargsf, Cystck_Object kwnames)
{
    PyObject *f_ = _Cystck_Get(f);
    if (Cystck_unlikely(f_ == NULL))
        return (_Cystck_BadArg(S, "CystckObject_Vectorcall", f), Cystck_NULL);
    return _Cystck_CallHandles(S, "CystckObject_Vectorcall", f_, NULL, args, nargsf, kwnames);
}
/* [h+1, e] args[0].name(*args[1:n], **dict(zip(kwnames, args[n:]))):
 * PyObject_VectorcallMethod with handles (n counts args[0]). */
static inline Cystck_Object CystckObject_VectorcallMethod(Cystck_State *S, Cystck_Object name, const Cystck_Object *args,
                                                          size_t nargsf, Cystck_Object kwnames)
{
    PyObject *name_ = _Cystck_Get(name);
    if (Cystck_unlikely(name_ == NULL))
        return (_Cystck_BadArg(S, "CystckObject_VectorcallMethod", name), Cystck_NULL);
    if (Cystck_unlikely(PyVectorcall_NARGS(nargsf) < 1)) {
        /* PyObject_VectorcallMethod would read args[0] regardless */
        PyErr_SetString(PyExc_SystemError, "CystckObject_VectorcallMethod: no object to call the method on "
                        "(args[0], counted in nargsf)");
        return Cystck_NULL;
    }
    return _Cystck_CallHandles(S, "CystckObject_VectorcallMethod", NULL, name_, args, nargsf, kwnames);
}

/* ---- Types ---- */
CYSTCK_INTERNAL int CystckType_IsSubtype(Cystck_State *S, Cystck_Object a, Cystck_Object b);
CYSTCK_INTERNAL Cystck_Object CystckType_FromSpec(Cystck_State *S, CystckType_Spec *spec, Cystck_Object bases);
CYSTCK_INTERNAL Cystck_Object CystckType_GenericNew(Cystck_State *S, Cystck_Object type);
/* Cystck_New's general cases: a new reference, or NULL with an exception.
 * An invalid handle's error needs the state; every other case (a type
 * that is not plain, or not a type) is a function of the object alone.
 * Taking no state, it leaves the frame's header as the inline code knows
 * it (no copy back): the handle made next and the return after it keep
 * their tests folded. */
CYSTCK_INTERNAL CYSTCK_NOINLINE PyObject *_Cystck_NewObjectSlow_Ool(Cystck_State *S, Cystck_Object type);
CYSTCK_INTERNAL CYSTCK_NOINLINE PyObject *_Cystck_NewObjectOf(PyObject *type);
static CYSTCK_ALWAYS_INLINE PyObject *_Cystck_NewObjectSlow(Cystck_State *S, Cystck_Object type)
{
    _CYSTCK_ON_COPY(PyObject *, _Cystck_NewObjectSlow_Ool(_CYSTCK_COPY_STATE(&c_), type))
}
CYSTCK_INTERNAL PyObject *_Cystck_PlainAlloc(PyTypeObject *tp, Py_ssize_t nitems);
/* _PyObject_New(tp) (what stock's PyObject_New calls) written out: its
 * steps, in its order, without its call, its saved registers and its
 * return (about ten instructions per new object).  Before 3.13, where
 * _Py_NewReference (the reference count, and tracemalloc's record, which
 * reads the type) is CPython's exported function; later, the call. */
static inline PyObject *_Cystck_PlainNew(PyTypeObject *tp)
{
#if PY_VERSION_HEX < 0x030D0000
    PyObject *o = (PyObject *)PyObject_Malloc((size_t)tp->tp_basicsize);
    if (Cystck_unlikely(o == NULL))
        return PyErr_NoMemory();
    Py_SET_TYPE(o, tp);
    if (Cystck_likely(PyType_HasFeature(tp, Py_TPFLAGS_HEAPTYPE)))  /* CystckType_FromSpec's */
        Py_INCREF(tp);
    _Py_NewReference(o);
    return o;
#else
    return _PyObject_New(tp);
#endif
}

/* Cystck_New and Cystck_NewZeroed: a new instance of type; *data (if not
 * NULL) = its native struct (NULL on failure).
 * Inline for the common case, a plain type of fixed size without GC (which
 * CystckType_FromSpec marks with _Cystck_PlainAlloc), needing only
 * PyObject_New's work, and, when zero is set (a constant), the native
 * struct cleared as stock's tp_alloc (PyType_GenericAlloc) clears it.  The
 * other types go through their tp_alloc, which zeroes (GC types, types with
 * Cystck_Fields, variable-size types), as stock's would. */
static CYSTCK_ALWAYS_INLINE Cystck_Object _Cystck_NewInstance(Cystck_State *S, Cystck_Object type, void **data,
                                                              int zero)
{
    PyTypeObject *tp = (PyTypeObject *)_Cystck_Get(type);
    PyObject *o;
    Cystck_Object h;
    int release = 0;
    if (Cystck_unlikely(tp == NULL))
        o = _Cystck_NewObjectSlow(S, type);
    /* What stock's PyObject_New does (MemoryError when out of memory). */
    else if (Cystck_likely(PyType_Check(tp) && tp->tp_alloc == _Cystck_PlainAlloc)) {
        release = 1;
        o = _Cystck_PlainNew(tp);
        if (zero && Cystck_likely(o != NULL))
            memset((char *)o + sizeof(PyObject), 0, (size_t)tp->tp_basicsize - sizeof(PyObject));
    }
    else
        o = _Cystck_NewObjectOf((PyObject *)tp);
    /* Both paths join before the handle is made, so the compiler knows
     * which slot it is (and Cystck_Return can move it without a check).
     * Only a release-mode runtime gives a type _Cystck_PlainAlloc (debug
     * mode's go through tp_alloc: mark_plain, types.c), so the plain path's
     * handle needs no debug-mode test: its object's null test folds against
     * _Cystck_PlainNew's, where _Cystck_own_limit's compare stayed (read
     * again after _Py_NewReference: 4 instructions, with a saved register). */
    h = _Cystck_OwnTested(S, o, release);
    /* The struct is found from the handle, not from o: o is then not kept
     * across the handle's slow path (which reads it back from the slot). */
    if (data != NULL) {
        o = _Cystck_Get(h);
        *data = Cystck_likely(o != NULL) ? (char *)o + CYSTCK_DATA_OFFSET : NULL;
    }
    return h;
}
/* [h+1, e] A new instance of type, as stock's PyObject_New: a plain type's
 * native struct is not zeroed (the code sets what it reads).
 * Always inlined, as Cystck_NewZeroed: with a few callers GCC made it one
 * out-of-line copy taking S, whose address then escaped in every caller
 * (the header kept in memory, reloaded after each call) and whose plain
 * path is not folded against the caller's type tests (PicoNumPy's `a + b`
 * 529 -> 504 instructions; docs/gaps.md, R1). */
static CYSTCK_ALWAYS_INLINE Cystck_Object Cystck_New(Cystck_State *S, Cystck_Object type, void **data)
{
    return _Cystck_NewInstance(S, type, data, 0);
}
/* [h+1, e] A new instance of type, its native struct zeroed, as stock's
 * type->tp_alloc(type, 0) (PyType_GenericAlloc). */
static CYSTCK_ALWAYS_INLINE Cystck_Object Cystck_NewZeroed(Cystck_State *S, Cystck_Object type, void **data)
{
    return _Cystck_NewInstance(S, type, data, 1);
}
/* [h+1, e] A new instance of a variable-size type with n items, zeroed
 * (its item fields empty); *data (if not NULL) = its native struct. */
CYSTCK_INTERNAL Cystck_Object Cystck_NewVar(Cystck_State *S, Cystck_Object type, Cystck_ssize_t n, void **data);
/* [h+1, e] type->tp_alloc(type, n), as stock code calls it: n items of a
 * variable-size type; a type without items ignores n, as stock's generic
 * tp_alloc does (a zeroed instance). */
CYSTCK_INTERNAL Cystck_Object CystckType_GenericAlloc(Cystck_State *S, Cystck_Object type, Cystck_ssize_t n);
CYSTCK_INTERNAL const char *CystckType_GetName(Cystck_State *S, Cystck_Object type);
CYSTCK_INTERNAL Cystck_Object CystckType_GetNameObject(Cystck_State *S, Cystck_Object type);
CYSTCK_INTERNAL Cystck_Object CystckType_GetQualName(Cystck_State *S, Cystck_Object type);
CYSTCK_INTERNAL int CystckType_HasFeature(Cystck_State *S, Cystck_Object type, unsigned long feature);
CYSTCK_INTERNAL unsigned long CystckType_GetFlags(Cystck_State *S, Cystck_Object type);
CYSTCK_INTERNAL Cystck_Object CystckType_GetMRO(Cystck_State *S, Cystck_Object type);
CYSTCK_INTERNAL Cystck_Object CystckType_GetDict(Cystck_State *S, Cystck_Object type);
CYSTCK_INTERNAL Cystck_Object CystckDescr_Get(Cystck_State *S, Cystck_Object d, Cystck_Object obj, Cystck_Object type);
CYSTCK_INTERNAL int CystckDescr_Set(Cystck_State *S, Cystck_Object d, Cystck_Object obj, Cystck_Object v);

/* type(o) is type (no subclasses); 0 after an invalid handle, as every
 * predicate that cannot fail in CPython (cystck/gen_api.py, is_predicate). */
static inline int Cystck_TypeIs(Cystck_State *S, Cystck_Object o, Cystck_Object type)
{
    PyObject *o_ = _Cystck_Get(o), *t_ = _Cystck_Get(type);
    if (Cystck_unlikely(!o_ || !t_))
        return (_Cystck_BadArgInt(S, "Cystck_TypeIs", !o_ ? o : type), 0);
    if ((PyObject *)Py_TYPE(o_) != t_)
        return 0;
    _Cystck_KnownType(t_);
    return 1;
}

/* Has o's type the descriptor slot tp_descr_get (tp_descr_set)?  0 after
 * an invalid handle, as Cystck_TypeIs. */
static inline int CystckObject_HasDescrGet(Cystck_State *S, Cystck_Object o)
{
    PyObject *o_ = _Cystck_Get(o);
    if (Cystck_unlikely(!o_))
        return (_Cystck_BadArgInt(S, "CystckObject_HasDescrGet", o), 0);
    return Py_TYPE(o_)->tp_descr_get != NULL;
}
static inline int CystckObject_HasDescrSet(Cystck_State *S, Cystck_Object o)
{
    PyObject *o_ = _Cystck_Get(o);
    if (Cystck_unlikely(!o_))
        return (_Cystck_BadArgInt(S, "CystckObject_HasDescrSet", o), 0);
    return Py_TYPE(o_)->tp_descr_set != NULL;
}

/* ---- Typed element access ----
 * Read one item of a list or tuple as a C value without creating a handle:
 * the item never leaves the call, so nothing needs to keep it alive.  The
 * loops that sum or copy numbers are where handles would cost the most.
 * Errors: -1 with TypeError (not a list/tuple, or the item is not a number),
 * IndexError (out of range), or what PyLong_AsLong/PyFloat_AsDouble raise. */
/* Item i of seq when seq is not an exact list (tuple) with i in range: a
 * subclass's item, or NULL with TypeError or IndexError (SystemError for a
 * null seq).  It takes the object, not the handle: a handle passed out of
 * line makes its slot escape, and the compiler then reloads and rechecks
 * the sequence on every item of a loop instead of once. */
CYSTCK_INTERNAL CYSTCK_NOINLINE PyObject *_Cystck_ItemOf_Ool(Cystck_State *S, PyObject *seq, Cystck_ssize_t i,
                                             int want_list, const char *func);
static CYSTCK_ALWAYS_INLINE PyObject *_Cystck_ItemOf(Cystck_State *S, PyObject *seq, Cystck_ssize_t i,
                                                    int want_list, const char *func)
{
    _CYSTCK_ON_COPY(PyObject *, _Cystck_ItemOf_Ool(_CYSTCK_COPY_STATE(&c_), seq, i, want_list, func))
}
static inline PyObject *_Cystck_ListItem(Cystck_State *S, Cystck_Object l, Cystck_ssize_t i, const char *func)
{
    PyObject *l_ = _Cystck_Get(l);
    if (Cystck_likely(l_ != NULL && PyList_CheckExact(l_) && (size_t)i < (size_t)PyList_GET_SIZE(l_)))
        return PyList_GET_ITEM(l_, i);
    return _Cystck_ItemOf(S, l_, i, 1, func);
}
static inline PyObject *_Cystck_TupleItem(Cystck_State *S, Cystck_Object t, Cystck_ssize_t i, const char *func)
{
    PyObject *t_ = _Cystck_Get(t);
    if (Cystck_likely(t_ != NULL && PyTuple_CheckExact(t_) && (size_t)i < (size_t)PyTuple_GET_SIZE(t_)))
        return PyTuple_GET_ITEM(t_, i);
    return _Cystck_ItemOf(S, t_, i, 0, func);
}
static inline long CystckList_GetItemAsLong(Cystck_State *S, Cystck_Object l, Cystck_ssize_t i)
{
    PyObject *o = _Cystck_ListItem(S, l, i, "CystckList_GetItemAsLong");
    return Cystck_likely(o != NULL) ? _Cystck_AsLong(o) : -1;
}
static inline double CystckList_GetItemAsDouble(Cystck_State *S, Cystck_Object l, Cystck_ssize_t i)
{
    PyObject *o = _Cystck_ListItem(S, l, i, "CystckList_GetItemAsDouble");
    return Cystck_likely(o != NULL) ? _Cystck_AsDouble(o) : -1.0;
}
static inline long CystckTuple_GetItemAsLong(Cystck_State *S, Cystck_Object t, Cystck_ssize_t i)
{
    PyObject *o = _Cystck_TupleItem(S, t, i, "CystckTuple_GetItemAsLong");
    return Cystck_likely(o != NULL) ? _Cystck_AsLong(o) : -1;
}
static inline double CystckTuple_GetItemAsDouble(Cystck_State *S, Cystck_Object t, Cystck_ssize_t i)
{
    PyObject *o = _Cystck_TupleItem(S, t, i, "CystckTuple_GetItemAsDouble");
    return Cystck_likely(o != NULL) ? _Cystck_AsDouble(o) : -1.0;
}

/* The same for what CystckSequence_Fast returns (an exact list or tuple). */
static inline long CystckSequence_Fast_GetItemAsLong(Cystck_State *S, Cystck_Object seq, Cystck_ssize_t i)
{
    PyObject *o = _Cystck_Get(seq);
    return o != NULL && PyTuple_CheckExact(o) ? CystckTuple_GetItemAsLong(S, seq, i)
                                              : CystckList_GetItemAsLong(S, seq, i);
}
static inline double CystckSequence_Fast_GetItemAsDouble(Cystck_State *S, Cystck_Object seq, Cystck_ssize_t i)
{
    PyObject *o = _Cystck_Get(seq);
    return o != NULL && PyTuple_CheckExact(o) ? CystckTuple_GetItemAsDouble(S, seq, i)
                                              : CystckList_GetItemAsDouble(S, seq, i);
}

/* ---- Unicode ---- */
CYSTCK_INTERNAL Cystck_Object CystckUnicode_FromFormat(Cystck_State *S, const char *fmt, ...);
CYSTCK_INTERNAL Cystck_Object CystckUnicode_FromFormatV(Cystck_State *S, const char *fmt, va_list va);

/* ---- Tuples ---- */
CYSTCK_INTERNAL Cystck_Object CystckTuple_Pack(Cystck_State *S, Cystck_ssize_t n, ...);
/* [h+1, e] A tuple of the objects of n handles (each gets a new reference).
 * Inline: with n known where it is called, the loops unroll into a few
 * loads and stores per item, as PyTuple_New with PyTuple_SET_ITEM. */
/* A few items, their number known where it is called: the objects are
 * read, tested and given their new references before the allocation, where
 * the compiler still knows the handles (an argument's object is not null),
 * and stored from registers after it (scalars, not an array: an array
 * would be vectorized and kept in memory). */
#define _CYSTCK_TUPLE_FEW 4
static inline int _Cystck_TupleItemOf(Cystck_State *S, const Cystck_Object *items, Cystck_ssize_t n,
                                      Cystck_ssize_t i, PyObject **o)
{
    if (i >= n)
        return 0;
    *o = _Cystck_Get(items[i]);
    if (Cystck_likely(*o != NULL))
        return 0;
    _Cystck_BadArg(S, "CystckTuple_FromArray", items[i]);
    return -1;
}
static inline Cystck_Object _Cystck_TupleFromFew(Cystck_State *S, const Cystck_Object *items, Cystck_ssize_t n)
{
    PyObject *o0 = NULL, *o1 = NULL, *o2 = NULL, *o3 = NULL, *t;
    if (_Cystck_TupleItemOf(S, items, n, 0, &o0) < 0 || _Cystck_TupleItemOf(S, items, n, 1, &o1) < 0 ||
        _Cystck_TupleItemOf(S, items, n, 2, &o2) < 0 || _Cystck_TupleItemOf(S, items, n, 3, &o3) < 0)
        return Cystck_NULL;
    Py_XINCREF(o0);
    Py_XINCREF(o1);
    Py_XINCREF(o2);
    Py_XINCREF(o3);
    t = PyTuple_New(n);
    if (Cystck_unlikely(t == NULL)) {
        Py_XDECREF(o0);
        Py_XDECREF(o1);
        Py_XDECREF(o2);
        Py_XDECREF(o3);
        return Cystck_NULL;
    }
    /* Each from a general register: the vectorizer would pack the stores,
     * after moving the values to a vector register (see _Cystck_HeadIn). */
    _CYSTCK_GPR(o0);
    _CYSTCK_GPR(o1);
    _CYSTCK_GPR(o2);
    _CYSTCK_GPR(o3);
    if (n > 0)
        PyTuple_SET_ITEM(t, 0, o0);
    if (n > 1)
        PyTuple_SET_ITEM(t, 1, o1);
    if (n > 2)
        PyTuple_SET_ITEM(t, 2, o2);
    if (n > 3)
        PyTuple_SET_ITEM(t, 3, o3);
    return _Cystck_Own(S, t);
}
static inline Cystck_Object CystckTuple_FromArray(Cystck_State *S, const Cystck_Object *items, Cystck_ssize_t n)
{
    Cystck_ssize_t i;
    PyObject *t;
#if defined(__GNUC__) || defined(__clang__)
    if (__builtin_constant_p(n) && n >= 0 && n <= _CYSTCK_TUPLE_FEW)
        return _Cystck_TupleFromFew(S, items, n);
#endif
    t = PyTuple_New(n);
    if (Cystck_unlikely(t == NULL))
        return Cystck_NULL;
    /* straight-line code for the usual small constant n */
    _CYSTCK_UNROLL4
    for (i = 0; i < n; i++) {
        PyObject *o = _Cystck_Get(items[i]);
        if (Cystck_unlikely(o == NULL)) {
            Py_DECREF(t);
            return (_Cystck_BadArg(S, "CystckTuple_FromArray", items[i]), Cystck_NULL);
        }
        PyTuple_SET_ITEM(t, i, Py_NewRef(o));
    }
    return _Cystck_Own(S, t);
}

/* ---- Dicts ---- */
CYSTCK_INTERNAL int CystckDict_GetItemRef(Cystck_State *S, Cystck_Object d, Cystck_Object key,
                                          Cystck_Object *result);
CYSTCK_INTERNAL int CystckDict_Next(Cystck_State *S, Cystck_Object d, Cystck_ssize_t *pos,
                                    Cystck_Object *key, Cystck_Object *value);

/* Slot reuse for iteration.  *h is Cystck_NULL or an owned handle of this
 * call; _Cystck_Replace makes it hold o (a borrowed reference) in the same
 * slot (a new slot when *h is null or not a live slot of this call: never
 * writes where the call does not own), _Cystck_Forget releases it and sets
 * it to Cystck_NULL (no-op, no debug error, for one this call does not own). */
CYSTCK_INTERNAL CYSTCK_NOINLINE void _Cystck_ReplaceSlow_Ool(Cystck_State *S, Cystck_Object *h, PyObject *o);
CYSTCK_INTERNAL CYSTCK_NOINLINE void _Cystck_ForgetSlow_Ool(Cystck_State *S, Cystck_Object *h);
CYSTCK_INTERNAL CYSTCK_NOINLINE void _Cystck_ForgetSlot_Ool(Cystck_State *S, Cystck_Object *h);   /* _Cystck_Forget, out of line */
static CYSTCK_ALWAYS_INLINE void _Cystck_ReplaceSlow(Cystck_State *S, Cystck_Object *h, PyObject *o)
{
    _CYSTCK_ON_COPY_VOID(_Cystck_ReplaceSlow_Ool(_CYSTCK_COPY_STATE(&c_), h, o))
}
static CYSTCK_ALWAYS_INLINE void _Cystck_ForgetSlow(Cystck_State *S, Cystck_Object *h)
{
    _CYSTCK_ON_COPY_VOID(_Cystck_ForgetSlow_Ool(_CYSTCK_COPY_STATE(&c_), h))
}
static CYSTCK_ALWAYS_INLINE void _Cystck_ForgetSlot(Cystck_State *S, Cystck_Object *h)
{
    _CYSTCK_ON_COPY_VOID(_Cystck_ForgetSlot_Ool(_CYSTCK_COPY_STATE(&c_), h))
}
/* Store a new reference o (stolen) in *h's slot, as _Cystck_Replace.
 * -1 (MemoryError set, *h null) when a new slot was needed and the frame
 * is at the handle limit; reusing a slot cannot fail. */
static inline int _Cystck_Store(Cystck_State *S, Cystck_Object *h, PyObject *o)
{
    if (Cystck_likely(_Cystck_InCurrentChunk(S, h->_p) && !_CYSTCK_CHECKED(S))) {
        PyObject *old = *h->_p;
        *h->_p = o;
        Py_XDECREF(old);
        return 0;
    }
    if (h->_p == NULL && !_CYSTCK_CHECKED(S))
        *h = _Cystck_Own(S, o);
    else
        _Cystck_ReplaceSlow(S, h, o);
    return h->_p == NULL ? -1 : 0;
}
static inline int _Cystck_Replace(Cystck_State *S, Cystck_Object *h, PyObject *o)
{
    Py_INCREF(o);
    return _Cystck_Store(S, h, o);
}
static inline void _Cystck_Forget(Cystck_State *S, Cystck_Object *h)
{
    if (h->_p == NULL)
        return;
    if (Cystck_likely(_Cystck_InCurrentChunk(S, h->_p) && !_CYSTCK_CHECKED(S)))
        Cystck_Drop(S, *h);
    else
        _Cystck_ForgetSlow(S, h);
    *h = Cystck_NULL;
}

/* [h+2 on the first item, then h+0] PyDict_Next for loops: *key and *value
 * (either pointer may be NULL) must be Cystck_NULL or handles an earlier
 * call of this function stored there; each item's key and value replace the
 * objects in those same slots, so a `while (CystckDict_NextInto(...))` loop
 * holds two handles whatever the size of the dict, with no handle to drop.
 * At the end (0) both are released and set to Cystck_NULL; 0 also when the
 * first item finds the frame at the handle limit (MemoryError set, the
 * loop stops as at the end).  Do not release
 * them yourself, and copy a handle you keep past the next item with
 * Cystck_Dup: the slot is reused.  Initialize them with Cystck_NULL. */
static inline int CystckDict_NextInto(Cystck_State *S, Cystck_Object d, Cystck_ssize_t *pos,
                                      Cystck_Object *key, Cystck_Object *value)
{
    PyObject *d_ = _Cystck_Get(d), *k, *v;
    if (Cystck_unlikely(d_ == NULL))
        return (_Cystck_BadArgInt(S, "CystckDict_NextInto", d), 0);
    if (!PyDict_Next(d_, pos, &k, &v)) {
        if (value != NULL)
            _Cystck_Forget(S, value);
        if (key != NULL)
            _Cystck_Forget(S, key);
        return 0;
    }
    /* at the handle limit, stop the loop (0, MemoryError set) */
    if (key != NULL && _Cystck_Replace(S, key, k) < 0)
        return 0;
    if (value != NULL && _Cystck_Replace(S, value, v) < 0)
        return 0;
    return 1;
}

/* [h+1 the first time, then h+0] PyList_GET_ITEM / PyTuple_GET_ITEM into
 * *into (unchecked index): *into must be Cystck_NULL or a handle an earlier
 * call of these functions stored there, and the item replaces its object in
 * the same slot, so `item = l[i]` in a loop (or an iterator's member) holds
 * one handle, with nothing to drop.  Returns *into (null for an empty slot
 * of a list being filled).  Do not release *into yourself between calls. */
static inline Cystck_Object _Cystck_ItemInto(Cystck_State *S, PyObject *o, Cystck_Object *into)
{
    if (Cystck_unlikely(o == NULL)) {
        _Cystck_ForgetSlot(S, into);     /* an empty slot: release *into */
        return Cystck_NULL;
    }
    _Cystck_Replace(S, into, o);
    return *into;
}
static inline Cystck_Object CystckList_GetItemInto(Cystck_State *S, Cystck_Object l, Cystck_ssize_t i,
                                                   Cystck_Object *into)
{
    PyObject *l_ = _Cystck_Get(l);
    if (Cystck_unlikely(l_ == NULL))
        return (_Cystck_BadArg(S, "CystckList_GetItemInto", l), Cystck_NULL);
    return _Cystck_ItemInto(S, PyList_GET_ITEM(l_, i), into);
}
static inline Cystck_Object CystckTuple_GetItemInto(Cystck_State *S, Cystck_Object t, Cystck_ssize_t i,
                                                    Cystck_Object *into)
{
    PyObject *t_ = _Cystck_Get(t);
    if (Cystck_unlikely(t_ == NULL))
        return (_Cystck_BadArg(S, "CystckTuple_GetItemInto", t), Cystck_NULL);
    return _Cystck_ItemInto(S, PyTuple_GET_ITEM(t_, i), into);
}

/* ---- Errors ---- */
/* CystckErr_Format works on a copy of the header, as the slow paths do (see
 * Cystck_State): an error path that passed S itself out of line would keep
 * the whole function's header in memory, reloaded after every CPython call
 * of its fast path.  A variadic function cannot copy the header after its
 * arguments are evaluated (they may make handles), except as GCC's
 * always-inline wrapper forwarding them with __builtin_va_arg_pack; other
 * compilers call the function with S. */
CYSTCK_INTERNAL CYSTCK_NOINLINE Cystck_Object _CystckErr_Format_Ool(Cystck_State *S, Cystck_Object type,
                                                                    const char *fmt, ...);
#if defined(__GNUC__) && !defined(__clang__)
static CYSTCK_ALWAYS_INLINE Cystck_Object CystckErr_Format(Cystck_State *S, Cystck_Object type,
                                                           const char *fmt, ...)
{
    _CYSTCK_ON_COPY(Cystck_Object,
                    _CystckErr_Format_Ool(_CYSTCK_COPY_STATE(&c_), type, fmt, __builtin_va_arg_pack()))
}
#else
#define CystckErr_Format _CystckErr_Format_Ool
#endif
CYSTCK_INTERNAL int CystckErr_NoMemory(Cystck_State *S);
CYSTCK_INTERNAL int CystckErr_BadArgument(Cystck_State *S);
CYSTCK_INTERNAL Cystck_Object CystckErr_GetRaisedException(Cystck_State *S);
CYSTCK_INTERNAL void CystckErr_SetRaisedException(Cystck_State *S, Cystck_Object exc);
CYSTCK_INTERNAL void CystckErr_Fetch(Cystck_State *S, Cystck_Object *type, Cystck_Object *value,
                                     Cystck_Object *traceback);
CYSTCK_INTERNAL void CystckErr_NormalizeException(Cystck_State *S, Cystck_Object *type, Cystck_Object *value,
                                                  Cystck_Object *traceback);
CYSTCK_INTERNAL void CystckErr_Restore(Cystck_State *S, Cystck_Object type, Cystck_Object value,
                                       Cystck_Object traceback);
static inline int CystckErr_Occurred(Cystck_State *S) { (void)S; return PyErr_Occurred() != NULL; }

/* ---- Dates and times (cystck/src/datetime.c) ---- */
CYSTCK_INTERNAL int CystckDate_Check(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_Check(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckTime_Check(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_GET_YEAR(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_GET_MONTH(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_GET_DAY(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_DATE_GET_HOUR(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_DATE_GET_MINUTE(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_DATE_GET_SECOND(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_DATE_GET_MICROSECOND(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_TIME_GET_HOUR(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_TIME_GET_MINUTE(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_TIME_GET_SECOND(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL int CystckDateTime_TIME_GET_MICROSECOND(Cystck_State *S, Cystck_Object o);
CYSTCK_INTERNAL Cystck_Object CystckDate_FromDate(Cystck_State *S, int year, int month, int day);
CYSTCK_INTERNAL Cystck_Object CystckDateTime_FromDateAndTime(Cystck_State *S, int year, int month, int day, int hour,
                                                             int minute, int second, int usecond);
CYSTCK_INTERNAL Cystck_Object CystckTime_FromTime(Cystck_State *S, int hour, int minute, int second, int usecond);
CYSTCK_INTERNAL Cystck_Object CystckDelta_FromDSU(Cystck_State *S, int days, int seconds, int useconds);

/* ---- Frames for C code that Python did not call ----
 * A callback that a C library runs on its own thread has no frame: it
 * takes the GIL (PyGILState_Ensure), opens one on its own C stack, calls
 * the API with it, and closes it (releasing every handle it made) before
 * giving the GIL back:
 *
 *     PyGILState_STATE g = PyGILState_Ensure();
 *     Cystck_State S_, *S = &S_;
 *     Cystck_OpenFrame(S);
 *     ... API calls with S ...
 *     Cystck_CloseFrame(S);
 *     PyGILState_Release(g);
 *
 * CloseFrame returns 0, or -1 with an exception (values left on the return
 * stack, or in debug mode a scope left open). */
static inline void Cystck_OpenFrame(Cystck_State *S)
{
    _Cystck_OpenFrame(S, &S->own_frame_, "Cystck_OpenFrame");
}
static inline int Cystck_CloseFrame(Cystck_State *S)
{
    return _Cystck_FinishInt(S, 0, "Cystck_CloseFrame");
}

/* ---- The str writer (cystck/src/unicode.c) ----
 * Builds a str in place, in the narrowest kind that holds what was written
 * (CPython's _PyUnicodeWriter does the same).  The str under construction
 * is held by a handle of the frame: a writer belongs to the call (and scope)
 * it was started in, and one abandoned on an error path leaks nothing.
 *
 *     CystckUnicodeWriter w;
 *     if (CystckUnicodeWriter_Init(S, &w) < 0) return -1;
 *     if (CystckUnicodeWriter_WriteChar(S, &w, c) < 0) return -1;
 *     ...
 *     return Cystck_Return(S, CystckUnicodeWriter_Finish(S, &w));
 */
typedef struct {
    Cystck_Object _str;        /* private: the str being built */
    Cystck_ssize_t _pos;       /* private: code points written */
} CystckUnicodeWriter;
CYSTCK_INTERNAL int CystckUnicodeWriter_Init(Cystck_State *S, CystckUnicodeWriter *w);
CYSTCK_INTERNAL int CystckUnicodeWriter_WriteChar(Cystck_State *S, CystckUnicodeWriter *w, Py_UCS4 c);
CYSTCK_INTERNAL int CystckUnicodeWriter_WriteStr(Cystck_State *S, CystckUnicodeWriter *w, Cystck_Object s);
CYSTCK_INTERNAL int CystckUnicodeWriter_WriteSubstring(Cystck_State *S, CystckUnicodeWriter *w, Cystck_Object s,
                                                       Cystck_ssize_t start, Cystck_ssize_t end);
CYSTCK_INTERNAL int CystckUnicodeWriter_WriteASCIIString(Cystck_State *S, CystckUnicodeWriter *w,
                                                         const char *s, Cystck_ssize_t n);
CYSTCK_INTERNAL int CystckUnicodeWriter_WriteUTF8(Cystck_State *S, CystckUnicodeWriter *w,
                                                  const char *s, Cystck_ssize_t n);
CYSTCK_INTERNAL Cystck_Object CystckUnicodeWriter_Finish(Cystck_State *S, CystckUnicodeWriter *w);
CYSTCK_INTERNAL void CystckUnicodeWriter_Dealloc(Cystck_State *S, CystckUnicodeWriter *w);

/* ---- The pointer str writer (cystck/src/unicode.c) ----
 * The counterpart of CPython 3.14's PyUnicodeWriter: the same builder as
 * CystckUnicodeWriter (which stands for the private _PyUnicodeWriter), but
 * created on the heap and holding its str itself, not through a handle of
 * the frame, so C code may keep it in a struct and finish it in another
 * call.  Like PyUnicodeWriter, it must end in Finish (the str, a handle of
 * the calling frame) or Discard; both free it.
 *
 *     CystckStrWriter *w = CystckStrWriter_Create(S, 0);
 *     if (w == NULL) return -1;
 *     if (CystckStrWriter_WriteChar(S, w, c) < 0) { CystckStrWriter_Discard(S, w); return -1; }
 *     return Cystck_Return(S, CystckStrWriter_Finish(S, w));
 */
typedef struct CystckStrWriter_s CystckStrWriter;
CYSTCK_INTERNAL CystckStrWriter *CystckStrWriter_Create(Cystck_State *S, Cystck_ssize_t length);
CYSTCK_INTERNAL int CystckStrWriter_WriteChar(Cystck_State *S, CystckStrWriter *w, Py_UCS4 c);
CYSTCK_INTERNAL int CystckStrWriter_WriteStr(Cystck_State *S, CystckStrWriter *w, Cystck_Object o);
CYSTCK_INTERNAL int CystckStrWriter_WriteRepr(Cystck_State *S, CystckStrWriter *w, Cystck_Object o);
CYSTCK_INTERNAL int CystckStrWriter_WriteSubstring(Cystck_State *S, CystckStrWriter *w, Cystck_Object s,
                                                   Cystck_ssize_t start, Cystck_ssize_t end);
CYSTCK_INTERNAL int CystckStrWriter_WriteUTF8(Cystck_State *S, CystckStrWriter *w, const char *s, Cystck_ssize_t n);
CYSTCK_INTERNAL int CystckStrWriter_WriteASCII(Cystck_State *S, CystckStrWriter *w, const char *s, Cystck_ssize_t n);
CYSTCK_INTERNAL int CystckStrWriter_WriteUCS4(Cystck_State *S, CystckStrWriter *w, const Py_UCS4 *s, Cystck_ssize_t n);
CYSTCK_INTERNAL int CystckStrWriter_WriteWideChar(Cystck_State *S, CystckStrWriter *w, const wchar_t *s,
                                                  Cystck_ssize_t n);
CYSTCK_INTERNAL Cystck_Object CystckStrWriter_Finish(Cystck_State *S, CystckStrWriter *w);
CYSTCK_INTERNAL void CystckStrWriter_Discard(Cystck_State *S, CystckStrWriter *w);

/* ---- The bytes writer (cystck/src/byteswriter.c) ----
 * C code writes bytes straight into the storage of the object it returns:
 * a bytes (Init), or a str whose bytes are UTF-8 (InitStr; in place when
 * they are all ASCII, decoded into a new str otherwise).  The write pointer
 * p is the caller's; Grow moves it into the grown storage.  With buf, the
 * writer starts in the caller's buffer of size bytes and moves into an
 * object at the first Grow (a result that fits is copied out of buf).  The
 * object is held by a handle of the frame: as a CystckUnicodeWriter, a
 * writer belongs to the call (and scope) it was started in.
 *
 *     CystckBytesWriter w;
 *     char *p = CystckBytesWriter_InitStr(S, &w, NULL, 64, NULL);
 *     if (p == NULL) return -1;
 *     if (CystckBytesWriter_End(&w) - p < n && (p = CystckBytesWriter_Grow(S, &w, p, n)) == NULL)
 *         return -1;
 *     memcpy(p, data, n); p += n;
 *     return Cystck_Return(S, CystckBytesWriter_Finish(S, &w, p));
 */
typedef struct {
    char *_start;              /* private: the storage written (NULL: not usable) */
    char *_end;                /* private: its end */
    Cystck_Object _obj;        /* private: the bytes or str it belongs to (null: the caller's buffer) */
    const char *_errors;       /* private: InitStr's UTF-8 error handler */
    int _str;                  /* private: building a str */
} CystckBytesWriter;
CYSTCK_INTERNAL char *CystckBytesWriter_Init(Cystck_State *S, CystckBytesWriter *w, char *buf, Cystck_ssize_t size);
CYSTCK_INTERNAL char *CystckBytesWriter_InitStr(Cystck_State *S, CystckBytesWriter *w, char *buf, Cystck_ssize_t size,
                                                const char *errors);
CYSTCK_INTERNAL char *CystckBytesWriter_Grow(Cystck_State *S, CystckBytesWriter *w, char *p, Cystck_ssize_t n);
CYSTCK_INTERNAL Cystck_Object CystckBytesWriter_Finish(Cystck_State *S, CystckBytesWriter *w, char *p);
CYSTCK_INTERNAL void CystckBytesWriter_Discard(Cystck_State *S, CystckBytesWriter *w);
/* The end of the storage: room for End(w) - p more bytes without Grow. */
static inline char *CystckBytesWriter_End(const CystckBytesWriter *w) { return w->_end; }

/* ---- Modules ---- */
CYSTCK_INTERNAL Cystck_Object CystckModule_Create(Cystck_State *S, CystckModuleDef *def);
/* The definition of a multi-phase module, for its init function to return. */
CYSTCK_INTERNAL Cystck_Object CystckModuleDef_Init(Cystck_State *S, CystckModuleDef *def);
CYSTCK_INTERNAL void *CystckModule_GetState(Cystck_State *S, Cystck_Object m);
CYSTCK_INTERNAL int CystckModule_AddType(Cystck_State *S, Cystck_Object m, Cystck_Object type);
CYSTCK_INTERNAL Cystck_Object CystckModule_Find(Cystck_State *S, CystckModuleDef *def);
/* Types made for a module (PEP 573): how the methods of a multi-phase
 * module's types reach its state. */
CYSTCK_INTERNAL Cystck_Object CystckType_FromModuleAndSpec(Cystck_State *S, Cystck_Object module,
                                                           CystckType_Spec *spec, Cystck_Object bases);
CYSTCK_INTERNAL Cystck_Object CystckType_GetModuleByDef(Cystck_State *S, Cystck_Object type,
                                                        CystckModuleDef *def);
CYSTCK_INTERNAL Cystck_Object CystckType_GetModule(Cystck_State *S, Cystck_Object type);
CYSTCK_INTERNAL void *CystckType_GetModuleState(Cystck_State *S, Cystck_Object type);
/* Escape hatch: the PyModuleDef CPython knows def by, for stock code that
 * compares PyModule_GetDef(m) with it; NULL while no module is made from
 * def (so no module's definition compares equal). */
CYSTCK_INTERNAL PyModuleDef *Cystck_AsPyModuleDef(const CystckModuleDef *def);
/* Was module m made from def (stock code compares PyModule_GetDef(m) with
 * &def)?  0 for another module; for an object that is not a module, 0
 * with PyModule_GetDef's TypeError set; 0 after an invalid handle. */
static inline int CystckModule_HasDef(Cystck_State *S, Cystck_Object m, const CystckModuleDef *def)
{
    PyObject *m_ = _Cystck_Get(m);
    PyModuleDef *got;
    if (Cystck_unlikely(!m_))
        return (_Cystck_BadArgInt(S, "CystckModule_HasDef", m), 0);
    got = PyModule_GetDef(m_);
    return got != NULL && got == Cystck_AsPyModuleDef(def);
}
/* Was builtin function f made from the method definition def (stock code
 * compares PyCFunction_GetFunction(f) with def's implementation, which the
 * port calls from def's trampoline, the C function f holds)?  0 for
 * another function; for an object that is no builtin function, 0 with
 * PyCFunction_GetFunction's SystemError set; 0 after an invalid handle. */
static inline int CystckCFunction_IsDef(Cystck_State *S, Cystck_Object f, const CystckDef *def)
{
    PyObject *f_ = _Cystck_Get(f);
    if (Cystck_unlikely(!f_))
        return (_Cystck_BadArgInt(S, "CystckCFunction_IsDef", f), 0);
    return PyCFunction_GetFunction(f_) == def->meth.ml_meth && def->kind == CystckDef_Meth;
}
/* The state of the module created from def, no handle: stock's
 * PyModule_GetState(PyState_FindModule(&def)).  Inline for the definition
 * looked up last (per-object lookups); SystemError when not loaded. */
extern CYSTCK_INTERNAL const CystckModuleDef *_Cystck_found_def;
extern CYSTCK_INTERNAL PyModuleDef *_Cystck_found_pydef;
CYSTCK_INTERNAL CYSTCK_NOINLINE void *_Cystck_ModuleFindStateSlow_Ool(Cystck_State *S, CystckModuleDef *def);
static CYSTCK_ALWAYS_INLINE void *_Cystck_ModuleFindStateSlow(Cystck_State *S, CystckModuleDef *def)
{
    _CYSTCK_ON_COPY(void *, _Cystck_ModuleFindStateSlow_Ool(_CYSTCK_COPY_STATE(&c_), def))
}
static inline void *CystckModule_FindState(Cystck_State *S, CystckModuleDef *def)
{
    PyObject *m;
    if (Cystck_likely(def == _Cystck_found_def) &&
            Cystck_likely((m = PyState_FindModule(_Cystck_found_pydef)) != NULL))
        return PyModule_GetState(m);
    return _Cystck_ModuleFindStateSlow(S, def);
}

/* ---- Arguments ----
 * The format units of PyArg_ParseTuple: b B h H i I l k L K n f d D c C p
 * s s# s* z z# z* y y# y* w* S Y U O O! O& and | $ : ;.  S Y U O store a
 * Cystck_Object, "O!" takes a type handle then a Cystck_Object*, "O&" a
 * CystckArg_Converter then its output pointer.  The Py_buffer of s* z* y* w*
 * is released when the call's frame closes, or before by
 * CystckBuffer_Release.  Other units (es et es# et# (...)) raise
 * SystemError before any output is written (docs/runtime.md). */
typedef int (*CystckArg_Converter)(Cystck_State *S, Cystck_Object o, void *out);
CYSTCK_INTERNAL int CystckArg_ParseTuple(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                                         const char *fmt, ...);
/* _PyBytes_Resize(&b, n): *b becomes a new bytes object of n bytes that
 * starts with the old one's (the old handle is released); on error the
 * null handle, as the stock function leaves NULL. */
CYSTCK_INTERNAL int CystckBytes_Resize(Cystck_State *S, Cystck_Object *b, Cystck_ssize_t n);
CYSTCK_INTERNAL int CystckUnicode_FSConverter(Cystck_State *S, Cystck_Object o, void *result);
CYSTCK_INTERNAL int CystckUnicode_FSDecoder(Cystck_State *S, Cystck_Object o, void *result);
/* PyArg_ParseTuple of a tuple object t (no argument array): the same
 * units, the format read at run time; O outputs are handles of this call. */
CYSTCK_INTERNAL int CystckArg_ParseTupleObject(Cystck_State *S, Cystck_Object t, const char *fmt, ...);
/* PyArg_ParseTupleAndKeywords of a tuple object t and a dict kw (or the
 * null handle), no argument array: O outputs are handles of this call. */
CYSTCK_INTERNAL int CystckArg_ParseTupleAndKeywordsObject(Cystck_State *S, Cystck_Object t, Cystck_Object kw,
                                                          const char *fmt, const char **kwlist, ...);
CYSTCK_INTERNAL int CystckArg_ParseTupleAndKeywords(Cystck_State *S, const Cystck_Object *args,
                                                    Cystck_ssize_t nargs, Cystck_Object kw,
                                                    const char *fmt, const char **kwlist, ...);
/* With GCC and Clang, CystckArg_ParseTupleAndKeywords is a macro that
 * gives each call site its own parser: the format and the keyword names
 * are matched once per site instead of looked up in a shared cache on
 * every call (a site's parser lives as long as the extension, as CPython's
 * static _PyArg_Parser do).  (CystckArg_ParseTupleAndKeywords)(...) calls
 * the function; -DCYSTCK_NO_SITE_PARSERS turns the macro off. */
typedef struct { void *parser; } _CystckArg_Site;
CYSTCK_INTERNAL int _CystckArg_ParseTupleAndKeywordsAt(_CystckArg_Site *site, Cystck_State *S,
                                                       const Cystck_Object *args, Cystck_ssize_t nargs,
                                                       Cystck_Object kw, const char *fmt,
                                                       const char **kwlist, ...);
#if (defined(__GNUC__) || defined(__clang__)) && !defined(CYSTCK_NO_SITE_PARSERS)
#define CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, ...)                       \
    (__extension__({                                                                  \
        static _CystckArg_Site cystck_site_;                                          \
        _CystckArg_ParseTupleAndKeywordsAt(&cystck_site_, (S), (args), (nargs), (kw), \
                                           __VA_ARGS__);                              \
    }))
#endif
CYSTCK_INTERNAL int CystckArg_UnpackTuple(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                                          const char *name, Cystck_ssize_t min, Cystck_ssize_t max, ...);
/* [e] Item i of the argument array, as PyTuple_GetItem reads the argument
 * tuple of a stock METH_VARARGS function: args[i], or the null handle with
 * IndexError("tuple index out of range") when i is not in 0..nargs-1.  The
 * translator writes it for PyTuple_GetItem(args, i) where no test of the
 * count guards the read; inline, one comparison on the hot path. */
static inline Cystck_Object CystckArg_GetItem(Cystck_State *S, const Cystck_Object *args, Cystck_ssize_t nargs,
                                              Cystck_ssize_t i)
{
    (void)S;
    if (Cystck_likely((size_t)i < (size_t)nargs))
        return args[i];
    _Cystck_ErrSetString(PyExc_IndexError, "tuple index out of range");
    return Cystck_NULL;
}
CYSTCK_INTERNAL int CystckArg_NoKeywords(Cystck_State *S, const char *name, Cystck_Object kw);
CYSTCK_INTERNAL int CystckArg_ValidateKeywordArguments(Cystck_State *S, Cystck_Object kw);

/* ---- Native memory with lifetime policies (paper section 4.3) ----
 * A block from CystckMem_Malloc carries an explicit-free policy, dropped by
 * CystckMem_Free.  Exposing it to Python (CystckMem_AsMemoryView) attaches
 * a refcount policy, dropped when the last Python view dies.  The memory is
 * released only when no policy remains, so C freeing a buffer that Python
 * still reads is safe. */
typedef void (*CystckMem_Finalizer)(void *p);
#define CYSTCK_POLICY_EXPLICIT_FREE 1
#define CYSTCK_POLICY_REFCOUNT      2
CYSTCK_INTERNAL void *CystckMem_Malloc(Cystck_State *S, size_t size);
CYSTCK_INTERNAL void *CystckMem_Calloc(Cystck_State *S, size_t n, size_t size);
CYSTCK_INTERNAL void *CystckMem_Realloc(Cystck_State *S, void *p, size_t size);
CYSTCK_INTERNAL void CystckMem_Free(Cystck_State *S, void *p);
CYSTCK_INTERNAL Cystck_Object CystckMem_AsMemoryView(Cystck_State *S, void *p, Cystck_ssize_t size, int readonly);
/* [h+1, e] A memoryview of n items of `itemsize` bytes, with the struct
 * module format `format` ("d": doubles), over the start of block p. */
CYSTCK_INTERNAL Cystck_Object CystckMem_AsTypedMemoryView(Cystck_State *S, void *p, const char *format,
                                                          Cystck_ssize_t itemsize, Cystck_ssize_t n,
                                                          int readonly);
CYSTCK_INTERNAL int CystckMem_SetFinalizer(Cystck_State *S, void *p, CystckMem_Finalizer fin);
CYSTCK_INTERNAL int CystckMem_Policies(Cystck_State *S, void *p);

#ifdef __cplusplus
}
#endif

#endif /* CYSTCK_RUNTIME_API_H */
