"""A ``0`` that only starts the value stored in a handle (``res = 0 ? a :
b``, what a function macro's flag parameter becomes when the macro is
expanded) is a condition, not NULL: ``null-handles`` made it
``res = Cystck_NULL ? ...``, a struct used as a truth value (bitarray
3.12.3, 5 --check errors)."""
from cystck.migrate import translate

STOCK = """#include <Python.h>
typedef struct { PyObject_HEAD int n; } Obj;
static Obj *cp(Obj *o);
static PyObject *f(PyObject *self, PyObject *other)
{
    Obj *res = NULL;
    if (other != Py_None)
        res = 0
            ? (Obj *) Py_NewRef(self)
            : cp((Obj *) self);
    if (res == NULL)
        return NULL;
    return (PyObject *) res;
}
static PyMethodDef methods[] = {{"f", (PyCFunction)f, METH_O, NULL}, {NULL}};
"""


def test_a_zero_starting_a_conditional_value_stays_a_condition():
    out = translate.translate_source(STOCK, "tern.c")
    assert "res = 0\n            ? self\n            : cp(S, self);" in out, out


def test_a_zero_stored_alone_is_still_the_null_handle():
    out = translate.translate_source(STOCK.replace("res = 0\n", "res = 0;\n    res = 0\n"), "tern.c")
    assert "res = Cystck_NULL;\n    res = 0\n            ? self" in out, out
