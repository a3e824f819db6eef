"""A function the extension hands to a native library through a member of
one of the library's structs (``io.write = sink_write;``, a zlib-style
``strm.zalloc = my_alloc;``) is called by that library, which passes no
state.  One that uses the API only through the raw allocator
(PyMem_RawMalloc/Realloc/Calloc/Free, which need neither the GIL nor an
interpreter) took ``S`` once translated: the assignment was a build
error (incompatible pointer type).  It now keeps its stock signature and
body.  Here the library is the C library's fopencookie, whose
cookie_io_functions_t the project does not declare.  Stock and
translated builds answer alike, in release and with CYSTCK_DEBUG=1."""
from cystck.migrate import translate

SRC = r'''#define _GNU_SOURCE
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>
#include <string.h>

typedef struct { char *data; size_t len; } sink;

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
    sink *s = (sink *)cookie;
    char *grown = PyMem_RawRealloc(s->data, s->len + size + 1);
    if (grown == NULL)
        return -1;
    memcpy(grown + s->len, buf, size);
    s->data = grown;
    s->len += size;
    return (ssize_t)size;
}

static int sink_close(void *cookie)
{
    (void)cookie;
    return 0;
}

static PyObject *
formatted(PyObject *self, PyObject *arg)
{
    long v = PyLong_AsLong(arg);
    sink s = {NULL, 0};
    cookie_io_functions_t io;
    FILE *f;
    PyObject *r;
    if (v == -1 && PyErr_Occurred())
        return NULL;
    memset(&io, 0, sizeof(io));
    io.write = sink_write;
    io.close = sink_close;
    f = fopencookie(&s, "w", io);
    if (f == NULL)
        return PyErr_NoMemory();
    fprintf(f, "<%ld>", v);
    fclose(f);
    r = PyBytes_FromStringAndSize(s.data, (Py_ssize_t)s.len);
    PyMem_RawFree(s.data);
    return r;
}

static PyMethodDef methods[] = {
    {"formatted", formatted, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "nativecb", NULL, -1, methods};

PyMODINIT_FUNC PyInit_nativecb(void) { return PyModule_Create(&moddef); }
'''


def test_a_raw_allocating_callback_of_a_foreign_struct_stays_stock():
    out = translate.translate_source(SRC, "nativecb.c")
    assert "static ssize_t sink_write(void *cookie, const char *buf, size_t size)" in out
    assert "PyMem_RawRealloc(s->data, s->len + size + 1);" in out
    assert "static int sink_close(void *cookie)" in out
    assert "    io.write = sink_write;" in out


def test_translation_compiles_and_behaves_like_the_stock_build(same_as_stock):
    want = same_as_stock("nativecb", SRC, "print(repr([outcome(m.formatted, a) for a in (7, -12, 'x')]))\n")
    assert want[:2] == [b"<7>", b"<-12>"]


def test_a_callback_using_more_than_the_raw_allocator_is_translated():
    """Negative: PyMem_Realloc needs the GIL (and, translated, the state):
    the function is the extension's own helper, as before."""
    out = translate.translate_source(SRC.replace("PyMem_RawRealloc", "PyMem_Realloc"), "nativecb.c")
    assert "static ssize_t sink_write(Cystck_State *S, void *cookie, const char *buf, size_t size)" in out


def test_a_callback_stored_in_a_member_the_project_declares_is_translated():
    """Negative: the project's own struct (whose calls through the member
    the translator sees) is no library's."""
    src = SRC.replace("typedef struct { char *data; size_t len; } sink;",
                      "typedef struct { char *data; size_t len; } sink;\n"
                      "struct table { ssize_t (*write)(void *, const char *, size_t); };")
    out = translate.translate_source(src, "nativecb.c")
    assert "static ssize_t sink_write(Cystck_State *S, void *cookie, const char *buf, size_t size)" in out
