"""An item pointer of ``PySequence_Fast_ITEMS`` walked with ``p++``,
declared in one declaration with objects (cbor2 5.9.0's encoder:
``PyObject **items, *fast, *ret = NULL;``), was reported ("declared with
handles") and the declaration became ``Cystck_Object *items, fast, ret``:
the stock ``PyObject **`` assigned to it did not compile.  The item
pointer now gets a declaration of its own, marked and kept stock as where
it is declared alone (the escape hatch: its items read through
``Cystck_FromPyObject``), after the other declarators, which become
handles.  Stock and translated builds answer alike, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate
from cystck.migrate.rules import escape

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* joined(seq): the str() of each item, a tuple, the items walked with a pointer */
static PyObject *
joined(PyObject *self, PyObject *value)
{
    PyObject **items, *fast, *parts, *ret = NULL;
    Py_ssize_t length;

    fast = PySequence_Fast(value, "argument must be iterable");
    if (fast == NULL)
        return NULL;
    parts = PyList_New(0);
    if (parts == NULL)
        goto error;
    length = PySequence_Fast_GET_SIZE(fast);
    items = PySequence_Fast_ITEMS(fast);
    while (length) {
        PyObject *s = PyObject_Str(*items);
        if (s == NULL || PyList_Append(parts, s) < 0) {
            Py_XDECREF(s);
            goto error;
        }
        Py_DECREF(s);
        items++;
        length--;
    }
    ret = PyList_AsTuple(parts);
error:
    Py_XDECREF(parts);
    Py_DECREF(fast);
    return ret;
}

/* firsts(pairs): the first item of each pair, the pointer declared last */
static PyObject *
firsts(PyObject *self, PyObject *value)
{
    PyObject *fast = PySequence_Fast(value, "pairs"), *out, **p, **end;
    if (fast == NULL)
        return NULL;
    out = PyList_New(0);
    p = PySequence_Fast_ITEMS(fast);
    end = p + PySequence_Fast_GET_SIZE(fast);
    for (; out != NULL && p < end; p++) {
        if (!PyTuple_Check(*p) || PyTuple_GET_SIZE(*p) < 1) {
            PyErr_SetString(PyExc_TypeError, "pairs must be tuples");
            Py_CLEAR(out);
        }
        else if (PyList_Append(out, PyTuple_GET_ITEM(*p, 0)) < 0)
            Py_CLEAR(out);
    }
    Py_DECREF(fast);
    return out;
}

static PyMethodDef methods[] = {
    {"joined", joined, METH_O, NULL},
    {"firsts", firsts, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "fastdecl", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_fastdecl(void)
{
    return PyModule_Create(&moddef);
}
'''

SCRIPT = r"""
print(repr([m.joined([1, "b", 3.5]), m.joined(()), m.joined("xyz"), m.joined(range(300)) == tuple(map(str, range(300))),
            outcome(m.joined, 5), m.firsts([(1, 2), ("a",)]), m.firsts({}), outcome(m.firsts, [(1,), 2]),
            outcome(m.firsts, [()]), outcome(m.firsts, None)]))
"""


def test_the_item_pointer_gets_a_stock_declaration_of_its_own():
    res = translate.translate_files({"fastdecl.c": SRC})["fastdecl.c"]
    out = res.text
    assert "    Cystck_Object fast, parts, ret = Cystck_NULL;\n" \
           f"    {escape.MARK} PyObject **items;\n" in out
    assert f"{escape.MARK} PyObject **p, **end;\n" in out
    assert "Cystck_Object fast = CystckSequence_Fast(S, value, \"pairs\"), out;" in out
    assert "declared with handles" not in "".join(n.message for n in res.notes)


def test_translation_behaves_as_the_stock_build(same_as_stock):
    want = same_as_stock("fastdecl", SRC, SCRIPT)
    assert want[:4] == [("1", "b", "3.5"), (), ("x", "y", "z"), True]
    assert want[5] == [1, "a"]
