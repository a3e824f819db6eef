/* Types Python code cannot instantiate: a cursor only cursor() makes
 * (tp_new set to NULL after PyType_Ready), a token with no tp_new at all,
 * and, for contrast, a box that Python may create. */
#include <Python.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyObject *items;
    Py_ssize_t pos;
} Cursor;

static void Cursor_dealloc(Cursor *self)
{
    PyObject_GC_UnTrack(self);
    Py_XDECREF(self->items);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Cursor_traverse(Cursor *self, visitproc visit, void *arg)
{
    Py_VISIT(self->items);
    return 0;
}

static PyObject *Cursor_next(Cursor *self, PyObject *unused)
{
    PyObject *item;
    if (self->pos >= PyList_Size(self->items)) {
        PyErr_SetString(PyExc_IndexError, "no more items");
        return NULL;
    }
    item = PyList_GetItem(self->items, self->pos);
    if (item == NULL)
        return NULL;
    self->pos++;
    Py_INCREF(item);
    return item;
}

static PyMethodDef Cursor_methods[] = {
    {"next", (PyCFunction)Cursor_next, METH_NOARGS, "the next item"},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject CursorType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sealed.Cursor",
    .tp_basicsize = sizeof(Cursor),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_dealloc = (destructor)Cursor_dealloc,
    .tp_traverse = (traverseproc)Cursor_traverse,
    .tp_methods = Cursor_methods,
    .tp_new = PyType_GenericNew,
};

typedef struct {
    PyObject_HEAD
    long id;
} Token;

static PyMemberDef Token_members[] = {
    {"id", T_LONG, offsetof(Token, id), READONLY, "the token's number"},
    {NULL, 0, 0, 0, NULL}
};

static PyTypeObject TokenType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sealed.Token",
    .tp_basicsize = sizeof(Token),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_members = Token_members,
};

static PyTypeObject BoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sealed.Box",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
};

static PyObject *cursor(PyObject *self, PyObject *items)
{
    Cursor *c;
    if (!PyList_Check(items)) {
        PyErr_SetString(PyExc_TypeError, "cursor() needs a list");
        return NULL;
    }
    c = PyObject_GC_New(Cursor, &CursorType);
    if (c == NULL)
        return NULL;
    Py_INCREF(items);
    c->items = items;
    c->pos = 0;
    PyObject_GC_Track(c);
    return (PyObject *)c;
}

static PyObject *token(PyObject *self, PyObject *arg)
{
    Token *t;
    long id = PyLong_AsLong(arg);
    if (id == -1 && PyErr_Occurred())
        return NULL;
    t = PyObject_New(Token, &TokenType);
    if (t == NULL)
        return NULL;
    t->id = id;
    return (PyObject *)t;
}

static PyMethodDef methods[] = {
    {"cursor", cursor, METH_O, "a Cursor over a list"},
    {"token", token, METH_O, "a Token with that number"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "sealed", "Types Python cannot instantiate.", -1, methods
};

PyMODINIT_FUNC PyInit_sealed(void)
{
    PyObject *m;
    if (PyType_Ready(&CursorType) < 0 || PyType_Ready(&TokenType) < 0 || PyType_Ready(&BoxType) < 0)
        return NULL;
    CursorType.tp_new = NULL;
    m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    if (PyModule_AddType(m, &CursorType) < 0 || PyModule_AddType(m, &TokenType) < 0 ||
        PyModule_AddType(m, &BoxType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
