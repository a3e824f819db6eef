"""A type shared by two modules through a capsule (bitarray 3.12.3:
``_bitarray`` exports ``&Bitarray_Type``, ``_util`` imports it and reads
its instances' struct): the exporter's ``(void *) &Foo_Type`` became a
handle cast to a pointer, the importer's ``(PyTypeObject *)
PyCapsule_Import(...)`` a ``void *`` stored as a reference, and a macro
reading the imported type global passed the reference itself (3 --check
errors).  Now the capsule holds the object's address, lent through the
escape hatch, the importer gives the pointer a handle, and the macro reads
``Cystck_deref(S, g)``.  Both modules built stock and translated answer
alike, in release and with CYSTCK_DEBUG=1."""
import subprocess
import sys

from cystck.build import build_extension
from cystck.migrate import cli, translate

STRUCT = "typedef struct { PyObject_HEAD long n; } Obj;\n"

EXPORTER = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
''' + STRUCT + r'''
static PyObject *Obj_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    long n;
    Obj *self;
    if (!PyArg_ParseTuple(args, "l", &n))
        return NULL;
    self = (Obj *) type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->n = n;
    return (PyObject *) self;
}

static PyTypeObject Obj_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "capexp.Obj",
    .tp_basicsize = sizeof(Obj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Obj_new,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "capexp", NULL, -1, NULL};

PyMODINIT_FUNC PyInit_capexp(void)
{
    PyObject *m, *capsule;
    if (PyType_Ready(&Obj_Type) < 0)
        return NULL;
    m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&Obj_Type);
    if (PyModule_AddObject(m, "Obj", (PyObject *) &Obj_Type) < 0)
        return NULL;
    capsule = PyCapsule_New((void *) &Obj_Type, "capexp._C_API", NULL);
    if (capsule == NULL)
        return NULL;
    if (PyModule_AddObject(m, "_C_API", capsule) < 0)
        return NULL;
    return m;
}
'''

IMPORTER = r'''#define PY_SSIZE_T_CLEAN
#include <Python.h>
''' + STRUCT + r'''
static PyTypeObject *obj_type;

#define Obj_Check(o)  PyObject_TypeCheck((o), obj_type)

static PyObject *twice(PyObject *module, PyObject *o)
{
    if (!Obj_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "Obj expected");
        return NULL;
    }
    return PyLong_FromLong(2 * ((Obj *) o)->n);
}

static PyObject *parse(PyObject *module, PyObject *args)
{
    Obj *a;
    if (!PyArg_ParseTuple(args, "O!", obj_type, &a))
        return NULL;
    return PyLong_FromLong(a->n + 1);
}

static PyMethodDef methods[] = {
    {"twice", twice, METH_O, NULL},
    {"parse", parse, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "capimp", NULL, -1, methods};

PyMODINIT_FUNC PyInit_capimp(void)
{
    obj_type = (PyTypeObject *)
        PyCapsule_Import("capexp._C_API", 0);
    if (obj_type == NULL)
        return NULL;
    return PyModule_Create(&moddef);
}
'''

SCRIPT = r'''
import sys
sys.path[:0] = sys.argv[1:]
import capexp, capimp
o = capexp.Obj(20)
out = [capimp.twice(o), capimp.parse(o)]
for f, a in ((capimp.twice, 3), (capimp.parse, (3,))):
    try:
        f(*a) if isinstance(a, tuple) else f(a)
    except TypeError as e:
        out.append(type(e).__name__)
print(repr(out))
'''


def test_the_capsule_holds_the_address_and_the_importer_a_handle():
    out = translate.translate_source(EXPORTER, "capexp.c")
    assert ("CystckCapsule_New(S, (void *) /* cystck-migrate: escape hatch */ "
            "Cystck_AsPyObject(S, Cystck_deref(S, Obj_Type)), \"capexp._C_API\", NULL)") in out
    out = translate.translate_source(IMPORTER, "capimp.c")
    assert ("obj_type = Cystck_ref(S, Cystck_FromPyObject(S, /* cystck-migrate: escape hatch */ "
            "(PyObject *) CystckCapsule_Import(S, \"capexp._C_API\", 0)));") in out
    assert "#define Obj_Check(o)  CystckObject_TypeCheck(S, (o), Cystck_deref(S, obj_type))" in out


def test_a_void_pointer_that_is_no_object_stays():
    src = IMPORTER.replace("static PyTypeObject *obj_type;", "static PyTypeObject *obj_type;\nstatic void *table;")
    src = src.replace("    return PyModule_Create(&moddef);",
                      "    table = PyCapsule_Import(\"capexp._T\", 0);\n"
                      "    memcpy((void *) &table, (void *) buf, 1);\n    return PyModule_Create(&moddef);")
    out = translate.translate_source(src, "capimp.c")
    assert "    table = CystckCapsule_Import(S, \"capexp._T\", 0);\n" in out
    assert "memcpy((void *) &table, (void *) buf, 1);" in out


def test_both_modules_translated_behave_like_the_stock_builds(tmp_path):
    stock = tmp_path / "stock"
    stock.mkdir()
    (stock / "capexp.c").write_text(EXPORTER)
    (stock / "capimp.c").write_text(IMPORTER)
    out = tmp_path / "cystck"
    assert cli.main([str(stock), "-o", str(out), "-q", "--no-cppcheck", "--check"]) == 0
    results = []
    for variant, src, use in (("stock", stock, False), ("cystck", out, True)):
        dirs = [str(build_extension(n, [src / f"{n}.c"], tmp_path / f"{variant}-{n}", use_cystck=use).parent)
                for n in ("capexp", "capimp")]
        for debug in ((False, True) if use else (False,)):
            env = {"PATH": "", **({"CYSTCK_DEBUG": "1"} if debug else {})}
            r = subprocess.run([sys.executable, "-c", SCRIPT, *dirs], capture_output=True, text=True, env=env)
            assert r.returncode == 0, r.stderr
            results.append(eval(r.stdout))
    assert results[0] == [40, 21, "TypeError", "TypeError"]
    assert results[1:] == [results[0]] * 2
