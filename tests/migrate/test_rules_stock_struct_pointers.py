"""A handle cast to a pointer to a stock object struct with no Cystck
counterpart (to read the object's fields, ``PyDateTime_DateTime *dt =
(PyDateTime_DateTime *)o;``) is kept stock through the escape hatch, and a
field read through it compared with a handle compares the object the
handle lends.  Before, the cast of a handle did not compile."""
from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

TABLE = "static PyMethodDef m[] = {{\"f\", (PyCFunction)f, METH_O, NULL}, {NULL}};\n"


def test_a_stock_struct_pointer_is_lent_and_its_field_compared_as_a_pointer():
    src = ("#include <Python.h>\n#include <datetime.h>\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    PyDateTime_DateTime *dt = (PyDateTime_DateTime *)o;\n"
           "    if (!dt->hastzinfo || dt->tzinfo != (PyObject *)self)\n        return NULL;\n"
           "    return PyLong_FromLong(dt->hastzinfo);\n}\n" + TABLE)
    out = translate.translate_source(src, "m.c")
    assert f"PyDateTime_DateTime *dt = {MARK} (PyDateTime_DateTime *)Cystck_AsPyObject(S, o);" in out
    assert "if (!dt->hastzinfo || dt->tzinfo != Cystck_AsPyObject(S, self))" in out


def test_casts_to_handle_structs_are_left_to_the_casts_rule():
    """A tuple's struct is a handle type: the cast means nothing for a
    handle (the casts rule), nothing is lent."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    PyTupleObject *t = (PyTupleObject *)o;\n"
           "    return PyLong_FromSsize_t(PyTuple_GET_SIZE(t));\n}\n" + TABLE)
    out = translate.translate_source(src, "m.c")
    assert "Cystck_AsPyObject" not in out


def test_a_field_compared_with_something_not_a_handle_stays():
    src = ("#include <Python.h>\n#include <datetime.h>\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    PyDateTime_DateTime *dt = (PyDateTime_DateTime *)o;\n"
           "    PyObject *utc = PyDateTime_TimeZone_UTC;\n"
           "    return PyBool_FromLong(dt->hastzinfo == 1);\n}\n" + TABLE)
    out = translate.translate_source(src, "m.c")
    assert "dt->hastzinfo == 1" in out
