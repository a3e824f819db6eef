"""A stock parameter that the Cystck signature of an entry point drops (a
METH_NOARGS method's second parameter, always NULL) named only to silence
an unused-parameter warning: ``(void)args;``, or a project macro that
expands to that, ``UNUSED(args);`` with ``#define UNUSED(x) (void)(x)``.
The statement goes with the parameter (rule dropped-param-discards), and
so does one discarding a METH_VARARGS argument tuple, an array in Cystck
(it became ``UNUSED(CystckTuple_FromArray(S, args, nargs))``: a tuple
built for nothing).
Before, it named a parameter that no longer existed (zstd 1.5.7.2's
python-zstd.c: 16 of its 18 --check errors at first contact,
docs/gaps.md T24).  The module builds and behaves as the stock build, in
release and with CYSTCK_DEBUG=1."""

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define UNUSED(x)  (void)(x)
#define IGNORE(p) ((void)(p))

static PyObject *
answer(PyObject *self, PyObject *args)
{
    UNUSED(self);
    UNUSED(args);
    return PyLong_FromLong(42);
}

static PyObject *
name(PyObject *self, PyObject *unused)
{
    (void)unused;
    IGNORE(self);
    return PyUnicode_FromString("discards");
}

static PyObject *
echo(PyObject *self, PyObject *args)
{
    PyObject *o;
    UNUSED(self);
    UNUSED(args);
    if (!PyArg_ParseTuple(args, "O", &o))
        return NULL;
    Py_INCREF(o);
    return o;
}

static PyMethodDef methods[] = {
    {"answer", answer, METH_NOARGS, NULL},
    {"name", name, METH_NOARGS, NULL},
    {"echo", echo, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC PyInit_NAME(void) { return PyModule_Create(&moddef); }
'''

SCRIPT = r"""
out = [m.answer(), m.name(), m.echo("x")]
try:
    m.answer(1)
except TypeError as e:
    out.append(str(e))
print(out)
"""
EXPECTED = [42, "discards", "x", "discards.answer() takes no arguments (1 given)"]


def test_discards_of_a_dropped_parameter_go_with_it():
    out = translate.translate_source(SRC.replace("NAME", "discards"))
    assert "UNUSED(args)" not in out.split("echo(")[0]        # answer's: its args is dropped
    assert "(void)unused;" not in out
    assert out.count("UNUSED(self);") == 2                    # self is kept
    assert "IGNORE(self);" in out
    # echo's args, a tuple in stock, is an array now: discarding it as an
    # object would build a tuple for nothing
    assert "UNUSED(args)" not in out and "CystckTuple_FromArray" not in out
    assert "escape hatch" not in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC.replace("NAME", "discards"))
    assert translate.translate_source(out) == out


def test_translation_behaves_like_the_stock_build(same_as_stock):
    assert same_as_stock("discards", SRC.replace("NAME", "discards"), SCRIPT) == EXPECTED
