"""A helper that reads a member of the extension's own struct named like
one of CPython's (``self->ob_item``, ``self`` a pointer to a struct that
declares ``ob_item``) is ported with the struct's typed accessor: it was
taken for a helper reading object internals, kept stock, and every caller
lent it ``Cystck_AsPyObject(S, h)``, a ``PyObject *`` where the struct was
wanted (a build error per call)."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>
typedef struct {
    PyObject_HEAD
    char *ob_item;
} Bits;
static PyTypeObject Bits_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "m.Bits", .tp_basicsize = sizeof(Bits),
};
static int first(Bits *self) { return self->ob_item[0]; }
static Py_ssize_t list_empty(PyObject *o) { PyListObject *l = (PyListObject *)o; return l->ob_item == NULL; }
static PyObject *f(Bits *self, PyObject *arg)
{
    return PyLong_FromLong(first(self) + list_empty(arg));
}
static PyMethodDef m[] = {{"f", (PyCFunction)f, METH_O, NULL}, {NULL}};
'''


def test_own_member_named_like_an_internal_is_read_through_the_accessor():
    out = translate.translate_source(SRC, "m.c")
    assert "static int first(Cystck_State *S, Cystck_Object self) { return Bits_AsStruct(S, self)->ob_item[0]; }" in out
    assert "first(S, self) + " in out


def test_the_same_member_of_a_stock_struct_stays_internal():
    """Negative: ``l->ob_item`` of a ``PyListObject *`` is CPython's, even
    where the extension's own struct has a member of that name: the
    helper stays stock, lent its handle through the escape hatch."""
    out = translate.translate_source(SRC, "m.c")
    assert "static Py_ssize_t list_empty(PyObject *o) { PyListObject *l = (PyListObject *)o; return l->ob_item == NULL; }" in out
    assert "/* cystck-migrate: escape hatch */ list_empty(Cystck_AsPyObject(S, arg))" in out
