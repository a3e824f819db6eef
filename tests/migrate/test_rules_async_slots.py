"""A type's PyAsyncMethods table (``tp_as_async = &T_as_async`` with
am_await, am_aiter, am_anext) becomes the type's am_* slots: before, the
table was "not found" and the slots were lost (lazy-object-proxy's first
contact: its proxies could not be awaited nor iterated with ``async
for``).  am_send, which Cystck has no slot for, is still reported."""
from cystck.migrate import translate

ASYNC = r'''#include <Python.h>

typedef struct { PyObject_HEAD long n; } Ticket;

static PyObject *Ticket_await(PyObject *self)
{
    /* `await t` runs this iterator: it yields nothing, its value is n */
    PyObject *items = PyTuple_New(0);
    PyObject *it;
    if (items == NULL)
        return NULL;
    it = PyObject_GetIter(items);
    Py_DECREF(items);
    return it;
}

static PyObject *Ticket_aiter(PyObject *self)
{
    Py_INCREF(self);
    return self;
}

static PyObject *Ticket_anext(PyObject *self)
{
    Ticket *t = (Ticket *)self;
    if (t->n <= 0) {
        PyErr_SetNone(PyExc_StopAsyncIteration);
        return NULL;
    }
    t->n--;
    Py_INCREF(self);
    return self;
}

static PyAsyncMethods Ticket_as_async = {
    .am_await = Ticket_await,
    .am_aiter = Ticket_aiter,
    .am_anext = Ticket_anext,
};

static PyObject *Ticket_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    long n = 0;
    Ticket *self;
    if (!PyArg_ParseTuple(args, "|l", &n))
        return NULL;
    self = (Ticket *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->n = n;
    return (PyObject *)self;
}

static PyTypeObject TicketType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "asyncslots.Ticket",
    .tp_basicsize = sizeof(Ticket),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_as_async = &Ticket_as_async,
    .tp_new = Ticket_new,
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "asyncslots", NULL, -1, NULL};

PyMODINIT_FUNC
PyInit_asyncslots(void)
{
    if (PyType_Ready(&TicketType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&TicketType);
    if (PyModule_AddObject(m, "Ticket", (PyObject *)&TicketType) < 0)
        return NULL;
    return m;
}
'''


def test_the_async_table_gives_the_type_its_slots():
    out = translate.translate_source(ASYNC, "asyncslots.c")
    for slot in ("am_await", "am_aiter", "am_anext"):
        assert f"CYSTCK_DEF_SLOT(TicketType_{slot}, {slot}, Ticket_{slot[3:]})" in out
    assert "PyAsyncMethods" not in out


def test_am_send_is_still_reported():
    """Negative: a slot the runtime lacks stays out of the defines."""
    src = ASYNC.replace("    .am_anext = Ticket_anext,\n", "    .am_anext = Ticket_anext,\n    .am_send = NULL,\n")
    src = src.replace(".am_send = NULL", ".am_send = (sendfunc)Ticket_send")
    src = src.replace("static PyAsyncMethods", "static PySendResult Ticket_send(PyObject *s, PyObject *v, PyObject **r)\n"
                      "{\n    *r = NULL;\n    return PYGEN_ERROR;\n}\n\nstatic PyAsyncMethods")
    out = translate.translate_source(src, "asyncslots.c")
    assert "am_send" not in out.split("static CystckDef *TicketType_defines[]")[1].split("};")[0]


def test_awaiting_and_async_iteration_behave_like_the_stock_build(same_as_stock):
    script = ("import asyncio\n"
              "async def main():\n"
              "    got = [type(await m.Ticket(1)).__name__]\n"
              "    async for t in m.Ticket(3):\n"
              "        got.append(type(t).__name__)\n"
              "    return got\n"
              "print(repr(asyncio.run(main())))\n")
    want = same_as_stock("asyncslots", ASYNC, script)
    # anext hands back the ticket, and `async for` awaits it: None each time
    assert want == ["NoneType"] * 4


# Calling another type's async slot through a local (lazy-object-proxy's
# first contact: `incompatible type for argument 1 of 'meth'`): the
# slot-pointer-calls rule keeps the call, the handle lent.
FORWARD = r'''#include <Python.h>

static PyObject *aiter_of(PyObject *self, PyObject *o)
{
    unaryfunc meth = NULL;
    PyTypeObject *type = Py_TYPE(o);
    if (type->tp_as_async != NULL)
        meth = type->tp_as_async->am_aiter;
    if (meth != NULL)
        return (*meth)(o);
    PyErr_Format(PyExc_AttributeError, "'%.100s' object has no attribute '__aiter__'", type->tp_name);
    return NULL;
}

static PyMethodDef methods[] = {
    {"aiter_of", aiter_of, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "asyncforward", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_asyncforward(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_a_slot_read_into_a_unaryfunc_is_called_through_the_escape_hatch():
    out = translate.translate_source(FORWARD, "asyncforward.c")
    assert ("Cystck_FromNewPyObject(S, /* cystck-migrate: escape hatch */ (*meth)((Cystck_IsNull(o) ? NULL : "
            "Cystck_AsPyObject(S, o))))") in out


def test_a_unaryfunc_holding_the_extensions_function_is_left_alone():
    """Negative: ``unaryfunc own = f;`` holds no slot read."""
    own = ("static PyObject *own_call(PyObject *self, PyObject *o)\n{\n"
           "    unaryfunc own = PyNumber_Negative;\n    return (*own)(o);\n}\n")
    out = translate.translate_source(FORWARD.replace("static PyMethodDef", own + "static PyMethodDef"),
                                     "asyncforward.c")
    assert "(*own)(o)" in out and "(*own)((Cystck" not in out


def test_forwarding_a_types_aiter_behaves_like_the_stock_build(same_as_stock):
    script = ("async def agen():\n    yield 1\n"
              "g = agen()\n"
              "print(repr([m.aiter_of(g) is g, outcome(m.aiter_of, 3)]))\n")
    want = same_as_stock("asyncforward", FORWARD, script)
    assert want == [True, ("AttributeError", "'int' object has no attribute '__aiter__'")]
