"""A callback that a C library runs on a thread of its own (posix_ipc's
``mq_notify`` with ``SIGEV_THREAD``, docs/gaps.md T31), given the object in
a C ``void *`` slot (``union sigval``'s ``sival_ptr``):

* the object stored in the slot, ``j.value.sival_ptr = self;``, and read
  back, ``Box *self = data.sival_ptr;``, are its ``PyObject *``, through
  the escape hatch (rule handle-in-c-pointer; a handle assigned to a
  ``void *`` did not build);
* the callback, which takes the GIL with ``PyGILState_Ensure`` and has no
  caller to pass it a state (it was given an ``S`` parameter: a function
  pointer of another type, a build error), declares its own and opens a
  frame after taking the GIL, closes it before giving it back (rule
  thread-callback-frames).

Built stock and translated, compared in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>
#include <pthread.h>
#include <signal.h>

typedef struct {
    PyObject_HEAD
    PyObject *callback;
    long calls;
} Box;

typedef void (*notify_fn)(union sigval);
struct job { notify_fn fn; union sigval value; };

static void *
runner(void *arg)
{
    struct job *j = (struct job *)arg;
    j->fn(j->value);
    return NULL;
}

static void
on_done(union sigval data)
{
    PyObject *result;
    Box *self = data.sival_ptr;
    PyObject *cb = NULL;
    PyGILState_STATE g;

    g = PyGILState_Ensure();
    cb = self->callback;
    self->callback = NULL;
    result = PyObject_CallFunction(cb, "l", self->calls);
    Py_XDECREF(cb);
    if (!result)
        PyErr_Clear();
    Py_XDECREF(result);
    self->calls++;
    PyGILState_Release(g);
}

static PyObject *
Box_notify(Box *self, PyObject *cb)
{
    struct job j;
    pthread_t t;
    int err;
    Py_INCREF(cb);
    Py_XDECREF(self->callback);
    self->callback = cb;
    j.fn = on_done;
    j.value.sival_ptr = self;
    Py_BEGIN_ALLOW_THREADS
    err = pthread_create(&t, NULL, runner, &j);
    if (err == 0)
        pthread_join(t, NULL);
    Py_END_ALLOW_THREADS
    if (err != 0)
        return PyErr_Format(PyExc_OSError, "pthread_create: %d", err);
    return PyLong_FromLong(self->calls);
}

static PyObject *
Box_pending(Box *self, PyObject *unused)
{
    return PyBool_FromLong(self->callback != NULL);
}

static void
Box_dealloc(Box *self)
{
    Py_XDECREF(self->callback);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Box_methods[] = {
    {"notify", (PyCFunction)Box_notify, METH_O, NULL},
    {"pending", (PyCFunction)Box_pending, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_methods = Box_methods,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0)
        return NULL;
    return m;
}
'''

SCRIPT = r"""
import threading
got = []
main = threading.get_ident()
def cb(n):
    got.append((n, threading.get_ident() != main))
    return [n] * 3
def bad(n):
    raise ValueError(n)
b = m.Box()
out = [b.notify(cb), b.pending(), b.notify(cb), b.notify(bad), b.pending(), got]
print(out)
"""


def test_translation():
    out = translate.translate_source(SRC.replace("NAME", "cbthread"), "cbthread.c")
    assert "on_done(union sigval data)" in out
    assert "Cystck_State S_thread_, *S = &S_thread_;" in out
    assert "g = PyGILState_Ensure();\n    Cystck_OpenFrame(S);\n" in out
    assert "self = /* cystck-migrate: escape hatch */ Cystck_FromPyObject(S, (PyObject *)data.sival_ptr);" in out
    assert "if (Cystck_CloseFrame(S) < 0)" in out
    assert "j.value.sival_ptr = /* cystck-migrate: escape hatch */ Cystck_AsPyObject(S, self);" in out


def test_not_a_callback_when_called_directly():
    """Negative: a function the extension calls itself gets S from its caller."""
    src = SRC.replace("NAME", "cbthread").replace("    j.fn = on_done;\n", "    j.fn = on_done;\n    on_done(j.value);\n")
    out = translate.translate_source(src, "cbthread.c")
    assert "on_done(Cystck_State *S, union sigval data)" in out
    assert "S_thread_" not in out


def test_same_as_stock(same_as_stock):
    want = same_as_stock("cbthread", SRC.replace("NAME", "cbthread"), SCRIPT)
    assert want[:3] == [1, False, 2]
    assert want[-1] == [(0, True), (1, True)]
