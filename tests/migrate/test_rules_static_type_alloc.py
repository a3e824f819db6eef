"""A static type's own allocation slot called on it, ``FooType.tp_alloc(
&FooType, 0)``, allocates through the runtime as ``type->tp_alloc(type,
0)`` does (object-new); before, the store-less slot read of what became a
``Cystck_Ref`` did not compile."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\ntypedef struct { PyObject_HEAD int n; } Box;\n"
       "static PyTypeObject BoxType = {PyVarObject_HEAD_INIT(NULL, 0) \"m.Box\", sizeof(Box), 0};\n"
       "static PyTypeObject OtherType = {PyVarObject_HEAD_INIT(NULL, 0) \"m.Other\", sizeof(Box), 0};\n"
       "static PyObject *make(PyObject *self, PyObject *unused)\n{\n"
       "    Box *b = (Box *)BoxType.tp_alloc(%s, 0);\n    if (b) b->n = 1;\n    return (PyObject *)b;\n}\n"
       "static PyMethodDef m[] = {{\"make\", make, METH_NOARGS, NULL}, {NULL}};\n")


def test_a_static_types_own_alloc_slot_is_the_runtimes():
    out = translate.translate_source(SRC % "&BoxType", "m.c")
    assert "Cystck_Object b = Cystck_NewZeroed(S, Cystck_deref(S, BoxType), NULL);" in out


def test_another_types_slot_called_on_a_type_stays():
    """BoxType's allocator called for OtherType is no allocation of
    BoxType's instances: left alone (--check names it)."""
    out = translate.translate_source(SRC % "&OtherType", "m.c")
    assert "BoxType.tp_alloc(" in out
