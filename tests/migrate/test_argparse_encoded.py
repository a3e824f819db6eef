"""The encoded-string units of the argument parser, ``es``, ``et``,
``es#`` and ``et#`` (pyxattr 0.8.1 takes attribute names and values so,
docs/gaps.md T36): a str encoded with the codec the call names (NULL:
UTF-8), for ``et`` a bytes or bytearray as it is, copied into a buffer
the parser allocates and the caller frees with PyMem_Free (``es#``/``et#``
given a buffer: copied into it, its size checked).  The runtime raised
SystemError for them.  Built stock and translated, run the same
(CPython's messages: wrong type, embedded NUL, codec error, buffer too
small; optional units skipped by keywords), in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

STOCK = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* name(obj, name[, value[, flags]]): (obj, name, value, flags) with name
   and value as bytes, the way an extended-attribute setter takes them */
static PyObject *name(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"obj", "name", "value", "flags", NULL};
    PyObject *obj, *res;
    char *attr = NULL, *value = NULL;
    Py_ssize_t size = 0;
    int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oet|et#i:name", kwlist, &obj, NULL, &attr,
                                     NULL, &value, &size, &flags))
        return NULL;
    res = Py_BuildValue("Oyy#i", obj, attr, value, size, flags);
    PyMem_Free(attr);
    PyMem_Free(value);
    return res;
}

/* latin(s): s encoded to Latin-1 with es (str only) */
static PyObject *latin(PyObject *self, PyObject *args)
{
    char *out = NULL;
    PyObject *res;
    if (!PyArg_ParseTuple(args, "es", "latin-1", &out))
        return NULL;
    res = PyBytes_FromString(out);
    PyMem_Free(out);
    return res;
}

/* fixed(s): es# into a caller's buffer of 8 bytes */
static PyObject *fixed(PyObject *self, PyObject *args)
{
    char storage[8];
    char *out = storage;
    Py_ssize_t n = sizeof(storage);
    if (!PyArg_ParseTuple(args, "es#", "ascii", &out, &n))
        return NULL;
    return Py_BuildValue("(y#n)", out, n, n);
}

static PyMethodDef methods[] = {
    {"name", (PyCFunction)(void (*)(void))name, METH_VARARGS | METH_KEYWORDS, NULL},
    {"latin", latin, METH_VARARGS, NULL},
    {"fixed", fixed, METH_VARARGS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "encunits", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_encunits(void)
{
    return PyModule_Create(&moduledef);
}
"""

SCRIPT = """
print([m.name(1, "user.x"), m.name(2, b"user.y", "v\\u00e9\\x00w"), m.name(3, bytearray(b"n"), b"a\\x00b", 5),
       m.name(4, "k", flags=7), outcome(m.name, 5, 6), outcome(m.name, 5, "a\\x00b"),
       outcome(m.name, 5, "k", 3.0), outcome(m.name, 5, "\\ud800"), outcome(m.name, 5),
       m.latin("caf\\u00e9"), outcome(m.latin, b"bytes"), outcome(m.latin, "\\u20ac"),
       m.fixed("seven!!"), outcome(m.fixed, "eight!!!"), outcome(m.fixed, "\\u00e9")])
"""


def test_encoded_units_pass_through():
    text = translate.translate_source(STOCK, "encunits.c")
    assert MARK not in text
    assert '"Oet|et#i:name", kwlist, &obj, NULL, &attr,' in text


def test_encoded_units_behave_as_stock(same_as_stock):
    out = same_as_stock("encunits", STOCK, SCRIPT)
    assert out[0] == (1, b"user.x", None, 0) and out[1] == (2, b"user.y", b"v\xc3\xa9\x00w", 0)
    assert out[4] == ("TypeError", "name() argument 2 must be str, bytes or bytearray, not int")
    assert out[5][0] == "TypeError" and out[7][0] == "UnicodeEncodeError" and out[9] == b"caf\xe9"
    assert out[12] == (b"seven!!", 7) and out[13][0] == "ValueError"
