"""A helper's ``void *`` parameter that its body casts to an object struct
holds an object: it becomes a handle, like the pointers its callers pass."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "typedef struct { PyObject_HEAD Py_ssize_t count; } Node;\n"
       "typedef struct { int n; } Plain;\n"
       "static PyTypeObject Node_Type;\n"
       "#if !defined(NDEBUG)\n"
       "static void\nvalidate(void *o)\n{\n"
       "    assert(Py_TYPE(o) == &Node_Type);\n"
       "    Node *node = (Node *)(o);\n    assert(node->count >= 0);\n}\n"
       "#define VALIDATE(N) validate(N)\n#else\n#define VALIDATE(N)\n#endif\n"
       "static void\nfill(void *o, Node *n)\n{\n    Plain *p = (Plain *)o;\n    p->n = (int)n->count;\n}\n"
       "static void\nraw(void *o, Node *n)\n{\n    Node *m = (Node *)o;\n    memset(o, 0, 8);\n    (void)m; (void)n;\n}\n"
       "static PyObject *\nnode_check(PyObject *self, PyObject *unused)\n{\n"
       "    Node *node = (Node *)self;\n    VALIDATE(node);\n    Py_RETURN_NONE;\n}\n"
       "static PyMethodDef m[] = {{\"check\", node_check, METH_NOARGS, NULL}, {NULL}};\n")


def test_void_pointer_cast_to_an_object_struct_is_a_handle():
    # before: validate(Cystck_State *S, void *o), its casts gave a handle
    # from a void * and callers passed it handles: compile errors whenever
    # NDEBUG is not defined
    out = translate.translate_source(SRC)
    assert "validate(Cystck_State *S, Cystck_Object o)" in out


def test_void_pointer_to_a_plain_struct_or_read_as_memory_stays():
    out = translate.translate_source(SRC)
    # negatives: cast to a struct that is no object; read as raw memory
    assert "fill(Cystck_State *S, void *o, Cystck_Object n)" in out
    assert "raw(Cystck_State *S, void *o, Cystck_Object n)" in out
