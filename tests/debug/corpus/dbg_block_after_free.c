/* Misuse: a native block used after its last policy was released.
 *
 * A block from CystckMem_Malloc lives while a policy holds it: the
 * explicit-free policy (until CystckMem_Free) or a Python view of it.  Once
 * the last one is gone the block is dead.  Stock counterpart: use after
 * PyMem_Free, which reads or corrupts freed memory.
 *
 * Debug mode keeps dead blocks poisoned: the CystckMem_* function that gets
 * one raises SystemError naming itself. */
#include "Cystck.h"

#include <string.h>

CYSTCK_DEF_METH(greeting_def, "greeting", greeting, CYSTCK_NOARGS,
                "a memoryview of b'hello' (buggy: frees the block first)")
static int greeting(Cystck_State *S, Cystck_Object self)
{
    char *p = (char *)CystckMem_Malloc(S, 5);
    (void)self;
    if (p == NULL)
        return -1;
    memcpy(p, "hello", 5);
    CystckMem_Free(S, p);
    return Cystck_Return(S, CystckMem_AsMemoryView(S, p, 5, 1));   /* @use */
}

CYSTCK_DEF_METH(free_twice_def, "free_twice", free_twice, CYSTCK_NOARGS,
                "allocate a block and free it twice (buggy)")
static int free_twice(Cystck_State *S, Cystck_Object self)
{
    void *p = CystckMem_Malloc(S, 64);
    (void)self;
    if (p == NULL)
        return -1;
    CystckMem_Free(S, p);
    CystckMem_Free(S, p);   /* @free */
    return CystckErr_Occurred(S) ? -1 : 0;
}

static CystckDef *defines[] = {&greeting_def, &free_twice_def, NULL};
static CystckModuleDef module_def = {"dbg_block_after_free", NULL, 0, defines};

CYSTCK_MODINIT(dbg_block_after_free)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
