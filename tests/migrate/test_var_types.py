"""Type objects declared in headers, slots shared through macros,
destructors that call tp_clear with the result cast away (constructs of
the HAMT-style extensions of the porting corpus)."""
from cystck.migrate import translate

VIEW = ("#include <Python.h>\n"
        "typedef struct { PyObject_HEAD PyObject *obj; } View;\n"
        "static PyObject *view_iter(View *v) { return PyObject_GetIter(v->obj); }\n"
        "static int view_traverse(View *v, visitproc visit, void *arg) { Py_VISIT(v->obj); return 0; }\n"
        "#define VIEW_SLOTS \\\n"
        "    .tp_basicsize = sizeof(View), \\\n"
        "    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, \\\n"
        "    .tp_traverse = (traverseproc)view_traverse, \\\n"
        "    .tp_iter = (getiterfunc)view_iter,\n\n"
        "static PyTypeObject KeysType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    \"m.keys\",\n    VIEW_SLOTS\n};\n"
        "static PyTypeObject ItemsType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    \"m.items\",\n    VIEW_SLOTS\n};\n")


def test_slot_macro_types_become_specs_with_the_macros_slots():
    out = translate.translate_source(VIEW)
    assert "VIEW_SLOTS" not in out
    # the project saw the macro's slots: view_iter got the slot's signature
    assert "view_iter(Cystck_State *S, Cystck_Object v)" in out
    assert out.count("sizeof(View),") == 2
    for t in ("KeysType", "ItemsType"):
        assert f"CYSTCK_DEF_SLOT({t}_tp_iter, tp_iter, view_iter)" in out
        assert f"CYSTCK_DEF_SLOT({t}_tp_traverse, tp_traverse, view_traverse)" in out


def test_slot_macro_used_outside_a_type_initialiser_stays():
    """Negative: a macro of designated elements that is not an element of a
    PyTypeObject initialiser (here a PyModuleDef's) is not expanded, and a
    used definition is kept."""
    text = ("#include <Python.h>\n"
            "#define COMMON .tp_flags = 0,\n"
            "struct S { int tp_flags; };\n"
            "static struct S s = { COMMON };\n")
    out = translate.translate_source(text)
    assert "#define COMMON .tp_flags = 0," in out
    assert "static struct S s = { COMMON };" in out


def test_function_like_macro_in_a_type_initialiser_stays():
    """Negative: only object-like macros are slot macros."""
    text = ("#include <Python.h>\n"
            "typedef struct { PyObject_HEAD long n; } Box;\n"
            "#define NAMED(n) .tp_name = n\n"
            "static PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    NAMED(\"m.Box\"),\n"
            "    .tp_basicsize = sizeof(Box),\n};\n")
    out = translate.translate_source(text)
    assert "#define NAMED(n) .tp_name = n" in out


def test_type_objects_declared_in_a_header_are_references():
    header = ("#include <Python.h>\n"
              "typedef struct { PyObject_HEAD long n; } Box;\n"
              "#define Box_Check(o) (Py_TYPE(o) == &BoxType)\n"
              "PyTypeObject BoxType;\n"
              "extern PyTypeObject OtherType;\n"
              "PyTypeObject NotOurs;\n")
    body = ('#include "box.h"\n'
            "PyTypeObject BoxType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Box\",\n"
            "    .tp_basicsize = sizeof(Box),\n};\n"
            "PyTypeObject OtherType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Other\",\n};\n")
    out = translate.translate_files({"box.h": header, "box.c": body})
    h = out["box.h"].text
    # each with its spec, which another file readying the type needs
    # (docs/gaps.md T27: specs seen from other files)
    assert "\nCystck_Ref BoxType; extern CystckType_Spec BoxType_spec;\n" in h
    assert "\nextern Cystck_Ref OtherType; extern CystckType_Spec OtherType_spec;\n" in h
    # negative: a type object no file of the extension defines (another
    # library's) is left alone
    assert "\nPyTypeObject NotOurs;\n" in h


def test_destructor_drops_a_void_cast_call_of_tp_clear():
    text = ("#include <Python.h>\n"
            "typedef struct { PyObject_HEAD PyObject *v; } Box;\n"
            "static int Box_clear(Box *self) { Py_CLEAR(self->v); return 0; }\n"
            "static int Box_traverse(Box *self, visitproc visit, void *arg) { Py_VISIT(self->v); return 0; }\n"
            "static void Box_dealloc(Box *self)\n{\n    PyObject_GC_UnTrack(self);\n"
            "    (void)Box_clear(self);\n    (void)other(self);\n    PyObject_GC_Del(self);\n}\n"
            "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_basicsize = sizeof(Box),"
            " .tp_dealloc = (destructor)Box_dealloc, .tp_traverse = (traverseproc)Box_traverse,"
            " .tp_clear = (inquiry)Box_clear};\n")
    out = translate.translate_source(text)
    dealloc = out[out.index("Box_dealloc(void *data)"):]
    dealloc = dealloc[:dealloc.index("}")]
    assert "Box_clear" not in dealloc and "(void)\n" not in dealloc
    # negative: a call of a function that is not the dropped tp_clear stays
    assert "(void)other(self);" in dealloc


# ---- variable-size instances whose items are objects (Cystck_NewVar) ----

NODE = ("#include <Python.h>\n"
        "typedef struct {\n    PyObject_VAR_HEAD\n    long tag;\n    PyObject *items[1];\n} Node;\n")


def test_var_struct_keeps_room_for_the_count_and_its_items_are_fields():
    out = translate.translate_source(NODE)
    assert "typedef struct {\n    CYSTCK_VAR_HEAD\n    long tag;\n    Cystck_Field items[1];\n} Node;\n" in out


def test_fixed_struct_gets_no_var_head_and_two_dimensional_arrays_stay():
    """Negative: PyObject_HEAD goes as before; an array of arrays of
    objects is no array of fields."""
    out = translate.translate_source("#include <Python.h>\n"
                                     "typedef struct {\n    PyObject_HEAD\n    PyObject *grid[2][2];\n} Box;\n")
    assert "CYSTCK_VAR_HEAD" not in out and "PyObject_HEAD" not in out
    assert "PyObject *grid[2][2];" in out


def test_items_are_loaded_and_stored_as_fields():
    text = NODE + ("static PyObject *swap(Node *self, PyObject *v)\n{\n"
                   "    PyObject *old = self->items[0];\n"
                   "    Py_INCREF(v);\n    Py_SETREF(self->items[1], v);\n"
                   "    self->items[Py_SIZE(self) - 1] = NULL;\n"
                   "    if (self->items[0] == NULL)\n        return NULL;\n"
                   "    return old;\n}\n")
    out = translate.translate_source(text)
    assert "Cystck_Object old = CystckField_Load(S, self, Node_AsStruct(S, self)->items[0]);" in out
    assert "CystckField_Store(S, self, &Node_AsStruct(S, self)->items[1], v);" in out
    assert "CystckField_Store(S, self, &Node_AsStruct(S, self)->items[CystckVar_Size(S, self) - 1], Cystck_NULL);" \
        in out
    assert "CystckField_IsNull(Node_AsStruct(S, self)->items[0])" in out


def test_the_item_array_itself_is_no_field():
    """Negative: items without an index (the array's address) is a plain
    member access, not a field load."""
    text = NODE + ("static Py_ssize_t first(Node *self, PyObject *unused)\n{\n"
                   "    return (Py_ssize_t)(self->items != NULL) + PyObject_Size(unused);\n}\n")
    out = translate.translate_source(text)
    assert "Node_AsStruct(S, self)->items != NULL" in out
    assert "CystckField_Load" not in out


def test_var_allocation_keeps_its_item_count():
    text = NODE + ("static PyTypeObject NodeType;\n"
                   "static PyObject *mk(PyTypeObject *type, Py_ssize_t n)\n{\n"
                   "    Node *a = PyObject_GC_NewVar(Node, &NodeType, n + 2);\n"
                   "    PyObject *b = type->tp_alloc(type, Py_SIZE(a));\n"
                   "    PyObject *c = type->tp_alloc(type, 0);\n"
                   "    return PyTuple_Pack(3, a, b, c);\n}\n")
    out = translate.translate_source(text)
    assert "Cystck_Object a = Cystck_NewVar(S, Cystck_deref(S, NodeType), n + 2, NULL);" in out
    # a count through the type's own tp_alloc (items or not: slots'
    # CystckType_GenericAlloc, test_rules_tp_alloc_count.py)
    assert "Cystck_Object b = CystckType_GenericAlloc(S, type, CystckVar_Size(S, a));" in out
    # negative: no item count, no variable-size allocation
    assert "Cystck_Object c = Cystck_NewZeroed(S, type, NULL);" in out


def test_item_count_in_traverse_and_destructor_is_read_from_the_struct():
    text = NODE + ("static int Node_traverse(Node *self, visitproc visit, void *arg)\n{\n    Py_ssize_t i;\n"
                   "    for (i = 0; i < Py_SIZE(self); i++)\n        Py_VISIT(self->items[i]);\n    return 0;\n}\n"
                   "static void Node_dealloc(Node *self)\n{\n    Py_ssize_t i;\n"
                   "    for (i = 0; i < Py_SIZE(self); i++)\n        if (self->items[i] != NULL)\n"
                   "            count(self);\n    PyObject_GC_Del(self);\n}\n"
                   "static PyObject *size(Node *self, PyObject *unused) { return PyLong_FromSsize_t(Py_SIZE(self)); }\n"
                   "static PyMethodDef Node_methods[] = {{\"size\", (PyCFunction)size, METH_NOARGS, NULL}, {NULL}};\n"
                   "static PyTypeObject NodeType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Node\","
                   " .tp_basicsize = sizeof(Node) - sizeof(PyObject *), .tp_itemsize = sizeof(PyObject *),"
                   " .tp_dealloc = (destructor)Node_dealloc, .tp_traverse = (traverseproc)Node_traverse,"
                   " .tp_methods = Node_methods};\n")
    out = translate.translate_source(text)
    assert "for (i = 0; i < CystckVar_DataSize(self); i++)\n        Cystck_VISIT(&self->items[i]);" in out
    assert "for (i = 0; i < CystckVar_DataSize(self); i++)\n        if (!CystckField_IsNull(self->items[i]))" in out
    # negative: where there is a state and a handle, the count is CystckVar_Size
    assert "return Cystck_ReturnSsize(S, CystckVar_Size(S, self));" in out


def test_generated_traverse_visits_every_item():
    """A type with object items but no traverse gets one that visits each
    item: up to the item count for a variable-size type, the array's length
    for a fixed one."""
    text = ("#include <Python.h>\n"
            "typedef struct {\n    PyObject_VAR_HEAD\n    PyObject *items[1];\n} Node;\n"
            "typedef struct {\n    PyObject_HEAD\n    PyObject *pair[2];\n    PyObject *v;\n} Pair;\n"
            "static PyTypeObject NodeType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Node\","
            " .tp_basicsize = sizeof(Node) - sizeof(PyObject *), .tp_itemsize = sizeof(PyObject *)};\n"
            "static PyTypeObject PairType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Pair\","
            " .tp_basicsize = sizeof(Pair)};\n")
    out = translate.translate_source(text)
    assert ("    for (i = 0; i < CystckVar_DataSize(data); i++)\n"
            "        Cystck_VISIT(&self->items[i]);\n") in out
    assert ("    for (i = 0; i < (Cystck_ssize_t)(sizeof(self->pair) / sizeof(self->pair[0])); i++)\n"
            "        Cystck_VISIT(&self->pair[i]);\n    Cystck_VISIT(&self->v);\n") in out


def test_struct_access_follows_the_declaration_in_scope():
    """Two blocks may declare one name as pointers to different structs
    (``Pair *n`` in one branch, ``Node *n`` in the other): each access
    goes through the accessor of the declaration in scope."""
    text = ("#include <Python.h>\n"
            "typedef struct { PyObject_HEAD long a; } Pair;\n"
            "typedef struct { PyObject_HEAD long b; } Node;\n"
            "static PyObject *mk(PyObject *self, PyObject *x)\n{\n"
            "    Node *n = (Node *)PyObject_CallNoArgs(x);\n"
            "    if (PyObject_IsTrue(x)) {\n        Pair *n = (Pair *)PyObject_CallNoArgs(x);\n"
            "        n->a = 1;\n        return (PyObject *)n;\n    }\n"
            "    else {\n        Node *n = (Node *)PyObject_CallNoArgs(self);\n"
            "        n->b = 2;\n        return (PyObject *)n;\n    }\n"
            "    n->b = 3;\n    return (PyObject *)n;\n}\n")
    out = translate.translate_source(text)
    assert "        Pair_AsStruct(S, n)->a = 1;" in out
    assert "        Node_AsStruct(S, n)->b = 2;" in out
    # negative: after the blocks the outer declaration is the one in scope
    assert "    Node_AsStruct(S, n)->b = 3;" in out


def test_members_a_traverse_visits_are_fields_even_as_struct_pointers():
    """A member pointing at a custom type's struct that traverse visits is
    an object the instance owns: a field.  Negative: one it does not visit
    (a borrowed back pointer) stays a native pointer."""
    text = ("#include <Python.h>\n"
            "typedef struct Tree {\n    PyObject_HEAD\n    struct Tree *kids[2];\n    struct Tree *parent;\n} Tree;\n"
            "static int Tree_traverse(Tree *self, visitproc visit, void *arg)\n{\n    int i;\n"
            "    for (i = 0; i < 2; i++)\n        Py_VISIT(self->kids[i]);\n    return 0;\n}\n"
            "static PyObject *first(Tree *self, PyObject *unused)\n{\n"
            "    Tree *k = self->kids[0];\n    Py_INCREF(k);\n    return (PyObject *)k;\n}\n"
            "static PyMethodDef Tree_methods[] = {{\"first\", (PyCFunction)first, METH_NOARGS, NULL}, {NULL}};\n"
            "static PyTypeObject TreeType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Tree\","
            " .tp_basicsize = sizeof(Tree), .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,"
            " .tp_traverse = (traverseproc)Tree_traverse, .tp_methods = Tree_methods};\n")
    out = translate.translate_source(text)
    assert "    Cystck_Field kids[2];\n    struct Tree *parent;\n" in out
    assert "Cystck_Object k = CystckField_Load(S, self, Tree_AsStruct(S, self)->kids[0]);" in out


MEMBER_MACRO = ("#include <Python.h>\n"
                "#define COMMON(p) \\\n    PyObject_HEAD \\\n    PyObject *p##_dict; \\\n    long p##_n;\n"
                "typedef struct {\n    COMMON(a)\n} A;\n"
                "typedef struct {\n    COMMON(b)\n    double extra;\n} B;\n"
                "static PyObject *get(A *self, PyObject *unused) { Py_INCREF(self->a_dict); return self->a_dict; }\n"
                "static PyMethodDef A_methods[] = {{\"get\", (PyCFunction)get, METH_NOARGS, NULL}, {NULL}};\n")


def test_structs_declared_through_a_member_macro_are_instance_structs():
    out = translate.translate_source(MEMBER_MACRO)
    assert "COMMON" not in out
    assert "typedef struct {\n    Cystck_Field a_dict;\n    long a_n;\n} A;\nCYSTCK_TYPE_HELPERS(A)" in out
    assert "    Cystck_Field b_dict;\n    long b_n;\n    double extra;\n} B;\nCYSTCK_TYPE_HELPERS(B)" in out
    assert "return Cystck_Return(S, CystckField_Load(S, self, A_AsStruct(S, self)->a_dict));" in out


def test_member_macros_without_an_object_head_stay():
    """Negative: a macro declaring plain members (no PyObject_HEAD) is not
    expanded, nor a head macro used outside a struct."""
    text = ("#include <Python.h>\n"
            "#define PAIR(p) long p##_x; long p##_y;\n"
            "typedef struct {\n    PAIR(a)\n} P;\n"
            "#define HEADED(p) PyObject_HEAD long p;\n"
            "static int HEADED(n) = 0;\n")
    out = translate.translate_source(text)
    assert "typedef struct {\n    PAIR(a)\n} P;" in out and "#define PAIR(p)" in out
    assert "#define HEADED(p) PyObject_HEAD long p;" in out


def test_assert_of_a_handle_tests_its_nullness():
    text = ("#include <Python.h>\n"
            "static PyObject *f(PyObject *o, int n)\n{\n    PyObject *r = PyObject_Repr(o);\n"
            "    assert(r);\n    assert(n);\n    return r;\n}\n")
    out = translate.translate_source(text)
    assert "    assert(!Cystck_IsNull(r));\n" in out
    assert "    assert(n);\n" in out          # negative: an int


def test_field_setref_to_null_and_stores_of_long_values():
    text = NODE + ("static PyObject *g(PyObject *a, PyObject *b, PyObject *c) { return PyTuple_Pack(3, a, b, c); }\n"
                   "static PyObject *f(Node *self, PyObject *x)\n{\n"
                   "    Py_SETREF(self->items[0], NULL);\n    Py_SETREF(self->items[1], x);\n"
                   "    self->items[2] =\n        g(x, x,\n" + "          x,\n" * 60 + "          x);\n"
                   "    return x;\n}\n")
    out = translate.translate_source(text)
    assert "CystckField_Store(S, self, &Node_AsStruct(S, self)->items[0], Cystck_NULL);" in out
    assert "CystckField_Store(S, self, &Node_AsStruct(S, self)->items[1], x);" in out
    assert "    CystckField_Store(S, self, &Node_AsStruct(S, self)->items[2], g(S, x, x," in out


def test_a_shared_traverse_makes_the_same_member_of_each_extending_struct_a_field():
    """A traverse written for a base struct and used by types whose structs
    begin with the same members visits their member at that place too.
    Negative: a struct whose first members differ keeps its pointer."""
    text = ("#include <Python.h>\n"
            "typedef struct { PyObject_HEAD } Node;\n"
            "typedef struct {\n    PyObject_HEAD\n    Node *root;\n} Base;\n"
            "typedef struct {\n    PyObject_HEAD\n    Node *big_root;\n    long more;\n} Big;\n"
            "typedef struct {\n    PyObject_HEAD\n    long k;\n    Node *o_root;\n} Other;\n"
            "static int base_traverse(Base *self, visitproc visit, void *arg)\n{\n"
            "    Py_VISIT(self->root);\n    return 0;\n}\n"
            "static PyTypeObject BigType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Big\","
            " .tp_basicsize = sizeof(Big), .tp_traverse = (traverseproc)base_traverse};\n"
            "static PyTypeObject OtherType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Other\","
            " .tp_basicsize = sizeof(Other), .tp_traverse = (traverseproc)base_traverse};\n")
    out = translate.translate_source(text)
    assert "    Cystck_Field root;\n} Base;" in out
    assert "    Cystck_Field big_root;\n    long more;\n} Big;" in out
    assert "    long k;\n    Node *o_root;\n} Other;" in out


def test_arrays_of_struct_pointers_hold_native_pointers_item_by_item():
    """An iterator's path through a tree (``Node *path[8]``, pointers it
    does not own) stays native: a handle stored into an item gives its
    struct, an item read into a handle gives the object back.  Negative:
    the array itself (memset) is left alone."""
    text = ("#include <Python.h>\n#include <string.h>\n"
            "typedef struct Node { PyObject_HEAD long n; } Node;\n"
            "typedef struct { Node *path[8]; int level; } Walk;\n"
            "static PyObject *step(Walk *w, Node *root)\n{\n"
            "    memset(w->path, 0, sizeof(w->path));\n"
            "    w->path[0] = root;\n"
            "    Node *cur = (w->path[w->level]);\n"
            "    return (PyObject *)cur;\n}\n")
    out = translate.translate_source(text)
    assert "    memset(w->path, 0, sizeof(w->path));\n" in out
    assert "    w->path[0] = Node_AsStruct(S, root);\n" in out
    assert ("    Cystck_Object cur = ((w->path[w->level] ? Cystck_FromStruct(S, w->path[w->level]) "
            ": Cystck_NULL));\n") in out


def test_null_test_of_a_handle_behind_an_output_pointer():
    text = ("#include <Python.h>\n"
            "static int f(PyObject *d, PyObject **out, int *n)\n{\n"
            "    *out = PyObject_GetItem(d, d);\n    if (*out == NULL)\n        return -1;\n"
            "    assert(*out != NULL);\n    return *n == 0 ? 0 : 1;\n}\n")
    out = translate.translate_source(text)
    assert "    if (Cystck_IsNull(*out))\n" in out
    assert "    assert(!Cystck_IsNull(*out));\n" in out
    assert "    return *n == 0 ? 0 : 1;\n" in out       # negative: a pointer to int


def test_a_null_branch_of_a_returned_conditional_is_the_null_handle():
    text = ("#include <Python.h>\n"
            "static PyObject *pick(PyObject *o, int c) { return c ? NULL : o; }\n"
            "static const char *name(int c) { return c ? \"x\" : NULL; }\n"
            "static PyObject *f(PyObject *self, PyObject *arg)\n{\n"
            "    int i = PyObject_IsTrue(arg);\n"
            "    return i > 0 ? PyUnicode_FromString(name(i)) : NULL;\n}\n"
            "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(text)
    assert "return c ? Cystck_NULL : o;" in out
    # In an entry point the null branch is the error value (no null handle pushed).
    assert "return (i > 0) ? Cystck_Return(S, CystckUnicode_FromString(S, name(i))) : -1;" in out
    assert 'static const char *name(int c) { return c ? "x" : NULL; }' in out    # negative


def test_field_compared_with_a_handle_and_read_through():
    text = ("#include <Python.h>\n"
            "typedef struct { PyObject_HEAD long n; } Inner;\n"
            "typedef struct { PyObject_HEAD Inner *in; PyObject *v; } Outer;\n"
            "static int trav(Outer *self, visitproc visit, void *arg) { Py_VISIT(self->in); Py_VISIT(self->v); return 0; }\n"
            "static long f(Outer *self, PyObject *x)\n{\n"
            "    if (self->v == x || self->v != NULL)\n        return self->in->n;\n    return 0;\n}\n"
            "static PyTypeObject OuterType = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"m.Outer\","
            " .tp_basicsize = sizeof(Outer), .tp_traverse = (traverseproc)trav};\n")
    out = translate.translate_source(text)
    assert "if (Cystck_Is(S, CystckField_Load(S, self, Outer_AsStruct(S, self)->v), x) || " \
           "!CystckField_IsNull(Outer_AsStruct(S, self)->v))" in out
    assert "return Inner_AsStruct(S, CystckField_Load(S, self, Outer_AsStruct(S, self)->in))->n;" in out


def test_stock_function_pointer_members_take_the_state_and_calls_pass_it():
    text = ("#include <Python.h>\n"
            "typedef struct { PyObject_HEAD binaryfunc yield; } It;\n"
            "static PyObject *pair(PyObject *a, PyObject *b) { return PyTuple_Pack(2, a, b); }\n"
            "static PyObject *next(It *it, PyObject *k)\n{\n    it->yield = pair;\n"
            "    return (*(it->yield))(k, k);\n}\n"
            "static void *as_ptr(void) { return (void *)(binaryfunc)pair; }\n")
    out = translate.translate_source(text)
    assert "Cystck_Object (*yield)(Cystck_State *, Cystck_Object, Cystck_Object);" in out
    assert "(*(It_AsStruct(S, it)->yield))(S, k, k)" in out
    # negative: a cast names the type, it declares nothing
    assert "return (void *)(binaryfunc)pair;" in out


def test_a_method_entry_with_conditionals_inside_is_translated_per_version():
    """An #if inside a PyMethodDef entry: the entry is read once per
    version the preprocessor makes of it, each definition inside the
    conditional that selects it (tests/migrate/test_rules_conditional_table_entries.py
    has more).  Negative: the entries around it are translated as before."""
    text = ("#include <Python.h>\n"
            "static PyObject *f(PyObject *self, PyObject *o) { return PyNumber_Negative(o); }\n"
            "static PyMethodDef methods[] = {\n"
            "    {\"f\", (PyCFunction)f, METH_O, NULL},\n"
            "    {\n        \"g\",\n#if PY_VERSION_HEX < 0x03090000\n        (PyCFunction)f,\n#else\n"
            "        Py_GenericAlias,\n#endif\n        METH_O|METH_CLASS,\n        \"doc\"\n    },\n"
            "    {NULL, NULL}\n};\n")
    out = translate.translate_source(text)
    assert 'CYSTCK_DEF_METH(f_def, "f", f, CYSTCK_O, NULL)\n#if' in out
    assert ('#if PY_VERSION_HEX < 0x03090000\n'
            'CYSTCK_DEF_METH_FLAGS(f__g_def, "g", f, CYSTCK_O, METH_CLASS, "doc")\n') in out
    assert ('#if PY_VERSION_HEX < 0x03090000\n#else\nCYSTCK_DEF_METH_FLAGS(g__Py_GenericAlias_def, "g", '
            'g__Py_GenericAlias, CYSTCK_O, METH_CLASS, "doc")\n') in out
    assert "not translated" not in out


def test_an_increment_before_an_alias_that_is_released_duplicates_the_handle():
    text = ("#include <Python.h>\n"
            "static PyObject *fold(PyObject *root, PyObject *items)\n{\n"
            "    PyObject *last, *keep;\n"
            "    Py_INCREF(root);\n    last = root;\n"
            "    Py_SETREF(last, PyNumber_Add(last, items));\n"
            "    Py_INCREF(root);\n    keep = root;\n"
            "    PyObject_Print(keep, stdout, 0);\n"
            "    return last;\n}\n")
    out = translate.translate_source(text)
    assert "    last = Cystck_Dup(S, root);\n" in out
    # negative: an alias never released needs no handle of its own
    assert "    keep = root;\n" in out


def test_an_increment_then_a_later_return_of_the_same_handle_duplicates_it():
    text = ("#include <Python.h>\n"
            "static PyObject *same(PyObject *self, PyObject *d, int *flag)\n{\n"
            "    if (PyObject_IsTrue(d)) {\n        Py_INCREF(self);\n        *flag = 1;\n        return self;\n    }\n"
            "    if (*flag) {\n        Py_INCREF(self);\n        *flag = 2;\n    }\n    return self;\n}\n")
    out = translate.translate_source(text)
    assert "        *flag = 1;\n        return Cystck_Dup(S, self);\n" in out
    # negative: a return after the increment's block is left as it was
    assert "    if (*flag) {\n        *flag = 2;\n    }\n    return self;\n" in out


def test_an_alias_followed_by_an_increment_duplicates_the_handle():
    text = ("#include <Python.h>\n"
            "static PyObject *pick(PyObject *self, PyObject *other, int c)\n{\n    PyObject *r;\n"
            "    if (c) {\n        r = self;\n        c++;\n        Py_INCREF(self);\n    }\n"
            "    else {\n        r = other;\n    }\n    Py_INCREF(other);\n    return r;\n}\n")
    out = translate.translate_source(text)
    assert "        r = Cystck_Dup(S, self);\n        c++;\n    }\n" in out
    # negative: the alias in another block than the increment stays
    assert "        r = other;\n    }\n" in out


def test_unicode_writer_declarations_name_the_cystck_struct():
    text = ("#include <Python.h>\n"
            "static int dump(_PyUnicodeWriter *w, PyObject *o) { return _PyUnicodeWriter_WriteStr(w, o); }\n"
            "static PyObject *f(PyObject *self, PyObject *o)\n{\n    _PyUnicodeWriter writer;\n    _PyTime_t t = 0;\n"
            "    _PyUnicodeWriter_Init(&writer);\n    if (dump(&writer, o) < 0 || t) {\n"
            "        _PyUnicodeWriter_Dealloc(&writer);\n        return NULL;\n    }\n"
            "    return _PyUnicodeWriter_Finish(&writer);\n}\n"
            "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(text)
    assert "static int dump(Cystck_State *S, CystckUnicodeWriter *w, Cystck_Object o)" in out
    assert "    CystckUnicodeWriter writer;\n" in out
    assert "CystckUnicodeWriter_Init(S, &writer);" in out
    assert "    _PyTime_t t = 0;\n" in out       # negative: no Cystck counterpart


def test_keywords_given_to_a_helper_or_a_stock_function_are_the_dict():
    text = ("#include <Python.h>\n"
            "static PyObject *merge(PyObject *into, PyObject *kw) { PyDict_Update(into, kw); return into; }\n"
            "static PyObject *upd(PyObject *self, PyObject *args, PyObject *kwds)\n{\n"
            "    if (kwds != NULL && !PyArg_ValidateKeywordArguments(kwds))\n        return NULL;\n"
            "    return merge(self, kwds);\n}\n"
            "static PyObject *other(PyObject *self, PyObject *args, PyObject *kwds)\n{\n"
            "    return upd(self, args, kwds);\n}\n"
            "static PyMethodDef m[] = {{\"upd\", (PyCFunction)upd, METH_VARARGS | METH_KEYWORDS, NULL},\n"
            "    {\"other\", (PyCFunction)other, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n")
    out = translate.translate_source(text)
    body = out[out.index("upd(Cystck_State"):]
    assert body.split("{", 1)[1].lstrip().startswith("if (cystck_migrate_kwargs_dict(S, args, nargs, &kwds) < 0)")
    # negative: passed on to another method, the names stay
    other = out[out.index("other(Cystck_State"):]
    assert "cystck_migrate_kwargs_dict" not in other.split("}")[0]


def test_the_kwargs_helper_follows_the_last_include_when_a_header_brings_cystck():
    header = "#include <Python.h>\n"
    body = ('#include <stddef.h>\n#include "ext.h"\n'
            "static PyObject *upd(PyObject *self, PyObject *args, PyObject *kwds)\n{\n"
            "    if (kwds != NULL && PyDict_Check(kwds))\n        return PyDict_Copy(kwds);\n    Py_RETURN_NONE;\n}\n"
            "static PyMethodDef m[] = {{\"upd\", (PyCFunction)upd, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n")
    out = translate.translate_files({"ext.h": header, "ext.c": body})["ext.c"].text
    assert out.startswith('#include <stddef.h>\n#include "ext.h"\n\n#ifndef CYSTCK_MIGRATE_KWARGS_DICT_DEFINED\n'
                          '#define CYSTCK_MIGRATE_KWARGS_DICT_DEFINED\n/* cystck-migrate: the keyword arguments')


def test_fastcall_keywords_given_to_a_helper_stay_the_names():
    """A METH_FASTCALL | METH_KEYWORDS method's kwnames are already the
    names tuple that its helpers (a keyword parser of the extension) read:
    making the dict of it would hand them a dict where they index a tuple."""
    text = ("#include <Python.h>\n"
            "static int parse(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)\n{\n"
            "    Py_ssize_t n = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;\n"
            "    *out = nargs + n ? args[0] : Py_None;\n    return 0;\n}\n"
            "static PyObject *fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)\n{\n"
            "    PyObject *v;\n    if (parse(args, nargs, kwnames, &v) < 0)\n        return NULL;\n"
            "    return Py_NewRef(v);\n}\n"
            "static PyObject *merge(PyObject *into, PyObject *kw) { PyDict_Update(into, kw); return into; }\n"
            "static PyObject *slow(PyObject *self, PyObject *args, PyObject *kwds)\n{\n"
            "    return merge(self, kwds);\n}\n"
            "static PyMethodDef m[] = {{\"fast\", (PyCFunction)(void(*)(void))fast, METH_FASTCALL | METH_KEYWORDS, NULL},\n"
            "    {\"slow\", (PyCFunction)slow, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n")
    out = translate.translate_source(text)
    fast = out[out.index("fast(Cystck_State"):out.index("slow(Cystck_State")]
    assert "cystck_migrate_kwargs_dict" not in fast
    # negative: the stock METH_KEYWORDS method got a dict, and gives one
    slow = out[out.index("slow(Cystck_State"):]
    assert slow.split("{", 1)[1].lstrip().startswith("if (cystck_migrate_kwargs_dict(S, args, nargs, &kwds) < 0)")


def test_a_clear_call_in_a_destructor_taking_an_object_pointer_goes():
    """``Foo_clear(self)`` in a destructor declared ``(PyObject *self)``
    goes with the removed ``tp_clear`` function, as it does where the
    destructor takes the instance struct (the call would name a function
    that no longer exists).  (Negative: the destructor's other statements
    stay.)"""
    text = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *v; } Foo;\n"
            "static int Foo_clear(PyObject *self);\n"
            "static void Foo_dealloc(PyObject *self)\n{\n    PyObject_GC_UnTrack(self);\n    Foo_clear(self);\n"
            "    puts(\"bye\");\n    Py_TYPE(self)->tp_free(self);\n}\n"
            "static int Foo_traverse(PyObject *self, visitproc visit, void *arg)\n{\n"
            "    Py_VISIT(((Foo *)self)->v);\n    return 0;\n}\n"
            "static int Foo_clear(PyObject *self)\n{\n    Py_CLEAR(((Foo *)self)->v);\n    return 0;\n}\n"
            "static PyType_Slot slots[] = {{Py_tp_dealloc, Foo_dealloc}, {Py_tp_traverse, Foo_traverse},\n"
            "    {Py_tp_clear, Foo_clear}, {0, NULL}};\n"
            "static PyType_Spec spec = {\"m.Foo\", sizeof(Foo), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, slots};\n")
    out = translate.translate_source(text)
    assert "Foo_clear(self);" not in out
    assert "    puts(\"bye\");\n" in out
