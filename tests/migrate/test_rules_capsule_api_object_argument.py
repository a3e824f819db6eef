"""An object member of a C API exported in a capsule passed as an
argument, ``PyObject_CallMethodObjArgs(PyDateTimeAPI->DateType, name,
ordinal, NULL)`` (cbor2: a date from its ordinal), stayed the stock
``PyTypeObject *`` where the Cystck call wants a handle ("incompatible
type for argument 2", cbor2's last build error).  It is given a handle
now, ``Cystck_FromPyObject(S, (PyObject *)PyDateTimeAPI->DateType)``
(the capsule owns the type: a borrowed reference), marked and reported.
Stock and translated builds answer alike, release and debug."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>
#include <datetime.h>

static PyObject *
date_from_ordinal(PyObject *self, PyObject *ordinal)
{
    PyObject *name = PyUnicode_FromString("fromordinal");
    PyObject *ret;
    if (name == NULL)
        return NULL;
    ret = PyObject_CallMethodObjArgs((PyObject *)PyDateTimeAPI->DateType, name, ordinal, NULL);
    Py_DECREF(name);
    return ret;
}

static PyObject *
date_type(PyObject *self, PyObject *unused)
{
    return Py_NewRef(PyDateTimeAPI->DateType);
}

static PyMethodDef methods[] = {
    {"date_from_ordinal", date_from_ordinal, METH_O, NULL},
    {"date_type", date_type, METH_NOARGS, NULL},
    {NULL}
};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "capsobj", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_capsobj(void)
{
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return NULL;
    return PyModule_Create(&moddef);
}
'''


def test_a_capsule_api_object_passed_as_an_argument_gets_a_handle():
    out = translate.translate_source(SRC, "capsobj.c")
    assert "Cystck_FromPyObject(S, /* cystck-migrate: escape hatch */ (PyObject *)PyDateTimeAPI->DateType)" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("capsobj", SRC, "import datetime\n"
                                         "print(repr([str(m.date_from_ordinal(738000)), m.date_type() is datetime.date, "
                                         "outcome(m.date_from_ordinal, 0)]))\n")
    assert want[:2] == ["2021-07-29", True]
