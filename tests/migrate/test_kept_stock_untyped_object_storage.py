"""Python objects owned by untyped native memory: a struct's ``void *``
member (an array of them, typically: a trie node whose slots hold child
nodes at one level and objects at the last) that the code reference-counts
as an object (``Py_XDECREF(node->slots[i])``).  A handle dies with its call
and the slot has no type a rule could turn into a ``Cystck_Ref``, so no
rule ports it: the file, and every file compiled with it, is kept stock as
a whole (translate.kept_stock, reported) and the module's single-phase
init is bridged (migrate/bridge.py).  Before, the slots' objects became
handles where the slots are read and stayed raw pointers where they are
stored, and the output did not compile (pyrsistent 0.20.0's pvectorc: 48
--check errors)."""
import pytest

from cystck.migrate import translate
from cystck.migrate.rules import escape

# A bucket of four slots, each holding an object it owns.
BUCKET = (
    "#include <Python.h>\n"
    "typedef struct {\n    void *slots[4];\n    int used;\n} Bucket;\n"
    "static Bucket bucket;\n"
    "static void bucket_clear(Bucket *b) {\n"
    "    while (b->used > 0) {\n        b->used--;\n        Py_XDECREF(b->slots[b->used]);\n    }\n}\n"
    "static PyObject *put(PyObject *self, PyObject *o) {\n"
    "    if (bucket.used == 4) {\n"
    "        PyErr_SetString(PyExc_OverflowError, \"the bucket is full\");\n        return NULL;\n    }\n"
    "    Py_INCREF(o);\n    bucket.slots[bucket.used++] = o;\n    Py_RETURN_NONE;\n}\n"
    "static PyObject *get(PyObject *self, PyObject *arg) {\n"
    "    Py_ssize_t i = PyLong_AsSsize_t(arg);\n"
    "    if (i == -1 && PyErr_Occurred()) return NULL;\n"
    "    if (i < 0 || i >= bucket.used) {\n"
    "        PyErr_SetString(PyExc_IndexError, \"no such slot\");\n        return NULL;\n    }\n"
    "    PyObject *r = bucket.slots[i];\n    Py_INCREF(r);\n    return r;\n}\n"
    "static PyObject *clear(PyObject *self, PyObject *unused) {\n"
    "    bucket_clear(&bucket);\n    Py_RETURN_NONE;\n}\n"
    "static PyMethodDef methods[] = {\n"
    "    {\"put\", put, METH_O, NULL}, {\"get\", get, METH_O, NULL},\n"
    "    {\"clear\", clear, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};\n"
    "static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, \"NAME\", \"Four slots.\", -1, methods};\n"
    "PyMODINIT_FUNC PyInit_NAME(void) { return PyModule_Create(&moddef); }\n")


def _translated(text, name="rt_kept_untyped"):
    return translate.translate_files({"m.c": text.replace("NAME", name)})


def test_objects_owned_by_a_void_pointer_member_keep_the_file_stock_and_are_reported():
    unit = _translated(BUCKET)["m.c"]
    assert unit.text.startswith(escape.KEPT_MARK)
    reasons = [n.message for n in unit.notes if n.rule == "kept-stock"]
    assert reasons and "'Bucket' holds Python objects in its untyped member 'slots' (void *; Py_XDECREF at line 10)" \
        in reasons[0]
    assert "CYSTCK_MODINIT(rt_kept_untyped)" in unit.text


@pytest.mark.parametrize("old, new", [
    # The slots typed PyObject *: a handle field the rules translate.
    ("void *slots[4];", "PyObject *slots[4];"),
    # A void * member that holds native memory, and an object counted elsewhere.
    ("Py_XDECREF(b->slots[b->used]);", "PyMem_Free(b->slots[b->used]); Py_XDECREF(Py_None);"),
    # The slot's object counted through a local first, never in the slot.
    ("Py_XDECREF(b->slots[b->used]);", "{ PyObject *o = NULL; Py_XDECREF(o); }"),
])
def test_other_void_pointers_and_typed_object_slots_are_translated(old, new):
    text = BUCKET.replace(old, new)
    assert text != BUCKET
    unit = _translated(text, "plain")["m.c"]
    assert not unit.text.startswith(escape.KEPT_MARK)
    assert "Cystck_State *S" in unit.text


@pytest.fixture(scope="module")
def kept(build, tmp_path_factory):
    name = "rt_kept_untyped"
    tmp = tmp_path_factory.mktemp(name)
    (tmp / "m.c").write_text(_translated(BUCKET, name)["m.c"].text)
    return name, build(name, [tmp / "m.c"])


CALLS = ("import pytest\n"
         "o = object()\nm.put(o); m.put('b')\n"
         "assert m.get(0) is o and m.get(1) == 'b' and m.__doc__ == 'Four slots.'\n"
         "with pytest.raises(IndexError, match='no such slot'): m.get(2)\n"
         "m.put(1); m.put(2)\n"
         "with pytest.raises(OverflowError, match='the bucket is full'): m.put(3)\n"
         "m.clear()\n"
         "with pytest.raises(IndexError): m.get(0)\n")


@pytest.mark.parametrize("debug", [False, True], ids=["release", "debug"])
def test_the_kept_module_with_single_phase_init_builds_and_behaves(kept, run_script, debug):
    assert run_script(CALLS + "print(True)\n", kept[1], debug=debug) is True
