"""``PyUnicode_Join(NULL, seq)`` joins with a space (CPython: a null
separator is " "); its port ``CystckUnicode_Join(S, Cystck_NULL, seq)``
raised SystemError, the separator declared a handle that may not be null
in cystck/apitable.py.  Stock and translated builds answer alike,
release and debug."""
SRC = r'''#include <Python.h>

static PyObject *
join_words(PyObject *self, PyObject *seq)
{
    return PyUnicode_Join(NULL, seq);
}

static PyMethodDef methods[] = {{"join_words", join_words, METH_O, NULL}, {NULL}};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "joinnull", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_joinnull(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_a_null_separator_joins_with_a_space(same_as_stock):
    want = same_as_stock("joinnull", SRC, "print(repr([m.join_words(['a', 'b', 'c']), m.join_words([]), "
                                          "outcome(m.join_words, [1])]))\n")
    assert want[:2] == ["a b c", ""]
