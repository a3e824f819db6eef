"""The members of a plain struct that a global holds are references
(``Cystck_Ref``); those of another plain struct named alike stay handles
(``Cystck_Object``): which members are references goes by struct, not by
member name.  Before, a struct only locals hold (``job_t job;``) got
``Cystck_Ref`` members because a global's struct has a member of the same
name, and every store into them took a reference that nothing released (a
leak: the object lived forever).  An access is read by the declaration of
its first name (a local, a parameter, a global) and the types of the
members it goes through (``b.jobs[0].cb``, ``bp->first->cb``); one whose
struct is unknown stays a reference, as before.  The translation builds
and behaves as the stock build, objects' reference counts included, in
release and with CYSTCK_DEBUG=1."""

import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct { PyObject *cb; int n; } holder;
static holder H;

/* named like holder's member, only ever on the stack */
typedef struct job_s { PyObject *cb; PyObject *arg; } job_t;
typedef struct { job_t jobs[2]; job_t *first; int n; } batch_t;

static PyObject *
run_job(job_t *j)
{
    return PyObject_CallOneArg(j->cb, j->arg);
}

static PyObject *
set_cb(PyObject *self, PyObject *cb)
{
    Py_INCREF(cb);
    Py_XSETREF(H.cb, cb);
    H.n++;
    Py_RETURN_NONE;
}

static PyObject *
call_cb(PyObject *self, PyObject *arg)
{
    if (H.cb == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "no callback");
        return NULL;
    }
    return PyObject_CallOneArg(H.cb, arg);
}

static PyObject *
call(PyObject *self, PyObject *args)
{
    struct job_s job;
    PyObject *f, *a, *r;
    if (!PyArg_ParseTuple(args, "OO", &f, &a))
        return NULL;
    job.cb = PyObject_GetAttrString(f, "__call__");
    if (job.cb == NULL)
        return NULL;
    job.arg = a;
    r = run_job(&job);
    Py_DECREF(job.cb);
    return r;
}

static PyObject *
call_twice(PyObject *self, PyObject *args)
{
    batch_t b;
    batch_t *bp = &b;
    PyObject *f, *a, *r1, *r2;
    if (!PyArg_ParseTuple(args, "OO", &f, &a))
        return NULL;
    b.jobs[0].cb = f;
    b.jobs[0].arg = a;
    bp->first = &b.jobs[1];
    bp->first->cb = f;
    bp->first->arg = a;
    if (bp->first->cb == NULL)
        return NULL;
    r1 = run_job(&b.jobs[0]);
    if (r1 == NULL)
        return NULL;
    r2 = run_job(bp->first);
    if (r2 == NULL) {
        Py_DECREF(r1);
        return NULL;
    }
    return Py_BuildValue("NN", r1, r2);
}

static PyMethodDef methods[] = {
    {"set_cb", set_cb, METH_O, NULL},
    {"call_cb", call_cb, METH_O, NULL},
    {"call", call, METH_VARARGS, NULL},
    {"call_twice", call_twice, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "bystruct", NULL, -1, methods};

PyMODINIT_FUNC PyInit_bystruct(void) { return PyModule_Create(&moddef); }
'''

SCRIPT = r"""
def churn():
    return [str(i) for i in range(1000)]

class F:
    def __call__(self, x):
        return x * 2

f, a = F(), [1]
base = sys.getrefcount(f), sys.getrefcount(a)
out = []
for i in range(30):
    out.append(m.call(f, a))
    out.append(m.call_twice(f, a))
out = [out[0], out[1]]
out.append([sys.getrefcount(f) - base[0], sys.getrefcount(a) - base[1]])
m.set_cb(f); churn()
out.append(m.call_cb("ab"))
out.append(sys.getrefcount(f) - base[0])
print(out)
"""
EXPECTED = [[1, 1], ([1, 1], [1, 1]), [0, 0], "abab", 1]


def test_a_struct_no_global_holds_keeps_handles_named_like_references():
    out = translate.translate_source(SRC)
    assert "typedef struct { Cystck_Ref cb; int n; } holder;" in out
    assert "typedef struct job_s { Cystck_Object cb; Cystck_Object arg; } job_t;" in out
    assert '    job.cb = CystckObject_GetAttrString(S, f, "__call__");\n    if (Cystck_IsNull(job.cb))\n' in out
    assert "    Cystck_Drop(S, job.cb);\n" in out
    assert "    b.jobs[0].cb = f;\n    b.jobs[0].arg = a;\n" in out
    assert "    bp->first->cb = f;\n" in out
    assert "if (Cystck_IsNull(bp->first->cb))" in out
    assert "CystckObject_CallOneArg(S, j->cb, j->arg)" in out
    # negative: the global's struct keeps its references
    assert "CystckObject_CallOneArg(S, Cystck_deref(S, H.cb), arg)" in out
    assert "if (H.cb == NULL) {" in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("bystruct", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    # before: job_t's members were references, each call kept f and a
    assert run_script(SCRIPT, built[1], debug) == EXPECTED
