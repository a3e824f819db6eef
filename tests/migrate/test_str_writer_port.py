"""CPython 3.14's public str writer (PyUnicodeWriter, held through a pointer,
often in a struct) becomes CystckStrWriter: the pointer's type and every
call, from the API table's ``~ PyUnicodeWriter_*`` entries."""
import pytest

from cystck.migrate import translate

# An accumulator whose writer is created, fed and finished in different functions.
ACCU = ("#include <Python.h>\n"
        "typedef struct { PyUnicodeWriter *writer; } Accu;\n"
        "static int accu_init(Accu *acc) { acc->writer = PyUnicodeWriter_Create(0); return acc->writer ? 0 : -1; }\n"
        "static int accu_add(Accu *acc, PyObject *s) { return PyUnicodeWriter_WriteStr(acc->writer, s); }\n"
        "static PyObject *accu_finish(Accu *acc)\n{\n"
        "    PyObject *str = PyUnicodeWriter_Finish(acc->writer);\n    acc->writer = NULL;\n    return str;\n}\n"
        "static void accu_destroy(Accu *acc) { PyUnicodeWriter_Discard(acc->writer); acc->writer = NULL; }\n")

QUOTE = ("#include <Python.h>\n"
         "static PyObject *quote(PyObject *self, PyObject *s)\n{\n"
         "    PyUnicodeWriter *writer = PyUnicodeWriter_Create(PyUnicode_GET_LENGTH(s) + 2);\n"
         "    if (writer == NULL)\n        return NULL;\n"
         "    if (PyUnicodeWriter_WriteChar(writer, '\"') < 0 ||\n"
         "        PyUnicodeWriter_WriteSubstring(writer, s, 0, PyUnicode_GET_LENGTH(s)) < 0 ||\n"
         "        PyUnicodeWriter_WriteUTF8(writer, \"\\\"\", 1) < 0) {\n"
         "        PyUnicodeWriter_Discard(writer);\n        return NULL;\n    }\n"
         "    return PyUnicodeWriter_Finish(writer);\n}\n"
         "static PyMethodDef m[] = {{\"quote\", quote, METH_O, NULL}, {NULL}};\n")


@pytest.mark.parametrize("source, expected", [
    (ACCU, ["typedef struct { CystckStrWriter *writer; } Accu;",
            "acc->writer = CystckStrWriter_Create(S, 0);",
            "return CystckStrWriter_WriteStr(S, acc->writer, s);",
            "Cystck_Object str = CystckStrWriter_Finish(S, acc->writer);",
            "CystckStrWriter_Discard(S, acc->writer);"]),
    (QUOTE, ["    CystckStrWriter *writer = CystckStrWriter_Create(S, ",
             "CystckStrWriter_WriteChar(S, writer, '\"') < 0",
             "CystckStrWriter_WriteSubstring(S, writer, s, 0, ",
             # the pointer writer's WriteUTF8, not the by-value CystckUnicodeWriter's
             "CystckStrWriter_WriteUTF8(S, writer, \"\\\"\", 1) < 0",
             "return Cystck_Return(S, CystckStrWriter_Finish(S, writer));"]),
], ids=["kept-in-a-struct", "of-one-call"])
def test_the_writer_is_a_cystck_str_writer(source, expected):
    out = translate.translate_source(source)
    for line in expected:
        assert line in out
    assert "PyUnicodeWriter" not in out and "escape hatch" not in out


def test_the_private_writer_and_other_public_structs_are_left_alone():
    # negative: the by-value _PyUnicodeWriter keeps its own counterpart;
    # PyModuleDef (whose PyModuleDef_Init takes it, but nothing creates it)
    # and a user's struct named like the writer are not renamed
    text = ("#include <Python.h>\n"
            "typedef struct { int n; } PyUnicodeWriterStats;\n"
            "static PyUnicodeWriterStats stats;\n"
            "static PyObject *f(PyObject *self, PyObject *o)\n{\n    _PyUnicodeWriter w;\n"
            "    _PyUnicodeWriter_Init(&w);\n    if (_PyUnicodeWriter_WriteStr(&w, o) < 0) {\n"
            "        _PyUnicodeWriter_Dealloc(&w);\n        return NULL;\n    }\n"
            "    return _PyUnicodeWriter_Finish(&w);\n}\n"
            "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n"
            "static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, \"m\", NULL, 0, m};\n"
            "PyMODINIT_FUNC PyInit_m(void) { return PyModuleDef_Init(&mod); }\n")
    out = translate.translate_source(text)
    assert "    CystckUnicodeWriter w;\n" in out
    assert "CystckUnicodeWriter_WriteStr(S, &w, o)" in out
    assert "CystckStrWriter" not in out
    assert "static PyUnicodeWriterStats stats;" in out
