/*
 * piconumpy: a tiny one-dimensional float64 array, written with the stock
 * CPython C API.
 *
 * This is the reference ("stock") variant of the PicoNumPy port.  It is kept
 * deliberately conventional -- a static PyTypeObject, PyArg_ParseTuple,
 * explicit Py_INCREF/Py_DECREF, PyMethodDef tables and single-phase module
 * initialisation -- because it is also the input of cystck-migrate, which
 * rewrites code written the way C-API extension authors usually write it.
 *
 * Design choices shared with the HPy variant (src/piconumpy_hpy.c), so that
 * timing differences between variants come from the API and not from the
 * algorithm:
 *   - the elements live in a malloc'ed double[], freed by the deallocator.
 *     Plain malloc (not PyMem_Malloc) because HPy has no equivalent of the
 *     Python allocator, and both variants must pay the same allocation cost;
 *   - int and float operands of *, / and item assignment are read directly;
 *     anything else makes the operator return NotImplemented;
 *   - a / 0 raises ZeroDivisionError, like Python floats do (NumPy would
 *     return inf; we prefer the Python behaviour of the element type);
 *   - negative indices count from the end, as for Python sequences.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdlib.h>

typedef struct {
    PyObject_HEAD
    Py_ssize_t size;
    double *data;
} ArrayObject;

static PyTypeObject ArrayType;

/* The type cannot be subclassed, so this is an exact type check in practice;
   PyObject_TypeCheck tests the exact type first, which keeps it cheap. */
#define Array_Check(op) PyObject_TypeCheck(op, &ArrayType)

/* Creates an array of `size` elements whose contents are uninitialised: every
   caller fills all of them before the array escapes. */
static ArrayObject *
Array_alloc(Py_ssize_t size)
{
    ArrayObject *self;

    if (size > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(double)) {
        PyErr_NoMemory();
        return NULL;
    }
    self = PyObject_New(ArrayObject, &ArrayType);
    if (self == NULL) {
        return NULL;
    }
    self->size = size;
    /* malloc(0) may legitimately return NULL; an empty array never reads
       its data pointer, so only a failed non-empty allocation is an error. */
    self->data = (double *)malloc(size * sizeof(double));
    if (self->data == NULL && size > 0) {
        Py_DECREF(self);
        PyErr_NoMemory();
        return NULL;
    }
    return self;
}

static void
Array_dealloc(ArrayObject *self)
{
    free(self->data);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Array_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *data, *seq;
    PyObject **items;
    ArrayObject *self;
    Py_ssize_t i, n;

    /* The argument is positional-only, as for list() and tuple(). */
    if (kwds != NULL && PyDict_Size(kwds) != 0) {
        PyErr_SetString(PyExc_TypeError, "array() takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O:array", &data)) {
        return NULL;
    }
    /* Lists and tuples are used as they are; any other iterable is first
       collected into a list. */
    seq = PySequence_Fast(data, "array() argument must be an iterable of numbers");
    if (seq == NULL) {
        return NULL;
    }
    n = PySequence_Fast_GET_SIZE(seq);
    items = PySequence_Fast_ITEMS(seq);
    self = Array_alloc(n);
    if (self == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        double value = PyFloat_AsDouble(items[i]);
        if (value == -1.0 && PyErr_Occurred()) {
            Py_DECREF(self);
            Py_DECREF(seq);
            return NULL;
        }
        self->data[i] = value;
    }
    Py_DECREF(seq);
    return (PyObject *)self;
}

static Py_ssize_t
Array_length(ArrayObject *self)
{
    return self->size;
}

/* CPython's sequence protocol has already added len(a) to a negative index
   before calling sq_item / sq_ass_item, so only the range check is left. */
static PyObject *
Array_item(ArrayObject *self, Py_ssize_t i)
{
    if (i < 0 || i >= self->size) {
        PyErr_SetString(PyExc_IndexError, "array index out of range");
        return NULL;
    }
    return PyFloat_FromDouble(self->data[i]);
}

static int
Array_ass_item(ArrayObject *self, Py_ssize_t i, PyObject *value)
{
    double x;

    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "array items cannot be deleted");
        return -1;
    }
    if (i < 0 || i >= self->size) {
        PyErr_SetString(PyExc_IndexError, "array assignment index out of range");
        return -1;
    }
    x = PyFloat_AsDouble(value);
    if (x == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    self->data[i] = x;
    return 0;
}

static PyObject *
size_mismatch(ArrayObject *a, ArrayObject *b)
{
    PyErr_Format(PyExc_ValueError,
                 "operands have different sizes (%zd and %zd)",
                 a->size, b->size);
    return NULL;
}

static PyObject *
Array_add(PyObject *left, PyObject *right)
{
    ArrayObject *a, *b, *result;
    Py_ssize_t i;

    if (!Array_Check(left) || !Array_Check(right)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    a = (ArrayObject *)left;
    b = (ArrayObject *)right;
    if (a->size != b->size) {
        return size_mismatch(a, b);
    }
    result = Array_alloc(a->size);
    if (result == NULL) {
        return NULL;
    }
    for (i = 0; i < a->size; i++) {
        result->data[i] = a->data[i] + b->data[i];
    }
    return (PyObject *)result;
}

static PyObject *
Array_subtract(PyObject *left, PyObject *right)
{
    ArrayObject *a, *b, *result;
    Py_ssize_t i;

    if (!Array_Check(left) || !Array_Check(right)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    a = (ArrayObject *)left;
    b = (ArrayObject *)right;
    if (a->size != b->size) {
        return size_mismatch(a, b);
    }
    result = Array_alloc(a->size);
    if (result == NULL) {
        return NULL;
    }
    for (i = 0; i < a->size; i++) {
        result->data[i] = a->data[i] - b->data[i];
    }
    return (PyObject *)result;
}

/* Reads a Python int or float operand.  Returns 1 and stores the value on
   success, 0 if the object is not a scalar we accept (the operator then
   returns NotImplemented so that Python can try the other operand), and -1
   with an exception set if the conversion failed (an int too large for a
   double). */
static int
scalar_as_double(PyObject *obj, double *value)
{
    if (PyFloat_Check(obj)) {
        *value = PyFloat_AS_DOUBLE(obj);
        return 1;
    }
    if (PyLong_Check(obj)) {
        *value = PyLong_AsDouble(obj);
        if (*value == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        return 1;
    }
    return 0;
}

/* nb_multiply is called for both a * s and s * a, so the array may be
   either operand. */
static PyObject *
Array_multiply(PyObject *left, PyObject *right)
{
    ArrayObject *a, *result;
    PyObject *other;
    double factor;
    Py_ssize_t i;
    int ok;

    if (Array_Check(left)) {
        a = (ArrayObject *)left;
        other = right;
    }
    else {
        a = (ArrayObject *)right;
        other = left;
    }
    ok = scalar_as_double(other, &factor);
    if (ok < 0) {
        return NULL;
    }
    if (ok == 0) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    result = Array_alloc(a->size);
    if (result == NULL) {
        return NULL;
    }
    for (i = 0; i < a->size; i++) {
        result->data[i] = a->data[i] * factor;
    }
    return (PyObject *)result;
}

static PyObject *
Array_true_divide(PyObject *left, PyObject *right)
{
    ArrayObject *a, *result;
    double divisor;
    Py_ssize_t i;
    int ok;

    /* Only array / scalar is defined; scalar / array is not. */
    if (!Array_Check(left)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    a = (ArrayObject *)left;
    ok = scalar_as_double(right, &divisor);
    if (ok < 0) {
        return NULL;
    }
    if (ok == 0) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (divisor == 0.0) {
        PyErr_SetString(PyExc_ZeroDivisionError, "division by zero");
        return NULL;
    }
    result = Array_alloc(a->size);
    if (result == NULL) {
        return NULL;
    }
    for (i = 0; i < a->size; i++) {
        result->data[i] = a->data[i] / divisor;
    }
    return (PyObject *)result;
}

static PyObject *
Array_tolist(ArrayObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *list;
    Py_ssize_t i;

    list = PyList_New(self->size);
    if (list == NULL) {
        return NULL;
    }
    for (i = 0; i < self->size; i++) {
        PyObject *item = PyFloat_FromDouble(self->data[i]);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyMethodDef Array_methods[] = {
    {"tolist", (PyCFunction)Array_tolist, METH_NOARGS,
     "Return the elements as a list of floats."},
    {NULL, NULL, 0, NULL}
};

static PyMemberDef Array_members[] = {
    {"size", T_PYSSIZET, offsetof(ArrayObject, size), READONLY,
     "Number of elements."},
    {NULL, 0, 0, 0, NULL}
};

static PySequenceMethods Array_as_sequence = {
    .sq_length = (lenfunc)Array_length,
    .sq_item = (ssizeargfunc)Array_item,
    .sq_ass_item = (ssizeobjargproc)Array_ass_item,
};

static PyNumberMethods Array_as_number = {
    .nb_add = Array_add,
    .nb_subtract = Array_subtract,
    .nb_multiply = Array_multiply,
    .nb_true_divide = Array_true_divide,
};

static PyTypeObject ArrayType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "piconumpy.array",
    .tp_doc = "array(iterable)\n\n"
              "One-dimensional array of float64 built from an iterable of numbers.",
    .tp_basicsize = sizeof(ArrayObject),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Array_new,
    .tp_dealloc = (destructor)Array_dealloc,
    .tp_as_number = &Array_as_number,
    .tp_as_sequence = &Array_as_sequence,
    .tp_methods = Array_methods,
    .tp_members = Array_members,
};

static PyObject *
empty(PyObject *module, PyObject *args)
{
    ArrayObject *result;
    Py_ssize_t size, i;

    if (!PyArg_ParseTuple(args, "n:empty", &size)) {
        return NULL;
    }
    if (size < 0) {
        PyErr_SetString(PyExc_ValueError, "negative dimensions are not allowed");
        return NULL;
    }
    result = Array_alloc(size);
    if (result == NULL) {
        return NULL;
    }
    /* Unlike NumPy's empty(), fill with zeros: reading an element then
       never depends on what the allocator left behind. */
    for (i = 0; i < size; i++) {
        result->data[i] = 0.0;
    }
    return (PyObject *)result;
}

static PyMethodDef piconumpy_methods[] = {
    {"empty", empty, METH_VARARGS,
     "empty(size)\n\nReturn a new array of `size` elements, all zero."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef piconumpy_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "piconumpy",
    .m_doc = "A tiny one-dimensional float64 array (stock C API).",
    .m_size = -1,
    .m_methods = piconumpy_methods,
};

PyMODINIT_FUNC
PyInit_piconumpy(void)
{
    PyObject *m;

    if (PyType_Ready(&ArrayType) < 0) {
        return NULL;
    }
    m = PyModule_Create(&piconumpy_module);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&ArrayType);
    if (PyModule_AddObject(m, "array", (PyObject *)&ArrayType) < 0) {
        Py_DECREF(&ArrayType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
