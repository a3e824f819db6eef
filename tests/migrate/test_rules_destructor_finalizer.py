"""A stock destructor that calls a function using the API (a method that
empties the object) becomes the type's finalizer (tp_finalize): it has a
state, keeps its calls and loses the releases the runtime does after it.
A destructor that only releases, or calls a clear function, stays one."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "typedef struct { PyObject_HEAD PyObject *items; PyObject *hook; long n; } Bag;\n"
       "static PyObject *\nBag_empty(Bag *self)\n{\n    PyDict_Clear(self->items);\n    self->n = 0;\n"
       "    Py_RETURN_NONE;\n}\n"
       "static void\nBag_dealloc(Bag *self)\n{\n    if (self->items) {\n        Bag_empty(self);\n"
       "        Py_CLEAR(self->items);\n        Py_XDECREF(self->hook);\n    }\n"
       "    Py_TYPE(self)->tp_free((PyObject *)self);\n}\n"
       "static PyMethodDef Bag_methods[] = {\n    {\"empty\", (PyCFunction)Bag_empty, METH_NOARGS, NULL},\n"
       "    {NULL, NULL},\n};\n"
       "static PyTypeObject BagType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Bag\",\n"
       "    .tp_basicsize = sizeof(Bag),\n    .tp_dealloc = (destructor)Bag_dealloc,\n"
       "    .tp_flags = Py_TPFLAGS_DEFAULT,\n    .tp_methods = Bag_methods,\n};\n")


def test_destructor_calling_the_api_becomes_the_finalizer():
    out = translate.translate_source(SRC, "m.c")
    assert ("static void\nBag_dealloc(Cystck_State *S, Cystck_Object self)\n{\n"
            "    if (!CystckField_IsNull(Bag_AsStruct(S, self)->items)) {\n"
            "        Cystck_PopResult(S, Bag_empty(S, self));\n    }\n}\n") in out
    assert "CYSTCK_DEF_DEALLOC_API(BagType_tp_dealloc, Bag_dealloc)" in out
    assert "&BagType_tp_dealloc," in out
    assert "CYSTCK_DEF_DESTROY" not in out and "tp_free" not in out and "tp_finalize" not in out


def test_finalizer_is_not_reported_as_a_destructor_calling_the_api():
    notes = translate.translate_files({"m.c": SRC})["m.c"].notes
    assert not any("destructor calls" in n.message for n in notes)


def test_destructor_that_only_releases_stays_a_destructor():
    src = SRC.replace("        Bag_empty(self);\n", "")
    out = translate.translate_source(src, "m.c")
    assert "static void\nBag_dealloc(void *data)\n" in out
    assert "CYSTCK_DEF_DESTROY(BagType_tp_dealloc, Bag_dealloc)" in out
    assert "tp_finalize" not in out


def test_destructor_calling_a_native_helper_stays_a_destructor():
    src = SRC.replace("        Bag_empty(self);\n", "        free_buffers(self->n);\n").replace(
        "static void\nBag_dealloc", "static void free_buffers(long n) { (void)n; }\nstatic void\nBag_dealloc")
    out = translate.translate_source(src, "m.c")
    assert "static void\nBag_dealloc(void *data)\n" in out
    assert "        free_buffers(self->n);\n" in out
    assert "tp_finalize" not in out


def test_destructor_also_freeing_native_memory_stays_a_destructor():
    """A finalizer may bring the object back to life, so native memory must
    not be freed there: a destructor calling both stays one, reported."""
    src = SRC.replace("        Bag_empty(self);\n", "        Bag_empty(self);\n        free_buffers(self->n);\n").replace(
        "static void\nBag_dealloc", "static void free_buffers(long n) { (void)n; }\nstatic void\nBag_dealloc")
    result = translate.translate_files({"m.c": src})["m.c"]
    assert "static void\nBag_dealloc(void *data)\n" in result.text
    assert "tp_finalize" not in result.text
    assert [n.message.split(",")[0] for n in result.notes if "destructor calls" in n.message] == \
        ["error: destructor calls Bag_empty"]
