"""``sq_inplace_concat`` and ``sq_inplace_repeat`` (bitarray 3.12.3's
``+=`` and ``*=``) had no Cystck slot: the translator dropped them
("has no Cystck counterpart"), so ``a += b`` fell back to ``sq_concat``
and made a new object, where stock extends ``a`` and returns it, and
``a.__iadd__`` did not exist.  Now both are slots (CYSTCK_DEF_SLOT,
cystck/apitable.py), binary and ssizearg like ``sq_concat`` and
``sq_repeat``, and the translator ports them.  Compared with the stock
build: ``+=`` and ``*=`` mutate the object and give back the same one, in
release and with CYSTCK_DEBUG=1."""
from cystck import gen_api
from cystck.migrate import project, translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    char *data;
    Py_ssize_t size;
} Buf;

static PyTypeObject Buf_Type;

#define Buf_Check(o)  PyObject_TypeCheck((o), &Buf_Type)

static Buf *
buf_make(PyTypeObject *type, const char *s, Py_ssize_t n)
{
    Buf *b = (Buf *) type->tp_alloc(type, 0);
    if (b == NULL)
        return NULL;
    b->size = 0;
    b->data = PyMem_Malloc(n ? n : 1);
    if (b->data == NULL) {
        Py_DECREF(b);
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(b->data, s, n);
    b->size = n;
    return b;
}

static PyObject *
buf_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    const char *s = "";
    Py_ssize_t n = 0;

    if (!PyArg_ParseTuple(args, "|y#", &s, &n))
        return NULL;
    return (PyObject *) buf_make(type, s, n);
}

static void
buf_dealloc(Buf *self)
{
    PyMem_Free(self->data);
    Py_TYPE(self)->tp_free((PyObject *) self);
}

static int
buf_grow(Buf *self, Py_ssize_t n)
{
    char *p = PyMem_Realloc(self->data, n ? n : 1);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->data = p;
    return 0;
}

static PyObject *
buf_value(Buf *self, PyObject *unused)
{
    return PyBytes_FromStringAndSize(self->data, self->size);
}

static PyObject *
buf_concat(Buf *self, PyObject *other)
{
    Buf *res;

    if (!Buf_Check(other)) {
        PyErr_Format(PyExc_TypeError, "can only concatenate Buf (not '%s') to Buf",
                     Py_TYPE(other)->tp_name);
        return NULL;
    }
    res = buf_make(Py_TYPE(self), self->data, self->size);
    if (res == NULL)
        return NULL;
    if (buf_grow(res, self->size + ((Buf *) other)->size) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    memcpy(res->data + res->size, ((Buf *) other)->data, ((Buf *) other)->size);
    res->size += ((Buf *) other)->size;
    return (PyObject *) res;
}

static PyObject *
buf_inplace_concat(Buf *self, PyObject *other)
{
    Py_ssize_t n;

    if (!Buf_Check(other)) {
        PyErr_Format(PyExc_TypeError, "can only extend Buf with Buf (not '%s')",
                     Py_TYPE(other)->tp_name);
        return NULL;
    }
    n = ((Buf *) other)->size;
    if (buf_grow(self, self->size + n) < 0)
        return NULL;
    memmove(self->data + self->size, ((Buf *) other)->data, n);
    self->size += n;
    return Py_NewRef(self);
}

static PyObject *
buf_repeat(Buf *self, Py_ssize_t m)
{
    Buf *res;
    Py_ssize_t i;

    if (m < 0)
        m = 0;
    res = buf_make(Py_TYPE(self), "", 0);
    if (res == NULL)
        return NULL;
    if (buf_grow(res, self->size * m) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    for (i = 0; i < m; i++)
        memcpy(res->data + i * self->size, self->data, self->size);
    res->size = self->size * m;
    return (PyObject *) res;
}

static PyObject *
buf_inplace_repeat(Buf *self, Py_ssize_t m)
{
    Py_ssize_t i, n = self->size;

    if (m < 0)
        m = 0;
    if (buf_grow(self, n * m) < 0)
        return NULL;
    for (i = 1; i < m; i++)
        memcpy(self->data + i * n, self->data, n);
    self->size = n * m;
    Py_INCREF(self);
    return (PyObject *) self;
}

static Py_ssize_t
buf_length(Buf *self)
{
    return self->size;
}

static PySequenceMethods buf_as_sequence = {
    (lenfunc) buf_length,                   /* sq_length */
    (binaryfunc) buf_concat,                /* sq_concat */
    (ssizeargfunc) buf_repeat,              /* sq_repeat */
    0,                                      /* sq_item */
    0,                                      /* was_sq_slice */
    0,                                      /* sq_ass_item */
    0,                                      /* was_sq_ass_slice */
    0,                                      /* sq_contains */
    (binaryfunc) buf_inplace_concat,        /* sq_inplace_concat */
    (ssizeargfunc) buf_inplace_repeat,      /* sq_inplace_repeat */
};

static PyMethodDef buf_methods[] = {
    {"value", (PyCFunction) buf_value, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject Buf_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    "inplaceseq.Buf",                       /* tp_name */
    sizeof(Buf),                            /* tp_basicsize */
    0,                                      /* tp_itemsize */
    (destructor) buf_dealloc,               /* tp_dealloc */
    0,                                      /* tp_vectorcall_offset */
    0,                                      /* tp_getattr */
    0,                                      /* tp_setattr */
    0,                                      /* tp_as_async */
    0,                                      /* tp_repr */
    0,                                      /* tp_as_number */
    &buf_as_sequence,                       /* tp_as_sequence */
    0,                                      /* tp_as_mapping */
    0,                                      /* tp_hash */
    0,                                      /* tp_call */
    0,                                      /* tp_str */
    0,                                      /* tp_getattro */
    0,                                      /* tp_setattro */
    0,                                      /* tp_as_buffer */
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, /* tp_flags */
    0,                                      /* tp_doc */
    0,                                      /* tp_traverse */
    0,                                      /* tp_clear */
    0,                                      /* tp_richcompare */
    0,                                      /* tp_weaklistoffset */
    0,                                      /* tp_iter */
    0,                                      /* tp_iternext */
    buf_methods,                            /* tp_methods */
    0,                                      /* tp_members */
    0,                                      /* tp_getset */
    0,                                      /* tp_base */
    0,                                      /* tp_dict */
    0,                                      /* tp_descr_get */
    0,                                      /* tp_descr_set */
    0,                                      /* tp_dictoffset */
    0,                                      /* tp_init */
    PyType_GenericAlloc,                    /* tp_alloc */
    buf_new,                                /* tp_new */
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "inplaceseq", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_inplaceseq(void)
{
    PyObject *m;

    if (PyType_Ready(&Buf_Type) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Buf", (PyObject *) &Buf_Type) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''


def test_the_translator_knows_the_slots_the_table_lists():
    """The slots CYSTCK_DEF_SLOT takes are listed in cystck/apitable.py
    (the header's list is generated from it); the translator reads their
    signatures from there (project.slot_signatures()), the traverse kind of
    SPECIAL_SLOTS aside, and ports the in-place ones."""
    table = {d.name for d in gen_api.parse_definitions() if d.kind == "slot"}
    special = {s for s, kind in project.SPECIAL_SLOTS.items() if kind == "traverse"}
    assert table == set(project.slot_signatures()) | special
    assert {"sq_inplace_concat", "sq_inplace_repeat"} <= table


def test_the_in_place_slots_are_ported():
    out = translate.translate_source(SRC, "inplaceseq.c")
    assert "CYSTCK_DEF_SLOT(Buf_Type_sq_inplace_concat, sq_inplace_concat, buf_inplace_concat)" in out
    assert "CYSTCK_DEF_SLOT(Buf_Type_sq_inplace_repeat, sq_inplace_repeat, buf_inplace_repeat)" in out
    assert "buf_inplace_repeat(Cystck_State *S, Cystck_Object self, Cystck_ssize_t m)" in out


def test_translation_compiles_and_behaves_like_the_stock_build(tmp_path, stock_and_translated_tree,
                                                               run_script):
    stock_dir = tmp_path / "stock"
    stock_dir.mkdir()
    (stock_dir / "inplaceseq.c").write_text(SRC)
    stock, ported = stock_and_translated_tree("inplaceseq", stock_dir)
    script = ("B = m.Buf\n"
              "a = B(b'ab'); alias = a; other = B(b'cd')\n"
              "a += other\n"
              "out = [a is alias, alias.value(), other.value(), hasattr(a, '__iadd__'), hasattr(a, '__imul__')]\n"
              "a *= 3\n"
              "out += [a is alias, alias.value(), len(a)]\n"
              "r = a.__iadd__(B(b'!'))\n"
              "out += [r is a, a.value()]\n"
              "c = a + other\n"
              "out += [c is a, c.value(), a.value(), (a * 2) is a]\n"
              "a *= 0\n"
              "out += [a is alias, a.value()]\n"
              "for bad in (lambda: a.__iadd__(1), lambda: a.__imul__('x')):\n"
              "    try:\n        bad(); out.append('no error')\n"
              "    except Exception as e:\n        out.append((type(e).__name__, str(e)))\n"
              "s = a\n"
              "try:\n    s += [1]\n"
              "except Exception as e:\n    out.append((type(e).__name__, str(e)))\n"
              "print(repr(out))\n")
    want = run_script(script, stock)
    assert want[:5] == [True, b"abcd", b"cd", True, True]
    assert want[5:8] == [True, b"abcdabcdabcd", 12]
    assert run_script(script, ported) == want
    assert run_script(script, ported, debug=True) == want
