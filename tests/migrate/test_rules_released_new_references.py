"""Handles the translation released that the call does not own (bitarray
3.12.3's suite in CYSTCK_DEBUG=1: "Cystck_Drop: the handle is not owned by
this call").

* ``src = (T *) Py_NewRef(other); ... Py_DECREF(src);`` became ``src =
  other; ... Cystck_Drop(S, src);``: a release of the caller's argument
  (an error in debug mode, a no-op in release mode; of an owned handle the
  caller goes on using, a use after release).  A new reference the code
  releases later, or that a helper returns to a caller which releases it,
  is now a handle of its own: ``Cystck_Dup(S, other)`` (``newref``).
* A ``PyDict_Next`` loop whose body takes a reference to the key and the
  value and releases them at its end, ``Py_INCREF(key); ...
  Py_DECREF(key);``, became ``CystckDict_NextInto`` with
  ``Cystck_Drop(S, key)`` in the body: a release of the slot that
  NextInto reuses for the next item.  ``dict-next-into`` checked for
  releases in the stock spelling only, and the ``decref`` rule, which runs
  first, had made them ``Cystck_Drop(S, key)``; now those count too, and
  the loop makes a handle per item, which the body releases.

Stock and translated builds answer alike, in release and with
CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* a dict loop that takes a reference to each item for the body and
   releases it at the end of the body */
static int
count_true(PyObject *d)
{
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    int ret = 0, n = 0;

    while (PyDict_Next(d, &pos, &key, &value)) {
        Py_INCREF(key);
        Py_INCREF(value);
        ret = PyObject_IsTrue(value);
        if (ret > 0 && PyUnicode_Check(key))
            n++;
        Py_DECREF(value);
        Py_DECREF(key);
        if (ret < 0)
            return -1;
    }
    return n;
}

/* the dict itself or a copy, released at the end either way */
static PyObject *
true_keys(PyObject *self, PyObject *d)
{
    PyObject *src;
    int n;

    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "dict expected");
        return NULL;
    }
    if (PyDict_Size(d) > 3)
        src = PyDict_Copy(d);
    else
        src = (PyObject *) Py_NewRef(d);
    if (src == NULL)
        return NULL;
    n = count_true(src);
    Py_DECREF(src);
    if (n < 0)
        return NULL;
    return PyLong_FromLong(n);
}

/* a helper returning a new reference to its argument, which its caller
   releases */
static PyObject *
first_or_self(PyObject *o)
{
    if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) > 0)
        return PyNumber_Negative(PyTuple_GET_ITEM(o, 0));
    return Py_NewRef(o);
}

static PyObject *
negated_or_same(PyObject *self, PyObject *o)
{
    PyObject *r = first_or_self(o);
    PyObject *res;

    if (r == NULL)
        return NULL;
    res = PyTuple_Pack(2, r, o);
    Py_DECREF(r);
    return res;
}

static PyMethodDef methods[] = {
    {"true_keys", true_keys, METH_O, NULL},
    {"negated_or_same", negated_or_same, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "relrefs", NULL, -1, methods};

PyMODINIT_FUNC PyInit_relrefs(void) { return PyModule_Create(&moddef); }
'''


def test_a_new_reference_released_later_is_a_handle_of_its_own():
    out = translate.translate_source(SRC, "relrefs.c")
    assert "src = Cystck_Dup(S, d);" in out
    assert "Cystck_Drop(S, src);" in out


def test_a_helper_returns_a_new_reference_as_a_handle_of_its_own():
    out = translate.translate_source(SRC, "relrefs.c")
    assert "return Cystck_Dup(S, o);" in out


def test_a_new_reference_never_released_is_the_handle_itself():
    out = translate.translate_source(SRC.replace("    Py_DECREF(src);\n", ""), "relrefs.c")
    assert "src = d;" in out


def test_a_dict_loop_that_releases_its_items_makes_a_handle_per_item():
    out = translate.translate_source(SRC, "relrefs.c")
    assert "CystckDict_NextInto" not in out
    assert "CystckDict_Next(S, d, &pos, &key, &value)" in out


def test_a_dict_loop_that_keeps_its_items_reuses_their_slots():
    plain = SRC.replace("        Py_INCREF(key);\n        Py_INCREF(value);\n", "").replace(
        "        Py_DECREF(value);\n        Py_DECREF(key);\n", "")
    out = translate.translate_source(plain, "relrefs.c")
    assert "CystckDict_NextInto(S, d, &pos, &key, &value)" in out


def test_translation_compiles_and_behaves_like_the_stock_build(tmp_path, stock_and_translated_tree,
                                                               run_script):
    stock_dir = tmp_path / "stock"
    stock_dir.mkdir()
    (stock_dir / "relrefs.c").write_text(SRC)
    stock, ported = stock_and_translated_tree("relrefs", stock_dir)
    script = ("out = []\n"
              "small = {'a': 1, 'b': 0, 3: 1}\n"
              "big = {'a': 1, 'b': 0, 'c': 2, 'd': [], 'e': 'x'}\n"
              "for f, a in ((m.true_keys, small), (m.true_keys, big), (m.true_keys, 5),\n"
              "             (m.negated_or_same, (4, 5)), (m.negated_or_same, 'x'), (m.negated_or_same, ('y',))):\n"
              "    try:\n        out.append(f(a))\n"
              "    except Exception as e:\n        out.append((type(e).__name__, str(e)))\n"
              "out.append(small == {'a': 1, 'b': 0, 3: 1})\n"
              "print(repr(out))\n")
    want = run_script(script, stock)
    assert want[:5] == [1, 3, ("TypeError", "dict expected"), (-4, (4, 5)), ("x", "x")]
    assert run_script(script, ported) == want
    assert run_script(script, ported, debug=True) == want
