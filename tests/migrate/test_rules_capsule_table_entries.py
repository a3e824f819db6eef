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
