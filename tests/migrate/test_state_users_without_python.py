"""Files that use no Python API but declare or call a function that takes
the state once translated: a header's prototype of it, a plain C file
compiled into the same unit (`#include "helpers.c"`) calling it.  Copied
unchanged, the prototype said `(void)` while the definition took
`Cystck_State *S`, and the plain calls passed no S: the build failed."""
from cystck.migrate import translate

HEADER = """#ifndef SETUP_H
#define SETUP_H
#include "config.h"
int setup(void);
#endif
"""

SETUP_C = """#include "setup.h"
#include <Python.h>
int setup(void)
{
    PyErr_SetString(PyExc_RuntimeError, "no");
    return -1;
}
"""

MODULE_C = """#include <Python.h>
#include "setup.h"
static PyObject *run(PyObject *self, PyObject *args)
{
    if (setup() < 0)
        return NULL;
    Py_RETURN_NONE;
}
"""


def test_a_headers_prototype_gets_the_state_and_its_header():
    units = translate.translate_files({"setup.h": HEADER, "setup.c": SETUP_C, "module.c": MODULE_C})
    header = units["setup.h"].text
    # before: "int setup(void);" beside "int setup(Cystck_State *S)"
    assert "int setup(Cystck_State *S);" in header
    # Cystck_State is declared wherever the header is included first
    # (setup.c includes it before Python.h), inside the include guard
    assert header.index('#include "Cystck.h"\n') < header.index('#include "config.h"')
    assert header.index("#define SETUP_H") < header.index('#include "Cystck.h"')
    assert "setup(S)" in units["module.c"].text


UTILS_C = """#include <Python.h>
void *mem_alloc(Py_ssize_t n) { return PyMem_Malloc(n); }
"""

# no Python API of its own: compiled inside unity.c, after utils.c
NODE_C = """static int *node_new(int n)
{
    return (int *)mem_alloc(n * sizeof(int));
}
"""

UNITY_C = """#include <Python.h>
#include "utils.c"
#include "node.c"
static PyObject *make(PyObject *self, PyObject *arg)
{
    int *p = node_new(3);
    if (p == NULL)
        return PyErr_NoMemory();
    PyMem_Free(p);
    Py_RETURN_NONE;
}
"""


def test_a_plain_c_file_of_a_unity_build_passes_the_state_on():
    units = translate.translate_files({"utils.c": UTILS_C, "node.c": NODE_C, "unity.c": UNITY_C})
    node = units["node.c"].text
    assert "node_new(Cystck_State *S, int n)" in node
    assert "mem_alloc(S, n * sizeof(int))" in node
    assert node.startswith('#include "Cystck.h"\n')
    assert "node_new(S, 3)" in units["unity.c"].text


def test_plain_c_files_that_call_no_such_function_stay_as_they_are():
    plain = """#include "config.h"
static int twice(int n) { return 2 * n; }
int helper(int n) { return twice(n) + strlen("x"); }
"""
    # a function of its own that has a state-taking function's name
    own = """static void *mem_alloc(long n) { return 0; }
void *grab(void) { return mem_alloc(1); }
"""
    units = translate.translate_files({"utils.c": UTILS_C, "plain.c": plain, "own.c": own,
                                       "plain.h": "int helper(int n);\n"})
    assert units["plain.c"].text == plain
    assert units["own.c"].text == own
    assert units["plain.h"].text == "int helper(int n);\n"


def test_a_static_function_of_another_unit_is_not_seen():
    # utils.c's mem_alloc is static and neither file includes the other
    utils = UTILS_C.replace("void *mem_alloc", "static void *mem_alloc")
    caller = "void *grab(void) { return mem_alloc(1); }\n"
    units = translate.translate_files({"utils.c": utils, "caller.c": caller})
    assert units["caller.c"].text == caller


# A unity build's header declares the static functions of node2.c, which
# tree.c calls: all three are compiled inside unity2.c.
NODE_H = """#include <Python.h>
typedef struct { PyObject *value; } Node;
static Node *node_make(int n);
"""

NODE2_C = """static Node *node_make(int n)
{
    return (Node *)PyMem_Malloc(n * sizeof(Node));
}
"""

TREE_C = """static Node *tree_root(void)
{
    return node_make(1);
}
"""

UNITY2_C = """#include <Python.h>
#include "node.h"
#include "node2.c"
#include "tree.c"
static PyObject *root(PyObject *self, PyObject *arg)
{
    if (tree_root() == NULL)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}
"""


def test_static_functions_of_a_unity_builds_files_are_one_units():
    units = translate.translate_files({"node.h": NODE_H, "node2.c": NODE2_C, "tree.c": TREE_C,
                                       "unity2.c": UNITY2_C})
    # the header's static prototype follows its definition in a sibling
    assert "static Node *node_make(Cystck_State *S, int n);" in units["node.h"].text
    assert "static Node *node_make(Cystck_State *S, int n)\n" in units["node2.c"].text
    # a sibling's static function is the one called
    assert "node_make(S, 1)" in units["tree.c"].text
    assert "tree_root(S)" in units["unity2.c"].text


def test_static_functions_of_separate_units_stay_apart():
    # two files compiled apart, both including one header: a static
    # function of one is not the other's
    one = '#include "common.h"\n#include <Python.h>\nstatic int helper(void) { return PyErr_Occurred() != NULL; }\n'
    two = '#include "common.h"\nstatic int helper(void) { return 0; }\nint use(void) { return helper(); }\n'
    units = translate.translate_files({"common.h": "#define N 1\n", "one.c": one, "two.c": two})
    assert units["two.c"].text == two
