"""A reference taken through an alias that the code releases later gets a
handle of its own where the alias is assigned: a handle member of a plain
struct, ``job.cb = arg; Py_INCREF(job.cb); ... Py_DECREF(job.cb);``
(before: ``Cystck_Drop`` of the argument's handle), and a local assigned
before handle declarations, ``PyObject *x = arg; PyObject *r;
Py_INCREF(x);``.  A macro that is a new reference to its argument,
``#define NEWREF(o) (Py_INCREF(o), (o))``, is written out at its uses as
the comma-incref idiom (before: the increment stayed in the macro and did
not compile).  A member reached through an indexed member,
``b.jobs[0].cb == NULL``, is a handle test.  The translation builds and
behaves as the stock build, reference counts included, in release and
with CYSTCK_DEBUG=1 (which raises on a release of the argument's
handle)."""
import pytest

from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NEWREF(o) (Py_INCREF(o), (o))
#define FIRST(o) (PyTuple_Size(o), (o))

typedef struct { PyObject *cb; int n; } job_t;
typedef struct { job_t jobs[2]; int n; } batch_t;
typedef struct { PyObject *cb; } holder_t;
static holder_t H;

static PyObject *
run(PyObject *self, PyObject *arg)
{
    job_t job;
    PyObject *r;
    job.cb = arg;
    Py_INCREF(job.cb);
    r = PyObject_CallNoArgs(job.cb);
    Py_DECREF(job.cb);
    return r;
}

static PyObject *
run_local(PyObject *self, PyObject *arg)
{
    PyObject *x = arg;
    PyObject *r;
    Py_INCREF(x);
    r = PyObject_CallNoArgs(x);
    Py_DECREF(x);
    return r;
}

static PyObject *
kind(PyObject *self, PyObject *arg)
{
    job_t job;
    job.cb = Py_None;
    Py_INCREF(job.cb);
    if (PyCallable_Check(arg))
        job.cb = arg;
    return PyObject_Repr(job.cb);
}

static PyObject *
hold(PyObject *self, PyObject *arg)
{
    Py_XDECREF(H.cb);
    H.cb = arg;
    Py_INCREF(H.cb);
    Py_RETURN_NONE;
}

static PyObject *
batch(PyObject *self, PyObject *arg)
{
    batch_t b;
    b.jobs[0].cb = arg;
    b.jobs[1].cb = NULL;
    if (b.jobs[0].cb == NULL || b.jobs[1].cb != NULL)
        return NULL;
    return PyObject_CallNoArgs(b.jobs[0].cb);
}

static PyObject *
pair(PyObject *self, PyObject *arg)
{
    PyObject *t = PyTuple_New(2);
    if (t == NULL)
        return NULL;
    PyTuple_SET_ITEM(t, 0, NEWREF(arg));
    PyTuple_SET_ITEM(t, 1, NEWREF(arg));
    return FIRST(t);
}

static PyObject *
call(PyObject *self, PyObject *arg)
{
    PyObject *f = NEWREF(arg);
    PyObject *r = PyObject_CallNoArgs(f);
    Py_DECREF(f);
    return r;
}

static PyObject *
same(PyObject *self, PyObject *arg)
{
    return NEWREF(arg);
}

static PyMethodDef methods[] = {
    {"run", run, METH_O, NULL},
    {"run_local", run_local, METH_O, NULL},
    {"hold", hold, METH_O, NULL},
    {"kind", kind, METH_O, NULL},
    {"batch", batch, METH_O, NULL},
    {"pair", pair, METH_O, NULL},
    {"same", same, METH_O, NULL},
    {"call", call, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "aliasref", NULL, -1, methods};

PyMODINIT_FUNC PyInit_aliasref(void) { return PyModule_Create(&moddef); }
'''

SCRIPT = r"""
class F:
    def __call__(self):
        return 7

f = F()
base = sys.getrefcount(f)
out = []
for i in range(30):
    out.append((m.run(f), m.run_local(f), m.batch(f), m.same(f) is f, m.pair(f) == (f, f), m.call(f),
                m.kind(1)))
out = [out[0]]
out.append(sys.getrefcount(f) - base)
m.hold(f); m.hold(f)
out.append(sys.getrefcount(f) - base)
print(out)
"""
EXPECTED = [(7, 7, 7, True, True, 7, 'None'), 0, 1]


def test_a_reference_taken_through_an_alias_is_a_handle_of_its_own():
    out = translate.translate_source(SRC)
    assert "    job.cb = Cystck_Dup(S, arg);\n    r = CystckObject_CallNoArgs(S, job.cb);\n" in out
    assert "    Cystck_Object x = Cystck_Dup(S, arg);\n    Cystck_Object r;\n" in out
    assert "if (Cystck_IsNull(b.jobs[0].cb) || !Cystck_IsNull(b.jobs[1].cb))" in out
    # negative: a member never released later keeps the plain store
    assert "    job.cb = Cystck_None;\n    if (CystckCallable_Check(S, arg))\n" in out


def test_a_new_reference_macro_is_written_out_at_its_uses():
    out = translate.translate_source(SRC)
    assert "CystckTuple_SET_ITEM(S, t, 0, Cystck_Dup(S, arg));" in out
    assert "Cystck_Object f = Cystck_Dup(S, arg);" in out
    assert "static int\nsame(Cystck_State *S, Cystck_Object self, Cystck_Object arg)\n{\n" \
           "    return Cystck_Return(S, arg);\n}\n" in out
    # negative: the definition stays (for functions kept stock), and so do
    # another macro's uses
    assert "#define NEWREF(o) (Py_INCREF(o), (o))\n" in out
    assert "FIRST(t)" in out


def test_a_reference_member_keeps_its_store():
    # negative: H's members are references, the store takes its own
    out = translate.translate_source(SRC)
    hold = out[out.index("hold(Cystck_State"):out.index("batch(Cystck_State")]
    assert "H.cb = cystck_migrate_xref(S, new_);" in hold and "Cystck_Dup" not in hold


def test_a_new_reference_macro_in_a_function_kept_stock_stays():
    src = ("#include <Python.h>\n#define NEWREF(o) (Py_INCREF(o), (o))\n"
           "static void destroy(PyObject *capsule)\n{\n    PyObject *c = NEWREF(capsule);\n    Py_DECREF(c);\n}\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    return PyCapsule_New(NULL, \"n\", destroy);\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "PyObject *c = NEWREF(capsule);" in out


def test_translating_the_translation_changes_nothing():
    out = translate.translate_source(SRC)
    assert translate.translate_source(out) == out


@pytest.fixture(scope="module")
def built(stock_and_translated):
    return stock_and_translated("aliasref", SRC)


def test_stock_build(built, run_script):
    assert run_script(SCRIPT, built[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translation_behaves_like_the_stock_build(built, run_script, debug):
    assert run_script(SCRIPT, built[1], debug) == EXPECTED
