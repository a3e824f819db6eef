"""A helper given the address of an object field at every call works on
a Cystck_Field; one that some call gives another pointer stays."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "typedef struct {\n    PyObject_HEAD\n    PyObject *cache;\n} Box;\n"
       "static PyObject *ensure(PyObject *self, PyObject **field)\n{\n"
       "    if (*field == NULL)\n        *field = PyDict_New();\n"
       "    Py_XINCREF(*field);\n    return *field;\n}\n"
       "static PyObject *get(Box *self, PyObject *unused) { return ensure((PyObject *)self, &self->cache); }\n")


def test_helper_taking_a_fields_address_gets_a_field_pointer():
    out = translate.translate_source(SRC, "m.c")
    assert "static Cystck_Object ensure(Cystck_State *S, Cystck_Object self, Cystck_Field *field)" in out
    assert "if (CystckField_IsNull(*field))\n        CystckField_Store(S, self, field, CystckDict_New(S));" in out
    assert "return CystckField_Load(S, self, *field);" in out
    assert "ensure(S, self, &Box_AsStruct(S, self)->cache)" in out


def test_helper_also_given_a_local_handles_address_stays():
    src = SRC + ("static PyObject *other(PyObject *o)\n{\n    PyObject *local = NULL;\n"
                 "    return ensure(o, &local);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "static Cystck_Object ensure(Cystck_State *S, Cystck_Object self, Cystck_Object *field)" in out
    assert "CystckField_" not in out.split("ensure(")[1].split("}")[0]
