"""Idioms of an extension over a POSIX API (posix_ipc 1.3.2's, docs/gaps.md
T31), each of which broke the build of the untouched translation:

* a handle alone in parentheses, tested: ``if ((a) && !(b))`` (rule
  null-handles; it rewrote ``(!a)`` but left ``(a)``, a struct, beside
  ``&&``);
* ``PyUnicode_FSConverter(o, &bytes)`` called directly: its handle
  arguments reached the stock function (now ``CystckUnicode_FSConverter``,
  a runtime function);
* the bytes then given to a helper kept stock (it reads object internals)
  that releases its parameter, ``Py_DECREF(o)``: it steals it, and is lent
  a new reference (rule escape-hatch; before, the handle's reference was
  released twice);
* ``PyUnicode_FSConverter`` given to ``PyArg_ParseTuple`` after ``O&``:
  the Cystck parser calls its converter with the state and a handle, so
  it is the counterpart (rule api-calls; before, the stock function got
  them: no build error, a crash);
* ``Py_SET_SIZE`` defined by the extension only under ``#if PY_VERSION_HEX
  < 0x030900A4 && !defined(Py_SET_SIZE)``: CPython's macro is the one
  compiled, kept through the escape hatch (the guard with ``&&`` was not
  seen as a fallback's);
* a getter called directly with its object only, ``return
  Box_get_n(self);`` (the Cystck getter takes the closure too: NULL);
* ``self->v = NULL;`` after ``Py_XDECREF(self->v);`` in a deallocator: it
  goes with the release (rule destroy-traverse; a NULL is no
  ``Cystck_Field``).

Built stock and translated, compared in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#if PY_VERSION_HEX < 0x030900A4 && !defined(Py_SET_SIZE)
static inline void _Py_SET_SIZE(PyVarObject *ob, Py_ssize_t size) { ob->ob_size = size; }
#define Py_SET_SIZE(ob, size) _Py_SET_SIZE((PyVarObject *)(ob), size)
#endif

static void
release(PyObject *o)
{
    if (PyByteArray_Check(o))
        o->ob_type->tp_as_buffer->bf_releasebuffer(o, NULL);
    Py_DECREF(o);
}

static PyObject *
which(PyObject *self, PyObject *args)
{
    PyObject *a = NULL, *b = NULL;
    if (!PyArg_ParseTuple(args, "|OO", &a, &b))
        return NULL;
    if (a == Py_None)
        a = NULL;
    if (b == Py_None)
        b = NULL;
    if ((a) && (b))
        return PyLong_FromLong(3);
    if ((a) && !(b))
        return PyLong_FromLong(1);
    if (!(a) && (b))
        return PyLong_FromLong(2);
    return PyLong_FromLong(0);
}

static PyObject *
fslen(PyObject *self, PyObject *arg)
{
    PyObject *bytes = NULL;
    Py_ssize_t n;
    if (PyUnicode_Check(arg)) {
        if (!PyUnicode_FSConverter(arg, &bytes))
            return NULL;
    }
    else
        bytes = PyBytes_FromObject(arg);
    if (bytes == NULL)
        return NULL;
    n = PyBytes_GET_SIZE(bytes);
    release(bytes);
    return PyLong_FromSsize_t(n);
}

static PyObject *
fsname(PyObject *self, PyObject *args)
{
    PyObject *b = NULL;
    if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &b))
        return NULL;
    return b;
}

static PyObject *
head(PyObject *self, PyObject *args)
{
    const char *s;
    Py_ssize_t len, n;
    PyObject *r;
    if (!PyArg_ParseTuple(args, "s#n", &s, &len, &n))
        return NULL;
    r = PyBytes_FromStringAndSize(NULL, len);
    if (!r)
        return NULL;
    memcpy(PyBytes_AS_STRING(r), s, len);
    if (n >= 0 && n < len) {
        Py_SET_SIZE(r, n);
        PyBytes_AS_STRING(r)[n] = '\0';
    }
    return r;
}

typedef struct {
    PyObject_HEAD
    PyObject *v;
    long n;
} Box;

static PyObject *
Box_get_n(Box *self)
{
    return PyLong_FromLong(self->n);
}

static PyObject *
Box_count(Box *self)
{
    self->n++;
    return Box_get_n(self);
}

static PyObject *
Box_keep(Box *self, PyObject *v)
{
    Py_INCREF(v);
    Py_XDECREF(self->v);
    self->v = v;
    Py_RETURN_NONE;
}

static void
Box_dealloc(Box *self)
{
    Py_XDECREF(self->v);
    self->v = NULL;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Box_methods[] = {
    {"count", (PyCFunction)Box_count, METH_NOARGS, NULL},
    {"keep", (PyCFunction)Box_keep, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef Box_getset[] = {
    {"n", (getter)Box_get_n, (setter)NULL, "n", NULL},
    {NULL}
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Box_dealloc,
    .tp_methods = Box_methods,
    .tp_getset = Box_getset,
};

static PyMethodDef methods[] = {
    {"which", which, METH_VARARGS, NULL},
    {"fslen", fslen, METH_O, NULL},
    {"head", head, METH_VARARGS, NULL},
    {"fsname", fsname, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

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
out = [m.which(1, 2), m.which(1), m.which(None, 2), m.which()]
name = b"/queue" + bytes([0x41]) * 3
before = sys.getrefcount(name)
out.append([m.fslen("/q\u00e9"), m.fslen(name), outcome(m.fslen, "a\0b"), outcome(m.fslen, 3)])
out.append(sys.getrefcount(name) - before)
out.append([m.head("abcdef", 2), m.head("abc", 9), len(m.head("xyz", 0))])
out.append([m.fsname("/q\u00e9"), m.fsname(b"/b"), outcome(m.fsname, "a\0b"), outcome(m.fsname, 3)])
gone = []
class Tell:
    def __del__(self):
        gone.append(1)
b = m.Box()
b.keep(Tell())
out.append([b.count(), b.count(), b.n, outcome(setattr, b, "n", 5)[0]])
del b
out.append(gone)
print(out)
"""


def test_translation_of_each_idiom():
    out = translate.translate_source(SRC.replace("NAME", "posixish"), "posixish.c")
    assert "if ((!Cystck_IsNull(a)) && (!Cystck_IsNull(b)))" in out
    assert "if ((!Cystck_IsNull(a)) && Cystck_IsNull(b))" in out
    assert "CystckUnicode_FSConverter(S, arg, &bytes)" in out
    assert '"O&", CystckUnicode_FSConverter, &b)' in out
    assert "release(Py_XNewRef(Cystck_AsPyObject(S, bytes)));" in out
    assert "Py_SET_SIZE(Cystck_AsPyObject(S, r), n);" in out
    assert "return Box_get_n(S, self, NULL);" in out
    assert "self->v = NULL" not in out


def test_same_as_stock(same_as_stock):
    want = same_as_stock("posixish", SRC.replace("NAME", "posixish"), SCRIPT)
    assert want[:4] == [3, 1, 2, 0]
    assert want[5] == 0                 # the caller's bytes keep their reference
    assert want[-1] == [1]
