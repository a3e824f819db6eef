"""Each rule's negative example: a near miss of what the rule rewrites (the
same name in a comment or a string, a pointer that is no object, a struct
that is no object type, a member named like an API function, a function
that is no entry point or that stays stock...) that the rule, run alone,
must leave as it is.

A rule's ``before``/``after`` example (tests/migrate/test_rules.py) shows
what it rewrites; ``LEAVE_ALONE`` shows what it must not.  A new rule gets
an entry here (the completeness test names the rules that lack one), and
``POSITIVE_TWINS`` turns some near misses into the real construct with one
small change, to show that those examples test their rule rather than
nothing."""
import pytest

from cystck.migrate import engine, translate

RULES = {r.name: r for r in engine.all_rules()}

# A capsule made with a destructor (with NULL, the function is a helper like any other).
STOCK_DESTRUCTOR = "PyCapsule_New(o, NULL, destroy)"


def in_capsule_destructor(statements):
    """``statements`` in a capsule destructor, a function that keeps its
    stock body (CPython calls it with a ``PyObject *`` and no state)."""
    return ("static void destroy(PyObject *capsule)\n{\n"
            "    PyObject *o = (PyObject *)PyCapsule_GetPointer(capsule, NULL);\n"
            f"    {statements}\n}}\n"
            f"static PyObject *f(PyObject *o) {{ return {STOCK_DESTRUCTOR}; }}\n")


LEAVE_ALONE = {
    # A function-level static that is no object, and a static object
    # whose reference count the function changes (left to a human).
    "function-static-refs": (
        "static PyObject *f(PyObject *o)\n{\n    static long calls = 0;\n    static PyObject *last = NULL;\n"
        "    calls++;\n    Py_XDECREF(last);\n    last = o;\n    Py_INCREF(last);\n"
        "    return PyLong_FromLong(calls);\n}\n"),
    # The macro declares a pointer to a method table, not the table; a
    # table declared in a function (only a module definition is written
    # out there).
    "declaration-macros": (
        "#define TABLE static PyMethodDef *table\n"
        "TABLE = NULL;\n"
        "#define LOCAL_TABLE static PyMethodDef local[] = {{NULL}};\n"
        "static PyMethodDef *f(void)\n{\n    LOCAL_TABLE\n    return local;\n}\n"),
    # The function the macro expands to, already written out, and a macro
    # call whose constant is no plain name (kept for the escape hatch).
    "module-macro-constants": (
        "#define LIMIT 10\n"
        "static int add(PyObject *m) { return PyModule_AddIntConstant(m, \"LIMIT\", LIMIT)"
        " || PyModule_AddIntMacro(m, (LIMIT)); }\n"),
    # The macro does more than cast its argument: it names another function.
    "table-cast-macros": (
        "#define CFUNC(f) ((PyCFunction)(void (*)(void))(f##_impl))\n"
        "static PyObject *f_impl(PyObject *self, PyObject *o) { return PyTuple_New(0); }\n"
        "static PyMethodDef methods[] = {{\"f\", CFUNC(f), METH_O, NULL}, {NULL}};\n"),
    # The macro lists two elements, not one: it stays.
    "table-entry-macros": (
        "#define TWO_METHODDEFS {\"f\", (PyCFunction)f, METH_NOARGS, NULL}, {\"g\", (PyCFunction)f, METH_NOARGS, NULL},\n"
        "static PyObject *f(PyObject *self, PyObject *unused) { return PyTuple_New(0); }\n"
        "static PyMethodDef methods[] = {\n    TWO_METHODDEFS\n    {NULL}\n};\n"),
    # The macro's function uses no API: nothing to translate in it.
    "function-macros": (
        "#define DEFINE_GET(type) \\\n"
        "static long type##_get(long v) \\\n"
        "{ return v; }\n"
        "DEFINE_GET(Foo)\n"
        "static PyObject *neg(PyObject *o) { return PyNumber_Negative(o); }\n"),
    # Another cppy header, and the include in a comment.
    "cppy-include": (
        "#include <cppy/defines.h>\n"
        "// #include <cppy/cppy.h>\n"
        "static PyObject *f(PyObject *o) { return cppy::incref(o); }\n"),
    # Other classes' get() and set(), the smart pointer in a comment.  (Before,
    # bits.set(3) became bits = 3.)
    "cppy-ptr": (
        "#include <cppy/cppy.h>\n#include <bitset>\n#include <memory>\n"
        "static PyObject *f(PyObject *o)\n{\n"
        "    std::bitset<8> bits;\n    std::unique_ptr<long> n(new long(1));\n"
        "    bits.set(3);\n"
        "    // cppy::ptr a(o); a.is_none()\n"
        "    return PyLong_FromLong(*n.get() + (long)bits.to_ulong());\n}\n"),
    # Reference helpers of another namespace.
    "cppy-refs": (
        "#include <cppy/cppy.h>\n"
        "static void f(PyObject *o, PyObject *p)\n{\n"
        "    detail::incref(o);\n    detail::decref(p);\n}\n"),
    # std::runtime_error is an exception thrown, not one set.
    "cppy-errors": (
        "#include <cppy/cppy.h>\n"
        "static PyObject *f(PyObject *o)\n{\n"
        "    if (!o)\n        throw std::runtime_error(\"no object\");\n"
        "    return cppy::incref(o);\n}\n"),
    # A commented-out Python.h and headers named like structmember.h.
    "include-header": (
        "/* #include <Python.h> */\n"
        "#include \"python_helpers.h\"\n"
        "#include <structmember_compat.h>\n"
        "static PyObject *cache;\n"),
    # A parameter s (not S); an S in a macro that uses no API.
    "macro-state-param": (
        "#define NAME(s) PyUnicode_FromString(#s)\n"
        "#define MAX(S, T) ((S) > (T) ? (S) : (T))\n"),
    # A member macro of a native struct: no object head in it.
    "struct-member-macros": (
        "#define POINT(p) \\\n    double p##_x; \\\n    double p##_y;\n\n"
        "typedef struct {\n    POINT(a)\n    PyObject *owner;\n} Segment;\n"),
    # Object members but no PyObject_HEAD: a native struct, no instance struct.
    "object-struct": (
        "typedef struct {\n    PyObject *value;\n    long n;\n} Pair;\n"),
    # Members that are no object pointers: a function returning one, a buffer.
    "struct-members": (
        "typedef struct {\n    PyObject *(*make)(PyObject *);\n    Py_buffer *view;\n    int n;\n} Ctx;\n"
        "static void f(Ctx *c) { g(c->view); }\n"),
    # The same parsing in a function no method table lists.
    "typed-entry": (
        "static PyObject *\nscale(PyObject *self, PyObject *args, PyObject *kw)\n{\n"
        "    static char *kwlist[] = {\"x\", \"k\", NULL};\n    double x, k = 2.0;\n"
        "    if (!PyArg_ParseTupleAndKeywords(args, kw, \"d|d:scale\", kwlist, &x, &k))\n        return NULL;\n"
        "    return PyFloat_FromDouble(x * k);\n}\n"
        "static PyMethodDef m[] = {{\"scale\", (PyCFunction)scale_impl, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n"),
    # A macro in type initialisers that holds no slots, only the name.
    "type-slot-macros": (
        "#define PREFIX \"m.\"\n\n"
        "static PyTypeObject KeysType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    PREFIX \"keys\",\n};\n"
        "static PyTypeObject ItemsType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    PREFIX \"items\",\n};\n"),
    # iso646 operators on what is no handle: an int, a char pointer.
    "iso646-null-handles": (
        "#include <iso646.h>\nstatic int f(PyObject *o, int done, char *p)\n{\n"
        "    if (not done or not p)\n        return 0;\n    return (p and done) or o == NULL;\n}\n"),
    # A handle passed to a macro that also uses the parameter as a value
    # (`keep(e)`), and a char pointer passed to one that only tests it.
    "truth-macro-handle-args": (
        "#define KEEP(e) do { if (!(e)) keep(e); } while (0)\n"
        "#define CHECK(e) do { if (!(e)) abort(); } while (0)\n"
        "static PyObject *f(PyObject *o, char *p) { KEEP(o); CHECK(p); return o; }\n"),
    # A braced-body macro used as the element of an array of another struct.
    "table-element-macros": (
        "#define ENTRY(n, v) {#n, v}\n"
        "static PyObject *get(PyObject *self, PyObject *o) { return o; }\n"
        "static struct pair pairs[] = {\n    ENTRY(get, 1),\n    {NULL, 0}\n};\n#undef ENTRY\n"
        "static PyMethodDef methods[] = {\n    {\"get\", (PyCFunction)get, METH_O, NULL},\n    {NULL}\n};\n"),
    # tp_new given a function after PyType_Ready: instances can be made.
    "disallow-instantiation": (
        "static PyTypeObject CursorType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Cursor\",\n"
        "    .tp_flags = Py_TPFLAGS_DEFAULT,\n    .tp_new = PyType_GenericNew,\n};\n"
        "static int ready(void)\n{\n    if (PyType_Ready(&CursorType) < 0)\n        return -1;\n"
        "    CursorType.tp_new = Cursor_new;\n    return 0;\n}\n"),
    # An instance's own vectorcall member, not the type's slot.
    "runtime-vectorcall": (
        "typedef struct { PyObject_HEAD vectorcallfunc vectorcall; } Foo;\n"
        "static PyObject *make(PyTypeObject *type)\n{\n"
        "    Foo *self = (Foo *)type->tp_alloc(type, 0);\n"
        "    self->vectorcall = Foo_vectorcall;\n    return (PyObject *)self;\n}\n"),
    # A pointer to a type, and a local one: no static type defined here.
    "type-object": (
        "extern PyTypeObject *BoxTypePtr;\n"
        "static PyObject *f(PyObject *o) { PyTypeObject *t = Py_TYPE(o); return PyLong_FromSsize_t(t->tp_basicsize); }\n"),
    # A spec received by pointer, not defined here.
    "type-spec": (
        "static PyObject *make(PyType_Spec *spec) { return PyType_FromSpec(spec); }\n"),
    # A member that is no class static, and a static that is no type.
    "class-type-statics": (
        "struct Box\n{\n    PyObject_HEAD\n    PyTypeObject* kind;\n    static int count;\n};\n"
        "int Box::count = 0;\n"),
    # A single-phase module: no slots.
    "multi-phase-init": (
        "static PyObject *neg(PyObject *self, PyObject *o) { return PyNumber_Negative(o); }\n"
        "static PyMethodDef spam_methods[] = {{\"neg\", neg, METH_O, NULL}, {NULL}};\n"
        "static struct PyModuleDef spam = {PyModuleDef_HEAD_INIT, \"spam\", NULL, -1, spam_methods, NULL};\n"),
    # A method definition read through a pointer, no table.
    "method-table": (
        "static PyObject *name(PyMethodDef *ml) { return PyUnicode_FromString(ml->ml_name); }\n"),
    # A module's definition read back through a pointer, none defined.
    "module-def": (
        "static const char *name(PyObject *m) { PyModuleDef *def = PyModule_GetDef(m); return def->m_name; }\n"),
    # A METH_O method's argument and a self discarded: both stay in the
    # Cystck signature; a discard in a helper, not an entry point.
    "dropped-param-discards": (
        "#define UNUSED(x) (void)(x)\n"
        "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    UNUSED(arg);\n    (void)self;\n"
        "    Py_RETURN_NONE;\n}\n"
        "static long g(PyObject *a, long b)\n{\n    (void)a;\n    return b;\n}\n"
        "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n"),
    # An init function in a comment; a helper named like one; a static
    # function named like an init (CPython cannot find it); another
    # module's init called, its result cast.
    "modinit": (
        "/* PyMODINIT_FUNC PyInit_spam(void); */\n"
        "static PyObject *\ninit_spam(void)\n{\n    return PyModule_Create(&mod);\n}\n"
        "static PyObject *PyInit_helper(void) { return PyModule_Create(&other); }\n"
        "static PyObject *load(void) { return (PyObject *)PyInit_helper(); }\n"),
    # The first member is a native struct, not a base type's.
    "base-struct-upcast": (
        "typedef struct { long a; } Base;\n"
        "typedef struct { PyObject_HEAD Base base; long n; } Sub;\n"
        "static int check(Base *b);\n"
        "static PyObject *get(Sub *self)\n{\n"
        "    if (!self->base.a || check(&self->base) < 0)\n        return NULL;\n"
        "    return PyLong_FromLong(self->n);\n}\n"),
    # A member named weakreflist in a type without a weak list.
    "weak-lists": (
        "typedef struct { PyObject_HEAD PyObject *weakreflist; long n; } Box;\n"
        "static PyObject *Box_new(PyTypeObject *type, PyObject *args, PyObject *kw)\n{\n"
        "    Box *self = (Box *)type->tp_alloc(type, 0);\n    self->weakreflist = NULL;\n"
        "    return (PyObject *)self;\n}\n"
        "static void Box_dealloc(Box *self)\n{\n    if (self->weakreflist != NULL)\n"
        "        PyObject_ClearWeakRefs((PyObject *)self);\n    free_native(self->n);\n}\n"
        "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Box_dealloc,"
        " .tp_new = Box_new};\n"),
    # A function named like a destructor that no type uses as one.
    "destroy-traverse": (
        "typedef struct { PyObject_HEAD PyObject *v; double *buf; } Box;\n"
        "static void Box_dealloc(Box *self)\n{\n    PyObject_GC_UnTrack(self);\n    free(self->buf);\n"
        "    Py_XDECREF(self->v);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
        "static void Box_free(Box *self) { self->ob_type->tp_free((PyObject *)self); }\n"
        "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Other_dealloc};\n"),
    # A destructor that also calls a native function stays a destructor.
    "finalizer-releases": (
        "typedef struct { PyObject_HEAD PyObject *d; double *buf; } Bag;\n"
        "static PyObject *Bag_empty(Bag *self) { PyDict_Clear(self->d); Py_RETURN_NONE; }\n"
        "static void Bag_dealloc(Bag *self)\n{\n    Bag_empty(self);\n    free(self->buf);\n"
        "    Py_XDECREF(self->d);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
        "static PyTypeObject BagType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Bag_dealloc};\n"),
    # A destructor whose API call and native release share control flow
    # (one if) is not split.
    "destructor-split": (
        "typedef struct { PyObject_HEAD PyObject *d; double *buf; } Bag;\n"
        "static PyObject *Bag_empty(Bag *self) { PyDict_Clear(self->d); Py_RETURN_NONE; }\n"
        "static void\nBag_dealloc(Bag *self)\n{\n    if (self->d) {\n        Bag_empty(self);\n"
        "        free(self->buf);\n    }\n    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
        "static PyTypeObject BagType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_dealloc = (destructor)Bag_dealloc};\n"),
    # A function-pointer type over C values; the stock name in a comment.
    # A local given another type's slot, not one of the extension's functions.
    "own-function-pointer-locals": (
        "static PyObject *neg(PyObject *o) { return PyNumber_Negative(o); }\n"
        "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
        "    unaryfunc g = Py_TYPE(o)->tp_as_number->nb_negative;\n    return g(o);\n}\n"),
    "stock-function-pointers": (
        "typedef long (*longfunc)(long);\n"
        "typedef struct { PyObject_HEAD longfunc step; } It;  /* binaryfunc yield; */\n"
        "static long call(It *it, longfunc f, long a) { return f(a); }\n"),
    # An API function given to a pointer over C values, and one cast to
    # a pointer of another shape (a larger argument than the name).
    "api-function-values": (
        "static long apply(PyObject *a, long (*op)(PyObject *)) { return op(a); }\n"
        "static long value(PyObject *a) { return apply(a, PyLong_AsLong); }\n"
        "static PyObject *twice(PyObject *a, binaryfunc op) { return op(a, a); }\n"
        "static PyObject *neg(PyObject *a) { return twice(a, (binaryfunc)PyNumber_Negative); }\n"),
    # A macro reading a member that is no object, and one reading an
    # object member written to through it (an lvalue).
    "member-read-macros": (
        "typedef struct { PyObject_HEAD long n; PyObject *obj; } Box;\n"
        "#define Box_N(ob) (((Box *)(ob))->n)\n"
        "#define Box_OBJ(ob) (((Box *)(ob))->obj)\n"
        "static PyObject *get(PyObject *self) { Box_OBJ(self) = NULL; return PyLong_FromLong(Box_N(self)); }\n"),
    # A native struct reached through a pointer, not an instance struct.
    "struct-access": (
        "typedef struct { PyObject *v; long n; } Native;\n"
        "static PyObject *get(Native *p, PyObject *x)\n{\n    p->n++;\n    return p->v;\n}\n"),
    # The macro is given a native struct.
    "macro-struct-args": (
        "typedef struct { long lock; } Native;\n"
        "#define LOCK(o) take(&(o)->lock)\n"
        "static PyObject *get(Native *n, PyObject *x)\n{\n    LOCK(n);\n    return PyNumber_Negative(x);\n}\n"),
    # A functor over pointers to a native struct.
    "struct-pointer-objects": (
        "typedef struct { PyObject *owner; double constant; } Term;\n"
        "struct Add\n{\n    PyObject* operator()( Term* first, Term* second )\n    {\n"
        "        return PyTuple_Pack( 2, first->owner, second->owner );\n    }\n};\n"),
    # A slot read and compared, not called.
    "slot-calls": (
        "static int has_item(PyObject *d)\n{\n"
        "    return Py_TYPE(d)->tp_as_mapping != NULL && Py_TYPE(d)->tp_as_mapping->mp_subscript != NULL;\n}\n"),
    # An entry point's signature in a function no table lists.
    "entry-signature": (
        "static PyObject *add(PyObject *self, PyObject *args);\n"
        "static PyMethodDef m[] = {{\"add\", add_impl, METH_VARARGS, NULL}, {NULL}};\n"
        "static PyObject *\nadd(PyObject *self, PyObject *args)\n{\n    return NULL;\n}\n"),
    # A function with the state that is no entry point stays extern.
    "entry-linkage": (
        "int\nBox_count(Cystck_State *S, Cystck_Object self)\n{\n"
        "    return Cystck_Return(S, PyLong_FromLong(1));\n}\n"
        "CYSTCK_DEF_SLOT(Box_repr_def, tp_repr, Box_repr)\n"),
    # A function over C values of stock types uses no API; nor does such a
    # function-pointer typedef.
    "helper-signature": (
        "typedef Py_ssize_t (*sizefunc)(Py_ssize_t);\n"
        "typedef Py_ssize_t (*walkfunc)(Py_ssize_t n,\n                              void (*visit)(const char *));\n"
        "static Py_ssize_t twice(Py_ssize_t n)\n{\n    return 2 * n;\n}\n"),
    # A pointer to C values, and object pointers in a string and a sizeof.
    "declarations": (
        "static void f(void)\n{\n    Py_ssize_t *sizes = NULL;\n    const char *decl = \"PyObject *a, *b\";\n"
        "    size_t n = sizeof(PyObject *);\n}\n"),
    # A template cast of a char buffer, no object.
    "template-casts": (
        "template<typename T>\nstruct Read\n{\n"
        "    T* operator()( char* buf, PyObject* o ) { return reinterpret_cast<T*>( buf ); }\n};\n"),
    # Casts of C pointers that are no objects.
    "casts": (
        "typedef struct { PyObject_HEAD long n; } Box;\n"
        "typedef struct { long n; } Native;\n"
        "static PyObject *f(void *p) { Native *b = (Native *)p; return PyLong_FromLong(b->n + (long)(char *)p); }\n"),
    # Cast macros to types that are not objects.
    "cast-macros": (
        "#define BYTES(p) ((unsigned char *)(p))\n"
        "#define SIZE(n) ((Py_ssize_t)(n))\n"
        "static PyObject *f(char *p) { return PyLong_FromSsize_t(SIZE(*BYTES(p))); }\n"),
    # A C pointer, not an object, stored in and read from a void * slot;
    # an object stored in a member of a C++ type's (a pair's `first`),
    # which the extension does not declare: no C pointer slot.
    "handle-in-c-pointer": (
        "struct job { void (*fn)(void *); void *ptr; };\n"
        "static PyObject *f(PyObject *self, char *p)\n{\n    struct job j;\n    char *back;\n"
        "    j.ptr = p;\n    back = j.ptr;\n    return PyLong_FromLong(back == p);\n}\n"
        "static PyObject *g(PyObject *self, PyObject *o)\n{\n    std::pair<PyObject *, int> pr;\n"
        "    PyObject *back;\n    pr.first = o;\n    back = pr.first;\n    return back;\n}\n"),
    # A function that takes the GIL but that the extension calls itself: its
    # caller passes the state.
    # A capsule of plain data: the table holds numbers and a pointer to an
    # array, no function (a translated function next to it is no entry),
    # made through a pointer to it; a table of functions filled at run time
    # that no capsule exports.
    "capsule-table-entries": (
        "static Cystck_Object make(Cystck_State *S, Cystck_Object o) { return o; }\n"
        "typedef struct { long version; long *counts; } Info;\n"
        "typedef struct { Cystck_Object (*make)(Cystck_State *, Cystck_Object); } Ops;\n"
        "static long counts[4];\n"
        "static Info info = {2, counts};\n"
        "static Info *exported = &info;\n"
        "static Ops ops;\n"
        "static PyObject *f(PyObject *self) {\n    ops.make = make;\n"
        "    return PyCapsule_New((void *)exported, \"m.info\", NULL);\n}\n"),
    "thread-callback-frames": (
        "static void on_event(union sigval v)\n{\n    PyObject *self = v.sival_ptr;\n"
        "    PyGILState_STATE g = PyGILState_Ensure();\n    PyObject_CallMethod(self, \"fired\", NULL);\n"
        "    PyGILState_Release(g);\n}\n"
        "static PyObject *f(PyObject *self, PyObject *o) {\n    union sigval v;\n"
        "    v.sival_ptr = self;\n    on_event(v);\n    return PyLong_FromLong(0);\n}\n"),
    # NULL tests of pointers that are no handles.
    "null-handles": (
        "static void f(PyObject **items, char *p, Py_buffer *view)\n{\n"
        "    if (items == NULL || !p || view == NULL || ((p) && !(view)) || NULL == strchr(p, 'x'))\n"
        "        return;\n}\n"),
    # A pointer member of a native struct, not of an object type.
    "struct-pointer-members": (
        "typedef struct Link { struct Link *next; long v; } Link;\n"
        "typedef struct { PyObject_HEAD Link *head; } List;\n"
        "static PyObject *f(List *self)\n{\n    Link *l = self->head;\n"
        "    return PyLong_FromLong(l->next->v);\n}\n"),
    # Comparisons of C pointers and of a handle with NULL.
    "handle-identity": (
        "static char marker;\n"
        "static int f(PyObject *o, char *a, char *b) { return a == b || o == NULL || a != NULL || a != &marker"
        " || (const void *)Py_None == memchr(a, 0, 1); }\n"),
    # A member named ob_type of a struct that is no object, and a store.
    "ob-type-member": (
        "struct rec { const char *ob_type; };\n"
        "static PyObject *f(struct rec *r, PyObject *o)\n{\n"
        "    r->ob_type = \"x\";\n"
        "    (void)(const void *)r->ob_type;\n"
        "    return PyUnicode_FromString(r->ob_type);\n}\n"),
    # The address of memory that is no object.
    # A call in a capsule destructor, which keeps its stock body (no state).
    "object-id": in_capsule_destructor("PyObject *k = PyLong_FromVoidPtr(o);\n    Py_XDECREF(k);"),
    # A direct call of a function with a slot's signature that no type uses.
    "entry-value-calls": (
        "#include \"Cystck.h\"\n"
        "static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwds)\n{\n"
        "    return type->tp_alloc(type, 0);\n}\n"
        "static PyObject *sub_new(PyTypeObject *type, PyObject *args, PyObject *kwds)\n{\n"
        "    PyObject *self = make(type, args, kwds);\n    return self;\n}\n"
        "static PyTypeObject Base = {PyVarObject_HEAD_INIT(NULL, 0) .tp_new = other_new};\n"
        "static PyTypeObject Sub = {PyVarObject_HEAD_INIT(NULL, 0) .tp_new = sub_new};\n"),
    # A keywords method passing on its own arguments (no tuple of its
    # making) to another of its convention: the entry-value-calls rule's.
    "entry-keyword-calls": (
        "static PyObject *dumps(PyObject *self, PyObject *args, PyObject *kw);\n"
        "static PyObject *dump(PyObject *self, PyObject *args, PyObject *kw)\n{\n"
        "    PyObject *t = PyTuple_Pack(1, PyTuple_GET_ITEM(args, 0));\n"
        "    PyObject *r = dumps(self, args, kw);\n    Py_DECREF(t);\n    return r;\n}\n"
        'static PyMethodDef m[] = {{"dumps", (PyCFunction)dumps, METH_VARARGS | METH_KEYWORDS, NULL},\n'
        '                          {"dump", (PyCFunction)dump, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n'),
    # A C value returned as an object by a helper, not an entry point.
    "return-c-value": (
        "static PyObject *f(PyObject *self, PyObject *arg)\n{\n"
        "    return PyLong_FromLong(PyLong_AsLong(arg) + 1);\n}\n"
        "static PyMethodDef m[] = {{\"f\", f_impl, METH_O, NULL}, {NULL}};\n"),
    # A tail call from a function that is no entry point.
    "entry-tail-calls": (
        "static PyObject *impl(PyObject *self, PyObject *args) { return PyLong_FromSsize_t(PyTuple_GET_SIZE(args)); }\n"
        "static PyObject *alias(PyObject *self, PyObject *args)\n{\n    return impl(self, args);\n}\n"
        "static PyMethodDef m[] = {{\"impl\", impl, METH_VARARGS, NULL}, {\"alias\", alias_impl, METH_VARARGS, NULL}, {NULL}};\n"),
    # A native block freed, not the object; the object freed in its destructor.
    "object-frees": (
        "typedef struct { PyObject_HEAD double *buf; } Box;\n"
        "static int fill(Box *self, PyObject *n)\n{\n    if (PyLong_AsLong(n) < 0) {\n"
        "        PyObject_Free(self->buf);\n        return -1;\n    }\n    return 0;\n}\n"),
    # The consumed local is assigned again before it is read.
    "read-after-consume": (
        "static PyObject *f(Py_ssize_t n)\n{\n    PyObject *l = PyList_New(1), *b;\n"
        "    b = PyBytes_FromStringAndSize(NULL, n);\n    PyList_SET_ITEM(l, 0, b);\n"
        "    b = NULL;\n    return b == NULL ? l : NULL;\n}\n"),
    # NULL returned from a function that returns no object.
    "returns": (
        "static const char *name(PyObject *o)\n{\n    if (o == NULL)\n        return NULL;\n"
        "    if (PyLong_Check(o))\n        return (NULL);\n    return \"x\";\n}\n"
        "static PyObject *next_of(PyObject *it) { return PyIter_Next(it); }\n"),
    # A returning macro used only in a function that is no entry point.
    "macro-returns": (
        "#define CHECK(v) do { if ((v) < 0) return NULL; } while (0)\n"
        "static const char *f(PyObject *arg)\n{\n    CHECK(PyLong_AsLong(arg));\n    return \"x\";\n}\n"),
    # A call of a function that needs no state; its name in a string.
    "state-calls": (
        "static long helper(long v) { return v + 1; }\n"
        "static long g(PyObject *o) { puts(\"helper(o)\"); return helper(PyLong_AsLong(o)); }\n"),
    # A functor over C values.
    "functor-calls": (
        "struct Twice\n{\n    double operator()( double v ) { return 2 * v; }\n};\n"
        "PyObject* f( PyObject* v ) { return PyFloat_FromDouble( Twice()( PyFloat_AsDouble( v ) ) ); }\n"),
    # A container keyed by a C value, holding objects.
    "identity-keyed-containers": (
        "static int n( std::map<long, PyObject*>& items ) { return PyLong_Check( 0 ); }\n"),
    # A PyObject ** member that no traverse visits (references borrowed
    # from another object's storage): no array of fields.
    "field-array-allocations": (
        "typedef struct { PyObject_HEAD PyObject **items; Py_ssize_t n; } Vec;\n"
        "static int Vec_traverse(Vec *self, visitproc visit, void *arg)\n{\n"
        "    (void)visit;\n    return 0;\n}\n"
"static PyTypeObject VecType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Vec\",\n"
        "    .tp_basicsize = sizeof(Vec), .tp_traverse = (traverseproc)Vec_traverse};\n"
        "static int grow(Vec *v, Py_ssize_t n)\n{\n"
        "    v->items = (PyObject **)PyMem_Calloc(n, sizeof(PyObject *));\n    return v->items ? 0 : -1;\n}\n"),
    # An object pointer's address that is a local, not a member.
    "field-pointer-params": (
        "static PyObject *ensure(PyObject **out)\n{\n    if (*out == NULL)\n        *out = PyDict_New();\n"
        "    return *out;\n}\n"
        "static PyObject *get(void) { PyObject *x = NULL; return ensure(&x); }\n"),
    # The address of a local, not of a reference that outlives the call.
    "ref-pointer-params": (
        "typedef struct { PyObject *name; } State;\n"
        "static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, \"m\", NULL, sizeof(State)};\n"
        "static int intern(PyObject **slot, const char *s)\n{\n"
        "    if (*slot == NULL)\n        *slot = PyUnicode_InternFromString(s);\n"
        "    return PyObject_Hash(*slot) == -1 ? -1 : 0;\n}\n"
        "static int init(State *st) { PyObject *local = NULL; return intern(&local, \"name\"); }\n"),
    # A spec pointer in a function that stays stock (it reads tp_name).
    "spec-pointers": (
        "static const char *spec_name(PyTypeObject *tp, PyType_Spec *spec)\n{\n"
        "    return tp->tp_doc ? spec->name : NULL;\n}\n"),
    # A tuple filled with None, not zeroed.
    "tuple-zero-fill": (
        "static PyObject *f(Py_ssize_t n)\n{\n    PyObject *t = PyTuple_New(n);\n"
        "    Py_ssize_t size = PyTuple_GET_SIZE(t);\n"
        "    for (Py_ssize_t i = 0; i < size; ++i)\n        PyTuple_SET_ITEM(t, i, Py_None);\n"
        "    return t;\n}\n"),
    # A member named obj of a struct that is no Py_buffer; a buffer without an owner.
    "buffer-owner": (
        "typedef struct { PyObject *obj; } Holder;\n"
        "static int fill(PyObject *o, Holder *h, Py_buffer *view)\n{\n"
        "    h->obj = o;\n    Py_INCREF(o);\n    view->obj = NULL;\n    return 0;\n}\n"),
    # Reference counting where it stays stock: a capsule destructor.
    "incref": in_capsule_destructor("Py_INCREF(o);\n    keep(o);"),
    "decref": in_capsule_destructor("Py_DECREF(o);"),
    "clear": in_capsule_destructor("Py_CLEAR(o);"),
    "newref": in_capsule_destructor("keep(Py_NewRef(o));"),
    # Increments in a condition (no statement to go before) and with another
    # second operand.
    "comma-incref": (
        "static PyObject *f(PyObject *a, PyObject *b)\n{\n"
        "    while ((Py_INCREF(a), a) != b)\n        b = g(b);\n"
        "    return (Py_INCREF(a), b);\n}\n"),
    # A reference released with no store after it (taken for a call), and
    # one whose index changes before the store (another element is stored).
    "ref-release-store": (
        "typedef struct { PyObject *value; } slot_t;\nstatic slot_t table[4];\nstatic PyObject *cache;\n"
        "static PyObject *f(PyObject *v, int i, int n)\n{\n    PyObject *r;\n"
        "    Py_INCREF(cache);\n    r = PyObject_CallOneArg(cache, v);\n    Py_DECREF(cache);\n"
        "    Py_XDECREF(table[i].value);\n    i++;\n    Py_INCREF(v);\n    table[i].value = v;\n"
        "    return r;\n}\n"),
    # Native memory, not an object; another type's tp_alloc with a count
    # (the base's slot called for type: left for a human, as with 0).
    "object-new": (
        "static PyObject *f(PyTypeObject *type, PyTypeObject *base, Py_ssize_t n)\n"
        "{ Box *b = PyMem_New(Box, 1); PyObject *o = base->tp_alloc(type, n); return type->tp_free(b), o; }\n"),
    # A type received by pointer, readied by its owner.
    "type-ready": (
        "static int init(PyTypeObject *type) { return PyType_Ready(type); }\n"),
    # A class static that is no type object.
    "class-type-refs": (
        "struct Box\n{\n    PyObject_HEAD\n    static PyTypeObject* TypeObject;\n    static long Count;\n};\n"
        "PyTypeObject* Box::TypeObject = NULL;\n"
        "long Box::Count = 0;\n"
        "static PyObject* f( PyObject* m )\n{\n    return PyLong_FromLong( Box::Count );\n}\n"),
    # One object converted (no tuple), and names that are no keyword list.
    # A Clinic parser applied to a tuple of the function's own, not to its
    # argument array (the escape hatch keeps it).
    "clinic-parsers": (
        "static PyObject *f(PyObject *self, PyObject *args, PyObject *kw)\n{\n"
        "    static const char * const _keywords[] = {\"x\", NULL};\n"
        "    static _PyArg_Parser _parser = {\"O:f\", _keywords, 0};\n    PyObject *x;\n"
        "    PyObject *t = PyTuple_Pack(1, self);\n"
        "    if (!_PyArg_ParseTupleAndKeywordsFast(t, NULL, &_parser, &x))\n        return NULL;\n"
        "    return x;\n}\n"
        "static PyMethodDef m[] = {{\"f\", (PyCFunction)f, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n"),
    # A member that is no object (the parser writes a long where it is).
    "parse-into-members": (
        "typedef struct { PyObject_HEAD PyObject *obj; long n; } Box;\n"
        "static int Box_init(Box *self, PyObject *args, PyObject *kw)\n{\n"
        "    if (!PyArg_ParseTuple(args, \"|l\", &self->n))\n        return -1;\n    return 0;\n}\n"
        "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_basicsize = sizeof(Box),"
        " .tp_init = (initproc)Box_init};\n"),
    "parse-args": (
        "static int f(PyObject *o)\n{\n    static char *labels[] = {\"x\", NULL};\n    int x;\n"
        "    return PyArg_Parse(o, \"i\", &x) && labels[0];\n}\n"),
    # A tuple of the function's own, not its arguments (its checked read
    # too; reads of the arguments after a test of their count stay plain:
    # tests/migrate/test_rules_args_checked_reads.py).
    "args-access": (
        "static PyObject *f(PyObject *self, PyObject *args)\n{\n    PyObject *t = PyTuple_New(1);\n"
        "    if (PyTuple_GET_SIZE(t) != 1 || PyTuple_GetItem(t, 0) == NULL)\n        return NULL;\n"
        "    return PyTuple_GET_ITEM(t, 0);\n}\n"
        "static PyMethodDef m[] = {{\"f\", f, METH_VARARGS, NULL}, {NULL}};\n"),
    # A module made without a definition.
    "module-create": (
        "static PyObject *m(void) { return PyModule_New(\"spam\"); }\n"),
    # A pasted global that is no object.
    "pasted-global-stores": (
        "static PyObject *str_a;\nstatic int count_a;\nstatic int init(void)\n{\n"
        "#define ZERO(n) count_##n = 0\n    ZERO(a);\n    return 0;\n}\n"),
    # A global that holds no object (a local shadowing a global object: see
    # test_a_local_named_like_a_global_object_is_the_local).
    "global-refs": (
        "static long count;\n"
        "static void f(PyObject *v) { count = PyLong_AsLong(v); g(count); }\n"),
    # The constants' names in a string, a private struct with a longer name.
    "constants": (
        "static int f(PyObject *o) { puts(\"Py_None\"); return o == &_Py_NoneStruct; }\n"),
    # A fallback definition of Py_TYPE keeps its name (before, it became
    # #define CystckObject_Type(S, ob)); the size of an object.
    "py-type": (
        "#ifndef Py_TYPE\n#define Py_TYPE(ob) (((PyObject *)(ob))->ob_type)\n#endif\n"
        "static Py_ssize_t f(PyObject *o) { return Py_SIZE(o); }\n"),
    # Keys and values written to the caller's pointers, not to locals.
    "dict-next-into": (
        "static int next(PyObject *d, Py_ssize_t *pos, PyObject **k, PyObject **v)\n{\n"
        "    return PyDict_Next(d, pos, k, v);\n}\n"),
    # An item passed on at once, not stored in a local.
    "get-item-into": (
        "static double f(PyObject *l)\n{\n    double total = 0;\n"
        "    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++)\n"
        "        total += PyFloat_AsDouble(PyList_GET_ITEM(l, i));\n    return total;\n}\n"),
    # The exception fetched into the caller's pointers, not into locals.
    "err-fetch-restore": (
        "static void save(PyObject **t, PyObject **v, PyObject **tb)\n{\n    PyErr_Fetch(t, v, tb);\n}\n"),
    # Macros that name a constant and a function-like macro already.
    "api-alias-macros": (
        "#define ERR_TYPE PyExc_TypeError\n"
        "#define INTERN(s) PyUnicode_InternFromString(s)\n"
        "static PyObject *f(void) { return INTERN(\"x\"); }\n"),
    # A private stock type without a counterpart; the writer's functions.
    "private-struct-types": (
        "static int f(void *w) { _PyTime_t t = 0; return _PyUnicodeWriter_WriteChar(w, 'x') + (int)t; }\n"),
    # A member named like an API function (before, p->CystckList_Append(S,
    # l, v)); the name in a string; a stock function without a counterpart.
    "api-calls": (
        "struct ops { int (*PyList_Append)(PyObject *, PyObject *); };\n"
        "static void f(struct ops *p, PyObject *l, PyObject *v)\n{\n"
        "    p->PyList_Append(l, v);\n    puts(\"PyList_Append(l, v)\");\n    PyFile_GetLine(l, 2);\n}\n"),
    # Conditions on C values and on a handle compared with NULL.
    "handle-conditions": (
        "static int f(PyObject *d, PyObject *o)\n{\n"
        "    return d != NULL && CystckDict_Size(S, d) && !CystckObject_IsTrue(S, o) ? 1 : 0;\n}\n"),
    # A native struct's member named like a type slot.
    "type-slot-reads": (
        "typedef struct { long tp_mro; } Native;\n"
        "static PyObject *f(Native *n, PyObject *o) { return PyLong_FromLong(n->tp_mro); }\n"),
    # Addresses of C values.
    "object-addresses": (
        "static PyObject *f(PyObject *self, char *buf, long n)\n{\n"
        "    sprintf(buf, \"%zx %zx\", (size_t)(Py_uintptr_t)n, (Py_uintptr_t)buf);\n"
        "    return PyUnicode_FromString(buf);\n}\n"),
    # A native pointer printed with %p; an object printed with %s's
    # argument position (the conversions are counted, * widths too).
    "printed-object-addresses": (
        "static void show(FILE *f, PyObject *o, char *buf, int w)\n{\n"
        "    fprintf(f, \"%%p %*s at %p\\n\", w, buf, (void *)buf);\n"
        "    fprintf(f, \"%s\\n\", PyUnicode_AsUTF8(o));\n}\n"),
    # A stock function without a counterpart where the code stays stock.
    "escape-hatch": in_capsule_destructor("keep(PyFile_GetLine(o, 2));"),
    # A function without the state (a capsule destructor) stays stock: its
    # critical section is on a PyObject *, not a handle.
    # A module state that holds no reference (a field, a number): no traverse to write.
    "module-state-refs": ("#include <Python.h>\ntypedef struct { Cystck_Field cache; long n; } spam_state;\n"
                          "static CystckDef *spam_defines[] = {\n    &f_def,\n    NULL\n};\n"
                          "static CystckModuleDef spam = {\"spam\", NULL, sizeof(spam_state), spam_defines};\n"),
    "critical-sections": in_capsule_destructor(
        "Py_BEGIN_CRITICAL_SECTION(o); keep(o); Py_END_CRITICAL_SECTION();"),
    # The definition passed, not compared with PyModule_GetDef, in a translated function.
    "stock-module-defs": (
        "static CystckModuleDef moduledef = {\"m\", NULL, 0, NULL};\n"
        "static PyObject *ours(PyObject *m)\n{\n"
        "    return m != NULL ? m : PyModule_Create(&moduledef);\n}\n"),
    # Keyword names read as the tuple they are.
    "kwargs-dict": (
        "#include <Python.h>\n#include \"Cystck.h\"\n"
        "static int f(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs, Cystck_Object kw)\n"
        "{\n    return CystckTuple_Size(S, kw);\n}\n"
        "CYSTCK_DEF_METH(f_def, \"f\", f, CYSTCK_KEYWORDS, NULL)\n"),
    # A conditional between C values, and a NULL beside a pointer that is no handle.
    "macro-handle-values": (
        "#include <Python.h>\n#define NONE Cystck_None\n#define SIZE (ok ? strlen(s) : 0)\n"
        "#define NAME (ok ? PyUnicode_AsUTF8(o) : NULL)\n"),
    # A class with no constructor (an aggregate): its methods take S as a parameter.
    "class-state-member": (
        "struct Handler {\n    PyObject* hook;\n"
        "    bool Null() { return PyObject_CallNoArgs(hook) != NULL; }\n};\n"
        "static int run(PyObject* hook)\n{\n    Handler h = {hook};\n    return h.Null();\n}\n"),
    # An item kept after the loop: released per iteration, it would be gone.
    "loop-release": (
        "#include <Python.h>\n#include \"Cystck.h\"\n"
        "static int f(Cystck_State *S, Cystck_Object self, Cystck_Object l)\n{\n"
        "    Cystck_Object last = Cystck_NULL;\n"
        "    for (Cystck_ssize_t i = 0; i < CystckList_GET_SIZE(S, l); i++) {\n"
        "        Cystck_Object item = CystckList_GET_ITEM(S, l, i);\n        last = item;\n    }\n"
        "    return Cystck_Return(S, last);\n}\n"),
    # A slot of one object called for another: not d.__get__.
    "descr-slot-calls": (
        "static PyObject *f(PyObject *a, PyObject *b, PyObject *o)\n{\n"
        "    return CystckObject_Type(S, a)->tp_descr_get(b, o, NULL);\n}\n"),
    # The slot read as a value, into a function pointer: no test.
    "descr-slot-tests": (
        "static PyObject *f(PyObject *d, PyObject *o)\n{\n"
        "    descrgetfunc get = CystckObject_Type(S, d)->tp_descr_get;\n"
        "    return get(d, o, NULL);\n}\n"),
    # The MRO only tested for NULL: left to type-slot-reads.
    "type-mro-dict": (
        "static PyObject *f(PyTypeObject *type)\n{\n"
        "    if (type->tp_mro == NULL)\n        return NULL;\n"
        "    return PyLong_FromLong(1);\n}\n"),
    # A module's definition compared with a pointer passed in, not one of the file's.
    "module-def-tests": (
        "static CystckModuleDef moduledef = {\"m\", NULL, 0, NULL};\n"
        "static int ours(PyObject *m, PyModuleDef *def)\n{\n"
        "    return PyModule_GetDef(m) == def;\n}\n"),
    # Chains whose inner target stays a plain store: a member of a plain
    # struct (a handle), an int.
    "chained-stores": (
        "typedef struct { PyObject *v; } Ctx;\n"
        "typedef struct { PyObject_HEAD PyObject *w; } Box;\n"
        "static PyObject *f(Ctx *c, Box *b, PyObject *y)\n{\n    PyObject *x;\n    int i;\n"
        "    x = c->v = y;\n    b->w = i = 0;\n    return x;\n}\n"),
    # A name member of a struct that is no type, a stock type's own name.
    # The indicator tested as a truth value, another pointer compared.
    "err-occurred-tests": (
        "static int f(PyObject *p)\n{\n    if (PyErr_Occurred())\n        return -1;\n"
        "    return p != NULL && (PyErr_Occurred() ? 1 : 0) == 0;\n}\n"),
    "type-name-reads": (
        "struct cfg { const char *tp_name; };\n"
        "static int f(struct cfg *c, PyObject *o)\n{\n"
        "    return PyObject_IsTrue(o) && c->tp_name != NULL && PyLong_Type.tp_name != NULL;\n}\n"),
    # A slot function type's local holding the extension's own function,
    # not one read from a type.
    "slot-pointer-calls": (
        "static PyObject *own_get(PyObject *d, PyObject *o, PyObject *t) { return PyLong_FromLong(1); }\n"
        "static PyObject *f(PyObject *d, PyObject *o)\n{\n"
        "    descrgetfunc get = own_get;\n"
        "    return get(d, o, NULL);\n}\n"),
    # Stores into a type's flags, their address, a plain struct's member
    # named so, a stock type's own flags: no reads through a handle.
    "type-flags-reads": (
        "struct cfg { unsigned long tp_flags; };\n"
        "static unsigned long f(struct cfg *c, PyObject *o, PyObject *t)\n{\n"
        "    unsigned long *p = &((PyTypeObject *)t)->tp_flags;\n"
        "    ((PyTypeObject *)t)->tp_flags |= Py_TPFLAGS_BASETYPE;\n"
        "    Py_TYPE(o)->tp_flags = *p;\n"
        "    return PyObject_IsTrue(o) ? c->tp_flags : PyLong_Type.tp_flags;\n}\n"),
    # A function object's C function compared with a pointer passed in, no method of the file.
    "method-def-tests": (
        "static PyObject *twice(PyObject *self, PyObject *o);\n"
        "CYSTCK_DEF_METH(twice_def, \"twice\", twice, CYSTCK_O, NULL)\n"
        "static int is_other(PyObject *f, PyCFunction other)\n{\n"
        "    return PyCFunction_GetFunction(f) == other;\n}\n"),
    # A macro naming a cast to a plain struct, not a custom type's.
    "cast-alias-macros": (
        "typedef struct { long n; } Dump;\n"
        "static long f(void *extra) {\n#define dump ((Dump *)extra)\n    return dump->n;\n#undef dump\n}\n"
        "static PyObject *g(PyObject *o) { return o; }\n"),
    # A macro around an API name that is not its argument (it pastes).
    "identity-name-macros": (
        "#define F(name) name##_v2\n"
        "static PyObject *f(PyObject *t) { return F(PyTuple_GetItem)(t, 0); }\n"),
    # A capsule object's name in a string, not the object.
    "stock-object-values": (
        "static PyObject *f(PyObject *o) { return PyObject_GetAttrString(o, \"PyDateTime_TimeZone_UTC\"); }\n"),
    # A cast to a struct that is a handle type (the casts rule's).
    "stock-struct-pointers": (
        "static PyObject *f(PyObject *o) { PyTupleObject *t = (PyTupleObject *)o; "
        "return PyTuple_GetItem((PyObject *)t, 0); }\n"),


    # A macro whose call takes its parameters in another order; one with
    # more than a call in its body.
    "api-call-macros": (
        "#define SWAPPED(a, b) PyNumber_Add((b), (a))\n#define IS(o, t) (Py_TYPE(o) == (t))\n"
        "static PyObject *f(PyObject *a, PyObject *b) { return IS(a, Py_TYPE(b)) ? SWAPPED(a, b) : NULL; }\n"),
    # A macro that calls something on its argument before it, not an increment.
    "newref-macros": (
        "#define NEWREF(o) (Py_Touch(o), (o))\n"
        "static PyObject *f(PyObject *o) { return NEWREF(o); }\n"),


    # A returning macro given an entry point's error value already, not NULL.
    "macro-return-arguments": (
        "#define CHECK(v, ret) do { if ((v) < 0) return ret; } while (0)\n"
        "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    CHECK(PyLong_AsLong(arg), -1);\n"
        "    Py_RETURN_NONE;\n}\n"
        "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n"),
    # A macro casting its parameter to a struct that is no object type; a
    # parameter only dereferenced (macro-struct-args gives its uses the struct).
    "macro-param-struct-casts": (
        "typedef struct { PyObject_HEAD int ro; } Box;\ntypedef struct { int ro; } Flags;\n"
        "#define RO(o) (((Flags *) o)->ro)\n"
        "#define TAKE(o) take(&(o)->ro)\n"
        "static PyObject *f(Box *self, PyObject *x)\n{\n    if (RO(self))\n        return NULL;\n"
        "    TAKE(self);\n    return PyNumber_Negative(x);\n}\n"),
    # The type set is a metatype of the extension's own.
    "set-type-of-type-objects": (
        "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) \"m.Box\"};\n"
        "static int init(PyObject *m)\n{\n    if (PyType_Ready(&BoxType) < 0)\n        return -1;\n"
        "    Py_SET_TYPE(&BoxType, &MetaType);\n    return 0;\n}\n"),
    # A borrowed constant without a permanent handle, and the call in a string.
    # An S the function does not declare: a global of the file.
    "local-state-name": (
        "static long S;\n"
        "static PyObject *f(PyObject *o) { S++; return PyLong_FromLong(S); }\n"),
    # A static object read by name (its reference count), not only by its
    # address: it stays (so does its type's readying).
    "static-objects": (
        "static PyTypeObject MarkerType = {PyVarObject_HEAD_INIT(NULL, 0) \"m.Marker\"};\n"
        "PyObject marker_obj = { _PyObject_EXTRA_INIT 1, &MarkerType };\n"
        "#define marker (&marker_obj)\n"
        "static int init(void) {\n    if (PyType_Ready(&MarkerType) < 0)\n        return -1;\n"
        "    return 0;\n}\n"
        "static Py_ssize_t count(void) { return marker_obj.ob_refcnt; }\n"
        "static PyObject *is_marker(PyObject *o) { return PyBool_FromLong(o == marker); }\n"),
    # A given exception that is not the one set: a caught one.
    "given-occurred-matches": (
        "static int f(PyObject *caught) {\n"
        "    return PyErr_GivenExceptionMatches(caught, PyExc_KeyError);\n}\n"),
    "constant-getters": (
        "static PyObject *f(PyObject *o) {\n"
        "    puts(\"Py_GetConstant(Py_CONSTANT_NONE)\");\n"
        "    return Py_NewRef(Py_GetConstantBorrowed(Py_CONSTANT_ZERO));\n}\n"),
    # A C pointer that is no object cast to void *, and memory from an
    # allocator cast to an object pointer (no object yet).
    "void-pointer-objects": (
        "static PyObject *f(PyObject *self, PyObject *o)\n{\n    char *p = \"x\";\n"
        "    PyObject *m = (PyObject *) PyObject_Malloc(16);\n"
        "    memset((void *) p, 0, 1);\n    return o;\n}\n"),
    # An array of objects the function allocates itself (the item-array
    # call only in a comment): indexed like PySequence_Fast_ITEMS' array,
    # but no alias of a sequence.
    "sequence-fast-items": (
        "static double f(PyObject *seq, Py_ssize_t n)\n{\n"
        "    PyObject **items = PyMem_New(PyObject *, n);   /* not PySequence_Fast_ITEMS(seq) */\n"
        "    double t = 0;\n"
        "    for (Py_ssize_t i = 0; i < n; i++)\n        items[i] = PySequence_Fast_GET_ITEM(seq, i);\n"
        "    t = PyFloat_AsDouble(items[0]);\n    PyMem_Free(items);\n    return t;\n}\n"),
    # An array of objects in memory the function allocates but hands to a
    # struct that outlives the call (and never frees): no array of handles.
    "handle-array-allocations": (
        "typedef struct { PyObject **items; } Bag;\n"
        "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
        "    Bag *bag = (Bag *)PyCapsule_GetPointer(self, NULL);\n"
        "    PyObject **items = (PyObject **)PyMem_Malloc(4 * sizeof(PyObject *));\n"
        "    if (items == NULL)\n        return PyErr_NoMemory();\n"
        "    items[0] = o;\n    bag->items = items;\n    Py_RETURN_NONE;\n}\n"),
}

# rule -> (near miss, real construct): replacing the first by the second in
# the rule's LEAVE_ALONE entry makes the rule fire.
POSITIVE_TWINS = {
    "declaration-macros": ("PyMethodDef *table\nTABLE = NULL;", "PyMethodDef table[]\nTABLE = {{NULL}};"),
    "table-cast-macros": ("(f##_impl))", "(f))"),
    "sequence-fast-items": ("PyMem_New(PyObject *, n)", "PySequence_Fast_ITEMS(seq)"),
    "handle-array-allocations": ("    bag->items = items;\n", "    (void)bag;\n    PyMem_Free(items);\n"),
    "function-macros": ("{ return v; }", "{ return PyLong_AsLong(NULL) + v; }"),
    "cppy-include": ("<cppy/defines.h>", "<cppy/cppy.h>"),
    "cppy-ptr": ("std::bitset<8> bits;", "cppy::ptr bits;"),
    "cppy-refs": ("detail::incref", "cppy::incref"),
    "cppy-errors": ("std::runtime_error", "cppy::runtime_error"),
    "include-header": ("<structmember_compat.h>", "\"structmember.h\""),
    "macro-state-param": ("NAME(s) PyUnicode_FromString(#s)", "NAME(S) PyUnicode_FromString(#S)"),
    "object-struct": ("{\n    PyObject *value;", "{\n    PyObject_HEAD\n    PyObject *value;"),
    "field-array-allocations": ("    (void)visit;\n", "    for (Py_ssize_t i = 0; i < self->n; i++)\n        Py_VISIT(self->items[i]);\n"),
    "struct-members": ("Py_buffer *view;", "PyObject *view;"),
    "typed-entry": ("scale_impl", "scale"),
    "disallow-instantiation": ("tp_new = Cursor_new;", "tp_new = NULL;"),
    "runtime-vectorcall": ("self->vectorcall = Foo_vectorcall;", "type->tp_vectorcall = Foo_vectorcall;"),
    "class-type-statics": ("PyTypeObject* kind;", "static PyTypeObject* kind;"),
    "modinit": ("static PyObject *\ninit_spam(void)", "PyMODINIT_FUNC\nPyInit_spam(void)"),
    "dropped-param-discards": ("f, METH_O, NULL", "f, METH_NOARGS, NULL"),
    "base-struct-upcast": ("{ long a; } Base;", "{ PyObject_HEAD long a; } Base;"),
    "weak-lists": (" .tp_new = Box_new};", " .tp_weaklistoffset = offsetof(Box, weakreflist), .tp_new = Box_new};"),
    "destroy-traverse": ("(destructor)Other_dealloc", "(destructor)Box_dealloc"),
    "finalizer-releases": ("free(self->buf);", "Bag_empty(self);"),
    "destructor-split": ("    if (self->d) {\n        Bag_empty(self);\n        free(self->buf);\n    }\n",
                         "    Bag_empty(self);\n    free(self->buf);\n"),
    "stock-function-pointers": ("longfunc step;", "binaryfunc step;"),
    "member-read-macros": ("Box_OBJ(self) = NULL;", "(void)Box_OBJ(self);"),
    "own-function-pointer-locals": ("Py_TYPE(o)->tp_as_number->nb_negative;", "neg;"),
    "struct-access": ("typedef struct { PyObject *v;", "typedef struct { PyObject_HEAD PyObject *v;"),
    "macro-struct-args": ("typedef struct { long lock; }", "typedef struct { PyObject_HEAD long lock; }"),
    "struct-pointer-objects": ("typedef struct { PyObject *owner;", "typedef struct { PyObject_HEAD PyObject *owner;"),
    "slot-calls": ("->mp_subscript != NULL", "->mp_subscript(d, d) != NULL"),
    "entry-signature": ("add_impl", "add"),
    "entry-linkage": ("Box_count(", "Box_repr("),
    "helper-signature": ("return 2 * n;", "return PyNumber_Check(NULL) * n;"),
    "object-frees": ("PyObject_Free(self->buf);", "PyObject_Free(self);"),
    "read-after-consume": ("    b = NULL;\n", "    memset(PyBytes_AS_STRING(b), 0, n);\n"),
    "declarations": ("Py_ssize_t *sizes", "PyObject *sizes"),
    "template-casts": ("reinterpret_cast<T*>( buf )", "reinterpret_cast<T*>( o )"),
    "casts": ("(long)(char *)p", "(long)(Box *)p"),
    "cast-macros": ("((Py_ssize_t)(n))", "((PyObject *)(n))"),
    "null-handles": ("Py_buffer *view", "PyObject *view"),
    "handle-in-c-pointer": ("char *p)", "PyObject *p)"),
    "thread-callback-frames": ("    on_event(v);\n", "    (void)on_event;\n"),
    "capsule-table-entries": ("{2, counts}", "{2, make}"),
    "struct-pointer-members": ("typedef struct Link { struct", "typedef struct Link { PyObject_HEAD struct"),
    "handle-identity": ("char *a, char *b", "PyObject *a, PyObject *b"),
    "object-id": (STOCK_DESTRUCTOR, "PyCapsule_New(o, NULL, NULL)"),
    "entry-value-calls": ("other_new", "make"),
    "entry-keyword-calls": ("dumps(self, args, kw)", "dumps(self, t, kw)"),
    "return-c-value": ("f_impl", "f"),
    "entry-tail-calls": ("alias_impl", "alias"),
    "state-calls": ("{ return v + 1; }", "{ return PyLong_AsLong(NULL) + v; }"),
    "functor-calls": ("{ return 2 * v; }", "{ return PyFloat_AsDouble( NULL ) * v; }"),
    "identity-keyed-containers": ("std::map<long,", "std::map<PyObject*,"),
    "ref-pointer-params": ("intern(&local,", "intern(&st->name,"),
    "spec-pointers": ("tp->tp_doc ? spec->name", "tp ? spec->name"),
    "tuple-zero-fill": ("PyTuple_SET_ITEM(t, i, Py_None)", "PyTuple_SET_ITEM(t, i, NULL)"),
    "buffer-owner": ("view->obj = NULL", "view->obj = o"),
    "incref": (STOCK_DESTRUCTOR, "PyCapsule_New(o, NULL, NULL)"),
    "decref": (STOCK_DESTRUCTOR, "PyCapsule_New(o, NULL, NULL)"),
    "clear": (STOCK_DESTRUCTOR, "PyCapsule_New(o, NULL, NULL)"),
    "newref": (STOCK_DESTRUCTOR, "PyCapsule_New(o, NULL, NULL)"),
    "ref-release-store": ("    i++;\n", "    n++;\n"),
    "comma-incref": ("(Py_INCREF(a), b)", "(Py_INCREF(a), a)"),
    "object-new": ("PyMem_New(Box, 1)", "PyObject_New(Box, &BoxType)"),
    "type-ready": ("PyType_Ready(type)", "PyType_Ready(&BoxType)"),
    "class-type-refs": ("Box::Count )", "Box::TypeObject )"),
    "parse-args": ("PyArg_Parse(o,", "PyArg_ParseTuple(o,"),
    "parse-into-members": ('"|l", &self->n', '"|O", &self->obj'),
    "args-access": ("PyTuple_GET_SIZE(t)", "PyTuple_GET_SIZE(args)"),
    "module-create": ("PyModule_New(\"spam\")", "PyModule_Create(&mod)"),
    "pasted-global-stores": ("count_##n = 0", "str_##n = PyUnicode_FromString(#n)"),
    "global-refs": ("static long count;", "static PyObject *count;"),
    "function-static-refs": ("Py_XDECREF(last);\n    last = o;\n    Py_INCREF(last);", "last = o;"),
    "chained-stores": ("typedef struct { PyObject *v; } Ctx;", "typedef struct { PyObject_HEAD PyObject *v; } Ctx;"),
    "constants": ("&_Py_NoneStruct", "Py_None"),
    "py-type": ("Py_SIZE(o)", "Py_TYPE(o)"),
    "api-alias-macros": ("#define ERR_TYPE PyExc_TypeError", "#define ERR_TYPE PyErr_Occurred"),
    "private-struct-types": ("_PyTime_t t", "_PyUnicodeWriter t"),
    "api-calls": ("p->PyList_Append(l, v);", "PyList_Append(l, v);"),
    "handle-conditions": ("CystckDict_Size(S, d)", "CystckDict_GetItemString(S, d, \"k\")"),
    "type-slot-reads": ("Native *n", "PyTypeObject *n"),
    "object-addresses": ("(Py_uintptr_t)n", "(Py_uintptr_t)self"),
    "printed-object-addresses": ("(void *)buf);", "o);"),
    "escape-hatch": (STOCK_DESTRUCTOR, "PyCapsule_New(o, NULL, NULL)"),
    "module-state-refs": ("Cystck_Field cache", "Cystck_Ref cache"),
    "critical-sections": (STOCK_DESTRUCTOR, "PyCapsule_New(o, NULL, NULL)"),
    "loop-release": ("        last = item;\n", "        (void)item;\n"),
    "stock-module-defs": ("m != NULL ?", "PyModule_GetDef(m) == &moduledef ?"),
    "kwargs-dict": ("CystckTuple_Size", "CystckDict_Size"),
    "macro-handle-values": ("PyUnicode_AsUTF8(o)", "CystckUnicode_FromString(S, s)"),
    "class-state-member": ("    PyObject* hook;\n", "    PyObject* hook;\n    Handler(PyObject* h) : hook(h) {}\n"),
    "descr-slot-calls": ("(b, o, NULL)", "(a, o, NULL)"),
    "descr-slot-tests": ("descrgetfunc get = CystckObject_Type(S, d)->tp_descr_get;",
                         "int get = CystckObject_Type(S, d)->tp_descr_get != NULL;"),
    "type-mro-dict": ("if (type->tp_mro == NULL)", "if (PyTuple_Size(type->tp_mro) == 0)"),
    "module-def-tests": ("== def;", "== &moduledef;"),
    "type-name-reads": ("c->tp_name", "((PyTypeObject *)o)->tp_name"),
    "ob-type-member": ("PyUnicode_FromString(r->ob_type)", "PyUnicode_FromString(o->ob_type->tp_name)"),
    "err-occurred-tests": ("p != NULL", "PyErr_Occurred() != NULL"),
    "type-flags-reads": ("c->tp_flags :", "((PyTypeObject *)t)->tp_flags :"),
    "method-def-tests": ("== other;", "== (PyCFunction)twice;"),
    "cast-alias-macros": ("typedef struct { long n; } Dump;", "typedef struct { PyObject_HEAD long n; } Dump;"),
    "identity-name-macros": ("name##_v2", "name"),
    "table-element-macros": ("static struct pair pairs[]", "static PyMethodDef pairs[]"),
    "iso646-null-handles": ("not p)", "not o)"),
    "truth-macro-handle-args": ("CHECK(p);", "CHECK(o);"),
    "stock-object-values": ('"PyDateTime_TimeZone_UTC"', "PyDateTime_TimeZone_UTC"),
    "stock-struct-pointers": ("(PyTupleObject *)o", "(PyDateTime_Date *)o"),


    "newref-macros": ("(Py_Touch(o), (o))", "(Py_INCREF(o), (o))"),
    "api-call-macros": ("PyNumber_Add((b), (a))", "PyNumber_Add((a), (b))"),
    "void-pointer-objects": ("memset((void *) p,", "memset((void *) o,"),
    "local-state-name": ("{ S++;", "{ long S = 0; S++;"),
    "static-objects": ("return marker_obj.ob_refcnt;", "return Py_REFCNT(marker);"),
    "given-occurred-matches": ("PyErr_GivenExceptionMatches(caught,",
                               "PyErr_GivenExceptionMatches(PyErr_Occurred(),"),
    "constant-getters": ("Py_NewRef(Py_GetConstantBorrowed(Py_CONSTANT_ZERO))",
                         "Py_GetConstant(Py_CONSTANT_ZERO)"),
}


def example_path(rule):
    """The file name the rule's examples are translated under (as in
    test_rules.py): a library's rules only apply to C++ files."""
    return "example.cpp" if rule.library else "example.c"


def translate_alone(rule, text):
    """The unit ``text`` becomes when translated with ``rule`` alone."""
    path = example_path(rule)
    unit = translate.translate_files({path: text}, [rule()])[path]
    assert translate.uses_python(text) and rule().applies_to(unit), \
        f"the example is not a file {rule.name} translates at all"
    return unit


def fired(rule, unit):
    """Did ``rule`` transform or report anything in ``unit``?"""
    return (unit.counts[rule.name] > 0 or unit.text != unit.original
            or any(n.rule == rule.name for n in unit.notes))


@pytest.mark.parametrize("name", sorted(set(LEAVE_ALONE) & set(RULES)))
def test_rule_leaves_its_near_miss_alone(name):
    rule = RULES[name]
    unit = translate_alone(rule, LEAVE_ALONE[name])
    assert unit.counts[name] == 0
    assert unit.text == LEAVE_ALONE[name]
    assert not [n.message for n in unit.notes if n.rule == name]


@pytest.mark.parametrize("name", sorted(set(POSITIVE_TWINS) & set(RULES)))
def test_the_real_construct_next_to_the_near_miss_is_rewritten(name):
    near, real = POSITIVE_TWINS[name]
    text = LEAVE_ALONE[name]
    assert near in text
    rule = RULES[name]
    assert fired(rule, translate_alone(rule, text.replace(near, real, 1)))


def test_every_rule_has_a_negative_example():
    missing = sorted(set(RULES) - set(LEAVE_ALONE))
    assert not missing, (f"rules without a negative example: {', '.join(missing)}; add to LEAVE_ALONE "
                         "in tests/migrate/test_rules_leave_alone.py a near miss each must leave alone "
                         "(migrate/README.md, Adding a rule)")


def test_every_negative_example_names_a_rule():
    stale = sorted((set(LEAVE_ALONE) | set(POSITIVE_TWINS)) - set(RULES))
    assert not stale, f"LEAVE_ALONE or POSITIVE_TWINS names no rule: {', '.join(stale)} (renamed or removed?)"


def test_a_local_named_like_a_global_object_is_the_local():
    """A local handle that shadows a global object is no reference: storing
    into it takes none (before, it became ``Cystck_Object cache =
    Cystck_ref(S, v)``, a reference stored into a handle)."""
    before = ("static PyObject *cache;\n"
              "static void f(PyObject *v) { PyObject *cache = v; g(cache); }\n"
              "static void h(PyObject *v) { cache = v; g(cache); }\n")
    assert translate.translate_source(before, "example.c", [RULES["global-refs"]()]) == (
        "static Cystck_Ref cache;\n"
        "static void f(PyObject *v) { PyObject *cache = v; g(cache); }\n"
        "static void h(PyObject *v) { cache = Cystck_ref(S, v); g(Cystck_deref(S, cache)); }\n")


def test_a_released_local_that_does_not_hold_the_new_reference_gets_no_handle_of_its_own():
    """``newref`` gives a new reference a handle of its own where the local
    it is stored in is released later (test_rules_released_new_references.py);
    a new reference passed to a call whose result the local holds, or
    stored in a local never released, stays the handle itself; so does a
    new reference to a call's result (a handle of the call's own already)."""
    before = ("static PyObject *f(PyObject *self, PyObject *o)\n{\n"
              "    PyObject *y = g(Py_NewRef(o));\n    PyObject *z;\n"
              "    PyObject *w = Py_NewRef(PyTuple_GetItem(o, 0));\n"
              "    z = Py_NewRef(o);\n    h(z, w);\n    Py_DECREF(y);\n    Py_DECREF(w);\n    return z;\n}\n"
              "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(before, "example.c", [RULES["newref"]()])
    assert "g(o)" in out and "z = o;" in out and "w = PyTuple_GetItem(o, 0);" in out
    assert "Cystck_Dup" not in out


def test_an_iterator_slot_returning_a_variable_is_no_iteration_end():
    """``returns`` returns -1 for a null variable only in ``tp_iternext``
    (test_rules_iternext_returned_variable.py); ``tp_iter`` returning a
    variable pushes it."""
    before = ("typedef struct { PyObject_HEAD PyObject *seq; } It;\n"
              "static PyObject *it_iter(PyObject *self)\n{\n    PyObject *r = PyObject_GetIter(self);\n"
              "    return r;\n}\n"
              "static PyTypeObject ItType = { PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"It\",\n"
              "    .tp_basicsize = sizeof(It), .tp_iter = it_iter };\n")
    out = translate.translate_source(before, "example.c", [RULES["returns"]()])
    assert "return Cystck_Return(S, r);" in out and "Cystck_IsNull" not in out


def test_a_dict_loop_dropping_another_handle_still_reuses_the_item_slots():
    """``dict-next-into`` leaves a loop that releases its key or value
    (``Cystck_Drop(S, key)``, the decref rule's spelling) to a handle per
    item (test_rules_released_new_references.py); a release of another
    handle in the body is no reason to."""
    before = ("static int f(PyObject *d)\n{\n    PyObject *key, *value;\n    Py_ssize_t pos = 0;\n"
              "    while (PyDict_Next(d, &pos, &key, &value)) {\n        PyObject *t = g(key, value);\n"
              "        Cystck_Drop(S, t);\n    }\n    return 0;\n}\n")
    out = translate.translate_source(before, "example.c", [RULES["dict-next-into"]()])
    assert "CystckDict_NextInto(S, d, &pos, &key, &value)" in out
    dropped = before.replace("Cystck_Drop(S, t);", "Cystck_Drop(S, key);")
    assert "NextInto" not in translate.translate_source(dropped, "example.c", [RULES["dict-next-into"]()])
