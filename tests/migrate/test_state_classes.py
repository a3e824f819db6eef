"""C++ classes whose member functions use the API and which a library's
templates call with fixed signatures (a SAX handler, a stream): the class
holds the state as a member set by its constructors (class-state-member,
project.state_classes)."""
from cystck.migrate import translate

HANDLER = (
    "#include <Python.h>\n"
    "class Stream {\n"
    "public:\n"
    "    Stream(PyObject* file, size_t size)\n"
    "        : file(file) {\n"
    "        Py_INCREF(file);\n"
    "        chunk = NULL;\n"
    "    }\n"
    "    ~Stream() {\n"
    "        Py_CLEAR(file);\n"
    "    }\n"
    "    char Peek() { Read(); return 'x'; }\n"
    "private:\n"
    "    void Read() { chunk = PyObject_CallNoArgs(file); }\n"
    "    PyObject* file;\n"
    "    PyObject* chunk;\n"
    "};\n"
    "template<typename InputStream>\n"
    "static char first(InputStream& is) { return is.Peek(); }\n"
    "static PyObject* f(PyObject* self, PyObject* file)\n"
    "{\n"
    "    Stream s(file, 10);\n"
    "    return PyLong_FromLong(first(s));\n"
    "}\n"
    "static PyMethodDef methods[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")


def translated(text=HANDLER):
    return translate.translate_source(text, "example.cpp")


def test_methods_keep_their_signatures_and_read_the_state_from_the_object():
    out = translated()
    assert "    char Peek() { Read(); return 'x'; }" in out
    assert "    void Read() { chunk = CystckObject_CallNoArgs(S, file); }" in out
    assert "static char first(InputStream& is) { return is.Peek(); }" in out


def test_constructors_take_the_state_and_set_the_member():
    out = translated()
    assert "class Stream {\n    Cystck_State *S;\npublic:" in out
    assert "Stream(Cystck_State *S, Cystck_Object file, size_t size)\n        : S(S), file(file) {" in out
    assert "    Stream s(S, file, 10);" in out


def test_destructors_take_no_parameter():
    out = translated()
    assert "    ~Stream() {\n" in out


def test_a_member_initialiser_is_no_function():
    """``: file(file)`` after a constructor's parameters is not a
    function named ``file`` (which used to get ``Cystck_State *S``)."""
    assert "file(Cystck_State" not in translated()


def test_translating_twice_changes_nothing():
    once = translated()
    assert translate.translate_source(once, "example.cpp") == once


def test_a_member_the_constructor_takes_a_reference_to_gets_a_handle_of_its_own():
    """``Py_INCREF(file)`` in the constructor, ``Py_CLEAR(file)`` in the
    destructor: the member holds a handle of its own, so the destructor's
    drop does not release the caller's argument (an error in debug mode)."""
    out = translated()
    assert "        this->file = Cystck_Dup(S, this->file);\n" in out
    assert "Cystck_Drop(S, file); file = Cystck_NULL;" in out
