/* A module state holding an object that a call stores the first time,
 * released by the state's m_clear/m_free (tests/runtime/test_state_refs.py
 * translates it). */
#include <Python.h>

typedef struct {
    PyObject *remembered;
    long calls;
} state_t;

#define get_state(m) ((state_t *)PyModule_GetState(m))

static PyObject *
remember(PyObject *module, PyObject *obj)
{
    state_t *st = get_state(module);
    st->calls++;
    if (st->remembered == NULL) {
        Py_INCREF(obj);
        st->remembered = obj;
    }
    Py_RETURN_NONE;
}

static PyObject *
recall(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    state_t *st = get_state(module);
    if (st->remembered == NULL)
        Py_RETURN_NONE;
    Py_INCREF(st->remembered);
    return st->remembered;
}

static int
state_traverse(PyObject *module, visitproc visit, void *arg)
{
    Py_VISIT(get_state(module)->remembered);
    return 0;
}

static int
state_clear(PyObject *module)
{
    Py_CLEAR(get_state(module)->remembered);
    return 0;
}

static void
state_free(void *module)
{
    state_clear((PyObject *)module);
}

static PyMethodDef methods[] = {
    {"remember", remember, METH_O, NULL},
    {"recall", recall, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyModuleDef_Slot slots[] = {
    {0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "NAME", NULL, sizeof(state_t), methods, slots,
    state_traverse, state_clear, state_free
};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModuleDef_Init(&moduledef);
}
