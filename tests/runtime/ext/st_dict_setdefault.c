/* The stock counterpart of rt_dict_setdefault.c. */
#include <Python.h>

static PyObject *setdefault(PyObject *self, PyObject *args)
{
    PyObject *d, *key, *dflt, *r;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO", &d, &key, &dflt))
        return NULL;
    r = PyDict_SetDefault(d, key, dflt);
    Py_XINCREF(r);
    return r;
}

static PyMethodDef methods[] = {{"setdefault", setdefault, METH_VARARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "st_dict_setdefault", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_st_dict_setdefault(void)
{
    return PyModule_Create(&module);
}
