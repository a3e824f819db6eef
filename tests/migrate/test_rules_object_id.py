"""PyLong_FromVoidPtr of a handle is the object's identity: CystckLong_FromVoidPtr."""
from cystck.migrate import translate


def test_identity_of_a_handle_is_object_id():
    # before: PyLong_FromVoidPtr(Cystck_AsPyObject(S, obj)) through the
    # escape hatch (an encoder's circular-reference markers)
    src = ("#include <Python.h>\n"
           "static int mark(PyObject *markers, PyObject *obj)\n{\n"
           "    PyObject *ident = PyLong_FromVoidPtr(obj);\n"
           "    if (ident == NULL)\n        return -1;\n"
           "    return PyDict_SetItem(markers, ident, obj);\n}\n")
    out = translate.translate_source(src)
    assert "Cystck_Object ident = CystckLong_FromVoidPtr(S, obj);" in out
    assert "Cystck_AsPyObject" not in out


def test_pointer_that_is_no_object_is_its_address():
    # negative: the address of C memory is not an object's identity, it
    # is the address as an int (stock through the escape hatch before T49)
    src = ("#include <Python.h>\n"
           "static PyObject *addr(PyObject *self, PyObject *o)\n{\n"
           "    static char buf[8];\n    void *p = buf;\n"
           "    return PyLong_FromVoidPtr(p);\n}\n"
           "static PyMethodDef m[] = {{\"addr\", addr, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(src)
    assert "CystckLong_FromPointer(S, p)" in out
    assert "CystckLong_FromVoidPtr" not in out
    assert "escape hatch" not in out
