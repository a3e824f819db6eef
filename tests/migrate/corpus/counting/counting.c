/* Module state and iteration with the stock C API: a per-module call
 * counter, an iterator type (tp_iter/tp_iternext) and a function that
 * consumes any Python iterable with PyObject_GetIter/PyIter_Next. */
#include <Python.h>

typedef struct {
    long calls;
} counting_state;

static counting_state *
get_state(PyObject *module)
{
    return (counting_state *)PyModule_GetState(module);
}

static PyObject *
bump(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    counting_state *st = get_state(module);
    st->calls += 1;
    return PyLong_FromLong(st->calls);
}

static PyObject *
total(PyObject *module, PyObject *iterable)
{
    PyObject *it = PyObject_GetIter(iterable);
    if (it == NULL)
        return NULL;
    long sum = 0;
    PyObject *item;
    while ((item = PyIter_Next(it)) != NULL) {
        long v = PyLong_AsLong(item);
        Py_DECREF(item);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(it);
            return NULL;
        }
        sum += v;
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return NULL;
    get_state(module)->calls += 1;
    return PyLong_FromLong(sum);
}

typedef struct {
    PyObject_HEAD
    long next;
    long stop;
} CountdownObject;

static PyObject *
Countdown_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    long start;
    if (!PyArg_ParseTuple(args, "l", &start))
        return NULL;
    CountdownObject *self = (CountdownObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->next = start;
    self->stop = 0;
    return (PyObject *)self;
}

static PyObject *
Countdown_iter(PyObject *self)
{
    Py_INCREF(self);
    return self;
}

static PyObject *
Countdown_iternext(PyObject *self)
{
    CountdownObject *c = (CountdownObject *)self;
    if (c->next <= c->stop)
        return NULL;        /* exhausted: StopIteration without an exception set */
    return PyLong_FromLong(c->next--);
}

static PyType_Slot Countdown_slots[] = {
    {Py_tp_new, Countdown_new},
    {Py_tp_iter, Countdown_iter},
    {Py_tp_iternext, Countdown_iternext},
    {Py_tp_doc, "Countdown(n): n, n-1, ..., 1"},
    {0, NULL}
};

static PyType_Spec Countdown_spec = {
    "counting.Countdown", sizeof(CountdownObject), 0, Py_TPFLAGS_DEFAULT, Countdown_slots
};

static PyMethodDef counting_methods[] = {
    {"bump", (PyCFunction)bump, METH_NOARGS, "count one more call; the count"},
    {"total", (PyCFunction)total, METH_O, "sum of the ints an iterable yields"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef counting_module = {
    PyModuleDef_HEAD_INIT, "counting", "module state and iteration",
    sizeof(counting_state), counting_methods
};

PyMODINIT_FUNC
PyInit_counting(void)
{
    PyObject *m = PyModule_Create(&counting_module);
    if (m == NULL)
        return NULL;
    get_state(m)->calls = 0;
    PyObject *type = PyType_FromSpec(&Countdown_spec);
    if (type == NULL || PyModule_AddObject(m, "Countdown", type) < 0) {
        Py_XDECREF(type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
