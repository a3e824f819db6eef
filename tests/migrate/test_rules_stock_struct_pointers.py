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


TZ_MODULE = (
    "#include <Python.h>\n#include <datetime.h>\n"
    "typedef struct { PyObject_HEAD int offset; } Tz;\n"
    "static PyTypeObject Tz_Type = {PyVarObject_HEAD_INIT(NULL, 0) .tp_name = \"NAME.Tz\",\n"
    "    .tp_basicsize = sizeof(Tz), .tp_flags = Py_TPFLAGS_DEFAULT};\n"
    "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
    "    if (!PyDateTime_Check(o)) {\n        PyErr_SetString(PyExc_TypeError, \"a datetime\");\n"
    "        return NULL;\n    }\n"
    "    PyDateTime_DateTime *dt = (PyDateTime_DateTime *)o;\n"
    "    if (dt->hastzinfo && Py_TYPE(dt->tzinfo) == &Tz_Type)\n        return PyLong_FromLong(1);\n"
    "    return PyLong_FromLong(0);\n}\n"
    "static PyMethodDef methods[] = {{\"f\", (PyCFunction)f, METH_O, NULL}, {NULL}};\n"
    "static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, \"NAME\", NULL, -1, methods};\n"
    "PyMODINIT_FUNC PyInit_NAME(void)\n{\n    PyObject *m;\n    PyDateTime_IMPORT;\n"
    "    m = PyModule_Create(&mod);\n    if (m == NULL)\n        return NULL;\n"
    "    Tz_Type.tp_new = PyType_GenericNew;\n    Tz_Type.tp_base = PyDateTimeAPI->TZInfoType;\n"
    "    if (PyType_Ready(&Tz_Type) < 0)\n        return NULL;\n"
    "    Py_INCREF(&Tz_Type);\n    PyModule_AddObject(m, \"Tz\", (PyObject *)&Tz_Type);\n    return m;\n}\n")


def test_a_field_of_a_stock_struct_type_tested_behaves_as_stock(same_as_stock):
    """``Py_TYPE(dt->tzinfo) == &Tz_Type`` (udatetime 0.0.17's shape): the
    field gets a handle for the test (before, it was passed as one and the
    build failed); stock and translated answer the same, release and
    debug, for the extension's tzinfo, another and none."""
    name = "rt_stock_field_type_test"
    script = ("import datetime\nd = datetime.datetime\n"
              "print([m.f(d(2020, 1, 1, tzinfo=m.Tz())), m.f(d(2020, 1, 1, tzinfo=datetime.timezone.utc)),\n"
              "       m.f(d(2020, 1, 1)), outcome(m.f, 3)])\n")
    assert same_as_stock(name, TZ_MODULE.replace("NAME", name), script) == [1, 0, 0, ("TypeError", "a datetime")]
