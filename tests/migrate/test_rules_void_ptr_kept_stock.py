"""``PyLong_FromVoidPtr(p)`` of a C pointer (not a handle, which the
object-id rule ports) is kept through the escape hatch: it stayed a bare
stock call, its ``PyObject *`` assigned to a handle (a build error)."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    PyObject *address, *id;\n"
       "    char *p = PyBytes_AsString(arg);\n    address = PyLong_FromVoidPtr((void *) p);\n"
       "    id = PyLong_FromVoidPtr(arg);\n    return PyTuple_Pack(2, address, id);\n}\n"
       "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")


def test_void_ptr_of_a_c_pointer_is_kept_through_the_escape_hatch():
    out = translate.translate_source(SRC, "m.c")
    assert ("address = Cystck_FromNewPyObject(S, /* cystck-migrate: escape hatch */ "
            "PyLong_FromVoidPtr((void *) p));") in out


def test_void_ptr_of_a_handle_is_the_object_id():
    """Negative: of a handle it is CystckLong_FromVoidPtr, no escape hatch."""
    out = translate.translate_source(SRC, "m.c")
    assert "id = CystckLong_FromVoidPtr(S, arg);" in out
