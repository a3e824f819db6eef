"""A function-level static object, a cache filled on the function's first
call, is a reference (``static Cystck_Ref``): before, the declarations rule
reported it and left ``static PyObject *`` to be given handles
(lazy-object-proxy's first contact: `incompatible types when assigning to
type 'PyObject *' from type 'Cystck_Object'`)."""
from cystck.migrate import translate

CACHE = r'''#include <Python.h>

static PyObject *fallback(PyObject *self, PyObject *o)
{
    static PyObject *getattr_str = NULL;
    PyObject *method;

    if (!getattr_str) {
        getattr_str = PyUnicode_InternFromString("__getattr__");
        if (getattr_str == NULL)
            return NULL;
    }
    method = PyObject_GetAttr(o, getattr_str);
    if (method == NULL)
        return NULL;
    Py_DECREF(method);
    Py_INCREF(getattr_str);
    return getattr_str;
}

static PyMethodDef methods[] = {
    {"fallback", fallback, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "staticcache", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_staticcache(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_a_function_level_static_object_is_a_reference():
    out = translate.translate_source(CACHE.replace("    Py_INCREF(getattr_str);\n    return getattr_str;",
                                                   "    Py_RETURN_NONE;"), "staticcache.c")
    assert "    static Cystck_Ref getattr_str = NULL;\n" in out
    assert "if (!getattr_str) {" in out and "if (getattr_str == NULL)" in out
    assert 'getattr_str = Cystck_ref(S, CystckUnicode_InternFromString(S, "__getattr__"));' in out
    assert "CystckObject_GetAttr(S, o, Cystck_deref(S, getattr_str))" in out
    assert "function-level static object" not in out


def test_a_function_level_static_whose_count_changes_is_reported():
    """Negative: ``Py_INCREF(getattr_str)`` keeps the declaration stock."""
    out = translate.translate_source(CACHE, "staticcache.c")
    assert "static Cystck_Ref getattr_str" not in out


def test_the_cache_behaves_like_the_stock_build(same_as_stock):
    src = CACHE.replace("    Py_INCREF(getattr_str);\n    return getattr_str;",
                        "    return PyUnicode_FromString(\"found\");")
    script = ("class A:\n    def __getattr__(self, n):\n        return n\n"
              "print(repr([m.fallback(A()), m.fallback(A()), outcome(m.fallback, 1)]))\n")
    want = same_as_stock("staticcache", src, script)
    assert want == ["found", "found", ("AttributeError", "'int' object has no attribute '__getattr__'")]
