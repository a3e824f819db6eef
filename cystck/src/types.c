/*
 * Types from specs, instances, fields and modules.
 *
 * An instance is [object head | native struct]; the struct starts at
 * CYSTCK_DATA_OFFSET.  Python values inside the struct are Cystck_Fields,
 * found by the type's traverse function: the runtime uses it both for the
 * cyclic GC and to release the fields when the object dies.
 */
#include "internal.h"

#include <string.h>

/* ---- Fields and traversal ---- */

int _Cystck_ClearVisitMarker(PyObject *o, void *arg)
{
    /* Only its address matters (see _CYSTCK_TRAVERSE); a Python subclass's
     * traverse may still call it on its own members: do nothing then. */
    (void)o; (void)arg;
    return 0;
}

int _Cystck_VisitAdapter(Cystck_Field *f, void *ctx)
{
    _Cystck_VisitCtx *c = (_Cystck_VisitCtx *)ctx;
    if (f->_o == NULL)
        return 0;
    return c->visit(f->_o, c->arg);
}

/* The objects of a dying instance's fields, taken by traverse before its
 * destructor runs and released after it. */
typedef struct {
    PyObject **items;
    Py_ssize_t n, cap;
    PyObject *inline_items[16];
} TakenFields;

static int take(TakenFields *t, PyObject *o)
{
    if (t->n == t->cap) {
        size_t cap = 2 * (size_t)t->cap;
        PyObject **items = t->items == t->inline_items
            ? (PyObject **)PyMem_Malloc(cap * sizeof(PyObject *))
            : (PyObject **)PyMem_Realloc(t->items, cap * sizeof(PyObject *));
        if (items == NULL)
            return 0;
        if (t->items == t->inline_items)
            memcpy(items, t->inline_items, sizeof(t->inline_items));
        t->items = items;
        t->cap = (Py_ssize_t)cap;
    }
    t->items[t->n++] = o;
    return 1;
}

static void release_taken(TakenFields *t)
{
    while (t->n > 0)
        Py_DECREF(t->items[--t->n]);
    if (t->items != t->inline_items)
        PyMem_Free(t->items);
}

/* Release one field for tp_clear (ctx NULL: at once, leaving it empty) or
 * for tp_dealloc (ctx a TakenFields: after the destructor, so the field
 * still shows its object, alive, while the destructor runs). */
int _Cystck_ReleaseField(Cystck_Field *f, void *ctx)
{
    PyObject *o = f->_o;
    if (o == NULL || (ctx != NULL && take((TakenFields *)ctx, o)))
        return 0;
    f->_o = NULL;       /* tp_clear, or no memory to defer it: release it now */
    Py_DECREF(o);
    return 0;
}

static int generic_clear(PyObject *self)
{
    traverseproc traverse = Py_TYPE(self)->tp_traverse;
    if (traverse != NULL)
        traverse(self, _Cystck_ClearVisitMarker, NULL);
    return 0;
}

/* CYSTCK_DEF_CLEAR's tp_clear: the fields as generic_clear, then the
 * extension's native part. */
int _Cystck_ClearWith(PyObject *self, void (*after)(void *))
{
    generic_clear(self);
    after((char *)self + CYSTCK_DATA_OFFSET);
    return 0;
}

/* A finalizer (tp_finalize, PEP 442) runs before anything is released,
 * once, the object alive again for the call, as subtype_dealloc runs it for
 * a Python class; that one then calls this dealloc, whose `own` is not the
 * instance's tp_dealloc then, and the finalizer has run.  1: the finalizer
 * resurrected the object, which stays alive (and tracked).  Out of line:
 * the deallocs test tp_finalize first, and few types have one. */
static CYSTCK_NOINLINE int finalize_slow(PyObject *self, destructor own)
{
    PyTypeObject *tp = Py_TYPE(self);
    int gc = PyType_IS_GC(tp);
    if (tp->tp_dealloc != own)
        return 0;
    if (gc && !PyObject_GC_IsTracked(self))
        PyObject_GC_Track(self);
    if (PyObject_CallFinalizerFromDealloc(self) < 0)
        return 1;
    if (gc)
        PyObject_GC_UnTrack(self);
    return 0;
}
static inline int finalize(PyObject *self, destructor own)
{
    return Cystck_unlikely(Py_TYPE(self)->tp_finalize != NULL) && finalize_slow(self, own);
}

/* _Cystck_FreeInstance's end when the instance held the last reference to
 * its type (already counted down to 0). */
CYSTCK_NOINLINE void _Cystck_FreeLastInstance(PyObject *self, PyTypeObject *tp)
{
    tp->tp_free(self);
    _Py_Dealloc((PyObject *)tp);
}

/* The destructor runs first, with every field still holding its object:
 * it may read them, or unlink the instance from a native structure (a tree
 * whose nodes other live instances share) that those objects keep valid.
 * The fields' objects are taken before it and released after it, so the
 * destructor may also free native memory that holds fields. */
static CYSTCK_ALWAYS_INLINE void dealloc_with(PyObject *self, void (*destroy)(void *), destructor own,
                                              int untracked)
{
    PyTypeObject *tp = Py_TYPE(self);
    TakenFields taken;
    if (finalize(self, own))
        return;
    taken.items = taken.inline_items;
    taken.n = 0;
    taken.cap = (Py_ssize_t)(sizeof(taken.inline_items) / sizeof(taken.inline_items[0]));
    /* untracked: _Cystck_DeallocTrash has untracked the instance already
     * (and finalize_slow leaves it untracked): no second call. */
    if (!untracked && PyType_IS_GC(tp))
        PyObject_GC_UnTrack(self);
    if (tp->tp_weaklistoffset != 0)
        PyObject_ClearWeakRefs(self);
    if (tp->tp_traverse != NULL)
        tp->tp_traverse(self, _Cystck_ClearVisitMarker, destroy != NULL ? &taken : NULL);
    if (destroy != NULL)
        destroy((char *)self + CYSTCK_DATA_OFFSET);
    release_taken(&taken);
    _Cystck_FreeInstance(self, tp);
}

void _Cystck_DeallocWith(PyObject *self, void (*destroy)(void *), destructor own)
{
    dealloc_with(self, destroy, own, 0);
}

/* Py_TRASHCAN_BEGIN(op, own): the trashcan for an instance whose
 * tp_dealloc is own.  Where CPython has Py_TRASHCAN_BEGIN_CONDITION
 * (3.8 to 3.12), the condition is written inline: Py_TRASHCAN_BEGIN
 * calls _PyTrash_cond for the same compare (a call per GC dealloc). */
#ifdef Py_TRASHCAN_BEGIN_CONDITION
#  define _CYSTCK_TRASHCAN_BEGIN(op, own) \
    Py_TRASHCAN_BEGIN_CONDITION(op, Py_TYPE(op)->tp_dealloc == (own))
#else
#  define _CYSTCK_TRASHCAN_BEGIN(op, own) Py_TRASHCAN_BEGIN(op, own)
#endif

/* _Cystck_DeallocWith in CPython's trashcan, for GC types (whose fields
 * can chain instances: freeing a long chain would otherwise recurse once
 * per link and overflow the C stack).  `own` is the tp_dealloc calling it:
 * a Python subclass's dealloc has its own trashcan, and the object must not
 * go in twice. */
void _Cystck_DeallocTrash(PyObject *self, void (*destroy)(void *), destructor own)
{
    PyObject_GC_UnTrack(self);       /* the trashcan takes untracked objects */
    _CYSTCK_TRASHCAN_BEGIN(self, own)
    dealloc_with(self, destroy, own, 1);
    Py_TRASHCAN_END
}

/* A deallocator's part that uses the API (`release`, what the translator
 * splits off a stock deallocator), called with the object alive, as
 * PyObject_CallFinalizerFromDealloc calls a finalizer.  1: it brought the
 * object back to life, which then stays (tracked, if a GC type). */
static int release_alive(PyObject *self, destructor release)
{
    Py_ssize_t refcnt;
    Py_SET_REFCNT(self, 1);
    release(self);
    refcnt = Py_REFCNT(self) - 1;
    Py_SET_REFCNT(self, refcnt);
    if (refcnt == 0)
        return 0;
    if (PyType_IS_GC(Py_TYPE(self)) && !PyObject_GC_IsTracked(self))
        PyObject_GC_Track(self);
    return 1;
}

static void dealloc_release(PyObject *self, destructor release, void (*destroy)(void *), destructor own)
{
    if (finalize(self, own) || release_alive(self, release))
        return;
    _Cystck_DeallocWith(self, destroy, NULL);    /* NULL: finalized above */
}

/* tp_dealloc in two parts (CYSTCK_DEF_DEALLOC): `release` runs where a
 * stock deallocator calls the API, in tp_dealloc, after the finalizer,
 * before the fields are released, for the type's instances and for its
 * Python subclasses' alike (subtype_dealloc calls this after the
 * subclass's own finalizer, a __del__, which does not replace it), then
 * the destructor.  In the trashcan for GC types, as _Cystck_DeallocTrash. */
void _Cystck_DeallocRelease(PyObject *self, destructor release, void (*destroy)(void *), destructor own)
{
    if (!PyType_IS_GC(Py_TYPE(self))) {
        dealloc_release(self, release, destroy, own);
        return;
    }
    PyObject_GC_UnTrack(self);
    _CYSTCK_TRASHCAN_BEGIN(self, own)
    dealloc_release(self, release, destroy, own);
    Py_TRASHCAN_END
}

static void generic_dealloc(PyObject *self)
{
    if (PyType_IS_GC(Py_TYPE(self)))
        _Cystck_DeallocTrash(self, NULL, generic_dealloc);
    else
        _Cystck_DeallocWith(self, NULL, generic_dealloc);
}

/* The dealloc of a type with no fields (so no traverse, no GC) and no
 * destructor: all that is left of _Cystck_DeallocWith.  A finalizer sends
 * it out of line, so that the common case keeps no value across a call but
 * the type (a tail call, then tp_free and the type's release). */
static void plain_dealloc(PyObject *self);
static CYSTCK_NOINLINE void plain_dealloc_finalizing(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    if (!finalize_slow(self, plain_dealloc))
        _Cystck_FreeInstance(self, tp);
}
static void plain_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    if (Cystck_unlikely(tp->tp_finalize != NULL))
        plain_dealloc_finalizing(self);
    else
        _Cystck_FreeInstance(self, tp);
}

/* ---- Types ---- */

/* Count the defines of each kind, so the arrays can be sized. */
static void count_defines(CystckDef **defs, Py_ssize_t n[5])
{
    memset(n, 0, 5 * sizeof(Py_ssize_t));
    for (; defs != NULL && *defs != NULL; defs++)
        n[(*defs)->kind]++;
}

static int has_slot(CystckDef **defs, int slot)
{
    for (; defs != NULL && *defs != NULL; defs++)
        if ((*defs)->kind == CystckDef_Slot && (*defs)->slot.slot == slot)
            return 1;
    return 0;
}

/* tp_alloc of the types Cystck_New allocates inline: fixed size, no GC,
 * the generic allocator.  One pointer comparison then tells them apart from
 * every other type (Python subclasses get PyType_GenericAlloc back from
 * type_new, CPython's own types never have it). */
PyObject *_Cystck_PlainAlloc(PyTypeObject *tp, Py_ssize_t nitems)
{
    return PyType_GenericAlloc(tp, nitems);
}

/* Every Cystck extension has a runtime of its own, so a _Cystck_PlainAlloc
 * of its own, and a type inherits its base's, of whichever extension made
 * the base: each copy is recorded in a set in the interpreter's dict for
 * extensions, so that mark_plain knows them all.  The set (borrowed), with
 * this copy in it, or NULL [e]. */
#define PLAIN_ALLOCATORS_KEY "cystck.plain_allocators"

/* What every Cystck extension's runtime shares: the object under key in
 * the interpreter's dict for extensions, made by make() the first time
 * (borrowed; NULL [e]). */
static PyObject *shared_registry(const char *key, PyObject *(*make)(void))
{
    PyObject *dict = PyInterpreterState_GetDict(PyInterpreterState_Get());
    PyObject *known;
    int r;
    if (dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "CystckType_FromSpec: the interpreter has no dict for extensions");
        return NULL;
    }
    known = PyDict_GetItemString(dict, key);
    if (known == NULL) {
        known = make();
        r = known == NULL ? -1 : PyDict_SetItemString(dict, key, known);
        Py_XDECREF(known);      /* the dict holds it */
        if (r < 0)
            return NULL;
    }
    return known;
}

static PyObject *new_set(void) { return PySet_New(NULL); }

static PyObject *plain_allocators(void)
{
    PyObject *known = shared_registry(PLAIN_ALLOCATORS_KEY, new_set), *ours;
    int r;
    if (known == NULL)
        return NULL;
    ours = PyLong_FromVoidPtr((void *)(uintptr_t)_Cystck_PlainAlloc);
    r = ours == NULL ? -1 : PySet_Add(known, ours);
    Py_XDECREF(ours);
    return r < 0 ? NULL : known;
}

/* Is f some Cystck extension's _Cystck_PlainAlloc?  1, 0, or -1 [e]. */
static int is_plain_alloc(allocfunc f, PyObject *known)
{
    PyObject *key;
    int r;
    if (f == _Cystck_PlainAlloc)
        return 1;
    key = PyLong_FromVoidPtr((void *)(uintptr_t)f);
    if (key == NULL)
        return -1;
    r = PySet_Contains(known, key);
    Py_DECREF(key);
    return r;
}

/* Give a new type this copy's plain allocator if it is plain (and the
 * runtime is not in debug mode), and take a
 * plain allocator it inherited (of any extension: the base extension's
 * Cystck_New would allocate its instances inline) away if not. */
static int mark_plain(PyTypeObject *tp)
{
    PyObject *known = plain_allocators();
    int plain = known == NULL ? -1 : is_plain_alloc(tp->tp_alloc, known);
    if (plain < 0)
        return -1;
    /* A weak-reference list must start empty: only tp_alloc zeroes it.
     * Not in debug mode: Cystck_New makes a plain type's handle without
     * debug mode's test (_Cystck_NewInstance). */
    if (!_Cystck_debug && (plain || tp->tp_alloc == PyType_GenericAlloc) && tp->tp_itemsize == 0 &&
        !PyType_IS_GC(tp) && tp->tp_weaklistoffset == 0)
        tp->tp_alloc = _Cystck_PlainAlloc;
    else if (plain)             /* inherited by a subtype that is not plain */
        tp->tp_alloc = PyType_GenericAlloc;
    if (tp->tp_dealloc == plain_dealloc && tp->tp_weaklistoffset != 0)
        tp->tp_dealloc = generic_dealloc;     /* which clears weak references */
    return 0;
}

/* The deallocators of extensions' destructors (CYSTCK_DEF_DESTROY,
 * CYSTCK_DEF_DEALLOC), of every extension: each deallocator a type was
 * given (the general trampoline, or DEF_DESTROY's plain one) maps to the
 * general one, which works from Py_TYPE(self) (GC, weak references,
 * fields and finalizer of whatever subtype), so that a spec without a
 * deallocator of its own inherits its base's destructor, as a stock C
 * subclass without tp_dealloc inherits its base's (docs/gaps.md, T50). */
#define DESTRUCTOR_DEALLOCS_KEY "cystck.destructor_deallocs"

static PyObject *new_dict(void) { return PyDict_New(); }

static int record_destructor_dealloc(void *installed, void *general)
{
    PyObject *known = shared_registry(DESTRUCTOR_DEALLOCS_KEY, new_dict), *key, *value;
    int r = -1;
    if (known == NULL)
        return -1;
    key = PyLong_FromVoidPtr(installed);
    value = PyLong_FromVoidPtr(general);
    if (key != NULL && value != NULL)
        r = PyDict_SetItem(known, key, value);
    Py_XDECREF(key);
    Py_XDECREF(value);
    return r;
}

/* A type made from a spec without a deallocator of its own: its base's
 * destructor's general deallocator, if the base has one.  0, or -1 [e]. */
static int inherit_destructor(PyTypeObject *tp)
{
    PyObject *known, *key, *general;
    if (tp->tp_base == NULL)
        return 0;
    known = shared_registry(DESTRUCTOR_DEALLOCS_KEY, new_dict);
    if (known == NULL)
        return -1;
    key = PyLong_FromVoidPtr((void *)(uintptr_t)tp->tp_base->tp_dealloc);
    if (key == NULL)
        return -1;
    general = PyDict_GetItemWithError(known, key);
    Py_DECREF(key);
    if (general == NULL)
        return PyErr_Occurred() ? -1 : 0;
    tp->tp_dealloc = (destructor)(uintptr_t)PyLong_AsVoidPtr(general);
    return 0;
}

/* A CYSTCK_DEF_DESTROY type made without GC or weak references (which no
 * later change gives it; its deallocator tests for them at every call)
 * gets the deallocator that tests only for a finalizer. */
static void install_plain_dealloc(PyTypeObject *tp, destructor dealloc, destructor plain)
{
    if (tp->tp_dealloc == dealloc && !PyType_IS_GC(tp) && tp->tp_weaklistoffset == 0)
        tp->tp_dealloc = plain;
}

/* The module of the types this extension makes: the one it is made for
 * (CystckType_FromModuleAndSpec), else the one the extension created (its
 * full name, with its package) or, before that, the one whose
 * CYSTCK_MODINIT is running. */
const char *_Cystck_init_name;
static PyObject *created_module_name;

static const char *creating_module(PyObject *module)
{
    PyObject *name = created_module_name;
    if (module != NULL && PyModule_Check(module)) {
        const char *own = PyModule_GetName(module);
        if (own != NULL)
            return own;
        PyErr_Clear();      /* a module without a name: fall back as below */
    }
    if (name != NULL) {
        const char *utf8 = PyUnicode_AsUTF8(name);
        if (utf8 != NULL)
            return utf8;
        PyErr_Clear();      /* no memory for its UTF-8: the init name will do */
    }
    return _Cystck_init_name;
}

/* PyType_FromModuleAndSpec, except that a name without a dot ("Point")
 * gets its module.  CPython would warn ("builtin type Point has no
 * __module__ attribute") and call it builtins, where the stock static type
 * a spec is usually translated from was silently builtins.  The type is
 * made as "module.Point", so __module__ is the module, then its tp_name is
 * set back to "Point" (as `type.__name__ = ...` does): error messages name
 * it as the stock type did. */
static PyObject *pytype_from_spec(PyType_Spec *pyspec, PyObject *module, PyObject *bases)
{
    const char *module_name = creating_module(module);
    PyObject *qualified, *type = NULL;
    if (strchr(pyspec->name, '.') != NULL || module_name == NULL)
        return PyType_FromModuleAndSpec(module, pyspec, bases);
    qualified = PyUnicode_FromFormat("%s.%s", module_name, pyspec->name);
    if (qualified == NULL)
        return NULL;
    pyspec->name = PyUnicode_AsUTF8(qualified);
    if (pyspec->name != NULL)
        type = PyType_FromModuleAndSpec(module, pyspec, bases);
    if (type != NULL) {
        const char *name = PyUnicode_AsUTF8(((PyHeapTypeObject *)type)->ht_name);
        if (name != NULL)
            ((PyTypeObject *)type)->tp_name = name;     /* lives as long as the type */
        else
            Py_CLEAR(type);
    }
    Py_DECREF(qualified);
    return type;
}

/* CystckType_FromSpec and CystckType_FromModuleAndSpec (module: null or a module). */
static Cystck_Object type_from_spec(Cystck_State *S, Cystck_Object module, CystckType_Spec *spec,
                                    Cystck_Object bases)
{
    Py_ssize_t n[5], im = 0, imem = 0, igs = 0, isl = 0;
    PyMethodDef *methods;
    PyMemberDef *members;
    PyGetSetDef *getsets;
    PyType_Slot *slots;
    PyType_Spec pyspec;
    PyObject *type;
    CystckDef **d;
    void *own_dealloc = NULL, *own_plain_dealloc = NULL;
    int gc;

    if (spec == NULL || spec->name == NULL) {
        PyErr_SetString(PyExc_SystemError, "CystckType_FromSpec: a spec with no name");
        return Cystck_NULL;
    }
    if (spec->itemsize != 0 && (spec->basicsize < 0 || (size_t)spec->basicsize < _CYSTCK_VAR_HEAD_SIZE)) {
        PyErr_Format(PyExc_SystemError, "CystckType_FromSpec: %s has items (itemsize %zd), so its "
                     "native struct must start with CYSTCK_VAR_HEAD", spec->name, spec->itemsize);
        return Cystck_NULL;
    }
    gc = has_slot(spec->defines, Py_tp_traverse);
    count_defines(spec->defines, n);
    /* Method, member and getset arrays must outlive the type: they are
     * allocated once per type and never freed (like static tables). */
    methods = (PyMethodDef *)PyMem_Calloc((size_t)n[CystckDef_Meth] + 1, sizeof(PyMethodDef));
    members = (PyMemberDef *)PyMem_Calloc((size_t)n[CystckDef_Member] + 1, sizeof(PyMemberDef));
    getsets = (PyGetSetDef *)PyMem_Calloc((size_t)n[CystckDef_GetSet] + 1, sizeof(PyGetSetDef));
    slots = (PyType_Slot *)PyMem_Calloc((size_t)n[CystckDef_Slot] + 8, sizeof(PyType_Slot));
    if (!methods || !members || !getsets || !slots) {
        PyMem_Free(methods); PyMem_Free(members); PyMem_Free(getsets); PyMem_Free(slots);
        PyErr_NoMemory();
        return Cystck_NULL;
    }
    for (d = spec->defines; d != NULL && *d != NULL; d++) {
        switch ((*d)->kind) {
        case CystckDef_Meth:
            methods[im] = (*d)->meth;
            methods[im++].ml_meth = (PyCFunction)(void (*)(void))
                _Cystck_Twin((void *)(*d)->meth.ml_meth, (*d)->debug_twin);
            break;
        case CystckDef_Member: members[imem++] = (*d)->member; break;
        case CystckDef_GetSet:
            getsets[igs] = (*d)->getset;
            getsets[igs].get = (getter)_Cystck_Twin((void *)(*d)->getset.get, (*d)->debug_twin);
            getsets[igs++].set = (setter)_Cystck_Twin((void *)(*d)->getset.set, (*d)->debug_twin_set);
            break;
        case CystckDef_Slot:
            slots[isl] = (*d)->slot;
            slots[isl].pfunc = _Cystck_Twin((*d)->slot.pfunc, (*d)->debug_twin);
            if ((*d)->slot.slot == Py_tp_dealloc) {
                own_dealloc = slots[isl].pfunc;
                own_plain_dealloc = (*d)->plain_dealloc;
            }
            isl++;
            break;
        }
    }
    if (im) { slots[isl].slot = Py_tp_methods; slots[isl++].pfunc = methods; }
    if (imem) { slots[isl].slot = Py_tp_members; slots[isl++].pfunc = members; }
    if (igs) { slots[isl].slot = Py_tp_getset; slots[isl++].pfunc = getsets; }
    if (spec->doc) { slots[isl].slot = Py_tp_doc; slots[isl++].pfunc = (void *)spec->doc; }
    if (!has_slot(spec->defines, Py_tp_dealloc)) {
        slots[isl].slot = Py_tp_dealloc;
        slots[isl++].pfunc = gc ? (void *)generic_dealloc : (void *)plain_dealloc;
    }
    if (gc && !has_slot(spec->defines, Py_tp_clear)) {
        slots[isl].slot = Py_tp_clear;
        slots[isl++].pfunc = (void *)generic_clear;
    }
    slots[isl].slot = 0;
    slots[isl].pfunc = NULL;

    pyspec.name = spec->name;
    pyspec.basicsize = (int)(CYSTCK_DATA_OFFSET + (size_t)spec->basicsize);
    pyspec.itemsize = (int)spec->itemsize;
    pyspec.flags = (unsigned int)(Py_TPFLAGS_DEFAULT | spec->flags | (gc ? Py_TPFLAGS_HAVE_GC : 0));
    pyspec.slots = slots;
    type = pytype_from_spec(&pyspec, _Cystck_Get(module), _Cystck_Get(bases));
    if (type != NULL && mark_plain((PyTypeObject *)type) < 0)
        Py_CLEAR(type);
    if (type != NULL && own_dealloc == NULL && inherit_destructor((PyTypeObject *)type) < 0)
        Py_CLEAR(type);
    if (type != NULL && own_dealloc != NULL &&
        (record_destructor_dealloc(own_dealloc, own_dealloc) < 0 ||
         (own_plain_dealloc != NULL && record_destructor_dealloc(own_plain_dealloc, own_dealloc) < 0)))
        Py_CLEAR(type);
    if (type != NULL && own_plain_dealloc != NULL)
        install_plain_dealloc((PyTypeObject *)type, (destructor)own_dealloc, (destructor)own_plain_dealloc);
    if (type != NULL && _Cystck_PublishTypedSignatures(type, spec->defines) < 0)
        Py_CLEAR(type);
    PyMem_Free(slots);     /* copied by CPython */
    if (!im) PyMem_Free(methods);
    if (!imem) PyMem_Free(members);
    if (!igs) PyMem_Free(getsets);
    return _Cystck_Own(S, type);
}

Cystck_Object CystckType_FromSpec(Cystck_State *S, CystckType_Spec *spec, Cystck_Object bases)
{
    return type_from_spec(S, Cystck_NULL, spec, bases);
}

Cystck_Object CystckType_FromModuleAndSpec(Cystck_State *S, Cystck_Object module, CystckType_Spec *spec,
                                           Cystck_Object bases)
{
    if (Cystck_IsNull(module))
        return _Cystck_BadArgAt(S, "CystckType_FromModuleAndSpec", module, _CYSTCK_CALLER());
    return type_from_spec(S, module, spec, bases);
}

int _Cystck_IsInstanceOfSubtype(PyObject *o, PyObject *t)
{
    return PyType_Check(t) && PyType_IsSubtype(Py_TYPE(o), (PyTypeObject *)t);
}

int CystckType_IsSubtype(Cystck_State *S, Cystck_Object a, Cystck_Object b)
{
    PyObject *a_ = _Cystck_Get(a), *b_ = _Cystck_Get(b);
    if (!a_ || !b_) {
        _Cystck_BadArgAt(S, "CystckType_IsSubtype", !a_ ? a : b, _CYSTCK_CALLER());
        return -1;
    }
    if (!PyType_Check(a_) || !PyType_Check(b_)) {
        PyErr_SetString(PyExc_TypeError, "CystckType_IsSubtype: arguments must be types");
        return -1;
    }
    return PyType_IsSubtype((PyTypeObject *)a_, (PyTypeObject *)b_);
}

/* The object of a valid handle as a type, or NULL with TypeError. */
static PyTypeObject *object_as_type(PyObject *t, const char *func)
{
    if (!PyType_Check(t)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a type, got %.200s",
                     func, Py_TYPE(t)->tp_name);
        return NULL;
    }
    return (PyTypeObject *)t;
}

static PyTypeObject *as_type(Cystck_State *S, Cystck_Object type, const char *func,
                             const void *where)
{
    PyObject *t = _Cystck_Get(type);
    if (t == NULL) {
        _Cystck_BadArgAt(S, func, type, where);
        return NULL;
    }
    return object_as_type(t, func);
}

/* Cystck_New with an invalid handle: the error (the header has the inline
 * fast path). */
CYSTCK_NOINLINE PyObject *_Cystck_NewObjectSlow_Ool(Cystck_State *S, Cystck_Object type)
{
    PyTypeObject *tp = as_type(S, type, "Cystck_New", _CYSTCK_CALLER());
    return tp != NULL ? tp->tp_alloc(tp, 0) : NULL;
}

/* Cystck_New's general case for a valid handle: GC and variable-size types,
 * custom tp_alloc, not a type, out of memory. */
CYSTCK_NOINLINE PyObject *_Cystck_NewObjectOf(PyObject *type)
{
    PyTypeObject *tp = object_as_type(type, "Cystck_New");
    return tp != NULL ? tp->tp_alloc(tp, 0) : NULL;
}

Cystck_Object Cystck_NewVar(Cystck_State *S, Cystck_Object type, Cystck_ssize_t n, void **data)
{
    PyTypeObject *tp = as_type(S, type, "Cystck_NewVar", _CYSTCK_CALLER());
    PyObject *o = NULL;
    if (tp != NULL && tp->tp_itemsize == 0)
        PyErr_Format(PyExc_TypeError, "Cystck_NewVar: %.200s is not a variable-size type "
                     "(its spec has no itemsize)", tp->tp_name);
    else if (tp != NULL && n < 0)
        PyErr_Format(PyExc_SystemError, "Cystck_NewVar: negative item count %zd", n);
    else if (tp != NULL)
        o = tp->tp_alloc(tp, n);      /* zeroed, ob_size = n */
    if (data != NULL)
        *data = o != NULL ? (char *)o + CYSTCK_DATA_OFFSET : NULL;
    return _Cystck_Own(S, o);
}

/* type->tp_alloc(type, n) as stock code calls it: a variable-size type gets
 * n items; a type without items ignores the count, as stock's generic
 * tp_alloc does (it allocates basicsize + (n + 1) * itemsize bytes, zeroed),
 * so the instance is a plain zeroed one. */
Cystck_Object CystckType_GenericAlloc(Cystck_State *S, Cystck_Object type, Cystck_ssize_t n)
{
    PyTypeObject *tp = as_type(S, type, "CystckType_GenericAlloc", _CYSTCK_CALLER());
    PyObject *o = NULL;
    if (tp != NULL && tp->tp_itemsize != 0 && n < 0)
        PyErr_Format(PyExc_SystemError, "CystckType_GenericAlloc: negative item count %zd", n);
    else if (tp != NULL)
        o = tp->tp_alloc(tp, n);
    return _Cystck_Own(S, o);
}

Cystck_Object CystckType_GenericNew(Cystck_State *S, Cystck_Object type)
{
    return Cystck_NewZeroed(S, type, NULL);     /* as PyType_GenericNew's tp_alloc */
}

const char *CystckType_GetName(Cystck_State *S, Cystck_Object type)
{
    PyTypeObject *tp = as_type(S, type, "CystckType_GetName", _CYSTCK_CALLER());
    return tp ? tp->tp_name : NULL;
}

/* type.__name__ and type.__qualname__: for a heap type the very str objects
 * stock code reads as ht_name and ht_qualname (PyType_GetName and
 * PyType_GetQualName from 3.11; before, what they do). */
Cystck_Object CystckType_GetNameObject(Cystck_State *S, Cystck_Object type)
{
    PyTypeObject *tp = as_type(S, type, "CystckType_GetNameObject", _CYSTCK_CALLER());
    if (tp == NULL)
        return Cystck_NULL;
#if PY_VERSION_HEX >= 0x030B0000
    return _Cystck_Own(S, PyType_GetName(tp));
#else
    if (PyType_HasFeature(tp, Py_TPFLAGS_HEAPTYPE))
        return _Cystck_Own(S, Py_NewRef(((PyHeapTypeObject *)tp)->ht_name));
    const char *dot = strrchr(tp->tp_name, '.');
    return _Cystck_Own(S, PyUnicode_FromString(dot ? dot + 1 : tp->tp_name));
#endif
}

Cystck_Object CystckType_GetQualName(Cystck_State *S, Cystck_Object type)
{
    PyTypeObject *tp = as_type(S, type, "CystckType_GetQualName", _CYSTCK_CALLER());
    if (tp == NULL)
        return Cystck_NULL;
#if PY_VERSION_HEX >= 0x030B0000
    return _Cystck_Own(S, PyType_GetQualName(tp));
#else
    if (PyType_HasFeature(tp, Py_TPFLAGS_HEAPTYPE))
        return _Cystck_Own(S, Py_NewRef(((PyHeapTypeObject *)tp)->ht_qualname));
    return CystckType_GetNameObject(S, type);
#endif
}

int CystckType_HasFeature(Cystck_State *S, Cystck_Object type, unsigned long feature)
{
    /* 0 with the TypeError for no type (not -1): stock code reads the
     * answer as a truth test, which would read -1 as "set" */
    PyTypeObject *tp = as_type(S, type, "CystckType_HasFeature", _CYSTCK_CALLER());
    return tp != NULL && (PyType_GetFlags(tp) & feature) != 0;
}

/* 0 (no flag) for an object that is no type: the TypeError says why. */
unsigned long CystckType_GetFlags(Cystck_State *S, Cystck_Object type)
{
    PyTypeObject *tp = as_type(S, type, "CystckType_GetFlags", _CYSTCK_CALLER());
    return tp ? PyType_GetFlags(tp) : 0;
}

/* ---- The MRO, the type's dict and descriptor slots ---- */

/* A ready type always has both; only a static type caught inside its own
 * PyType_Ready could lack them. */
static Cystck_Object own_type_part(Cystck_State *S, PyTypeObject *tp, PyObject *part, const char *func)
{
    if (part == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_SystemError, "%s: type %.200s is not ready", func, tp->tp_name);
        return Cystck_NULL;
    }
    return _Cystck_Own(S, part);
}

Cystck_Object CystckType_GetMRO(Cystck_State *S, Cystck_Object type)
{
    PyTypeObject *tp = as_type(S, type, "CystckType_GetMRO", _CYSTCK_CALLER());
    return tp ? own_type_part(S, tp, Py_XNewRef(tp->tp_mro), "CystckType_GetMRO") : Cystck_NULL;
}

/* The live dict, as stock code reading tp_dict gets it.  From 3.12 a static
 * builtin type keeps its dict per interpreter and tp_dict may be NULL:
 * PyType_GetDict is the public way there. */
Cystck_Object CystckType_GetDict(Cystck_State *S, Cystck_Object type)
{
    PyTypeObject *tp = as_type(S, type, "CystckType_GetDict", _CYSTCK_CALLER());
    if (tp == NULL)
        return Cystck_NULL;
#if PY_VERSION_HEX >= 0x030C0000
    return own_type_part(S, tp, PyType_GetDict(tp), "CystckType_GetDict");
#else
    return own_type_part(S, tp, Py_XNewRef(tp->tp_dict), "CystckType_GetDict");
#endif
}

/* What `d.__get__` raises when d's type has no such slot (the messages of
 * object's and type's attribute lookup; without running d's __getattr__,
 * which a proxy forwards to the object it wraps). */
static void no_descr_slot(PyObject *d, const char *method)
{
    if (PyType_Check(d))
        PyErr_Format(PyExc_AttributeError, "type object '%.50s' has no attribute '%s'",
                     ((PyTypeObject *)d)->tp_name, method);
    else
        PyErr_Format(PyExc_AttributeError, "'%.100s' object has no attribute '%s'", Py_TYPE(d)->tp_name, method);
}

Cystck_Object CystckDescr_Get(Cystck_State *S, Cystck_Object d, Cystck_Object obj, Cystck_Object type)
{
    PyObject *d_ = _Cystck_Get(d);
    descrgetfunc get;
    if (d_ == NULL)
        return _Cystck_BadArgAt(S, "CystckDescr_Get", d, _CYSTCK_CALLER());
    get = Py_TYPE(d_)->tp_descr_get;
    if (get == NULL) {
        no_descr_slot(d_, "__get__");
        return Cystck_NULL;
    }
    return _Cystck_Own(S, get(d_, _Cystck_Get(obj), _Cystck_Get(type)));
}

int CystckDescr_Set(Cystck_State *S, Cystck_Object d, Cystck_Object obj, Cystck_Object v)
{
    PyObject *d_ = _Cystck_Get(d), *obj_ = _Cystck_Get(obj), *v_ = _Cystck_Get(v);
    descrsetfunc set;
    if (d_ == NULL || obj_ == NULL) {
        _Cystck_BadArgAt(S, "CystckDescr_Set", !d_ ? d : obj, _CYSTCK_CALLER());
        return -1;
    }
    set = Py_TYPE(d_)->tp_descr_set;
    if (set == NULL) {
        no_descr_slot(d_, v_ != NULL ? "__set__" : "__delete__");
        return -1;
    }
    return set(d_, obj_, v_);
}

/* ---- Modules ---- */

/* CPython keeps a pointer to a module's PyModuleDef for the module's whole
 * life, so each CystckModuleDef gets one, built at first import and never
 * freed (an extension has one or a few). */
typedef struct PyDefEntry {
    struct PyDefEntry *next;
    const CystckModuleDef *def;
    PyModuleDef pydef;
} PyDefEntry;

static PyDefEntry *pydefs;

static PyModuleDef *pydef_if_created(const CystckModuleDef *def)
{
    PyDefEntry *e;
    for (e = pydefs; e != NULL; e = e->next)
        if (e->def == def)
            return &e->pydef;
    return NULL;
}

static PyModuleDef *pydef_for(CystckModuleDef *def)
{
    static const PyModuleDef head = { PyModuleDef_HEAD_INIT, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL };
    Py_ssize_t n[5], i = 0;
    PyDefEntry *e;
    CystckDef **d;
    PyModuleDef *existing = pydef_if_created(def);

    if (existing != NULL)
        return existing;
    count_defines(def->defines, n);
    if (n[CystckDef_Member] || n[CystckDef_GetSet]) {
        PyErr_Format(PyExc_SystemError,
                     "module %s: only functions and module slots can be defined at module level",
                     def->name);
        return NULL;
    }
    e = (PyDefEntry *)PyMem_RawCalloc(1, sizeof(PyDefEntry));
    if (e != NULL)
        e->pydef.m_methods = (PyMethodDef *)PyMem_RawCalloc((size_t)n[CystckDef_Meth] + 1,
                                                            sizeof(PyMethodDef));
    if (e == NULL || e->pydef.m_methods == NULL) {
        PyMem_RawFree(e);
        PyErr_NoMemory();
        return NULL;
    }
    for (d = def->defines; d != NULL && *d != NULL; d++)
        if ((*d)->kind == CystckDef_Meth) {
            e->pydef.m_methods[i] = (*d)->meth;
            e->pydef.m_methods[i++].ml_meth = (PyCFunction)(void (*)(void))
                _Cystck_Twin((void *)(*d)->meth.ml_meth, (*d)->debug_twin);
        }
    e->pydef.m_base = head.m_base;
    e->pydef.m_name = def->name;
    e->pydef.m_doc = def->doc;
    e->pydef.m_size = def->size > 0 ? def->size : -1;
    if (n[CystckDef_Slot] && _Cystck_SetModuleSlots(&e->pydef, def) < 0) {
        PyMem_RawFree(e->pydef.m_methods);
        PyMem_RawFree(e);
        return NULL;
    }
    e->def = def;
    e->next = pydefs;
    pydefs = e;
    return &e->pydef;
}

PyModuleDef *Cystck_AsPyModuleDef(const CystckModuleDef *def)
{
    return pydef_if_created(def);
}

CystckModuleDef *_Cystck_ModuleDefOf(PyModuleDef *pydef)
{
    return (CystckModuleDef *)((PyDefEntry *)((char *)pydef - offsetof(PyDefEntry, pydef)))->def;
}

Cystck_Object CystckModuleDef_Init(Cystck_State *S, CystckModuleDef *def)
{
    PyModuleDef *pydef = pydef_for(def);
    if (pydef == NULL)
        return Cystck_NULL;
    if (pydef->m_size < 0)     /* a definition without slots: "no state" is 0 here */
        pydef->m_size = 0;
    return _Cystck_OwnBorrowed(S, PyModuleDef_Init(pydef));
}

Cystck_Object CystckModule_Create(Cystck_State *S, CystckModuleDef *def)
{
    PyModuleDef *pydef = pydef_for(def);
    PyObject *m;
    if (pydef == NULL)
        return Cystck_NULL;
    m = PyModule_Create(pydef);
    if (m != NULL) {
        PyObject *name = PyModule_GetNameObject(m);    /* for pytype_from_spec */
        if (name == NULL)
            Py_CLEAR(m);
        else
            Py_XSETREF(created_module_name, name);
    }
    if (m != NULL && _Cystck_PublishTypedSignatures(m, def->defines) < 0)
        Py_CLEAR(m);
    return _Cystck_Own(S, m);
}

Cystck_Object CystckModule_Find(Cystck_State *S, CystckModuleDef *def)
{
    PyModuleDef *pydef = pydef_if_created(def);
    if (pydef == NULL)
        return Cystck_NULL;
    return _Cystck_OwnBorrowed(S, PyState_FindModule(pydef));
}

/* The definition CystckModule_FindState looked up last and its PyModuleDef:
 * extensions look the state up per object (ujson: every container it
 * encodes), and the inline fast path reads these. */
const CystckModuleDef *_Cystck_found_def;
PyModuleDef *_Cystck_found_pydef;

void *_Cystck_ModuleFindStateSlow_Ool(Cystck_State *S, CystckModuleDef *def)
{
    PyObject *m;
    (void)S;
    if (def != _Cystck_found_def) {
        PyModuleDef *pydef = pydef_if_created(def);
        if (pydef != NULL) {
            _Cystck_found_pydef = pydef;
            _Cystck_found_def = def;
        }
        else {
            PyErr_Format(PyExc_SystemError, "CystckModule_FindState: module %s is not loaded",
                         def->name);
            return NULL;
        }
    }
    if (_Cystck_found_pydef->m_slots != NULL) {
        PyErr_Format(PyExc_SystemError,
                     "CystckModule_FindState: module %s is initialized in phases, so one "
                     "process may hold several: reach the state from the module (self of its "
                     "functions) or with CystckType_GetModuleByDef", def->name);
        return NULL;
    }
    if ((m = PyState_FindModule(_Cystck_found_pydef)) == NULL) {
        PyErr_Format(PyExc_SystemError, "CystckModule_FindState: module %s is not loaded",
                     def->name);
        return NULL;
    }
    return PyModule_GetState(m);
}

/* The module a type was made for (CystckType_FromModuleAndSpec): that of
 * the type, or of the first base in its MRO, made from def.  What methods of
 * the types of a multi-phase module use to reach its state, since
 * PyState_FindModule knows single-phase modules only. */
Cystck_Object CystckType_GetModuleByDef(Cystck_State *S, Cystck_Object type, CystckModuleDef *def)
{
    PyTypeObject *tp = as_type(S, type, "CystckType_GetModuleByDef", _CYSTCK_CALLER());
    PyModuleDef *pydef = pydef_if_created(def);
    if (tp == NULL)
        return Cystck_NULL;
    if (pydef == NULL) {
        PyErr_Format(PyExc_TypeError, "CystckType_GetModuleByDef: module %s is not loaded", def->name);
        return Cystck_NULL;
    }
#if PY_VERSION_HEX >= 0x030B0000
    return _Cystck_OwnBorrowed(S, PyType_GetModuleByDef(tp, pydef));
#else
    return _Cystck_OwnBorrowed(S, _PyType_GetModuleByDef(tp, pydef));
#endif
}

Cystck_Object CystckType_GetModule(Cystck_State *S, Cystck_Object type)
{
    PyTypeObject *tp = as_type(S, type, "CystckType_GetModule", _CYSTCK_CALLER());
    return tp != NULL ? _Cystck_OwnBorrowed(S, PyType_GetModule(tp)) : Cystck_NULL;
}

void *CystckType_GetModuleState(Cystck_State *S, Cystck_Object type)
{
    PyTypeObject *tp = as_type(S, type, "CystckType_GetModuleState", _CYSTCK_CALLER());
    return tp != NULL ? PyType_GetModuleState(tp) : NULL;
}

void *CystckModule_GetState(Cystck_State *S, Cystck_Object m)
{
    PyObject *m_ = _Cystck_Get(m);
    if (m_ == NULL) {
        _Cystck_BadArgAt(S, "CystckModule_GetState", m, _CYSTCK_CALLER());
        return NULL;
    }
    return PyModule_GetState(m_);
}

int CystckModule_AddType(Cystck_State *S, Cystck_Object m, Cystck_Object type)
{
    PyObject *m_ = _Cystck_Get(m);
    PyTypeObject *tp = as_type(S, type, "CystckModule_AddType", _CYSTCK_CALLER());
    if (m_ == NULL) {
        _Cystck_BadArgAt(S, "CystckModule_AddType", m, _CYSTCK_CALLER());
        return -1;
    }
    if (tp == NULL)
        return -1;
    return PyModule_AddType(m_, tp);
}
