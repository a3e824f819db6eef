/*
 * References that outlive a call (the paper's Cystck_ref/Cystck_unref).
 *
 * A reference is a cell holding one strong reference.  Cells are recycled
 * through a free list; in debug mode they are never recycled, so releasing
 * one twice is detected, and the cells still live at exit are reported
 * with the place that created them.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

int _Cystck_in_module_init = 0;

static Cystck_Ref free_cells;
static Cystck_Ref debug_cells;     /* every cell ever made, debug mode only */

Cystck_Ref Cystck_ref(Cystck_State *S, Cystck_Object h)
{
    PyObject *o = _Cystck_Get(h);
    Cystck_Ref r;
    if (o == NULL) {
        _Cystck_BadArgAt(S, "Cystck_ref", h, _CYSTCK_CALLER());
        return NULL;
    }
    if (free_cells != NULL && !_Cystck_debug) {
        r = free_cells;
        free_cells = r->next;
    }
    else {
        r = (Cystck_Ref)PyMem_RawCalloc(1, sizeof(*r));
        if (r == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        if (_Cystck_debug) {
            r->next = debug_cells;
            debug_cells = r;
        }
    }
    r->creator = _CYSTCK_CALLER();   /* NULL where unknown: a recycled cell keeps no stale one */
    Py_INCREF(o);
    r->obj = o;
    r->live = 1;
    r->global = _Cystck_in_module_init > 0;
    return r;
}

void Cystck_unref(Cystck_State *S, Cystck_Ref r)
{
    PyObject *o;
    (void)S;
    if (r == NULL)
        return;
    if (!r->live) {
        _Cystck_SyncDebug(S);     /* so that closing the frame checks it */
        if (!PyErr_Occurred()) {
            char at[512], made[512];
            _Cystck_DescribeAddress(_CYSTCK_CALLER(), at, sizeof(at));
            _Cystck_DescribeAddress(r->creator, made, sizeof(made));
            PyErr_Format(PyExc_SystemError,
                         "Cystck_unref: reference released twice, at %s (created at %s)%s",
                         at, made, _Cystck_debug ? " [CYSTCK_DEBUG]" : "");
        }
        return;
    }
    o = r->obj;
    r->obj = NULL;
    r->live = 0;
    if (!_Cystck_debug) {
        r->next = free_cells;
        free_cells = r;
    }
    Py_XDECREF(o);
}

/* Cystck_VISIT_REF: the GC visits the reference's object (a cell's obj
 * is laid out as a Cystck_Field); clearing the module releases it. */
int _Cystck_VisitRef(Cystck_Ref *r, Cystck_visitproc visit, void *arg)
{
    Cystck_Ref cell = *r;
    if (cell == NULL || !cell->live)
        return 0;
    if (visit == _Cystck_ReleaseField) {
        *r = NULL;
        Cystck_unref(NULL, cell);
        return 0;
    }
    /* Held by a live module's state: it lives with the module, as one made
     * during init (a module still alive at exit is not the extension's
     * leak; freeing the module releases it). */
    cell->global = 1;
    return visit((Cystck_Field *)(void *)&cell->obj, arg);
}

void _Cystck_RefsAtExit(void)
{
    Cystck_Ref r;
    for (r = debug_cells; r != NULL; r = r->next) {
        char where[256];
        if (!r->live || r->global)
            continue;
        _Cystck_DescribeAddress(r->creator, where, sizeof(where));
        /* Runs after the interpreter has finalized: plain stderr. */
        fprintf(stderr, "ResourceWarning: Cystck reference never released "
                "(created by Cystck_ref in %s) [CYSTCK_DEBUG]\n", where);
    }
}

/* A null or released reference passed to Cystck_deref. */
CYSTCK_NOINLINE void _Cystck_BadRef_Ool(Cystck_State *S, const char *func, Cystck_Ref r)
{
    char at[512], made[512];
    _Cystck_SyncDebug(S);     /* so that closing the frame checks it */
    if (PyErr_Occurred())
        return;
    _Cystck_DescribeAddress(_CYSTCK_CALLER(), at, sizeof(at));
    if (r == NULL) {
        PyErr_Format(PyExc_SystemError, "%s: null reference (Cystck_ref failed, or the "
                     "reference was never made), at %s", func, at);
        return;
    }
    _Cystck_DescribeAddress(r->creator, made, sizeof(made));
    PyErr_Format(PyExc_SystemError, "%s: reference already released by Cystck_unref "
                 "(created at %s), at %s%s", func, made, at,
                 _Cystck_debug ? " [CYSTCK_DEBUG]" : "");
}

/* The reference whose cell `slot` is (a handle made by Cystck_deref), or
 * NULL.  Debug mode only: its cells are never recycled. */
Cystck_Ref _Cystck_DebugRefOfSlot(PyObject **slot)
{
    Cystck_Ref r;
    for (r = debug_cells; r != NULL; r = r->next)
        if (&r->obj == slot)
            return r;
    return NULL;
}
