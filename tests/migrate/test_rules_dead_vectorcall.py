"""A vectorcall function whose tp_vectorcall assignment the
runtime-vectorcall rule drops goes too when it is static and nothing else
refers to it (it would be left unused, in stock form); one that another
file could see, or that other code calls, stays."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static PyObject *Foo_new(PyTypeObject *t, PyObject *a, PyObject *k) { return t->tp_alloc(t, 0); }\n"
       "static PyType_Slot Foo_slots[] = {{Py_tp_new, Foo_new}, {0, NULL}};\n"
       "static PyType_Spec Foo_spec = {\"m.Foo\", 0, 0, 0, Foo_slots};\n"
       "static PyObject *Foo_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf, PyObject *kw);\n"
       "static PyObject *\nFoo_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf, PyObject *kw)\n"
       "{\n    return PyObject_CallNoArgs(type);\n}\n"
       "static int exec(PyObject *m)\n{\n    PyObject *t = PyType_FromSpec(&Foo_spec);\n"
       "    ((PyTypeObject *)t)->tp_vectorcall = Foo_vectorcall;\n"
       "    return PyModule_AddObject(m, \"Foo\", t);\n}\n")


def test_unused_static_vectorcall_goes_with_its_prototype():
    result = translate.translate_files({"m.c": SRC})["m.c"]
    assert "Foo_vectorcall(" not in result.text
    assert "/* cystck-migrate: tp_vectorcall = Foo_vectorcall dropped: calls go through tp_new */" in result.text
    assert any(n.message.startswith("Foo_vectorcall removed") for n in result.notes)


def test_vectorcall_with_external_linkage_stays():
    src = SRC.replace("static PyObject *Foo_vectorcall", "PyObject *Foo_vectorcall").replace(
        "static PyObject *\nFoo_vectorcall", "PyObject *\nFoo_vectorcall")
    out = translate.translate_source(src, "m.c")
    assert "Foo_vectorcall(Cystck_State *S" in out


def test_vectorcall_other_code_calls_stays():
    src = SRC.replace("static int exec", "static PyObject *make(PyObject *t) "
                      "{ return Foo_vectorcall(t, NULL, 0, NULL); }\nstatic int exec")
    out = translate.translate_source(src, "m.c")
    assert "\nFoo_vectorcall(Cystck_State *S" in out
