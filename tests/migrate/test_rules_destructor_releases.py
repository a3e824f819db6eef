"""What a stock destructor releases besides the object: a free of a member
(``PyObject_Free(self->buf)``) is native memory the destructor goes on
freeing, only a free of the object itself goes (the runtime frees it)."""
from cystck.migrate import translate

HEAD = ("#include <Python.h>\n"
        "typedef struct { PyObject_HEAD PyObject *items; char *buf; } Bag;\n"
        "static PyObject *\nBag_empty(Bag *self)\n{\n    PyDict_Clear(self->items);\n    Py_RETURN_NONE;\n}\n")
TYPE = ("static PyMethodDef Bag_methods[] = {\n    {\"empty\", (PyCFunction)Bag_empty, METH_NOARGS, NULL},\n"
        "    {NULL, NULL},\n};\n"
        "static PyTypeObject BagType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Bag\",\n"
        "    .tp_basicsize = sizeof(Bag),\n    .tp_dealloc = (destructor)Bag_dealloc,\n"
        "    .tp_flags = Py_TPFLAGS_DEFAULT,\n    .tp_methods = Bag_methods,\n};\n")


def _dealloc(body, param="Bag *self"):
    return HEAD + f"static void\nBag_dealloc({param})\n{{\n{body}}}\n" + TYPE


def _destructor(out):
    return out[out.index("static void\nBag_dealloc(void"):out.index("CYSTCK_DEF_METH")]


def test_a_member_freed_by_the_object_allocator_stays_freed():
    """Before: PyObject_Free(self->buf) went as if it freed the object,
    and the buffer leaked.  After: it stays; the object's own free goes."""
    out = translate.translate_source(_dealloc("    PyObject_Free(self->buf);\n    PyObject_Free(self);\n"), "m.c")
    assert _destructor(out) == ("static void\nBag_dealloc(void *data)\n{\n    Bag *self = (Bag *)data;\n"
                                "    PyObject_Free(self->buf);\n}\n")


def test_a_local_pointing_at_a_member_is_no_alias_of_the_object():
    out = translate.translate_source(_dealloc("    char *b = self->buf;\n    PyObject_Del(b);\n"
                                              "    PyObject_Del((PyObject *)self);\n"), "m.c")
    assert "    char *b = self->buf;\n    PyObject_Del(b);\n}\n" in _destructor(out)
    assert "PyObject_Del((PyObject" not in out


def test_frees_of_the_object_and_its_aliases_go():
    """Negative: the object itself, under casts or through an alias of
    the parameter, is the runtime's to free."""
    src = _dealloc("    Bag *self = (Bag *)op;\n    PyObject_GC_Del(op);\n    (void)self;\n", param="PyObject *op")
    assert "GC_Del" not in translate.translate_source(src, "m.c")
    src = _dealloc("    Bag *b = (Bag *)self;\n    PyObject_Free((PyObject *)b);\n")
    assert "PyObject_Free" not in translate.translate_source(src, "m.c")


def test_a_member_free_after_an_api_call_stays_in_the_destructor():
    """Before: the destructor became a finalizer whole (its only other
    call used the API), PyObject_Free(self->buf) dropped.  After: it is
    split, the free in the destructor."""
    out = translate.translate_source(_dealloc("    Bag_empty(self);\n    PyObject_Free(self->buf);\n"
                                              "    Py_TYPE(self)->tp_free((PyObject *)self);\n"), "m.c")
    assert "static void\nBag_dealloc_finalize(Cystck_State *S, Cystck_Object self)\n{\n    Bag_empty(S, self);\n}\n" in out
    assert _destructor(out) == ("static void\nBag_dealloc(void *data)\n{\n    Bag *self = (Bag *)data;\n"
                                "    PyObject_Free(self->buf);\n}\n")
