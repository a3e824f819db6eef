/*
 * The buffer protocol for Cystck types: what the bf_getbuffer and
 * bf_releasebuffer trampolines (cystck/defs.h) do around the extension's
 * functions.
 */
#include "internal.h"

/* r is what getbuffer returned, its frame closed.  On success the view
 * must own a reference to its exporter (view->obj), on failure none. */
int _Cystck_BufferFilled(PyObject *self, Py_buffer *view, int r)
{
    if (r < 0) {
        Py_CLEAR(view->obj);
        return -1;
    }
    if (view->obj == NULL)
        view->obj = Py_NewRef(self);
    return 0;
}

/* CPython releases buffers in error paths too, with an exception set, and
 * cannot be told of a failure: releasebuffer runs with the pending
 * exception kept aside, and an error it raises (or its frame's close, in
 * debug mode) is reported as unraisable. */
void _Cystck_StashError(PyObject *saved[3])
{
    PyErr_Fetch(&saved[0], &saved[1], &saved[2]);
}

void _Cystck_BufferReleased(PyObject *self, int r, PyObject *saved[3])
{
    if (r < 0 || PyErr_Occurred())
        PyErr_WriteUnraisable(self);
    PyErr_Restore(saved[0], saved[1], saved[2]);
}
