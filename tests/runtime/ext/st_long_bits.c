/* Stock code asking how many bits an int needs (_PyLong_NumBits):
 * tests/runtime/test_long_bits.py builds it as it is and as cystck-migrate
 * translates it (CystckLong_NumBits), and compares the two. */
#include <Python.h>

static PyObject *
bits(PyObject *self, PyObject *o)
{
    size_t n;
    if (!PyLong_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "not an int");
        return NULL;
    }
    n = _PyLong_NumBits(o);
    if (n == (size_t)-1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromSize_t(n);
}

/* No type test first: the stock function reads any object as an int. */
static PyObject *
bits_unchecked(PyObject *self, PyObject *o)
{
    size_t n = _PyLong_NumBits(o);
    if (n == (size_t)-1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromSize_t(n);
}

static PyMethodDef methods[] = {
    {"bits", bits, METH_O, NULL},
    {"bits_unchecked", bits_unchecked, METH_O, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
