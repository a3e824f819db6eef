/* datetime's C API: type checks, field accessors and constructors
 * (tests/runtime/test_datetime_ported.py translates it). */
#include <Python.h>
#include <datetime.h>

/* (kind, fields...) of a date, datetime or time; None for anything else */
static PyObject *
fields(PyObject *self, PyObject *o)
{
    if (PyDateTime_Check(o))
        return Py_BuildValue("(siiiiiii)", "datetime", PyDateTime_GET_YEAR(o), PyDateTime_GET_MONTH(o),
                             PyDateTime_GET_DAY(o), PyDateTime_DATE_GET_HOUR(o), PyDateTime_DATE_GET_MINUTE(o),
                             PyDateTime_DATE_GET_SECOND(o), PyDateTime_DATE_GET_MICROSECOND(o));
    if (PyDate_Check(o))
        return Py_BuildValue("(siii)", "date", PyDateTime_GET_YEAR(o), PyDateTime_GET_MONTH(o),
                             PyDateTime_GET_DAY(o));
    if (PyTime_Check(o))
        return Py_BuildValue("(siiii)", "time", PyDateTime_TIME_GET_HOUR(o), PyDateTime_TIME_GET_MINUTE(o),
                             PyDateTime_TIME_GET_SECOND(o), PyDateTime_TIME_GET_MICROSECOND(o));
    Py_RETURN_NONE;
}

/* date(y, m, d), datetime(y, m, d, H, M, S, us) or time(H, M, S, us) by argument count */
static PyObject *
make(PyObject *self, PyObject *args)
{
    int a[7] = {0};
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (!PyArg_ParseTuple(args, "|iiiiiii", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6]))
        return NULL;
    if (n == 3)
        return PyDate_FromDate(a[0], a[1], a[2]);
    if (n == 4)
        return PyTime_FromTime(a[0], a[1], a[2], a[3]);
    return PyDateTime_FromDateAndTime(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
}

/* timedelta(days, seconds, microseconds) */
static PyObject *
delta(PyObject *self, PyObject *args)
{
    int d, s, us;
    if (!PyArg_ParseTuple(args, "iii", &d, &s, &us))
        return NULL;
    return PyDelta_FromDSU(d, s, us);
}

static PyMethodDef methods[] = {
    {"fields", fields, METH_O, NULL},
    {"make", make, METH_VARARGS, NULL},
    {"delta", delta, METH_VARARGS, NULL},
    {NULL, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return NULL;
    return PyModule_Create(&moduledef);
}
