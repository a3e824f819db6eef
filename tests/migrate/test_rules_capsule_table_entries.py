"""A C API exported to other extensions through a capsule,
``PyCapsule_New((void *)&capi, "capsapi._C_API", NULL)`` with ``capi`` a
struct of pointers to the extension's own functions over ``PyObject *``
(zope.proxy's ``wrapper_capi``): translated, those functions take ``S``
and handles, so a stock extension calling through the table crashed (and
``--check`` failed: the table's pointers got functions of another type).
The capsule-table-entries rule puts a stock-ABI entry in the table
(``api_make__stock_abi``: a Cystck frame of its own around the translated
function), marked and reported; a pointer to data in the same table stays.
The table's ``PyTypeObject *`` member stays one (it was a ``Cystck_Ref``,
and ``&BoxType`` the address of the reference): the init sets it, the
type's stock pointer, before it makes the capsule.
The script calls through the table with ctypes, as a stock extension
would (PyCapsule_GetPointer, then the function pointers): stock and
translated builds answer alike, release and debug, and neither leaks nor
over-releases a reference (a borrowed result stays borrowed)."""
from cystck.migrate import translate

SRC = r'''#include <Python.h>

typedef struct {
    PyObject_HEAD
    long n;
} Box;

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "capsapi.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
};

typedef struct {
    PyTypeObject *boxtype;
    int (*check)(PyObject *o);
    PyObject *(*make)(PyObject *o, long n);
    PyObject *(*first)(PyObject *t);
    long *calls;
} ExtAPI;

static long calls = 0;

static int
api_check(PyObject *o)
{
    return o ? PyTuple_Check(o) : 0;
}

static PyObject *
api_make(PyObject *o, long n)
{
    calls++;
    if (o == NULL) {
        PyErr_SetString(PyExc_ValueError, "cannot make a pair of NULL");
        return NULL;
    }
    return Py_BuildValue("(Ol)", o, n);
}

static PyObject *
api_first(PyObject *t)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) == 0) {
        PyErr_SetString(PyExc_TypeError, "expected a non-empty tuple");
        return NULL;
    }
    return PyTuple_GET_ITEM(t, 0);
}

static ExtAPI capi = {
    &BoxType,
    api_check,
    api_make,
    api_first,
    &calls,
};

static PyMethodDef methods[] = {
    {NULL}
};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "capsapi", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_capsapi(void)
{
    PyObject *m, *api;
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0)
        return NULL;
    api = PyCapsule_New((void *)&capi, "capsapi._C_API", NULL);
    if (api == NULL || PyModule_AddObject(m, "_C_API", api) < 0)
        return NULL;
    return m;
}
'''

# A stock caller, through the table: ctypes' PYFUNCTYPE calls with the GIL
# held and raises the exception a NULL result leaves set.
SCRIPT = r'''
import ctypes
get = ctypes.pythonapi.PyCapsule_GetPointer
get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
class API(ctypes.Structure):
    _fields_ = [("boxtype", ctypes.py_object),
                ("check", ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p)),
                ("make", ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.c_long)),
                ("first_raw", ctypes.c_void_p),
                ("calls", ctypes.POINTER(ctypes.c_long))]
api = API.from_address(get(m._C_API, b"capsapi._C_API"))
make_null = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_long)(
    ctypes.cast(api.make, ctypes.c_void_p).value)
first = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object)(api.first_raw)
key = object()
t = (key, 2)
before = sys.getrefcount(key)
pairs = [api.make(key, i) for i in range(100)]
del pairs
made = sys.getrefcount(key) - before
firsts = {first(t) for i in range(100)}
borrowed = sys.getrefcount(key) - before
print(repr([api.boxtype is m.Box, api.check(id(t)), api.check(id(key)), api.check(None), api.make("a", 7),
            outcome(make_null, None, 1), firsts == {id(key)}, outcome(first, 5),
            made, borrowed, api.calls[0]]))
'''


def test_the_table_gets_stock_abi_entries_and_the_data_pointer_stays():
    out = translate.translate_source(SRC, "capsapi.c")
    assert "    NULL,\n    api_check__stock_abi,\n    api_make__stock_abi,\n    api_first__stock_abi,\n    &calls,\n" in out
    # the type object, a reference once translated, set before the capsule is made
    assert ("    capi.boxtype = /* cystck-migrate: escape hatch */ (PyTypeObject *)Cystck_AsPyObject(S, "
            "Cystck_deref(S, BoxType));\n    api = CystckCapsule_New(S, ") in out
    assert "    PyTypeObject *boxtype;\n" in out
    assert "static PyObject *api_make__stock_abi(PyObject *o, long n)" in out
    assert "r_ = api_make(S, o ? Cystck_FromPyObject(S, (PyObject *)o) : Cystck_NULL, n);" in out
    # a borrowed result (PyTuple_GET_ITEM) is not incremented, a new one is
    first = out[out.index("api_first__stock_abi(PyObject *t)"):]
    assert "Py_XINCREF" not in first[:first.index("\n}\n")]
    make = out[out.index("api_make__stock_abi(PyObject *o, long n)"):]
    assert "Py_XINCREF(result_);" in make[:make.index("\n}\n")]


def test_the_spots_are_reported():
    unit = translate.translate_files({"capsapi.c": SRC})["capsapi.c"]
    notes = [n.message for n in unit.notes if n.rule == "capsule-table-entries"]
    assert len(notes) == 4 and all("C API table 'capi' exported in a capsule" in n for n in notes)


def test_stock_callers_through_the_table_behave_as_with_the_stock_build(same_as_stock):
    want = same_as_stock("capsapi", SRC, SCRIPT)
    assert want == [True, 1, 0, 0, ("a", 7), ("ValueError", "cannot make a pair of NULL"), True,
                    ("TypeError", "expected a non-empty tuple"), 0, 0, 102]


# The stock-ABI entry returns what the stock function returned: a borrowed
# parameter or global stays borrowed (before, every entry returned a new
# reference unless the function read a member: one reference leaked per
# call), an incremented one stays new; a function returning borrowed on
# some paths and new on others keeps a new reference, reported.  The
# tables are reached through a pointer (a global set to the table's
# address) and through a local, and one is filled member by member at run
# time: each is found as a table named in the call is (before, they kept
# the translated functions: --check failed).
REFS_SRC = r'''#include <Python.h>

typedef struct {
    PyObject_HEAD
} Box;

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "capsrefs.Box",
    .tp_basicsize = sizeof(Box),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
};

typedef struct {
    PyObject *(*same)(PyObject *o);
    PyObject *(*cached)(void);
    PyObject *(*own)(PyObject *o);
    PyObject *(*either)(PyObject *o, int k);
} RefsAPI;

typedef struct {
    PyTypeObject *boxtype;
    PyObject *(*same)(PyObject *o);
    PyObject *(*own)(PyObject *o);
} LateAPI;

static PyObject *cached;

static PyObject *
api_same(PyObject *o)
{
    return o;
}

static PyObject *
api_cached(void)
{
    return cached;
}

static PyObject *
api_own(PyObject *o)
{
    Py_INCREF(o);
    return o;
}

static PyObject *
api_either(PyObject *o, int k)
{
    if (k)
        return o;
    return PyNumber_Add(o, o);
}

static RefsAPI refs_capi = {api_same, api_cached, api_own, api_either};
static RefsAPI *exported = &refs_capi;
static LateAPI late_capi;

static PyMethodDef methods[] = {
    {NULL}
};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "capsrefs", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_capsrefs(void)
{
    PyObject *m, *api;
    void *late = &late_capi;
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0)
        return NULL;
    cached = PyUnicode_FromString("cached");
    if (cached == NULL)
        return NULL;
    Py_INCREF(cached);
    if (PyModule_AddObject(m, "cached", cached) < 0)
        return NULL;
    api = PyCapsule_New(exported, "capsrefs._C_API", NULL);
    if (api == NULL || PyModule_AddObject(m, "_C_API", api) < 0)
        return NULL;
    late_capi.boxtype = &BoxType;
    late_capi.same = api_same;
    late_capi.own = api_own;
    api = PyCapsule_New(late, "capsrefs._LATE_API", NULL);
    if (api == NULL || PyModule_AddObject(m, "_LATE_API", api) < 0)
        return NULL;
    return m;
}
'''

# A stock caller through both tables, 100 calls of each function: a
# borrowed result (c_void_p) is taken as it is, a new one (py_object) is
# owned by ctypes and released; each count is the change in the object's
# reference count, 0 where nothing leaked.
REFS_SCRIPT = r'''
import ctypes
get = ctypes.pythonapi.PyCapsule_GetPointer
get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
P = ctypes.c_void_p
api = (P * 4).from_address(get(m._C_API, b"capsrefs._C_API"))
late = (P * 3).from_address(get(m._LATE_API, b"capsrefs._LATE_API"))
borrowed = lambda f, *a: ctypes.PYFUNCTYPE(P, *a)(f)
new = lambda f, *a: ctypes.PYFUNCTYPE(ctypes.py_object, *a)(f)
same, cached = borrowed(api[0], ctypes.py_object), borrowed(api[1])
own, either = new(api[2], ctypes.py_object), new(api[3], ctypes.py_object, ctypes.c_int)
late_same, late_own = borrowed(late[1], ctypes.py_object), new(late[2], ctypes.py_object)
key = object()
def delta(obj, call):
    before = sys.getrefcount(obj)
    results = [call() for i in range(100)]
    del results
    return sys.getrefcount(obj) - before
print(repr([delta(key, lambda: same(key)), same(key) == id(key),
            delta(m.cached, lambda: cached()), cached() == id(m.cached),
            delta(key, lambda: own(key)), own(key) is key,
            delta(key, lambda: either(5, 0)), either(5, 0),
            delta(key, lambda: late_same(key)), late_same(key) == id(key),
            delta(key, lambda: late_own(key)), late[0] == id(m.Box)]))
'''


def _entry(out, name):
    body = out[out.index(f"*{name}__stock_abi("):]
    return body[:body.index("\n}\n")]


def test_a_borrowed_parameter_or_global_is_returned_borrowed_and_an_incremented_one_new():
    out = translate.translate_source(REFS_SRC, "capsrefs.c")
    assert "Py_XINCREF" not in _entry(out, "api_same")
    assert "Py_XINCREF" not in _entry(out, "api_cached")
    assert "Py_XINCREF(result_);" in _entry(out, "api_own")
    assert "Py_XINCREF(result_);" in _entry(out, "api_either")


def test_tables_through_a_pointer_a_local_or_filled_at_run_time_get_entries():
    out = translate.translate_source(REFS_SRC, "capsrefs.c")
    assert "static RefsAPI refs_capi = {api_same__stock_abi, api_cached__stock_abi, api_own__stock_abi, " \
           "api_either__stock_abi};" in out
    assert "    late_capi.same = api_same__stock_abi;\n    late_capi.own = api_own__stock_abi;\n" in out
    assert ("    late_capi.boxtype = /* cystck-migrate: escape hatch */ (PyTypeObject *)Cystck_AsPyObject(S, "
            "Cystck_deref(S, BoxType));\n") in out
    assert out.count("static PyObject *api_same__stock_abi(PyObject *o)") == 1   # one entry, two tables


def test_a_function_borrowed_on_some_paths_and_new_on_others_is_reported():
    unit = translate.translate_files({"capsrefs.c": REFS_SRC})["capsrefs.c"]
    notes = [n.message for n in unit.notes if n.rule == "capsule-table-entries"]
    assert any("api_either returns a borrowed reference on some paths and a new one on others" in n for n in notes)
    assert not any("api_same returns" in n or "api_own returns" in n for n in notes)


def test_stock_callers_get_the_stock_reference_counts(same_as_stock):
    want = same_as_stock("capsrefs", REFS_SRC, REFS_SCRIPT)
    assert want == [0, True, 0, True, 0, True, 0, 10, 0, True, 0, True]


def test_py_return_none_next_to_a_borrowed_return_is_mixed():
    """``Py_RETURN_NONE`` returns a new reference: next to a member read
    (borrowed), the function is mixed (before, it counted as borrowed, and
    None lost a reference per call through the table)."""
    src = ("#include <Python.h>\n"
           "typedef struct { PyObject_HEAD PyObject *v; } Box;\n"
           "typedef struct { PyObject *(*get)(PyObject *); } API;\n"
           "static PyObject *api_get(PyObject *o)\n{\n    if (((Box *)o)->v == NULL)\n        Py_RETURN_NONE;\n"
           "    return ((Box *)o)->v;\n}\n"
           "static API capi = {api_get};\n"
           "static PyObject *f(PyObject *self, PyObject *unused)\n{\n"
           "    return PyCapsule_New(&capi, \"m._C_API\", NULL);\n}\n")
    unit = translate.translate_files({"m.c": src})["m.c"]
    assert "Py_XINCREF(result_);" in _entry(unit.text, "api_get")
    assert any("api_get returns a borrowed reference on some paths" in n.message for n in unit.notes)


# An array of void * as the table (the classic numpy-style C API), in its
# initialiser and filled element by element at run time: the type object
# (before: left to a human, its entry the address of a reference) and the
# functions (before: the run-time elements kept the translated functions).
ARRAY_SRC = r'''#include <Python.h>

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "capsarr.Box",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
};

static PyObject *
api_pair(PyObject *o)
{
    return PyTuple_Pack(2, o, o);
}

static void *capi[] = {(void *)&BoxType, (void *)api_pair};
static void *late[2];

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "capsarr", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_capsarr(void)
{
    PyObject *m, *api;
    if (PyType_Ready(&BoxType) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&BoxType);
    if (PyModule_AddObject(m, "Box", (PyObject *)&BoxType) < 0)
        return NULL;
    api = PyCapsule_New((void *)capi, "capsarr._C_API", NULL);
    if (api == NULL || PyModule_AddObject(m, "_C_API", api) < 0)
        return NULL;
    late[0] = (void *)&BoxType;
    late[1] = (void *)api_pair;
    api = PyCapsule_New((void *)late, "capsarr._LATE_API", NULL);
    if (api == NULL || PyModule_AddObject(m, "_LATE_API", api) < 0)
        return NULL;
    return m;
}
'''

ARRAY_SCRIPT = r'''
import ctypes
get = ctypes.pythonapi.PyCapsule_GetPointer
get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
P = ctypes.c_void_p
out = []
for attr, name in (("_C_API", b"capsarr._C_API"), ("_LATE_API", b"capsarr._LATE_API")):
    api = (P * 2).from_address(get(getattr(m, attr), name))
    pair = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object)(api[1])
    key = object()
    before = sys.getrefcount(key)
    pairs = [pair(key) for i in range(100)]
    ok = all(p == (key, key) for p in pairs)
    del pairs
    out += [api[0] == id(m.Box), ok, sys.getrefcount(key) - before]
print(repr(out))
'''


def test_an_array_table_gets_its_type_and_entries_in_the_initialiser_and_at_run_time(same_as_stock):
    out = translate.translate_source(ARRAY_SRC, "capsarr.c")
    assert "static void *capi[] = {NULL, (void *)api_pair__stock_abi};" in out
    assert ("    capi[0] = /* cystck-migrate: escape hatch */ (PyTypeObject *)Cystck_AsPyObject(S, "
            "Cystck_deref(S, BoxType));\n") in out
    assert "    late[1] = (void *)api_pair__stock_abi;\n" in out
    assert same_as_stock("capsarr", ARRAY_SRC, ARRAY_SCRIPT) == [True, True, 0, True, True, 0]


def test_the_type_object_is_set_before_each_statement_making_a_capsule_of_the_table():
    """Two statements making a capsule of one table (before: the type
    object was left to a human where more than one did)."""
    src = SRC.replace("static PyMethodDef methods[] = {\n    {NULL}\n};",
                      "static PyObject *\napi_again(PyObject *self, PyObject *unused)\n{\n"
                      "    return PyCapsule_New(&capi, \"capsapi._C_API\", NULL);\n}\n\n"
                      "static PyMethodDef methods[] = {\n    {\"again\", api_again, METH_NOARGS, NULL},\n    {NULL}\n};")
    out = translate.translate_source(src, "capsapi.c")
    assert out.count("    capi.boxtype = /* cystck-migrate: escape hatch */ (PyTypeObject *)Cystck_AsPyObject(S, "
                     "Cystck_deref(S, BoxType));\n") == 2
    assert "left to a human" not in str([n.message for n in translate.translate_files({"capsapi.c": src})["capsapi.c"].notes])


def test_a_capsule_made_in_an_unbraced_else_gets_the_type_object_set_in_braces(same_as_stock):
    """``else api = PyCapsule_New(...);``: the member is set inside braces
    around the branch (before: the assignment went before ``else``, a
    syntax error, or the type was left to a human)."""
    src = SRC.replace('    api = PyCapsule_New((void *)&capi, "capsapi._C_API", NULL);\n',
                      '    if (m == NULL)\n        return NULL;\n'
                      '    else api = PyCapsule_New((void *)&capi, "capsapi._C_API", NULL);\n')
    out = translate.translate_source(src, "capsapi.c")
    assert ("    else { capi.boxtype = /* cystck-migrate: escape hatch */ (PyTypeObject *)Cystck_AsPyObject(S, "
            "Cystck_deref(S, BoxType)); api = CystckCapsule_New(") in out
    assert same_as_stock("capselse", src.replace("capsapi", "capselse"), SCRIPT.replace("capsapi", "capselse"))[0] is True
