"""The kwargs-dict rule when the helper that gets ``kw`` has calls among its
earlier arguments."""
from cystck.migrate import translate

STRUCT = ("#include <Python.h>\n"
          "typedef struct { PyObject_HEAD long id; } Mut;\n"
          "static PyTypeObject Mut_Type;\n"
          "static int merge(long id, PyObject *self, PyObject *src) { return PyObject_SetAttrString(self, \"x\", src); }\n")


def _method(call):
    return (STRUCT +
            "static PyObject *upd(Mut *self, PyObject *args, PyObject *kwds)\n{\n"
            f"    if (kwds != NULL && {call})\n        return NULL;\n    Py_RETURN_NONE;\n}}\n"
            "static PyMethodDef m[] = {{\"upd\", (PyCFunction)upd, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n")


def _starts_with_the_dict(out):
    body = out[out.index("upd(Cystck_State"):]
    return body.split("{", 1)[1].lstrip().startswith("if (cystck_migrate_kwargs_dict(S, args, nargs, &kwds) < 0)")


def test_keywords_given_to_a_helper_after_a_field_read_are_the_dict():
    # before: the helper's earlier argument reads a field through a call
    # (``Mut_AsStruct(S, self)->id``), and kw stayed the names tuple, which
    # the helper then read as a dict (a SystemError at run time)
    out = translate.translate_source(_method("merge(self->id, (PyObject *)self, kwds) < 0"))
    assert "merge(S, Mut_AsStruct(S, self)->id, self, kwds)" in out
    assert _starts_with_the_dict(out)


def test_keywords_inside_a_nested_call_given_to_another_method_stay_the_names():
    # negative: kw given on to another method (not a helper), even past an
    # argument with calls, stays the names tuple
    text = (STRUCT +
            "static PyObject *upd(Mut *self, PyObject *args, PyObject *kwds)\n{\n    return PyTuple_New(0);\n}\n"
            "static PyObject *other(Mut *self, PyObject *args, PyObject *kwds)\n{\n"
            "    return upd((Mut *)PyTuple_GetItem(args, 0), args, kwds);\n}\n"
            "static PyMethodDef m[] = {{\"upd\", (PyCFunction)upd, METH_VARARGS | METH_KEYWORDS, NULL},\n"
            "    {\"other\", (PyCFunction)other, METH_VARARGS | METH_KEYWORDS, NULL}, {NULL}};\n")
    out = translate.translate_source(text)
    other = out[out.index("other(Cystck_State"):]
    assert "cystck_migrate_kwargs_dict" not in other.split("}")[0]
