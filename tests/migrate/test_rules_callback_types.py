"""Function-pointer types without objects whose functions use the API
(``typedef int (*visit_fn)(Node *, int, void *)`` given a callback that
builds objects): the type, every function passed as it and every call
through it take ``S`` (docs/gaps.md T18)."""
from cystck.migrate import translate

WALK_C = """#include <Python.h>
typedef struct Node { struct Node *next; long key; } Node;
typedef int (*visit_fn)(Node *node, const int depth, void *extra);
typedef struct { PyObject *list; int error; } Collect;

static int walk_aux(Node *node, int depth, visit_fn visit, void *extra) {
    if (node == NULL) return 1;
    if (visit(node, depth, extra) == 0) return 0;
    return walk_aux(node->next, depth + 1, visit, extra);
}
static void walk(Node *root, visit_fn visit, void *extra) {
    walk_aux(root, 0, visit, extra);
}
static int count_plain(Node *node, const int depth, void *extra) {
    (*(int *)extra)++;
    return 1;
}
static int collect(Node *node, const int depth, void *extra) {
    Collect *c = (Collect *)extra;
    PyObject *v = PyLong_FromLong(node->key + depth);
    if (v == NULL || PyList_Append(c->list, v) < 0) { c->error = 1; Py_XDECREF(v); return 0; }
    Py_DECREF(v);
    return 1;
}
static PyObject *keys(PyObject *self, PyObject *args) {
    Node b = {NULL, 2}, a = {&b, 1};
    int k = 0;
    Collect c;
    walk(&a, count_plain, &k);
    c.list = PyList_New(0);
    c.error = 0;
    if (c.list == NULL) return NULL;
    walk(&a, collect, &c);
    return c.list;
}
static PyMethodDef methods[] = {{"keys", keys, METH_NOARGS, NULL}, {NULL}};
"""


def out_of(text):
    return translate.translate_files({"walk.c": text})["walk.c"].text


def test_a_type_given_a_function_that_uses_the_api_takes_the_state():
    out = out_of(WALK_C)
    assert "typedef int (*visit_fn)(Cystck_State *S, Node *node, const int depth, void *extra);" in out
    # the calls through a parameter of the type pass it
    assert "if (visit(S, node, depth, extra) == 0)" in out
    # the functions that call through it or pass it along take it
    assert "static int walk_aux(Cystck_State *S, Node *node, int depth, visit_fn visit, void *extra)" in out
    assert "return walk_aux(S, node->next, depth + 1, visit, extra);" in out
    assert "static void walk(Cystck_State *S, Node *root, visit_fn visit, void *extra)" in out
    assert "walk_aux(S, root, 0, visit, extra);" in out
    # every function passed as the type takes it, also one without the API
    assert "static int count_plain(Cystck_State *S, Node *node, const int depth, void *extra)" in out
    assert "static int collect(Cystck_State *S, Node *node, const int depth, void *extra)" in out
    assert "walk(S, &a, count_plain, &k);" in out and "walk(S, &a, collect, &c);" in out


def test_a_local_and_a_member_of_the_type_are_called_with_the_state():
    text = WALK_C.replace(
        "    if (visit(node, depth, extra) == 0) return 0;\n",
        "    visit_fn again = visit;\n    Hook h;\n    h.fn = visit;\n"
        "    if (again(node, depth, extra) == 0 || h.fn(node, depth, extra) == 0) return 0;\n").replace(
        "typedef struct { PyObject *list;", "typedef struct { visit_fn fn; } Hook;\ntypedef struct { PyObject *list;")
    out = out_of(text)
    assert "if (again(S, node, depth, extra) == 0 || h.fn(S, node, depth, extra) == 0) return 0;" in out


def test_a_function_assigned_to_a_variable_of_the_type_counts():
    text = WALK_C.replace("    walk(&a, collect, &c);\n",
                          "    { visit_fn f = collect; walk(&a, f, &c); }\n")
    out = out_of(text)
    assert "typedef int (*visit_fn)(Cystck_State *S, Node *node" in out
    assert "static int count_plain(Cystck_State *S," in out
    assert "{ visit_fn f = collect; walk(S, &a, f, &c); }" in out


def test_a_type_whose_functions_do_not_use_the_api_stays():
    # the near miss: only count_plain is passed as the type
    text = WALK_C.replace("    walk(&a, collect, &c);\n", "    (void)collect;\n")
    out = out_of(text)
    assert "typedef int (*visit_fn)(Node *node, const int depth, void *extra);" in out
    assert "static int walk_aux(Node *node, int depth, visit_fn visit, void *extra)" in out
    assert "if (visit(node, depth, extra) == 0) return 0;" in out
    assert "static int count_plain(Node *node, const int depth, void *extra)" in out
    assert "walk(&a, count_plain, &k);" in out
