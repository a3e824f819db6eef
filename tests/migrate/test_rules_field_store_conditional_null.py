"""An object field stored a conditional with a NULL branch, ``self->v =
c ? x : NULL;``, stores the null handle in that branch: the NULL stayed,
a pointer where ``CystckField_Store`` takes a handle ("type mismatch in
conditional expression")."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\ntypedef struct { PyObject_HEAD PyObject *v; PyObject *w; } Box;\n"
       "static PyObject *f(Box *self, PyObject *x)\n{\n"
       "    self->v = PyLong_Check(x) ? x : NULL;\n"
       "    self->w = PyLong_Check(x) ? NULL : x;\n"
       "    Py_RETURN_NONE;\n}\n"
       "static PyMethodDef m[] = {{\"f\", (PyCFunction)f, METH_O, NULL}, {NULL}};\n")


def test_null_branches_of_a_stored_conditional_are_the_null_handle():
    out = translate.translate_source(SRC, "m.c")
    assert "&Box_AsStruct(S, self)->v, CystckLong_Check(S, x) ? x : Cystck_NULL);" in out
    assert "&Box_AsStruct(S, self)->w, CystckLong_Check(S, x) ? Cystck_NULL : x);" in out


def test_a_null_inside_a_call_of_the_value_stays():
    """Negative: a NULL argument of a call in the value is no branch."""
    src = SRC.replace("PyLong_Check(x) ? x : NULL", "PyLong_Check(x) ? x : PyBytes_FromStringAndSize(NULL, 0)")
    out = translate.translate_source(src, "m.c")
    assert "? x : CystckBytes_FromStringAndSize(S, NULL, 0));" in out
