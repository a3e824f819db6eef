"""``Py_RETURN_RICHCOMPARE(a, b, op)`` returns the comparison's bool
(``CYSTCK_RICHCOMPARE``, Cystck.h): pushed from an entry point, a new
handle from a helper returning one.  It was reported and then kept
through the escape hatch, where its stock ``return Py_True`` does not
compile in a function returning a push count or a handle."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>
static PyObject *cmp_values(long a, long b, int op)
{
    if (a < 0)
        return NULL;
    Py_RETURN_RICHCOMPARE(a, b, op);
}
static PyObject *f(PyObject *self, PyObject *args)
{
    long a, b;
    int op;
    if (!PyArg_ParseTuple(args, "lli", &a, &b, &op))
        return NULL;
    if (a == b)
        return cmp_values(a, b, op);
    Py_RETURN_RICHCOMPARE(a + 1, b, op);
}
static PyMethodDef m[] = {{"f", f, METH_VARARGS, NULL}, {NULL}};
'''


def test_richcompare_is_pushed_from_an_entry_point_and_a_handle_from_a_helper():
    out = translate.translate_source(SRC, "m.c")
    assert "    return Cystck_ReturnBool(S, CYSTCK_RICHCOMPARE(a + 1, b, op));\n" in out
    assert "    return CystckBool_FromLong(S, CYSTCK_RICHCOMPARE(a, b, op));\n" in out
    assert "Py_RETURN_RICHCOMPARE" not in out


def test_richcompare_in_a_function_without_the_api_is_left_alone():
    """Negative: a plain C function's macro use is not rewritten (its
    return type is no object)."""
    src = "#include <Python.h>\nstatic int plain(int a)\n{\n    return a + 1;\n}\n" \
          "#define CMP(a, b, op) Py_RETURN_RICHCOMPARE(a, b, op)\n" + SRC
    out = translate.translate_source(src, "m.c")
    assert "#define CMP(a, b, op) Py_RETURN_RICHCOMPARE(a, b, op)\n" in out
