"""An object-like macro naming a handle cast to a custom type's struct,
``#define box ((Box *)self)``, is written out at each use up to its
``#undef``: the struct accesses through it reach the struct and the
calls passing it pass the handle (before: ``box->n`` on a handle, a
compile error)."""
from cystck.migrate import translate

SOURCE = """#include <Python.h>
typedef struct { PyObject_HEAD long n; } Box;
typedef struct { long box; } Plain;
static int fill(Box *b, long v) { b->n = v; return 0; }
static PyObject *get(PyObject *self, PyObject *args) {
#define box ((Box *)self)
    if (fill(box, 3) < 0)
        return NULL;
    return PyLong_FromLong(box->n);
#undef box
}
static long field(Plain *p) { return p->box + p[0].box; }
"""


def test_uses_are_written_out_and_translated():
    out = translate.translate_source(SOURCE)
    assert "fill(S, (self), 3)" in out or "fill(S, self, 3)" in out
    assert "CystckLong_FromLong(S, Box_AsStruct(S, self)->n)" in out
    assert "box->n" not in out


def test_member_names_and_uses_after_the_undef_stay():
    after = SOURCE.replace("static long field", "static long box_n(Plain *p) { return box; }\nstatic long field")
    out = translate.translate_source(after)
    assert "return p->box + p[0].box;" in out
    assert "{ return box; }" in out


def test_a_cast_to_a_plain_struct_stays():
    plain = """#include <Python.h>
typedef struct { long n; } Dump;
static int count(void *extra) {
#define dump ((Dump *)extra)
    return (int)dump->n;
#undef dump
}
"""
    out = translate.translate_source(plain)
    assert "#define dump ((Dump *)extra)\n    return (int)dump->n;" in out


def test_a_redefinition_ends_the_scope_and_directives_keep_the_name():
    # the first function has no #undef: the next #define starts anew
    two = """#include <Python.h>
typedef struct { PyObject_HEAD long n; } Box;
static long first(PyObject *self) {
#define box ((Box *)self)
    return box->n;
}
static long second(PyObject *other) {
#define box ((Box *)other)
#ifdef box
    return box->n;
#endif
#if defined(box)
    return 0;
#endif
#undef box
}
"""
    out = translate.translate_source(two)
    assert out.count("#define box (") == 2 and "#ifdef box" in out and "defined(box)" in out
    assert "#undef box" in out
    assert "return Box_AsStruct(S, self)->n;" in out
    assert "return Box_AsStruct(S, other)->n;" in out
