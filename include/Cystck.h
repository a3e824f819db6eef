/*
 * Cystck.h -- the one header a Cystck extension includes instead of Python.h.
 *
 * Model (see docs/runtime.md for the long version):
 *   - C code never holds a PyObject*.  It holds handles (Cystck_Object) that
 *     point at slots of a per-call handle array owned by the runtime.
 *   - Every call from Python into C gets a fresh Cystck_State: its handle
 *     array and its return stack live in the trampoline's C stack frame, so
 *     frames nest (C -> Python -> C) and threads never share one.
 *   - Arguments are bound as borrowed handles: no reference-count traffic.
 *     Everything the function creates or fetches gets an owned slot, released
 *     when the call returns.  Nothing in extension code touches refcounts.
 *   - Results travel back on the return stack: push them and return how many
 *     you pushed (0 -> None, 1 -> the value, n > 1 -> a tuple, -1 -> error).
 *
 * Each API function documents its effect in one line:
 *   [h+N]  creates N owned handles      [s+N]/[s-N]  pushes/pops the return stack
 *   [c h]  consumes handle h (like a stock function that steals a reference)
 *   [e]    may raise: returns the error value (null handle, -1) with an
 *          exception set.  A null handle argument always gives [e], never a crash.
 */
#ifndef CYSTCK_H
#define CYSTCK_H

#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#include <Python.h>
#include <structmember.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CYSTCK_VERSION_MAJOR 0
#define CYSTCK_VERSION_MINOR 1

/* ------------------------------------------------------------------ */
/* Compiler glue                                                       */
/* ------------------------------------------------------------------ */

/* CYSTCK_COLD marks the runtime's error paths (invalid handle arguments), so
 * that GCC moves them out of the hot code of every inline wrapper.
 * CYSTCK_ALWAYS_INLINE is for an extension's own small hot helpers: the
 * inlined handle checks make callers bigger, and GCC may then stop inlining
 * helpers that it inlines in the stock build.  _CYSTCK_ASSUME(x) tells the
 * compiler x holds (tests of it fold away).  _CYSTCK_CALLER() is the address
 * a runtime function returns to, in the extension code that called it, for
 * messages that name the offending C line (NULL where unknown). */

#if defined(__GNUC__) || defined(__clang__)
#  define Cystck_likely(x)   __builtin_expect(!!(x), 1)
#  define Cystck_unlikely(x) __builtin_expect(!!(x), 0)
#  define CYSTCK_INTERNAL    __attribute__((visibility("hidden")))
#  define CYSTCK_UNUSED      __attribute__((unused))
#  define CYSTCK_NOINLINE    __attribute__((noinline))
#  define CYSTCK_COLD        __attribute__((cold))
#  define CYSTCK_ALWAYS_INLINE inline __attribute__((always_inline))
#  define _CYSTCK_ASSUME(x)  do { if (!(x)) __builtin_unreachable(); } while (0)
#  define _CYSTCK_CALLER()   __builtin_return_address(0)
#else
#  define Cystck_likely(x)   (x)
#  define Cystck_unlikely(x) (x)
#  define CYSTCK_INTERNAL
#  define CYSTCK_UNUSED
#  define CYSTCK_NOINLINE
#  define CYSTCK_COLD
#  define CYSTCK_ALWAYS_INLINE inline
#  define _CYSTCK_ASSUME(x)  ((void)0)
#  define _CYSTCK_CALLER()   NULL
#endif
/* Before a loop over a count that is usually a small constant where it is
 * inlined: straight-line code for it. */
#if defined(__clang__)
#  define _CYSTCK_UNROLL4    _Pragma("unroll 4")
#elif defined(__GNUC__) && __GNUC__ >= 8
#  define _CYSTCK_UNROLL4    _Pragma("GCC unroll 4")
#else
#  define _CYSTCK_UNROLL4
#endif

/* Inline handle slots and return-stack entries in every call's frame; past
 * these the runtime moves to heap chunks (slower, still correct). */
#define CYSTCK_INLINE_HANDLES 16
#define CYSTCK_INLINE_STACK   8
#define CYSTCK_INLINE_ARGS    8
/* Default cap on live handles per call (CYSTCK_HANDLE_LIMIT overrides it). */
#define CYSTCK_DEFAULT_HANDLE_LIMIT (1L << 20)

typedef Py_ssize_t Cystck_ssize_t;
typedef Py_hash_t Cystck_hash_t;

/* ------------------------------------------------------------------ */
/* Handles and the per-call state                                      */
/* ------------------------------------------------------------------ */

/* A handle: the address of a slot that holds the object.  A struct, so it
 * can never be confused with an int or a PyObject*.  _p == NULL is the null
 * handle, the error value of every API function that returns a handle. */
typedef struct { PyObject **_p; } Cystck_Object;

struct _Cystck_Chunk;

/* A frame is two locals of its trampoline: a header, the Cystck_State the
 * extension's function gets (top, base, end, sp, sp_limit, frame), and the
 * frame's data (struct _Cystck_Frame: the inline arrays and the fields of a
 * frame gone slow).  The header's address never leaves the inline code:
 * every out-of-line function that takes S works on a copy of the header
 * (_Cystck_HeadIn/_Cystck_HeadOut in its inline wrapper), so once the
 * extension's function is inlined into its trampoline the compiler keeps
 * the five fields in registers across CPython calls instead of storing,
 * reloading and rechecking them.  The data's address is taken (the header
 * points into its arrays), so it lives in memory.
 *
 * A frame opens with only the header set (every call pays for what it
 * initializes); the data's other fields are set when it first leaves the
 * inline arrays or opens in debug mode (it "goes slow").  Read the stack
 * base through _Cystck_StackBase.  While a frame is inline, base is the
 * inline slots and sp_limit the end of the inline stack: inline paths
 * read those fields, not the arrays' addresses.
 *
 * sp_limit is the end of the return stack with the frame's state in its low
 * bits: the end itself while inline, and end - 1 entry + the state bits
 * (_CYSTCK_SLOW, _CYSTCK_SLOW_DEBUG) once slow.  `sp >= sp_limit` says
 * "full" either way, and the closing fast path's one comparison of
 * sp_limit - sp with an entry count also says "inline": with state bits
 * set the difference is no whole number of entries. */
struct _Cystck_Frame {
    PyObject **sp_base;
    struct _Cystck_Chunk *chunk;   /* current heap chunk, NULL while inline */
    Cystck_Object *heap_args;      /* argument handles past CYSTCK_INLINE_ARGS */
    struct _Cystck_DebugFrame *debug;
    PyObject *slots[CYSTCK_INLINE_HANDLES];
    PyObject *stack[CYSTCK_INLINE_STACK];
};

typedef struct Cystck_State {
    PyObject **top;          /* next free handle slot */
    PyObject **base;         /* first slot of the current chunk */
    PyObject **end;          /* one past the current chunk */
    PyObject **sp;           /* return stack: next free entry */
    uintptr_t sp_limit;      /* the stack's end and the frame's state */
    struct _Cystck_Frame *frame;   /* the frame's data */
    /* The data of a frame opened by Cystck_OpenFrame in a Cystck_State the
     * extension declares; trampolines keep theirs apart (see above). */
    struct _Cystck_Frame own_frame_;
} Cystck_State;

/* The copy an out-of-line function works on: the header alone, laid out
 * as Cystck_State's first fields and passed as a Cystck_State * (the
 * runtime never reads own_frame_ through it).  Small, so that inline
 * functions that have a slow path stay small enough to inline: a local
 * Cystck_State, own_frame_ included, exceeds GCC's stack-frame growth limit
 * for inlining (--param large-stack-frame-growth).  may_alias: the copy is
 * read and written through Cystck_State lvalues. */
#if defined(__GNUC__) || defined(__clang__)
#define _CYSTCK_MAY_ALIAS __attribute__((may_alias))
#else
#define _CYSTCK_MAY_ALIAS
#endif
typedef struct _CYSTCK_MAY_ALIAS _Cystck_HeadCopy {
    PyObject **top;
    PyObject **base;
    PyObject **end;
    PyObject **sp;
    uintptr_t sp_limit;
    struct _Cystck_Frame *frame;
} _Cystck_HeadCopy;

/* State bits of sp_limit: gone slow (heap chunks, stack or arguments), and
 * checked by debug mode (set with _CYSTCK_SLOW). */
#define _CYSTCK_SLOW 1u
#define _CYSTCK_SLOW_DEBUG 2u
/* An exception was raised through the API in this frame (_Cystck_Raised):
 * with this bit alone the frame is still inline, its sp_limit the inline
 * stack's end - 1 entry + the bit, so the close's fast tests fail and a
 * method's close checks its result (_Cystck_FinishSlow_Ool). */
#define _CYSTCK_RAISED 4u
#define _CYSTCK_STATE_BITS (sizeof(PyObject *) - 1)   /* free in an aligned pointer */
#define _CYSTCK_IS_SLOW(S) ((S)->sp_limit & _CYSTCK_SLOW)

/* Copy the header in and out of the copy.  Each value goes through
 * _CYSTCK_GPR, an empty asm that keeps it in a general register: without
 * it GCC's SLP vectorizer packs pairs of fields into vector registers for
 * the copy's stores, and then keeps the header there, where every CPython
 * call clobbers it (spilled and reloaded around each). */
#if defined(__GNUC__) || defined(__clang__)
#define _CYSTCK_GPR(x) __asm__("" : "+r"(x))
#define _CYSTCK_INITIALIZED(x) __asm__("" : "=m"(x))
#else
#define _CYSTCK_GPR(x) ((void)0)
#define _CYSTCK_INITIALIZED(x) ((void)0)
#endif
/* dst = the frame's address, for a copy.  A frame is a local of its
 * trampoline, so the address is an offset from the stack pointer; taken by
 * an x86 `lea` of the frame as a memory operand, it is computed where the
 * copy is made.  Passed as a value, GCC computes it once at the open and
 * keeps it in a callee-saved register until the last slow path that copies
 * the header (after the function's CPython calls), and every such
 * register is saved and restored on every call, slow path taken or not
 * (x86 GCC has no separate shrink-wrapping): Point.__add__ -2, long_inc,
 * tuple3 and call_callback -2 without debug mode (docs/gaps.md, R1). */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define _CYSTCK_FRAME_ADDRESS(dst, f) __asm__("lea {%1, %0|%0, %1}" : "=r"(dst) : "m"(*(f)))
#else
#define _CYSTCK_FRAME_ADDRESS(dst, f) do { (dst) = (f); _CYSTCK_GPR(dst); } while (0)
#endif
/* The copy's address, passed to the slow path: an x86 `lea` of the copy as
 * a memory operand too, for the same reason (the copies of one function
 * share a stack slot, and GCC kept its address in a callee-saved register
 * across every call between the first copy and the last).  A memory operand
 * makes the copy escape, so GCC still assumes the slow path changes it. */
static CYSTCK_ALWAYS_INLINE Cystck_State *_Cystck_CopyState(_Cystck_HeadCopy *c)
{
    _Cystck_HeadCopy *p;
    _CYSTCK_FRAME_ADDRESS(p, c);
    return (Cystck_State *)(void *)p;
}
#define _CYSTCK_COPY_STATE(c) _Cystck_CopyState(c)
/* The copy's sp_limit: an inline frame's (no state bit) is always its own
 * stack's end, so it is taken from the frame's address, which the copy
 * computes where it is made, rather than from the header.  On the fast path
 * the header's value is a constant address in the trampoline's stack frame
 * that GCC does not rematerialize: it kept it in a callee-saved register
 * from the open to every slow path after a CPython call (call_callback,
 * Point.__add__, tuple3, add_doubles: one register fewer; docs/gaps.md, R1).
 * Where the state is unknown this costs a bit test and a lea.  A frame that
 * noted a raise (_CYSTCK_RAISED) keeps its own: the bit goes to the copy. */
static CYSTCK_ALWAYS_INLINE void _Cystck_HeadInSp(_Cystck_HeadCopy *copy, const Cystck_State *S,
                                                 int sp_from_frame)
{
    PyObject **top = S->top, **base = S->base, **end = S->end, **sp = S->sp;
    uintptr_t sp_limit = S->sp_limit;
    struct _Cystck_Frame *frame;
    _CYSTCK_FRAME_ADDRESS(frame, S->frame);
    if (sp_from_frame)
        sp = (PyObject **)((uintptr_t)frame + ((uintptr_t)S->sp - (uintptr_t)S->frame));
    if (!(sp_limit & (_CYSTCK_SLOW | _CYSTCK_RAISED)))
        sp_limit = (uintptr_t)(frame->stack + CYSTCK_INLINE_STACK);
    _CYSTCK_GPR(top);
    _CYSTCK_GPR(base);
    _CYSTCK_GPR(end);
    _CYSTCK_GPR(sp);
    _CYSTCK_GPR(sp_limit);
    copy->top = top;
    copy->base = base;
    copy->end = end;
    copy->sp = sp;
    copy->sp_limit = sp_limit;
    copy->frame = frame;
}
static CYSTCK_ALWAYS_INLINE void _Cystck_HeadInAlways(_Cystck_HeadCopy *copy, const Cystck_State *S)
{
    _Cystck_HeadInSp(copy, S, 0);
}
/* Inline as GCC sees fit: made always-inline, the copies grow every
 * function that has slow paths in GCC's estimates, and it stops inlining
 * some (Point.__add__'s Point_make, +70 instructions per call).  Cold
 * callers use _Cystck_HeadInAlways, which GCC would otherwise call. */
static inline void _Cystck_HeadIn(_Cystck_HeadCopy *copy, const Cystck_State *S)
{
    _Cystck_HeadInAlways(copy, S);
}
static inline void _Cystck_HeadOut(Cystck_State *S, const _Cystck_HeadCopy *copy)
{
    S->top = copy->top;
    S->base = copy->base;
    S->end = copy->end;
    S->sp = copy->sp;
    S->sp_limit = copy->sp_limit;   /* frame never changes */
}
/* The body of an inline wrapper: CALL, which passes the copy as
 * _CYSTCK_COPY_STATE(&c_), on a copy of S's header. */
#define _CYSTCK_ON_COPY(RTYPE, CALL)                                          \
    _Cystck_HeadCopy c_;                                                      \
    RTYPE r_;                                                                 \
    _Cystck_HeadIn(&c_, S);                                                   \
    r_ = CALL;                                                                \
    _Cystck_HeadOut(S, &c_);                                                  \
    return r_;
#define _CYSTCK_ON_COPY_VOID(CALL)                                            \
    _Cystck_HeadCopy c_;                                                      \
    _Cystck_HeadIn(&c_, S);                                                   \
    CALL;                                                                     \
    _Cystck_HeadOut(S, &c_);

/* A saved position of the handle array: see Cystck_OpenScope.  `end`
 * tells the chunk it is in (each chunk has its own end). */
typedef struct {
    PyObject **top;
    PyObject **end;
} Cystck_Scope;

/* A Python value stored in a native struct (an instance field).  Read and
 * write it with CystckField_Load/Store; visit it in the type's traverse. */
typedef struct { PyObject *_o; } Cystck_Field;

/* A reference that outlives the call (module globals, caches): the paper's
 * Cystck_ref/Cystck_unref. */
typedef struct _Cystck_RefCell *Cystck_Ref;

/* Runtime internals the inline functions below call into. */
extern CYSTCK_INTERNAL int _Cystck_debug;
/* 0, or UINTPTR_MAX in debug mode: what _Cystck_Own compares its object
 * with (_CYSTCK_OWN_TEST). */
extern CYSTCK_INTERNAL uintptr_t _Cystck_own_limit;
extern CYSTCK_INTERNAL PyObject *_Cystck_Consts[];
/* The out-of-line slow paths.  Each works on a copy of the header (see
 * Cystck_State), through the inline wrapper of the same name without _Ool
 * below; never inlined, in the runtime's own files either (the copy is
 * smaller than the Cystck_State it is read as).  The wrappers are always
 * inlined, so that the slow paths that name the C line which called them
 * (_CYSTCK_CALLER) still see the extension's code as their caller. */
CYSTCK_INTERNAL CYSTCK_NOINLINE CYSTCK_COLD PyObject **_Cystck_OwnSlow_Ool(Cystck_State *S, PyObject *o);
CYSTCK_INTERNAL CYSTCK_NOINLINE CYSTCK_COLD Cystck_Object _Cystck_BadArg_Ool(Cystck_State *S, const char *func, Cystck_Object h);
CYSTCK_INTERNAL CYSTCK_NOINLINE CYSTCK_COLD Cystck_Object _Cystck_NullArg_Ool(Cystck_State *S, const char *func);
CYSTCK_INTERNAL CYSTCK_NOINLINE int _Cystck_GrowStack_Ool(Cystck_State *S, Cystck_ssize_t n);
CYSTCK_INTERNAL CYSTCK_NOINLINE int _Cystck_ReturnSlow_Ool(Cystck_State *S, PyObject **p, PyObject *o);
CYSTCK_INTERNAL CYSTCK_NOINLINE void _Cystck_DropSlow_Ool(Cystck_State *S, Cystck_Object h);
CYSTCK_INTERNAL CYSTCK_NOINLINE void _Cystck_PopChunk_Ool(Cystck_State *S);
CYSTCK_INTERNAL CYSTCK_NOINLINE PyObject *_Cystck_ConsumeSlow_Ool(Cystck_State *S, Cystck_Object h);
CYSTCK_INTERNAL CYSTCK_NOINLINE void _Cystck_CloseScopeSlow_Ool(Cystck_State *S, Cystck_Scope sc);
CYSTCK_INTERNAL CYSTCK_NOINLINE Cystck_Scope _Cystck_DebugOpenScope_Ool(Cystck_State *S);
CYSTCK_INTERNAL CYSTCK_NOINLINE Cystck_Scope _Cystck_DebugMark_Ool(Cystck_State *S);
CYSTCK_INTERNAL CYSTCK_NOINLINE void _Cystck_ReleaseSinceSlow_Ool(Cystck_State *S, Cystck_Scope *mark);
CYSTCK_INTERNAL CYSTCK_NOINLINE CYSTCK_COLD void _Cystck_BadRef_Ool(Cystck_State *S, const char *func, Cystck_Ref r);
CYSTCK_INTERNAL CYSTCK_NOINLINE PyObject *_Cystck_FinishSlow_Ool(Cystck_State *S, int n, const char *func,
                                                                  PyCFunction meth);
CYSTCK_INTERNAL CYSTCK_NOINLINE CYSTCK_COLD void _Cystck_ReturnNull_Ool(Cystck_State *S, Cystck_Object h);
CYSTCK_INTERNAL CYSTCK_NOINLINE int _Cystck_FinishIntSlow_Ool(Cystck_State *S, int r, const char *func);
CYSTCK_INTERNAL CYSTCK_NOINLINE CYSTCK_COLD Cystck_Object *_Cystck_HeapArgs_Ool(Cystck_State *S, PyObject *const *args,
                                                    Cystck_ssize_t n);

/* Make room for one more handle (a heap chunk; in debug mode the first
 * handle makes the frame checked) and store o there: the slot, which is
 * S->top, or NULL with an exception set and o released.  _Cystck_OwnSlow_Ool is cold: GCC
 * then keeps fewer of the values its continuation needs in callee-saved
 * registers, which every call saves and restores (call_callback -4,
 * Point.__add__ +2 instructions in debug-capable builds; docs/gaps.md, R1). */
static CYSTCK_ALWAYS_INLINE PyObject **_Cystck_OwnSlow(Cystck_State *S, PyObject *o)
{
    _Cystck_HeadCopy c_;
    PyObject **slot;
    _Cystck_HeadIn(&c_, S);
    slot = _Cystck_OwnSlow_Ool(_CYSTCK_COPY_STATE(&c_), o);
    if (Cystck_unlikely(slot == NULL)) {
        _Cystck_HeadOut(S, &c_);
        return NULL;
    }
    /* A slow path that the compiler can see through where it joins the
     * fast one (in debug mode every frame's first handle takes it): the
     * stack is untouched, so sp is not copied back, and the slot is the
     * first of a fresh area (a heap chunk or the debug record's slots:
     * grow_handles), so top and base are the slot, as they are on the
     * fast path for a frame's first handle.  And the frame is slow now
     * (grow_handles starts with _Cystck_GoSlow): its state bit set again
     * here, where GCC sees it, lets GCC drop the inline frame's tests of
     * Cystck_Return after the join (tuple3 -3 instructions in debug-capable
     * builds; docs/gaps.md, R1). */
    S->top = slot;
    S->base = slot;
    S->end = c_.end;
    S->sp_limit = c_.sp_limit | _CYSTCK_SLOW;
    return slot;
}
/* Error paths for invalid handle arguments: keep the exception of the call
 * that produced a null handle, else raise SystemError (in debug mode saying
 * what is wrong with h and which C line passed it). */
static CYSTCK_ALWAYS_INLINE Cystck_Object _Cystck_BadArg(Cystck_State *S, const char *func, Cystck_Object h)
{
    _CYSTCK_ON_COPY(Cystck_Object, _Cystck_BadArg_Ool(_CYSTCK_COPY_STATE(&c_), func, h))
}
static CYSTCK_ALWAYS_INLINE int _Cystck_BadArgInt(Cystck_State *S, const char *func, Cystck_Object h)
{
    _Cystck_BadArg(S, func, h);
    return -1;
}
/* Cystck_Return of a null handle: -1, with the exception that made it null,
 * or none if none is set (stock's `return NULL;`: the trampoline reports it
 * as CPython would), else as _Cystck_BadArg. */
static CYSTCK_ALWAYS_INLINE void _Cystck_ReturnNull(Cystck_State *S, Cystck_Object h)
{
    _CYSTCK_ON_COPY_VOID(_Cystck_ReturnNull_Ool(_CYSTCK_COPY_STATE(&c_), h))
}
/* An exception is raised through the API (CystckErr_SetString and the other
 * raising functions, the runtime's own errors): the frame notes it in its
 * state bits (_CYSTCK_RAISED), so that a method's close, which then takes
 * its slow path, checks whether the function returned a value with that
 * exception still set (_Cystck_FinishSlow_Ool).  Inline, a few operations
 * on sp_limit and no call, and only on error paths: the success path pays
 * nothing (docs/runtime.md, "Results and exceptions").  An inline frame's
 * sp_limit (no state bit) becomes its end - 1 entry + the bit, as a slow
 * frame's is; the runtime's own (_Cystck_NoteRaised) is the same. */
static inline void _Cystck_Raised(Cystck_State *S)
{
    uintptr_t l = S->sp_limit;
    S->sp_limit = (l & _CYSTCK_STATE_BITS) ? (l | _CYSTCK_RAISED)
                                           : (l - sizeof(PyObject *) + _CYSTCK_RAISED);
}
static CYSTCK_ALWAYS_INLINE Cystck_Object _Cystck_NullArg(Cystck_State *S, const char *func)
{
    _CYSTCK_ON_COPY(Cystck_Object, _Cystck_NullArg_Ool(_CYSTCK_COPY_STATE(&c_), func))
}
static CYSTCK_ALWAYS_INLINE int _Cystck_NullArgInt(Cystck_State *S, const char *func)
{
    _Cystck_NullArg(S, func);
    return -1;
}
/* Room for n more return-stack entries: 0, or -1 [e]. */
static CYSTCK_ALWAYS_INLINE int _Cystck_GrowStack(Cystck_State *S, Cystck_ssize_t n)
{
    _CYSTCK_ON_COPY(int, _Cystck_GrowStack_Ool(_CYSTCK_COPY_STATE(&c_), n))
}
/* Cystck_Return in a frame that is not inline: out of line, so that
 * nothing is kept in a callee-saved register across its slow path.  Its
 * copy takes sp from the frame's address (the inline stack's address, a
 * constant where the header is known, is then not kept across the slow path
 * before it: debug mode's first handle).  After it the frame is slow (it
 * was, or went slow growing its stack) and sp is aligned: said here, GCC's
 * bit tracking proves the close's one-result test false on this path, so it
 * does not join the fast path's close (docs/gaps.md, R1). */
static CYSTCK_ALWAYS_INLINE int _Cystck_ReturnSlow(Cystck_State *S, PyObject **p, PyObject *o)
{
    _Cystck_HeadCopy c_;
    int r_;
    _Cystck_HeadInSp(&c_, S, 1);
    r_ = _Cystck_ReturnSlow_Ool(_CYSTCK_COPY_STATE(&c_), p, o);
    _Cystck_HeadOut(S, &c_);
    S->sp_limit |= _CYSTCK_SLOW;
#if defined(__GNUC__) || defined(__clang__)
    S->sp = (PyObject **)__builtin_assume_aligned(S->sp, sizeof(PyObject *));
#endif
    return r_;
}
static CYSTCK_ALWAYS_INLINE void _Cystck_DropSlow(Cystck_State *S, Cystck_Object h)
{
    _CYSTCK_ON_COPY_VOID(_Cystck_DropSlow_Ool(_CYSTCK_COPY_STATE(&c_), h))
}
static CYSTCK_ALWAYS_INLINE void _Cystck_PopChunk(Cystck_State *S)
{
    _CYSTCK_ON_COPY_VOID(_Cystck_PopChunk_Ool(_CYSTCK_COPY_STATE(&c_)))
}
static CYSTCK_ALWAYS_INLINE PyObject *_Cystck_ConsumeSlow(Cystck_State *S, Cystck_Object h)
{
    _CYSTCK_ON_COPY(PyObject *, _Cystck_ConsumeSlow_Ool(_CYSTCK_COPY_STATE(&c_), h))
}
static CYSTCK_ALWAYS_INLINE void _Cystck_CloseScopeSlow(Cystck_State *S, Cystck_Scope sc)
{
    _CYSTCK_ON_COPY_VOID(_Cystck_CloseScopeSlow_Ool(_CYSTCK_COPY_STATE(&c_), sc))
}
static CYSTCK_ALWAYS_INLINE Cystck_Scope _Cystck_DebugOpenScope(Cystck_State *S)
{
    _CYSTCK_ON_COPY(Cystck_Scope, _Cystck_DebugOpenScope_Ool(_CYSTCK_COPY_STATE(&c_)))
}
static CYSTCK_ALWAYS_INLINE Cystck_Scope _Cystck_DebugMark(Cystck_State *S)
{
    _CYSTCK_ON_COPY(Cystck_Scope, _Cystck_DebugMark_Ool(_CYSTCK_COPY_STATE(&c_)))
}
static CYSTCK_ALWAYS_INLINE void _Cystck_ReleaseSinceSlow(Cystck_State *S, Cystck_Scope *mark)
{
    _CYSTCK_ON_COPY_VOID(_Cystck_ReleaseSinceSlow_Ool(_CYSTCK_COPY_STATE(&c_), mark))
}
static CYSTCK_ALWAYS_INLINE void _Cystck_BadRef(Cystck_State *S, const char *func, Cystck_Ref r)
{
    _CYSTCK_ON_COPY_VOID(_Cystck_BadRef_Ool(_CYSTCK_COPY_STATE(&c_), func, r))
}
/* Closing: the frame ends here, so its header is not copied back. */
static CYSTCK_ALWAYS_INLINE PyObject *_Cystck_FinishSlow(Cystck_State *S, int n, const char *func,
                                                         PyCFunction meth)
{
    _Cystck_HeadCopy c_;
    _Cystck_HeadIn(&c_, S);
    return _Cystck_FinishSlow_Ool(_CYSTCK_COPY_STATE(&c_), n, func, meth);
}
static CYSTCK_ALWAYS_INLINE int _Cystck_FinishIntSlow(Cystck_State *S, int r, const char *func)
{
    _Cystck_HeadCopy c_;
    _Cystck_HeadIn(&c_, S);
    return _Cystck_FinishIntSlow_Ool(_CYSTCK_COPY_STATE(&c_), r, func);
}
static CYSTCK_ALWAYS_INLINE Cystck_Object *_Cystck_HeapArgs(Cystck_State *S, PyObject *const *args,
                                                            Cystck_ssize_t n)
{
    /* Cold: GCC then keeps no value for this path in a callee-saved
     * register (the count and the frame's address for the copies after
     * it), and the frame gone slow, which the state bit set here tells GCC,
     * needs no frame address in later copies (_Cystck_HeadInAlways). */
    _Cystck_HeadCopy c_;
    Cystck_Object *r;
    _Cystck_HeadInAlways(&c_, S);
    r = _Cystck_HeapArgs_Ool(_CYSTCK_COPY_STATE(&c_), args, n);
    _Cystck_HeadOut(S, &c_);
    if (r != NULL)
        S->sp_limit |= _CYSTCK_SLOW;   /* already set by _Cystck_GoSlow */
    return r;
}
CYSTCK_INTERNAL void _Cystck_RuntimeInit(void);

/* The frame's states (drawn in docs/runtime.md, "Frame states"): inline,
 * slow (heap chunks, stack or arguments), opened in debug mode, checked by
 * debug mode.  Each fact about them is tested by one function below. */

/* No handle slot yet: opened in debug mode, before its first handle.
 * Only a debug twin opens a frame with no inline slot (_CYSTCK_TWINS:
 * end == base == slots), and every way out of that state gives it slots,
 * so end > base ever after: its first handle or scope gate moves it to its
 * debug record's slots (_Cystck_DebugFirstHandle), and with no memory for
 * the record _Cystck_GoSlow gives back the inline ones.  Heap chunks are
 * only chained after that.  So this one test also says "end == slots"
 * while the frame is inline (base is slots then) and "base == slots" once
 * it has a debug record (the record's slots are the first it gets). */
static inline int _Cystck_NoSlotsYet(const Cystck_State *S) { return S->end == S->base; }
/* Still on the frame's inline slots (a debug record's or a chunk's are
 * never the inline ones). */
static inline int _Cystck_OnInlineSlots(const Cystck_State *S) { return S->base == S->frame->slots; }

/* Is this frame checked by debug mode?  Building with CYSTCK_NO_DEBUG_MODE
 * removes debug mode (and the tests for it) from the inline paths; it exists
 * to measure what debug mode costs a release build, which should be nothing. */
#ifdef CYSTCK_NO_DEBUG_MODE
#define _CYSTCK_CHECKED(S) 0
#define _CYSTCK_DEBUG_PENDING(S) 0
#define _CYSTCK_OWN_TEST(o) ((o) == NULL)
#define _CYSTCK_DEBUG_FIRST(S) 0
#define _CYSTCK_DEBUG_UNCHECKED(S) 0
#else
#define _CYSTCK_CHECKED(S) ((S)->sp_limit & _CYSTCK_SLOW_DEBUG)
/* Opened in debug mode, not checked yet: no slow path has run (and so no
 * handle made: in debug mode every handle goes through _Cystck_OwnSlow). */
#define _CYSTCK_DEBUG_PENDING(S) (!_CYSTCK_IS_SLOW(S) && (S)->top == (S)->base && _Cystck_own_limit != 0)
#define _CYSTCK_OWN_TEST(o) ((uintptr_t)(o) <= _Cystck_own_limit)
/* In debug mode (_CYSTCK_OWN_TEST true for every object): should this
 * handle go to _Cystck_OwnSlow although its chunk has room?  Yes while the
 * frame is not slow (its first handle makes it checked) or is checked but
 * still on its inline slots (it went slow on the stack or the arguments
 * first): grow_handles then moves it to its debug record's slots. */
#define _CYSTCK_DEBUG_FIRST(S) \
    (!_CYSTCK_IS_SLOW(S) || (_CYSTCK_CHECKED(S) && _Cystck_OnInlineSlots(S)))
/* For _Cystck_GoSlow: debug mode, and no handle made yet (so the frame can
 * become checked: its handles will all be in its record). */
#define _CYSTCK_DEBUG_UNCHECKED(S) \
    (_Cystck_own_limit != 0 && (S)->top == (S)->base && _Cystck_OnInlineSlots(S))
#endif
#define _CYSTCK_INLINE_ROOM() CYSTCK_INLINE_HANDLES

/* The bottom of the return stack. */
static inline PyObject **_Cystck_StackBase(Cystck_State *S) { return _CYSTCK_IS_SLOW(S) ? S->frame->sp_base : S->frame->stack; }
/* An inline frame?  (its stack's end the inline one, no state bit: neither
 * slow nor checked).  An equality, for the reason given at
 * _Cystck_StackRoomIs (defs.h). */
static inline int _Cystck_InlineFrame(Cystck_State *S)
{
    return S->sp_limit == (uintptr_t)(S->frame->stack + CYSTCK_INLINE_STACK);
}
/* Is the return stack full?  (see sp_limit) */
static inline int _Cystck_StackFull(Cystck_State *S) { return (uintptr_t)S->sp >= S->sp_limit; }
/* Free return-stack entries: rounding up drops the state bits. */
static inline Cystck_ssize_t _Cystck_StackRoom(Cystck_State *S)
{
    return (Cystck_ssize_t)((S->sp_limit + _CYSTCK_STATE_BITS - (uintptr_t)S->sp) / sizeof(PyObject *));
}

static inline Cystck_Object _Cystck_H(PyObject **p) { Cystck_Object h; h._p = p; return h; }
/* The object behind a handle, or NULL for a null (or released) handle. */
static inline PyObject *_Cystck_Get(Cystck_Object h) { return h._p ? *h._p : NULL; }

/* Is p in the slots [base, top)?  Compared as integers: p may point
 * anywhere (an argument, a constant, a reference cell). */
static inline int _Cystck_InSlots(PyObject **p, PyObject **base, PyObject **top)
{
    return (uintptr_t)p >= (uintptr_t)base && (uintptr_t)p < (uintptr_t)top;
}
/* Is p a live slot of the current chunk (or of the inline slots)? */
static inline int _Cystck_InCurrentChunk(Cystck_State *S, PyObject **p)
{
    return _Cystck_InSlots(p, S->base, S->top);
}

/* Pop released (NULL) slots off the top, so that slots released out of
 * order are reclaimed, and step back to the previous chunk when the current
 * one empties (which _Cystck_PopChunk leaves to debug mode's quarantine in a
 * checked frame). */
static inline void _Cystck_TrimTop(Cystck_State *S)
{
    while (S->top > S->base && S->top[-1] == NULL)
        --S->top;
    if (Cystck_unlikely(S->top == S->base && _CYSTCK_IS_SLOW(S) && S->frame->chunk != NULL))
        _Cystck_PopChunk(S);
}

/* PyFloat_AsDouble with an exact float read inline (CystckFloat_AsDouble and
 * the typed item accessors): numeric code mostly converts floats. */
static inline double _Cystck_AsDouble(PyObject *o)
{
    return PyFloat_CheckExact(o) ? PyFloat_AS_DOUBLE(o) : PyFloat_AsDouble(o);
}

/* PyIter_Check inline, for CystckIter_Next's type check: an iternext slot
 * (the "not implemented" one raises TypeError by itself). */
static inline int _Cystck_HasIterNext(PyObject *o) { return Py_TYPE(o)->tp_iternext != NULL; }

/* PyObject_IsInstance (CystckObject_IsInstance) without its o.__class__
 * lookup where that cannot change the answer.  When o's type is not a
 * subclass of cls (an exact `type`), CPython still asks o for __class__,
 * since an object may claim another class; an instance of a core builtin
 * type cannot (those types and `object` are immutable), so the subtype
 * test, on MROs known in advance, is the answer.  Serializers ask this of
 * every dict and list they meet (is it a Decimal?), where the lookup is
 * most of the cost. */
static inline int _Cystck_IsCoreBuiltin(PyTypeObject *t)
{
    return t == &PyDict_Type || t == &PyList_Type || t == &PyUnicode_Type || t == &PyLong_Type
        || t == &PyFloat_Type || t == &PyTuple_Type || t == &PyBool_Type || t == &PyBytes_Type
        || t == Py_TYPE(Py_None);
}
static inline int _Cystck_IsInstance(PyObject *o, PyObject *cls)
{
    PyTypeObject *t = Py_TYPE(o);
    if (PyType_CheckExact(cls) && _Cystck_IsCoreBuiltin(t))   /* their MROs: (t, object), bool's (bool, int, object) */
        return (PyObject *)t == cls || cls == (PyObject *)&PyBaseObject_Type
            || (t == &PyBool_Type && cls == (PyObject *)&PyLong_Type);
    return PyObject_IsInstance(o, cls);
}

/* str -> UTF-8 bytes (CystckUnicode_AsUTF8String, and
 * CystckUnicode_AsEncodedString with the default encoding) with an ASCII
 * str's bytes copied inline: CPython's route there (codec dispatch, the
 * encoder's entry) is most of the cost for short strings such as dict
 * keys.  The result is the one CPython gives (PyBytes_FromStringAndSize
 * of the same bytes); no error handler can apply to ASCII (but -X dev
 * checks its name: _Cystck_errors_checked_first). */
static inline PyObject *_Cystck_ASCIIAsBytes(PyObject *o)
{
    return PyBytes_FromStringAndSize((const char *)PyUnicode_DATA(o), PyUnicode_GET_LENGTH(o));
}
/* Other str (not compact ASCII): encoded by the runtime unless it holds
 * surrogates, with runs of ASCII copied 16 code points a step (unicode.c). */
CYSTCK_INTERNAL PyObject *_Cystck_EncodeUTF8(PyObject *o, const char *errors);
/* Does CPython look an error handler's name up before encoding, even text
 * that needs none (debug build, -X dev)?  Then a call naming a handler goes
 * to _Cystck_EncodeUTF8, which leaves it to CPython (set at start-up). */
extern CYSTCK_INTERNAL int _Cystck_errors_checked_first;
static inline PyObject *_Cystck_UnicodeAsUTF8String(PyObject *o)
{
    if (!PyUnicode_Check(o))
        return PyUnicode_AsUTF8String(o);
    return PyUnicode_IS_COMPACT_ASCII(o) ? _Cystck_ASCIIAsBytes(o) : _Cystck_EncodeUTF8(o, NULL);
}
static inline PyObject *_Cystck_UnicodeAsEncodedString(PyObject *o, const char *encoding, const char *errors)
{
    if (encoding != NULL || !PyUnicode_Check(o))
        return PyUnicode_AsEncodedString(o, encoding, errors);
    if (PyUnicode_IS_COMPACT_ASCII(o) && (errors == NULL || !_Cystck_errors_checked_first))
        return _Cystck_ASCIIAsBytes(o);
    return _Cystck_EncodeUTF8(o, errors);
}

/* PyUnicode_DecodeUTF8 (CystckUnicode_DecodeUTF8, _FromStringAndSize)
 * with ASCII text copied into a new str after a vectorized check, where
 * CPython decodes it 8 bytes a step (cystck/src/unicode.c). */
CYSTCK_INTERNAL PyObject *_Cystck_DecodeUTF8(const char *s, Cystck_ssize_t n, const char *errors);
static inline PyObject *_Cystck_FromStringAndSize(const char *s, Cystck_ssize_t n)
{
    return s != NULL && n >= 0 ? _Cystck_DecodeUTF8(s, n, NULL) : PyUnicode_FromStringAndSize(s, n);
}

/* _PyLong_AsByteArray, which gained an argument in 3.13 (raise on
 * overflow: yes, as before). */
static inline int _Cystck_LongAsByteArray(PyObject *o, unsigned char *bytes, size_t n,
                                          int little_endian, int is_signed)
{
#if PY_VERSION_HEX >= 0x030D0000
    return _PyLong_AsByteArray((PyLongObject *)o, bytes, n, little_endian, is_signed, 1);
#else
    return _PyLong_AsByteArray((PyLongObject *)o, bytes, n, little_endian, is_signed);
#endif
}

/* Give a new reference a slot; NULL (an API error) gives the null handle.
 *
 * Debug mode's hook.  Every frame opens with its CYSTCK_INLINE_HANDLES
 * inline slots, in debug mode too, so the compiler knows the header until
 * the first slow path and folds the tests of the first handles.  Debug mode
 * is found in the object's null test instead: the object is compared with
 * _Cystck_own_limit, 0 in release mode (the same as a null test: one
 * compare with a memory operand instead of a register test, no register
 * kept, no instruction more) and UINTPTR_MAX in debug mode, where every
 * handle takes the cold branch and the first one of a frame goes to
 * _Cystck_OwnSlow, which makes the frame checked (_Cystck_GoSlow) and moves
 * it to its debug record's slots (grow_handles).  Before, the frame opened
 * with a run-time room (0 in debug mode), and the test of the first handle
 * against it, with the values it needed kept across the function's calls,
 * cost release builds 9 to 18 instructions per call (docs/gaps.md, R1).
 * Where the compiler knows the object is not null, the compare stays (2
 * instructions the plain null test folded), unless the caller knows that
 * the runtime is in release mode (release set: a null test only;
 * Cystck_New's plain types). */
static inline Cystck_Object _Cystck_OwnTested(Cystck_State *S, PyObject *o, int release)
{
    PyObject **slot;
    if (Cystck_unlikely(release ? o == NULL : _CYSTCK_OWN_TEST(o))) {
        if (o == NULL)
            return _Cystck_H(NULL);
        if (_CYSTCK_DEBUG_FIRST(S))
            goto slow;
    }
    slot = S->top;
    if (Cystck_unlikely(slot == S->end)) {
    slow:
        slot = _Cystck_OwnSlow(S, o);
        if (slot == NULL)
            return _Cystck_H(NULL);
        o = *slot;      /* stored there by the slow path: not kept across it */
        _CYSTCK_ASSUME(o != NULL);
    }
    /* Both paths end in the same stores, so after them the compiler knows
     * the top and what the slot holds without reloading either. */
    *slot = o;
    S->top = slot + 1;
    return _Cystck_H(slot);
}
static inline Cystck_Object _Cystck_Own(Cystck_State *S, PyObject *o)
{
    return _Cystck_OwnTested(S, o, 0);
}

/* Give a borrowed reference a slot (the handle keeps the object alive). */
static inline Cystck_Object _Cystck_OwnBorrowed(Cystck_State *S, PyObject *o)
{
    Py_XINCREF(o);
    return _Cystck_Own(S, o);
}

/* Take the reference out of h for an API that steals it: an owned handle is
 * moved (its slot released), a borrowed one is increfed.  h must be valid. */
static inline PyObject *_Cystck_Consume(Cystck_State *S, Cystck_Object h)
{
    PyObject *o = *h._p;
    if (Cystck_likely(!_CYSTCK_IS_SLOW(S))) {
        if (_Cystck_InCurrentChunk(S, h._p)) {
            if (h._p == S->top - 1)
                --S->top;
            else
                *h._p = NULL;   /* reclaimed when the slots above it go */
        }
        else {
            Py_INCREF(o);
        }
        return o;
    }
    return _Cystck_ConsumeSlow(S, h);
}

/* ------------------------------------------------------------------ */
/* Handle basics                                                       */
/* ------------------------------------------------------------------ */

#define Cystck_NULL (_Cystck_H(NULL))

/* Is h the null handle (or a handle whose object was released)? */
static inline int Cystck_IsNull(Cystck_Object h) { return _Cystck_Get(h) == NULL; }

/* Same object?  (the `is` operator) */
static inline int Cystck_Is(Cystck_State *S, Cystck_Object a, Cystck_Object b)
{
    (void)S;
    return _Cystck_Get(a) == _Cystck_Get(b);
}

/* [h+1] A second handle to the same object, owned by this call. */
static inline Cystck_Object Cystck_Dup(Cystck_State *S, Cystck_Object h)
{
    PyObject *o = _Cystck_Get(h);
    if (Cystck_unlikely(o == NULL))
        return (_Cystck_BadArg(S, "Cystck_Dup", h), Cystck_NULL);
    Py_INCREF(o);
    return _Cystck_Own(S, o);
}

/* [h-1] Release an owned handle before the call ends (no-op on argument,
 * constant and reference handles in release mode; an error in debug mode,
 * which sees it as a confusion about who owns the handle).  Releasing the
 * newest handle frees its slot at once, and slots released out of order are
 * reclaimed when the slots above them go, so a loop that drops what it
 * creates stays flat. */
static inline void Cystck_Drop(Cystck_State *S, Cystck_Object h)
{
    if (h._p == NULL)   /* first: cheapest for Py_XDECREF of members never set */
        return;
    if (Cystck_likely(_Cystck_InCurrentChunk(S, h._p) && !_CYSTCK_CHECKED(S))) {
        PyObject *o = *h._p;
        if (h._p == S->top - 1) {
            --S->top;
            _Cystck_TrimTop(S);
        }
        else {
            *h._p = NULL;
        }
        Py_XDECREF(o);
        return;
    }
    /* An argument, constant or reference handle of an inline frame (not
     * one opened in debug mode): nothing to release. */
    if (Cystck_likely(!_CYSTCK_IS_SLOW(S) && !_CYSTCK_DEBUG_PENDING(S)))
        return;
    _Cystck_DropSlow(S, h);
}

/* Escape hatch for half-ported code: a borrowed PyObject* valid while the
 * handle lives, and a handle for a PyObject* (which it does not steal). */
static inline PyObject *Cystck_AsPyObject(Cystck_State *S, Cystck_Object h)
{
    PyObject *o = _Cystck_Get(h);
    if (Cystck_unlikely(o == NULL))
        _Cystck_BadArg(S, "Cystck_AsPyObject", h);
    return o;
}
/* id(o): the object's identity, equal for every handle to one object (a
 * handle's own value is not: two handles to one object differ). */
static inline Py_uintptr_t CystckObject_Id(Cystck_State *S, Cystck_Object o)
{
    return (Py_uintptr_t)Cystck_AsPyObject(S, o);
}
/* [h+1] */
static inline Cystck_Object Cystck_FromPyObject(Cystck_State *S, PyObject *o)
{
    if (Cystck_unlikely(o == NULL))
        return (_Cystck_NullArg(S, "Cystck_FromPyObject"), Cystck_NULL);
    return _Cystck_OwnBorrowed(S, o);
}

/* [h+1] Give a new (stolen) reference a handle: for wrapping stock API
 * calls that return new references in half-ported code. */
static inline Cystck_Object Cystck_FromNewPyObject(Cystck_State *S, PyObject *o)
{
    return _Cystck_Own(S, o);
}

/* ------------------------------------------------------------------ */
/* Critical sections (free-threaded builds, PEP 703)                   */
/* ------------------------------------------------------------------ */

/* Py_BEGIN_CRITICAL_SECTION(op) ... Py_END_CRITICAL_SECTION() on a handle:
 * one C block, in one scope, that holds the object's lock on a
 * free-threaded build and is a plain block under the GIL, which serializes
 * already.  A null handle locks nothing (and raises, as Cystck_AsPyObject
 * does) where the stock macro would crash. */
#ifdef Py_GIL_DISABLED
#define Cystck_BEGIN_CRITICAL_SECTION(S, h)                                  \
    {                                                                         \
        PyCriticalSection _cystck_cs;                                         \
        PyObject *_cystck_cs_obj = Cystck_AsPyObject((S), (h));              \
        if (_cystck_cs_obj != NULL)                                           \
            PyCriticalSection_Begin(&_cystck_cs, _cystck_cs_obj)
#define Cystck_END_CRITICAL_SECTION(S)                                        \
        if (_cystck_cs_obj != NULL)                                           \
            PyCriticalSection_End(&_cystck_cs);                               \
        (void)(S);                                                            \
    }
#else
/* Only type-checks S and h (a PyObject * is a compile error, as in the
 * free-threaded build). */
static inline void _Cystck_NoCriticalSection(Cystck_State *S, Cystck_Object h) { (void)S; (void)h; }
#define Cystck_BEGIN_CRITICAL_SECTION(S, h) { _Cystck_NoCriticalSection((S), (h))
#define Cystck_END_CRITICAL_SECTION(S) (void)(S); }
#endif

/* ------------------------------------------------------------------ */
/* Constants: permanent slots, free to use, never released             */
/* ------------------------------------------------------------------ */

enum {
    _CYSTCK_C_None, _CYSTCK_C_True, _CYSTCK_C_False, _CYSTCK_C_NotImplemented,
    _CYSTCK_C_Ellipsis,
    _CYSTCK_C_BaseObjectType, _CYSTCK_C_TypeType, _CYSTCK_C_LongType,
    _CYSTCK_C_FloatType, _CYSTCK_C_BoolType, _CYSTCK_C_ComplexType,
    _CYSTCK_C_UnicodeType, _CYSTCK_C_BytesType, _CYSTCK_C_ByteArrayType,
    _CYSTCK_C_ListType, _CYSTCK_C_TupleType, _CYSTCK_C_DictType,
    _CYSTCK_C_SetType, _CYSTCK_C_FrozenSetType, _CYSTCK_C_SliceType,
    _CYSTCK_C_MemoryViewType, _CYSTCK_C_CapsuleType,
    _CYSTCK_C_FunctionType, _CYSTCK_C_CFunctionType, _CYSTCK_C_MethodType,
    _CYSTCK_C_ClassMethodType, _CYSTCK_C_StaticMethodType, _CYSTCK_C_ReversedType,
    _CYSTCK_C_SuperType,
    _CYSTCK_C_COUNT
};

#define _CYSTCK_CONST(k) (_Cystck_H(&_Cystck_Consts[_CYSTCK_C_##k]))
#define Cystck_None            _CYSTCK_CONST(None)
#define Cystck_True            _CYSTCK_CONST(True)
#define Cystck_False           _CYSTCK_CONST(False)
#define Cystck_NotImplemented  _CYSTCK_CONST(NotImplemented)
#define Cystck_Ellipsis        _CYSTCK_CONST(Ellipsis)
#define CystckBaseObject_Type  _CYSTCK_CONST(BaseObjectType)
#define CystckType_Type        _CYSTCK_CONST(TypeType)
#define CystckLong_Type        _CYSTCK_CONST(LongType)
#define CystckFloat_Type       _CYSTCK_CONST(FloatType)
#define CystckBool_Type        _CYSTCK_CONST(BoolType)
#define CystckComplex_Type     _CYSTCK_CONST(ComplexType)
#define CystckUnicode_Type     _CYSTCK_CONST(UnicodeType)
#define CystckBytes_Type       _CYSTCK_CONST(BytesType)
#define CystckByteArray_Type   _CYSTCK_CONST(ByteArrayType)
#define CystckList_Type        _CYSTCK_CONST(ListType)
#define CystckTuple_Type       _CYSTCK_CONST(TupleType)
#define CystckDict_Type        _CYSTCK_CONST(DictType)
#define CystckSet_Type         _CYSTCK_CONST(SetType)
#define CystckFrozenSet_Type   _CYSTCK_CONST(FrozenSetType)
#define CystckSlice_Type       _CYSTCK_CONST(SliceType)
#define CystckMemoryView_Type  _CYSTCK_CONST(MemoryViewType)
#define CystckCapsule_Type     _CYSTCK_CONST(CapsuleType)
#define CystckFunction_Type    _CYSTCK_CONST(FunctionType)
#define CystckCFunction_Type   _CYSTCK_CONST(CFunctionType)
#define CystckMethod_Type      _CYSTCK_CONST(MethodType)
#define CystckClassMethod_Type _CYSTCK_CONST(ClassMethodType)
#define CystckStaticMethod_Type _CYSTCK_CONST(StaticMethodType)
#define CystckReversed_Type    _CYSTCK_CONST(ReversedType)
#define CystckSuper_Type       _CYSTCK_CONST(SuperType)

/* Builtin exception types: handles on CPython's own PyExc_* variables. */
#define _CYSTCK_EXC(name) (_Cystck_H(&PyExc_##name))
#define CystckExc_BaseException        _CYSTCK_EXC(BaseException)
#define CystckExc_Exception            _CYSTCK_EXC(Exception)
#define CystckExc_ArithmeticError      _CYSTCK_EXC(ArithmeticError)
#define CystckExc_AssertionError       _CYSTCK_EXC(AssertionError)
#define CystckExc_AttributeError       _CYSTCK_EXC(AttributeError)
#define CystckExc_BufferError          _CYSTCK_EXC(BufferError)
#define CystckExc_EOFError             _CYSTCK_EXC(EOFError)
#define CystckExc_FloatingPointError   _CYSTCK_EXC(FloatingPointError)
#define CystckExc_ImportError          _CYSTCK_EXC(ImportError)
#define CystckExc_IndexError           _CYSTCK_EXC(IndexError)
#define CystckExc_KeyError             _CYSTCK_EXC(KeyError)
#define CystckExc_KeyboardInterrupt    _CYSTCK_EXC(KeyboardInterrupt)
#define CystckExc_LookupError          _CYSTCK_EXC(LookupError)
#define CystckExc_MemoryError          _CYSTCK_EXC(MemoryError)
#define CystckExc_NameError            _CYSTCK_EXC(NameError)
#define CystckExc_NotImplementedError  _CYSTCK_EXC(NotImplementedError)
#define CystckExc_OSError              _CYSTCK_EXC(OSError)
#define CystckExc_OverflowError        _CYSTCK_EXC(OverflowError)
#define CystckExc_RecursionError       _CYSTCK_EXC(RecursionError)
#define CystckExc_ReferenceError       _CYSTCK_EXC(ReferenceError)
#define CystckExc_RuntimeError         _CYSTCK_EXC(RuntimeError)
#define CystckExc_StopIteration        _CYSTCK_EXC(StopIteration)
#define CystckExc_SystemError          _CYSTCK_EXC(SystemError)
#define CystckExc_TypeError            _CYSTCK_EXC(TypeError)
#define CystckExc_UnicodeError         _CYSTCK_EXC(UnicodeError)
#define CystckExc_UnicodeDecodeError   _CYSTCK_EXC(UnicodeDecodeError)
#define CystckExc_UnicodeEncodeError   _CYSTCK_EXC(UnicodeEncodeError)
#define CystckExc_ValueError           _CYSTCK_EXC(ValueError)
#define CystckExc_ZeroDivisionError    _CYSTCK_EXC(ZeroDivisionError)
#define CystckExc_Warning              _CYSTCK_EXC(Warning)
#define CystckExc_DeprecationWarning   _CYSTCK_EXC(DeprecationWarning)
#define CystckExc_RuntimeWarning       _CYSTCK_EXC(RuntimeWarning)
#define CystckExc_UserWarning          _CYSTCK_EXC(UserWarning)
#define CystckExc_BlockingIOError      _CYSTCK_EXC(BlockingIOError)
#define CystckExc_BrokenPipeError      _CYSTCK_EXC(BrokenPipeError)
#define CystckExc_BytesWarning         _CYSTCK_EXC(BytesWarning)
#define CystckExc_ChildProcessError    _CYSTCK_EXC(ChildProcessError)
#define CystckExc_ConnectionAbortedError _CYSTCK_EXC(ConnectionAbortedError)
#define CystckExc_ConnectionError      _CYSTCK_EXC(ConnectionError)
#define CystckExc_ConnectionRefusedError _CYSTCK_EXC(ConnectionRefusedError)
#define CystckExc_ConnectionResetError _CYSTCK_EXC(ConnectionResetError)
#define CystckExc_EncodingWarning      _CYSTCK_EXC(EncodingWarning)
#define CystckExc_FileExistsError      _CYSTCK_EXC(FileExistsError)
#define CystckExc_FileNotFoundError    _CYSTCK_EXC(FileNotFoundError)
#define CystckExc_FutureWarning        _CYSTCK_EXC(FutureWarning)
#define CystckExc_GeneratorExit        _CYSTCK_EXC(GeneratorExit)
#define CystckExc_ImportWarning        _CYSTCK_EXC(ImportWarning)
#define CystckExc_IndentationError     _CYSTCK_EXC(IndentationError)
#define CystckExc_InterruptedError     _CYSTCK_EXC(InterruptedError)
#define CystckExc_IsADirectoryError    _CYSTCK_EXC(IsADirectoryError)
#define CystckExc_ModuleNotFoundError  _CYSTCK_EXC(ModuleNotFoundError)
#define CystckExc_NotADirectoryError   _CYSTCK_EXC(NotADirectoryError)
#define CystckExc_PendingDeprecationWarning _CYSTCK_EXC(PendingDeprecationWarning)
#define CystckExc_PermissionError      _CYSTCK_EXC(PermissionError)
#define CystckExc_ProcessLookupError   _CYSTCK_EXC(ProcessLookupError)
#define CystckExc_ResourceWarning      _CYSTCK_EXC(ResourceWarning)
#define CystckExc_StopAsyncIteration   _CYSTCK_EXC(StopAsyncIteration)
#define CystckExc_SyntaxError          _CYSTCK_EXC(SyntaxError)
#define CystckExc_SyntaxWarning        _CYSTCK_EXC(SyntaxWarning)
#define CystckExc_SystemExit           _CYSTCK_EXC(SystemExit)
#define CystckExc_TabError             _CYSTCK_EXC(TabError)
#define CystckExc_TimeoutError         _CYSTCK_EXC(TimeoutError)
#define CystckExc_UnboundLocalError    _CYSTCK_EXC(UnboundLocalError)
#define CystckExc_UnicodeTranslateError _CYSTCK_EXC(UnicodeTranslateError)
#define CystckExc_UnicodeWarning       _CYSTCK_EXC(UnicodeWarning)

/* ------------------------------------------------------------------ */
/* The return stack                                                    */
/* ------------------------------------------------------------------ */

/* Is there room for n more return-stack entries?  0 yes, -1 [e] no. */
static inline int Cystck_CheckStack(Cystck_State *S, Cystck_ssize_t n)
{
    if (Cystck_likely(_Cystck_StackRoom(S) >= n))
        return 0;
    return _Cystck_GrowStack(S, n);
}

/* [s+1] Push h's object.  0, or -1 [e]. */
static inline int Cystck_Push(Cystck_State *S, Cystck_Object h)
{
    PyObject *o = _Cystck_Get(h);
    if (Cystck_unlikely(o == NULL))
        return (_Cystck_BadArgInt(S, "Cystck_Push", h), -1);
    if (Cystck_unlikely(_Cystck_StackFull(S)) && _Cystck_GrowStack(S, 1) < 0)
        return -1;
    Py_INCREF(o);
    *S->sp++ = o;
    return 0;
}

/* [s+1] Push a new object (steals o; NULL means an API call failed). */
static inline int _Cystck_PushNew(Cystck_State *S, PyObject *o)
{
    if (Cystck_unlikely(o == NULL))
        return -1;
    if (Cystck_unlikely(_Cystck_StackFull(S)) && _Cystck_GrowStack(S, 1) < 0) {
        Py_DECREF(o);
        return -1;
    }
    *S->sp++ = o;
    return 0;
}

/* [s+1] Push a C value as its Python counterpart.  0, or -1 [e]. */
static inline int Cystck_PushLong(Cystck_State *S, long v) { return _Cystck_PushNew(S, PyLong_FromLong(v)); }
static inline int Cystck_PushLongLong(Cystck_State *S, long long v) { return _Cystck_PushNew(S, PyLong_FromLongLong(v)); }
static inline int Cystck_PushSsize(Cystck_State *S, Cystck_ssize_t v) { return _Cystck_PushNew(S, PyLong_FromSsize_t(v)); }
static inline int Cystck_PushDouble(Cystck_State *S, double v) { return _Cystck_PushNew(S, PyFloat_FromDouble(v)); }
static inline int Cystck_PushBool(Cystck_State *S, int v) { return _Cystck_PushNew(S, PyBool_FromLong(v)); }
static inline int Cystck_PushNone(Cystck_State *S) { return _Cystck_PushNew(S, Py_NewRef(Py_None)); }
static inline int Cystck_PushString(Cystck_State *S, const char *utf8) { return _Cystck_PushNew(S, PyUnicode_FromString(utf8)); }
static inline int Cystck_PushStringAndSize(Cystck_State *S, const char *utf8, Cystck_ssize_t n) { return _Cystck_PushNew(S, PyUnicode_FromStringAndSize(utf8, n)); }

/* [s+1] Push h as the call's single result: `return Cystck_Return(S, h);`.
 * Returns 1, or -1 when h is null (the error that made it null propagates;
 * with none set, none is raised, as by stock's `return NULL;`: the
 * trampoline reports it as CPython would).  h must not be used afterwards: its slot may be handed over to the stack. */
static CYSTCK_ALWAYS_INLINE int Cystck_Return(Cystck_State *S, Cystck_Object h)
{
    PyObject *o = _Cystck_Get(h);
    if (Cystck_unlikely(o == NULL))
        return (_Cystck_ReturnNull(S, h), -1);
    /* An inline frame with stack room, first: after debug mode's first
     * handle has joined the fast path (_Cystck_OwnSlow), this test, an
     * equality, is the one GCC still resolves on the fast path, which then
     * folds to the move and the push (defs.h, _Cystck_StackRoomIs). */
    if (Cystck_likely(_Cystck_InlineFrame(S) && S->sp < S->frame->stack + CYSTCK_INLINE_STACK)) {
        if (Cystck_likely(h._p == S->top - 1))
            --S->top;         /* the newest handle: move it */
        else
            Py_INCREF(o);
        *S->sp++ = o;
        return 1;
    }
    return _Cystck_ReturnSlow(S, h._p, o);
}

/* [s+1] Push a C value as the call's single result, the stack's way of
 * `return PyFloat_FromDouble(x);`: `return Cystck_ReturnDouble(S, x);`
 * costs no handle, where Cystck_Return(S, CystckFloat_FromDouble(S, x))
 * gives the float a slot and moves it out again.  1, or -1 [e]. */
static inline int Cystck_ReturnLong(Cystck_State *S, long v) { return Cystck_PushLong(S, v) < 0 ? -1 : 1; }
static inline int Cystck_ReturnSsize(Cystck_State *S, Cystck_ssize_t v) { return Cystck_PushSsize(S, v) < 0 ? -1 : 1; }
static inline int Cystck_ReturnLongLong(Cystck_State *S, long long v) { return Cystck_PushLongLong(S, v) < 0 ? -1 : 1; }
static inline int Cystck_ReturnDouble(Cystck_State *S, double v) { return Cystck_PushDouble(S, v) < 0 ? -1 : 1; }
/* long, as PyBool_FromLong: the translator passes its argument unchanged. */
static inline int Cystck_ReturnBool(Cystck_State *S, long v) { return _Cystck_PushNew(S, PyBool_FromLong(v)) < 0 ? -1 : 1; }
static inline int Cystck_ReturnString(Cystck_State *S, const char *utf8) { return Cystck_PushString(S, utf8) < 0 ? -1 : 1; }
static inline int Cystck_ReturnStringAndSize(Cystck_State *S, const char *utf8, Cystck_ssize_t n)
{
    return Cystck_PushStringAndSize(S, utf8, n) < 0 ? -1 : 1;
}

/* Py_RETURN_RICHCOMPARE's test as an int: is `a op b` true for the
 * comparison op (Py_LT, Py_LE, Py_EQ, Py_NE, Py_GT, Py_GE)?  The translator
 * writes `Py_RETURN_RICHCOMPARE(a, b, op);` as `return Cystck_ReturnBool(S,
 * CYSTCK_RICHCOMPARE(a, b, op));`.  Like the stock macro it evaluates a and
 * b more than once; an op outside the six (stock: Py_UNREACHABLE) is Py_GE. */
#define CYSTCK_RICHCOMPARE(a, b, op)                                           \
    ((op) == Py_EQ ? (a) == (b) : (op) == Py_NE ? (a) != (b) :                 \
     (op) == Py_LT ? (a) < (b) : (op) == Py_LE ? (a) <= (b) :                  \
     (op) == Py_GT ? (a) > (b) : (a) >= (b))

/* Number of entries on the return stack. */
static inline Cystck_ssize_t Cystck_StackSize(Cystck_State *S) { return S->sp - _Cystck_StackBase(S); }

/* [s-1, h+1] Pop the top of the return stack into an owned handle. */
static inline Cystck_Object Cystck_Pop(Cystck_State *S)
{
    if (Cystck_unlikely(S->sp == _Cystck_StackBase(S))) {
        PyErr_SetString(PyExc_SystemError, "Cystck_Pop: the return stack is empty");
        return Cystck_NULL;
    }
    return _Cystck_Own(S, *--S->sp);
}

/* ------------------------------------------------------------------ */
/* Calls from C into Python through the stack                          */
/* ------------------------------------------------------------------ */

/* Release the n values a call consumed, the newest first.  Counted, so
 * that with n known at the call site it unrolls into n decrefs. */
static inline void _Cystck_PopN(Cystck_State *S, Cystck_ssize_t n)
{
    PyObject **base = S->sp - n;
    Cystck_ssize_t i;
    S->sp = base;
    _CYSTCK_UNROLL4
    for (i = n - 1; i >= 0; i--)
        Py_DECREF(base[i]);
}

/* [s-(nargs+1), h+1, e] Call the callable pushed before nargs pushed
 * arguments: push f, push a1..an, then r = Cystck_Call(S, n).  The pushed
 * slice goes straight to vectorcall: no argument tuple is built. */
static inline Cystck_Object Cystck_Call(Cystck_State *S, Cystck_ssize_t nargs)
{
    PyObject **base = S->sp - nargs - 1;
    PyObject *r;
    if (Cystck_unlikely(nargs < 0 || base < _Cystck_StackBase(S))) {
        PyErr_SetString(PyExc_SystemError, "Cystck_Call: fewer values pushed than the callable and its arguments");
        return Cystck_NULL;
    }
    r = PyObject_Vectorcall(base[0], base + 1,
                            (size_t)nargs | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    _Cystck_PopN(S, nargs + 1);
    return _Cystck_Own(S, r);
}

/* [s-(nargs+nkw+1), h+1, e] Like Cystck_Call with keyword arguments: push
 * f, the positional arguments, then the keyword values in kwnames' order. */
static inline Cystck_Object Cystck_CallKw(Cystck_State *S, Cystck_ssize_t nargs, Cystck_Object kwnames)
{
    PyObject *names = _Cystck_Get(kwnames);
    Cystck_ssize_t nkw = names ? PyTuple_GET_SIZE(names) : 0;
    PyObject **base = S->sp - nargs - nkw - 1;
    PyObject *r;
    if (Cystck_unlikely(nargs < 0 || base < _Cystck_StackBase(S))) {
        PyErr_SetString(PyExc_SystemError, "Cystck_CallKw: fewer values pushed than the callable and its arguments");
        return Cystck_NULL;
    }
    r = PyObject_Vectorcall(base[0], base + 1,
                            (size_t)nargs | PY_VECTORCALL_ARGUMENTS_OFFSET, names);
    _Cystck_PopN(S, nargs + nkw + 1);
    return _Cystck_Own(S, r);
}

/* [s-(nargs+1), h+1, e] Call method `name` on the object pushed first,
 * with the nargs values pushed after it. */
static inline Cystck_Object Cystck_CallMethod(Cystck_State *S, Cystck_Object name, Cystck_ssize_t nargs)
{
    PyObject *n = _Cystck_Get(name);
    PyObject **base = S->sp - nargs - 1;
    PyObject *r;
    if (Cystck_unlikely(n == NULL))
        return (_Cystck_BadArg(S, "Cystck_CallMethod", name), Cystck_NULL);
    if (Cystck_unlikely(nargs < 0 || base < _Cystck_StackBase(S))) {
        PyErr_SetString(PyExc_SystemError, "Cystck_CallMethod: fewer values pushed than the object and its arguments");
        return Cystck_NULL;
    }
    r = PyObject_VectorcallMethod(n, base, (size_t)(nargs + 1) | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    _Cystck_PopN(S, nargs + 1);
    return _Cystck_Own(S, r);
}

/* ------------------------------------------------------------------ */
/* Scope gates                                                         */
/* ------------------------------------------------------------------ */

/* Mark the handle array; Cystck_CloseScope releases every handle created
 * after the mark.  Use one per iteration of a loop that creates objects. */
static inline Cystck_Scope Cystck_OpenScope(Cystck_State *S)
{
    Cystck_Scope sc;
    if (Cystck_unlikely(_CYSTCK_CHECKED(S) || _CYSTCK_DEBUG_PENDING(S)))
        return _Cystck_DebugOpenScope(S);
    sc.top = S->top;
    sc.end = S->end;
    return sc;
}

/* [h-k] Release what was created since the matching Cystck_OpenScope. */
static inline void Cystck_CloseScope(Cystck_State *S, Cystck_Scope sc)
{
    if (Cystck_likely(sc.end == S->end && !_CYSTCK_CHECKED(S))) {
        while (S->top > sc.top) {
            PyObject *o = *--S->top;
            Py_XDECREF(o);
        }
        return;
    }
    _Cystck_CloseScopeSlow(S, sc);
}

/* [h-k, h+1] Close the scope but keep h alive: returns a handle to h's
 * object in the enclosing scope (V8's EscapableHandleScope). */
static inline Cystck_Object Cystck_CloseScopeKeep(Cystck_State *S, Cystck_Scope sc, Cystck_Object h)
{
    PyObject *o = _Cystck_Get(h);
    Py_XINCREF(o);
    Cystck_CloseScope(S, sc);
    if (o == NULL)
        return (_Cystck_BadArg(S, "Cystck_CloseScopeKeep", h), Cystck_NULL);
    return _Cystck_Own(S, o);
}

/* A loop's mark of the handle array, taken before the loop:
 * Cystck_ReleaseSince(S, &mark), called at the start of every iteration
 * (before the loop's condition), releases the handles the previous
 * iteration made.  Unlike a scope gate it is never closed: break, return
 * or goto leave the last iteration's handles to the frame, so no exit
 * needs a call of its own.  Written by the translator's loop-release rule
 * where no handle outlives its iteration. */
static inline Cystck_Scope Cystck_Mark(Cystck_State *S)
{
    Cystck_Scope m;
    if (Cystck_unlikely(_CYSTCK_CHECKED(S) || _CYSTCK_DEBUG_PENDING(S)))
        return _Cystck_DebugMark(S);
    m.top = S->top;
    m.end = S->end;
    return m;
}

/* [h-k] Release the handles made since the mark that are still there. */
static inline void Cystck_ReleaseSince(Cystck_State *S, Cystck_Scope *mark)
{
    if (Cystck_likely(mark->end == S->end && !_CYSTCK_CHECKED(S))) {
        while (S->top > mark->top) {
            PyObject *o = *--S->top;
            Py_XDECREF(o);
        }
        return;
    }
    _Cystck_ReleaseSinceSlow(S, mark);
}

/* [h-k, h+1] Cystck_ReleaseSince keeping one object: *keep becomes a
 * handle made after the mark (so the next call releases it in its turn)
 * to the object it held.  For a loop that carries a value from one
 * iteration to the next (an accumulator: Cystck_ReleaseSinceKeep(S, &mark,
 * &acc) before its condition), which then holds one iteration's handles
 * and the carried one.  The null handle (or a released one) stays null.
 * (An output argument, not a result: `acc = f(...)` in a loop's condition
 * would read as a handle the condition tests.) */
static inline void Cystck_ReleaseSinceKeep(Cystck_State *S, Cystck_Scope *mark, Cystck_Object *keep)
{
    PyObject *o = _Cystck_Get(*keep);
    Py_XINCREF(o);
    Cystck_ReleaseSince(S, mark);
    *keep = o == NULL ? Cystck_NULL : _Cystck_Own(S, o);
}

/* Is there room for n more handles under the handle limit?  0, or -1 [e]. */
CYSTCK_INTERNAL int Cystck_CheckHandles(Cystck_State *S, Cystck_ssize_t n);

/* The handle limit per call (CYSTCK_HANDLE_LIMIT at import time). */
CYSTCK_INTERNAL Cystck_ssize_t Cystck_HandleLimit(void);

/* The raises of CystckErr_SetString, ...SetObject, ...SetNone and
 * ...SetFromErrno: as PyErr_*, except that a pending handle-limit
 * MemoryError stays (see keeps_limit_error in cystck/src/objects.c). */
CYSTCK_INTERNAL void _Cystck_ErrSetString(PyObject *type, const char *msg);
CYSTCK_INTERNAL void _Cystck_ErrSetObject(PyObject *type, PyObject *value);
CYSTCK_INTERNAL void _Cystck_ErrSetNone(PyObject *type);
CYSTCK_INTERNAL PyObject *_Cystck_ErrSetFromErrno(PyObject *type);

/* ------------------------------------------------------------------ */
/* References that outlive the call                                    */
/* ------------------------------------------------------------------ */

struct _Cystck_RefCell {
    PyObject *obj;             /* NULL once released */
    struct _Cystck_RefCell *next;
    const void *creator;       /* return address of the Cystck_ref call (debug) */
    unsigned live : 1;
    unsigned global : 1;       /* made during module init, or visited in a module
                                  state (Cystck_VISIT_REF): lives with the module */
};

/* A new reference to h's object, valid until Cystck_unref.  NULL [e]. */
CYSTCK_INTERNAL Cystck_Ref Cystck_ref(Cystck_State *S, Cystck_Object h);
/* Release a reference.  Releasing twice raises in debug mode. */
CYSTCK_INTERNAL void Cystck_unref(Cystck_State *S, Cystck_Ref r);

/* The handle for a reference: no new slot, no refcount traffic.  The handle
 * reads the reference's current object, so it turns null if the reference
 * is released during the call.  Always inlined: debug mode names the C line
 * that used a released reference, the caller of _Cystck_BadRef_Ool, and gcc
 * otherwise leaves this function out of line where its slow path's copy of
 * the header makes it look big. */
static CYSTCK_ALWAYS_INLINE Cystck_Object Cystck_deref(Cystck_State *S, Cystck_Ref r)
{
    if (Cystck_unlikely(r == NULL || r->obj == NULL))
        return (_Cystck_BadRef(S, "Cystck_deref", r), Cystck_NULL);
    return _Cystck_H(&r->obj);
}

/* ------------------------------------------------------------------ */
/* Fields: Python values inside native structs                         */
/* ------------------------------------------------------------------ */

/* [h+1] The value stored in *f, or the null handle (no exception) if empty. */
static inline Cystck_Object CystckField_Load(Cystck_State *S, Cystck_Object owner, Cystck_Field f)
{
    (void)owner;
    return _Cystck_OwnBorrowed(S, f._o);
}

/* Store h (or clear with Cystck_NULL) in *f, which lives inside owner.
 * A released handle (not Cystck_NULL, but reading NULL) is an error. */
static inline void CystckField_Store(Cystck_State *S, Cystck_Object owner, Cystck_Field *f, Cystck_Object h)
{
    PyObject *o = _Cystck_Get(h);
    PyObject *old = f->_o;
    (void)owner;
    if (Cystck_unlikely(o == NULL && h._p != NULL)) {
        _Cystck_BadArg(S, "CystckField_Store", h);
        return;
    }
    Py_XINCREF(o);
    f->_o = o;
    Py_XDECREF(old);
}

static inline int CystckField_IsNull(Cystck_Field f) { return f._o == NULL; }

/* Visiting fields from a type's traverse function. */
typedef int (*Cystck_visitproc)(Cystck_Field *f, void *arg);
#define Cystck_VISIT(f) do {                                   \
        int vret_ = visit((f), arg);                           \
        if (vret_) return vret_;                               \
    } while (0)

/* In a module state's traverse (CYSTCK_DEF_MOD_TRAVERSE): visit the
 * Cystck_Ref at r, a reference the state holds.  The cyclic GC sees its
 * object; when the module is cleared or freed, the runtime releases the
 * reference (Cystck_unref) and sets *r to NULL. */
CYSTCK_INTERNAL int _Cystck_VisitRef(Cystck_Ref *r, Cystck_visitproc visit, void *arg);
#define Cystck_VISIT_REF(r) do {                               \
        int vret_ = _Cystck_VisitRef((r), visit, arg);         \
        if (vret_) return vret_;                               \
    } while (0)

/* ------------------------------------------------------------------ */
/* Native instance data                                                */
/* ------------------------------------------------------------------ */

/* Where an instance's native struct starts, after the hidden object head. */
#define CYSTCK_DATA_OFFSET (((sizeof(PyObject) + 15) / 16) * 16)

static inline void *_Cystck_AsStruct(Cystck_State *S, Cystck_Object h)
{
    PyObject *o = _Cystck_Get(h);
    if (Cystck_unlikely(o == NULL)) {
        _Cystck_BadArg(S, "_AsStruct", h);
        return NULL;
    }
    return (char *)o + CYSTCK_DATA_OFFSET;
}

/* The native struct of a live handle of an instance, unchecked: what the
 * typed accessors return.  Like the stock API's cast of an object pointer,
 * a released or null handle is undefined behaviour (a crash); a check could
 * only return NULL, which the caller's `->field` would read anyway, and it
 * cost 2 instructions at every field access, 8 in a 4-element loop (each
 * test stays in the loop: docs/gaps.md, R1). */
static CYSTCK_ALWAYS_INLINE void *_Cystck_StructOf(Cystck_Object h)
{
    return (char *)*h._p + CYSTCK_DATA_OFFSET;
}

/* The native struct of h's object, untyped (for C++ templates and generic
 * code); NULL with an exception for an invalid handle.  Valid for the call. */
static inline void *Cystck_AsStruct(Cystck_State *S, Cystck_Object h)
{
    return _Cystck_AsStruct(S, h);
}

/* [h+1] The object whose native struct is `data` (from Cystck_AsStruct,
 * a typed accessor or Cystck_New in this call): the inverse of
 * Cystck_AsStruct, for code that passes struct pointers around. */
static inline Cystck_Object Cystck_FromStruct(Cystck_State *S, void *data)
{
    if (Cystck_unlikely(data == NULL))
        return (_Cystck_NullArg(S, "Cystck_FromStruct"), Cystck_NULL);
    return _Cystck_OwnBorrowed(S, (PyObject *)((char *)data - CYSTCK_DATA_OFFSET));
}
#define CYSTCK_HAS_STRUCT_ACCESS 1

/* Variable-size instances: [object head | native struct | n items].  The
 * struct of a type whose spec has an itemsize starts with CYSTCK_VAR_HEAD,
 * which keeps CPython's item count (ob_size) out of the native data (on
 * builds where it would fall inside it); the items are the struct's last
 * member, a flexible array (`Cystck_Field items[1];` for objects, which
 * traverse visits up to CystckVar_DataSize(self)).  Cystck_NewVar makes
 * one. */
#define _CYSTCK_VAR_HEAD_SIZE                                                  \
    (sizeof(PyVarObject) > CYSTCK_DATA_OFFSET ? sizeof(PyVarObject) - CYSTCK_DATA_OFFSET : 1)
#define CYSTCK_VAR_HEAD char _cystck_var_head[_CYSTCK_VAR_HEAD_SIZE];

/* The item count of a variable-size object (Py_SIZE); -1 with an
 * exception for an invalid handle. */
static inline Cystck_ssize_t CystckVar_Size(Cystck_State *S, Cystck_Object o)
{
    PyObject *o_ = _Cystck_Get(o);
    if (Cystck_unlikely(o_ == NULL))
        return (_Cystck_BadArgInt(S, "CystckVar_Size", o), -1);
    return Py_SIZE(o_);
}

/* The item count of the variable-size instance whose native struct is
 * `data`: for traverse functions and destructors, which get the struct and
 * no state. */
static inline Cystck_ssize_t CystckVar_DataSize(const void *data)
{
    return Py_SIZE((PyObject *)((const char *)data - CYSTCK_DATA_OFFSET));
}

/* CYSTCK_TYPE_HELPERS(Point) defines `Point *Point_AsStruct(S, h)`, the
 * typed accessor for instances whose native struct is `Point`: h must be a
 * live handle of such an instance (unchecked, as a stock cast). */
#define CYSTCK_TYPE_HELPERS(STRUCT)                                          \
    static inline CYSTCK_UNUSED STRUCT *STRUCT##_AsStruct(Cystck_State *S,   \
                                                         Cystck_Object h)   \
    { (void)S; return (STRUCT *)_Cystck_StructOf(h); }

/* PyLong_FromVoidPtr of a C pointer: the address as an int (the table's
 * CystckLong_FromVoidPtr is the identity of a handle's object instead). */
static inline Cystck_Object CystckLong_FromPointer(Cystck_State *S, void *p)
{
    return _Cystck_Own(S, PyLong_FromVoidPtr(p));
}

#ifdef __cplusplus
}
#endif

#include "cystck/defs.h"
#include "cystck/typed.h"
#include "cystck/autogen_api.h"
#include "cystck/runtime_api.h"

#endif /* CYSTCK_H */
