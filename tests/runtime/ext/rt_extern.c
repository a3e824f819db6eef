/* An implementation in another file than the method table that lists it. */
#include "Cystck.h"

int rt_extern_twice(Cystck_State *S, Cystck_Object self, Cystck_Object arg);

int rt_extern_twice(Cystck_State *S, Cystck_Object self, Cystck_Object arg)
{
    (void)self;
    return Cystck_Return(S, CystckNumber_Add(S, arg, arg));
}
