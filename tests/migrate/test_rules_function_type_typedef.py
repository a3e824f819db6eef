"""A typedef of a function type, not of a pointer to one, ``typedef
PyObject *(EncodeFunction)(Encoder *, PyObject *);``, its functions
passed as ``EncodeFunction *encoder`` and called ``encoder(self,
value)`` (cbor2's container encoders): the typedef stayed stock while
the functions bound to it took the state and handles, so the calls
through the parameter did not compile ("incompatible type for argument
1 of 'encoder'", cbor2's last build errors).  It is read as a
function-pointer typedef is: its signature takes S and handles, and the
calls through a ``EncodeFunction *`` parameter pass S.  Stock and
translated builds answer alike, release and debug."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>

typedef PyObject *(ShowFunction)(PyObject *, PyObject *);

static PyObject *
show_repr(PyObject *prefix, PyObject *value)
{
    return PyUnicode_FromFormat("%U%R", prefix, value);
}

static PyObject *
show_str(PyObject *prefix, PyObject *value)
{
    return PyUnicode_FromFormat("%U%S", prefix, value);
}

static PyObject *
show_with(ShowFunction *show, PyObject *value)
{
    PyObject *prefix = PyUnicode_FromString("> ");
    PyObject *ret;
    if (prefix == NULL)
        return NULL;
    ret = show(prefix, value);
    Py_DECREF(prefix);
    return ret;
}

static PyObject *
show(PyObject *self, PyObject *args)
{
    PyObject *value;
    int as_repr;
    if (!PyArg_ParseTuple(args, "Op", &value, &as_repr))
        return NULL;
    return show_with(as_repr ? &show_repr : &show_str, value);
}

static PyMethodDef methods[] = {{"show", show, METH_VARARGS, NULL}, {NULL}};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "fntype", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_fntype(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_a_function_type_typedef_takes_the_state_and_its_calls_pass_it():
    out = translate.translate_source(SRC, "fntype.c")
    assert "typedef Cystck_Object (ShowFunction)(Cystck_State *S, Cystck_Object, Cystck_Object);" in out
    assert "ret = show(S, prefix, value);" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("fntype", SRC, "print(repr([m.show('a', True), m.show('a', False), m.show(3, 0)]))\n")
    assert want == ["> 'a'", "> a", "> 3"]
