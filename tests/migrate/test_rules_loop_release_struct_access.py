"""loop-release and a loop that reads or writes the instance's struct
through its handle (``VecObject_AsStruct(S, res)->data[i] = x``, what
``((VecObject *)res)->data[i] = x`` becomes): the rule took the typed
accessor for a call that may keep the handle, so such a loop kept every
item it read for the whole call and a constructor filling a native
array from a list of more than 2^20 items raised MemoryError where the
stock extension succeeds.  The accessor only reads the struct; a
``Py_CLEAR(res); goto done;`` on the way out of the loop does not stop
the release; and a loop whose only new handle is consumed in its
iteration (``PyList_SET_ITEM`` of a new float: the slot comes back at
once) gets no mark, which would only cost instructions.  Stock and
translated builds compared at a small handle limit, release and debug."""
from cystck.migrate import translate

SOURCE = r'''#include <Python.h>

typedef struct {
    PyObject_HEAD
    Py_ssize_t n;
    double *data;
} VecObject;

static void
Vec_dealloc(VecObject *self)
{
    PyMem_Free(self->data);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Vec_new(PyTypeObject *tp, PyObject *args, PyObject *kwds)
{
    PyObject *seq, *fast, *res;
    Py_ssize_t i, n;
    if (!PyArg_ParseTuple(args, "O", &seq))
        return NULL;
    fast = PySequence_Fast(seq, "a sequence of numbers is needed");
    if (fast == NULL)
        return NULL;
    n = PySequence_Fast_GET_SIZE(fast);
    res = tp->tp_alloc(tp, 0);
    if (res == NULL)
        goto done;
    ((VecObject *)res)->data = PyMem_Calloc(n ? n : 1, sizeof(double));
    ((VecObject *)res)->n = n;
    for (i = 0; i < n; i++) {
        double x = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
        if (x == -1.0 && PyErr_Occurred()) {
            Py_CLEAR(res);
            goto done;
        }
        ((VecObject *)res)->data[i] = x;
    }
done:
    Py_DECREF(fast);
    return res;
}

static PyObject *
Vec_tolist(VecObject *self, PyObject *unused)
{
    PyObject *list = PyList_New(self->n);
    Py_ssize_t i;
    if (list == NULL)
        return NULL;
    for (i = 0; i < self->n; i++) {
        PyObject *f = PyFloat_FromDouble(self->data[i]);
        if (f == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, f);
    }
    return list;
}

static PyMethodDef Vec_methods[] = {
    {"tolist", (PyCFunction)Vec_tolist, METH_NOARGS, NULL},
    {NULL}
};

static PyTypeObject VecType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Vec",
    .tp_basicsize = sizeof(VecObject),
    .tp_dealloc = (destructor)Vec_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Vec_methods,
    .tp_new = Vec_new,
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&VecType) < 0)
        return NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&VecType);
    if (PyModule_AddObject(m, "Vec", (PyObject *)&VecType) < 0) {
        Py_DECREF(&VecType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

SCRIPT = r'''
v = m.Vec([float(i) for i in range(500)])
print(repr((len(v.tolist()), v.tolist()[499], outcome(m.Vec, [1, "x"]), outcome(m.Vec, 5))))
'''


def test_a_loop_writing_the_struct_through_a_handle_releases_per_iteration(stock_and_translated, run_script):
    stock, ported = stock_and_translated("loopstruct", SOURCE.replace("NAME", "loopstruct"))
    want = run_script(SCRIPT, stock)
    assert want[:2] == (500, 499.0)
    for debug in (False, True):
        assert run_script(SCRIPT, ported, debug=debug, env={"CYSTCK_HANDLE_LIMIT": "64"}) == want


def test_a_loop_whose_new_handle_is_consumed_gets_no_mark():
    out = translate.translate_source(SOURCE.replace("NAME", "loopstruct"), "loopstruct.c")
    new = out[out.index("Vec_new("):out.index("Vec_tolist(")]
    tolist = out[out.index("Vec_tolist("):out.index("CYSTCK_DEF_METH")]
    assert "Cystck_ReleaseSince" in new
    assert "Cystck_Mark" not in tolist
