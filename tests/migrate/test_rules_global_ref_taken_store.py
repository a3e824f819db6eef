"""A local that takes a reference's object before the reference is
stored into, ``PyObject *old = g; g = v; Py_INCREF(g); Py_XDECREF(old);``
with ``g`` an object global or a module state's member (a ``Cystck_Ref``
once translated): the local gets a handle of its own, so the store
releases what the reference held (global-refs).  Before, the store
overwrote the reference without releasing it: one reference leaked per
call (docs/gaps.md T41).  The same shapes through ``Py_XSETREF``,
``Py_SETREF``, ``Py_CLEAR`` and a release before the store are compared
too."""
from cystck.migrate import translate

SETTERS = r'''#include <Python.h>

typedef struct {
    PyObject *hook;
} modstate;

static PyObject *callback = NULL;

static PyObject *set_callback(PyObject *self, PyObject *value)
{
    PyObject *old = callback;
    callback = value;
    Py_INCREF(callback);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyObject *set_hook(PyObject *self, PyObject *value)
{
    modstate *st = (modstate *)PyModule_GetState(self);
    PyObject *old = st->hook;
    st->hook = value;
    Py_INCREF(value);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyObject *set2(PyObject *self, PyObject *value)
{
    Py_INCREF(value);
    Py_XSETREF(callback, value);
    Py_RETURN_NONE;
}

static PyObject *set3(PyObject *self, PyObject *value)
{
    modstate *st = (modstate *)PyModule_GetState(self);
    Py_INCREF(value);
    Py_XSETREF(st->hook, value);
    Py_RETURN_NONE;
}

static PyObject *clear(PyObject *self, PyObject *unused)
{
    modstate *st = (modstate *)PyModule_GetState(self);
    Py_CLEAR(callback);
    Py_CLEAR(st->hook);
    Py_RETURN_NONE;
}

static PyObject *set4(PyObject *self, PyObject *value)
{
    Py_XDECREF(callback);
    callback = value;
    Py_INCREF(callback);
    Py_RETURN_NONE;
}

static PyObject *set5(PyObject *self, PyObject *value)
{
    Py_INCREF(value);
    Py_SETREF(callback, value);
    Py_RETURN_NONE;
}

static PyObject *set_none(PyObject *self, PyObject *unused)
{
    modstate *st = (modstate *)PyModule_GetState(self);
    PyObject *old = callback, *old2 = st->hook;
    callback = NULL;
    st->hook = NULL;
    Py_XDECREF(old);
    Py_XDECREF(old2);
    Py_RETURN_NONE;
}

static PyObject *swap(PyObject *self, PyObject *value)
{
    PyObject *old = callback;
    callback = value;
    Py_INCREF(value);
    if (old == NULL)
        Py_RETURN_NONE;
    return old;
}

static PyObject *get(PyObject *self, PyObject *unused)
{
    modstate *st = (modstate *)PyModule_GetState(self);
    return PyTuple_Pack(2, callback ? callback : Py_None, st->hook ? st->hook : Py_None);
}

static PyMethodDef methods[] = {
    {"set_callback", set_callback, METH_O, NULL},
    {"set_hook", set_hook, METH_O, NULL},
    {"set2", set2, METH_O, NULL},
    {"set3", set3, METH_O, NULL},
    {"set4", set4, METH_O, NULL},
    {"set5", set5, METH_O, NULL},
    {"set_none", set_none, METH_NOARGS, NULL},
    {"swap", swap, METH_O, NULL},
    {"clear", clear, METH_NOARGS, NULL},
    {"get", get, METH_NOARGS, NULL},
    {NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "plainset", NULL, sizeof(modstate), methods};

PyMODINIT_FUNC
PyInit_plainset(void)
{
    return PyModule_Create(&moddef);
}
'''

NAMES = ("set_callback", "set_hook", "set2", "set3", "set4", "set5", "swap")


def test_the_store_after_a_taken_local_releases_the_reference():
    out = translate.translate_source(SETTERS, "plainset.c")
    assert "{ Cystck_Ref old_ = callback; callback = Cystck_ref(S, Cystck_Dup(S, value)); " \
        "Cystck_unref(S, old_); }" in out
    assert "{ Cystck_Ref old_ = st->hook; st->hook = Cystck_ref(S, value); Cystck_unref(S, old_); }" in out
    assert "{ Cystck_unref(S, callback); callback = NULL; }" in out        # old = g, old2 = ...; g = NULL;
    assert "{ Cystck_unref(S, st->hook); st->hook = NULL; }" in out


def test_a_store_without_a_taken_local_is_left_alone():
    """Negative: a local that reads the reference and is not released (a
    borrowed handle), or no local at all, leaves the store as it was."""
    text = SETTERS.replace("Py_XDECREF(old);\n    Py_RETURN_NONE;", "Py_RETURN_NONE;")
    text = text.replace("    if (old == NULL)\n        Py_RETURN_NONE;\n    return old;", "    Py_RETURN_NONE;")
    out = translate.translate_source(text, "plainset.c")
    assert "Cystck_Ref old_ = callback; callback = Cystck_ref(" not in out
    assert "Cystck_Ref old_ = st->hook; st->hook = Cystck_ref(" not in out
    assert "callback = Cystck_ref(S, Cystck_Dup(S, value));" in out


def test_setters_release_the_old_value_as_stock_does(same_as_stock):
    """The old value's reference count after 100 stores matches stock's
    (release and debug), for each setter shape."""
    script = ("import gc\nr = []\n"
              f"for name in {NAMES!r}:\n"
              "    f = getattr(m, name)\n    m.set2(0)\n"   # Py_SETREF's reference is not empty
              "    h = object()\n    base = sys.getrefcount(h)\n"
              "    for i in range(100):\n        f(h)\n"
              "    f(1)\n    r.append((name, sys.getrefcount(h) - base))\n"
              "    m.clear()\n"
              "h = object()\nbase = sys.getrefcount(h)\n"
              "for i in range(100):\n    m.set_callback(h)\n    m.set_hook(h)\n    m.set_none()\n"
              "r.append(('set_none', sys.getrefcount(h) - base))\n"
              "m.set_callback(h)\nm.set_hook(h)\nm.clear()\n"
              "r.append(('clear', sys.getrefcount(h) - base, m.get()))\n"
              "r.append(m.swap(h) is None and m.swap(2) is h and m.swap(3))\n"
              "print(repr(r))\n")
    want = same_as_stock("plainset", SETTERS, script)
    assert want[:-1] == [(n, 0) for n in NAMES] + [("set_none", 0), ("clear", 0, (None, None))]
    assert want[-1] == 2
