#ifndef NODES_H
#define NODES_H
#include <Python.h>

/* The type objects, declared for any file of the module. */
PyTypeObject Row_Type;
PyTypeObject Col_Type;

#endif
