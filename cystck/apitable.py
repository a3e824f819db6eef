"""The one table of Cystck API functions.

The header's wrappers (``include/cystck/autogen_api.h``), the header's list
of slots (``include/cystck/autogen_slots.h``), the API reference
(``docs/api.md``), the translator's name mapping and its slot signatures all
read this table, so they cannot disagree.  ``python -m cystck.gen_api`` regenerates the files;
a test checks they are up to date.

Each line of ``TABLE`` is one function::

    RET NAME(PARAMS) = STOCK [flags] ; doc

* ``RET``/``PARAMS`` use ``h`` for a handle, ``h?`` for a handle that may be
  null (passed to CPython as NULL), ``h!`` for a handle the function consumes
  (the stock function steals that reference), and plain C types otherwise.
  ``S`` (the state) is implicit: every function takes ``Cystck_State *S``
  first, except those marked ``[nostate]``.
* ``= STOCK`` generates a wrapper that calls the CPython function STOCK with
  the same arguments; ``: hand ~ STOCK`` marks a function written by hand
  (in ``Cystck.h`` or the runtime) whose stock counterpart is STOCK (``-``
  for none).
* ``= CALLS ~ STOCK`` generates a wrapper calling CALLS whose stock
  counterpart (for the translator and the docs) is STOCK: a deliberate
  departure, e.g. a non-stealing replacement for a stealing function.
* ``[nostate]`` after a hand-written function: it takes no state (its
  first parameter is its first listed one).
* flags: ``borrowed`` (STOCK returns a borrowed reference; the wrapper takes
  a new one for the handle), ``noerr`` (a null result is not an error, e.g.
  ``PyDict_GetItem``), ``macro`` (STOCK is an unchecked macro),
  ``check=MACRO`` (STOCK does not check the type of its first argument and
  would crash on another: the wrapper raises SystemError unless MACRO
  passes), ``raises`` (STOCK raises an exception: the wrapper notes it in
  the frame, _Cystck_Raised, so that a method returning a value with it
  still set is reported at its close).
* ``## Section`` lines group functions in the docs.
"""

TABLE = r"""
## Handles and the return stack (hand-written, see Cystck.h)
int Cystck_IsNull(h o) : hand ~ - [nostate]               ; is o the null handle (or a released one)
int Cystck_Is(h a, h b) : hand ~ Py_Is                     ; a is b
Py_uintptr_t CystckObject_Id(h o) : hand ~ -               ; id(o): the object's identity as an integer, the same for every handle to it (CPython's is the address: what `"0x%zx"` reprs print); 0 after an invalid handle
h Cystck_Dup(h o) : hand ~ Py_NewRef                       ; [h+1] another owned handle to o
void Cystck_Drop(h o) : hand ~ Py_DECREF                   ; [h-1] release an owned handle now
PyObject* Cystck_AsPyObject(h o) : hand ~ -                ; escape hatch: borrowed PyObject*
h Cystck_FromPyObject(PyObject* o) : hand ~ -              ; [h+1] escape hatch: handle for a PyObject*
void* Cystck_AsStruct(h o) : hand ~ -                      ; [e] the native struct of o, untyped (see CYSTCK_TYPE_HELPERS)
h Cystck_FromStruct(void* data) : hand ~ -                 ; [h+1] the object whose native struct is data
int Cystck_CheckStack(Cystck_ssize_t n) : hand ~ -         ; room for n more stack entries?
int Cystck_CheckHandles(Cystck_ssize_t n) : hand ~ -       ; room for n more handles?
int Cystck_Push(h o) : hand ~ -                            ; [s+1] push o
int Cystck_PushLong(long v) : hand ~ -                     ; [s+1] push int(v)
int Cystck_PushSsize(Cystck_ssize_t v) : hand ~ -          ; [s+1] push int(v)
int Cystck_PushLongLong(long long v) : hand ~ -            ; [s+1] push int(v)
int Cystck_PushDouble(double v) : hand ~ -                 ; [s+1] push float(v)
int Cystck_PushBool(int v) : hand ~ -                      ; [s+1] push bool(v)
int Cystck_PushNone() : hand ~ -                           ; [s+1] push None
int Cystck_PushString(const char* utf8) : hand ~ -         ; [s+1] push str(utf8)
int Cystck_PushStringAndSize(const char* utf8, Cystck_ssize_t n) : hand ~ - ; [s+1] push str(utf8[:n])
int Cystck_Return(h o) : hand ~ -                          ; [s+1] push o as the result; returns 1
int Cystck_ReturnLong(long v) : hand ~ -                   ; [s+1] push int(v) as the result; returns 1
int Cystck_ReturnSsize(Cystck_ssize_t v) : hand ~ -        ; [s+1] push int(v) as the result; returns 1
int Cystck_ReturnLongLong(long long v) : hand ~ -          ; [s+1] push int(v) as the result; returns 1
int Cystck_ReturnDouble(double v) : hand ~ -               ; [s+1] push float(v) as the result; returns 1
int Cystck_ReturnBool(long v) : hand ~ -                   ; [s+1] push bool(v) as the result; returns 1
int Cystck_ReturnString(const char* utf8) : hand ~ -       ; [s+1] push str(utf8) as the result; returns 1
int Cystck_ReturnStringAndSize(const char* utf8, Cystck_ssize_t n) : hand ~ - ; [s+1] push str(utf8[:n]) as the result; returns 1
h Cystck_Pop() : hand ~ -                                  ; [s-1, h+1] pop the stack top
h Cystck_PopResult(int pushed) : hand ~ -                  ; [s-pushed, h+1, e] the result of an implementation called directly, from the count it returned: null for -1 (its exception set), None for 0, the value pushed for 1; SystemError for more (the values dropped)
h Cystck_Call(Cystck_ssize_t nargs) : hand ~ - ; [s-(n+1), h+1] call pushed f(a1..an): PyObject_Vectorcall on the stack's slice (the stack owns what is pushed; CystckObject_Vectorcall calls with handles as they are)
h Cystck_CallKw(Cystck_ssize_t nargs, h kwnames) : hand ~ - ; [s-(n+k+1), h+1] call with keywords (the stack form of PyObject_Vectorcall with kwnames)
h Cystck_CallMethod(h name, Cystck_ssize_t nargs) : hand ~ - ; [s-(n+1), h+1] pushed obj.name(a1..an) (the stack form of PyObject_VectorcallMethod)
Cystck_Scope Cystck_OpenScope() : hand ~ -                 ; mark the handle array
void Cystck_CloseScope(Cystck_Scope sc) : hand ~ -         ; [h-k] release handles since the mark
h Cystck_CloseScopeKeep(Cystck_Scope sc, h keep) : hand ~ - ; [h-k, h+1] same, keeping one
Cystck_Scope Cystck_Mark() : hand ~ -                      ; mark the handle array before a loop
void Cystck_ReleaseSince(Cystck_Scope* mark) : hand ~ -    ; [h-k] release handles since the mark (each iteration; never closed)
void Cystck_ReleaseSinceKeep(Cystck_Scope* mark, Cystck_Object* keep) : hand ~ - ; [h-k, h+1] same, keeping one: *keep becomes a handle made after the mark to its object (a value carried to the next iteration; the null handle stays null)
Cystck_Ref Cystck_ref(h o) : hand ~ -                      ; a reference that outlives the call
h Cystck_deref(Cystck_Ref r) : hand ~ -                    ; the reference's object (no new slot)
void Cystck_unref(Cystck_Ref r) : hand ~ -                 ; release a reference (NULL: nothing; S may be NULL, in a destructor)

## Object
h CystckObject_GetAttr(h o, h name) = PyObject_GetAttr     ; [h+1, e] o.name
h CystckObject_GetAttrString(h o, const char* name) = PyObject_GetAttrString ; [h+1, e] o.name
int CystckObject_SetAttr(h o, h name, h? v) = PyObject_SetAttr ; [e] o.name = v (null v deletes)
int CystckObject_SetAttrString(h o, const char* name, h? v) = PyObject_SetAttrString ; [e] o.name = v
int CystckObject_HasAttr(h o, h name) = PyObject_HasAttr   ; hasattr(o, name)
int CystckObject_HasAttrString(h o, const char* name) = PyObject_HasAttrString ; hasattr(o, name)
int CystckObject_DelAttr(h o, h name) = PyObject_DelAttr   ; [e] del o.name
int CystckObject_DelAttrString(h o, const char* name) = PyObject_DelAttrString ; [e] del o.name (name in UTF-8)
h CystckObject_GetItem(h o, h key) = PyObject_GetItem      ; [h+1, e] o[key]
int CystckObject_SetItem(h o, h key, h v) = PyObject_SetItem ; [e] o[key] = v
int CystckObject_DelItem(h o, h key) = PyObject_DelItem    ; [e] del o[key]
h CystckObject_Repr(h o) = PyObject_Repr                   ; [h+1, e] repr(o)
h CystckObject_Str(h o) = PyObject_Str                     ; [h+1, e] str(o)
h CystckObject_ASCII(h o) = PyObject_ASCII                 ; [h+1, e] ascii(o)
h CystckObject_Bytes(h o) = PyObject_Bytes                 ; [h+1, e] bytes(o)
h CystckObject_Format(h o, h? spec) = PyObject_Format      ; [h+1, e] format(o, spec)
h CystckLong_FromVoidPtr(h o) = PyLong_FromVoidPtr        ; [h+1, e] the address of o's object as an int: id(o) (the translator maps PyLong_FromVoidPtr of a handle here; of a C pointer to CystckLong_FromPointer)
h CystckLong_FromPointer(void* p) : hand ~ PyLong_FromVoidPtr ; [h+1, e] the C address p as an int (0 for NULL), PyLong_FromVoidPtr of a pointer that is no object
void* CystckLong_AsVoidPtr(h o) = PyLong_AsVoidPtr         ; [e] the C address int o holds (NULL for 0): NULL with OverflowError when it does not fit a pointer, TypeError for an object with no __index__
Cystck_hash_t CystckObject_Hash(h o) = PyObject_Hash       ; [e] hash(o)
int CystckObject_IsTrue(h o) = PyObject_IsTrue             ; [e] bool(o)
int CystckObject_Not(h o) = PyObject_Not                   ; [e] not o
int CystckObject_AsFileDescriptor(h o) = PyObject_AsFileDescriptor ; [e] o as a file descriptor: an int, or what o.fileno() returns; -1 with an exception (a negative value, no fileno(), a result that is no int)
h CystckObject_RichCompare(h a, h b, int op) = PyObject_RichCompare ; [h+1, e] a op b
int CystckObject_RichCompareBool(h a, h b, int op) = PyObject_RichCompareBool ; [e] a op b as 0/1
int CystckObject_IsInstance(h o, h cls) = _Cystck_IsInstance ~ PyObject_IsInstance ; [e] isinstance(o, cls) (an instance of a core builtin type, dict, list, str..., is answered without asking it for __class__: it cannot claim another class)
int CystckObject_IsSubclass(h o, h cls) = PyObject_IsSubclass ; [e] issubclass(o, cls)
h CystckObject_Type(h o) = PyObject_Type                   ; [h+1] type(o)
int CystckObject_TypeCheck(h o, h type) : hand ~ PyObject_TypeCheck ; isinstance(o, type) for a type, no error
Cystck_ssize_t CystckObject_Length(h o) = PyObject_Length  ; [e] len(o)
Cystck_ssize_t CystckObject_Size(h o) = PyObject_Size      ; [e] len(o)
h CystckObject_GetIter(h o) = PyObject_GetIter             ; [h+1, e] iter(o)
h CystckObject_Dir(h o) = PyObject_Dir                     ; [h+1, e] dir(o)
int CystckObject_Print(h o, FILE* fp, int flags) = PyObject_Print ; [e] print o to a C file
int CystckCallable_Check(h o) = PyCallable_Check           ; callable(o)
h CystckObject_Call(h f, h args, h? kw) = PyObject_Call    ; [h+1, e] f(*args, **kw)
h CystckObject_CallObject(h f, h? args) = PyObject_CallObject ; [h+1, e] f(*args)
h CystckObject_CallNoArgs(h f) = PyObject_CallNoArgs       ; [h+1, e] f()
h CystckObject_CallOneArg(h f, h arg) = PyObject_CallOneArg ; [h+1, e] f(arg)
h CystckObject_Vectorcall(h f, const Cystck_Object* args, size_t nargsf, h? kwnames) : hand ~ PyObject_Vectorcall ; [h+1, e] f(*args[:n], **dict(zip(kwnames, args[n:]))), n = PyVectorcall_NARGS(nargsf): the handles are read, not consumed (each is alive for the call: no refcount pair per argument, unlike pushing them for Cystck_Call), HPy_Call's counterpart
h CystckObject_VectorcallMethod(h name, const Cystck_Object* args, size_t nargsf, h? kwnames) : hand ~ PyObject_VectorcallMethod ; [h+1, e] args[0].name(*args[1:n], **kw) with handles, as CystckObject_Vectorcall (n counts args[0])
h CystckObject_CallMethodNoArgs(h o, h name) = PyObject_CallMethodNoArgs ; [h+1, e] o.name()
h CystckObject_CallMethodOneArg(h o, h name, h arg) = PyObject_CallMethodOneArg ; [h+1, e] o.name(arg)
h CystckObject_CallFunctionObjArgs(h f, ...) : hand ~ PyObject_CallFunctionObjArgs ; [h+1, e] f(a, b, ...); end the list with Cystck_NULL
h CystckObject_CallMethodObjArgs(h o, h name, ...) : hand ~ PyObject_CallMethodObjArgs ; [h+1, e] o.name(a, ...); end with Cystck_NULL
h Cystck_CallImplKw(Cystck_KeywordsImpl impl, h? self, h argtuple, const Cystck_Object* args, Cystck_ssize_t nargs, h? kw) : hand ~ - ; [h+1, e] impl(self, *argtuple, **keywords) for a CYSTCK_KEYWORDS implementation called from C (a stock METH_KEYWORDS function called directly with a tuple it built): kw null, a dict, or the caller's own keyword names whose values follow args[:nargs]; impl gets what a call from Python gives it; its result as a handle (None for 0 pushed)
int Cystck_CallSlotKw(Cystck_KeywordsImpl impl, h? self, h? argtuple, const Cystck_Object* args, Cystck_ssize_t nargs, h? kw) : hand ~ - ; [e] impl(self, *argtuple, **keywords) for the implementation of a keyword slot (tp_new, tp_init, tp_call) called from C with a tuple and keywords the caller made: argtuple null (no positional arguments) or a tuple; kw null, a dict, or the caller's own keyword names whose values follow args[:nargs]; impl gets the keywords as the slot gets them from Python, a dict or null; impl's result (a push count, or tp_init's 0), -1 with an exception
h CystckObject_CallFunction(h f, const char* fmt, ...) : hand ~ PyObject_CallFunction ; [h+1, e] f(*BuildValue(fmt, ...))
h CystckObject_CallMethod(h o, const char* name, const char* fmt, ...) : hand ~ PyObject_CallMethod ; [h+1, e] o.name(*BuildValue(fmt, ...))
h CystckObject_GenericGetAttr(h o, h name) = PyObject_GenericGetAttr ; [h+1, e] default attribute lookup
int CystckObject_GenericSetAttr(h o, h name, h? v) = PyObject_GenericSetAttr ; [e] default attribute store
h Cystck_BuildValue(const char* fmt, ...) : hand ~ Py_BuildValue ; [h+1, e] build a value; O/N/S take handles, u/u# a wchar_t buffer
int Cystck_EnterRecursiveCall(const char* where) = Py_EnterRecursiveCall ; [e] guard deep C recursion
void Cystck_LeaveRecursiveCall() = Py_LeaveRecursiveCall   ; end of a guarded recursion
int Cystck_ReprEnter(h o) = Py_ReprEnter                   ; [e] guard a recursive repr of container o: 0 the first time, 1 if o's repr is under way already (write `[...]`), -1 on error
void Cystck_ReprLeave(h o) = Py_ReprLeave                  ; end the guard Cystck_ReprEnter returned 0 for

## Types
int CystckType_Check(h o) = PyType_Check                   ; isinstance(o, type)
int CystckType_IsSubtype(h a, h b) : hand ~ PyType_IsSubtype ; issubclass for types
h CystckType_FromSpec(CystckType_Spec* spec, h? bases) : hand ~ PyType_FromSpecWithBases ; [h+1, e] a new heap type
h CystckType_GenericNew(h type) : hand ~ PyType_GenericNew ; [h+1, e] a zeroed instance of type
h Cystck_New(h type, void** data) : hand ~ PyObject_New    ; [h+1, e] a new instance (a plain type's native struct not zeroed, as stock's PyObject_New); *data = its native struct (NULL on failure)
h Cystck_NewZeroed(h type, void** data) : hand ~ PyType_GenericAlloc ; [h+1, e] a new instance, its native struct zeroed (stock: `type->tp_alloc(type, 0)`, `PyType_GenericAlloc(type, 0)`); *data = its native struct (NULL on failure)
const char* CystckType_GetName(h type) : hand ~ -          ; the type's tp_name
h CystckType_GetNameObject(h type) : hand ~ PyType_GetName ; [h+1, e] `type.__name__`: for a heap type the str stock code reads as `((PyHeapTypeObject *)type)->ht_name`
h CystckType_GetQualName(h type) : hand ~ PyType_GetQualName ; [h+1, e] `type.__qualname__`: for a heap type the str stock code reads as `((PyHeapTypeObject *)type)->ht_qualname`
int CystckType_HasFeature(h type, unsigned long feature) : hand ~ PyType_HasFeature ; [e] is flag `feature` (a Py_TPFLAGS_ value) set in the type's tp_flags; 0 with a TypeError for an object that is no type (so that a truth test, stock code's reading, reads "not set")
unsigned long CystckType_GetFlags(h type) : hand ~ PyType_GetFlags ; [e] the type's tp_flags (its Py_TPFLAGS_ bits, what stock code reads as `type->tp_flags`); 0 and TypeError for an object that is no type
h Cystck_NewVar(h type, Cystck_ssize_t n, void** data) : hand ~ PyObject_NewVar ; [h+1, e] a new instance of a variable-size type with n items, zeroed; *data = its native struct (NULL on failure)
h CystckType_GenericAlloc(h type, Cystck_ssize_t n) : hand ~ PyType_GenericAlloc ; [h+1, e] what stock's `type->tp_alloc(type, n)` and `PyType_GenericAlloc(type, n)` make: n items of a variable-size type, zeroed (SystemError for a negative n); a type without items ignores n, as stock's does (a zeroed instance)
Cystck_ssize_t CystckVar_Size(h o) : hand ~ Py_SIZE        ; the item count of a variable-size object (ob_size)
Cystck_ssize_t CystckVar_DataSize(const void* data) : hand ~ - [nostate] ; the item count of the variable-size instance whose native struct is data (for traverse functions and destructors, which have no state)
int Cystck_TypeIs(h o, h type) : hand ~ Py_IS_TYPE         ; type(o) is type, no error
h CystckType_GetMRO(h type) : hand ~ -                     ; [h+1, e] the type's MRO, the tuple `type.__mro__` is (what stock code reads as `type->tp_mro`); SystemError for a type not ready yet
h CystckType_GetDict(h type) : hand ~ PyType_GetDict       ; [h+1, e] the type's own namespace, the live dict `type.__dict__` is a read-only proxy of (stock: `type->tp_dict`); read it only: store with CystckObject_SetAttr on the type, which keeps the type's attribute cache right
int CystckObject_HasDescrGet(h o) : hand ~ -               ; is o a descriptor with __get__ (stock: `Py_TYPE(o)->tp_descr_get != NULL`), no error
int CystckObject_HasDescrSet(h o) : hand ~ -               ; is o a data descriptor, with __set__/__delete__ (stock: `Py_TYPE(o)->tp_descr_set != NULL`), no error
h CystckDescr_Get(h d, h? obj, h? type) : hand ~ -         ; [h+1, e] d.__get__(obj, type) through the slot (stock: `Py_TYPE(d)->tp_descr_get(d, obj, type)`): obj null when looked up on the class, type null when not known; AttributeError, as `d.__get__` raises it, if d has no __get__
int CystckDescr_Set(h d, h obj, h? v) : hand ~ -           ; [e] d.__set__(obj, v), or d.__delete__(obj) for a null v, through the slot (stock: `Py_TYPE(d)->tp_descr_set(d, obj, v)`); AttributeError, as `d.__set__`/`d.__delete__` raise it, if d has no such slot

## Numbers
h CystckNumber_Add(h a, h b) = PyNumber_Add                ; [h+1, e] a + b
h CystckNumber_Subtract(h a, h b) = PyNumber_Subtract      ; [h+1, e] a - b
h CystckNumber_Multiply(h a, h b) = PyNumber_Multiply      ; [h+1, e] a * b
h CystckNumber_TrueDivide(h a, h b) = PyNumber_TrueDivide  ; [h+1, e] a / b
h CystckNumber_FloorDivide(h a, h b) = PyNumber_FloorDivide ; [h+1, e] a // b
h CystckNumber_Remainder(h a, h b) = PyNumber_Remainder    ; [h+1, e] a % b
h CystckNumber_Divmod(h a, h b) = PyNumber_Divmod          ; [h+1, e] divmod(a, b)
h CystckNumber_Power(h a, h b, h c) = PyNumber_Power       ; [h+1, e] pow(a, b, c)
h CystckNumber_Negative(h a) = PyNumber_Negative           ; [h+1, e] -a
h CystckNumber_Positive(h a) = PyNumber_Positive           ; [h+1, e] +a
h CystckNumber_Absolute(h a) = PyNumber_Absolute           ; [h+1, e] abs(a)
h CystckNumber_Invert(h a) = PyNumber_Invert               ; [h+1, e] ~a
h CystckNumber_Lshift(h a, h b) = PyNumber_Lshift          ; [h+1, e] a << b
h CystckNumber_Rshift(h a, h b) = PyNumber_Rshift          ; [h+1, e] a >> b
h CystckNumber_And(h a, h b) = PyNumber_And                ; [h+1, e] a & b
h CystckNumber_Or(h a, h b) = PyNumber_Or                  ; [h+1, e] a | b
h CystckNumber_Xor(h a, h b) = PyNumber_Xor                ; [h+1, e] a ^ b
h CystckNumber_MatrixMultiply(h a, h b) = PyNumber_MatrixMultiply ; [h+1, e] a @ b
h CystckNumber_InPlaceAdd(h a, h b) = PyNumber_InPlaceAdd  ; [h+1, e] a += b (the result; a itself if it changed in place)
h CystckNumber_InPlaceSubtract(h a, h b) = PyNumber_InPlaceSubtract ; [h+1, e] a -= b
h CystckNumber_InPlaceMultiply(h a, h b) = PyNumber_InPlaceMultiply ; [h+1, e] a *= b
h CystckNumber_InPlaceMatrixMultiply(h a, h b) = PyNumber_InPlaceMatrixMultiply ; [h+1, e] a @= b
h CystckNumber_InPlaceTrueDivide(h a, h b) = PyNumber_InPlaceTrueDivide ; [h+1, e] a /= b
h CystckNumber_InPlaceFloorDivide(h a, h b) = PyNumber_InPlaceFloorDivide ; [h+1, e] a //= b
h CystckNumber_InPlaceRemainder(h a, h b) = PyNumber_InPlaceRemainder ; [h+1, e] a %= b
h CystckNumber_InPlacePower(h a, h b, h c) = PyNumber_InPlacePower ; [h+1, e] a **= b (c: the modulus, None for none)
h CystckNumber_InPlaceLshift(h a, h b) = PyNumber_InPlaceLshift ; [h+1, e] a <<= b
h CystckNumber_InPlaceRshift(h a, h b) = PyNumber_InPlaceRshift ; [h+1, e] a >>= b
h CystckNumber_InPlaceAnd(h a, h b) = PyNumber_InPlaceAnd  ; [h+1, e] a &= b
h CystckNumber_InPlaceOr(h a, h b) = PyNumber_InPlaceOr    ; [h+1, e] a |= b
h CystckNumber_InPlaceXor(h a, h b) = PyNumber_InPlaceXor  ; [h+1, e] a ^= b
h CystckNumber_Long(h a) = PyNumber_Long                   ; [h+1, e] int(a)
h CystckNumber_Float(h a) = PyNumber_Float                 ; [h+1, e] float(a)
h CystckNumber_Index(h a) = PyNumber_Index                 ; [h+1, e] operator.index(a)
h CystckNumber_ToBase(h n, int base) = PyNumber_ToBase     ; [h+1, e] bin/oct/str/hex of an integer
int CystckNumber_Check(h o) = PyNumber_Check               ; supports numeric protocol
int CystckIndex_Check(h o) = PyIndex_Check                 ; supports __index__

## Long
h CystckLong_FromLong(long v) = PyLong_FromLong            ; [h+1, e] int(v)
h CystckLong_FromUnsignedLong(unsigned long v) = PyLong_FromUnsignedLong ; [h+1, e]
h CystckLong_FromLongLong(long long v) = PyLong_FromLongLong ; [h+1, e]
h CystckLong_FromUnsignedLongLong(unsigned long long v) = PyLong_FromUnsignedLongLong ; [h+1, e]
h CystckLong_FromSsize_t(Cystck_ssize_t v) = PyLong_FromSsize_t ; [h+1, e]
h CystckLong_FromSize_t(size_t v) = PyLong_FromSize_t      ; [h+1, e]
h CystckLong_FromDouble(double v) = PyLong_FromDouble      ; [h+1, e]
h CystckLong_FromString(const char* s, char** end, int base) = PyLong_FromString ; [h+1, e]
long CystckLong_AsLong(h o) = _Cystck_AsLong ~ PyLong_AsLong ; [e] -1 with exception on error
long CystckLong_AsLongAndOverflow(h o, int* overflow) = PyLong_AsLongAndOverflow ; [e]
unsigned long CystckLong_AsUnsignedLong(h o) = PyLong_AsUnsignedLong ; [e] (unsigned long)-1 on error
long long CystckLong_AsLongLong(h o) = PyLong_AsLongLong   ; [e]
long long CystckLong_AsLongLongAndOverflow(h o, int* overflow) = PyLong_AsLongLongAndOverflow ; [e]
unsigned long long CystckLong_AsUnsignedLongLong(h o) = PyLong_AsUnsignedLongLong ; [e]
unsigned long CystckLong_AsUnsignedLongMask(h o) = PyLong_AsUnsignedLongMask ; [e] o modulo 2**N (o's __index__ if not an int); (unsigned long)-1 with exception on error
unsigned long long CystckLong_AsUnsignedLongLongMask(h o) = PyLong_AsUnsignedLongLongMask ; [e] o modulo 2**N (o's __index__ if not an int); (unsigned long long)-1 with exception on error
Cystck_ssize_t CystckLong_AsSsize_t(h o) = PyLong_AsSsize_t ; [e]
size_t CystckLong_AsSize_t(h o) = PyLong_AsSize_t          ; [e]
size_t CystckLong_NumBits(h o) = _PyLong_NumBits [check=PyLong_Check] ; [e] the bits abs(o) needs (0 for 0): (size_t)-1 and OverflowError when that does not fit a size_t
double CystckLong_AsDouble(h o) = PyLong_AsDouble          ; [e]
int CystckLong_Check(h o) = PyLong_Check                   ; isinstance(o, int)
int CystckLong_CheckExact(h o) = PyLong_CheckExact         ; type(o) is int

## Float
h CystckFloat_FromDouble(double v) = PyFloat_FromDouble    ; [h+1, e] float(v)
h CystckComplex_FromDoubles(double real, double imag) = PyComplex_FromDoubles ; [h+1, e] complex(real, imag)
h CystckFloat_FromString(h s) = PyFloat_FromString         ; [h+1, e] float(s)
double CystckFloat_AsDouble(h o) = _Cystck_AsDouble ~ PyFloat_AsDouble ; [e] -1.0 with exception on error
double CystckFloat_AS_DOUBLE(h o) = PyFloat_AS_DOUBLE [macro] ; unchecked value of an exact float
int CystckFloat_Check(h o) = PyFloat_Check                 ; isinstance(o, float)
int CystckFloat_CheckExact(h o) = PyFloat_CheckExact       ; type(o) is float

## Bool
h CystckBool_FromLong(long v) = PyBool_FromLong            ; [h+1] True or False
int CystckBool_Check(h o) = PyBool_Check                   ; isinstance(o, bool)

## Unicode
h CystckUnicode_FromString(const char* utf8) = PyUnicode_FromString ; [h+1, e] str from UTF-8
h CystckUnicode_FromStringAndSize(const char* utf8, Cystck_ssize_t n) = _Cystck_FromStringAndSize ~ PyUnicode_FromStringAndSize ; [h+1, e]
h CystckUnicode_DecodeUTF8(const char* s, Cystck_ssize_t n, const char* errors) = _Cystck_DecodeUTF8 ~ PyUnicode_DecodeUTF8 ; [h+1, e]
h CystckUnicode_DecodeASCII(const char* s, Cystck_ssize_t n, const char* errors) = PyUnicode_DecodeASCII ; [h+1, e]
h CystckUnicode_DecodeLatin1(const char* s, Cystck_ssize_t n, const char* errors) = PyUnicode_DecodeLatin1 ; [h+1, e]
h CystckUnicode_FromKindAndData(int kind, const void* buf, Cystck_ssize_t n) = PyUnicode_FromKindAndData ; [h+1, e]
h CystckUnicode_FromFormat(const char* fmt, ...) : hand ~ PyUnicode_FromFormat ; [h+1, e] printf-style str; %S %R %A %U %V take handles (as PyUnicode_FromFormat takes objects)
h CystckUnicode_FromFormatV(const char* fmt, va_list va) : hand ~ PyUnicode_FromFormatV ; [h+1, e] CystckUnicode_FromFormat with the arguments of a variadic caller; %S %R %A %U %V take handles
h CystckUnicode_AsUTF8String(h o) = _Cystck_UnicodeAsUTF8String ~ PyUnicode_AsUTF8String ; [h+1, e] bytes
h CystckUnicode_AsASCIIString(h o) = PyUnicode_AsASCIIString ; [h+1, e] o.encode('ascii') (UnicodeEncodeError for a character past 127)
h CystckUnicode_AsEncodedString(h o, const char* enc, const char* errors) = _Cystck_UnicodeAsEncodedString ~ PyUnicode_AsEncodedString ; [h+1, e]
const char* CystckUnicode_AsUTF8(h o) = PyUnicode_AsUTF8   ; [e] UTF-8 buffer, valid while o lives
const char* CystckUnicode_AsUTF8AndSize(h o, Cystck_ssize_t* size) = PyUnicode_AsUTF8AndSize ; [e]
h CystckUnicode_InternFromString(const char* s) = PyUnicode_InternFromString ; [h+1, e]
h CystckUnicode_Concat(h a, h b) = PyUnicode_Concat        ; [h+1, e] a + b
h CystckUnicode_Join(h? sep, h seq) = PyUnicode_Join       ; [h+1, e] sep.join(seq); a null sep joins with a space, as CPython does
int CystckUnicode_CompareWithASCIIString(h o, const char* s) = PyUnicode_CompareWithASCIIString ; compare to ASCII C string
int CystckUnicode_Compare(h a, h b) = PyUnicode_Compare     ; [e] -1, 0, 1 as a < b, a == b, a > b (-1 with an exception if either is no str)
Cystck_ssize_t CystckUnicode_Tailmatch(h s, h sub, Cystck_ssize_t start, Cystck_ssize_t end, int direction) = PyUnicode_Tailmatch ; [e] 1 if s[start:end] starts (direction -1) or ends (1) with sub, else 0; -1 on error
Cystck_ssize_t CystckUnicode_GetLength(h o) = PyUnicode_GetLength ; [e] number of code points
int CystckUnicode_Check(h o) = PyUnicode_Check             ; isinstance(o, str)
int CystckUnicode_CheckExact(h o) = PyUnicode_CheckExact   ; type(o) is str
Cystck_ssize_t CystckUnicode_GET_LENGTH(h o) = PyUnicode_GET_LENGTH [macro] ; unchecked length
int CystckUnicode_KIND(h o) = PyUnicode_KIND [macro]       ; storage kind (1, 2, 4)
void* CystckUnicode_DATA(h o) = PyUnicode_DATA [macro]     ; raw code point storage
Py_UCS1* CystckUnicode_1BYTE_DATA(h o) = PyUnicode_1BYTE_DATA [macro] ; latin-1 storage of a 1-byte-kind str
int CystckUnicode_IS_ASCII(h o) = PyUnicode_IS_ASCII [macro] ; pure ASCII?
int CystckUnicode_IS_COMPACT_ASCII(h o) = PyUnicode_IS_COMPACT_ASCII [macro] ; compact ASCII?
int CystckUnicode_READY(h o) = PyUnicode_READY [macro]     ; legacy: always 0 on 3.12+
h CystckUnicode_Decode(const char* s, Cystck_ssize_t n, const char* encoding, const char* errors) = PyUnicode_Decode ; [h+1, e] str from n bytes of s in encoding (NULL: UTF-8)
Py_UCS4* CystckUnicode_AsUCS4(h o, Py_UCS4* buf, Cystck_ssize_t buflen, int copy_null) = PyUnicode_AsUCS4 [check=PyUnicode_Check] ; [e] copy o's code points into buf (buflen of them at most, then a NUL if copy_null); buf, or NULL with SystemError when it is too short or o is no str (where the stock function crashes)
Py_UCS4* CystckUnicode_AsUCS4Copy(h o) = PyUnicode_AsUCS4Copy [check=PyUnicode_Check] ; [e] o's code points in a new NUL-terminated buffer: CPython's memory, free it with PyMem_Free; SystemError for an object that is no str (where the stock function crashes)
h CystckUnicode_FromWideChar(const wchar_t* w, Cystck_ssize_t size) = PyUnicode_FromWideChar ; [h+1, e] str from size wchar_t units of w (size -1: up to the NUL)
Cystck_ssize_t CystckUnicode_AsWideChar(h o, wchar_t* w, Cystck_ssize_t size) = PyUnicode_AsWideChar ; [e] copy o into w, at most size wchar_t units (NUL-terminated if room); the number copied
wchar_t* CystckUnicode_AsWideCharString(h o, Cystck_ssize_t* size) = PyUnicode_AsWideCharString ; [e] o as a new NUL-terminated wchar_t string (its length in *size if size is not NULL): CPython's memory, free it with PyMem_Free
const char* CystckUnicode_GetDefaultEncoding() = PyUnicode_GetDefaultEncoding ; the default encoding's name, "utf-8"

## Bytes and bytearray
h CystckBytes_FromString(const char* s) = PyBytes_FromString ; [h+1, e]
h CystckBytes_FromStringAndSize(const char* s, Cystck_ssize_t n) = PyBytes_FromStringAndSize ; [h+1, e]
int CystckBytes_Resize(Cystck_Object* b, Cystck_ssize_t n) : hand ~ _PyBytes_Resize ; [e] *b becomes a bytes object of n bytes starting with *b's (a new object: the old handle is released); on error *b is the null handle, as the stock function leaves NULL
char* CystckBytes_AsString(h o) = PyBytes_AsString         ; [e] buffer, valid while o lives
int CystckBytes_AsStringAndSize(h o, char** s, Cystck_ssize_t* n) = PyBytes_AsStringAndSize ; [e]
Cystck_ssize_t CystckBytes_Size(h o) = PyBytes_Size        ; [e]
char* CystckBytes_AS_STRING(h o) = PyBytes_AS_STRING [macro] ; unchecked buffer
Cystck_ssize_t CystckBytes_GET_SIZE(h o) = PyBytes_GET_SIZE [macro] ; unchecked size
h CystckBytes_FromObject(h o) = PyBytes_FromObject ; [h+1, e] bytes(o) of an object with the buffer protocol (or an iterable of ints; TypeError for str and int)
int CystckBytes_Check(h o) = PyBytes_Check                 ; isinstance(o, bytes)
int CystckBytes_CheckExact(h o) = PyBytes_CheckExact       ; type(o) is bytes
h CystckByteArray_FromStringAndSize(const char* s, Cystck_ssize_t n) = PyByteArray_FromStringAndSize ; [h+1, e]
char* CystckByteArray_AsString(h o) = PyByteArray_AsString ; [e]
Cystck_ssize_t CystckByteArray_Size(h o) = PyByteArray_Size ; [e]
char* CystckByteArray_AS_STRING(h o) = PyByteArray_AS_STRING [macro] ; unchecked buffer (o must be a bytearray)
Cystck_ssize_t CystckByteArray_GET_SIZE(h o) = PyByteArray_GET_SIZE [macro] ; unchecked size (o must be a bytearray)
int CystckByteArray_Resize(h o, Cystck_ssize_t n) = PyByteArray_Resize [check=PyByteArray_Check] ; [e] resize bytearray o in place to n bytes (0, or -1 with an exception set: BufferError while its buffer is exported; SystemError for an object that is no bytearray, where the stock function is undefined)
int CystckByteArray_Check(h o) = PyByteArray_Check         ; isinstance(o, bytearray)
int CystckByteArray_CheckExact(h o) = PyByteArray_CheckExact ; type(o) is bytearray
h CystckByteArray_FromObject(h o) = PyByteArray_FromObject ; [h+1, e] bytearray(o)

## Sequence
Cystck_ssize_t CystckSequence_Size(h o) = PySequence_Size  ; [e] len(o)
Cystck_ssize_t CystckSequence_Length(h o) = PySequence_Length ; [e] len(o)
h CystckSequence_GetItem(h o, Cystck_ssize_t i) = PySequence_GetItem ; [h+1, e] o[i]
int CystckSequence_SetItem(h o, Cystck_ssize_t i, h v) = PySequence_SetItem ; [e] o[i] = v
h CystckSequence_GetSlice(h o, Cystck_ssize_t i, Cystck_ssize_t j) = PySequence_GetSlice ; [h+1, e] o[i:j]
int CystckSequence_Contains(h o, h v) = PySequence_Contains ; [e] v in o
h CystckSequence_Concat(h a, h b) = PySequence_Concat      ; [h+1, e] a + b for sequences
h CystckSequence_Tuple(h o) = PySequence_Tuple             ; [h+1, e] tuple(o)
h CystckSequence_List(h o) = PySequence_List               ; [h+1, e] list(o)
h CystckSequence_Fast(h o, const char* msg) = PySequence_Fast ; [h+1, e] o as a list or tuple
Cystck_ssize_t CystckSequence_Fast_GET_SIZE(h o) = PySequence_Fast_GET_SIZE [macro] ; len of a PySequence_Fast result
h CystckSequence_Fast_GET_ITEM(h o, Cystck_ssize_t i) = PySequence_Fast_GET_ITEM [borrowed macro] ; [h+1] item i of a PySequence_Fast result
int CystckSequence_Check(h o) = PySequence_Check           ; supports the sequence protocol

## Mapping
Cystck_ssize_t CystckMapping_Size(h o) = PyMapping_Size    ; [e] len(o)
h CystckMapping_Keys(h o) = PyMapping_Keys                 ; [h+1, e] list(o.keys())
h CystckMapping_Values(h o) = PyMapping_Values             ; [h+1, e]
h CystckMapping_Items(h o) = PyMapping_Items               ; [h+1, e]
h CystckMapping_GetItemString(h o, const char* key) = PyMapping_GetItemString ; [h+1, e] o[key]
int CystckMapping_HasKey(h o, h key) = PyMapping_HasKey    ; key in o, no error
int CystckMapping_Check(h o) = PyMapping_Check             ; supports the mapping protocol

## Iterator
h CystckIter_Next(h it) = PyIter_Next [noerr check=_Cystck_HasIterNext] ; [h+1] next(it); null with no exception at the end
int CystckIter_Check(h o) = PyIter_Check                   ; is an iterator

## List
h CystckList_New(Cystck_ssize_t n) = PyList_New            ; [h+1, e] a list of n empty slots
h CystckList_GetItem(h l, Cystck_ssize_t i) = PyList_GetItem [borrowed] ; [h+1, e] l[i]
h CystckList_GET_ITEM(h l, Cystck_ssize_t i) = PyList_GET_ITEM [borrowed macro] ; [h+1] l[i], unchecked index
h CystckList_GetItemInto(h l, Cystck_ssize_t i, Cystck_Object* into) : hand ~ PyList_GET_ITEM ; [h+1 once] l[i], unchecked index, into *into's slot (Cystck_NULL at first, reused after): `item = l[i]` in a loop holds one handle, no drops
int CystckList_SetItem(h l, Cystck_ssize_t i, h! v) = PyList_SetItem ; [c v, e] l[i] = v
void CystckList_SET_ITEM(h l, Cystck_ssize_t i, h! v) = PyList_SET_ITEM [macro] ; [c v] fill slot i of a new list
int CystckList_Append(h l, h v) = PyList_Append            ; [e] l.append(v)
int CystckList_Insert(h l, Cystck_ssize_t i, h v) = PyList_Insert ; [e] l.insert(i, v)
Cystck_ssize_t CystckList_Size(h l) = PyList_Size          ; [e] len(l)
Cystck_ssize_t CystckList_GET_SIZE(h l) = PyList_GET_SIZE [macro] ; len(l), unchecked
h CystckList_GetSlice(h l, Cystck_ssize_t i, Cystck_ssize_t j) = PyList_GetSlice ; [h+1, e] l[i:j]
int CystckList_Sort(h l) = PyList_Sort                     ; [e] l.sort()
int CystckList_Reverse(h l) = PyList_Reverse               ; [e] l.reverse()
h CystckList_AsTuple(h l) = PyList_AsTuple                 ; [h+1, e] tuple(l)
long CystckList_GetItemAsLong(h l, Cystck_ssize_t i) : hand ~ - ; [e] int(l[i]) as a C long, no handle made (hot loops)
double CystckList_GetItemAsDouble(h l, Cystck_ssize_t i) : hand ~ - ; [e] float(l[i]) as a C double, no handle made
int CystckList_Check(h o) = PyList_Check                   ; isinstance(o, list)
int CystckList_CheckExact(h o) = PyList_CheckExact         ; type(o) is list

## Tuple
h CystckTuple_New(Cystck_ssize_t n) = PyTuple_New          ; [h+1, e] a tuple of n empty slots, to fill
h CystckTuple_GetItem(h t, Cystck_ssize_t i) = PyTuple_GetItem [borrowed] ; [h+1, e] t[i]
h CystckTuple_GET_ITEM(h t, Cystck_ssize_t i) = PyTuple_GET_ITEM [borrowed macro] ; [h+1] t[i], unchecked index
h CystckTuple_GetItemInto(h t, Cystck_ssize_t i, Cystck_Object* into) : hand ~ PyTuple_GET_ITEM ; [h+1 once] t[i], unchecked index, into *into's slot (as CystckList_GetItemInto)
int CystckTuple_SetItem(h t, Cystck_ssize_t i, h! v) = PyTuple_SetItem ; [c v, e] fill slot i of a new tuple
void CystckTuple_SET_ITEM(h t, Cystck_ssize_t i, h! v) = PyTuple_SET_ITEM [macro] ; [c v] fill slot i, unchecked
Cystck_ssize_t CystckTuple_Size(h t) = PyTuple_Size        ; [e] len(t)
Cystck_ssize_t CystckTuple_GET_SIZE(h t) = PyTuple_GET_SIZE [macro] ; len(t), unchecked
h CystckTuple_GetSlice(h t, Cystck_ssize_t i, Cystck_ssize_t j) = PyTuple_GetSlice ; [h+1, e] t[i:j]
h CystckTuple_Pack(Cystck_ssize_t n, ...) : hand ~ PyTuple_Pack ; [h+1, e] a tuple of n handles
h CystckTuple_FromArray(const Cystck_Object* items, Cystck_ssize_t n) : hand ~ - ; [h+1, e] a tuple of n handles
long CystckTuple_GetItemAsLong(h t, Cystck_ssize_t i) : hand ~ - ; [e] int(t[i]) as a C long, no handle made
double CystckTuple_GetItemAsDouble(h t, Cystck_ssize_t i) : hand ~ - ; [e] float(t[i]) as a C double, no handle made
long CystckSequence_Fast_GetItemAsLong(h seq, Cystck_ssize_t i) : hand ~ - ; [e] int(seq[i]) for a CystckSequence_Fast result, no handle made
double CystckSequence_Fast_GetItemAsDouble(h seq, Cystck_ssize_t i) : hand ~ - ; [e] float(seq[i]) for a CystckSequence_Fast result, no handle made
int CystckTuple_Check(h o) = PyTuple_Check                 ; isinstance(o, tuple)
int CystckTuple_CheckExact(h o) = PyTuple_CheckExact       ; type(o) is tuple

## Struct sequences (the type stays a stock PyTypeObject, filled by PyStructSequence_InitType2: lent through the escape hatch)
h CystckStructSequence_GetItem(h p, Cystck_ssize_t i) = PyStructSequence_GetItem [borrowed] ; [h+1] item i of a struct sequence (a tuple's), unchecked index
h CystckStructSequence_GET_ITEM(h p, Cystck_ssize_t i) = PyStructSequence_GET_ITEM [borrowed macro] ; [h+1] item i of a struct sequence, unchecked index
void CystckStructSequence_SetItem(h p, Cystck_ssize_t i, h! v) = PyStructSequence_SetItem ; [c v] fill item i of a new struct sequence, unchecked
void CystckStructSequence_SET_ITEM(h p, Cystck_ssize_t i, h! v) = PyStructSequence_SET_ITEM [macro] ; [c v] fill item i of a new struct sequence, unchecked

## Dict
h CystckDict_New() = PyDict_New                            ; [h+1, e] {}
h CystckDict_GetItem(h d, h key) = PyDict_GetItem [borrowed noerr] ; [h+1] d[key], or null with no exception
h CystckDict_GetItemWithError(h d, h key) = PyDict_GetItemWithError [borrowed noerr] ; [h+1] d[key]; null: missing (no exception) or [e]
h CystckDict_GetItemString(h d, const char* key) = PyDict_GetItemString [borrowed noerr] ; [h+1] d[key] or null
int CystckDict_SetItem(h d, h key, h v) = PyDict_SetItem   ; [e] d[key] = v
int CystckDict_SetItemString(h d, const char* key, h v) = PyDict_SetItemString ; [e] d[key] = v
h CystckDict_SetDefault(h d, h key, h dflt) = PyDict_SetDefault [borrowed] ; [h+1, e] d.setdefault(key, dflt)
int CystckDict_DelItem(h d, h key) = PyDict_DelItem        ; [e] del d[key]
int CystckDict_DelItemString(h d, const char* key) = PyDict_DelItemString ; [e]
int CystckDict_Contains(h d, h key) = PyDict_Contains [check=PyDict_Check] ; [e] key in d
int CystckDict_GetItemRef(h d, h key, Cystck_Object* result) : hand ~ PyDict_GetItemRef ; [h+1, e] 1 and *result = d[key]; 0 and *result = null if key is missing; -1 (and null) on error
int CystckDict_Next(h d, Cystck_ssize_t* pos, Cystck_Object* key, Cystck_Object* value) : hand ~ PyDict_Next ; [h+2] next item as two new handles (drop them, or close a scope gate per item); 0 at the end, or at the handle limit with MemoryError set
int CystckDict_NextInto(h d, Cystck_ssize_t* pos, Cystck_Object* key, Cystck_Object* value) : hand ~ PyDict_Next ; [h+2 once] next item into the same two slots each time (*key, *value start as Cystck_NULL; released and nulled at the end): a dict loop stays flat, no drops; 0 also at the handle limit (MemoryError set)
h CystckDict_Keys(h d) = PyDict_Keys                       ; [h+1, e] list of keys
h CystckDict_Values(h d) = PyDict_Values                   ; [h+1, e] list of values
h CystckDict_Items(h d) = PyDict_Items                     ; [h+1, e] list of (key, value)
h CystckDict_Copy(h d) = PyDict_Copy                       ; [h+1, e] d.copy()
int CystckDict_Update(h d, h other) = PyDict_Update        ; [e] d.update(other)
int CystckDict_Merge(h d, h other, int override) = PyDict_Merge ; [e]
void CystckDict_Clear(h d) = PyDict_Clear                  ; d.clear()
Cystck_ssize_t CystckDict_Size(h d) = PyDict_Size          ; [e] len(d)
Cystck_ssize_t CystckDict_GET_SIZE(h d) = PyDict_GET_SIZE [macro] ; len(d), unchecked
int CystckDict_Check(h o) = PyDict_Check                   ; isinstance(o, dict)
int CystckDict_CheckExact(h o) = PyDict_CheckExact         ; type(o) is dict

## Set
h CystckSet_New(h? iterable) = PySet_New                   ; [h+1, e] set(iterable)
h CystckFrozenSet_New(h? iterable) = PyFrozenSet_New ; [h+1, e] frozenset(iterable)
int CystckSet_Add(h s, h key) = PySet_Add                  ; [e] s.add(key)
int CystckSet_Contains(h s, h key) = PySet_Contains        ; [e] key in s
Cystck_ssize_t CystckSet_Size(h s) = PySet_Size            ; [e] len(s)
Cystck_ssize_t CystckSet_GET_SIZE(h s) = PySet_GET_SIZE [macro] ; len(s), unchecked (s must be a set or frozenset)
int CystckSet_Discard(h s, h key) = PySet_Discard ; [e] remove key from set s: 1 if it was there, 0 if not, -1 with an exception (TypeError for an unhashable key, SystemError for no set)
int CystckAnySet_Check(h o) = PyAnySet_Check               ; set or frozenset
int CystckAnySet_CheckExact(h o) = PyAnySet_CheckExact ; type(o) is set or frozenset

## Slice
h CystckSlice_New(h? start, h? stop, h? step) = PySlice_New ; [h+1, e] slice(start, stop, step)
int CystckSlice_Check(h o) = PySlice_Check                 ; isinstance(o, slice)
int CystckSlice_Unpack(h s, Cystck_ssize_t* start, Cystck_ssize_t* stop, Cystck_ssize_t* step) = PySlice_Unpack [check=PySlice_Check] ; [e]

## Errors
void CystckErr_SetString(h type, const char* msg) = _Cystck_ErrSetString [raises] ~ PyErr_SetString ; raise type(msg), unless a handle-limit MemoryError is pending
void CystckErr_SetObject(h type, h? value) = _Cystck_ErrSetObject [raises] ~ PyErr_SetObject ; raise type(value), unless a handle-limit MemoryError is pending
void CystckErr_SetNone(h type) = _Cystck_ErrSetNone [raises] ~ PyErr_SetNone ; raise type, unless a handle-limit MemoryError is pending
h CystckErr_Format(h type, const char* fmt, ...) : hand ~ PyErr_Format ; raise type(fmt % ...) unless a handle-limit MemoryError is pending, %S %R %A %U %V taking handles; returns the null handle
int CystckErr_NoMemory() : hand ~ PyErr_NoMemory           ; raise MemoryError unless a handle-limit MemoryError is pending; returns -1
int CystckErr_BadArgument() : hand ~ PyErr_BadArgument     ; raise TypeError unless a handle-limit MemoryError is pending; returns -1
int CystckErr_Occurred() : hand ~ PyErr_Occurred           ; is an exception set?
int CystckErr_ExceptionMatches(h type) = PyErr_ExceptionMatches ; does the set exception match type
int CystckErr_GivenExceptionMatches(h given, h type) = PyErr_GivenExceptionMatches ; matches?
void CystckErr_Clear() = PyErr_Clear                       ; clear the exception
void CystckErr_WriteUnraisable(h? obj) = PyErr_WriteUnraisable ; report the set exception through sys.unraisablehook (obj: the context, or null) and clear it
h CystckErr_GetRaisedException() : hand ~ PyErr_GetRaisedException ; [h+1] take the set exception (null if none)
void CystckErr_SetRaisedException(h exc) : hand ~ PyErr_SetRaisedException ; re-raise a taken exception
void CystckErr_Fetch(Cystck_Object* type, Cystck_Object* value, Cystck_Object* traceback) : hand ~ PyErr_Fetch ; [h+3] take the set exception as three new handles, each null if absent (the value as PyErr_Fetch gives it: maybe not normalized)
void CystckErr_NormalizeException(Cystck_Object* type, Cystck_Object* value, Cystck_Object* traceback) : hand ~ PyErr_NormalizeException ; [h+3] normalize CystckErr_Fetch's three handles: each object the stock function replaces (the value made an instance of the type) gets a new handle, stored through its pointer
void CystckErr_Restore(h? type, h? value, h? traceback) : hand ~ PyErr_Restore ; set the exception to (type, value, traceback), a null type leaving a pending handle-limit MemoryError; unlike PyErr_Restore it steals nothing: the handles stay the caller's
h CystckErr_NewException(const char* name, h? base, h? dict) = PyErr_NewException ; [h+1, e] a new exception class
h CystckErr_NewExceptionWithDoc(const char* name, const char* doc, h? base, h? dict) = PyErr_NewExceptionWithDoc ; [h+1, e]
int CystckErr_WarnEx(h? category, const char* msg, Cystck_ssize_t level) = PyErr_WarnEx ; [e] warnings.warn
int CystckErr_CheckSignals() = PyErr_CheckSignals          ; [e] run signal handlers
h CystckErr_SetFromErrno(h type) = _Cystck_ErrSetFromErrno [raises] ~ PyErr_SetFromErrno ; raise type(errno, strerror), unless a handle-limit MemoryError is pending; returns null

## Import and modules
h CystckImport_ImportModule(const char* name) = PyImport_ImportModule ; [h+1, e] import name
h CystckImport_Import(h name) = PyImport_Import            ; [h+1, e] import name
h CystckModule_Create(CystckModuleDef* def) : hand ~ PyModule_Create ; [h+1, e] the module for def
void* CystckModule_GetState(h m) : hand ~ PyModule_GetState ; the module's state block
int CystckModule_AddObject(h m, const char* name, h v) = PyModule_AddObjectRef ~ PyModule_AddObject ; [e] m.name = v (v is not consumed, unlike the stock function)
int CystckModule_AddObjectRef(h m, const char* name, h v) = PyModule_AddObjectRef ; [e] m.name = v
int CystckModule_AddIntConstant(h m, const char* name, long v) = PyModule_AddIntConstant ; [e]
int CystckModule_AddStringConstant(h m, const char* name, const char* v) = PyModule_AddStringConstant ; [e]
int CystckModule_AddType(h m, h type) : hand ~ PyModule_AddType ; [e] m.<type name> = type
h CystckModule_GetDict(h m) = PyModule_GetDict [borrowed]  ; [h+1] the module's __dict__
h CystckModule_Find(CystckModuleDef* def) : hand ~ PyState_FindModule ; [h+1] the module created from def, or null (no exception)
void* CystckModule_FindState(CystckModuleDef* def) : hand ~ - ; [e] the state of the module created from def, no handle (PyModule_GetState(PyState_FindModule(...)))
PyModuleDef* Cystck_AsPyModuleDef(const CystckModuleDef* def) : hand ~ - [nostate] ; escape hatch: the PyModuleDef that CPython knows def by (what PyModule_GetDef gives for its modules), or NULL while no module is made from def
int CystckModule_HasDef(h m, const CystckModuleDef* def) : hand ~ - ; was module m made from def (stock: `PyModule_GetDef(m) == &def`)? no error: 0 for another module, and for an object that is not a module (TypeError set, as PyModule_GetDef)
const char* CystckModule_GetName(h m) = PyModule_GetName   ; [e]
int CystckModule_Check(h o) = PyModule_Check               ; is a module
int CystckCFunction_Check(h o) = PyCFunction_Check         ; is a builtin function or method (or a subclass's instance)
int CystckCFunction_IsDef(h f, const CystckDef* def) : hand ~ - ; was builtin function f made from the method definition def (stock: `PyCFunction_GetFunction(f) == impl`, impl def's implementation; f's C function is def's trampoline)? 0 for another function; for an object that is no builtin function, 0 with PyCFunction_GetFunction's SystemError set

## Arguments
int CystckArg_ParseTuple(const Cystck_Object* args, Cystck_ssize_t nargs, const char* fmt, ...) : hand ~ PyArg_ParseTuple ; [e] parse positional arguments; O gives handles
int CystckArg_ParseTupleObject(h t, const char* fmt, ...) : hand ~ - ; [e] PyArg_ParseTuple(t, fmt, ...) of a tuple object t that is no argument array (a helper given its caller's tuple, a format known at run time only): O gives handles of this call; SystemError for a t that is no tuple, as the stock function
int CystckArg_ParseTupleAndKeywordsObject(h t, h? kw, const char* fmt, const char** kwlist, ...) : hand ~ - ; [e] PyArg_ParseTupleAndKeywords(t, kw, fmt, kwlist, ...) of a tuple object t and a dict kw (or the null handle) that are no argument array (a helper given its caller's tuple and keywords): O gives handles of this call; SystemError for a t that is no tuple, as the stock function
int CystckArg_ParseTupleAndKeywords(const Cystck_Object* args, Cystck_ssize_t nargs, h? kw, const char* fmt, const char** kwlist, ...) : hand ~ PyArg_ParseTupleAndKeywords ; [e] parse positional and keyword arguments (with GCC and Clang a macro that keeps one parser per call site)
int CystckArg_UnpackTuple(const Cystck_Object* args, Cystck_ssize_t nargs, const char* name, Cystck_ssize_t min, Cystck_ssize_t max, ...) : hand ~ PyArg_UnpackTuple ; [e] bind min..max handles
h CystckArg_GetItem(const Cystck_Object* args, Cystck_ssize_t nargs, Cystck_ssize_t i) : hand ~ PyTuple_GetItem ; [e] args[i] (no new handle), or the null handle with IndexError("tuple index out of range") out of range: PyTuple_GetItem on a METH_VARARGS function's argument tuple
int CystckArg_NoKeywords(const char* name, h? kw) : hand ~ _PyArg_NoKeywords ; [e] reject keywords
int CystckArg_ValidateKeywordArguments(h kw) : hand ~ PyArg_ValidateKeywordArguments ; [e] 1 if every key of dict kw (a tp_init's or tp_new's keywords) is a str; else 0 with TypeError (0 too after an invalid handle: stock code tests it for truth)

## Weak references
h CystckWeakref_NewRef(h o, h? callback) = PyWeakref_NewRef ; [h+1, e] weakref.ref(o, callback)
h CystckWeakref_GetObject(h ref) = PyWeakref_GetObject [borrowed] ; [h+1, e] the referent or None

## Raw memory (no policies; the stock allocators)
void* CystckObject_Malloc(size_t n) = PyObject_Malloc       ; pymalloc block; NULL when out of memory
void* CystckObject_Realloc(void* p, size_t n) = PyObject_Realloc ; resize a pymalloc block
void CystckObject_Free(void* p) = PyObject_Free             ; free a pymalloc block
void* CystckMem_RawMalloc(size_t n) = PyMem_RawMalloc       ; malloc without the GIL
void CystckMem_RawFree(void* p) = PyMem_RawFree             ; free a RawMalloc block

## Native memory with lifetime policies
void* CystckMem_Malloc(size_t size) : hand ~ PyMem_Malloc  ; [e] a native block with an explicit-free policy
void* CystckMem_Calloc(size_t n, size_t size) : hand ~ PyMem_Calloc ; [e] zeroed block
void* CystckMem_Realloc(void* p, size_t size) : hand ~ PyMem_Realloc ; [e] resize a block with no Python owner yet
void CystckMem_Free(void* p) : hand ~ PyMem_Free           ; drop the explicit-free policy; freed when no policy remains
h CystckMem_AsMemoryView(void* p, Cystck_ssize_t size, int readonly) : hand ~ PyMemoryView_FromMemory ; [h+1, e] expose the block; adds a refcount policy tied to the view
int CystckMem_SetFinalizer(void* p, CystckMem_Finalizer fin) : hand ~ - ; run fin(p) just before the block is released
int CystckMem_Policies(void* p) : hand ~ -                 ; policies attached (bit 1: explicit-free, bit 2: refcount)

## Buffers and capsules
h CystckMemoryView_FromObject(h o) = PyMemoryView_FromObject ; [h+1, e] memoryview(o)
int CystckObject_GetBuffer(h o, Py_buffer* view, int flags) = PyObject_GetBuffer ; [e] buffer protocol
void CystckBuffer_Release(Py_buffer* view) = PyBuffer_Release ; release a buffer view
int CystckObject_CheckBuffer(h o) = PyObject_CheckBuffer   ; supports the buffer protocol
int CystckBuffer_IsContiguous(const Py_buffer* view, char order) = PyBuffer_IsContiguous ; is the view's memory contiguous in order 'C' (row-major), 'F' (column-major) or 'A' (either); 0 for another order
h CystckCapsule_New(void* p, const char* name, PyCapsule_Destructor d) = PyCapsule_New ; [h+1, e]
void* CystckCapsule_GetPointer(h c, const char* name) = PyCapsule_GetPointer ; [e]

## Multi-phase module initialization (PEP 489)
h CystckModuleDef_Init(CystckModuleDef* def) : hand ~ PyModuleDef_Init ; [h+1, e] the definition as an object: what the init function of a multi-phase module returns (see CYSTCK_DEF_MOD_EXEC)
h CystckModule_NewObject(h name) = PyModule_NewObject      ; [h+1, e] an empty module named name (for a create slot)
h CystckModule_GetNameObject(h m) = PyModule_GetNameObject ; [h+1, e] m.__name__
h CystckType_FromModuleAndSpec(h module, CystckType_Spec* spec, h? bases) : hand ~ PyType_FromModuleAndSpec ; [h+1, e] a new heap type made for module (PEP 573)
h CystckType_GetModuleByDef(h type, CystckModuleDef* def) : hand ~ PyType_GetModuleByDef ; [h+1, e] the module made from def that type, or the first base in its MRO made from def, was made for
h CystckType_GetModule(h type) : hand ~ PyType_GetModule   ; [h+1, e] the module type was made for
void* CystckType_GetModuleState(h type) : hand ~ PyType_GetModuleState ; [e] the state of the module type was made for

## Method binding (METH_CLASS, METH_STATIC, METH_COEXIST: see CYSTCK_DEF_METH_FLAGS)
h CystckClassMethod_New(h f) = PyClassMethod_New           ; [h+1, e] classmethod(f)
h CystckStaticMethod_New(h f) = PyStaticMethod_New         ; [h+1, e] staticmethod(f)
h Cystck_GenericAlias(h origin, h args) = Py_GenericAlias  ; [h+1, e] types.GenericAlias(origin, args), what __class_getitem__ returns (PEP 585)

## Unicode: code points and in-place building
h CystckUnicode_New(Cystck_ssize_t size, Py_UCS4 maxchar) = PyUnicode_New ; [h+1, e] a str of size code points up to maxchar, to fill through its KIND and DATA before it is shared
Py_UCS2* CystckUnicode_2BYTE_DATA(h o) = PyUnicode_2BYTE_DATA [macro] ; UCS-2 storage of a 2-byte-kind str
Py_UCS4* CystckUnicode_4BYTE_DATA(h o) = PyUnicode_4BYTE_DATA [macro] ; UCS-4 storage of a 4-byte-kind str
Py_UCS4 CystckUnicode_READ_CHAR(h o, Cystck_ssize_t i) = PyUnicode_READ_CHAR [macro] ; o[i] as a code point, unchecked index
Py_UCS4 CystckUnicode_MAX_CHAR_VALUE(h o) = PyUnicode_MAX_CHAR_VALUE [macro] ; the largest code point o's kind holds
Py_UCS4 CystckUnicode_ReadChar(h o, Cystck_ssize_t i) = PyUnicode_ReadChar ; [e] o[i] as a code point
int CystckUnicode_WriteChar(h o, Cystck_ssize_t i, Py_UCS4 c) = PyUnicode_WriteChar ; [e] o[i] = c in a str not shared yet
h CystckUnicode_Substring(h o, Cystck_ssize_t start, Cystck_ssize_t end) = PyUnicode_Substring ; [h+1, e] o[start:end]
h CystckUnicode_FromOrdinal(int c) = PyUnicode_FromOrdinal ; [h+1, e] chr(c)
h CystckUnicode_FromEncodedObject(h o, const char* encoding, const char* errors) = PyUnicode_FromEncodedObject ; [h+1, e] str(o, encoding, errors) of a bytes-like object (NULL encoding: UTF-8)
Cystck_ssize_t CystckUnicode_FindChar(h o, Py_UCS4 c, Cystck_ssize_t start, Cystck_ssize_t end, int direction) = PyUnicode_FindChar ; [e] index of c in o[start:end] (-1: none, -2: error)
int CystckUnicode_FSConverter(h? o, void* result) : hand ~ PyUnicode_FSConverter ; [h+1, e] *result (a Cystck_Object *) = a new handle to os.fsencode(o), bytes; the stock value (Py_CLEANUP_SUPPORTED), 0 with an exception; a null o releases *result (the cleanup call); an O& converter too
int CystckUnicode_FSDecoder(h? o, void* result) : hand ~ PyUnicode_FSDecoder ; [h+1, e] *result (a Cystck_Object *) = a new handle to os.fsdecode(o), a str; the stock value (Py_CLEANUP_SUPPORTED), 0 with an exception; a null o releases *result (the cleanup call); an O& converter too

## Frames for C code that Python did not call (see docs/runtime.md, "Releasing the GIL")
void Cystck_OpenFrame() : hand ~ -                         ; open a frame in S (a Cystck_State of the caller's, e.g. in a callback run on a C library's thread after PyGILState_Ensure)
int Cystck_CloseFrame() : hand ~ -                         ; [e] release every handle of S's frame; -1 if values were left on its return stack
## Unicode writer (hand-written: cystck/src/unicode.c)
int CystckUnicodeWriter_Init(CystckUnicodeWriter* w) : hand ~ _PyUnicodeWriter_Init ; [h+1, e] start building a str in w; the str is held by a handle of the frame (nothing leaks if the writer is abandoned)
int CystckUnicodeWriter_WriteChar(CystckUnicodeWriter* w, Py_UCS4 c) : hand ~ _PyUnicodeWriter_WriteChar ; [e] append code point c (widens the str's kind only when c needs it)
int CystckUnicodeWriter_WriteStr(CystckUnicodeWriter* w, h s) : hand ~ _PyUnicodeWriter_WriteStr ; [e] append str s
int CystckUnicodeWriter_WriteSubstring(CystckUnicodeWriter* w, h s, Cystck_ssize_t start, Cystck_ssize_t end) : hand ~ _PyUnicodeWriter_WriteSubstring ; [e] append s[start:end]
int CystckUnicodeWriter_WriteASCIIString(CystckUnicodeWriter* w, const char* s, Cystck_ssize_t n) : hand ~ _PyUnicodeWriter_WriteASCIIString ; [e] append n ASCII bytes (n = -1: up to the NUL); ValueError for a byte past 0x7F
int CystckUnicodeWriter_WriteUTF8(CystckUnicodeWriter* w, const char* s, Cystck_ssize_t n) : hand ~ - ; [e] append n bytes of UTF-8 (n = -1: up to the NUL): ASCII straight into the str, other UTF-8 decoded into a temporary str, then copied (CystckBytesWriter_InitStr writes UTF-8 in place)
h CystckUnicodeWriter_Finish(CystckUnicodeWriter* w) : hand ~ _PyUnicodeWriter_Finish ; [e] the str built: w's own handle, cut to length (no copy); w is finished
void CystckUnicodeWriter_Dealloc(CystckUnicodeWriter* w) : hand ~ _PyUnicodeWriter_Dealloc ; [h-1] drop the str early (else the frame releases it)
## Pointer str writer (hand-written: cystck/src/unicode.c; CPython 3.14's PyUnicodeWriter)
CystckStrWriter* CystckStrWriter_Create(Cystck_ssize_t length) : hand ~ PyUnicodeWriter_Create ; [e] a writer of its own (the str is held by the writer, not by the frame: it may be finished in another call), room for length code points; ValueError for a negative length; end it with Finish or Discard
int CystckStrWriter_WriteChar(CystckStrWriter* w, Py_UCS4 c) : hand ~ PyUnicodeWriter_WriteChar ; [e] append code point c; ValueError past U+10FFFF
int CystckStrWriter_WriteStr(CystckStrWriter* w, h o) : hand ~ PyUnicodeWriter_WriteStr ; [e] append str(o)
int CystckStrWriter_WriteRepr(CystckStrWriter* w, h? o) : hand ~ PyUnicodeWriter_WriteRepr ; [e] append repr(o) ("<NULL>" for the null handle)
int CystckStrWriter_WriteSubstring(CystckStrWriter* w, h s, Cystck_ssize_t start, Cystck_ssize_t end) : hand ~ PyUnicodeWriter_WriteSubstring ; [e] append s[start:end]; ValueError unless 0 <= start <= end <= len(s)
int CystckStrWriter_WriteUTF8(CystckStrWriter* w, const char* s, Cystck_ssize_t n) : hand ~ PyUnicodeWriter_WriteUTF8 ; [e] append n bytes of UTF-8 (n = -1: up to the NUL)
int CystckStrWriter_WriteASCII(CystckStrWriter* w, const char* s, Cystck_ssize_t n) : hand ~ PyUnicodeWriter_WriteASCII ; [e] append n ASCII bytes (n = -1: up to the NUL); ValueError for a byte past 0x7F
int CystckStrWriter_WriteUCS4(CystckStrWriter* w, const Py_UCS4* s, Cystck_ssize_t n) : hand ~ PyUnicodeWriter_WriteUCS4 ; [e] append n code points; ValueError for a negative n or a code point past U+10FFFF
int CystckStrWriter_WriteWideChar(CystckStrWriter* w, const wchar_t* s, Cystck_ssize_t n) : hand ~ PyUnicodeWriter_WriteWideChar ; [e] append n wide characters (n = -1: up to the NUL)
h CystckStrWriter_Finish(CystckStrWriter* w) : hand ~ PyUnicodeWriter_Finish ; [h+1, e] the str built, cut to length (no copy), with a handle of the calling frame; frees w (also on error)
void CystckStrWriter_Discard(CystckStrWriter* w) : hand ~ PyUnicodeWriter_Discard ; free w and its str (w NULL: nothing)
## Bytes writer (hand-written: cystck/src/byteswriter.c; like CPython 3.15's PyBytesWriter)
char* CystckBytesWriter_Init(CystckBytesWriter* w, char* buf, Cystck_ssize_t size) : hand ~ - ; [h+1, e] start building a bytes in w, in the caller's buffer buf of size bytes (moved into the bytes at the first Grow) or, buf NULL, in the storage of a bytes of size bytes held by a handle of the frame; the start of the storage (NULL on error)
char* CystckBytesWriter_InitStr(CystckBytesWriter* w, char* buf, Cystck_ssize_t size, const char* errors) : hand ~ - ; [h+1, e] the same for a str of UTF-8 bytes: its storage is a compact ASCII str's, the result itself when every byte is ASCII; errors: the UTF-8 error handler otherwise (NULL: strict)
char* CystckBytesWriter_Grow(CystckBytesWriter* w, char* p, Cystck_ssize_t n) : hand ~ - ; [e] room for n bytes from the write position p: the storage at least doubles, by realloc of the object (the first Grow from the caller's buffer creates it [h+1] and copies the bytes written so far, once); p moved into the grown storage (NULL on error, after which w is unusable)
char* CystckBytesWriter_End(const CystckBytesWriter* w) : hand ~ - [nostate] ; the end of the storage: End(w) - p bytes fit without Grow
h CystckBytesWriter_Finish(CystckBytesWriter* w, char* p) : hand ~ - ; [e] the bytes or str of the bytes before p: w's own handle, cut to length by realloc (no copy), except a str of non-ASCII bytes, decoded into a new str, and bytes still in the caller's buffer, copied into a new object; w is finished
void CystckBytesWriter_Discard(CystckBytesWriter* w) : hand ~ - ; [h-1] drop the object early (else the frame releases it)
## Slices and slicing
int CystckSlice_GetIndicesEx(h s, Cystck_ssize_t length, Cystck_ssize_t* start, Cystck_ssize_t* stop, Cystck_ssize_t* step, Cystck_ssize_t* slicelength) = PySlice_GetIndicesEx [check=PySlice_Check] ; [e] s.indices(length) and the slice's length
Cystck_ssize_t CystckSlice_AdjustIndices(Cystck_ssize_t length, Cystck_ssize_t* start, Cystck_ssize_t* stop, Cystck_ssize_t step) = PySlice_AdjustIndices ; clip what CystckSlice_Unpack gave to a sequence of length; the slice's length
int CystckList_SetSlice(h l, Cystck_ssize_t lo, Cystck_ssize_t hi, h? v) = PyList_SetSlice ; [e] l[lo:hi] = v (null v deletes)
int CystckSequence_SetSlice(h o, Cystck_ssize_t i, Cystck_ssize_t j, h v) = PySequence_SetSlice ; [e] o[i:j] = v
int CystckSequence_DelSlice(h o, Cystck_ssize_t i, Cystck_ssize_t j) = PySequence_DelSlice ; [e] del o[i:j]
int CystckSequence_DelItem(h o, Cystck_ssize_t i) = PySequence_DelItem ; [e] del o[i]
Cystck_ssize_t CystckNumber_AsSsize_t(h o, h? exc) = PyNumber_AsSsize_t ; [e] operator.index(o) as a Py_ssize_t; out of range: raise exc, or clip if exc is null

## Integers as byte arrays
h CystckLong_FromByteArray(const unsigned char* bytes, size_t n, int little_endian, int is_signed) = _PyLong_FromByteArray ; [h+1, e] int.from_bytes(bytes[:n], ...)
int CystckLong_AsByteArray(h o, unsigned char* bytes, size_t n, int little_endian, int is_signed) = _Cystck_LongAsByteArray [check=PyLong_Check] ~ _PyLong_AsByteArray ; [e] o.to_bytes(n, ...) into bytes; OverflowError if it does not fit

## Capsules
int CystckCapsule_IsValid(h c, const char* name) = PyCapsule_IsValid ; is c a capsule named name with a pointer (no error either way)
const char* CystckCapsule_GetName(h c) = PyCapsule_GetName ; [e] the capsule's name (NULL is also a valid name: check CystckErr_Occurred)
void* CystckCapsule_GetContext(h c) = PyCapsule_GetContext ; [e] the capsule's context (NULL is also a valid context)
int CystckCapsule_SetPointer(h c, void* p) = PyCapsule_SetPointer ; [e]
int CystckCapsule_SetName(h c, const char* name) = PyCapsule_SetName ; [e]
int CystckCapsule_SetContext(h c, void* context) = PyCapsule_SetContext ; [e]
int CystckCapsule_SetDestructor(h c, PyCapsule_Destructor d) = PyCapsule_SetDestructor ; [e]
void* CystckCapsule_Import(const char* name, int no_block) = PyCapsule_Import ; [e] the pointer of the capsule at module.attribute name
int CystckCapsule_CheckExact(h o) = PyCapsule_CheckExact   ; is a capsule

## Weak references to instances (see CYSTCK_DEF_WEAKLIST)
h CystckWeakref_NewProxy(h o, h? callback) = PyWeakref_NewProxy ; [h+1, e] weakref.proxy(o, callback)
int CystckWeakref_Check(h o) = PyWeakref_Check             ; a weak reference or proxy

## Dates and times (hand-written: cystck/src/datetime.c; datetime's C API, imported at the first call)
int CystckDate_Check(h o) : hand ~ PyDate_Check ; [e] isinstance(o, datetime.date) (a datetime is a date)
int CystckDateTime_Check(h o) : hand ~ PyDateTime_Check ; [e] isinstance(o, datetime.datetime)
int CystckTime_Check(h o) : hand ~ PyTime_Check ; [e] isinstance(o, datetime.time)
int CystckDateTime_GET_YEAR(h o) : hand ~ PyDateTime_GET_YEAR ; [e] the year of a date or datetime (TypeError for another object, where the stock macro reads any)
int CystckDateTime_GET_MONTH(h o) : hand ~ PyDateTime_GET_MONTH ; [e] the month of a date or datetime (TypeError for another object, where the stock macro reads any)
int CystckDateTime_GET_DAY(h o) : hand ~ PyDateTime_GET_DAY ; [e] the day of a date or datetime (TypeError for another object, where the stock macro reads any)
int CystckDateTime_DATE_GET_HOUR(h o) : hand ~ PyDateTime_DATE_GET_HOUR ; [e] the hour of a datetime (TypeError for another object, where the stock macro reads any)
int CystckDateTime_DATE_GET_MINUTE(h o) : hand ~ PyDateTime_DATE_GET_MINUTE ; [e] the minute of a datetime (TypeError for another object, where the stock macro reads any)
int CystckDateTime_DATE_GET_SECOND(h o) : hand ~ PyDateTime_DATE_GET_SECOND ; [e] the second of a datetime (TypeError for another object, where the stock macro reads any)
int CystckDateTime_DATE_GET_MICROSECOND(h o) : hand ~ PyDateTime_DATE_GET_MICROSECOND ; [e] the microsecond of a datetime (TypeError for another object, where the stock macro reads any)
int CystckDateTime_TIME_GET_HOUR(h o) : hand ~ PyDateTime_TIME_GET_HOUR ; [e] the hour of a time (TypeError for another object, where the stock macro reads any)
int CystckDateTime_TIME_GET_MINUTE(h o) : hand ~ PyDateTime_TIME_GET_MINUTE ; [e] the minute of a time (TypeError for another object, where the stock macro reads any)
int CystckDateTime_TIME_GET_SECOND(h o) : hand ~ PyDateTime_TIME_GET_SECOND ; [e] the second of a time (TypeError for another object, where the stock macro reads any)
int CystckDateTime_TIME_GET_MICROSECOND(h o) : hand ~ PyDateTime_TIME_GET_MICROSECOND ; [e] the microsecond of a time (TypeError for another object, where the stock macro reads any)
h CystckDate_FromDate(int year, int month, int day) : hand ~ PyDate_FromDate ; [h+1, e] datetime.date(year, month, day)
h CystckDateTime_FromDateAndTime(int year, int month, int day, int hour, int minute, int second, int usecond) : hand ~ PyDateTime_FromDateAndTime ; [h+1, e] a naive datetime.datetime
h CystckTime_FromTime(int hour, int minute, int second, int usecond) : hand ~ PyTime_FromTime ; [h+1, e] a naive datetime.time
h CystckDelta_FromDSU(int days, int seconds, int useconds) : hand ~ PyDelta_FromDSU ; [h+1, e] datetime.timedelta(days, seconds, microseconds), normalized (OverflowError out of range)

## Handles and the return stack (hand-written, see Cystck.h)
h Cystck_FromNewPyObject(PyObject* o) : hand ~ -           ; [h+1] escape hatch: a handle that takes over a new reference (null o: the null handle)
Cystck_ssize_t Cystck_StackSize() : hand ~ -               ; entries on the return stack
Cystck_ssize_t Cystck_HandleLimit() : hand ~ - [nostate]   ; live handles a call may hold (CYSTCK_HANDLE_LIMIT)

## Fields: Python values in native structs
h CystckField_Load(h owner, Cystck_Field f) : hand ~ -     ; [h+1] the value of field f of owner, or the null handle (no exception) when empty
void CystckField_Store(h owner, Cystck_Field* f, h? v) : hand ~ - ; store v in field *f of owner (Cystck_NULL empties it); the old value is released
int CystckField_IsNull(Cystck_Field f) : hand ~ - [nostate] ; is the field empty

## Buffers exported by types and typed native blocks
int CystckBuffer_FillInfo(Py_buffer* view, h? o, void* buf, Cystck_ssize_t len, int readonly, int flags) = PyBuffer_FillInfo ; [e] fill view with len bytes at buf, exported by o (for a bf_getbuffer slot)
h CystckMem_AsTypedMemoryView(void* p, const char* format, Cystck_ssize_t itemsize, Cystck_ssize_t n, int readonly) : hand ~ - ; [h+1, e] n items of block p as a memoryview of struct format `format` ("d": doubles); adds a refcount policy tied to the view
"""


# ---------------------------------------------------------------------------
# Everything else the header makes public: constants, types, the definition
# macros and the signatures of the functions they take, member types,
# configuration.  The API reference is generated from this table too, and
# tests/runtime/test_apitable.py checks it against the headers both ways
# (a name in one must be in the other) and compiles every signature in it.
#
# Each line is ``KIND NAME [(PARAMS)] [~ STOCK] [: SIGNATURE] ; doc``:
#
# * ``const``: a handle constant, or another value macro;
# * ``type``: a C type of the API;
# * ``macro``: a macro (PARAMS as the macro takes them);
# * ``conv``: a calling convention of CYSTCK_DEF_METH, STOCK the ml_flags it
#   stands for, SIGNATURE the C signature its implementation must have
#   (``f`` stands for its name).  The translator reads both
#   (migrate/project.py: method_role);
# * ``slot``: a slot CYSTCK_DEF_SLOT accepts, SIGNATURE as for ``conv``, with
#   ``[KIND]`` after the stock type: the trampoline of include/cystck/defs.h
#   (``_CYSTCK_KIND``) that calls it.  This list is the only one: gen_api
#   writes include/cystck/autogen_slots.h (CYSTCK_DEF_SLOT's list) from it,
#   and the translator reads its signatures (migrate/project.py);
# * ``impl``: another definition macro's implementation, SIGNATURE as above.
# ---------------------------------------------------------------------------

DEFINITIONS = r"""
## Constants
const Cystck_NULL ~ NULL                      ; the null handle: no object; the error value of every function returning a handle
const Cystck_None ~ Py_None                   ; None (a permanent handle: free to use, never released)
const Cystck_True ~ Py_True                   ; True
const Cystck_False ~ Py_False                 ; False
const Cystck_NotImplemented ~ Py_NotImplemented ; NotImplemented (return it from a binary slot that does not handle the other operand)
const Cystck_Ellipsis ~ Py_Ellipsis           ; Ellipsis

## Type handles
const CystckBaseObject_Type ~ PyBaseObject_Type ; object
const CystckType_Type ~ PyType_Type           ; type
const CystckLong_Type ~ PyLong_Type           ; int
const CystckFloat_Type ~ PyFloat_Type         ; float
const CystckBool_Type ~ PyBool_Type           ; bool
const CystckComplex_Type ~ PyComplex_Type     ; complex
const CystckUnicode_Type ~ PyUnicode_Type     ; str
const CystckBytes_Type ~ PyBytes_Type         ; bytes
const CystckByteArray_Type ~ PyByteArray_Type ; bytearray
const CystckList_Type ~ PyList_Type           ; list
const CystckTuple_Type ~ PyTuple_Type         ; tuple
const CystckDict_Type ~ PyDict_Type           ; dict
const CystckSet_Type ~ PySet_Type             ; set
const CystckFrozenSet_Type ~ PyFrozenSet_Type ; frozenset
const CystckSlice_Type ~ PySlice_Type         ; slice
const CystckMemoryView_Type ~ PyMemoryView_Type ; memoryview
const CystckCapsule_Type ~ PyCapsule_Type     ; the capsule type
const CystckFunction_Type ~ PyFunction_Type   ; the type of functions defined in Python
const CystckCFunction_Type ~ PyCFunction_Type ; builtin_function_or_method
const CystckMethod_Type ~ PyMethod_Type       ; bound methods
const CystckClassMethod_Type ~ PyClassMethod_Type ; classmethod
const CystckStaticMethod_Type ~ PyStaticMethod_Type ; staticmethod
const CystckReversed_Type ~ PyReversed_Type   ; reversed
const CystckSuper_Type ~ PySuper_Type         ; super

## Exceptions
const CystckExc_BaseException ~ PyExc_BaseException ; BaseException
const CystckExc_Exception ~ PyExc_Exception   ; Exception
const CystckExc_ArithmeticError ~ PyExc_ArithmeticError ; ArithmeticError
const CystckExc_AssertionError ~ PyExc_AssertionError ; AssertionError
const CystckExc_AttributeError ~ PyExc_AttributeError ; AttributeError
const CystckExc_BufferError ~ PyExc_BufferError ; BufferError
const CystckExc_EOFError ~ PyExc_EOFError     ; EOFError
const CystckExc_FloatingPointError ~ PyExc_FloatingPointError ; FloatingPointError
const CystckExc_ImportError ~ PyExc_ImportError ; ImportError
const CystckExc_IndexError ~ PyExc_IndexError ; IndexError
const CystckExc_KeyError ~ PyExc_KeyError     ; KeyError
const CystckExc_KeyboardInterrupt ~ PyExc_KeyboardInterrupt ; KeyboardInterrupt
const CystckExc_LookupError ~ PyExc_LookupError ; LookupError
const CystckExc_MemoryError ~ PyExc_MemoryError ; MemoryError
const CystckExc_NameError ~ PyExc_NameError   ; NameError
const CystckExc_NotImplementedError ~ PyExc_NotImplementedError ; NotImplementedError
const CystckExc_OSError ~ PyExc_OSError, PyExc_IOError, PyExc_EnvironmentError ; OSError (IOError and EnvironmentError are its aliases: the translator maps them here)
const CystckExc_OverflowError ~ PyExc_OverflowError ; OverflowError
const CystckExc_RecursionError ~ PyExc_RecursionError ; RecursionError
const CystckExc_ReferenceError ~ PyExc_ReferenceError ; ReferenceError
const CystckExc_RuntimeError ~ PyExc_RuntimeError ; RuntimeError
const CystckExc_StopIteration ~ PyExc_StopIteration ; StopIteration
const CystckExc_SystemError ~ PyExc_SystemError ; SystemError
const CystckExc_TypeError ~ PyExc_TypeError   ; TypeError
const CystckExc_UnicodeError ~ PyExc_UnicodeError ; UnicodeError
const CystckExc_UnicodeDecodeError ~ PyExc_UnicodeDecodeError ; UnicodeDecodeError
const CystckExc_UnicodeEncodeError ~ PyExc_UnicodeEncodeError ; UnicodeEncodeError
const CystckExc_ValueError ~ PyExc_ValueError ; ValueError
const CystckExc_ZeroDivisionError ~ PyExc_ZeroDivisionError ; ZeroDivisionError
const CystckExc_Warning ~ PyExc_Warning       ; Warning
const CystckExc_DeprecationWarning ~ PyExc_DeprecationWarning ; DeprecationWarning
const CystckExc_RuntimeWarning ~ PyExc_RuntimeWarning ; RuntimeWarning
const CystckExc_UserWarning ~ PyExc_UserWarning ; UserWarning
const CystckExc_BlockingIOError ~ PyExc_BlockingIOError ; BlockingIOError
const CystckExc_BrokenPipeError ~ PyExc_BrokenPipeError ; BrokenPipeError
const CystckExc_BytesWarning ~ PyExc_BytesWarning ; BytesWarning
const CystckExc_ChildProcessError ~ PyExc_ChildProcessError ; ChildProcessError
const CystckExc_ConnectionAbortedError ~ PyExc_ConnectionAbortedError ; ConnectionAbortedError
const CystckExc_ConnectionError ~ PyExc_ConnectionError ; ConnectionError
const CystckExc_ConnectionRefusedError ~ PyExc_ConnectionRefusedError ; ConnectionRefusedError
const CystckExc_ConnectionResetError ~ PyExc_ConnectionResetError ; ConnectionResetError
const CystckExc_EncodingWarning ~ PyExc_EncodingWarning ; EncodingWarning
const CystckExc_FileExistsError ~ PyExc_FileExistsError ; FileExistsError
const CystckExc_FileNotFoundError ~ PyExc_FileNotFoundError ; FileNotFoundError
const CystckExc_FutureWarning ~ PyExc_FutureWarning ; FutureWarning
const CystckExc_GeneratorExit ~ PyExc_GeneratorExit ; GeneratorExit
const CystckExc_ImportWarning ~ PyExc_ImportWarning ; ImportWarning
const CystckExc_IndentationError ~ PyExc_IndentationError ; IndentationError
const CystckExc_InterruptedError ~ PyExc_InterruptedError ; InterruptedError
const CystckExc_IsADirectoryError ~ PyExc_IsADirectoryError ; IsADirectoryError
const CystckExc_ModuleNotFoundError ~ PyExc_ModuleNotFoundError ; ModuleNotFoundError
const CystckExc_NotADirectoryError ~ PyExc_NotADirectoryError ; NotADirectoryError
const CystckExc_PendingDeprecationWarning ~ PyExc_PendingDeprecationWarning ; PendingDeprecationWarning
const CystckExc_PermissionError ~ PyExc_PermissionError ; PermissionError
const CystckExc_ProcessLookupError ~ PyExc_ProcessLookupError ; ProcessLookupError
const CystckExc_ResourceWarning ~ PyExc_ResourceWarning ; ResourceWarning
const CystckExc_StopAsyncIteration ~ PyExc_StopAsyncIteration ; StopAsyncIteration
const CystckExc_SyntaxError ~ PyExc_SyntaxError ; SyntaxError
const CystckExc_SyntaxWarning ~ PyExc_SyntaxWarning ; SyntaxWarning
const CystckExc_SystemExit ~ PyExc_SystemExit ; SystemExit
const CystckExc_TabError ~ PyExc_TabError ; TabError
const CystckExc_TimeoutError ~ PyExc_TimeoutError ; TimeoutError
const CystckExc_UnboundLocalError ~ PyExc_UnboundLocalError ; UnboundLocalError
const CystckExc_UnicodeTranslateError ~ PyExc_UnicodeTranslateError ; UnicodeTranslateError
const CystckExc_UnicodeWarning ~ PyExc_UnicodeWarning ; UnicodeWarning

## C types
type Cystck_Object ~ PyObject*                ; a handle: the address of a slot of the call's handle array (compare with Cystck_IsNull, never with ==)
type Cystck_State ~ -                         ; the call's frame: handles, return stack; every API function's first argument `S`
type Cystck_ssize_t ~ Py_ssize_t              ; sizes and indexes
type Cystck_hash_t ~ Py_hash_t                ; hash values
type Cystck_Scope ~ -                         ; a mark of the handle array (Cystck_OpenScope)
type Cystck_Ref ~ PyObject*                   ; a reference that outlives the call (Cystck_ref)
type Cystck_Field ~ PyObject*                 ; a Python value stored in a native struct (CystckField_Load/Store), visited by traverse
type Cystck_visitproc ~ visitproc             ; `int (*)(Cystck_Field *f, void *arg)`: what a traverse function calls on each field (Cystck_VISIT)
type CystckDef ~ PyMethodDef                  ; one method, slot, member or getset, made by a CYSTCK_DEF_* macro
type CystckDef_Kind ~ -                       ; which of the four a CystckDef is
type CystckType_Spec ~ PyType_Spec            ; `{name, basicsize, itemsize, flags, defines, doc}`: basicsize is sizeof the native struct (no object head); defines a NULL-terminated array of CystckDef pointers
type CystckModuleDef ~ PyModuleDef            ; `{name, doc, size, defines}`: size of the module state (0: none); defines the module functions
type CystckArg_Converter ~ -                  ; `int (*)(Cystck_State *S, Cystck_Object o, void *out)`: the converter of the O& argument format (1 success, 0 failure)
type Cystck_KeywordsImpl ~ -                  ; `int (*)(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs, Cystck_Object kw)`: a CYSTCK_KEYWORDS implementation (Cystck_CallImplKw)
type CystckMem_Finalizer ~ -                  ; `void (*)(void *p)`: run just before a native block is released
type Cystck_WeakList ~ -                      ; the weak-reference list of an instance, a member of its native struct named by CYSTCK_DEF_WEAKLIST (the extension never touches it)
type CystckUnicodeWriter ~ _PyUnicodeWriter   ; builds a str in place (CystckUnicodeWriter_Init ... _Finish): its str is held by the frame
type CystckStrWriter ~ PyUnicodeWriter        ; builds a str in place (CystckStrWriter_Create ... _Finish), through a pointer: its str is held by the writer
type CystckBytesWriter ~ -                     ; builds a bytes, or a str of UTF-8 bytes, in the storage of the object returned (CystckBytesWriter_Init ... _Finish): the object is held by the frame

## Defining functions, methods and attributes
macro CYSTCK_DEF_METH(sym, name, impl, conv, doc) ~ PyMethodDef ; defines `static CystckDef sym`: a function (in a module's defines) or method (in a type's) called `name`; declares impl with the signature of conv
macro CYSTCK_DEF_METH_EXTERN(sym, name, impl, conv, doc) ~ PyMethodDef ; the same for an impl with external linkage, defined in another file
macro CYSTCK_DEF_SLOT(sym, slot, impl) ~ PyType_Slot ; a slot of a type (the slots below); declares impl with the slot's signature; an unknown slot name is a compile error naming it
macro CYSTCK_DEF_DESTROY(sym, impl) ~ tp_dealloc ; the type's destructor; impl releases the native resources of the struct; it runs before the runtime releases the fields, which still hold their objects
macro CYSTCK_DEF_CLEAR(sym, impl) ~ tp_clear ; the type's clear, for a GC type: the runtime releases the fields (through traverse, as it does without it), then impl resets the rest of the struct as a stock tp_clear did beside its Py_CLEARs (a count, a flag)
macro CYSTCK_DEF_DEALLOC(sym, release, impl) ~ tp_dealloc ; the type's deallocator in two parts: release uses the API where a stock tp_dealloc does (after the finalizer, before the fields are released, the object alive; for Python subclasses' instances too, whatever their __del__), then impl, the destructor, releases native resources
macro CYSTCK_DEF_DEALLOC_API(sym, release) ~ tp_dealloc ; CYSTCK_DEF_DEALLOC without a destructor
macro CYSTCK_DEF_SELFITER(sym) ~ PyObject_SelfIter ; tp_iter returning self
macro CYSTCK_DEF_HASH_NOT_IMPLEMENTED(sym) ~ PyObject_HashNotImplemented ; tp_hash making instances unhashable
macro CYSTCK_DEF_MEMBER(sym, name, type, STRUCT, field, flags, doc) ~ PyMemberDef ; the struct member `field` of the native struct `STRUCT` as attribute `name`, of a member type below; flags 0 or CYSTCK_READONLY
macro CYSTCK_DEF_GET(sym, name, getter, doc, closure) ~ PyGetSetDef ; a read-only property; getter as below
macro CYSTCK_DEF_GETSET(sym, name, getter, setter, doc, closure) ~ PyGetSetDef ; a property with a setter
macro CYSTCK_DEF_TYPED(sym, name, impl, RET, doc, ...) ~ PyMethodDef ; a function or method declared by its C signature (docs/typed.md): the trampoline unboxes the parameters and boxes the RET result; impl is declared `RET_C impl(Cystck_State *S, Cystck_Object self, T1 name1, ...)`, so a mismatch is a compile error
macro CYSTCK_DEF_TYPED_POSONLY(sym, name, impl, RET, doc, ...) ~ PyMethodDef ; the same with positional-only parameters, bound like PyArg_ParseTuple
macro CYSTCK_ARG(TYPE, name) ~ -            ; a required parameter of CYSTCK_DEF_TYPED: TYPE one of LONG LONGLONG SSIZE INT BOOL DOUBLE STR OBJECT
macro CYSTCK_OPT(TYPE, name, default) ~ -   ; an optional parameter of CYSTCK_DEF_TYPED with a literal default
macro CYSTCK_DEF_METH_FLAGS(sym, name, impl, conv, flags, doc) ~ PyMethodDef ; CYSTCK_DEF_METH with CPython's binding flags: METH_CLASS (self is the class), METH_STATIC (self is the null handle), METH_COEXIST
macro CYSTCK_DEF_WEAKLIST(sym, STRUCT, field) ~ tp_weaklistoffset ; instances can be weakly referenced; field is the struct's Cystck_WeakList, cleared by the runtime before the destructor runs
macro CYSTCK_DEF_DICT(sym, STRUCT, field) ~ tp_dictoffset ; instances have a __dict__ kept in field, a Cystck_Field of the struct (the type's traverse visits it; CPython makes the dict on first use when the field is empty)
macro CYSTCK_DEF_MOD_EXEC(sym, impl) ~ Py_mod_exec ; a multi-phase module's exec slot: `int impl(Cystck_State *S, Cystck_Object module)`, 0 or -1
macro CYSTCK_DEF_MOD_CREATE(sym, impl) ~ Py_mod_create ; a multi-phase module's create slot: `int impl(Cystck_State *S, Cystck_Object spec, CystckModuleDef *def)`, push count (the module) or -1
macro CYSTCK_DEF_MOD_SLOT(sym, slot, value) ~ PyModuleDef_Slot ; a value slot of a multi-phase module (Py_mod_multiple_interpreters, Py_mod_gil; docs/runtime.md says what the runtime allows)
macro CYSTCK_DEF_MOD_TRAVERSE(sym, impl) ~ m_traverse ; visits the Cystck_Fields (Cystck_VISIT) and Cystck_Refs (Cystck_VISIT_REF) of the module state: `int impl(void *state, Cystck_visitproc visit, void *arg)`; the runtime clears them when the module is cleared or freed
macro CYSTCK_MODINIT(name) ~ PyMODINIT_FUNC ; starts the module's init function: `CYSTCK_MODINIT(spam) { ... }`, with `S` in scope; return `Cystck_Return(S, module)` or -1
macro CYSTCK_VAR_HEAD ~ PyObject_VAR_HEAD    ; the first member of the native struct of a variable-size type (a spec with an itemsize): room for CPython's item count; the items are the struct's last member, a flexible array
macro CYSTCK_TYPE_HELPERS(STRUCT) ~ -        ; defines `STRUCT *STRUCT_AsStruct(Cystck_State *S, Cystck_Object h)`, the typed accessor of the native struct (valid for the call; h unchecked, as a stock cast)
macro Cystck_VISIT(f) ~ Py_VISIT             ; in a traverse function: visit the Cystck_Field at f (returns what visit returns if not 0)
macro Cystck_VISIT_REF(r) ~ Py_VISIT         ; in a module state's traverse (CYSTCK_DEF_MOD_TRAVERSE): visit the Cystck_Ref at r that the state holds; the cyclic GC sees its object, and the runtime releases it (Cystck_unref, *r = NULL) when the module is cleared or freed; in a type's traverse, a Cystck_Ref in native memory the instance owns (a node of its table), released so when the instance is cleared or freed

## Calling conventions (the conv of CYSTCK_DEF_METH)
conv CYSTCK_NOARGS ~ METH_NOARGS : int f(Cystck_State *S, Cystck_Object self) ; returns its push count, or -1 with an exception
conv CYSTCK_O ~ METH_O : int f(Cystck_State *S, Cystck_Object self, Cystck_Object arg) ; one argument
conv CYSTCK_VARARGS ~ METH_FASTCALL : int f(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs) ; positional arguments (CystckArg_ParseTuple)
conv CYSTCK_KEYWORDS ~ METH_FASTCALL|METH_KEYWORDS : int f(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs, Cystck_Object kw) ; kw: null, or a tuple of keyword names whose values follow the nargs positional ones in args (CystckArg_ParseTupleAndKeywords)

## Implementations of the other definition macros
impl CYSTCK_DEF_GET ~ getter : int f(Cystck_State *S, Cystck_Object self, void *closure) ; the getter: push count (1), or -1
impl CYSTCK_DEF_GETSET ~ setter : int f(Cystck_State *S, Cystck_Object self, Cystck_Object value, void *closure) ; the setter: 0, or -1; value is null for `del obj.attr`
impl CYSTCK_DEF_DESTROY ~ destructor : void f(void *data) ; data is the native struct; no handle may be made (no state)
impl CYSTCK_DEF_CLEAR ~ inquiry : void f(void *data) ; data is the native struct, its fields released already; no handle may be made (no state)
impl CYSTCK_DEF_DEALLOC ~ destructor : void f(Cystck_State *S, Cystck_Object self) ; release: once, when the object dies, alive for the call; errors are reported as unraisable; the object stays if it was brought back to life

## Slots (CYSTCK_DEF_SLOT)
slot tp_repr ~ reprfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; push count: repr(self)
slot tp_str ~ reprfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; push count: str(self)
slot tp_iter ~ getiterfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; push count: iter(self)
slot tp_iternext ~ iternextfunc [ITERNEXT] : int f(Cystck_State *S, Cystck_Object self) ; push count: next(self); -1 with no exception set when exhausted
slot tp_hash ~ hashfunc [HASHFUNC] : Cystck_hash_t f(Cystck_State *S, Cystck_Object self) ; hash(self); -1 on error
slot tp_richcompare ~ richcmpfunc [RICHCMP] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b, int op) ; push count: a op b (op: Py_LT...); push Cystck_NotImplemented for other types
slot tp_getattro ~ getattrofunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; push count: a.b
slot tp_setattro ~ setattrofunc [OBJOBJARG] : int f(Cystck_State *S, Cystck_Object self, Cystck_Object name, Cystck_Object value) ; 0, or -1: self.name = value (value null: del)
slot tp_descr_get ~ descrgetfunc [DESCRGET] : int f(Cystck_State *S, Cystck_Object self, Cystck_Object obj, Cystck_Object type) ; push count: self.__get__(obj, type); obj is null for access through the class, type may be null
slot tp_call ~ ternaryfunc [CALL] : int f(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs, Cystck_Object kw) ; push count: self(*args, **kw); kw is a dict or null
slot tp_new ~ newfunc [NEW] : int f(Cystck_State *S, Cystck_Object type, const Cystck_Object *args, Cystck_ssize_t nargs, Cystck_Object kw) ; push count: the new instance (Cystck_New); kw is a dict or null
slot tp_init ~ initproc [INIT] : int f(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs, Cystck_Object kw) ; 0, or -1; kw is a dict or null
slot tp_traverse ~ traverseproc [TRAVERSE] : int f(void *data, Cystck_visitproc visit, void *arg) ; visit every Cystck_Field of the native struct data with Cystck_VISIT (no state: makes no handle)
slot nb_add ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; push count: a + b; either operand may be the instance (`1 + x` calls it with x as b)
slot nb_subtract ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a - b (both orders, as nb_add)
slot nb_multiply ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a * b
slot nb_true_divide ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a / b
slot nb_floor_divide ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a // b
slot nb_remainder ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a % b
slot nb_divmod ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; divmod(a, b)
slot nb_lshift ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a << b
slot nb_rshift ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a >> b
slot nb_and ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a & b
slot nb_or ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a | b
slot nb_xor ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a ^ b
slot nb_matrix_multiply ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a @ b
slot nb_inplace_add ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a += b
slot nb_inplace_subtract ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a -= b
slot nb_inplace_multiply ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a *= b
slot nb_inplace_true_divide ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a /= b
slot nb_inplace_floor_divide ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a //= b
slot nb_inplace_remainder ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a %= b
slot nb_inplace_lshift ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a <<= b
slot nb_inplace_rshift ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a >>= b
slot nb_inplace_and ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a &= b
slot nb_inplace_or ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a |= b
slot nb_inplace_xor ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a ^= b
slot nb_inplace_matrix_multiply ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; a @= b
slot nb_inplace_power ~ ternaryfunc [TERNARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b, Cystck_Object c) ; a **= b; c is Cystck_None
slot nb_power ~ ternaryfunc [TERNARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b, Cystck_Object c) ; pow(a, b, c); c is Cystck_None for a ** b
slot nb_negative ~ unaryfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; -self
slot nb_positive ~ unaryfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; +self
slot nb_absolute ~ unaryfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; abs(self)
slot nb_invert ~ unaryfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; ~self
slot nb_int ~ unaryfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; int(self)
slot nb_float ~ unaryfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; float(self)
slot nb_index ~ unaryfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; operator.index(self)
slot nb_bool ~ inquiry [INQUIRY] : int f(Cystck_State *S, Cystck_Object self) ; bool(self): 0 or 1, -1 on error
slot sq_length ~ lenfunc [LENFUNC] : Cystck_ssize_t f(Cystck_State *S, Cystck_Object self) ; len(self); -1 on error
slot sq_item ~ ssizeargfunc [SSIZEARG] : int f(Cystck_State *S, Cystck_Object self, Cystck_ssize_t i) ; push count: self[i]
slot sq_repeat ~ ssizeargfunc [SSIZEARG] : int f(Cystck_State *S, Cystck_Object self, Cystck_ssize_t n) ; push count: self * n
slot sq_ass_item ~ ssizeobjargproc [SSIZEOBJARG] : int f(Cystck_State *S, Cystck_Object self, Cystck_ssize_t i, Cystck_Object value) ; 0, or -1: self[i] = value (value null: del)
slot sq_concat ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; push count: a + b for sequences
slot sq_inplace_concat ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; push count: a += b for sequences (extend a, push a itself)
slot sq_inplace_repeat ~ ssizeargfunc [SSIZEARG] : int f(Cystck_State *S, Cystck_Object self, Cystck_ssize_t n) ; push count: self *= n (repeat self in place, push self itself)
slot sq_contains ~ objobjproc [OBJOBJ] : int f(Cystck_State *S, Cystck_Object self, Cystck_Object value) ; value in self: 0 or 1, -1 on error
slot mp_length ~ lenfunc [LENFUNC] : Cystck_ssize_t f(Cystck_State *S, Cystck_Object self) ; len(self); -1 on error
slot mp_subscript ~ binaryfunc [BINARY] : int f(Cystck_State *S, Cystck_Object a, Cystck_Object b) ; push count: a[b]
slot mp_ass_subscript ~ objobjargproc [OBJOBJARG] : int f(Cystck_State *S, Cystck_Object self, Cystck_Object key, Cystck_Object value) ; 0, or -1: self[key] = value (value null: del)
slot bf_getbuffer ~ getbufferproc [GETBUFFER] : int f(Cystck_State *S, Cystck_Object self, Py_buffer *view, int flags) ; 0, or -1: fill view (CystckBuffer_FillInfo, or by hand); a view->obj left NULL is set to self
slot bf_releasebuffer ~ releasebufferproc [RELEASEBUFFER] : void f(Cystck_State *S, Cystck_Object self, Py_buffer *view) ; a view is released (errors are reported as unraisable)
slot am_await ~ unaryfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; push count: the iterator `await self` runs
slot am_aiter ~ unaryfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; push count: aiter(self)
slot am_anext ~ unaryfunc [UNARY] : int f(Cystck_State *S, Cystck_Object self) ; push count: the awaitable anext(self) returns
slot tp_finalize ~ destructor [FINALIZE] : void f(Cystck_State *S, Cystck_Object self) ; once, before the object dies, still alive (PEP 442): may call the API; errors are reported as unraisable
macro CYSTCK_RICHCOMPARE(a, b, op) ~ Py_RETURN_RICHCOMPARE ; in a tp_richcompare: the result of comparing two C values a and b with the rich-comparison op (Py_EQ ... Py_GE), 0 or 1, for `return Cystck_ReturnBool(S, CYSTCK_RICHCOMPARE(a, b, op));`; evaluates a and b more than once

## Member types (the type of CYSTCK_DEF_MEMBER)
const CYSTCK_MEMBER_SHORT ~ T_SHORT           ; short
const CYSTCK_MEMBER_INT ~ T_INT               ; int
const CYSTCK_MEMBER_LONG ~ T_LONG             ; long
const CYSTCK_MEMBER_FLOAT ~ T_FLOAT           ; float
const CYSTCK_MEMBER_DOUBLE ~ T_DOUBLE         ; double
const CYSTCK_MEMBER_STRING ~ T_STRING         ; char * (read-only, NULL reads as None)
const CYSTCK_MEMBER_STRING_INPLACE ~ T_STRING_INPLACE ; char array inside the struct, read as a str (read-only)
const CYSTCK_MEMBER_CHAR ~ T_CHAR             ; char (a 1-character str)
const CYSTCK_MEMBER_BYTE ~ T_BYTE             ; signed char
const CYSTCK_MEMBER_UBYTE ~ T_UBYTE           ; unsigned char
const CYSTCK_MEMBER_UINT ~ T_UINT             ; unsigned int
const CYSTCK_MEMBER_USHORT ~ T_USHORT         ; unsigned short
const CYSTCK_MEMBER_ULONG ~ T_ULONG           ; unsigned long
const CYSTCK_MEMBER_BOOL ~ T_BOOL             ; char holding 0 or 1 (a bool)
const CYSTCK_MEMBER_LONGLONG ~ T_LONGLONG     ; long long
const CYSTCK_MEMBER_ULONGLONG ~ T_ULONGLONG   ; unsigned long long
const CYSTCK_MEMBER_SSIZET ~ T_PYSSIZET       ; Cystck_ssize_t
const CYSTCK_MEMBER_FIELD ~ T_OBJECT_EX       ; Cystck_Field (AttributeError when empty)
const CYSTCK_READONLY ~ READONLY              ; the flag of a read-only member

## Flags and limits
const CYSTCK_TPFLAGS_BASETYPE ~ Py_TPFLAGS_BASETYPE ; CystckType_Spec flag: Python classes may subclass the type
const CYSTCK_TPFLAGS_DISALLOW_INSTANTIATION ~ Py_TPFLAGS_DISALLOW_INSTANTIATION ; CystckType_Spec flag: Python code cannot call the type (`type(x)()` raises TypeError); only the extension makes instances, with Cystck_New
const CYSTCK_POLICY_EXPLICIT_FREE ~ -         ; CystckMem_Policies bit: C has not freed the block yet
const CYSTCK_POLICY_REFCOUNT ~ -              ; CystckMem_Policies bit: a Python view of the block lives
const CYSTCK_DATA_OFFSET ~ -                  ; where an instance's native struct starts, after the object head
const CYSTCK_HAS_STRUCT_ACCESS ~ -            ; defined: Cystck_AsStruct and Cystck_FromStruct exist
const CYSTCK_INLINE_HANDLES ~ -               ; handle slots inline in each frame (more go to heap chunks)
const CYSTCK_INLINE_STACK ~ -                 ; return-stack entries inline in each frame
const CYSTCK_INLINE_ARGS ~ -                  ; argument handles bound inline
const CYSTCK_DEFAULT_HANDLE_LIMIT ~ -         ; live handles per call (the environment variable CYSTCK_HANDLE_LIMIT changes it at import)
const CYSTCK_TYPED_MAX_PARAMS ~ -            ; the most parameters a CYSTCK_DEF_TYPED function may declare
const CYSTCK_VERSION_MAJOR ~ -                ; version of the API
const CYSTCK_VERSION_MINOR ~ -                ; version of the API

## Critical sections (free-threaded builds, PEP 703)
macro Cystck_BEGIN_CRITICAL_SECTION(S, h) ~ Py_BEGIN_CRITICAL_SECTION ; opens a block holding h's per-object lock on a free-threaded build, where a null handle locks nothing and raises (under the GIL: a plain block)
macro Cystck_END_CRITICAL_SECTION(S) ~ Py_END_CRITICAL_SECTION ; closes the block of the Cystck_BEGIN_CRITICAL_SECTION before it, in the same scope, releasing the lock

## Compiler glue
macro Cystck_likely(x) ~ -                    ; branch hint: x is usually true
macro Cystck_unlikely(x) ~ -                  ; branch hint: x is usually false
const CYSTCK_ALWAYS_INLINE ~ -                ; `inline` that GCC and Clang always inline: for an extension's small hot helpers
const CYSTCK_INTERNAL ~ -                     ; hidden visibility: the runtime's functions are private to each extension
const CYSTCK_UNUSED ~ -                       ; no "unused" warning
const CYSTCK_NOINLINE ~ -                     ; never inline
const CYSTCK_COLD ~ -                         ; a rarely taken path (error paths)
"""
