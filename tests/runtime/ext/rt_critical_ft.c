/* Cystck_BEGIN/END_CRITICAL_SECTION as a free-threaded build expands them
 * (tests/runtime/test_critical_sections.py builds this file with
 * -DPy_GIL_DISABLED on an interpreter that has the GIL and no
 * PyCriticalSection): CPython's two lock functions are stand-ins that log
 * each call, so the test sees which object each section locks and that
 * every lock is released. */
#include "Cystck.h"

#ifndef Py_GIL_DISABLED
#error "build with -DPy_GIL_DISABLED"
#endif

typedef struct { PyObject *locked; } PyCriticalSection;
static PyObject *lock_log;     /* a list of ("begin" | "end", object) */

static void log_call(const char *what, PyObject *o)
{
    PyObject *entry = Py_BuildValue("(sO)", what, o);
    if (entry != NULL) {
        PyList_Append(lock_log, entry);
        Py_DECREF(entry);
    }
}

static void PyCriticalSection_Begin(PyCriticalSection *c, PyObject *o)
{
    c->locked = o;
    log_call("begin", o);
}

static void PyCriticalSection_End(PyCriticalSection *c)
{
    log_call("end", c->locked);
}

/* locked(a, b): len(b) read with a's lock held, then b's (nested) */
static int locked(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
{
    Cystck_ssize_t n = -1;
    (void)self;
    if (nargs != 2) {
        CystckErr_SetString(S, CystckExc_TypeError, "locked(a, b)");
        return -1;
    }
    Cystck_BEGIN_CRITICAL_SECTION(S, args[0]);
    Cystck_BEGIN_CRITICAL_SECTION(S, args[1]);
    n = CystckObject_Length(S, args[1]);
    Cystck_END_CRITICAL_SECTION(S);
    Cystck_END_CRITICAL_SECTION(S);
    return n < 0 ? -1 : Cystck_ReturnSsize(S, n);
}

/* A section on the null handle: SystemError, and nothing locked. */
static int locked_null(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    Cystck_BEGIN_CRITICAL_SECTION(S, Cystck_NULL);
    Cystck_END_CRITICAL_SECTION(S);
    return CystckErr_Occurred(S) ? -1 : 0;
}

/* The log of lock calls so far (and a new one started). */
static int take_log(Cystck_State *S, Cystck_Object self)
{
    PyObject *log = lock_log;
    (void)self;
    lock_log = PyList_New(0);
    if (lock_log == NULL) {
        lock_log = log;
        return -1;
    }
    return Cystck_Return(S, Cystck_FromNewPyObject(S, log));
}

CYSTCK_DEF_METH(locked_def, "locked", locked, CYSTCK_VARARGS, NULL)
CYSTCK_DEF_METH(locked_null_def, "locked_null", locked_null, CYSTCK_NOARGS, NULL)
CYSTCK_DEF_METH(take_log_def, "take_log", take_log, CYSTCK_NOARGS, NULL)

static CystckDef *defines[] = {&locked_def, &locked_null_def, &take_log_def, NULL};
static CystckModuleDef moduledef = {"rt_critical_ft", NULL, 0, defines};

CYSTCK_MODINIT(rt_critical_ft)
{
    lock_log = PyList_New(0);
    if (lock_log == NULL)
        return -1;
    return Cystck_Return(S, CystckModule_Create(S, &moduledef));
}
