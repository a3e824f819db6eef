"""A stock destructor that calls both the API and native releases splits
(the destructor-split rule, migrate/destructors.py): its API calls become
a function of their own, run in tp_dealloc before the destructor
(CYSTCK_DEF_DEALLOC), and its native releases stay in the destructor,
which has no state; the API calls may bring the object back to life, so
native memory is never freed there.  Where the two parts share local
state or control flow, the destructor stays whole and its API calls are
reported, as before.  Then a small extension whose deallocator does both
(tests/migrate/corpus/buffers) is translated, built and run, in release
and with CYSTCK_DEBUG=1."""
import pathlib
import shutil

import pytest

from cystck.migrate import engine, translate

HEAD = ("#include <Python.h>\n#include <stdlib.h>\n"
        "typedef struct { PyObject_HEAD PyObject *items; double *buf; void (*release)(double *); } Bag;\n"
        "static PyObject *\nBag_empty(Bag *self)\n{\n    PyDict_Clear(self->items);\n    Py_RETURN_NONE;\n}\n")
TYPE = ("static PyMethodDef Bag_methods[] = {\n    {\"empty\", (PyCFunction)Bag_empty, METH_NOARGS, NULL},\n"
        "    {NULL, NULL},\n};\n"
        "static PyTypeObject BagType = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n    .tp_name = \"m.Bag\",\n"
        "    .tp_basicsize = sizeof(Bag),\n    .tp_dealloc = (destructor)Bag_dealloc,\n"
        "    .tp_flags = Py_TPFLAGS_DEFAULT,\n    .tp_methods = Bag_methods,\n};\n")


def _dealloc(body, param="Bag *self"):
    return HEAD + f"static void\nBag_dealloc({param})\n{{\n{body}}}\n" + TYPE


def _errors(result):
    return [n.message.split(",")[0] for n in result.notes if "destructor calls" in n.message]


def test_api_calls_become_a_finalizer_and_native_releases_stay():
    """Before: the destructor stayed one, its call of Bag_empty an error
    (it has no state).  After: Bag_empty runs in a finalizer of its own,
    listed beside the destructor, and free() stays in the destructor."""
    src = _dealloc("    PyObject_GC_UnTrack(self);\n    /* empty it first */\n    Bag_empty(self);\n"
                   "    Py_CLEAR(self->items);\n    free(self->buf);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n")
    result = translate.translate_files({"m.c": src})["m.c"]
    assert ("static void\nBag_dealloc_finalize(Cystck_State *S, Cystck_Object self)\n{\n"
            "    /* empty it first */\n    Cystck_PopResult(S, Bag_empty(S, self));\n}\n\n"
            "static void\nBag_dealloc(void *data)\n{\n    Bag *self = (Bag *)data;\n    free(self->buf);\n}\n") \
        in result.text
    assert "CYSTCK_DEF_DEALLOC(BagType_tp_dealloc, Bag_dealloc_finalize, Bag_dealloc)\n" in result.text
    assert "    &BagType_tp_dealloc,\n" in result.text and "tp_finalize" not in result.text
    assert _errors(result) == []


def test_an_alias_of_the_parameter_goes_to_both_parts():
    """``Bag *self = (Bag *)op;``, never assigned, is no shared state: the
    finalizer gets its copy; a local only the destructor uses, whose value
    the API calls cannot change (the object's type), stays there."""
    src = _dealloc("    Bag *self = (Bag *)op;\n    PyTypeObject *tp = Py_TYPE(op);\n    Bag_empty(self);\n"
                   "    PyMem_Free(self->buf);\n    tp->tp_free(op);\n    Py_DECREF(tp);\n", param="PyObject *op")
    result = translate.translate_files({"m.c": src})["m.c"]
    assert ("static void\nBag_dealloc_finalize(Cystck_State *S, Cystck_Object op)\n{\n"
            "    Cystck_Object self = op;\n    Cystck_PopResult(S, Bag_empty(S, self));\n}\n\n"
            "static void\nBag_dealloc(void *op)\n{\n    Bag *self = (Bag *)op;\n    PyMem_Free(self->buf);\n}\n") \
        in result.text
    assert _errors(result) == []


def test_python_allocator_releases_are_native_too():
    """Before: a destructor calling the API and PyMem_Free became a
    finalizer whole, so the memory was freed in the finalizer (freed while
    a resurrected object still used it).  After: PyMem_Free stays in the
    destructor."""
    src = _dealloc("    Bag_empty(self);\n    PyMem_Free(self->buf);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n")
    out = translate.translate_source(src, "m.c")
    finalizer = out[out.index("Bag_dealloc_finalize(Cystck_State"):out.index("static void\nBag_dealloc(void")]
    assert "PyMem_Free" not in finalizer and "Cystck_PopResult(S, Bag_empty(S, self));" in finalizer
    assert ("static void\nBag_dealloc(void *data)\n{\n    Bag *self = (Bag *)data;\n"
            "    PyMem_Free(self->buf);\n}\n") in out


def test_the_trashcan_and_untracking_go_wherever_they_were():
    """The releases the runtime does itself (untracking, the trashcan,
    whose end has no semicolon, tp_free) do not hold the split back;
    ``Py_SIZE`` beside a native release is no API call."""
    src = _dealloc("    PyObject_GC_UnTrack(self);\n    Py_TRASHCAN_BEGIN(self, Bag_dealloc)\n    Bag_empty(self);\n"
                   "    if (Py_SIZE(self) > 0)\n        free(self->buf);\n    Py_TYPE(self)->tp_free((PyObject *)self);\n"
                   "    Py_TRASHCAN_END\n")
    result = translate.translate_files({"m.c": src})["m.c"]
    assert ("static void\nBag_dealloc_finalize(Cystck_State *S, Cystck_Object self)\n{\n"
            "    Cystck_PopResult(S, Bag_empty(S, self));\n}\n\n"
            "static void\nBag_dealloc(void *data)\n{\n    Bag *self = (Bag *)data;\n"
            "    if (CystckVar_DataSize(self) > 0)\n        free(self->buf);\n}\n") in result.text
    assert _errors(result) == []


@pytest.mark.parametrize("body", [
    # shared control flow: one if around both
    "    if (self->items) {\n        Bag_empty(self);\n        free(self->buf);\n    }\n",
    # a shared local, read from the object before the API call
    "    double *buf = self->buf;\n    Bag_empty(self);\n    free(buf);\n",
    # a native release before the API call
    "    free(self->buf);\n    Bag_empty(self);\n",
    # an early return skips both
    "    if (self->buf == NULL)\n        return;\n    Bag_empty(self);\n    free(self->buf);\n",
    # both on one line
    "    Bag_empty(self); free(self->buf);\n",
    # a call through a member ahead of the API call (native or not: not known)
    "    self->release(self->buf);\n    Bag_empty(self);\n    free(self->buf);\n",
    # a preprocessor conditional in the body
    "    Bag_empty(self);\n#ifdef KEEP\n    free(self->buf);\n#endif\n",
    # a member released before the API call (which the finalizer would see)
    "    Py_CLEAR(self->items);\n    Bag_empty(self);\n    free(self->buf);\n",
    # ... in a loop
    "    int i;\n    for (i = 0; i < 1; i++)\n        Py_CLEAR(self->items);\n    Bag_empty(self);\n"
    "    free(self->buf);\n",
    # Python's allocator under the shared if (before: all of it became a
    # finalizer, which freed the memory)
    "    if (self->items) {\n        Bag_empty(self);\n        PyMem_Free(self->buf);\n    }\n",
], ids=["if", "local", "order", "return", "one-line", "member-call", "directive", "member-released",
        "member-released-in-a-loop", "pymem-if"])
def test_destructors_whose_parts_share_state_or_control_flow_are_not_split(body):
    """Negative: the destructor stays whole, its API call reported."""
    result = translate.translate_files({"m.c": _dealloc(body)})["m.c"]
    assert "tp_finalize" not in result.text and "Bag_dealloc_finalize" not in result.text
    assert "static void\nBag_dealloc(void *data)\n" in result.text
    assert _errors(result) == ["error: destructor calls Bag_empty"]


def test_excluding_the_rule_keeps_the_destructor_whole():
    src = _dealloc("    Bag_empty(self);\n    free(self->buf);\n")
    rules = engine.select_rules(exclude=["destructor-split"])
    result = translate.translate_files({"m.c": src}, rules)["m.c"]
    assert "tp_finalize" not in result.text and "Bag_dealloc_finalize" not in result.text
    assert _errors(result) == ["error: destructor calls Bag_empty"]


def test_the_split_output_translates_to_itself():
    """The finalizer a translated file lists (CYSTCK_DEF_SLOT ... tp_finalize)
    keeps its role: before, translating the output again removed it, as a
    stock tp_finalize is (when the file still used a Py name)."""
    src = _dealloc("    Bag_empty(self);\n    PyMem_Free(self->buf);\n")
    once = translate.translate_source(src, "m.c")
    assert translate.translate_source(once, "m.c") == once


# ---- built and run ----

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus" / "buffers"

# Objects freed with the buffer, its native memory freed once, in a cycle
# too; and a buffer brought back to life by a finalizer in its cycle keeps
# its native memory.
SCRIPT = """
import gc, weakref
class Item:
    pass
log = []
b = m.Buffer(4, log.append)
items = [Item() for _ in range(3)]
refs = [weakref.ref(i) for i in items]
for i in items:
    b.append(i)
b.fill(2.0)
out = [b.total(), m.live()]
del items, i, b
out += [sum(r() is not None for r in refs), m.live(), list(log)]
b = m.Buffer(2, log.append)
it = Item()
it.b = b
b.append(it)
dead = weakref.ref(it)
del b, it
gc.collect()
out += [dead() is None, m.live(), list(log)]
kept = []
class Keeper:
    def __del__(self):
        kept.append(self.b)
b = m.Buffer(3, log.append)
b.fill(1.0)
k = Keeper()
k.b = b
b.append(k)
del b, k
gc.collect()
out += [len(kept), m.live(), kept[0].total()]
kept.clear()
gc.collect()
out += [m.live(), list(log)]
print(out)
"""
EXPECTED = [20.0, 1, 0, 0, [3]]


@pytest.fixture(scope="module")
def built(tmp_path_factory, stock_and_translated_tree):
    """(stock module path, translated module path)."""
    root = tmp_path_factory.mktemp("buffers")
    shutil.copytree(CORPUS, root / "stock", ignore=shutil.ignore_patterns("check.py", "__pycache__"))
    paths = stock_and_translated_tree("buffers", root / "stock")
    out = (root / "cystck" / "buffers.c").read_text()
    assert "CYSTCK_DEF_DEALLOC(BufferType_tp_dealloc, Buffer_dealloc_finalize, Buffer_dealloc)" in out
    finalizer = out[out.index("Buffer_dealloc_finalize(Cystck_State"):out.index("Buffer_dealloc(void")]
    assert "free(" not in finalizer and "Buffer_release_items(S, self)" in finalizer
    return paths


def test_stock_extension_frees_objects_and_memory(built, run_script):
    # in a cycle the stock deallocator runs after tp_clear emptied the list
    assert run_script(SCRIPT, built[0]) == EXPECTED + [True, 0, [3], 1, 1, 6.0, 0, [3]]


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_split_extension_frees_objects_and_memory_and_keeps_a_resurrected_buffer(built, run_script, debug):
    """As stock, in a cycle too: the part calling the API runs in
    tp_dealloc, after the collector cleared the list (it ran in a
    finalizer, before, so it reported the item); a buffer brought back to
    life by another finalizer keeps its memory (freed once, when it dies)."""
    assert run_script(SCRIPT, built[1], debug) == EXPECTED + [True, 0, [3], 1, 1, 6.0, 0, [3]]
