"""A type's buffer procedures in a ``PyBufferProcs`` table,
``.tp_as_buffer = &Foo_as_buffer`` (bitarray 3.12.3's positional
``{(getbufferproc) f, (releasebufferproc) g}``), were dropped with the
table ("table not found"): the translation built, and exported no buffer.
The table's functions are now the type's ``bf_getbuffer`` and
``bf_releasebuffer`` slots, as a number or sequence table's are.  Stock
and translated builds answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
typedef struct { PyObject_HEAD char data[4]; int exports; } Buf;

static int Buf_getbuffer(Buf *self, Py_buffer *view, int flags)
{
    if (PyBuffer_FillInfo(view, (PyObject *) self, self->data, 4, 0, flags) < 0)
        return -1;
    self->exports++;
    return 0;
}

static void Buf_releasebuffer(Buf *self, Py_buffer *view)
{
    self->exports--;
}

static PyObject *Buf_exports(Buf *self, PyObject *unused)
{
    return PyLong_FromLong(self->exports);
}

static PyObject *Buf_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Buf *self = (Buf *) type->tp_alloc(type, 0);
    if (self != NULL)
        memcpy(self->data, "abcd", 4);
    return (PyObject *) self;
}

static PyBufferProcs Buf_as_buffer = {
    (getbufferproc) Buf_getbuffer,
    (releasebufferproc) Buf_releasebuffer,
};

static PyMethodDef Buf_methods[] = {
    {"exports", (PyCFunction) Buf_exports, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject Buf_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bufprocs.Buf",
    .tp_basicsize = sizeof(Buf),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_as_buffer = &Buf_as_buffer,
    .tp_methods = Buf_methods,
    .tp_new = Buf_new,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "bufprocs", NULL, -1, NULL};

PyMODINIT_FUNC PyInit_bufprocs(void)
{
    PyObject *m;
    if (PyType_Ready(&Buf_Type) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&Buf_Type);
    if (PyModule_AddObject(m, "Buf", (PyObject *) &Buf_Type) < 0)
        return NULL;
    return m;
}
'''


def test_the_buffer_table_becomes_slots():
    out = translate.translate_source(SRC, "bufprocs.c")
    assert "CYSTCK_DEF_SLOT(Buf_Type_bf_getbuffer, bf_getbuffer, Buf_getbuffer)" in out
    assert "CYSTCK_DEF_SLOT(Buf_Type_bf_releasebuffer, bf_releasebuffer, Buf_releasebuffer)" in out
    assert "PyBufferProcs" not in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    script = ("b = m.Buf()\nv = memoryview(b)\nout = [bytes(v), b.exports()]\n"
              "v.release()\nout += [b.exports(), bytes(b)]\nprint(repr(out))\n")
    assert same_as_stock("bufprocs", SRC, script) == [b"abcd", 1, 0, b"abcd"]
