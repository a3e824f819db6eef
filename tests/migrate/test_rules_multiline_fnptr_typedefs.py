"""Function-pointer typedefs over objects written over several lines (a
table of per-field pack and unpack functions:

    typedef void (*pack_fn)(char *buf,
                            PyObject *value);

) stayed as they were while their functions took ``S`` and handles: each
call through the table was a build error (too many arguments, a handle
where ``PyObject *`` was expected).  helper-signature now reads the
parameter list of such a typedef across lines and nested parentheses.
Stock and translated builds answer alike, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef void (*pack_fn)(char *buf,
                        PyObject *value);

typedef PyObject *(*unpack_fn)(const char *buf,
                               void (*log)(const char *));

struct codec { char kind; pack_fn pack; unpack_fn unpack; };

static void pack_byte(char *buf, PyObject *value)
{
    long v = PyLong_AsLong(value);
    if (v < 0 || v > 255) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_OverflowError, "byte out of range");
        return;
    }
    buf[0] = (char)v;
}

static void pack_bool(char *buf, PyObject *value)
{
    int t = PyObject_IsTrue(value);
    if (t >= 0)
        buf[0] = (char)t;
}

static PyObject *unpack_byte(const char *buf, void (*log)(const char *))
{
    return PyLong_FromLong((unsigned char)buf[0]);
}

static PyObject *unpack_bool(const char *buf, void (*log)(const char *))
{
    return PyBool_FromLong(buf[0]);
}

static const struct codec codecs[] = {
    {'B', pack_byte, unpack_byte},
    {'?', pack_bool, unpack_bool},
};

static PyObject *
roundtrip(PyObject *self, PyObject *args)
{
    const char *kind;
    PyObject *value;
    char buf[1] = {0};
    size_t i;
    if (!PyArg_ParseTuple(args, "sO", &kind, &value))
        return NULL;
    for (i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
        if (codecs[i].kind == kind[0]) {
            codecs[i].pack(buf, value);
            if (PyErr_Occurred())
                return NULL;
            return codecs[i].unpack(buf, NULL);
        }
    }
    PyErr_SetString(PyExc_ValueError, "unknown kind");
    return NULL;
}

static PyMethodDef methods[] = {
    {"roundtrip", roundtrip, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "fnptrs", NULL, -1, methods};

PyMODINIT_FUNC PyInit_fnptrs(void) { return PyModule_Create(&moddef); }
'''


def test_a_typedef_over_several_lines_takes_the_state_and_handles():
    out = translate.translate_source(SRC, "fnptrs.c")
    assert "typedef void (*pack_fn)(Cystck_State *S, char *buf, Cystck_Object value);" in out
    assert ("typedef Cystck_Object (*unpack_fn)(Cystck_State *S, const char *buf, "
            "void (*log)(const char *));") in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("fnptrs", SRC, "print(repr([outcome(m.roundtrip, k, v) for k, v in "
                                        "(('B', 7), ('?', []), ('B', 300), ('B', 'x'), ('Q', 1))]))\n")
    assert want[:3] == [7, False, ("OverflowError", "byte out of range")]
