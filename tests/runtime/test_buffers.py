"""The buffer protocol: Cystck types export buffers through bf_getbuffer /
bf_releasebuffer, and native blocks become typed memoryviews
(tests/runtime/ext/rt_buffer.c)."""
import pathlib
import struct
import subprocess
import sys

import pytest

from cystck.build import load_extension


@pytest.fixture(scope="module")
def buf(build_rt):
    path = build_rt("rt_buffer")
    return load_extension("rt_buffer", path)


# The checks, run here and again in debug mode in a subprocess.
CHECKS = r'''
def check(buf):
    import gc, struct, sys
    v = buf.Vec(3)
    base = sys.getrefcount(v)
    m = memoryview(v)
    assert (m.format, m.itemsize, m.shape, m.readonly) == ("d", 8, (3,), False)
    assert m.tolist() == [0.0, 1.5, 3.0]
    assert m.obj is v and sys.getrefcount(v) == base + 1     # the view owns the exporter
    assert v.exports() == 1
    m[1] = 7.0                                                # writes reach the struct
    assert v.get(1) == 7.0
    assert bytes(v) == struct.pack("3d", 0.0, 7.0, 3.0) and v.exports() == 1
    m.release()
    assert v.exports() == 0 and sys.getrefcount(v) == base
    with memoryview(v) as a, memoryview(a) as b:              # a view of a view: one export
        assert b.tolist() == [0.0, 7.0, 3.0] and v.exports() == 1
    assert v.exports() == 0

    frozen = buf.Vec(2, True)
    base = sys.getrefcount(frozen)
    assert memoryview(frozen).readonly
    assert buf.writable_len(v) == 24 and v.exports() == 0
    try:
        buf.writable_len(frozen)
    except BufferError as e:
        assert str(e) == "Vec is frozen"
    else:
        raise AssertionError("a frozen Vec gave a writable buffer")
    gc.collect()
    assert frozen.exports() == 0 and sys.getrefcount(frozen) == base

    blob = buf.Blob()
    assert bytes(blob) == b"blob" and memoryview(blob).readonly and memoryview(blob).obj is blob

    d = buf.doubles(4)
    assert (d.format, d.itemsize, d.shape, d.nbytes) == ("d", 8, (4,), 32)
    assert d.tolist() == [0.0, 0.5, 1.0, 1.5] and d[3] == 1.5
    d[0] = 2.5
    assert d.tolist()[0] == 2.5
    assert d.cast("B").nbytes == 32
    q = buf.typed("q", 8, 8)
    assert (q.format, q.shape, q.readonly, q.tolist()) == ("q", (8,), True, [0] * 8)
    return "ok"
'''


def test_type_exports_a_buffer_and_blocks_are_typed(buf):
    namespace = {}
    exec(CHECKS, namespace)
    assert namespace["check"](buf) == "ok"


def test_in_debug_mode(buf):
    script = (f"import sys; sys.path.insert(0, {str(pathlib.Path(buf.__file__).parent)!r})\n"
              f"import rt_buffer\n{CHECKS}\nprint(check(rt_buffer))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={"CYSTCK_DEBUG": "1", "PATH": ""})
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("args, message", [
    (("d", 4, 2), "format 'd' has 8-byte items, not 4"),
    (("d", 8, 9), "9 items of 8 bytes outside the block"),
    (("not a format", 1, 1), "'not a format' is not a struct module format"),
    (("B", 0, 1), "need a format and a positive item size"),
])
def test_typed_views_are_checked(buf, args, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        buf.typed(*args)
