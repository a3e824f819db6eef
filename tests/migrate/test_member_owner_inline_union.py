"""A handle member inside an inline union (``node->output.object``) is read
as the handle its declaration became, not as a reference of a same-named
member of a struct a global holds: the declaration and its accesses agree
(before, the access went by name and did not compile)."""

from cystck.migrate import translate

SRC = """#include <Python.h>
typedef struct Node { union { PyObject *object; long integer; } output; int eow; } Node;
typedef struct Holder { PyObject *object; } Holder;
static Holder H;
static PyObject *get(Node *node) { Py_INCREF(node->output.object); return node->output.object; }
static PyObject *keep(PyObject *self, PyObject *o) { Py_INCREF(o); Py_XSETREF(H.object, o); Py_RETURN_NONE; }
"""


def test_an_inline_unions_handle_member_is_a_handle():
    out = translate.translate_source(SRC)
    assert "union { Cystck_Object object; long integer; } output;" in out
    assert "Cystck_Dup(S, node->output.object)" in out
    assert "Cystck_deref(S, node->output.object)" not in out


def test_the_held_structs_same_named_member_stays_a_reference():
    out = translate.translate_source(SRC)
    assert "typedef struct Holder { Cystck_Ref object; } Holder;" in out
    assert "H.object = cystck_migrate_xref(S, " in out or "H.object = Cystck_ref(S, " in out
