"""A type's name read through a handle (``tp->tp_name``, a heap type's
``((PyHeapTypeObject *)tp)->ht_name`` and ``ht_qualname``): the
type-name-reads rule ports the reads, so a helper that reads nothing else
of the object structs is translated instead of kept stock, and its callers
lend it nothing through the escape hatch.  Stores and the other members
stay (and keep such a helper stock)."""
import re

from cystck.migrate import translate
from cystck.migrate.rules.escape import MARK

SHORT_NAME = ("static const char *\nshort_name(PyObject *obj)\n{\n"
              "    PyTypeObject *tp = Py_TYPE(obj);\n    const char *dot;\n"
              "    if (PyType_HasFeature(tp, Py_TPFLAGS_HEAPTYPE)) {\n"
              "        PyObject *name = ((PyHeapTypeObject *)tp)->ht_name;\n"
              "        if (PyUnicode_IS_ASCII(name))\n"
              "            return (const char *)PyUnicode_DATA(name);\n"
              "        return tp->tp_name;\n    }\n"
              "    dot = strrchr(tp->tp_name, '.');\n"
              "    return dot == NULL ? tp->tp_name : dot + 1;\n}\n")
CALLER = ("static PyObject *\nf(PyObject *self, PyObject *o)\n{\n"
          "    PyErr_Format(PyExc_TypeError, \"not %.100s\", short_name(o));\n    return NULL;\n}\n")


def _body(out, name):
    """The definition of function `name` (the first mention: defined before use)."""
    return out[re.search(rf"\b{name}\(", out).start():].split("\n}\n")[0]


def test_a_helper_reading_type_names_is_translated_and_lent_nothing():
    out = translate.translate_source("#include <Python.h>\n" + SHORT_NAME + CALLER, "m.c")
    assert MARK not in out
    body = _body(out, "short_name")
    assert "Cystck_State *S, Cystck_Object obj)" in body
    assert "CystckType_HasFeature(S, tp, Py_TPFLAGS_HEAPTYPE)" in body
    assert "Cystck_Object name = CystckType_GetNameObject(S, tp);" in body
    assert "return CystckType_GetName(S, tp);" in body
    assert "strrchr(CystckType_GetName(S, tp), '.')" in body
    assert "short_name(S, o)" in _body(out, "f")


def test_qualified_name_and_cast_reads():
    src = ("#include <Python.h>\n"
           "static PyObject *q(PyObject *self, PyObject *t)\n{\n"
           "    if (!PyType_Check(t))\n        return NULL;\n"
           "    PyObject *r = ((PyHeapTypeObject *)t)->ht_qualname;\n"
           "    if (strcmp(((PyTypeObject *)t)->tp_name, \"x\") == 0)\n        return NULL;\n"
           "    Py_INCREF(r);\n    return r;\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "CystckType_GetQualName(S, t)" in out
    assert "strcmp(CystckType_GetName(S, t), \"x\")" in out
    assert MARK not in out


def test_stores_and_other_members_stay_and_keep_the_helper_stock():
    src = ("#include <Python.h>\n"
           "static void rename_type(PyTypeObject *tp, PyObject *n)\n{\n"
           "    ((PyHeapTypeObject *)tp)->ht_name = n;\n    tp->tp_name = \"renamed\";\n}\n"
           "static const char *home(PyObject *obj)\n{\n"
           "    PyTypeObject *tp = Py_TYPE(obj);\n"
           "    PyObject *m = ((PyHeapTypeObject *)tp)->ht_module;\n"
           "    return m ? tp->tp_name : PyLong_Type.tp_name;\n}\n"
           "static PyObject *f(PyObject *self, PyObject *o)\n{\n"
           "    rename_type(Py_TYPE(o), o);\n"
           "    return PyUnicode_FromString(home(o));\n}\n")
    out = translate.translate_source(src, "m.c")
    assert "((PyHeapTypeObject *)tp)->ht_name = n;" in out
    assert "tp->tp_name = \"renamed\";" in out
    home = _body(out, "home")
    assert "home(PyObject *obj)" in out           # stays stock: it reads ht_module
    assert "((PyHeapTypeObject *)tp)->ht_module" in home and "return m ? tp->tp_name : PyLong_Type.tp_name;" in home
    assert "Cystck" not in home
    assert "home(Cystck_AsPyObject(S, o))" in out


def test_translating_again_changes_nothing():
    once = translate.translate_source("#include <Python.h>\n" + SHORT_NAME + CALLER, "m.c")
    assert translate.translate_source(once, "m.c") == once
