"""What a stock destructor releases besides the object: a free of a member
(``PyObject_Free(self->buf)``) is native memory the destructor goes on
freeing, only a free of the object itself goes (the runtime frees it); a
finalizer the extension wrote (tp_finalize) is ported, and a deallocator's
part that calls the API runs in tp_dealloc, as stock, for a Python
subclass defining __del__ too (CYSTCK_DEF_DEALLOC)."""
import pathlib
import shutil

import pytest

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
    # a local aliasing another name than the object's
    out = translate.translate_source(_dealloc("    char *b = (char *)spare;\n    PyObject_Free(b);\n"
                                              "    PyObject_Free(self);\n").replace(
        "static void\nBag_dealloc", "static char *spare;\nstatic void\nBag_dealloc"), "m.c")
    assert "    char *b = (char *)spare;\n    PyObject_Free(b);\n}\n" in _destructor(out)


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
    # (a method called as a statement: what it pushed becomes a handle)
    assert ("static void\nBag_dealloc_finalize(Cystck_State *S, Cystck_Object self)\n{\n"
            "    Cystck_PopResult(S, Bag_empty(S, self));\n}\n") in out
    assert _destructor(out) == ("static void\nBag_dealloc(void *data)\n{\n    Bag *self = (Bag *)data;\n"
                                "    PyObject_Free(self->buf);\n}\n")


# Built and run: tests/migrate/corpus/releases, stock and translated, the
# same script in both, in release and with CYSTCK_DEBUG=1.
CORPUS = pathlib.Path(__file__).resolve().parent / "corpus" / "releases"
SCRIPT = """
import gc, tracemalloc
log, out = [], []
def step(*objects):
    out.append((list(log), m.live()))
    log.clear()
b = m.Block(log, 10); del b; step()
c = m.Closer(log); del c; step()
# Python subclasses: one's __del__ replaces the type's finalizer, not its deallocator
class B(m.Block):
    def __del__(self):
        log.append("B __del__")
class C(m.Closer):
    def __del__(self):
        log.append("C __del__")
class Plain(m.Closer):
    pass
b = B(log, 10); del b; step()
c = C(log); del c; step()
c = Plain(log); del c; step()
# in a cycle the collector clears the members first
b = B(log, 10); b.me = b; del b; gc.collect(); step()
c = C(log); c.me = c; del c; gc.collect(); step()
# a buffer freed with PyObject_Free(self->buf): no memory kept
tracemalloc.start()
before = tracemalloc.get_traced_memory()[0]
for _ in range(40):
    m.Block(None, 1 << 16)
grown = tracemalloc.get_traced_memory()[0] - before
tracemalloc.stop()
out.append(grown < 1 << 20)
print(out)
"""
EXPECTED = [(["Block dealloc"], 0), (["Closer finalize", "Closer dealloc"], 0),
            (["B __del__", "Block dealloc"], 0), (["C __del__", "Closer dealloc"], 0),
            (["Closer finalize", "Closer dealloc"], 0), (["B __del__"], 0), (["C __del__"], 0), True]


@pytest.fixture(scope="module")
def releases(tmp_path_factory, stock_and_translated_tree):
    """(stock module path, translated module path)."""
    stock = tmp_path_factory.mktemp("releases") / "stock"
    shutil.copytree(CORPUS, stock, ignore=shutil.ignore_patterns("check.py", "__pycache__"))
    return stock_and_translated_tree("releases", stock)


def test_stock_releases(releases, run_script):
    assert run_script(SCRIPT, releases[0]) == EXPECTED


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_translated_releases_as_stock(releases, run_script, debug):
    """The finalizer the extension wrote runs, the part of a deallocator
    calling the API runs for a subclass defining __del__ too, and
    PyObject_Free(self->buf) frees the buffer."""
    assert run_script(SCRIPT, releases[1], debug) == EXPECTED


FINALIZED = (HEAD + "static void\nBag_finalize(PyObject *op)\n{\n    Bag_empty((Bag *)op);\n}\n"
             "static void\nBag_dealloc(PyObject *op)\n{\n%s}\n"
             "static PyType_Slot Bag_slots[] = {\n    {Py_tp_dealloc, Bag_dealloc},\n"
             "    {Py_tp_finalize, Bag_finalize},\n    {0, NULL},\n};\n"
             "static PyType_Spec Bag_spec = {\"m.Bag\", sizeof(Bag), 0, Py_TPFLAGS_DEFAULT, Bag_slots};\n")


def test_a_finalizer_the_extension_wrote_is_ported():
    """Before: tp_finalize was dropped with its function.  After: it is
    the type's finalizer slot, the function ported; the deallocator's call
    of it goes (the runtime calls it before the destructor)."""
    src = FINALIZED % ("    if (PyObject_CallFinalizerFromDealloc(op) < 0)\n        return;\n"
                       "    PyMem_Free(((Bag *)op)->buf);\n    Py_TYPE(op)->tp_free(op);\n")
    out = translate.translate_source(src, "m.c")
    assert "static void\nBag_finalize(Cystck_State *S, Cystck_Object op)\n{\n    Bag_empty(S, op);\n}\n" in out
    assert "static void\nBag_dealloc(void *op)\n{\n    PyMem_Free(((Bag *)op)->buf);\n}\n" in out
    assert ("CYSTCK_DEF_DESTROY(Bag_slots_tp_dealloc, Bag_dealloc)\n"
            "CYSTCK_DEF_SLOT(Bag_slots_tp_finalize, tp_finalize, Bag_finalize)\n") in out


def test_a_finalizer_beside_a_deallocator_calling_the_api():
    """The deallocator's API calls run in tp_dealloc (CYSTCK_DEF_DEALLOC),
    after the extension's finalizer, as stock: the two do not clash."""
    src = FINALIZED % ("    Bag *self = (Bag *)op;\n    if (PyObject_CallFinalizerFromDealloc(op) < 0) {\n        return;\n    }\n"
                       "    Bag_empty(self);\n    PyMem_Free(self->buf);\n    Py_TYPE(op)->tp_free(op);\n")
    result = translate.translate_files({"m.c": src})["m.c"]
    assert ("CYSTCK_DEF_DEALLOC(Bag_slots_tp_dealloc, Bag_dealloc_finalize, Bag_dealloc)\n"
            "CYSTCK_DEF_SLOT(Bag_slots_tp_finalize, tp_finalize, Bag_finalize)\n") in result.text
    assert "PyObject_CallFinalizerFromDealloc" not in result.text
    assert not [n for n in result.notes if "destructor calls" in n.message]


def test_a_finalizer_call_doing_more_than_return_is_not_brought_back():
    """Negative: a call of the finalizer whose result does more than
    return stays, as 0: the runtime runs no destructor of an object its
    finalizer brought back to life."""
    src = FINALIZED % ("    if (PyObject_CallFinalizerFromDealloc(op) < 0) {\n        PyMem_Free(((Bag *)op)->buf);\n"
                       "        return;\n    }\n    Py_TYPE(op)->tp_free(op);\n")
    out = translate.translate_source(src, "m.c")
    assert "    if (0 < 0) {\n        PyMem_Free(((Bag *)op)->buf);\n        return;\n    }\n}\n" in out


def test_the_finalize_flag_goes_with_its_slot():
    """Py_TPFLAGS_HAVE_FINALIZE, which CPython ignores since 3.8, goes
    unreported (it was kept, reported as a flag with no counterpart);
    another flag without one is still kept and reported."""
    src = (FINALIZED % "    Py_TYPE(op)->tp_free(op);\n").replace(
        "Py_TPFLAGS_DEFAULT, Bag_slots", "Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_FINALIZE | Py_TPFLAGS_BASETYPE, Bag_slots")
    result = translate.translate_files({"m.c": src})["m.c"]
    assert "static CystckType_Spec Bag_spec = {\"m.Bag\", sizeof(Bag), 0, CYSTCK_TPFLAGS_BASETYPE, Bag_slots, NULL};" \
        in result.text
    assert not [n for n in result.notes if "FINALIZE" in n.message]
    result = translate.translate_files({"m.c": src.replace("HAVE_FINALIZE", "HAVE_VECTORCALL")})["m.c"]
    assert "Py_TPFLAGS_HAVE_VECTORCALL" in result.text
    assert [n for n in result.notes if "Py_TPFLAGS_HAVE_VECTORCALL kept" in n.message]
