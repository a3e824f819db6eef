/* Misuse: Cystck_Drop of the same handle twice.
 *
 * Stock counterpart: Py_DECREF twice for one reference
 * (stock/stock_double_decref.c).
 *
 * Debug mode: SystemError naming Cystck_Drop, at the second drop. */
#include "Cystck.h"

CYSTCK_DEF_METH(count_words_def, "count_words", count_words, CYSTCK_O,
                "count_words(s) -> len(s.split()) (buggy)")
static int count_words(Cystck_State *S, Cystck_Object self, Cystck_Object s)
{
    Cystck_Object words = CystckObject_CallMethod(S, s, "split", NULL);
    Cystck_ssize_t n;
    (void)self;
    if (Cystck_IsNull(words))
        return -1;
    n = CystckList_Size(S, words);
    Cystck_Drop(S, words);
    if (n > 1)
        Cystck_Drop(S, words);   /* @drop */
    return Cystck_Return(S, CystckLong_FromSsize_t(S, n));
}

static CystckDef *defines[] = {&count_words_def, NULL};
static CystckModuleDef module_def = {"dbg_drop_twice", NULL, 0, defines};

CYSTCK_MODINIT(dbg_drop_twice)
{
    return Cystck_Return(S, CystckModule_Create(S, &module_def));
}
