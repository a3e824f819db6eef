/*
 * cystck/defs.h -- trampolines and the definitions of methods, slots,
 * members, getsets, types and modules.  Included by Cystck.h.
 *
 * A trampoline is the CPython-facing function generated for each extension
 * function: it opens a frame (a Cystck_State on its own C stack), binds the
 * arguments as borrowed handles, calls the implementation and turns what it
 * pushed into the PyObject* CPython expects, releasing the frame's handles.
 */
#ifndef CYSTCK_DEFS_H
#define CYSTCK_DEFS_H

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

/* Open a frame: its header S and its data F (see Cystck_State).  Only the
 * header is set, to constants (room is CYSTCK_INLINE_HANDLES but in a debug
 * twin), in debug mode too, and no branch is taken: debug mode is found at
 * the first handle, whose object test sends it to _Cystck_OwnSlow
 * (_Cystck_Own), which makes the frame a checked one with slots that
 * outlive the call and catch stale handles; every other slow path does the
 * same first (_Cystck_GoSlow).  A branch here, or a call, would leave the
 * compiler unsure of every field where the paths join, and the release
 * path would pay for debug mode on each handle operation. */
static inline void _Cystck_OpenFrameRoom(Cystck_State *S, struct _Cystck_Frame *F, Cystck_ssize_t room)
{
    S->frame = F;
    S->top = S->base = F->slots;
    S->end = F->slots + room;
    S->sp = F->stack;
    S->sp_limit = (uintptr_t)(F->stack + CYSTCK_INLINE_STACK);   /* inline */
}
static inline void _Cystck_OpenFrame(Cystck_State *S, struct _Cystck_Frame *F, const char *func)
{
    (void)func;     /* named at close, by _Cystck_Finish */
    _Cystck_OpenFrameRoom(S, F, _CYSTCK_INLINE_ROOM());
}
/* A trampoline's frame: the header S_ (whose address only goes to inline
 * functions) and the data F_. */
#define _CYSTCK_FRAME_LOCALS Cystck_State S_; struct _Cystck_Frame F_

/* Release the handles of an inline frame.  Laid out for none left (the
 * result moved to the stack, or no object made): the loop is out of line,
 * a function of its own, so that its pointers (kept across _Py_Dealloc)
 * take no callee-saved register in every function whose close can reach
 * it, if only after a slow path (typed_long_inc -6 instructions per call;
 * docs/gaps.md, R1).  An equality test: where a slow path joins the fast
 * one GCC threads the fast path past it. */
CYSTCK_INTERNAL CYSTCK_NOINLINE void _Cystck_ReleaseSlots_Ool(PyObject **p, PyObject **top);
static inline void _Cystck_ReleaseInline(Cystck_State *S)
{
    if (Cystck_unlikely(S->base != S->top))
        _Cystck_ReleaseSlots_Ool(S->base, S->top);
}

/* A function returned -1 with no exception set.  A method's trampoline
 * (meth, found in its module's or type's dict) raises CPython's SystemError
 * "<callable> returned NULL without setting an exception" in every call, as
 * CPython's generic calls do; other trampolines (meth NULL) return NULL with
 * nothing set, as a stock slot does, and CPython's caller reports it.  NULL. */
CYSTCK_INTERNAL CYSTCK_COLD PyObject *_Cystck_NoErrorSet(const char *func, PyCFunction meth);

/* Are there exactly n free entries on an inline frame's stack?  In a frame
 * gone slow sp_limit has state bits, so never.  An equality with sp rather
 * than the room's size: where a slow path joins the fast one (debug mode's
 * first handle, _Cystck_OwnSlow), GCC still works out this test on the fast
 * path and folds it there, which it does not for a difference of the
 * header's addresses.  Used for the one-result close, which follows a
 * handle made by the function; the others keep the difference (here the
 * equality costs add_doubles 2 instructions). */
static inline int _Cystck_StackRoomIs(Cystck_State *S, Cystck_ssize_t n)
{
    return S->sp_limit == (uintptr_t)(S->sp + n);
}

/* Close the frame of a function that returned n (its push count or -1) and
 * build the PyObject* result.  meth: a method's trampoline, or NULL.  A
 * method's result is checked as CPython's _Py_CheckFunctionResult does, on
 * the paths the success path does not take: -1 with no exception set
 * (_Cystck_NoErrorSet), and a value returned in a frame where an exception
 * was raised through the API (_Cystck_Raised made the frame slow: its close
 * is _Cystck_FinishSlow's, which checks; docs/runtime.md, "Results and
 * exceptions"). */
static inline PyObject *_Cystck_FinishMeth(Cystck_State *S, int n, const char *func, PyCFunction meth)
{
    /* Room left on the stack, in bytes, from the fields, not the arrays'
     * addresses (see Cystck_State); in a frame gone slow it is no whole
     * number of entries, so these tests also say "inline". */
    uintptr_t room = S->sp_limit - (uintptr_t)S->sp;
    PyObject *res;
    if (n == 1 && _Cystck_StackRoomIs(S, CYSTCK_INLINE_STACK - 1))
        res = S->sp[-1];    /* = stack[0], and the compiler knows what
                               the push stored there */
    else if (n == 0 && room == CYSTCK_INLINE_STACK * sizeof(PyObject *))
        res = Py_NewRef(Py_None);
    else if (n < 0 && room == CYSTCK_INLINE_STACK * sizeof(PyObject *) && S->top == S->base)
        /* An error return with nothing to release, which needs none of the
         * header: where the compiler knows that (no handle made on the way),
         * it need not keep the header alive across the calls before it. */
        return Cystck_likely(PyErr_Occurred() != NULL) ? NULL : _Cystck_NoErrorSet(func, meth);
    else
        return _Cystck_FinishSlow(S, n, func, meth);
    _Cystck_ReleaseInline(S);
    return res;
}
static inline PyObject *_Cystck_Finish(Cystck_State *S, int n, const char *func)
{
    return _Cystck_FinishMeth(S, n, func, NULL);
}
/* A trampoline's address as the method table holds it. */
#define _CYSTCK_METH_FN(FN) ((PyCFunction)(void (*)(void))(FN))

/* Close the frame of a function returning a C value (int, Py_ssize_t,
 * hash) rather than a push count. */
static inline int _Cystck_FinishInt(Cystck_State *S, int r, const char *func)
{
    /* as in _Cystck_Finish: an empty stack of an inline frame */
    if (Cystck_likely(S->sp_limit - (uintptr_t)S->sp == CYSTCK_INLINE_STACK * sizeof(PyObject *))) {
        _Cystck_ReleaseInline(S);
        return r;
    }
    return _Cystck_FinishIntSlow(S, r, func);
}
/* A slot returning a C value: -1 (error) if closing the frame raised. */
#define _CYSTCK_FINISH_VALUE(S, v, func) \
    (_Cystck_FinishInt((S), 0, (func)) < 0 ? -1 : (v))

/* A handle for an argument CPython never passes as NULL (a slot's operands
 * and self, a METH_O argument): saying so drops the null tests of the API
 * functions it goes to. */
static inline Cystck_Object _Cystck_HArg(PyObject **p)
{
    _CYSTCK_ASSUME(*p != NULL);
    return _Cystck_H(p);
}

/* Argument handles: pointers straight into the caller's vectorcall array.
 * Unrolled (a jump on n, then n stores): calls pass few arguments, and a
 * loop's set-up costs more than binding them.  CPython never passes a NULL
 * argument; saying so lets the compiler drop the null tests of an API
 * function that reads an argument (CystckTuple_FromArray's copy, a push).
 * Two forms of the same binding:
 *   _Cystck_BindArgs, the cases falling through (case n binds argument
 *   n - 1, then falls into case n - 1): the smallest code where the stores
 *   stay, that is where the array goes out of line (a keyword parser: the
 *   KEYWORDS and tp_new/tp_init/tp_call trampolines);
 *   _Cystck_BindArgsEach, every case binding all of its n arguments and
 *   returning: for VARARGS, whose implementation mostly tests the count
 *   and reads its arguments itself.  There the compiler threads the
 *   count's test into the case it came from, so it keeps every argument's
 *   "not NULL" (the falling-through form kept only the first two's: the
 *   case blocks it passed were shared with larger counts) and drops the
 *   count test and the dead stores (tuple3 -4, add_doubles -4,
 *   call_callback -1 instructions per call; docs/gaps.md, R1).  Each case
 *   then ends with a jump to the join, one instruction more where the
 *   stores stay (kwargs +1 in this form), hence the two.
 *   _Cystck_BindArgsEach switches on counts 0 to 3 only, and hands larger
 *   ones to _Cystck_BindArgsMore's switch.  GCC lowers a switch of nine
 *   cases to a jump table before the count test it threads into them
 *   makes most of the cases alike (their "not NULL" tests go only in the
 *   last VRP pass), so every count paid the table (cmp, ja, lea, movslq,
 *   add, jmp); four cases are lowered to compares, the middle one first:
 *   2 arguments cost 2 instructions, 0 and 3 cost 5, 1 costs 7, 4 to 8 cost
 *   11 (all 6 or 7 with the one table; call_callback -4, tuple3 -1 per call;
 *   docs/gaps.md, R1). */
#define _CYSTCK_BIND(i) _CYSTCK_ASSUME(args[i] != NULL); inl[i] = _Cystck_H((PyObject **)&args[i])
static inline Cystck_Object *_Cystck_BindArgs(Cystck_State *S, Cystck_Object *inl,
                                              PyObject *const *args, Cystck_ssize_t n)
{
    switch (n) {
    case 8: _CYSTCK_BIND(7); /* fall through */
    case 7: _CYSTCK_BIND(6); /* fall through */
    case 6: _CYSTCK_BIND(5); /* fall through */
    case 5: _CYSTCK_BIND(4); /* fall through */
    case 4: _CYSTCK_BIND(3); /* fall through */
    case 3: _CYSTCK_BIND(2); /* fall through */
    case 2: _CYSTCK_BIND(1); /* fall through */
    case 1: _CYSTCK_BIND(0); /* fall through */
    case 0: return inl;
    default: return n > CYSTCK_INLINE_ARGS ? _Cystck_HeapArgs(S, args, n) : inl;
    }
}
#define _CYSTCK_BIND_2(i) _CYSTCK_BIND(i); _CYSTCK_BIND((i) + 1)
#define _CYSTCK_BIND_4(i) _CYSTCK_BIND_2(i); _CYSTCK_BIND_2((i) + 2)
/* Always inlined (both): GCC otherwise calls them, their stores looking big. */
static CYSTCK_ALWAYS_INLINE Cystck_Object *_Cystck_BindArgsMore(Cystck_State *S, Cystck_Object *inl,
                                                                 PyObject *const *args, Cystck_ssize_t n)
{
    switch (n) {
    case 8: _CYSTCK_BIND_4(0); _CYSTCK_BIND_4(4); return inl;
    case 7: _CYSTCK_BIND_4(0); _CYSTCK_BIND_2(4); _CYSTCK_BIND(6); return inl;
    case 6: _CYSTCK_BIND_4(0); _CYSTCK_BIND_2(4); return inl;
    case 5: _CYSTCK_BIND_4(0); _CYSTCK_BIND(4); return inl;
    case 4: _CYSTCK_BIND_4(0); return inl;
    default: return n > CYSTCK_INLINE_ARGS ? _Cystck_HeapArgs(S, args, n) : inl;
    }
}
static CYSTCK_ALWAYS_INLINE Cystck_Object *_Cystck_BindArgsEach(Cystck_State *S, Cystck_Object *inl,
                                                                 PyObject *const *args, Cystck_ssize_t n)
{
    switch (n) {
    case 3: _CYSTCK_BIND_2(0); _CYSTCK_BIND(2); return inl;
    case 2: _CYSTCK_BIND_2(0); return inl;
    case 1: _CYSTCK_BIND(0); return inl;
    case 0: return inl;
    default: return _Cystck_BindArgsMore(S, inl, args, n);
    }
}
#undef _CYSTCK_BIND_4
#undef _CYSTCK_BIND_2
#undef _CYSTCK_BIND
#if CYSTCK_INLINE_ARGS != 8
#error "_Cystck_BindArgs and _Cystck_BindArgsEach bind up to 8 arguments inline: keep them in step with CYSTCK_INLINE_ARGS"
#endif

/* Debug twins.  Each trampoline kind below is a macro KIND_FN(ATTR, FN,
 * IMPL, ROOM) that defines one function FN; _CYSTCK_TWINS defines two of
 * them for each implementation.  The release trampoline, _CYSTCK_TRAMP(SYM),
 * opens its frame with the constant CYSTCK_INLINE_HANDLES inline slots, so
 * that the compiler folds every test of the frame's first handles, as in a
 * build without debug mode.  Its debug twin, _CYSTCK_TRAMP_DEBUG(SYM), opens
 * it with none, so that the first handle makes the frame checked
 * (_Cystck_OwnSlow); the definition (CystckDef) carries both, and the
 * runtime puts the twin into the method, getset and slot tables it builds
 * when debug mode is on (_Cystck_Twin).  The implementation must still have
 * one call the compiler sees, the release trampoline's, or it is no longer
 * inlined there ("called once"): the twin is `flatten`, which inlines the
 * implementation (and what it calls) into the twin before that decision.
 * The twin is cold code, compiled for size, but it is a second copy of the
 * implementation and of every helper it calls: more code and compile time.
 * Twins are opt-in (an extension defines CYSTCK_DEBUG_TWINS) and C only:
 * `flatten` inlines whole call trees, and compile time can explode (a Kiwi
 * C++ source and immutables' _map.c each compiled for more than 8 minutes
 * instead of 5 seconds).  Without CYSTCK_DEBUG_TWINS, without GCC's or
 * clang's attributes, in C++ or with CYSTCK_NO_DEBUG_MODE,
 * there is no twin and the trampoline opens its frame with
 * _CYSTCK_INLINE_ROOM(), as every other frame does (CYSTCK_MODINIT, module
 * exec and create, typed methods, Cystck_OpenFrame): debug mode is then
 * found at the frame's first handle (_Cystck_Own), which costs release
 * builds 0 to 9 instructions per call where the twins cost none
 * (docs/gaps.md, R1). */
#define _CYSTCK_TRAMP_DEBUG(SYM) SYM##__cystck_trampoline_debug
#if defined(CYSTCK_DEBUG_TWINS) && !defined(CYSTCK_NO_DEBUG_MODE) && \
    !defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
#define _CYSTCK_HAVE_TWINS 1
#define _CYSTCK_RELEASE_ROOM CYSTCK_INLINE_HANDLES
#define _CYSTCK_DEBUG_TWIN(KIND, SYM, IMPL) \
    KIND(__attribute__((flatten, cold)), _CYSTCK_TRAMP_DEBUG(SYM), IMPL, 0)
#define _CYSTCK_DEBUG_TWIN_R(KIND, SYM, IMPL, RTYPE) \
    KIND(__attribute__((flatten, cold)), _CYSTCK_TRAMP_DEBUG(SYM), IMPL, 0, RTYPE)
#define _CYSTCK_TWIN_OF(SYM) ((void *)_CYSTCK_TRAMP_DEBUG(SYM))
#define _CYSTCK_IF_TWINS(...) __VA_ARGS__
#else
#define _CYSTCK_RELEASE_ROOM _CYSTCK_INLINE_ROOM()
#define _CYSTCK_DEBUG_TWIN(KIND, SYM, IMPL)
#define _CYSTCK_DEBUG_TWIN_R(KIND, SYM, IMPL, RTYPE)
#define _CYSTCK_TWIN_OF(SYM) NULL
#define _CYSTCK_IF_TWINS(...)
#endif
#define _CYSTCK_TWINS(KIND, SYM, IMPL)                                        \
    KIND(, _CYSTCK_TRAMP(SYM), IMPL, _CYSTCK_RELEASE_ROOM)                    \
    _CYSTCK_DEBUG_TWIN(KIND, SYM, IMPL)
#define _CYSTCK_TWINS_R(KIND, SYM, IMPL, RTYPE)                               \
    KIND(, _CYSTCK_TRAMP(SYM), IMPL, _CYSTCK_RELEASE_ROOM, RTYPE)             \
    _CYSTCK_DEBUG_TWIN_R(KIND, SYM, IMPL, RTYPE)

/* ------------------------------------------------------------------ */
/* Method trampolines, one macro per calling convention                */
/* ------------------------------------------------------------------ */
/*
 *   CYSTCK_NOARGS    int f(Cystck_State *S, Cystck_Object self)
 *   CYSTCK_O         int f(Cystck_State *S, Cystck_Object self, Cystck_Object arg)
 *   CYSTCK_VARARGS   int f(Cystck_State *S, Cystck_Object self,
 *                          const Cystck_Object *args, Cystck_ssize_t nargs)
 *   CYSTCK_KEYWORDS  int f(Cystck_State *S, Cystck_Object self,
 *                          const Cystck_Object *args, Cystck_ssize_t nargs,
 *                          Cystck_Object kw)
 *       kw is the null handle, a tuple of keyword names whose values follow
 *       the positional ones in args, or (from tp_new/tp_init/tp_call) a dict.
 */
#define _CYSTCK_TRAMP(IMPL) IMPL##__cystck_trampoline

/* _CYSTCK_PROTO_<CONV>(IMPL) and _CYSTCK_FLAGS_<CONV>: autogen_slots.h, from
 * the table's conv lines. */

#define _CYSTCK_TRAMPOLINE_CYSTCK_NOARGS_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *self, PyObject *unused_)   \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        (void)unused_;                                                        \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_FinishMeth(&S_, IMPL(&S_, _Cystck_H(&self)), #IMPL, _CYSTCK_METH_FN(FN));       \
    }
#define _CYSTCK_TRAMPOLINE_CYSTCK_NOARGS(SYM, IMPL) \
    _CYSTCK_TWINS(_CYSTCK_TRAMPOLINE_CYSTCK_NOARGS_FN, SYM, IMPL)
#define _CYSTCK_TRAMPOLINE_CYSTCK_O_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *self, PyObject *arg)       \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_FinishMeth(&S_, IMPL(&S_, _Cystck_H(&self), _Cystck_HArg(&arg)), #IMPL, _CYSTCK_METH_FN(FN)); \
    }
#define _CYSTCK_TRAMPOLINE_CYSTCK_O(SYM, IMPL) \
    _CYSTCK_TWINS(_CYSTCK_TRAMPOLINE_CYSTCK_O_FN, SYM, IMPL)
#define _CYSTCK_TRAMPOLINE_CYSTCK_VARARGS_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *self, PyObject *const *args, \
                                         Py_ssize_t nargs)                    \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        Cystck_Object argv_[CYSTCK_INLINE_ARGS];                              \
        const Cystck_Object *hargs_;                                          \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        hargs_ = _Cystck_BindArgsEach(&S_, argv_, args, nargs);                   \
        if (Cystck_unlikely(hargs_ == NULL))                                  \
            return _Cystck_FinishMeth(&S_, -1, #IMPL, _CYSTCK_METH_FN(FN));                            \
        return _Cystck_FinishMeth(&S_, IMPL(&S_, _Cystck_H(&self), hargs_, nargs), #IMPL, _CYSTCK_METH_FN(FN)); \
    }
#define _CYSTCK_TRAMPOLINE_CYSTCK_VARARGS(SYM, IMPL) \
    _CYSTCK_TWINS(_CYSTCK_TRAMPOLINE_CYSTCK_VARARGS_FN, SYM, IMPL)
#define _CYSTCK_TRAMPOLINE_CYSTCK_KEYWORDS_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *self, PyObject *const *args, \
                                         Py_ssize_t nargs, PyObject *kwnames) \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        Cystck_Object argv_[CYSTCK_INLINE_ARGS];                              \
        const Cystck_Object *hargs_;                                          \
        Py_ssize_t ntotal_ = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0); \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        hargs_ = _Cystck_BindArgs(&S_, argv_, args, ntotal_);                 \
        if (Cystck_unlikely(hargs_ == NULL))                                  \
            return _Cystck_FinishMeth(&S_, -1, #IMPL, _CYSTCK_METH_FN(FN));                            \
        return _Cystck_FinishMeth(&S_, IMPL(&S_, _Cystck_H(&self), hargs_, nargs, \
                                  kwnames ? _Cystck_H(&kwnames) : Cystck_NULL), #IMPL, \
                                  _CYSTCK_METH_FN(FN));                    \
    }
#define _CYSTCK_TRAMPOLINE_CYSTCK_KEYWORDS(SYM, IMPL) \
    _CYSTCK_TWINS(_CYSTCK_TRAMPOLINE_CYSTCK_KEYWORDS_FN, SYM, IMPL)

/* ------------------------------------------------------------------ */
/* Definitions                                                         */
/* ------------------------------------------------------------------ */

typedef enum {
    CystckDef_Meth = 1,
    CystckDef_Slot,
    CystckDef_Member,
    CystckDef_GetSet
} CystckDef_Kind;

/* One method, slot, member or getset; lists of pointers to these make up
 * types and modules.  Built by the CYSTCK_DEF_* macros, never by hand. */
typedef struct {
    CystckDef_Kind kind;
    PyMethodDef meth;
    PyType_Slot slot;
    PyMemberDef member;
    PyGetSetDef getset;
    const struct _Cystck_TypedSig *typed;   /* a typed method's signature (typed.h), or NULL */
    /* The debug twins of the trampolines above (see _CYSTCK_TWINS): of
     * meth, slot or getset.get, and of getset.set; NULL where there is none. */
    void *debug_twin;
    void *debug_twin_set;
    /* Py_tp_dealloc (CYSTCK_DEF_DESTROY): the deallocator the runtime
     * installs instead of slot.pfunc when the type made has no GC, weak
     * references or finalizer, which slot.pfunc tests at every call. */
    void *plain_dealloc;
} CystckDef;

#define _CYSTCK_NO_METH   {NULL, NULL, 0, NULL}
#define _CYSTCK_NO_SLOT   {0, NULL}
#define _CYSTCK_NO_MEMBER {NULL, 0, 0, 0, NULL}
#define _CYSTCK_NO_GETSET {NULL, NULL, NULL, NULL, NULL}

/* CYSTCK_DEF_METH(sym, "name", impl, CYSTCK_VARARGS, doc)
 * declares impl with the convention's signature, generates its trampoline
 * and defines `static CystckDef sym`.  Define impl after (or before) it. */
#define _CYSTCK_DEF_METH(LINKAGE, SYM, NAME, IMPL, CONV, FLAGS, DOC)          \
    LINKAGE _CYSTCK_PROTO_##CONV(IMPL);                                       \
    _CYSTCK_TRAMPOLINE_##CONV(SYM, IMPL)                                      \
    static CystckDef SYM = { CystckDef_Meth,                                  \
        { NAME, (PyCFunction)(void (*)(void))_CYSTCK_TRAMP(SYM),              \
          _CYSTCK_FLAGS_##CONV | (FLAGS), DOC },                              \
        _CYSTCK_NO_SLOT, _CYSTCK_NO_MEMBER, _CYSTCK_NO_GETSET, NULL,          \
        _CYSTCK_TWIN_OF(SYM), NULL, NULL };
#define CYSTCK_DEF_METH(SYM, NAME, IMPL, CONV, DOC) \
    _CYSTCK_DEF_METH(static, SYM, NAME, IMPL, CONV, 0, DOC)
/* The same for an implementation with external linkage, defined in another
 * file of the extension (declare it there without `static`). */
#define CYSTCK_DEF_METH_EXTERN(SYM, NAME, IMPL, CONV, DOC) \
    _CYSTCK_DEF_METH(extern, SYM, NAME, IMPL, CONV, 0, DOC)
/* A method of a type with CPython's binding flags added to the convention:
 *   METH_CLASS    self is the class (a classmethod)
 *   METH_STATIC   self is the null handle (a staticmethod)
 *   METH_COEXIST  defined even where a slot already made the name
 * e.g. CYSTCK_DEF_METH_FLAGS(sym, "from_bytes", impl, CYSTCK_KEYWORDS, METH_CLASS, doc). */
#define CYSTCK_DEF_METH_FLAGS(SYM, NAME, IMPL, CONV, FLAGS, DOC) \
    _CYSTCK_DEF_METH(static, SYM, NAME, IMPL, CONV, FLAGS, DOC)

/* Member types for CYSTCK_DEF_MEMBER. */
#define CYSTCK_MEMBER_SHORT     T_SHORT
#define CYSTCK_MEMBER_INT       T_INT
#define CYSTCK_MEMBER_LONG      T_LONG
#define CYSTCK_MEMBER_FLOAT     T_FLOAT
#define CYSTCK_MEMBER_DOUBLE    T_DOUBLE
#define CYSTCK_MEMBER_STRING    T_STRING
#define CYSTCK_MEMBER_STRING_INPLACE T_STRING_INPLACE   /* a char array in the struct */
#define CYSTCK_MEMBER_CHAR      T_CHAR
#define CYSTCK_MEMBER_BYTE      T_BYTE
#define CYSTCK_MEMBER_UBYTE     T_UBYTE
#define CYSTCK_MEMBER_UINT      T_UINT
#define CYSTCK_MEMBER_USHORT    T_USHORT
#define CYSTCK_MEMBER_ULONG     T_ULONG
#define CYSTCK_MEMBER_BOOL      T_BOOL
#define CYSTCK_MEMBER_LONGLONG  T_LONGLONG
#define CYSTCK_MEMBER_ULONGLONG T_ULONGLONG
#define CYSTCK_MEMBER_SSIZET    T_PYSSIZET
#define CYSTCK_MEMBER_FIELD     T_OBJECT_EX   /* a Cystck_Field */
#define CYSTCK_READONLY         READONLY

/* A struct member exposed as an attribute: STRUCT is the native struct
 * (without object head), FIELD one of its members. */
#define CYSTCK_DEF_MEMBER(SYM, NAME, TYPE, STRUCT, FIELD, FLAGS, DOC)         \
    static CystckDef SYM = { CystckDef_Member, _CYSTCK_NO_METH, _CYSTCK_NO_SLOT, \
        { NAME, TYPE, (Py_ssize_t)(CYSTCK_DATA_OFFSET + offsetof(STRUCT, FIELD)), \
          FLAGS, DOC },                                                       \
        _CYSTCK_NO_GETSET, NULL, NULL, NULL, NULL };

/* Weak references to instances: the native struct holds a Cystck_WeakList
 * (the extension never touches it) and the type's defines list
 * CYSTCK_DEF_WEAKLIST(sym, STRUCT, FIELD), the stock tp_weaklistoffset.
 * The runtime starts the list empty and clears it when an instance dies,
 * before the type's destructor runs (stock: PyObject_ClearWeakRefs). */
typedef struct { PyObject *_list; } Cystck_WeakList;
#define CYSTCK_DEF_WEAKLIST(SYM, STRUCT, FIELD)                               \
    static CystckDef SYM = { CystckDef_Member, _CYSTCK_NO_METH, _CYSTCK_NO_SLOT, \
        { "__weaklistoffset__", T_PYSSIZET,                                   \
          (Py_ssize_t)(CYSTCK_DATA_OFFSET + offsetof(STRUCT, FIELD)), READONLY, NULL }, \
        _CYSTCK_NO_GETSET, NULL, NULL, NULL, NULL };

/* A __dict__ for instances: the native struct's Cystck_Field FIELD holds
 * the dict (the one the extension stores there, else the one CPython makes
 * on the first attribute store) and the type's defines list
 * CYSTCK_DEF_DICT(sym, STRUCT, FIELD), the stock tp_dictoffset.  The type's
 * traverse visits the field, and the runtime releases it with the others
 * when an instance dies.  (A Cystck_Field is one PyObject *, as CPython
 * reads the dict's slot.) */
#define CYSTCK_DEF_DICT(SYM, STRUCT, FIELD)                                   \
    static CystckDef SYM = { CystckDef_Member, _CYSTCK_NO_METH, _CYSTCK_NO_SLOT, \
        { "__dictoffset__", T_PYSSIZET,                                       \
          (Py_ssize_t)(CYSTCK_DATA_OFFSET + offsetof(STRUCT, FIELD)), READONLY, NULL }, \
        _CYSTCK_NO_GETSET, NULL, NULL, NULL, NULL };

/* Getters and setters:
 *   int get(Cystck_State *S, Cystck_Object self, void *closure)   push count
 *   int set(Cystck_State *S, Cystck_Object self, Cystck_Object value,
 *           void *closure)       0 / -1; value is null for `del obj.attr` */
#define _CYSTCK_GETTER_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *self, void *closure)       \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_Finish(&S_, IMPL(&S_, _Cystck_HArg(&self), closure), #IMPL); \
    }
#define _CYSTCK_GETTER(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self, void *closure);      \
    _CYSTCK_TWINS(_CYSTCK_GETTER_FN, SYM, IMPL)
#define _CYSTCK_SETTER_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static int FN(PyObject *self, PyObject *value, void *closure) \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_FinishInt(&S_, IMPL(&S_, _Cystck_HArg(&self),         \
                                 value ? _Cystck_H(&value) : Cystck_NULL, closure), #IMPL); \
    }
#define _CYSTCK_SETTER(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self, Cystck_Object value, void *closure); \
    _CYSTCK_TWINS(_CYSTCK_SETTER_FN, SYM, IMPL)
#define CYSTCK_DEF_GET(SYM, NAME, GETTER, DOC, CLOSURE)                       \
    _CYSTCK_GETTER(SYM##_get, GETTER)                                         \
    static CystckDef SYM = { CystckDef_GetSet, _CYSTCK_NO_METH, _CYSTCK_NO_SLOT, \
        _CYSTCK_NO_MEMBER,                                                    \
        { NAME, _CYSTCK_TRAMP(SYM##_get), NULL, DOC, CLOSURE }, NULL,        \
        _CYSTCK_TWIN_OF(SYM##_get), NULL, NULL };
#define CYSTCK_DEF_GETSET(SYM, NAME, GETTER, SETTER, DOC, CLOSURE)            \
    _CYSTCK_GETTER(SYM##_get, GETTER)                                         \
    _CYSTCK_SETTER(SYM##_set, SETTER)                                         \
    static CystckDef SYM = { CystckDef_GetSet, _CYSTCK_NO_METH, _CYSTCK_NO_SLOT, \
        _CYSTCK_NO_MEMBER,                                                    \
        { NAME, _CYSTCK_TRAMP(SYM##_get), _CYSTCK_TRAMP(SYM##_set), DOC, CLOSURE }, NULL, \
        _CYSTCK_TWIN_OF(SYM##_get), _CYSTCK_TWIN_OF(SYM##_set), NULL };

/* ------------------------------------------------------------------ */
/* Slots                                                               */
/* ------------------------------------------------------------------ */
/* CYSTCK_DEF_SLOT(sym, slot, impl): impl's signature depends on the slot;
 * cystck/apitable.py lists the slots with their signatures (docs/api.md
 * shows them) and the trampoline below that calls each. */
#define _CYSTCK_UNARY_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *self)                      \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_Finish(&S_, IMPL(&S_, _Cystck_HArg(&self)), #IMPL);       \
    }
#define _CYSTCK_UNARY(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self);                     \
    _CYSTCK_TWINS(_CYSTCK_UNARY_FN, SYM, IMPL)
#define _CYSTCK_ITERNEXT_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *self)                      \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        int n_;                                                               \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        n_ = IMPL(&S_, _Cystck_HArg(&self));                                     \
        if (n_ < 0 && !PyErr_Occurred()) {                                    \
            _Cystck_FinishInt(&S_, -1, #IMPL);   /* like an error */          \
            return NULL;   /* exhausted */                                    \
        }                                                                     \
        return _Cystck_Finish(&S_, n_, #IMPL);                                \
    }
#define _CYSTCK_ITERNEXT(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self);                     \
    _CYSTCK_TWINS(_CYSTCK_ITERNEXT_FN, SYM, IMPL)
#define _CYSTCK_BINARY_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *a, PyObject *b)            \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_Finish(&S_, IMPL(&S_, _Cystck_HArg(&a), _Cystck_HArg(&b)), #IMPL); \
    }
#define _CYSTCK_BINARY(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object a, Cystck_Object b);       \
    _CYSTCK_TWINS(_CYSTCK_BINARY_FN, SYM, IMPL)
#define _CYSTCK_TERNARY_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *a, PyObject *b, PyObject *c) \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_Finish(&S_, IMPL(&S_, _Cystck_HArg(&a), _Cystck_HArg(&b),    \
                                        _Cystck_H(&c)), #IMPL);               \
    }
#define _CYSTCK_TERNARY(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object a, Cystck_Object b, Cystck_Object c); \
    _CYSTCK_TWINS(_CYSTCK_TERNARY_FN, SYM, IMPL)
#define _CYSTCK_DESCRGET_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *self, PyObject *obj, PyObject *type) \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_Finish(&S_, IMPL(&S_, _Cystck_HArg(&self), _Cystck_H(&obj), \
                                        _Cystck_H(&type)), #IMPL);            \
    }
#define _CYSTCK_DESCRGET(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self, Cystck_Object obj, Cystck_Object type); \
    _CYSTCK_TWINS(_CYSTCK_DESCRGET_FN, SYM, IMPL)
#define _CYSTCK_RICHCMP_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *a, PyObject *b, int op)    \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_Finish(&S_, IMPL(&S_, _Cystck_HArg(&a), _Cystck_HArg(&b), op), #IMPL); \
    }
#define _CYSTCK_RICHCMP(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object a, Cystck_Object b, int op); \
    _CYSTCK_TWINS(_CYSTCK_RICHCMP_FN, SYM, IMPL)
#define _CYSTCK_VALUE_OF_SELF_FN(ATTR, FN, IMPL, ROOM, RTYPE) \
    ATTR static RTYPE FN(PyObject *self)                          \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        RTYPE r_;                                                             \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        r_ = IMPL(&S_, _Cystck_HArg(&self));                                     \
        return _CYSTCK_FINISH_VALUE(&S_, r_, #IMPL);                          \
    }
#define _CYSTCK_VALUE_OF_SELF(SYM, IMPL, RTYPE) \
    static RTYPE IMPL(Cystck_State *S, Cystck_Object self);                   \
    _CYSTCK_TWINS_R(_CYSTCK_VALUE_OF_SELF_FN, SYM, IMPL, RTYPE)
#define _CYSTCK_SSIZEARG_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *self, Py_ssize_t i)        \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_Finish(&S_, IMPL(&S_, _Cystck_HArg(&self), i), #IMPL);    \
    }
#define _CYSTCK_SSIZEARG(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self, Cystck_ssize_t i);   \
    _CYSTCK_TWINS(_CYSTCK_SSIZEARG_FN, SYM, IMPL)
#define _CYSTCK_SSIZEOBJARG_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static int FN(PyObject *self, Py_ssize_t i, PyObject *v) \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_FinishInt(&S_, IMPL(&S_, _Cystck_HArg(&self), i,          \
                                 v ? _Cystck_H(&v) : Cystck_NULL), #IMPL);   \
    }
#define _CYSTCK_SSIZEOBJARG(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self, Cystck_ssize_t i, Cystck_Object v); \
    _CYSTCK_TWINS(_CYSTCK_SSIZEOBJARG_FN, SYM, IMPL)
#define _CYSTCK_OBJOBJARG_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static int FN(PyObject *self, PyObject *k, PyObject *v)  \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_FinishInt(&S_, IMPL(&S_, _Cystck_HArg(&self), _Cystck_HArg(&k), \
                                 v ? _Cystck_H(&v) : Cystck_NULL), #IMPL);   \
    }
#define _CYSTCK_OBJOBJARG(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self, Cystck_Object k, Cystck_Object v); \
    _CYSTCK_TWINS(_CYSTCK_OBJOBJARG_FN, SYM, IMPL)
#define _CYSTCK_OBJOBJ_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static int FN(PyObject *self, PyObject *v)               \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        return _Cystck_FinishInt(&S_, IMPL(&S_, _Cystck_HArg(&self), _Cystck_HArg(&v)), #IMPL); \
    }
#define _CYSTCK_OBJOBJ(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self, Cystck_Object v);    \
    _CYSTCK_TWINS(_CYSTCK_OBJOBJ_FN, SYM, IMPL)
/* tp_new, tp_init and tp_call receive a tuple and a dict: the argument
 * handles point into the tuple's items (always a tuple, so not read
 * through PySequence_Fast_ITEMS, which tests for a list), kw is the dict
 * or null. */
#define _CYSTCK_ARGS_KW_BODY(IMPL, FIRST, FINISH, ROOM)                           \
        _CYSTCK_FRAME_LOCALS;                                                 \
        Cystck_Object argv_[CYSTCK_INLINE_ARGS];                              \
        const Cystck_Object *hargs_;                                          \
        Py_ssize_t n_ = PyTuple_GET_SIZE(args);                               \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                \
        hargs_ = _Cystck_BindArgs(&S_, argv_, ((PyTupleObject *)args)->ob_item, n_); \
        if (Cystck_unlikely(hargs_ == NULL))                                  \
            return FINISH(&S_, -1, #IMPL);                                    \
        return FINISH(&S_, IMPL(&S_, _Cystck_HArg(&FIRST), hargs_, n_,           \
                                kw ? _Cystck_H(&kw) : Cystck_NULL), #IMPL);
#define _CYSTCK_NEW_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyTypeObject *type_, PyObject *args, PyObject *kw) \
    {                                                                         \
        PyObject *type = (PyObject *)type_;                                   \
        _CYSTCK_ARGS_KW_BODY(IMPL, type, _Cystck_Finish, ROOM)                      \
    }
#define _CYSTCK_NEW(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object type, const Cystck_Object *args, \
                    Cystck_ssize_t nargs, Cystck_Object kw);                  \
    _CYSTCK_TWINS(_CYSTCK_NEW_FN, SYM, IMPL)
#define _CYSTCK_INIT_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static int FN(PyObject *self, PyObject *args, PyObject *kw) \
    {                                                                         \
        _CYSTCK_ARGS_KW_BODY(IMPL, self, _Cystck_FinishInt, ROOM)                   \
    }
#define _CYSTCK_INIT(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, \
                    Cystck_ssize_t nargs, Cystck_Object kw);                  \
    _CYSTCK_TWINS(_CYSTCK_INIT_FN, SYM, IMPL)
#define _CYSTCK_CALL_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static PyObject *FN(PyObject *self, PyObject *args, PyObject *kw) \
    {                                                                         \
        _CYSTCK_ARGS_KW_BODY(IMPL, self, _Cystck_Finish, ROOM)                      \
    }
#define _CYSTCK_CALL(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, \
                    Cystck_ssize_t nargs, Cystck_Object kw);                  \
    _CYSTCK_TWINS(_CYSTCK_CALL_FN, SYM, IMPL)

/* The buffer protocol.  getbuffer fills the view (CystckBuffer_FillInfo,
 * or by hand); its view->obj starts NULL and, if left so, the trampoline
 * sets it to self: the exporter CPython keeps alive while the view lives.
 * releasebuffer runs with no exception set (a pending one is kept aside);
 * an error it raises is reported as unraisable, as CPython cannot take it. */
CYSTCK_INTERNAL int _Cystck_BufferFilled(PyObject *self, Py_buffer *view, int r);
CYSTCK_INTERNAL void _Cystck_StashError(PyObject *saved[3]);
CYSTCK_INTERNAL void _Cystck_BufferReleased(PyObject *self, int r, PyObject *saved[3]);
#define _CYSTCK_GETBUFFER_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static int FN(PyObject *self, Py_buffer *view, int flags) \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        int r_;                                                               \
        view->obj = NULL;                                                     \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        r_ = _Cystck_FinishInt(&S_, IMPL(&S_, _Cystck_HArg(&self), view, flags), #IMPL); \
        return _Cystck_BufferFilled(self, view, r_);                          \
    }
#define _CYSTCK_GETBUFFER(SYM, IMPL) \
    static int IMPL(Cystck_State *S, Cystck_Object self, Py_buffer *view, int flags); \
    _CYSTCK_TWINS(_CYSTCK_GETBUFFER_FN, SYM, IMPL)
#define _CYSTCK_RELEASEBUFFER_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static void FN(PyObject *self, Py_buffer *view)          \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        PyObject *saved_[3];                                                  \
        _Cystck_StashError(saved_);                                           \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                        \
        IMPL(&S_, _Cystck_HArg(&self), view);                                 \
        _Cystck_BufferReleased(self, _Cystck_FinishInt(&S_, 0, #IMPL), saved_); \
    }
#define _CYSTCK_RELEASEBUFFER(SYM, IMPL) \
    static void IMPL(Cystck_State *S, Cystck_Object self, Py_buffer *view);   \
    _CYSTCK_TWINS(_CYSTCK_RELEASEBUFFER_FN, SYM, IMPL)

/* A finalizer (PEP 442) runs once before the object dies, the object alive
 * again for the call, so it may use the API (a destructor has no state).
 * Like releasebuffer it cannot report a failure: the pending exception is
 * kept aside, and an error it raises is reported as unraisable. */
#define _CYSTCK_FINALIZE_FN(ATTR, FN, IMPL, ROOM) \
    ATTR static void FN(PyObject *self)                           \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        PyObject *saved_[3];                                                  \
        _Cystck_StashError(saved_);                                           \
        _Cystck_OpenFrameRoom(&S_, &F_, ROOM);                                   \
        IMPL(&S_, _Cystck_HArg(&self));                                       \
        _Cystck_BufferReleased(self, _Cystck_FinishInt(&S_, 0, #IMPL), saved_); \
    }
#define _CYSTCK_FINALIZE(SYM, IMPL) \
    static void IMPL(Cystck_State *S, Cystck_Object self);                    \
    _CYSTCK_TWINS(_CYSTCK_FINALIZE_FN, SYM, IMPL)

/* Traverse: the runtime's generic tp_clear/tp_dealloc call the traverse
 * trampoline with _Cystck_ClearVisitMarker to release every visited field
 * (arg: NULL for tp_clear, where to keep the objects until the destructor
 * has run for tp_dealloc). */
CYSTCK_INTERNAL int _Cystck_ClearVisitMarker(PyObject *o, void *arg);
CYSTCK_INTERNAL int _Cystck_VisitAdapter(Cystck_Field *f, void *ctx);
CYSTCK_INTERNAL int _Cystck_ReleaseField(Cystck_Field *f, void *ctx);
typedef struct { visitproc visit; void *arg; } _Cystck_VisitCtx;
#define _CYSTCK_TRAVERSE(SYM, IMPL)                                                \
    static int IMPL(void *data, Cystck_visitproc visit, void *arg);           \
    static int _CYSTCK_TRAMP(SYM)(PyObject *self, visitproc visit, void *arg) \
    {                                                                         \
        _Cystck_VisitCtx ctx_;                                                \
        void *data_ = (char *)self + CYSTCK_DATA_OFFSET;                      \
        if (visit == _Cystck_ClearVisitMarker)                                \
            return IMPL(data_, _Cystck_ReleaseField, arg);                    \
        ctx_.visit = visit;                                                   \
        ctx_.arg = arg;                                                       \
        Py_VISIT(Py_TYPE(self));                                              \
        return IMPL(data_, _Cystck_VisitAdapter, &ctx_);                      \
    }                                                                         \
    /* no frame: its "twin" is itself */                                      \
    _CYSTCK_IF_TWINS(                                                         \
    static int _CYSTCK_TRAMP_DEBUG(SYM)(PyObject *self, visitproc visit, void *arg) \
    {                                                                         \
        return _CYSTCK_TRAMP(SYM)(self, visit, arg);                          \
    })
CYSTCK_INTERNAL void _Cystck_DeallocWith(PyObject *self, void (*destroy)(void *), destructor own);
CYSTCK_INTERNAL void _Cystck_DeallocTrash(PyObject *self, void (*destroy)(void *), destructor own);
/* The memory of a dead instance of tp (its type, read before anything ran
 * that could change it), and the reference to its heap type that every
 * instance holds.  Where the reference count is a plain counter (CPython
 * before 3.12 without Py_REF_DEBUG: no immortal objects, no total to keep),
 * the reference goes first, so that tp_free is a tail call and the caller
 * keeps nothing across it: the type outlives tp_free either way, as a count
 * that reaches 0 sends the instance to _Cystck_FreeLastInstance, which
 * deallocates the type only after tp_free (which may read it). */
CYSTCK_INTERNAL CYSTCK_NOINLINE void _Cystck_FreeLastInstance(PyObject *self, PyTypeObject *tp);
static inline void _Cystck_FreeInstance(PyObject *self, PyTypeObject *tp)
{
#if PY_VERSION_HEX < 0x030C0000 && !defined(Py_REF_DEBUG)
    if (Cystck_likely(--((PyObject *)tp)->ob_refcnt != 0))
        tp->tp_free(self);
    else
        _Cystck_FreeLastInstance(self, tp);
#else
    tp->tp_free(self);
    Py_DECREF(tp);
#endif
}
/* A type without GC (so without traverse, hence without fields: only GC
 * types get one, by CystckType_FromSpec's rule and CPython's inheritance)
 * and without weak references or a finalizer needs only the destructor,
 * tp_free and the heap type's reference: done here, with IMPL called
 * directly (and often inlined).  The type is read again after IMPL: only
 * self is then kept across the call.  SYM tests the instance's type for
 * all three; CystckType_FromSpec installs SYM_plain instead in a type made
 * without GC or weak references (CystckDef.plain_dealloc), which tests only
 * for a finalizer, the one a heap type can gain later (`cls.__del__ = f`).
 * A Python subclass's subtype_dealloc does its own GC, weak reference and
 * finalizer work before it calls either. */
#define _CYSTCK_DESTROY(SYM, IMPL)                                                 \
    static void IMPL(void *data);                                             \
    static void _CYSTCK_TRAMP(SYM)(PyObject *self);                          \
    static void _CYSTCK_TRAMP(SYM##_plain)(PyObject *self)                   \
    {                                                                         \
        if (Cystck_unlikely(Py_TYPE(self)->tp_finalize != NULL)) {            \
            _Cystck_DeallocWith(self, IMPL, _CYSTCK_TRAMP(SYM##_plain));      \
            return;                                                           \
        }                                                                     \
        IMPL((char *)self + CYSTCK_DATA_OFFSET);                              \
        _Cystck_FreeInstance(self, Py_TYPE(self));                            \
    }                                                                         \
    static void _CYSTCK_TRAMP(SYM)(PyObject *self)                           \
    {                                                                         \
        PyTypeObject *tp_ = Py_TYPE(self);                                    \
        if (Cystck_likely(!PyType_IS_GC(tp_) && tp_->tp_weaklistoffset == 0 && \
                          tp_->tp_finalize == NULL)) {                        \
            IMPL((char *)self + CYSTCK_DATA_OFFSET);                          \
            _Cystck_FreeInstance(self, Py_TYPE(self));                        \
            return;                                                           \
        }                                                                     \
        if (PyType_IS_GC(tp_))                                                \
            _Cystck_DeallocTrash(self, IMPL, _CYSTCK_TRAMP(SYM));             \
        else                                                                  \
            _Cystck_DeallocWith(self, IMPL, _CYSTCK_TRAMP(SYM));              \
    }

/* The slots CYSTCK_DEF_SLOT accepts, each with its trampoline kind in
 * parentheses (the parentheses tell a listed slot from an unknown name):
 * _CYSTCK_SLOTKIND_tp_repr is (_CYSTCK_UNARY), generated from the slot
 * lines of cystck/apitable.py. */
#include "autogen_slots.h"

#define _CYSTCK_HASHFUNC(SYM, IMPL) _CYSTCK_VALUE_OF_SELF(SYM, IMPL, Py_hash_t)
#define _CYSTCK_LENFUNC(SYM, IMPL)  _CYSTCK_VALUE_OF_SELF(SYM, IMPL, Py_ssize_t)
#define _CYSTCK_INQUIRY(SYM, IMPL)  _CYSTCK_VALUE_OF_SELF(SYM, IMPL, int)

/* CYSTCK_DEF_SLOT checks that SLOT is in the list above: each entry is a
 * parenthesized trampoline kind, and _CYSTCK_IS_PAREN tells a defined entry
 * (1) from an unknown slot name, left as an identifier (0).  An unknown
 * slot then gives one compile error naming it, not a cascade. */
#define _CYSTCK_SECOND(a, b, ...) b
#define _CYSTCK_PAREN_PROBE(...) ~, 1
#define _CYSTCK_IS_PAREN_(...) _CYSTCK_SECOND(__VA_ARGS__, 0, ~)
#define _CYSTCK_IS_PAREN(x) _CYSTCK_IS_PAREN_(_CYSTCK_PAREN_PROBE x)
#define _CYSTCK_UNPAREN(x) x
#define _CYSTCK_SLOT_KIND(KIND, SYM, IMPL) _CYSTCK_UNPAREN KIND (SYM, IMPL)
#ifdef __cplusplus
#define _CYSTCK_STATIC_ASSERT(COND, MSG) static_assert(COND, MSG)
#else
#define _CYSTCK_STATIC_ASSERT(COND, MSG) _Static_assert(COND, MSG)
#endif
/* The header's copy (_Cystck_HeadCopy) is read as a Cystck_State. */
_CYSTCK_STATIC_ASSERT(offsetof(Cystck_State, frame) == offsetof(_Cystck_HeadCopy, frame) &&
                      offsetof(Cystck_State, sp_limit) == offsetof(_Cystck_HeadCopy, sp_limit),
                      "_Cystck_HeadCopy must start like Cystck_State");

#define _CYSTCK_DEF_SLOT_1(SYM, SLOT, IMPL)                                   \
    _CYSTCK_SLOT_KIND(_CYSTCK_SLOTKIND_##SLOT, SYM, IMPL)                     \
    static CystckDef SYM = { CystckDef_Slot, _CYSTCK_NO_METH,                 \
        { Py_##SLOT, (void *)_CYSTCK_TRAMP(SYM) },                            \
        _CYSTCK_NO_MEMBER, _CYSTCK_NO_GETSET, NULL, _CYSTCK_TWIN_OF(SYM), NULL, NULL };
#define _CYSTCK_DEF_SLOT_0(SYM, SLOT, IMPL)                                   \
    _CYSTCK_STATIC_ASSERT(0, "CYSTCK_DEF_SLOT: " #SLOT " is not a slot "      \
                          "CYSTCK_DEF_SLOT supports (see docs/api.md)");      \
    static CystckDef SYM = { CystckDef_Slot, _CYSTCK_NO_METH, _CYSTCK_NO_SLOT, \
        _CYSTCK_NO_MEMBER, _CYSTCK_NO_GETSET, NULL, NULL, NULL, NULL };
#define _CYSTCK_DEF_SLOT_IF(KNOWN, SYM, SLOT, IMPL) _CYSTCK_DEF_SLOT_IF_(KNOWN, SYM, SLOT, IMPL)
#define _CYSTCK_DEF_SLOT_IF_(KNOWN, SYM, SLOT, IMPL) _CYSTCK_DEF_SLOT_##KNOWN(SYM, SLOT, IMPL)

#define CYSTCK_DEF_SLOT(SYM, SLOT, IMPL) \
    _CYSTCK_DEF_SLOT_IF(_CYSTCK_IS_PAREN(_CYSTCK_SLOTKIND_##SLOT), SYM, SLOT, IMPL)

/* The type's destructor: void f(void *data) releases native resources held
 * by the struct (files, malloc'ed buffers).  It runs before the runtime
 * releases the fields, which still hold their objects. */
#define CYSTCK_DEF_DESTROY(SYM, IMPL)                                         \
    _CYSTCK_DESTROY(SYM, IMPL)                                                \
    static CystckDef SYM = { CystckDef_Slot, _CYSTCK_NO_METH,                 \
        { Py_tp_dealloc, (void *)_CYSTCK_TRAMP(SYM) },                        \
        _CYSTCK_NO_MEMBER, _CYSTCK_NO_GETSET, NULL, NULL, NULL,               \
        (void *)_CYSTCK_TRAMP(SYM##_plain) };

/* The type's clear (tp_clear, for the cyclic GC): the runtime releases the
 * fields through traverse, as it does without this, then IMPL, void
 * f(void *data), resets the rest of the struct as a stock tp_clear did
 * beside its Py_CLEARs (a count of the items released, a flag). */
CYSTCK_INTERNAL int _Cystck_ClearWith(PyObject *self, void (*after)(void *));
#define CYSTCK_DEF_CLEAR(SYM, IMPL)                                           \
    static void IMPL(void *data);                                             \
    static int _CYSTCK_TRAMP(SYM)(PyObject *self)                            \
    {                                                                         \
        return _Cystck_ClearWith(self, IMPL);                                 \
    }                                                                         \
    static CystckDef SYM = { CystckDef_Slot, _CYSTCK_NO_METH,                 \
        { Py_tp_clear, (void *)_CYSTCK_TRAMP(SYM) },                          \
        _CYSTCK_NO_MEMBER, _CYSTCK_NO_GETSET, NULL, NULL, NULL, NULL };

/* tp_dealloc in two parts: RELEASE, void RELEASE(Cystck_State *S,
 * Cystck_Object self), uses the API where a stock deallocator did, in
 * tp_dealloc (for a Python subclass's instances too, whatever finalizer the
 * subclass defines), the object alive for the call; then IMPL, the
 * destructor, releases native resources.  _API: RELEASE only. */
CYSTCK_INTERNAL void _Cystck_DeallocRelease(PyObject *self, destructor release, void (*destroy)(void *),
                                           destructor own);
#define CYSTCK_DEF_DEALLOC(SYM, RELEASE, IMPL)                                \
    static void IMPL(void *data);                                             \
    _CYSTCK_DEF_DEALLOC(SYM, RELEASE, IMPL)
#define CYSTCK_DEF_DEALLOC_API(SYM, RELEASE) _CYSTCK_DEF_DEALLOC(SYM, RELEASE, NULL)
#define _CYSTCK_DEF_DEALLOC(SYM, RELEASE, IMPL)                               \
    _CYSTCK_FINALIZE(SYM##_release, RELEASE)                                  \
    static void _CYSTCK_TRAMP(SYM)(PyObject *self)                           \
    {                                                                         \
        _Cystck_DeallocRelease(self, _CYSTCK_TRAMP(SYM##_release), IMPL,      \
                               _CYSTCK_TRAMP(SYM));                           \
    }                                                                         \
    _CYSTCK_IF_TWINS(                                                         \
    static void _CYSTCK_TRAMP_DEBUG(SYM)(PyObject *self)                     \
    {                                                                         \
        _Cystck_DeallocRelease(self, _CYSTCK_TRAMP_DEBUG(SYM##_release), IMPL, \
                               _CYSTCK_TRAMP_DEBUG(SYM));                     \
    })                                                                        \
    static CystckDef SYM = { CystckDef_Slot, _CYSTCK_NO_METH,                 \
        { Py_tp_dealloc, (void *)_CYSTCK_TRAMP(SYM) },                        \
        _CYSTCK_NO_MEMBER, _CYSTCK_NO_GETSET, NULL, _CYSTCK_TWIN_OF(SYM), NULL, NULL };

/* Slots filled with CPython's own generic functions, which touch no handle:
 * `return self` for tp_iter and "unhashable" for tp_hash. */
#define CYSTCK_DEF_SELFITER(SYM)                                              \
    static CystckDef SYM = { CystckDef_Slot, _CYSTCK_NO_METH,                 \
        { Py_tp_iter, (void *)PyObject_SelfIter },                            \
        _CYSTCK_NO_MEMBER, _CYSTCK_NO_GETSET, NULL, NULL, NULL, NULL };
#define CYSTCK_DEF_HASH_NOT_IMPLEMENTED(SYM)                                  \
    static CystckDef SYM = { CystckDef_Slot, _CYSTCK_NO_METH,                 \
        { Py_tp_hash, (void *)PyObject_HashNotImplemented },                  \
        _CYSTCK_NO_MEMBER, _CYSTCK_NO_GETSET, NULL, NULL, NULL, NULL };

/* ------------------------------------------------------------------ */
/* Types and modules                                                   */
/* ------------------------------------------------------------------ */

/* Type flags on top of Py_TPFLAGS_DEFAULT (which is always set).  A type
 * with DISALLOW_INSTANTIATION cannot be called from Python (`type(x)()`
 * raises TypeError): only its extension makes instances, with Cystck_New.
 * A type without either a tp_new slot or this flag gets object's tp_new,
 * as a stock type from a spec does: calling it makes an instance whose
 * struct is zeroed. */
#define CYSTCK_TPFLAGS_BASETYPE Py_TPFLAGS_BASETYPE
#define CYSTCK_TPFLAGS_DISALLOW_INSTANTIATION Py_TPFLAGS_DISALLOW_INSTANTIATION

typedef struct {
    const char *name;          /* "module.Type" */
    Cystck_ssize_t basicsize;  /* sizeof the native struct (no head), or 0 */
    Cystck_ssize_t itemsize;
    unsigned long flags;
    CystckDef **defines;       /* NULL-terminated */
    const char *doc;
} CystckType_Spec;

typedef struct {
    const char *name;
    const char *doc;
    Cystck_ssize_t size;       /* module state size (0: none) */
    CystckDef **defines;       /* functions and module slots, NULL-terminated */
} CystckModuleDef;

/* ---- Multi-phase module initialization (PEP 489) ----
 * A module whose definition lists these is initialized in phases: its init
 * function returns Cystck_Return(S, CystckModuleDef_Init(S, &def)), and the
 * import system then creates the module (with create, or a plain module
 * with a zeroed state of def.size bytes) and runs each exec on it.
 *   CYSTCK_DEF_MOD_CREATE(sym, impl)
 *       int impl(S, Cystck_Object spec, CystckModuleDef *def)  push count
 *   CYSTCK_DEF_MOD_EXEC(sym, impl)
 *       int impl(S, Cystck_Object module)                        0 / -1
 *   CYSTCK_DEF_MOD_SLOT(sym, slot, value)
 *       a value slot, e.g. Py_mod_multiple_interpreters (3.12) or
 *       Py_mod_gil (3.13); see docs/runtime.md for what the runtime allows.
 *   CYSTCK_DEF_MOD_TRAVERSE(sym, impl)
 *       int impl(void *state, Cystck_visitproc visit, void *arg) must visit
 *       every Cystck_Field of the module state: the cyclic GC sees them and
 *       the runtime clears them when the module is cleared or freed.  Works
 *       for single-phase modules with a state too.
 * References made in create and exec are module globals, as in
 * CYSTCK_MODINIT. */
CYSTCK_INTERNAL CystckModuleDef *_Cystck_ModuleDefOf(PyModuleDef *pydef);
/* The slot id of a module's traverse function (not a CPython slot). */
#define _CYSTCK_MOD_TRAVERSE_SLOT (-1)

#define _CYSTCK_MOD_EXEC(SYM, IMPL)                                           \
    static int IMPL(Cystck_State *S, Cystck_Object module);                   \
    static int _CYSTCK_TRAMP(SYM)(PyObject *module)                          \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        int r_;                                                               \
        _Cystck_OpenFrame(&S_, &F_, #IMPL);                                        \
        _Cystck_in_module_init++;                                             \
        r_ = _Cystck_FinishInt(&S_, IMPL(&S_, _Cystck_HArg(&module)), #IMPL); \
        _Cystck_in_module_init--;                                             \
        return r_;                                                            \
    }
#define _CYSTCK_MOD_CREATE(SYM, IMPL)                                         \
    static int IMPL(Cystck_State *S, Cystck_Object spec, CystckModuleDef *def); \
    static PyObject *_CYSTCK_TRAMP(SYM)(PyObject *spec, PyModuleDef *def)    \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        PyObject *m_;                                                         \
        _Cystck_OpenFrame(&S_, &F_, #IMPL);                                        \
        _Cystck_in_module_init++;                                             \
        m_ = _Cystck_Finish(&S_, IMPL(&S_, _Cystck_HArg(&spec),               \
                                      _Cystck_ModuleDefOf(def)), #IMPL);      \
        _Cystck_in_module_init--;                                             \
        return m_;                                                            \
    }
#define _CYSTCK_MOD_TRAVERSE(SYM, IMPL)                                       \
    static int IMPL(void *state, Cystck_visitproc visit, void *arg);          \
    static int _CYSTCK_TRAMP(SYM)(PyObject *module, visitproc visit, void *arg) \
    {                                                                         \
        _Cystck_VisitCtx ctx_;                                                \
        void *state_ = PyModule_GetState(module);                             \
        if (state_ == NULL)                                                   \
            return 0;                                                         \
        if (visit == _Cystck_ClearVisitMarker)                                \
            return IMPL(state_, _Cystck_ReleaseField, NULL);                  \
        ctx_.visit = visit;                                                   \
        ctx_.arg = arg;                                                       \
        return IMPL(state_, _Cystck_VisitAdapter, &ctx_);                     \
    }
#define _CYSTCK_DEF_MOD_SLOT_OF(SYM, ID, FUNC)                                \
    static CystckDef SYM = { CystckDef_Slot, _CYSTCK_NO_METH,                 \
        { ID, (void *)FUNC }, _CYSTCK_NO_MEMBER, _CYSTCK_NO_GETSET, NULL, NULL, NULL, NULL };
#define CYSTCK_DEF_MOD_EXEC(SYM, IMPL)                                        \
    _CYSTCK_MOD_EXEC(SYM, IMPL)                                               \
    _CYSTCK_DEF_MOD_SLOT_OF(SYM, Py_mod_exec, _CYSTCK_TRAMP(SYM))
#define CYSTCK_DEF_MOD_CREATE(SYM, IMPL)                                      \
    _CYSTCK_MOD_CREATE(SYM, IMPL)                                             \
    _CYSTCK_DEF_MOD_SLOT_OF(SYM, Py_mod_create, _CYSTCK_TRAMP(SYM))
#define CYSTCK_DEF_MOD_TRAVERSE(SYM, IMPL)                                    \
    _CYSTCK_MOD_TRAVERSE(SYM, IMPL)                                           \
    _CYSTCK_DEF_MOD_SLOT_OF(SYM, _CYSTCK_MOD_TRAVERSE_SLOT, _CYSTCK_TRAMP(SYM))
#define CYSTCK_DEF_MOD_SLOT(SYM, SLOT, VALUE)                                 \
    _CYSTCK_DEF_MOD_SLOT_OF(SYM, SLOT, VALUE)

/* CYSTCK_MODINIT(name) starts the module's init function; its body has a
 * Cystck_State *S and returns Cystck_Return(S, module) or -1:
 *
 *     CYSTCK_MODINIT(spam)
 *     {
 *         Cystck_Object m = CystckModule_Create(S, &spam_def);
 *         return Cystck_Return(S, m);
 *     }
 */
/* Non-zero while a module initializes: references made then are module
 * globals, alive as long as the extension, and not reported as leaks. */
extern CYSTCK_INTERNAL int _Cystck_in_module_init;
/* The NAME of the CYSTCK_MODINIT that ran last: the module of types made
 * before their module (see CystckType_FromSpec). */
extern CYSTCK_INTERNAL const char *_Cystck_init_name;

/* (through _CYSTCK_MODINIT, so that a macro standing for the name, such
 * as one the command line defines, -DMOD=spam, is expanded first:
 * CYSTCK_MODINIT(MOD) defines PyInit_spam) */
#define CYSTCK_MODINIT(NAME) _CYSTCK_MODINIT(NAME)
#define _CYSTCK_MODINIT(NAME)                                                 \
    static int NAME##__cystck_init(Cystck_State *S);                          \
    PyMODINIT_FUNC PyInit_##NAME(void);                                       \
    PyMODINIT_FUNC PyInit_##NAME(void)                                        \
    {                                                                         \
        _CYSTCK_FRAME_LOCALS;                                                 \
        PyObject *m_;                                                         \
        _Cystck_RuntimeInit();                                                \
        _Cystck_OpenFrame(&S_, &F_, "PyInit_" #NAME);                              \
        _Cystck_in_module_init++;                                             \
        _Cystck_init_name = #NAME;                                            \
        m_ = _Cystck_Finish(&S_, NAME##__cystck_init(&S_), "PyInit_" #NAME);  \
        _Cystck_in_module_init--;                                             \
        return m_;                                                            \
    }                                                                         \
    static int NAME##__cystck_init(Cystck_State *S)

#ifdef __cplusplus
}
#endif

#endif /* CYSTCK_DEFS_H */
