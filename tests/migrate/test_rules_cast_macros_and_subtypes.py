"""Cast macros over handles, and instance structs that embed another
instance struct (a subtype's layout): each translated as a whole file,
with a construct the rule must leave alone."""
from cystck.migrate import translate

BOX = "#include <Python.h>\ntypedef struct {\n    PyObject_HEAD\n    PyObject *value;\n} Box;\n"


def test_cast_macro_to_an_object_type_becomes_the_identity():
    src = (BOX + "#define OBJECT(O) ((PyObject*)(O))\n#define AS_BOX(o) ((Box *)o)\n"
           "static PyObject *f(PyObject *o) { return PyObject_Repr(OBJECT(AS_BOX(o))); }\n")
    out = translate.translate_source(src, "m.c")
    assert "#define OBJECT(O) (O)\n" in out
    assert "#define AS_BOX(o) (o)\n" in out
    # uses in functions with the state are their argument
    assert "CystckObject_Repr(S, o)" in out


def test_cast_macro_use_compared_with_a_handle_is_an_identity_test():
    src = (BOX + "#define OBJECT(O) ((PyObject*)(O))\n"
           "static int same(Box *self, PyObject *other) { return OBJECT(self) == other && PyCallable_Check(other); }\n")
    out = translate.translate_source(src, "m.c")
    assert "return Cystck_Is(S, self, other) && CystckCallable_Check(S, other);" in out


def test_cast_macro_to_a_native_type_stays():
    src = (BOX + "#define BYTES(p) ((unsigned char *)(p))\n#define TWICE(O) ((PyObject*)(O) + 1)\n"
           "static PyObject *f(PyObject *o, char *p) { return PyLong_FromLong(*BYTES(p)); }\n")
    out = translate.translate_source(src, "m.c")
    assert "#define BYTES(p) ((unsigned char *)(p))\n" in out
    assert "#define TWICE(O) ((PyObject*)(O) + 1)\n" in out


def test_struct_starting_with_an_instance_struct_is_an_instance_struct():
    src = (BOX + "typedef struct {\n    Box base;\n    PyObject *tag;\n} Tagged;\n"
           "static PyObject *tag_of(Tagged *self) { return Py_NewRef(self->tag); }\n")
    out = translate.translate_source(src, "m.c")
    assert "typedef struct {\n    Box base;\n    Cystck_Field tag;\n} Tagged;\nCYSTCK_TYPE_HELPERS(Tagged)\n" in out
    assert "CystckField_Load(S, self, Tagged_AsStruct(S, self)->tag)" in out


def test_struct_holding_a_pointer_to_an_instance_struct_is_not_one():
    src = (BOX + "typedef struct {\n    Box *box;\n    PyObject *tag;\n} Holder;\n")
    out = translate.translate_source(src, "m.c")
    # a plain struct: its object member is a handle, not a field
    assert "typedef struct {\n    Box *box;\n    Cystck_Object tag;\n} Holder;\n" in out
    assert "CYSTCK_TYPE_HELPERS(Holder)" not in out
