// The typed methods of typed_ext.c, compiled as C++.
#define TYPED_EXT_CPP 1
#include "typed_ext.c"
