"""A static subtype of a type another C API exports (datetime's tzinfo),
its slots stored in the init before PyType_Ready, instances cached in a
static array filled on first use, the UTC object of datetime's capsule,
a datetime's fields read through its struct, and objects a macro body
declares: the untouched translation builds (--check) and behaves as the
stock build, in release and with CYSTCK_DEBUG=1.  Before, it did not
compile (the stores into the type, the cast of a handle to
PyDateTime_DateTime *, the macro's PyObject * locals initialised by
Cystck calls, Cystck_ref of the stock UTC pointer)."""

import pytest

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <structmember.h>

typedef struct { PyObject_HEAD int minutes; } Offset;

static PyObject *utc;
static PyObject *cache[8] = {NULL};

#define FAIL_AT(s)                                                   \
    {                                                                \
        PyObject *text = PyUnicode_FromString(s);                    \
        PyObject *first = PyUnicode_Substring(text, 0, 1);           \
        PyErr_Format(PyExc_ValueError, "bad character '%U'", first); \
        Py_DECREF(text);                                             \
        Py_DECREF(first);                                            \
        return NULL;                                                 \
    }

static int
Offset_init(Offset *self, PyObject *args, PyObject *kwargs)
{
    int minutes;
    if (!PyArg_ParseTuple(args, "i", &minutes))
        return -1;
    self->minutes = minutes;
    return 0;
}

static PyObject *
Offset_utcoffset(Offset *self, PyObject *dt)
{
    return PyDelta_FromDSU(0, 60 * self->minutes, 0);
}

static PyObject *
Offset_is_mine(Offset *self, PyObject *o)
{
    if (!PyDateTime_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "a datetime");
        return NULL;
    }
    PyDateTime_DateTime *dt = (PyDateTime_DateTime *)o;
    return PyBool_FromLong(dt->hastzinfo && dt->tzinfo == (PyObject *)self);
}

static PyObject *
Offset_getinitargs(Offset *self, PyObject *unused)
{
    return Py_BuildValue("(i)", self->minutes);
}

static PyMemberDef Offset_members[] = {{"minutes", T_INT, offsetof(Offset, minutes), 0, NULL}, {NULL}};
static PyMethodDef Offset_methods[] = {
    {"utcoffset", (PyCFunction)Offset_utcoffset, METH_O, NULL},
    {"is_mine", (PyCFunction)Offset_is_mine, METH_O, NULL},
    {"__getinitargs__", (PyCFunction)Offset_getinitargs, METH_NOARGS, NULL},
    {NULL}};

static PyTypeObject OffsetType = {
    PyVarObject_HEAD_INIT(NULL, 0) "stz.Offset",
    sizeof(Offset),
    0,
};

static PyObject *
new_offset(int minutes)
{
    Offset *self = (Offset *)(OffsetType.tp_alloc(&OffsetType, 0));
    if (self != NULL)
        self->minutes = minutes;
    return (PyObject *)self;
}

static PyObject *
zone(PyObject *self, PyObject *arg)
{
    PyObject *tz;
    const char *s = PyUnicode_AsUTF8(arg);
    if (s == NULL)
        return NULL;
    if (*s == 'Z')
        return Py_NewRef(utc);
    if (*s < '1' || *s > '8')
        FAIL_AT(s)
    if ((tz = cache[*s - '1']) == NULL) {
        tz = new_offset(60 * (*s - '0'));
        if (tz == NULL)
            return NULL;
        cache[*s - '1'] = tz;
    }
    return Py_NewRef(tz);
}

static PyMethodDef methods[] = {{"zone", zone, METH_O, NULL}, {NULL}};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "stz", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_stz(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    PyDateTime_IMPORT;
    OffsetType.tp_new = PyType_GenericNew;
    OffsetType.tp_base = PyDateTimeAPI->TZInfoType;
    OffsetType.tp_methods = Offset_methods;
    OffsetType.tp_members = Offset_members;
    OffsetType.tp_init = (initproc)Offset_init;
    if (PyType_Ready(&OffsetType) < 0)
        return NULL;
    Py_INCREF(&OffsetType);
    if (PyModule_AddObject(m, "Offset", (PyObject *)&OffsetType) < 0)
        return NULL;
    utc = PyDateTime_TimeZone_UTC;
    return m;
}
'''

SCRIPT = r'''
import datetime, pickle
out = []
def attempt(f, *a):
    try:
        return repr(f(*a))
    except Exception as e:
        return (type(e).__name__, str(e))
a, b = m.zone("3"), m.zone("3")
out.append((a is b, a.minutes, isinstance(a, datetime.tzinfo), [c.__name__ for c in type(a).__mro__]))
out.append((m.zone("Z") is datetime.timezone.utc, attempt(m.zone, "x"), attempt(m.zone, "9")))
d = datetime.datetime(2020, 1, 1, 12, tzinfo=a)
out.append((str(d), d.utcoffset().total_seconds(), a.is_mine(d), m.zone("4").is_mine(d),
            a.is_mine(datetime.datetime(2020, 1, 1)), attempt(a.is_mine, 5)))
o = m.Offset(90)
out.append((o.minutes, str(datetime.datetime(2020, 1, 1, tzinfo=o)), attempt(m.Offset), attempt(m.Offset, "x")))
out.append(pickle.loads(pickle.dumps(m.Offset(5))).minutes)
print(out)
'''


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("stz", SRC)


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    expected = run_script(SCRIPT, built[0])
    assert expected[0] == (True, 180, True, ["Offset", "tzinfo", "object"])
    assert run_script(SCRIPT, built[1], debug) == expected
