"""``#include "out.h"`` of a header in another folder of the extension,
found by the build through ``-I`` (pyppmd: its module in src/ext/, its
output-buffer helpers in src/lib/buffer/): the header's helpers got the
state, their calls in the module did not ("too few arguments", 24
errors), since an include was resolved only beside the including file.
It is resolved, as a compiler's include path would, to the one file of
the extension whose path ends with the name; with two such files the
build's flags decide, and the include stays unresolved."""
from cystck.migrate import project, translate

HEADER = r'''static inline PyObject *
make_block(Py_ssize_t n)
{
    return PyBytes_FromStringAndSize(NULL, n);
}
'''

MODULE = r'''#include <Python.h>
#include "out.h"

static PyObject *
block(PyObject *self, PyObject *arg)
{
    return make_block(PyLong_AsSsize_t(arg));
}

static PyMethodDef methods[] = {{"block", block, METH_O, NULL}, {NULL}};
'''


def test_a_header_on_the_include_path_is_the_module_s():
    out = translate.translate_files({"src/ext/mod.c": MODULE, "src/lib/buffer/out.h": HEADER})
    assert "make_block(Cystck_State *S, Py_ssize_t n)" in out["src/lib/buffer/out.h"].text
    assert "make_block(S, CystckLong_AsSsize_t(S, arg))" in out["src/ext/mod.c"].text


def test_beside_the_including_file_goes_first():
    files = {"src/mod.c": MODULE, "src/out.h": HEADER, "lib/out.h": HEADER}
    assert project.includers(files) == {"src/out.h": {"src/mod.c"}}


def test_two_candidates_on_the_include_path_resolve_to_none():
    files = {"src/ext/mod.c": MODULE, "lib/a/out.h": HEADER, "lib/b/out.h": HEADER}
    assert project.includers(files) == {}
