"""What real extensions use beyond the basics (issue #19): multi-phase init
and module state, METH_CLASS/STATIC/COEXIST, weak references to instances,
code points, slices, integers as byte arrays, capsules, and releasing the
GIL with handles held.  Where CPython defines the behaviour, the Cystck
function is compared with what CPython itself does."""
import ctypes
import gc
import subprocess
import sys
import threading
import tracemalloc
import weakref

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="session")
def g(grow_path):
    return load_extension("rt_grow", grow_path)


# ---- multi-phase init and module state ----

def test_exec_slots_run_in_order_on_each_module_object(g, grow_path):
    assert isinstance(g.Box, type) and g.execs_seen_by_second_slot == g.execs
    again = load_extension("rt_grow", grow_path)     # a second module object
    assert again is not g and again.execs == g.execs + 1
    assert again.Box is not g.Box                  # types made per module


def test_module_state_is_per_module_object(g, grow_path):
    other = load_extension("rt_grow", grow_path)
    first = g.bump()
    assert g.bump() == first + 1
    assert other.bump() == 1 and other.bump() == 2
    assert g.bump() == first + 2


def test_module_state_fields_are_seen_by_the_gc_and_cleared(grow_path):
    class Obj:
        pass
    m = load_extension("rt_grow", grow_path)
    obj = Obj()
    obj.module = m                 # a cycle through the module state
    m.keep(obj)
    assert m.kept() is obj
    alive = weakref.ref(obj)
    del obj, m
    sys.modules.pop("rt_grow", None)
    gc.collect()
    assert alive() is None         # traversed (else the cycle leaks) and cleared


def test_module_state_field_released_when_the_module_is_freed(grow_path):
    class Obj:
        pass
    m = load_extension("rt_grow_created", grow_path)
    obj = Obj()
    m.keep(obj)
    alive = weakref.ref(obj)
    del obj
    gc.collect()
    assert alive() is not None     # the state keeps it
    sys.modules.pop("rt_grow_created", None)
    vars(m).clear()                # no cycle left: freed without the GC's m_clear
    del m
    assert alive() is None


@pytest.mark.parametrize("name", ["rt_grow", "rt_grow_created"])
def test_module_state_refs_are_seen_by_the_gc_and_released(grow_path, name):
    """A Cystck_Ref the state holds, visited with Cystck_VISIT_REF: a cycle
    through it is collected, and freeing the module releases it."""
    class Obj:
        pass
    m = load_extension(name, grow_path)
    obj = Obj()
    obj.module = m                 # a cycle through the state's reference
    m.keep_ref(obj)
    alive = weakref.ref(obj)
    del obj, m
    sys.modules.pop(name, None)
    gc.collect()
    assert alive() is None


def test_module_state_refs_released_with_the_module_in_debug_mode(grow_path):
    """A reference made in a call (not during init) and held by the state
    is released when the module goes: nothing reported at exit."""
    code = ("import sys; from cystck.build import load_extension\n"
            f"m = load_extension('rt_grow_created', {str(grow_path)!r})\n"
            "m.keep_ref([1, 2]); m.keep_ref([3])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"CYSTCK_DEBUG": "1", "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert "never released" not in out.stderr


def test_module_state_refs_of_a_module_alive_at_exit_are_not_reported(grow_path):
    """A reference made in a call and held by the state of a module that is
    still alive at exit (pinned) lives with the module, as one made during
    init: the GC visited it through the state, so it is no leak."""
    code = ("import gc; from cystck.build import load_extension\n"
            f"m = load_extension('rt_grow_created', {str(grow_path)!r})\n"
            "m.pin(); m.keep_ref([1, 2])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"CYSTCK_DEBUG": "1", "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert "never released" not in out.stderr


def test_types_reach_the_state_of_the_module_they_were_made_for(g, grow_path):
    other = load_extension("rt_grow", grow_path)
    for m in (g, other):
        b = m.Box(1)
        assert b.home(0) is m and b.home(1) is m
        assert b.home(2) == m.bump() - 1

    class Sub(other.Box):
        pass
    assert Sub(1).home(0) is other          # found through the MRO
    with pytest.raises(TypeError, match="has no associated module"):
        Sub(1).home(1)
    with pytest.raises(TypeError, match="has no associated module"):
        Sub(1).home(2)


def test_module_by_definition_of_a_type_made_for_no_module(g):
    with pytest.raises(TypeError, match="No superclass of 'rt_grow.Bare' has the given module"):
        g.module_of(g.Bare)


def test_find_state_names_the_way_for_a_multi_phase_module(g):
    with pytest.raises(SystemError, match="rt_grow is initialized in phases.*CystckType_GetModuleByDef"):
        g.find_state()


def test_create_slot_gets_the_spec_and_the_definition(grow_path):
    m = load_extension("rt_grow_created", grow_path)
    assert m.__name__ == "rt_grow_created"
    assert m.def_is_ours is True
    assert m.name_seen_by_exec == "rt_grow_created"


def test_single_phase_create_of_a_multi_phase_definition_fails_as_stock(g):
    with pytest.raises(SystemError, match="PyModule_Create is incompatible with m_slots"):
        g.single_phase()


ISOLATED = r"""
import importlib.util, sys
try:
    import _interpreters as interpreters             # 3.13
    iid = interpreters.create("isolated")
except ImportError:
    import _xxsubinterpreters as interpreters        # 3.12
    iid = interpreters.create(isolated=True)
path, out = sys.argv[1], sys.argv[2]
code = (
    "import importlib.util\n"
    f"spec = importlib.util.spec_from_file_location('rt_grow_isolated', {path!r})\n"
    "try:\n"
    "    importlib.util.module_from_spec(spec)\n"
    "    result = 'imported'\n"
    "except ImportError as e:\n"
    "    result = str(e)\n"
    f"open({out!r}, 'w').write(result)\n")
interpreters.run_string(iid, code)
interpreters.destroy(iid)
spec = importlib.util.spec_from_file_location("rt_grow_isolated", path)
importlib.util.module_from_spec(spec)        # the main interpreter: fine
"""


@pytest.mark.skipif(sys.version_info < (3, 12), reason="interpreters with their own GIL: 3.12+")
def test_an_interpreter_with_its_own_gil_refuses_the_module(grow_path, tmp_path):
    # The module declares Py_MOD_PER_INTERPRETER_GIL_SUPPORTED; the runtime
    # lowers that to a shared GIL (docs/runtime.md).
    out = tmp_path / "result"
    child = subprocess.run([sys.executable, "-c", ISOLATED, str(grow_path), str(out)],
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr[-2000:]
    assert out.read_text() == "module rt_grow_isolated does not support loading in subinterpreters"


# ---- METH_CLASS, METH_STATIC, METH_COEXIST ----

def test_classmethod_gets_the_class(g):
    class Sub(g.Box):
        pass
    assert g.Box.cls(1, 2) == (g.Box, 2)
    assert Sub.cls() == (Sub, 0)
    assert g.Box(3).cls(1) == (g.Box, 1)
    assert type(g.Box.__dict__["cls"]).__name__ == "classmethod_descriptor"


def test_staticmethod_gets_a_null_self(g):
    assert g.Box.static("x") == (True, "x")
    assert g.Box(1).static(5) == (True, 5)
    assert isinstance(g.Box.__dict__["static"], staticmethod)


def test_coexist_method_replaces_the_slot_wrapper(g):
    b = g.Box(5)
    assert len(b) == 5                       # the sq_length slot
    assert b.__len__() == 105                # the METH_COEXIST method
    assert type(g.Box.__dict__["__len__"]).__name__ == "method_descriptor"


# ---- weak references to instances ----

@pytest.mark.parametrize("make", [
    lambda g: g.Box(1), lambda g: g.Bare(), lambda g: g.Holder(),
    lambda g: g.new_instance(g.Box), lambda g: g.new_instance(g.Bare),
], ids=["destroy", "plain", "gc", "Cystck_New-destroy", "Cystck_New-plain"])
def test_weak_references_to_instances(g, make):
    called = []
    o = make(g)
    r = weakref.ref(o, called.append)
    p = weakref.proxy(o)
    assert r() is o and weakref.getweakrefcount(o) == 2
    assert repr(p).startswith("<weakproxy")
    del o
    assert r() is None and called == [r]     # cleared by the runtime's dealloc, no gc needed


def test_weak_references_to_a_python_subclass(g):
    class Sub(g.Box):
        pass
    o = Sub(2)
    r = weakref.ref(o)
    destroyed = g.boxes_destroyed()
    del o
    assert r() is None and g.boxes_destroyed() == destroyed + 1


def test_weak_reference_callback_runs_before_the_destructor(g):
    seen = []
    o = g.Box(1)
    destroyed = g.boxes_destroyed()
    r = weakref.ref(o, lambda _: seen.append(g.boxes_destroyed()))
    del o
    assert seen == [destroyed] and r() is None


def test_types_without_a_weaklist_still_refuse_weak_references(rt):
    with pytest.raises(TypeError, match="cannot create weak reference"):
        weakref.ref(rt.Countdown(1))


# ---- the trashcan ----

CHAIN = """
import sys
from cystck.build import load_extension
rt = load_extension("rt_basic", sys.argv[1])
g = load_extension("rt_grow", sys.argv[2])
Sub = type("Sub", (g.Link,), {})
make = {
    "generic-dealloc": rt.Node,
    "destroy": g.Link,
    "python-subclass": Sub,
    # A subclass's dealloc (with its own trashcan) above the runtime's, and
    # the generic dealloc, interleaved at every depth modulo the trashcan's.
    "mixed": lambda n: Sub(rt.Node(rt.Node(rt.Node(rt.Node(rt.Node(n)))))),
}[sys.argv[3]]
n = None
refs = sys.getrefcount(Sub)
for i in range(1_000_000):
    n = make(n)
before = g.links_destroyed()
del n
# Links destroyed, and references to Sub lost (each instance holds one)
print(g.links_destroyed() - before, refs - sys.getrefcount(Sub))
"""


@pytest.mark.parametrize("how, links", [
    ("generic-dealloc", 0), ("destroy", 1_000_000), ("python-subclass", 1_000_000), ("mixed", 1_000_000),
])
def test_freeing_a_long_chain_does_not_overflow_the_c_stack(rt_path, grow_path, how, links):
    out = subprocess.run([sys.executable, "-c", CHAIN, str(rt_path), str(grow_path), how],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == [str(links), "0"]


# ---- code points ----

@pytest.mark.parametrize("first, n", [(0x41, 5), (0xE0, 4), (0x3B1, 6), (0x1F600, 3), (0x41, 0)])
def test_unicode_new_with_kind_and_data(g, first, n):
    assert g.unicode_new(first, n) == "".join(chr(first + i) for i in range(n))


@pytest.mark.parametrize("s", ["abc", "h\u00e9", "\u03b1\u03b2", "x\U0001F600y", ""])
def test_reading_code_points_matches_ord(g, s):
    fast, checked, maxchar = g.code_points(s)
    assert fast == checked == [ord(c) for c in s]
    widest = max(map(ord, s), default=0)
    assert maxchar == (0x7F if widest < 0x80 else 0xFF if widest < 0x100 else
                       0xFFFF if widest < 0x10000 else 0x10FFFF)


def test_read_char_errors_match_cpython(g):
    with pytest.raises(IndexError, match="string index out of range"):
        g.read_char("abc", 3)
    with pytest.raises(TypeError, match="bad argument"):
        g.read_char(b"abc", 0)


def test_write_char(g):
    assert g.write_chars("abcd", ord("z"), False) == "zzzz"
    with pytest.raises(ValueError, match="character out of range"):
        g.write_chars("abcd", 0x3B1, False)
    shared = "".join(["sh", "ared"])         # a str Python holds: not writable
    with pytest.raises(SystemError, match="modify a string"):
        g.write_chars(shared, ord("z"), True)
    assert shared == "shared"


# ---- the str writer ----

@pytest.mark.parametrize("parts, expected", [
    ([], ""),
    ([b"abc", "def", ord("g")], "abcdefg"),
    (["x" * 1000, 0xE9, b"tail"], "x" * 1000 + "\u00e9tail"),          # widened to latin-1
    ([b"a", 0x3B1, "\u00e9", 0x1F600, b"z"], "a\u03b1\u00e9\U0001F600z"),   # to UCS-2, then UCS-4
    ([("\u00e9\u00e9\u00e9ab", 3, 5)], "ab"),                        # the slice decides the kind
    ([("\U0001F600a\u03b1", 1, 3)], "a\u03b1"),
    ([("abc", -5, 100), ("abc", 2, 1)], "abc"),                        # clipped as slicing
    ([("\u00e9a".encode(),), 0], "\u00e9a\x00"),
    ([ord(c) for c in "\u1234" * 5000], "\u1234" * 5000),             # grows many times
])
def test_writer_builds_what_join_builds(g, parts, expected):
    result = g.build_str(parts)
    assert result == expected and type(result) is str
    # the narrowest kind: a wider one would compare unequal to an equal str
    assert result == "".join(list(expected)) and hash(result) == hash(expected)


@pytest.mark.parametrize("parts, exc, match", [
    ([0x110000], ValueError, r"U\+110000 is not in range"),
    ([b"caf\xe9"], ValueError, "not ASCII"),
    ([("\xff".encode("latin-1"),)], UnicodeDecodeError, "utf-8"),
    ([1.5], TypeError, "expected a str, got float"),
])
def test_writer_errors(g, parts, exc, match):
    with pytest.raises(exc, match=match):
        g.build_str(["prefix"] + parts)


def test_an_abandoned_writer_leaks_nothing(g):
    parts = ["x" * 10_000, 1.5]             # fails after building 10 kB
    for _ in range(10):
        with pytest.raises(TypeError):
            g.build_str(parts)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(1000):
            with pytest.raises(TypeError):
                g.build_str(parts)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # 10 MB if each abandoned str leaked
    assert grown < 3_000_000


@pytest.mark.parametrize("how", [0, 1, 2])
def test_writer_used_after_it_is_finished(g, how):
    with pytest.raises(SystemError, match="not initialized, or already finished"):
        g.writer_misuse(how)


# ---- slices ----

SLICES = [slice(None), slice(1, 3), slice(-2, None), slice(None, None, -1), slice(10, -10, -3),
          slice(-100, 100, 7), slice(5, 1), slice(None, None, 2)]


@pytest.mark.parametrize("s", SLICES, ids=str)
@pytest.mark.parametrize("length", [0, 1, 7])
def test_slice_indices_match_cpython(g, s, length):
    start, stop, step = s.indices(length)
    expected = (start, stop, step, len(range(start, stop, step)))
    assert g.slice_indices(s, length) == (expected, expected)


def test_slice_errors_match_cpython(g):
    for bad in (slice(None, None, 0), slice("a")):
        with pytest.raises(Exception) as cystck:
            g.slice_indices(bad, 3)
        with pytest.raises(Exception) as stock:
            bad.indices(3)
        assert (cystck.type, str(cystck.value)) == (stock.type, str(stock.value))
    with pytest.raises(SystemError, match="wrong type"):
        g.slice_indices(None, 3)


def stock(name, restype, *argtypes):
    """A function of CPython's own C API, called through ctypes."""
    f = getattr(ctypes.pythonapi, name)
    f.restype, f.argtypes = restype, argtypes
    return f


def _pointer(o):
    return None if o is None else id(o)


@pytest.mark.parametrize("lo, hi, v", [(1, 3, ["x"]), (0, 0, [1, 2]), (-2, 100, []), (2, 4, None),
                                       (3, 1, ("t",)), (-10, -1, [7])])
def test_list_set_slice_matches_cpython(g, lo, hi, v):
    set_slice = stock("PyList_SetSlice", ctypes.c_int, ctypes.py_object, ctypes.c_ssize_t,
                      ctypes.c_ssize_t, ctypes.c_void_p)
    mine, theirs = list(range(6)), list(range(6))
    assert g.list_set_slice(mine, lo, hi, v) == set_slice(theirs, lo, hi, _pointer(v))
    assert mine == theirs


def test_list_set_slice_on_a_non_list(g):
    with pytest.raises(SystemError, match="bad argument"):
        g.list_set_slice((1, 2), 0, 1, [])


def test_sequence_slices(g):
    seq = list(range(6))
    g.seq_slices(seq, "ab")
    stock = list(range(6))
    stock[1:3] = "ab"
    del stock[0:1]
    del stock[-1]
    assert seq == stock
    with pytest.raises(TypeError):
        g.seq_slices((1, 2, 3), "ab")


@pytest.mark.parametrize("o", [5, -5, True, 2**70, -2**70, sys.maxsize, -sys.maxsize - 1, 1.5, "x"])
@pytest.mark.parametrize("clip", [False, True])
def test_number_as_ssize_t_matches_cpython(g, o, clip):
    as_ssize = stock("PyNumber_AsSsize_t", ctypes.c_ssize_t, ctypes.py_object, ctypes.c_void_p)
    outcomes = []
    for call in (lambda: g.as_ssize(o, clip), lambda: as_ssize(o, None if clip else id(OverflowError))):
        try:
            outcomes.append(call())
        except Exception as e:
            outcomes.append((type(e), str(e)))
    assert outcomes[0] == outcomes[1]


# ---- integers as byte arrays ----

@pytest.mark.parametrize("value, n, little, signed", [
    (0, 0, False, False), (1, 1, False, False), (0x1234, 2, False, False), (0x1234, 4, True, False),
    (-1, 1, True, True), (-129, 2, False, True), (2**63 - 1, 8, True, True), (2**64 - 1, 8, True, False),
    (255, 1, False, False), (2**200, 30, True, False),
])
def test_long_byte_arrays_match_int_methods(g, value, n, little, signed):
    order = "little" if little else "big"
    assert g.to_bytes(value, n, little, signed) == value.to_bytes(n, order, signed=signed)
    data = value.to_bytes(n, order, signed=signed)
    assert g.from_bytes(data, little, signed) == int.from_bytes(data, order, signed=signed)


@pytest.mark.parametrize("value, n, signed", [(256, 1, False), (-1, 4, False), (128, 1, True), (2**70, 8, True)])
def test_long_as_byte_array_overflow_like_to_bytes(g, value, n, signed):
    with pytest.raises(OverflowError):
        value.to_bytes(n, "little", signed=signed)
    with pytest.raises(OverflowError):
        g.to_bytes(value, n, True, signed)


def test_long_as_byte_array_of_a_non_int(g):
    with pytest.raises(SystemError, match="wrong type"):
        g.to_bytes(1.0, 4, True, True)


# ---- capsules ----

def test_capsule_functions(g):
    assert g.capsule_roundtrip("rt_grow.first") == (1, 0, "rt_grow.renamed", 1, 7, 1, 0)


def test_capsule_import(g):
    sys.modules["rt_grow"] = g
    assert g.capsule_import("rt_grow.CAPI") == 42
    with pytest.raises(AttributeError):
        g.capsule_import("rt_grow.NOPE")


# ---- the GIL released with handles held ----

def test_gil_released_with_handles_held(g):
    blobs = [bytes(range(i % 256)) * 1000 + bytes([i % 256]) for i in range(16)]

    def checksum(b):
        s = 0
        for x in b:
            s = (s * 31 + x) & 0xFFFFFFFFFFFFFFFF
        return s & 0x7FFFFFFF

    expected = [checksum(b) for b in blobs]
    results = [None] * len(blobs)

    def work(i):
        for _ in range(20):
            b, empty, s = g.checksum_nogil(blobs[i])
            assert b is blobs[i] and empty == b""
            results[i] = s

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(blobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == expected


def test_a_c_thread_opens_its_own_frame(g):
    calls = []

    def f(i):
        calls.append(threading.get_ident())
        return i * i
    assert g.call_from_thread(f, 100) == [i * i for i in range(100)]
    assert len(set(calls)) == 1 and calls[0] != threading.get_ident()
    assert g.call_from_thread(f, 3000) == [i * i for i in range(3000)]   # past the inline slots


def test_closing_a_frame_of_a_c_thread_releases_its_handles(g):
    sentinel = object()
    before = sys.getrefcount(sentinel)
    for n in (5, 3000):                    # inline slots, then heap chunks
        results = g.call_from_thread(lambda i: sentinel, n)
        assert results == [sentinel] * n
        del results
        assert sys.getrefcount(sentinel) == before
