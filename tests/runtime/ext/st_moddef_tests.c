/* Which types and modules are the extension's own, asked as stock code
 * asks (wrapt's proxy check): PyType_HasFeature(t, Py_TPFLAGS_HEAPTYPE)
 * over a type's MRO and PyModule_GetDef(m) compared with the module's
 * definition.  Built as it is and as cystck-migrate translates it
 * (tests/runtime/test_moddef_tests.py); the module name is spelled NAME. */
#include <Python.h>

static struct PyModuleDef moduledef;

/* Is a heap type in type(o)'s MRO one this module made? */
static PyObject *made_here(PyObject *self, PyObject *o)
{
    PyTypeObject *type = Py_TYPE(o);
    PyObject *mro = type->tp_mro;
    Py_ssize_t i, n = PyTuple_GET_SIZE(mro);
    (void)self;
    for (i = 0; i < n; i++) {
        PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        PyObject *m;
        if (!PyType_HasFeature(t, Py_TPFLAGS_HEAPTYPE))
            continue;
        m = PyType_GetModule(t);
        if (m == NULL) {
            PyErr_Clear();      /* a heap type made by no module */
            continue;
        }
        if (PyModule_GetDef(m) == &moduledef)
            Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}

static PyObject *is_heap_type(PyObject *self, PyObject *t)
{
    (void)self;
    if (!PyType_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "a type is required");
        return NULL;
    }
    return PyBool_FromLong(PyType_HasFeature((PyTypeObject *)t, Py_TPFLAGS_HEAPTYPE));
}

/* Made from another definition (or none): the test the other way round. */
static PyObject *foreign(PyObject *self, PyObject *m)
{
    (void)self;
    if (!PyModule_Check(m)) {
        PyErr_SetString(PyExc_TypeError, "a module is required");
        return NULL;
    }
    return PyBool_FromLong(&moduledef != PyModule_GetDef(m));
}

static PyType_Slot Thing_slots[] = {
    {0, NULL},
};

static PyType_Spec Thing_spec = {"NAME.Thing", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, Thing_slots};

static PyMethodDef methods[] = {
    {"made_here", made_here, METH_O, NULL},
    {"is_heap_type", is_heap_type, METH_O, NULL},
    {"foreign", foreign, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods,
};

PyMODINIT_FUNC PyInit_NAME(void)
{
    PyObject *m = PyModule_Create(&moduledef), *thing;
    if (m == NULL)
        return NULL;
    thing = PyType_FromModuleAndSpec(m, &Thing_spec, NULL);
    if (thing == NULL || PyModule_AddObject(m, "Thing", thing) < 0) {
        Py_XDECREF(thing);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
