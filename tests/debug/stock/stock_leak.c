/* Stock C API: a reference never released.
 * Cystck counterpart: corpus/dbg_leaked_ref.c. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define HISTORY 4

static PyObject *history[HISTORY];
static int next_slot;

static PyObject *remember(PyObject *self, PyObject *x)
{
    (void)self;
    Py_INCREF(x);
    history[next_slot] = x;   /* overwrites an old value without Py_DECREF */
    next_slot = (next_slot + 1) % HISTORY;
    Py_RETURN_NONE;
}

static PyObject *forget(PyObject *self, PyObject *unused)
{
    int i;
    (void)self; (void)unused;
    for (i = 0; i < HISTORY; i++)
        Py_CLEAR(history[i]);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"remember", remember, METH_O, "remember(x): keep the last few values (buggy)"},
    {"forget", forget, METH_NOARGS, "release what remember kept"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "stock_leak", NULL, 0, methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit_stock_leak(void)
{
    return PyModule_Create(&module_def);
}
