"""loop-release and a loop that carries a handle from one iteration to
the next: an accumulator (``tmp = PyNumber_Add(acc, item); Py_DECREF(acc);
acc = tmp;``, or ``old = acc; acc = PyNumber_Multiply(acc, x);
Py_DECREF(old);``).  The rule left such a loop alone (``acc`` outlives
its iteration, a plain mark would release it), and a dropped handle's
slot is not reused, so summing more than 2^20 items raised MemoryError
(the handle limit) where the stock extension succeeds.  The loop is
marked now and its condition starts with
``Cystck_ReleaseSinceKeep(S, &mark, &acc)``: what the previous iteration made
is released but the carried object, which a new handle holds.  Left
alone: two carried handles, one not set before the loop (read first where
a flag says it was written), one whose address a call gets.  Stock and
translated builds compared at a small handle limit, release and debug."""
from cystck.migrate import translate

SOURCE = r'''#include <Python.h>

static PyObject *
total(PyObject *self, PyObject *iterable)
{
    PyObject *it, *item, *acc, *tmp;
    it = PyObject_GetIter(iterable);
    if (it == NULL)
        return NULL;
    acc = PyLong_FromLong(0);
    if (acc == NULL) {
        Py_DECREF(it);
        return NULL;
    }
    while ((item = PyIter_Next(it)) != NULL) {
        tmp = PyNumber_Add(acc, item);
        Py_DECREF(item);
        Py_DECREF(acc);
        acc = tmp;
        if (acc == NULL)
            break;
    }
    Py_DECREF(it);
    if (acc == NULL || PyErr_Occurred()) {
        Py_XDECREF(acc);
        return NULL;
    }
    return acc;
}

static PyObject *
product(PyObject *self, PyObject *seq)
{
    Py_ssize_t i, n = PySequence_Size(seq);
    PyObject *acc = PyLong_FromLong(1);
    if (n < 0 || acc == NULL) {
        Py_XDECREF(acc);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        PyObject *x = PySequence_GetItem(seq, i);
        PyObject *old = acc;
        if (x == NULL) {
            Py_DECREF(acc);
            return NULL;
        }
        acc = PyNumber_Multiply(acc, x);
        Py_DECREF(old);
        Py_DECREF(x);
        if (acc == NULL)
            return NULL;
    }
    return acc;
}

static PyObject *
longest(PyObject *self, PyObject *seq)
{
    Py_ssize_t i, n = PySequence_Size(seq);
    PyObject *best = Py_None;
    Py_INCREF(best);
    for (i = 0; i < n; i++) {
        PyObject *s = PyObject_Str(PySequence_GetItem(seq, i));
        if (s == NULL) {
            Py_DECREF(best);
            return NULL;
        }
        if (best == Py_None || PyUnicode_GET_LENGTH(s) > PyUnicode_GET_LENGTH(best)) {
            Py_SETREF(best, s);
        }
        else
            Py_DECREF(s);
    }
    return best;
}

static PyMethodDef methods[] = {
    {"total", total, METH_O, NULL},
    {"product", product, METH_O, NULL},
    {"longest", longest, METH_O, NULL},
    {NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    return PyModule_Create(&moduledef);
}
'''

SCRIPT = r'''
class Bad:
    def __add__(self, other):
        raise ValueError("no adding")
    __radd__ = __add__
print(repr((m.total(range(300)), m.total([1.5] * 300), m.total([]), outcome(m.total, [1, Bad(), 2]),
            outcome(m.total, 5), m.product([1, 2, 3] * 100) == 6 ** 100, m.product([]),
            outcome(m.product, [2, "x"] * 3), m.longest([1, 22, 333, 4444] * 100), m.longest([]),
            sys.getrefcount(m.total(range(1000, 1300))))))
'''


def test_a_loop_carrying_an_accumulator_releases_all_else(stock_and_translated, run_script):
    stock, ported = stock_and_translated("loopcarried", SOURCE.replace("NAME", "loopcarried"))
    want = run_script(SCRIPT, stock)
    assert want[:3] == (44850, 450.0, 0) and want[3] == ("ValueError", "no adding")
    for debug in (False, True):
        assert run_script(SCRIPT, ported, debug=debug, env={"CYSTCK_HANDLE_LIMIT": "64"}) == want


def _loop_of(out, name, end):
    return out[out.index(f"\n{name}("):out.index(end)]


def test_the_carried_handle_is_kept_by_the_release():
    out = translate.translate_source(SOURCE.replace("NAME", "loopcarried"), "loopcarried.c")
    assert "(Cystck_ReleaseSinceKeep(S, &cystck_mark_, &acc), " in _loop_of(out, "total", "\nproduct(")
    assert "(Cystck_ReleaseSinceKeep(S, &cystck_mark_, &acc), " in _loop_of(out, "product", "\nlongest(")
    assert "(Cystck_ReleaseSinceKeep(S, &cystck_mark_, &best), " in _loop_of(out, "longest", "CYSTCK_DEF_METH")


LEFT_ALONE = r'''#include <Python.h>

static int add_into(PyObject **acc, PyObject *item);

static PyObject *
bounds(PyObject *self, PyObject *seq)
{
    Py_ssize_t i, n = PySequence_Size(seq);
    PyObject *lo = Py_None, *hi = Py_None;
    for (i = 0; i < n; i++) {
        PyObject *x = PySequence_GetItem(seq, i);
        if (x == NULL)
            return NULL;
        if (lo == Py_None || PyObject_RichCompareBool(x, lo, Py_LT) == 1)
            lo = x;
        if (hi == Py_None || PyObject_RichCompareBool(x, hi, Py_GT) == 1)
            hi = x;
    }
    return PyTuple_Pack(2, lo, hi);
}

static PyObject *
first_sum(PyObject *self, PyObject *seq)
{
    Py_ssize_t i, n = PySequence_Size(seq);
    PyObject *acc;
    int have = 0;
    for (i = 0; i < n; i++) {
        PyObject *x = PySequence_GetItem(seq, i);
        if (x == NULL)
            return NULL;
        if (have) {
            PyObject *t = PyNumber_Add(acc, x);
            Py_DECREF(acc);
            acc = t;
        }
        else {
            acc = x;
            have = 1;
        }
    }
    return have ? acc : PyLong_FromLong(0);
}

static PyObject *
summed(PyObject *self, PyObject *seq)
{
    Py_ssize_t i, n = PySequence_Size(seq);
    PyObject *acc = PyLong_FromLong(0);
    for (i = 0; i < n; i++) {
        PyObject *x = PySequence_GetItem(seq, i);
        if (x == NULL || add_into(&acc, x) < 0)
            return NULL;
        acc = PyNumber_Positive(acc);
    }
    return acc;
}

static PyMethodDef methods[] = {
    {"bounds", bounds, METH_O, NULL},
    {"first_sum", first_sum, METH_O, NULL},
    {"summed", summed, METH_O, NULL},
    {NULL}
};
'''


def test_two_carried_handles_one_unset_before_or_given_by_address_stay_unmarked():
    out = translate.translate_source(LEFT_ALONE, "carried.c")
    assert "Cystck_Mark" not in _loop_of(out, "bounds", "\nfirst_sum(")
    assert "Cystck_Mark" not in _loop_of(out, "first_sum", "\nsummed(")
    assert "Cystck_Mark" not in _loop_of(out, "summed", "CYSTCK_DEF_METH")


RAISES = r'''#include <Python.h>

static PyObject *
check_positive(PyObject *self, PyObject *args)
{
    Py_ssize_t i;
    for (i = 0; i < PyTuple_GET_SIZE(args); i++) {
        if (PyLong_AsLong(PyTuple_GET_ITEM(args, i)) <= 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "argument %zd is not positive", i);
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyObject *
first_bad(PyObject *self, PyObject *args)
{
    Py_ssize_t i;
    for (i = 0; i < PyTuple_GET_SIZE(args); i++) {
        if (PyObject_Not(PyTuple_GET_ITEM(args, i)) == 1) {
            PyErr_SetObject(PyExc_ValueError, PyLong_FromSsize_t(i));
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyObject *
last_repr(PyObject *self, PyObject *args)
{
    Py_ssize_t i;
    PyObject *last = NULL;
    for (i = 0; i < PyTuple_GET_SIZE(args); i++) {
        if (PyObject_IsTrue(PyTuple_GET_ITEM(args, i)))
            last = PyObject_Repr(PyTuple_GET_ITEM(args, i));
    }
    return last;
}

static PyMethodDef methods[] = {
    {"check_positive", check_positive, METH_VARARGS, NULL},
    {"first_bad", first_bad, METH_VARARGS, NULL},
    {"last_repr", last_repr, METH_VARARGS, NULL},
    {NULL}
};
'''


def test_a_loop_that_only_raises_on_its_way_out_is_no_loop_overflow():
    """An exception raised where the function returns (``PyErr_Format(...);
    return NULL;``, or a value made for it then) is made once per call,
    not per iteration: no loop-overflow warning.  A handle made per
    iteration and kept (a loop loop-release leaves alone) still is one."""
    from cystck.migrate import analysis
    unit = translate.translate_files({"m.c": RAISES})["m.c"]
    lines = [n.line for n in analysis.analyse(unit) if n.kind == "loop-overflow"]
    last = unit.text[:unit.text.index("\nlast_repr(")].count("\n") + 1
    assert len(lines) == 1 and lines[0] > last, (lines, unit.text)
