/*
 * Module slots: multi-phase initialization (PEP 489) and the traverse of a
 * module state holding Cystck_Fields.  The PyModuleDef itself is built in
 * types.c (pydef_for); this file fills its slot array and its GC hooks.
 */
#include "internal.h"

/* The GC hooks of a module with a traverse define: clearing and freeing
 * both clear the state's fields through the traverse function, as the
 * runtime's tp_clear and tp_dealloc do for instances. */
static void clear_state_fields(PyObject *module)
{
    PyModuleDef *def = PyModule_GetDef(module);
    if (def != NULL && def->m_traverse != NULL)
        def->m_traverse(module, _Cystck_ClearVisitMarker, NULL);
}

static int module_clear(PyObject *module)
{
    clear_state_fields(module);
    return 0;
}

static void module_free(void *module)
{
    clear_state_fields((PyObject *)module);
}

/* The runtime's globals (the free list of references, the table of module
 * definitions) rely on the GIL: a module may run in several interpreters
 * sharing one GIL, not in one with its own GIL or with no GIL at all.
 * Stronger declarations become the strongest the runtime supports, so the
 * interpreter refuses the import where it would be unsafe. */
static void *value_the_runtime_supports(int slot, void *value)
{
#ifdef Py_mod_multiple_interpreters
    if (slot == Py_mod_multiple_interpreters && value == Py_MOD_PER_INTERPRETER_GIL_SUPPORTED)
        return Py_MOD_MULTIPLE_INTERPRETERS_SUPPORTED;
#endif
#ifdef Py_mod_gil
    if (slot == Py_mod_gil && value == Py_MOD_GIL_NOT_USED)
        return Py_MOD_GIL_USED;
#endif
    (void)slot;
    return value;
}

int _Cystck_SetModuleSlots(PyModuleDef *pydef, const CystckModuleDef *def)
{
    Py_ssize_t n = 0;
    CystckDef **d;
    PyModuleDef_Slot *slots;

    for (d = def->defines; *d != NULL; d++)
        n += (*d)->kind == CystckDef_Slot;
    slots = (PyModuleDef_Slot *)PyMem_RawCalloc((size_t)n + 1, sizeof(PyModuleDef_Slot));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    n = 0;
    for (d = def->defines; *d != NULL; d++) {
        PyType_Slot s = (*d)->slot;
        if ((*d)->kind != CystckDef_Slot)
            continue;
        if (s.slot == _CYSTCK_MOD_TRAVERSE_SLOT) {
            pydef->m_traverse = (traverseproc)s.pfunc;
            pydef->m_clear = module_clear;
            pydef->m_free = module_free;
            continue;
        }
        slots[n].slot = s.slot;
        slots[n++].value = value_the_runtime_supports(s.slot, s.pfunc);
    }
    if (n == 0) {          /* only a traverse: the module may be single-phase */
        PyMem_RawFree(slots);
        return 0;
    }
    pydef->m_slots = slots;
    if (pydef->m_size < 0)     /* "no state" is 0 in multi-phase init */
        pydef->m_size = 0;
    return 0;
}
