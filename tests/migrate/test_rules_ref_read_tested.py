"""A global (or an element of an array of references) read into a local
whose store is tested, ``if ((x = cache[i]) == NULL)`` (a cache filled on
first use), reads an empty reference as the null handle: Cystck_deref of
an empty reference raises."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\nstatic PyObject *cache[4] = {NULL};\nstatic PyObject *one;\n"
       "static PyObject *get(PyObject *self, PyObject *arg)\n{\n"
       "    long i = PyLong_AsLong(arg) & 3;\n    PyObject *v;\n"
       "%s"
       "    return Py_NewRef(v);\n}\n"
       "static PyMethodDef m[] = {{\"get\", get, METH_O, NULL}, {NULL}};\n")


def test_a_tested_read_of_an_array_element_is_null_safe():
    body = ("    if ((v = cache[i]) == NULL) {\n        v = PyLong_FromLong(i);\n"
            "        if (v == NULL)\n            return NULL;\n        cache[i] = v;\n    }\n")
    out = translate.translate_source(SRC % body, "m.c")
    assert "if (Cystck_IsNull(v = (cache[i] ? Cystck_deref(S, cache[i]) : Cystck_NULL))) {" in out
    assert "cache[i] = Cystck_ref(S, v);" in out


def test_a_tested_read_of_a_global_is_null_safe():
    body = "    if (!(v = one))\n        return NULL;\n"
    out = translate.translate_source(SRC % body, "m.c")
    assert "if (Cystck_IsNull(v = (one ? Cystck_deref(S, one) : Cystck_NULL)))" in out


def test_a_plain_read_stays_a_deref():
    """A read whose value is not tested (the code knows the reference is
    set) stays Cystck_deref, which raises if it is not."""
    body = "    v = cache[i];\n    PyObject_Print(one, stdout, 0);\n"
    out = translate.translate_source(SRC % body, "m.c")
    assert "v = Cystck_deref(S, cache[i]);" in out
    assert "Cystck_deref(S, one)" in out and "one ?" not in out
