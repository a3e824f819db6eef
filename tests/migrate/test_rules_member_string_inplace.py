"""A ``T_STRING_INPLACE`` member (a ``char`` array inside the struct, read
as a str; read-only) is a Cystck member like the other scalar kinds,
``CYSTCK_MEMBER_STRING_INPLACE``.  The blind test of T35 found it left out
("member not translated"): the attribute was missing from the translation."""
from cystck.migrate import translate

SOURCE = r'''
#include <Python.h>
#include <structmember.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    char code[4];
    long n;
} Tag;

static PyObject *
Tag_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    const char *s;
    Tag *self;
    if (!PyArg_ParseTuple(args, "s", &s))
        return NULL;
    self = (Tag *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    strncpy(self->code, s, 3);
    self->code[3] = '\0';
    self->n = (long)strlen(self->code);
    return (PyObject *)self;
}

static PyMemberDef Tag_members[] = {
    {"code", T_STRING_INPLACE, offsetof(Tag, code), READONLY, "the code"},
    {"n", T_LONG, offsetof(Tag, n), READONLY, NULL},
    {NULL}
};

static PyTypeObject TagType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "NAME.Tag",
    .tp_basicsize = sizeof(Tag),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Tag_new,
    .tp_members = Tag_members,
};

static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_NAME(void)
{
    PyObject *m;
    if (PyType_Ready(&TagType) < 0)
        return NULL;
    m = PyModule_Create(&def);
    if (m != NULL && PyModule_AddType(m, &TagType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
'''

SCRIPT = r'''
t = m.Tag("EURO")
print(repr([t.code, t.n, m.Tag("").code, outcome(setattr, t, "code", "x"), type(m.Tag.code).__name__,
            m.Tag.code.__doc__]))
'''


def test_string_inplace_member(same_as_stock):
    want = same_as_stock("inplace", SOURCE.replace("NAME", "inplace"), SCRIPT)
    assert want[:3] == ["EUR", 3, ""]


def test_string_inplace_member_is_declared():
    out = translate.translate_source(SOURCE.replace("NAME", "inplace"), "inplace.c")
    assert ('CYSTCK_DEF_MEMBER(Tag_code_member, "code", CYSTCK_MEMBER_STRING_INPLACE, Tag, code, '
            'CYSTCK_READONLY, "the code")') in out
