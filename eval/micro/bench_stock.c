/*
 * Micro-benchmarks, stock CPython C API variant (module _micro_stock).
 *
 * This is the baseline every other variant is divided by, so it is written
 * the way a performance-minded author would write it against the public API
 * of CPython 3.11: METH_NOARGS / METH_O / METH_FASTCALL (| METH_KEYWORDS),
 * borrowed references and the unchecked macros where the preceding checks
 * make them safe, a static (not heap) type with PyObject_New allocation, and
 * no private (_Py*) functions.  The semantics, including the error cases, are
 * the ones README.md lists for every variant.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>

/* METH_FASTCALL leaves argument-count checking to the function. */
static inline int
check_nargs(const char *func, Py_ssize_t nargs, Py_ssize_t expected)
{
    if (nargs == expected)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes exactly %zd arguments (%zd given)",
                 func, expected, nargs);
    return -1;
}

static PyObject *
noargs(PyObject *mod, PyObject *Py_UNUSED(ignored))
{
    Py_RETURN_NONE;
}

static PyObject *
identity(PyObject *mod, PyObject *o)
{
    return Py_NewRef(o);
}

static PyObject *
long_inc(PyObject *mod, PyObject *o)
{
    long n = PyLong_AsLong(o);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n == LONG_MAX) {
        PyErr_SetString(PyExc_OverflowError, "long_inc() result does not fit in a C long");
        return NULL;
    }
    return PyLong_FromLong(n + 1);
}

static PyObject *
add_doubles(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_nargs("add_doubles", nargs, 2) < 0)
        return NULL;
    double a = PyFloat_AsDouble(args[0]);
    if (a == -1.0 && PyErr_Occurred())
        return NULL;
    double b = PyFloat_AsDouble(args[1]);
    if (b == -1.0 && PyErr_Occurred())
        return NULL;
    return PyFloat_FromDouble(a + b);
}

/* kwargs(a, b, c=0, d=0).  CPython 3.11 has no public parser for the
 * vectorcall convention with keywords (only the private
 * _PyArg_ParseStackAndKeywords), so the arguments are bound by hand, as
 * performance-minded extensions do.  Keyword names coming from call sites
 * in Python code are interned, so the identity comparison against our
 * interned names almost always hits and the string comparison is the
 * fallback for names built at run time. */
#define KWARGS_NPARAMS 4
static const char *const kwargs_names[KWARGS_NPARAMS] = {"a", "b", "c", "d"};
static PyObject *kwargs_interned[KWARGS_NPARAMS];

static int
kwargs_param_index(PyObject *key)
{
    for (int i = 0; i < KWARGS_NPARAMS; i++)
        if (key == kwargs_interned[i])
            return i;
    /* The vectorcall protocol requires keyword names to be exact str, so
     * this comparison cannot fail. */
    for (int i = 0; i < KWARGS_NPARAMS; i++)
        if (PyUnicode_CompareWithASCIIString(key, kwargs_names[i]) == 0)
            return i;
    return -1;
}

static PyObject *
kwargs(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *bound[KWARGS_NPARAMS] = {NULL, NULL, NULL, NULL};

    if (nargs > KWARGS_NPARAMS) {
        PyErr_Format(PyExc_TypeError, "kwargs() takes at most %d arguments (%zd given)",
                     KWARGS_NPARAMS, nargs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        bound[i] = args[i];
    if (kwnames != NULL) {
        Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t k = 0; k < nkw; k++) {
            PyObject *key = PyTuple_GET_ITEM(kwnames, k);
            int idx = kwargs_param_index(key);
            if (idx < 0) {
                PyErr_Format(PyExc_TypeError,
                             "kwargs() got an unexpected keyword argument '%U'", key);
                return NULL;
            }
            if (bound[idx] != NULL) {
                PyErr_Format(PyExc_TypeError,
                             "kwargs() got multiple values for argument '%s'",
                             kwargs_names[idx]);
                return NULL;
            }
            bound[idx] = args[nargs + k];
        }
    }

    long total = 0;
    for (int i = 0; i < KWARGS_NPARAMS; i++) {
        if (bound[i] == NULL) {
            if (i < 2) {
                PyErr_Format(PyExc_TypeError, "kwargs() missing required argument '%s'",
                             kwargs_names[i]);
                return NULL;
            }
            continue;           /* c and d default to 0 */
        }
        long v = PyLong_AsLong(bound[i]);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        if (__builtin_add_overflow(total, v, &total)) {
            PyErr_SetString(PyExc_OverflowError, "kwargs() sum does not fit in a C long");
            return NULL;
        }
    }
    return PyLong_FromLong(total);
}

/* The same three the way most extensions parse arguments: METH_VARARGS
 * (| METH_KEYWORDS) and PyArg_ParseTuple(AndKeywords).  The baseline of the
 * typed_* rows, where Cystck runs its typed methods. */
static PyObject *
parsetuple_long_inc(PyObject *mod, PyObject *args)
{
    long n;
    if (!PyArg_ParseTuple(args, "l:long_inc", &n))
        return NULL;
    if (n == LONG_MAX) {
        PyErr_SetString(PyExc_OverflowError, "long_inc() result does not fit in a C long");
        return NULL;
    }
    return PyLong_FromLong(n + 1);
}

static PyObject *
parsetuple_add_doubles(PyObject *mod, PyObject *args)
{
    double a, b;
    if (!PyArg_ParseTuple(args, "dd:add_doubles", &a, &b))
        return NULL;
    return PyFloat_FromDouble(a + b);
}

static PyObject *
parsetuple_kwargs(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"a", "b", "c", "d", NULL};
    long a, b, c = 0, d = 0, total;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "ll|ll:kwargs", kwlist, &a, &b, &c, &d))
        return NULL;
    if (__builtin_add_overflow(a, b, &total) || __builtin_add_overflow(total, c, &total) ||
        __builtin_add_overflow(total, d, &total)) {
        PyErr_SetString(PyExc_OverflowError, "kwargs() sum does not fit in a C long");
        return NULL;
    }
    return PyLong_FromLong(total);
}

static PyObject *
tuple3(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_nargs("tuple3", nargs, 3) < 0)
        return NULL;
    /* PyTuple_New + SET_ITEM avoids PyTuple_Pack's varargs walk. */
    PyObject *t = PyTuple_New(3);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < 3; i++)
        PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
    return t;
}

static PyObject *
call_callback(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_nargs("call_callback", nargs, 2) < 0)
        return NULL;
    /* Vectorcall underneath, without an argument tuple. */
    return PyObject_CallOneArg(args[0], args[1]);
}

static PyObject *
sum_list(PyObject *mod, PyObject *lst)
{
    if (!PyList_Check(lst)) {
        PyErr_SetString(PyExc_TypeError, "sum_list() argument must be a list");
        return NULL;
    }
    /* Items are borrowed and the size is read once: nothing in the loop can
     * run Python code (PyLong_AsLong on an int never calls __index__), so
     * the list cannot change under us. */
    Py_ssize_t n = PyList_GET_SIZE(lst);
    long total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(lst, i);
        if (!PyLong_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "sum_list() items must be int");
            return NULL;
        }
        long v = PyLong_AsLong(item);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        if (__builtin_add_overflow(total, v, &total)) {
            PyErr_SetString(PyExc_OverflowError, "sum_list() sum does not fit in a C long");
            return NULL;
        }
    }
    return PyLong_FromLong(total);
}

/* ------------------------------------------------------------------ */
/* Point(x, y)                                                          */
/* ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    double x, y;
} PointObject;

static PyTypeObject Point_Type;

/* Point is final (no Py_TPFLAGS_BASETYPE), so every instance has exactly
 * Point_Type and PyObject_New, which skips the zeroing and GC bookkeeping
 * of tp_alloc, is enough. */
static PyObject *
Point_make(double x, double y)
{
    PointObject *p = PyObject_New(PointObject, &Point_Type);
    if (p == NULL)
        return NULL;
    p->x = x;
    p->y = y;
    return (PyObject *)p;
}

static PyObject *
Point_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"x", "y", NULL};
    double x, y;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "dd:Point", kwlist, &x, &y))
        return NULL;
    return Point_make(x, y);
}

static void
Point_dealloc(PyObject *self)
{
    Py_TYPE(self)->tp_free(self);
}

static PyObject *
Point_add(PyObject *a, PyObject *b)
{
    if (!Py_IS_TYPE(a, &Point_Type) || !Py_IS_TYPE(b, &Point_Type))
        Py_RETURN_NOTIMPLEMENTED;
    PointObject *pa = (PointObject *)a, *pb = (PointObject *)b;
    return Point_make(pa->x + pb->x, pa->y + pb->y);
}

static PyObject *
Point_get_x(PyObject *self, void *Py_UNUSED(closure))
{
    return PyFloat_FromDouble(((PointObject *)self)->x);
}

static PyObject *
Point_get_y(PyObject *self, void *Py_UNUSED(closure))
{
    return PyFloat_FromDouble(((PointObject *)self)->y);
}

static PyGetSetDef Point_getset[] = {
    {"x", Point_get_x, NULL, "the x coordinate", NULL},
    {"y", Point_get_y, NULL, "the y coordinate", NULL},
    {NULL}
};

static PyNumberMethods Point_as_number = {
    .nb_add = Point_add,
};

static PyTypeObject Point_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_micro_stock.Point",
    .tp_doc = "Point(x, y): two doubles; + adds them component-wise.",
    .tp_basicsize = sizeof(PointObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Point_tp_new,
    .tp_dealloc = Point_dealloc,
    .tp_as_number = &Point_as_number,
    .tp_getset = Point_getset,
};

/* ------------------------------------------------------------------ */
/* Module                                                               */
/* ------------------------------------------------------------------ */

static PyMethodDef micro_methods[] = {
    {"noargs", noargs, METH_NOARGS, "noargs() -> None"},
    {"identity", identity, METH_O, "identity(o) -> o"},
    {"long_inc", long_inc, METH_O, "long_inc(n) -> n + 1 in C long arithmetic"},
    {"add_doubles", (PyCFunction)(void (*)(void))add_doubles, METH_FASTCALL,
     "add_doubles(a, b) -> a + b as doubles"},
    {"kwargs", (PyCFunction)(void (*)(void))kwargs, METH_FASTCALL | METH_KEYWORDS,
     "kwargs(a, b, c=0, d=0) -> a + b + c + d as C longs"},
    {"parsetuple_long_inc", parsetuple_long_inc, METH_VARARGS, "long_inc(n) with PyArg_ParseTuple"},
    {"parsetuple_add_doubles", parsetuple_add_doubles, METH_VARARGS,
     "add_doubles(a, b) with PyArg_ParseTuple"},
    {"parsetuple_kwargs", (PyCFunction)(void (*)(void))parsetuple_kwargs, METH_VARARGS | METH_KEYWORDS,
     "kwargs(a, b, c=0, d=0) with PyArg_ParseTupleAndKeywords"},
    {"tuple3", (PyCFunction)(void (*)(void))tuple3, METH_FASTCALL,
     "tuple3(a, b, c) -> (a, b, c)"},
    {"call_callback", (PyCFunction)(void (*)(void))call_callback, METH_FASTCALL,
     "call_callback(f, x) -> f(x)"},
    {"sum_list", sum_list, METH_O, "sum_list(lst) -> sum of a list of ints as a C long"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef micro_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_micro_stock",
    .m_doc = "Cystck micro-benchmarks: stock C API variant.",
    .m_size = -1,
    .m_methods = micro_methods,
};

PyMODINIT_FUNC
PyInit__micro_stock(void)
{
    for (int i = 0; i < KWARGS_NPARAMS; i++) {
        if (kwargs_interned[i] == NULL) {
            kwargs_interned[i] = PyUnicode_InternFromString(kwargs_names[i]);
            if (kwargs_interned[i] == NULL)
                return NULL;
        }
    }
    if (PyType_Ready(&Point_Type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&micro_module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Point", (PyObject *)&Point_Type) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
