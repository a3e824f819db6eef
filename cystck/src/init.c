/*
 * Runtime start-up: the constant slots, the settings read from the
 * environment at import time, and the exit hook of debug mode.
 */
#include "internal.h"

#include <stdlib.h>

PyObject *_Cystck_Consts[_CYSTCK_C_COUNT];

static int initialized;

static void at_exit(void)
{
    _Cystck_RefsAtExit();
}

void _Cystck_RuntimeInit(void)
{
    const char *limit;
    if (initialized)
        return;
    initialized = 1;
    _Cystck_Consts[_CYSTCK_C_None] = Py_None;
    _Cystck_Consts[_CYSTCK_C_True] = Py_True;
    _Cystck_Consts[_CYSTCK_C_False] = Py_False;
    _Cystck_Consts[_CYSTCK_C_NotImplemented] = Py_NotImplemented;
    _Cystck_Consts[_CYSTCK_C_Ellipsis] = Py_Ellipsis;
    _Cystck_Consts[_CYSTCK_C_BaseObjectType] = (PyObject *)&PyBaseObject_Type;
    _Cystck_Consts[_CYSTCK_C_TypeType] = (PyObject *)&PyType_Type;
    _Cystck_Consts[_CYSTCK_C_LongType] = (PyObject *)&PyLong_Type;
    _Cystck_Consts[_CYSTCK_C_FloatType] = (PyObject *)&PyFloat_Type;
    _Cystck_Consts[_CYSTCK_C_BoolType] = (PyObject *)&PyBool_Type;
    _Cystck_Consts[_CYSTCK_C_ComplexType] = (PyObject *)&PyComplex_Type;
    _Cystck_Consts[_CYSTCK_C_UnicodeType] = (PyObject *)&PyUnicode_Type;
    _Cystck_Consts[_CYSTCK_C_BytesType] = (PyObject *)&PyBytes_Type;
    _Cystck_Consts[_CYSTCK_C_ByteArrayType] = (PyObject *)&PyByteArray_Type;
    _Cystck_Consts[_CYSTCK_C_ListType] = (PyObject *)&PyList_Type;
    _Cystck_Consts[_CYSTCK_C_TupleType] = (PyObject *)&PyTuple_Type;
    _Cystck_Consts[_CYSTCK_C_DictType] = (PyObject *)&PyDict_Type;
    _Cystck_Consts[_CYSTCK_C_SetType] = (PyObject *)&PySet_Type;
    _Cystck_Consts[_CYSTCK_C_FrozenSetType] = (PyObject *)&PyFrozenSet_Type;
    _Cystck_Consts[_CYSTCK_C_SliceType] = (PyObject *)&PySlice_Type;
    _Cystck_Consts[_CYSTCK_C_MemoryViewType] = (PyObject *)&PyMemoryView_Type;
    _Cystck_Consts[_CYSTCK_C_CapsuleType] = (PyObject *)&PyCapsule_Type;
    _Cystck_Consts[_CYSTCK_C_FunctionType] = (PyObject *)&PyFunction_Type;
    _Cystck_Consts[_CYSTCK_C_CFunctionType] = (PyObject *)&PyCFunction_Type;
    _Cystck_Consts[_CYSTCK_C_MethodType] = (PyObject *)&PyMethod_Type;
    _Cystck_Consts[_CYSTCK_C_ClassMethodType] = (PyObject *)&PyClassMethod_Type;
    _Cystck_Consts[_CYSTCK_C_StaticMethodType] = (PyObject *)&PyStaticMethod_Type;
    _Cystck_Consts[_CYSTCK_C_ReversedType] = (PyObject *)&PyReversed_Type;
    _Cystck_Consts[_CYSTCK_C_SuperType] = (PyObject *)&PySuper_Type;

    _Cystck_DebugInit();
    _Cystck_UnicodeInit();
    limit = getenv("CYSTCK_HANDLE_LIMIT");
    if (limit != NULL && limit[0] != '\0') {
        char *end;
        long long v = strtoll(limit, &end, 10);
        if (*end == '\0' && v > CYSTCK_INLINE_HANDLES)
            _Cystck_SetHandleLimit((Cystck_ssize_t)v);
    }
    if (_Cystck_debug)
        Py_AtExit(at_exit);
}
