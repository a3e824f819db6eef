"""``PyLong_FromVoidPtr(p)`` of a C pointer (not a handle, which the
object-id rule ports to CystckLong_FromVoidPtr) is
``CystckLong_FromPointer(S, p)`` (T49; before, it was kept through the
escape hatch), and ``PyLong_AsVoidPtr(o)`` is ``CystckLong_AsVoidPtr(S, o)``;
outside a function with the state the stock call stays, through the
escape hatch."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static PyObject *f(PyObject *self, PyObject *arg)\n{\n    PyObject *address, *id;\n"
       "    char *p = PyBytes_AsString(arg);\n    address = PyLong_FromVoidPtr((void *) p);\n"
       "    id = PyLong_FromVoidPtr(arg);\n"
       "    return PyTuple_Pack(2, address, id);\n}\n"
       "static PyObject *g(PyObject *self, PyObject *arg)\n{\n    void *p = PyLong_AsVoidPtr(arg);\n"
       "    if (p == NULL && PyErr_Occurred())\n        return NULL;\n    return PyLong_FromVoidPtr(p);\n}\n"
       "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {\"g\", g, METH_O, NULL}, {NULL}};\n")


def test_void_ptr_of_a_c_pointer_is_from_pointer():
    out = translate.translate_source(SRC, "m.c")
    assert "address = CystckLong_FromPointer(S, (void *) p);" in out
    assert "return Cystck_Return(S, CystckLong_FromPointer(S, p));" in out
    assert "escape hatch" not in out
    assert "PyLong_FromVoidPtr" not in out


def test_as_void_ptr_is_ported():
    out = translate.translate_source(SRC, "m.c")
    assert "void *p = CystckLong_AsVoidPtr(S, arg);" in out


def test_void_ptr_of_a_handle_is_the_object_id():
    """Negative: of a handle it is CystckLong_FromVoidPtr."""
    out = translate.translate_source(SRC, "m.c")
    assert "id = CystckLong_FromVoidPtr(S, arg);" in out


def test_outside_a_function_with_the_state_it_stays_stock():
    """Negative: a capsule destructor keeps its stock body (no state)."""
    src = ("#include <Python.h>\n"
           "static void destroy(PyObject *capsule)\n{\n"
           "    void *p = PyCapsule_GetPointer(capsule, NULL);\n"
           "    PyObject *k = PyLong_FromVoidPtr(p);\n    Py_XDECREF(k);\n}\n"
           "static PyObject *f(PyObject *self, PyObject *o) { return PyCapsule_New(o, NULL, destroy); }\n"
           "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(src, "m.c")
    assert "PyObject *k = PyLong_FromVoidPtr(p);" in out
    assert "CystckLong_FromPointer" not in out
