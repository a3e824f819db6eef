"""The life of Cystck types and instances, through the rt_types test
extension: destructors and fields, instantiation, the module of a type.
Where CPython defines the behaviour, st_types (the stock C API) runs the
same scenario."""
import os
import subprocess
import sys
import textwrap

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="session")
def rt_types(rt_types_path):
    return load_extension("rt_types", rt_types_path)


def run_python(script, path, **env):
    """Run script in a child interpreter that imports the extension at path
    (as the module its file is named after)."""
    prelude = f"import sys\nsys.path.insert(0, {str(path.parent)!r})\n"
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(script)],
                          capture_output=True, text=True, env={**os.environ, **env})


# ---- the destructor runs before the fields are released ----

def test_destructor_sees_its_fields_set(rt_types):
    root = rt_types.Twig(0)
    before = rt_types.twigs_unlinked()
    child = rt_types.Twig(1, root)
    del child
    # The destructor found its parent field set and left the parent's list.
    assert rt_types.twigs_unlinked() == before + 1
    assert root.children() == []


SHARED_TREE = """
    import rt_types
    root = rt_types.Twig(0)
    kids = [rt_types.Twig(i, root) for i in range(1, 6)]
    grandkids = [rt_types.Twig(10 * i, kids[0]) for i in range(1, 4)]
    del kids[2]                       # a middle sibling
    print(root.children())
    del grandkids[0], grandkids[-1]   # the oldest and the newest
    print(kids[0].children())
    first = kids.pop(0)
    del first                         # alive through its child only
    print(root.children())
    del grandkids                     # the child dies, then its parent
    print(root.children())
    del root                          # alive through its children only
    print([k.value for k in kids])
    del kids
    print(rt_types.twigs_unlinked())
"""


def test_a_native_structure_shared_by_live_instances_survives_deaths(rt_types_path):
    # PYTHONMALLOC=debug poisons freed memory: a child left in its
    # parent's list after it died is read back as garbage or crashes.
    out = run_python(SHARED_TREE, rt_types_path, PYTHONMALLOC="debug")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:6] == [
        "[5, 4, 2, 1]", "[20]", "[5, 4, 2, 1]", "[5, 4, 2]", "[2, 4, 5]", "8"], out.stdout


def test_destructor_may_free_the_memory_holding_fields(rt_types_path):
    # 40 fields: more than the runtime keeps inline while the destructor
    # runs.  Each object must be released exactly once, after the
    # destructor freed (and PYTHONMALLOC=debug poisoned) the array.
    script = """
        import gc, weakref, rt_types
        class Item:
            pass
        items = [Item() for _ in range(40)]
        refs = [weakref.ref(i) for i in items]
        bags = [rt_types.Bag(*items), rt_types.Bag(*items[:3]), rt_types.Bag()]
        before = [sys.getrefcount(i) for i in items]
        del bags
        after = [sys.getrefcount(i) for i in items]
        print([b - a for b, a in zip(before, after)] == [2] * 3 + [1] * 37)
        del items
        gc.collect()
        print(sum(r() is None for r in refs))
    """
    out = run_python(script, rt_types_path, PYTHONMALLOC="debug")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "40"], out.stdout


# ---- instantiation, beside the stock API ----

@pytest.fixture(scope="session")
def st_types(st_types_path):
    return load_extension("st_types", st_types_path)


def error_of(f, *args):
    """(type name, message) of the exception f(*args) raises, with the
    module of the extension spelled "m"."""
    with pytest.raises(Exception) as info:
        f(*args)
    message = str(info.value).replace("rt_types.", "m.").replace("st_types.", "m.")
    return type(info.value).__name__, message


def test_a_type_without_tp_new_gets_objects_like_stock(rt_types, st_types):
    for m in (rt_types, st_types):
        p = m.Plain()
        assert p.n == 0                               # zeroed, as object's tp_new leaves it
        assert m.Plain.__new__ is object.__new__
    assert error_of(rt_types.Plain, 1) == error_of(st_types.Plain, 1) == (
        "TypeError", "m.Plain() takes no arguments")


def test_disallow_instantiation_like_stock_tp_new_null(rt_types, st_types):
    sealed = rt_types.sealed()
    assert type(sealed).__name__ == "Sealed"
    assert error_of(type(sealed)) == error_of(type(st_types.sealed())) == (
        "TypeError", "cannot create 'm.Sealed' instances")
    # The stock idiom leaves __new__ in the type's dict, calling a NULL
    # tp_new (a crash); the flag leaves no such way in.
    assert error_of(type(sealed).__new__, type(sealed))[0] == "TypeError"


# ---- the module of a type named without one ----

@pytest.mark.parametrize("module", ["rt_types", "st_types"])
def test_types_named_without_a_module_import_without_warnings(rt_types_path, st_types_path, module):
    # Bare is made before the module exists, Loose after it.
    script = f"""
        import {module} as m
        print(m.Bare.__name__, m.Bare.__qualname__, m.Bare.__module__,
              getattr(m, "Loose", m.Bare).__module__)
    """
    path = rt_types_path if module == "rt_types" else st_types_path
    out = run_python(script, path, PYTHONWARNINGS="error")
    assert out.returncode == 0, out.stderr
    module_of = "rt_types" if module == "rt_types" else "builtins"
    assert out.stdout.split() == ["Bare", "Bare", module_of, module_of], out.stdout


def test_a_type_named_without_a_module_is_named_as_stock_in_messages(rt_types, st_types):
    rt, st = rt_types.bare(), st_types.bare()
    assert error_of(getattr, rt, "missing") == error_of(getattr, st, "missing") == (
        "AttributeError", "'Bare' object has no attribute 'missing'")
    assert error_of(lambda: rt + 1) == error_of(lambda: st + 1)
    # repr reads __module__: the stock type's is builtins, which it omits.
    assert repr(rt).startswith("<rt_types.Bare object at ") and repr(st).startswith("<Bare object at ")
