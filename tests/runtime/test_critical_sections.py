"""Critical sections on handles (Cystck_BEGIN/END_CRITICAL_SECTION, the
counterparts of Py_BEGIN/END_CRITICAL_SECTION): a stock extension that uses
them, built as it is and as cystck-migrate translates it, behaves the same;
and the free-threaded expansion locks the object of the handle and
unlocks it, nested sections in order."""
import threading

import pytest

from cystck.build import load_extension
from cystck.migrate import translate


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("critical", ported_flags=["-Wall", "-Werror"])


def test_translated_to_the_counterparts(ext_dir):
    """Each section on a handle, nested ones too, becomes the Cystck pair:
    no escape hatch left."""
    out = translate.translate_source((ext_dir / "st_critical.c").read_text())
    assert out.count("Cystck_BEGIN_CRITICAL_SECTION(S, self);") == 2
    assert out.count("Cystck_BEGIN_CRITICAL_SECTION(S, seq);") == 1
    assert out.count("Cystck_END_CRITICAL_SECTION(S);") == 3
    assert "escape hatch" not in out


def test_same_as_stock(exts):
    for ext in exts:
        c = ext.Counter()
        assert [c.bump(), c.bump(), c.add_len([1, 2, 3])] == [1, 2, 5]
        with pytest.raises(TypeError):
            c.add_len(3)
        assert c.bump() == 3          # the failed call left its sections


def test_threads_bump_one_counter(exts):
    for ext in exts:
        c = ext.Counter()

        def work():
            for _ in range(2000):
                c.bump()
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert c.bump() == 8 * 2000 + 1


@pytest.fixture(scope="module")
def ft(build, ext_dir):
    path = build("rt_critical_ft", [ext_dir / "rt_critical_ft.c"],
                 extra_compile_args=["-DPy_GIL_DISABLED", "-Wall", "-Wextra", "-Werror"])
    return load_extension("rt_critical_ft", path)


def test_free_threaded_expansion_locks_the_handles_object(ft):
    a, b = object(), [1, 2]
    ft.take_log()
    assert ft.locked(a, b) == 2
    log = ft.take_log()
    assert [w for w, _ in log] == ["begin", "begin", "end", "end"]
    assert [o for _, o in log] == [a, b, b, a] and log[0][1] is a and log[1][1] is b


def test_free_threaded_null_handle_raises_and_locks_nothing(ft):
    ft.take_log()
    with pytest.raises(SystemError, match="Cystck_AsPyObject"):
        ft.locked_null()
    assert ft.take_log() == []
