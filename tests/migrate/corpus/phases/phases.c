/* Multi-phase module initialization (PEP 489): a create slot that makes
 * the module object, two exec slots that run on it in order, and value
 * slots declared for the Pythons that know them. */
#include <Python.h>

static PyObject *phases_create(PyObject *spec, PyModuleDef *def)
{
    PyObject *name, *m;
    name = PyObject_GetAttrString(spec, "name");
    if (name == NULL)
        return NULL;
    m = PyModule_NewObject(name);
    Py_DECREF(name);
    if (m == NULL)
        return NULL;
    if (PyObject_SetAttrString(m, "order", Py_None) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

static int add_step(PyObject *m, const char *step)
{
    PyObject *order = PyObject_GetAttrString(m, "order");
    PyObject *s;
    int r;
    if (order == NULL)
        return -1;
    if (order == Py_None) {
        Py_DECREF(order);
        order = PyList_New(0);
        if (order == NULL || PyObject_SetAttrString(m, "order", order) < 0) {
            Py_XDECREF(order);
            return -1;
        }
    }
    s = PyUnicode_FromString(step);
    if (s == NULL) {
        Py_DECREF(order);
        return -1;
    }
    r = PyList_Append(order, s);
    Py_DECREF(s);
    Py_DECREF(order);
    return r;
}

static int phases_exec_constants(PyObject *m)
{
    if (PyModule_AddIntConstant(m, "answer", 42) < 0)
        return -1;
    return add_step(m, "constants");
}

static int phases_exec_check(PyObject *m)
{
    return add_step(m, "check");
}

static PyObject *twice(PyObject *self, PyObject *arg)
{
    return PyNumber_Add(arg, arg);
}

static PyObject *module_name(PyObject *self, PyObject *unused)
{
    return PyModule_GetNameObject(self);
}

static PyMethodDef phases_methods[] = {
    {"twice", (PyCFunction)twice, METH_O, "arg + arg"},
    {"module_name", (PyCFunction)module_name, METH_NOARGS, "the name of the module called"},
    {NULL, NULL, 0, NULL}
};

static PyModuleDef_Slot phases_slots[] = {
    {Py_mod_create, (void *)phases_create},
    {Py_mod_exec, (void *)phases_exec_constants},
    {Py_mod_exec, (void *)phases_exec_check},
#if PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_SUPPORTED},
#endif
#ifdef Py_GIL_DISABLED
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL}
};

static struct PyModuleDef phases_def = {
    PyModuleDef_HEAD_INIT,
    "phases",
    "multi-phase initialization",
    0,
    phases_methods,
    phases_slots,
    NULL,
    NULL,
    NULL
};

PyMODINIT_FUNC PyInit_phases(void)
{
    return PyModuleDef_Init(&phases_def);
}
