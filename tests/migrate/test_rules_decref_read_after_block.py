"""A new reference made borrowed while a container keeps it, released in
a block and read after it: ``if (PyTuple_Check(t)) { t = resolve(t); if
(t) Py_DECREF(t); } if (t) use(t);`` (cbor2 5.9.0's ``find_encoder``,
the dictionary holding the resolved type; docs/gaps.md T27).  The decref
rule kept the release only when nothing read the variable later in the
same block, so ``Cystck_Drop`` released the handle the code then tested:
a null handle, the resolved entry never used.  A read after the block
now counts too, where the block jumps nowhere and is no loop body.
Stock and translated builds answer alike, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *resolved;

static PyObject *
resolve(PyObject *spec)
{
    PyObject *mod, *r;
    mod = PyImport_Import(PyTuple_GET_ITEM(spec, 0));
    if (mod == NULL)
        return NULL;
    r = PyObject_GetAttr(mod, PyTuple_GET_ITEM(spec, 1));
    Py_DECREF(mod);
    if (r && PyDict_SetItem(resolved, r, spec) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

static PyObject *
first(PyObject *self, PyObject *items)
{
    PyObject *iter, *item, *t, *ret = NULL;
    iter = PyObject_GetIter(items);
    if (iter == NULL)
        return NULL;
    while (!ret && (item = PyIter_Next(iter))) {
        t = item;
        if (PyTuple_Check(t)) {
            t = resolve(item);
            if (t)
                Py_DECREF(t);
        }
        if (t)
            ret = PyObject_Repr(t);
        Py_DECREF(item);
        if (!t)
            break;
    }
    Py_DECREF(iter);
    if (!ret && !PyErr_Occurred())
        ret = Py_NewRef(Py_None);
    return ret;
}

static PyMethodDef methods[] = {
    {"first", first, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "decrefafter", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_decrefafter(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    resolved = PyDict_New();
    if (resolved == NULL || PyModule_AddObject(m, "resolved", resolved) < 0)
        return NULL;
    Py_INCREF(resolved);
    return m;
}
'''


def test_the_release_read_after_its_block_goes():
    out = translate.translate_source(SRC, "decrefafter.c")
    assert "Cystck_Drop(S, t)" not in out
    # the loop's own releases stay: item is read after the loop body only
    # by the loop's test, iter after its release by nothing
    assert "Cystck_Drop(S, item);" in out and "Cystck_Drop(S, iter);" in out


def test_a_release_in_a_loop_body_read_after_the_loop_stays():
    """Negative: the block is a loop body; its release keeps the loop flat
    (the read after the loop sees the last value's handle, stock too)."""
    src = ("#include <Python.h>\n"
           "static PyObject *f(PyObject *self, PyObject *it)\n{\n"
           "    PyObject *item;\n"
           "    while ((item = PyIter_Next(it))) {\n"
           "        Py_DECREF(item);\n    }\n"
           "    if (item == NULL && PyErr_Occurred())\n        return NULL;\n"
           "    Py_RETURN_NONE;\n}\n")
    out = translate.translate_source(src, "decrefloop.c")
    assert "Cystck_Drop(S, item);" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    script = ("import collections\n"
              "r = [m.first([('collections', 'OrderedDict'), int]) for _ in range(20)]\n"
              "print(repr([r[0], len(set(r)), m.first([str]), m.first([]),\n"
              "            sorted(k.__name__ for k in m.resolved)]))\n")
    want = same_as_stock("decrefafter", SRC, script)
    assert want[0] == "<class 'collections.OrderedDict'>"
