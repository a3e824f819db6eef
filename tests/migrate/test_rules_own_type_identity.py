"""A handle compared with one of the extension's static types,
``((PyTypeObject *)base) != &BoxType`` (walking an MRO), and the type read
through the head's member after a cast, ``(PyObject *)self->ob_type``:
both stayed as written and did not compile once translated (zope.proxy's
``WrapperType_Lookup``, "invalid operands to binary != (have
'Cystck_Object' and 'Cystck_Object')", and its ``tp_descr_get`` call,
"invalid type argument of '->'").  handle-identity makes the first a
``Cystck_Is`` with the type's reference, ob-type-member the second a
``Py_TYPE`` (``CystckObject_Type``)."""
from cystck.migrate import translate

TYPES = r'''#include <Python.h>

typedef struct {
    PyObject_HEAD
} Box;

static PyTypeObject BoxType;

/* the classes of type's MRO before object, but BoxType */
static PyObject *
others(PyObject *module, PyObject *type)
{
    PyObject *mro, *base, *result;
    Py_ssize_t i, n;
    if (!PyType_Check(type)) {
        PyErr_SetString(PyExc_TypeError, "a type");
        return NULL;
    }
    mro = ((PyTypeObject *)type)->tp_mro;
    n = PyTuple_GET_SIZE(mro) - 1;
    result = PyList_New(0);
    if (result == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        base = PyTuple_GET_ITEM(mro, i);
        if (((PyTypeObject *)base) != &BoxType) {
            if (PyList_Append(result, base) < 0) {
                Py_DECREF(result);
                return NULL;
            }
        }
    }
    return result;
}

static PyObject *
type_of(PyObject *module, PyObject *o)
{
    PyObject *t = (PyObject *)o->ob_type;
    Py_INCREF(t);
    return t;
}

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "owntype.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = PyType_GenericNew,
};

static PyMethodDef methods[] = {
    {"others", others, METH_O, NULL},
    {"type_of", type_of, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "owntype", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_owntype(void)
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


def test_a_handle_compared_with_an_own_static_type_is_an_identity_test():
    out = translate.translate_source(TYPES, "owntype.c")
    assert "if (!Cystck_Is(S, base, Cystck_deref(S, BoxType))) {" in out
    assert "Cystck_Object t = CystckObject_Type(S, o);" in out


def test_a_pointer_compared_with_another_static_stays():
    """Negative: ``p != &marker``, a C pointer and a static that is no
    type object, is no identity test of handles."""
    src = TYPES.replace("static PyTypeObject BoxType;\n",
                        "static PyTypeObject BoxType;\nstatic char marker;\n"
                        "static int not_marker(const char *p) { return p != &marker; }\n", 1)
    out = translate.translate_source(src, "owntype.c")
    assert "return p != &marker;" in out


def test_own_type_identity_behaves_like_the_stock_build(same_as_stock):
    script = ("class A(m.Box): pass\n"
              "class B(A, dict): pass\n"
              "print(repr([[c.__name__ for c in m.others(B)], m.type_of(A()).__name__,\n"
              "             m.type_of(3).__name__, outcome(m.others, 3)[0]]))\n")
    want = same_as_stock("owntype", TYPES, script)
    assert want == [["B", "A", "dict"], "A", "int", "TypeError"]
