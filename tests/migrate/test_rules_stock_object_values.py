"""An object a stock macro reads from a C API exported in a capsule
(datetime.h's PyDateTime_TimeZone_UTC) gets a handle through the escape
hatch where a function with the state uses it; in the arguments of a call
kept stock it stays the stock pointer."""
from cystck.migrate import api, translate
from cystck.migrate.rules.escape import MARK

TABLE = "static PyMethodDef m[] = {{\"f\", f, METH_NOARGS, NULL}, {NULL}};\n"


def test_the_headers_name_the_capsule_objects():
    assert "PyDateTime_TimeZone_UTC" in api.stock_object_values()
    # a macro calling through the capsule is a function, not an object
    assert "PyDate_FromDate" not in api.stock_object_values()


def test_a_capsule_object_stored_in_a_global_gets_a_handle():
    src = ("#include <Python.h>\n#include <datetime.h>\nstatic PyObject *utc;\n"
           "static PyObject *f(PyObject *self, PyObject *unused)\n{\n"
           "    PyDateTime_IMPORT;\n    utc = PyDateTime_TimeZone_UTC;\n    Py_RETURN_NONE;\n}\n" + TABLE)
    out = translate.translate_source(src, "m.c")
    assert f"utc = Cystck_ref(S, Cystck_FromPyObject(S, {MARK} PyDateTime_TimeZone_UTC));" in out


def test_a_capsule_object_lent_to_a_stock_call_stays_a_pointer():
    src = ("#include <Python.h>\n#include <datetime.h>\n"
           "static PyObject *f(PyObject *self, PyObject *unused)\n{\n"
           "    return PyDateTimeAPI->DateTime_FromDateAndTime(2014, 1, 9, 21, 48, 0, 0,\n"
           "        PyDateTime_TimeZone_UTC, PyDateTimeAPI->DateTimeType);\n}\n" + TABLE)
    out = translate.translate_source(src, "m.c")
    assert "0, 0,\n        PyDateTime_TimeZone_UTC, PyDateTimeAPI->DateTimeType)" in out
    assert "Cystck_FromPyObject(S, " + MARK + " PyDateTime_TimeZone_UTC" not in out
