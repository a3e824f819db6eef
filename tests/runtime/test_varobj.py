"""Variable-size types whose items are objects stored inline after the
native struct (Cystck_NewVar, CYSTCK_VAR_HEAD, CystckVar_Size,
CystckVar_DataSize): rt_varobj's Row against st_varobj's, the same type
written with the stock API (PyObject_GC_NewVar, Py_SIZE)."""
import pytest

from test_types import run_python


@pytest.fixture(scope="session")
def rt_varobj_path(build_rt):
    return build_rt("rt_varobj")


@pytest.fixture(scope="session")
def st_varobj_path(build, ext_dir):
    return build("st_varobj", [ext_dir / "st_varobj.c"], use_cystck=False,
                 extra_compile_args=["-Wall", "-Werror"])


# Run against both modules; prints what must be the same.  PYTHONMALLOC=debug
# poisons freed memory, so an item released too early (or the struct
# overlapping CPython's item count) shows as garbage or a crash.
SCENARIO = """
    import gc, sys, weakref
    import {mod} as ext
    class Item:
        pass
    items = [Item() for _ in range(40)]
    refs = [weakref.ref(i) for i in items]
    rows = [ext.Row(*items), ext.Row(*items[:3]), ext.Row()]
    print([len(r) for r in rows], [r.tag() for r in rows])
    print(all(rows[0][i] is items[i] for i in range(40)), rows[1][2] is items[2])
    try:
        rows[1][3]
    except IndexError as e:
        print("IndexError", e)
    rows[1].set(0, "x")
    print(rows[1][0], rows[1][1] is items[1], rows[1].tag())
    del items
    print(sum(r() is not None for r in refs))
    del rows[0]
    print(sum(r() is not None for r in refs))
    # a cycle through an item is collected
    it = Item()
    it.row = ext.Row(it, Item())
    dead = weakref.ref(it)
    del it
    gc.collect()
    print(dead() is None)
    big = ext.Row(*range(100000))
    print(len(big), big[99999], big.tag())
"""


def outputs(path, mod):
    out = run_python(SCENARIO.format(mod=mod), path, PYTHONMALLOC="debug")
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_inline_object_items_behave_as_with_the_stock_api(rt_varobj_path, st_varobj_path):
    cystck = outputs(rt_varobj_path, "rt_varobj")
    stock = outputs(st_varobj_path, "st_varobj")
    assert cystck == stock
    assert cystck.splitlines()[0] == "[40, 3, 0] [1040, 1003, 1000]"


def test_newvar_refuses_types_without_items_and_negative_counts(rt_varobj_path):
    out = run_python("""
        import rt_varobj as ext
        for args in ((object, 2), (ext.row_type(), -1)):
            try:
                ext.newvar_of(*args)
            except (TypeError, SystemError) as e:
                print(type(e).__name__, e)
        print(len(ext.newvar_of(ext.row_type(), 5)))
        try:
            ext.bad_spec()
        except SystemError as e:
            print("SystemError", e)
    """, rt_varobj_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "TypeError Cystck_NewVar: object is not a variable-size type (its spec has no itemsize)",
        "SystemError Cystck_NewVar: negative item count -1",
        "5",
        "SystemError CystckType_FromSpec: rt_varobj.Tiny has items (itemsize 8), so its native "
        "struct must start with CYSTCK_VAR_HEAD",
    ]


def test_generic_alloc_ignores_the_count_of_a_type_without_items(rt_varobj_path):
    """CystckType_GenericAlloc is stock's type->tp_alloc(type, n): n items
    of a variable-size type; for a type without items the count is ignored,
    as PyType_GenericAlloc ignores it (basicsize + (n + 1) * 0 bytes)."""
    out = run_python("""
        import rt_varobj as ext
        print(type(ext.generic_alloc_of(object, 3)).__name__, len(ext.generic_alloc_of(ext.row_type(), 4)),
              len(ext.generic_alloc_of(ext.row_type(), 0)))
        try:
            ext.generic_alloc_of(ext.row_type(), -1)
        except SystemError as e:
            print("SystemError", e)
    """, rt_varobj_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "object 4 0",
        "SystemError CystckType_GenericAlloc: negative item count -1",
    ]


def test_the_runtime_builds_with_c99(tmp_path, ext_dir):
    """The runtime is compiled with the extension's flags, and some
    extensions ask for C99 (-std=c99), which has no max_align_t."""
    from cystck.build import build_extension
    path = build_extension("rt_varobj", [ext_dir / "rt_varobj.c"], tmp_path,
                           extra_compile_args=["-std=c99", "-Wall", "-Werror"])
    out = run_python("import rt_varobj as ext\nprint(len(ext.Row(1, 2)), ext.Row(1, 2)[1])\n", path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "2 2\n"


def test_format_v_takes_handles_from_a_variadic_caller(rt_varobj_path):
    """CystckUnicode_FromFormatV: %S is str() and %R repr() of the handle's
    object, as PyUnicode_FromFormatV does for objects."""
    out = run_python("""
        import rt_varobj as ext
        print(ext.describe("x", "y"))
        print(ext.describe([1, "a"], 2.5))
        try:
            ext.describe(1)
        except TypeError as e:
            print("TypeError", e)
    """, rt_varobj_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"{'x'!s}|{'y'!r}|7", f"{[1, 'a']!s}|{2.5!r}|7",
                                       "TypeError describe() takes 2 arguments"]
