/* Cystck_AsPyModuleDef: the PyModuleDef CPython knows a CystckModuleDef by,
 * for stock code that compares PyModule_GetDef(m) with it. */
#include "Cystck.h"

static CystckModuleDef module_def;
static CystckModuleDef never_made = {"rt_moddef_never", NULL, 0, NULL};

/* made_from_here(m): is m a module made from this extension's definition? */
CYSTCK_DEF_METH(made_from_here_def, "made_from_here", made_from_here, CYSTCK_O, NULL)
static int made_from_here(Cystck_State *S, Cystck_Object self, Cystck_Object m)
{
    PyObject *o = Cystck_AsPyObject(S, m);
    (void)self;
    if (!PyModule_Check(o))
        return Cystck_Return(S, Cystck_False);
    return Cystck_Return(S, PyModule_GetDef(o) == Cystck_AsPyModuleDef(&module_def) ? Cystck_True : Cystck_False);
}

/* never_made_is_null(): a definition no module was made from has none. */
CYSTCK_DEF_METH(never_made_is_null_def, "never_made_is_null", never_made_is_null, CYSTCK_NOARGS, NULL)
static int never_made_is_null(Cystck_State *S, Cystck_Object self)
{
    (void)self;
    return Cystck_Return(S, Cystck_AsPyModuleDef(&never_made) == NULL ? Cystck_True : Cystck_False);
}

static CystckDef *module_defines[] = {&made_from_here_def, &never_made_is_null_def, NULL};
static CystckModuleDef module_def = {"rt_moddef", "Cystck_AsPyModuleDef tests.", 0, module_defines};

CYSTCK_MODINIT(rt_moddef)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
