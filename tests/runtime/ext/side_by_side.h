/* What the tests that run each case through a Cystck function and through
 * its stock counterpart share (rt_format.c, rt_build_value.c): a case's
 * outcome goes into a list, one list a way, compared in Python.  The
 * including file defines its cases and methods. */
#ifndef SIDE_BY_SIDE_H
#define SIDE_BY_SIDE_H

#include "Cystck.h"

/* The result of one case: the value, or (exception type, str(exception)). */
static PyObject *outcome(PyObject *r)
{
    PyObject *type, *value, *tb, *pair;
    if (r != NULL)
        return r;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    pair = Py_BuildValue("(sN)", ((PyTypeObject *)type)->tp_name,
                         value != NULL ? PyObject_Str(value) : Py_NewRef(Py_None));
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return pair;
}

/* A new reference to h's object, or NULL (keeping the exception). */
static PyObject *new_ref(Cystck_State *S, Cystck_Object h)
{
    return Cystck_IsNull(h) ? NULL : Py_NewRef(Cystck_AsPyObject(S, h));
}

#define APPEND(list, o) do { PyObject *o_ = (o); PyList_Append((list), o_); Py_XDECREF(o_); } while (0)

/* O(i) of a case list: object i of the arguments as a handle (h[i]) or
 * as a PyObject* (p[i]). */
#define HANDLE(i) h[i]
#define OBJECT(i) p[i]

/* The outcomes of the cases CASES(WAY, O) run one way (WAY: the including
 * file's macro for one case; O: HANDLE or OBJECT), in a new list pushed as
 * one of the method's results.  For a method with the locals S and out;
 * a failed push returns -1 from it. */
#define PUSH_OUTCOMES(CASES, WAY, O)                                          \
    do {                                                                      \
        out = PyList_New(0);                                                  \
        CASES(WAY, O)                                                         \
        if (Cystck_Push(S, Cystck_FromNewPyObject(S, out)) < 0)               \
            return -1;                                                        \
    } while (0)

#endif
