/* Money in integer cents, written with the stock C API: an immutable
 * hashable value type with the number protocol, class and static
 * methods and pickling; a mutable wallet with in-place operators and a
 * with-block that rolls back; a
 * generator-like installment iterator whose end carries a value; an
 * exception hierarchy whose instances
 * carry attributes; a capsule of exchange rates handed from one function
 * to another; module-level mutable state cleared by m_free. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>
#include <stdio.h>

#define RATES_CAPSULE "tills.rates"
#define MAX_PARTS 1000

typedef struct {
    PyObject_HEAD
    long long cents;
    char currency[4];
} MoneyObject;

typedef struct {
    PyObject_HEAD
    PyObject *balances;         /* dict: currency str -> int cents */
    PyObject *owner;
    PyObject *snapshot;         /* copy of the balances inside a with block */
} WalletObject;

typedef struct {
    PyObject_HEAD
    long long remaining;
    long long paid;
    Py_ssize_t parts;
    Py_ssize_t done;
    char currency[4];
} InstallmentsObject;

typedef struct {
    char code[4];
    double per_usd;
} Rate;

static PyTypeObject MoneyType;
static PyTypeObject WalletType;
static PyTypeObject InstallmentsType;

static PyObject *TillsError;
static PyObject *CurrencyMismatch;
static PyObject *InsufficientFunds;

/* module-level mutable state */
static PyObject *registry = NULL;   /* dict: code -> symbol */
static long operations = 0;

/* ---------------------------------------------------------------- helpers */

static int
currency_converter(PyObject *obj, void *out)
{
    char *code = (char *)out;
    const char *s;
    Py_ssize_t n, i;

    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "currency must be str, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return 0;
    }
    s = PyUnicode_AsUTF8AndSize(obj, &n);
    if (s == NULL)
        return 0;
    if (n != 3) {
        PyErr_Format(TillsError, "currency code must have 3 letters, got %R", obj);
        return 0;
    }
    for (i = 0; i < 3; i++) {
        if (s[i] < 'A' || s[i] > 'Z') {
            PyErr_Format(TillsError, "bad currency code %R", obj);
            return 0;
        }
        code[i] = s[i];
    }
    code[3] = '\0';
    return 1;
}

static PyObject *
new_money(PyTypeObject *type, long long cents, const char *currency)
{
    MoneyObject *self = (MoneyObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->cents = cents;
    memcpy(self->currency, currency, 4);
    operations++;
    return (PyObject *)self;
}

static void
raise_mismatch(const char *left, const char *right)
{
    PyObject *exc = PyObject_CallFunction(CurrencyMismatch, "s", "currencies differ");
    PyObject *l = PyUnicode_FromString(left), *r = PyUnicode_FromString(right);

    if (exc != NULL && l != NULL && r != NULL &&
        PyObject_SetAttrString(exc, "left", l) == 0 &&
        PyObject_SetAttrString(exc, "right", r) == 0)
        PyErr_SetObject(CurrencyMismatch, exc);
    Py_XDECREF(exc);
    Py_XDECREF(l);
    Py_XDECREF(r);
}

/* ------------------------------------------------------------------ Money */

static PyObject *
Money_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"cents", "currency", NULL};
    long long cents;
    char currency[4] = "USD";

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "L|O&:Money", kwlist,
                                     &cents, currency_converter, currency))
        return NULL;
    return new_money(type, cents, currency);
}

static PyObject *
Money_repr(MoneyObject *self)
{
    return PyUnicode_FromFormat("%s(%lld, '%s')", Py_TYPE(self)->tp_name,
                                self->cents, self->currency);
}

static PyObject *
Money_str(MoneyObject *self)
{
    long long a = self->cents < 0 ? -self->cents : self->cents;
    PyObject *symbol = registry ? PyDict_GetItemString(registry, self->currency) : NULL;

    if (symbol != NULL)
        return PyUnicode_FromFormat("%s%U%lld.%02d", self->cents < 0 ? "-" : "", symbol,
                                    a / 100, (int)(a % 100));
    return PyUnicode_FromFormat("%s%lld.%02d %s", self->cents < 0 ? "-" : "",
                                a / 100, (int)(a % 100), self->currency);
}

static Py_hash_t
Money_hash(MoneyObject *self)
{
    PyObject *key = Py_BuildValue("(Ls)", self->cents, self->currency);
    Py_hash_t h;
    if (key == NULL)
        return -1;
    h = PyObject_Hash(key);
    Py_DECREF(key);
    return h;
}

static PyObject *
Money_richcompare(PyObject *a, PyObject *b, int op)
{
    MoneyObject *x, *y;

    if (!PyObject_TypeCheck(a, &MoneyType) || !PyObject_TypeCheck(b, &MoneyType))
        Py_RETURN_NOTIMPLEMENTED;
    x = (MoneyObject *)a;
    y = (MoneyObject *)b;
    if (strcmp(x->currency, y->currency) != 0) {
        if (op == Py_EQ)
            Py_RETURN_FALSE;
        if (op == Py_NE)
            Py_RETURN_TRUE;
        raise_mismatch(x->currency, y->currency);
        return NULL;
    }
    Py_RETURN_RICHCOMPARE(x->cents, y->cents, op);
}

static PyObject *
money_sum(PyObject *a, PyObject *b, int sign)
{
    MoneyObject *x, *y;
    if (!PyObject_TypeCheck(a, &MoneyType) || !PyObject_TypeCheck(b, &MoneyType))
        Py_RETURN_NOTIMPLEMENTED;
    x = (MoneyObject *)a;
    y = (MoneyObject *)b;
    if (strcmp(x->currency, y->currency) != 0) {
        raise_mismatch(x->currency, y->currency);
        return NULL;
    }
    return new_money(Py_TYPE(a), x->cents + sign * y->cents, x->currency);
}

static PyObject *Money_add(PyObject *a, PyObject *b) { return money_sum(a, b, 1); }
static PyObject *Money_subtract(PyObject *a, PyObject *b) { return money_sum(a, b, -1); }

static PyNumberMethods Money_as_number = {
    .nb_add = Money_add,
    .nb_subtract = Money_subtract,
};

static PyObject *
Money_reduce(MoneyObject *self, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("O(Ls)", (PyObject *)Py_TYPE(self), self->cents, self->currency);
}

static PyObject *
Money_parse(PyObject *cls, PyObject *arg)
{
    const char *text;
    char code[8];
    double amount;
    int used = 0;

    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "parse() expects a str");
        return NULL;
    }
    text = PyUnicode_AsUTF8(arg);
    if (text == NULL)
        return NULL;
    if (sscanf(text, "%lf %7s%n", &amount, code, &used) != 2 || text[used] != '\0') {
        PyErr_Format(TillsError, "cannot parse %R", arg);
        return NULL;
    }
    return PyObject_CallFunction(cls, "Ls", (long long)(amount * 100.0 + (amount < 0 ? -0.5 : 0.5)), code);
}

static PyObject *
Money_round_cents(PyObject *Py_UNUSED(ignored), PyObject *const *args, Py_ssize_t nargs)
{
    double amount;
    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError, "round_cents expected 1 argument, got %zd", nargs);
        return NULL;
    }
    amount = PyFloat_AsDouble(args[0]);
    if (amount == -1.0 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLongLong((long long)(amount * 100.0 + (amount < 0 ? -0.5 : 0.5)));
}

static PyObject *
Money_split(MoneyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    /* split(parts, *, remainder_first=True) -> tuple of Money */
    Py_ssize_t i, parts;
    int first = 1;
    long long share, rest;
    PyObject *result;

    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError, "split() takes 1 positional argument (%zd given)", nargs);
        return NULL;
    }
    for (i = 0; kwnames != NULL && i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        if (!PyUnicode_Check(name) || PyUnicode_CompareWithASCIIString(name, "remainder_first") != 0) {
            PyErr_Format(PyExc_TypeError, "split() got an unexpected keyword argument '%S'", name);
            return NULL;
        }
        if ((first = PyObject_IsTrue(args[nargs + i])) < 0)
            return NULL;
    }
    parts = PyLong_AsSsize_t(args[0]);
    if (parts == -1 && PyErr_Occurred())
        return NULL;
    if (parts < 1 || parts > MAX_PARTS)
        return PyErr_Format(PyExc_ValueError, "parts must be between 1 and %d", MAX_PARTS);
    share = self->cents / parts;
    rest = self->cents % parts;
    if ((result = PyTuple_New(parts)) == NULL)
        return NULL;
    for (i = 0; i < parts; i++) {
        Py_ssize_t k = first ? i : parts - 1 - i;
        PyObject *m = new_money(Py_TYPE(self), share + (k < rest ? 1 : 0), self->currency);
        if (m == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, i, m);
    }
    return result;
}

static PyObject *Money_installments(MoneyObject *self, PyObject *args);

static PyMethodDef Money_methods[] = {
    {"__reduce__", (PyCFunction)Money_reduce, METH_NOARGS, "pickle support"},
    {"parse", (PyCFunction)Money_parse, METH_O | METH_CLASS, "Money.parse('12.50 EUR')"},
    {"round_cents", (PyCFunction)(void (*)(void))Money_round_cents, METH_FASTCALL | METH_STATIC,
     "round an amount to whole cents"},
    {"split", (PyCFunction)(void (*)(void))Money_split, METH_FASTCALL | METH_KEYWORDS,
     "split into nearly equal parts"},
    {"installments", (PyCFunction)Money_installments, METH_VARARGS, "iterate over n parts"},
    {NULL}
};

static PyMemberDef Money_members[] = {
    {"cents", T_LONGLONG, offsetof(MoneyObject, cents), READONLY, "amount in cents"},
    {"currency", T_STRING_INPLACE, offsetof(MoneyObject, currency), READONLY, "ISO code"},
    {NULL}
};

static PyTypeObject MoneyType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tills.Money",
    .tp_basicsize = sizeof(MoneyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "An amount of money in cents.",
    .tp_new = Money_new,
    .tp_repr = (reprfunc)Money_repr,
    .tp_str = (reprfunc)Money_str,
    .tp_hash = (hashfunc)Money_hash,
    .tp_richcompare = Money_richcompare,
    .tp_as_number = &Money_as_number,
    .tp_methods = Money_methods,
    .tp_members = Money_members,
};

/* ----------------------------------------------------------- Installments */

static PyObject *
Money_installments(MoneyObject *self, PyObject *args)
{
    Py_ssize_t parts;
    InstallmentsObject *it;

    if (!PyArg_ParseTuple(args, "n:installments", &parts))
        return NULL;
    if (parts < 1 || parts > MAX_PARTS) {
        PyErr_Format(PyExc_ValueError, "installments must be between 1 and %d", MAX_PARTS);
        return NULL;
    }
    it = PyObject_New(InstallmentsObject, &InstallmentsType);
    if (it == NULL)
        return NULL;
    it->remaining = self->cents;
    it->paid = 0;
    it->parts = parts;
    it->done = 0;
    memcpy(it->currency, self->currency, 4);
    return (PyObject *)it;
}

static PyObject *
installments_finish(InstallmentsObject *it)
{
    /* StopIteration whose value is (parts, paid): built as an instance so
     * that the tuple is not taken as the argument list */
    PyObject *value, *exc;

    value = Py_BuildValue("(nL)", it->done, it->paid);
    if (value == NULL)
        return NULL;
    exc = PyObject_CallOneArg(PyExc_StopIteration, value);
    Py_DECREF(value);
    if (exc == NULL)
        return NULL;
    PyErr_SetObject(PyExc_StopIteration, exc);
    Py_DECREF(exc);
    return NULL;
}

static PyObject *
installments_step(InstallmentsObject *it)
{
    long long share;
    if (it->done >= it->parts)
        return installments_finish(it);
    share = it->remaining / (it->parts - it->done);
    it->remaining -= share;
    it->paid += share;
    it->done++;
    return new_money(&MoneyType, share, it->currency);
}

static PyObject *
Installments_next(InstallmentsObject *it)
{
    return installments_step(it);
}

static PyTypeObject InstallmentsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tills.Installments",
    .tp_basicsize = sizeof(InstallmentsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)Installments_next,
};

/* ----------------------------------------------------------------- Wallet */

static PyObject *
Wallet_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"owner", NULL};
    PyObject *owner = Py_None;
    WalletObject *self;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$O:Wallet", kwlist, &owner))
        return NULL;
    self = (WalletObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->balances = PyDict_New();
    if (self->balances == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    Py_INCREF(owner);
    self->owner = owner;
    return (PyObject *)self;
}

static int
Wallet_traverse(WalletObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->balances);
    Py_VISIT(self->owner);
    Py_VISIT(self->snapshot);
    return 0;
}

static int
Wallet_clear(WalletObject *self)
{
    Py_CLEAR(self->balances);
    Py_CLEAR(self->owner);
    Py_CLEAR(self->snapshot);
    return 0;
}

static void
Wallet_dealloc(WalletObject *self)
{
    PyObject_GC_UnTrack(self);
    Wallet_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
wallet_deposit(WalletObject *self, MoneyObject *m, int sign)
{
    PyObject *old, *now;
    long long have = 0;

    old = PyDict_GetItemString(self->balances, m->currency);
    if (old != NULL) {
        have = PyLong_AsLongLong(old);
        if (have == -1 && PyErr_Occurred())
            return -1;
    }
    if (sign < 0 && have < m->cents) {
        PyObject *missing, *exc = PyObject_CallFunction(InsufficientFunds, "s", "not enough money");
        if (exc == NULL)
            return -1;
        missing = PyLong_FromLongLong(m->cents - have);
        if (missing == NULL || PyObject_SetAttrString(exc, "missing", missing) < 0) {
            Py_XDECREF(missing);
            Py_DECREF(exc);
            return -1;
        }
        Py_DECREF(missing);
        PyErr_SetObject(InsufficientFunds, exc);
        Py_DECREF(exc);
        return -1;
    }
    now = PyLong_FromLongLong(have + sign * m->cents);
    if (now == NULL)
        return -1;
    if (PyDict_SetItemString(self->balances, m->currency, now) < 0) {
        Py_DECREF(now);
        return -1;
    }
    Py_DECREF(now);
    operations++;
    return 0;
}

static PyObject *
wallet_move(WalletObject *self, PyObject *other, int sign)
{
    if (!PyObject_TypeCheck(other, &MoneyType))
        Py_RETURN_NOTIMPLEMENTED;
    if (wallet_deposit(self, (MoneyObject *)other, sign) < 0)
        return NULL;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *Wallet_inplace_add(WalletObject *self, PyObject *other) { return wallet_move(self, other, 1); }
static PyObject *Wallet_inplace_subtract(WalletObject *self, PyObject *other) { return wallet_move(self, other, -1); }

static PyObject *
Wallet_total(WalletObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"currency", "rates", NULL};
    char code[4];
    PyObject *capsule = NULL;
    Rate *rates = NULL;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    double total = 0.0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|O!:total", kwlist,
                                     currency_converter, code, &PyCapsule_Type, &capsule))
        return NULL;
    if (capsule != NULL) {
        rates = (Rate *)PyCapsule_GetPointer(capsule, RATES_CAPSULE);
        if (rates == NULL)
            return NULL;
    }
    while (PyDict_Next(self->balances, &pos, &key, &value)) {
        const char *k = PyUnicode_AsUTF8(key);
        long long cents = PyLong_AsLongLong(value);
        double from = 0.0, to = 0.0;
        Rate *r;

        if (k == NULL || (cents == -1 && PyErr_Occurred()))
            return NULL;
        if (strcmp(k, code) == 0) {
            total += (double)cents;
            continue;
        }
        if (rates == NULL) {
            raise_mismatch(k, code);
            return NULL;
        }
        for (r = rates; r->code[0]; r++) {
            if (strcmp(r->code, k) == 0)
                from = r->per_usd;
            if (strcmp(r->code, code) == 0)
                to = r->per_usd;
        }
        if (from == 0.0 || to == 0.0) {
            PyErr_Format(TillsError, "no rate for %s -> %s", k, code);
            return NULL;
        }
        total += (double)cents / from * to;
    }
    return new_money(&MoneyType, (long long)(total + 0.5), code);
}

static PyObject *
Wallet_describe(WalletObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"sep", "prefix", NULL};
    char *sep = NULL;
    PyObject *prefix = NULL, *parts = NULL, *joiner = NULL, *joined = NULL, *result = NULL;
    PyObject *key, *value;
    Py_ssize_t pos = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|esU:describe", kwlist, "utf-8", &sep, &prefix))
        return NULL;
    parts = PyList_New(0);
    if (parts == NULL)
        goto done;
    while (PyDict_Next(self->balances, &pos, &key, &value)) {
        PyObject *item = PyUnicode_FromFormat("%U=%S", key, value);
        if (item == NULL)
            goto done;
        if (PyList_Append(parts, item) < 0) {
            Py_DECREF(item);
            goto done;
        }
        Py_DECREF(item);
    }
    if (PyList_Sort(parts) < 0)
        goto done;
    joiner = PyUnicode_FromString(sep ? sep : ", ");
    if (joiner == NULL)
        goto done;
    joined = PyUnicode_Join(joiner, parts);
    if (joined == NULL)
        goto done;
    if (prefix != NULL)
        result = PyUnicode_Concat(prefix, joined);
    else {
        result = joined;
        Py_INCREF(result);
    }
done:
    Py_XDECREF(parts);
    Py_XDECREF(joiner);
    Py_XDECREF(joined);
    PyMem_Free(sep);
    return result;
}

static PyObject *
Wallet_enter(WalletObject *self, PyObject *Py_UNUSED(ignored))
{
    if (self->snapshot != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "wallet already in a with block");
        return NULL;
    }
    self->snapshot = PyDict_Copy(self->balances);
    if (self->snapshot == NULL)
        return NULL;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *
Wallet_exit(WalletObject *self, PyObject *args)
{
    PyObject *type, *value, *tb;

    if (!PyArg_UnpackTuple(args, "__exit__", 3, 3, &type, &value, &tb))
        return NULL;
    if (self->snapshot == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "wallet not in a with block");
        return NULL;
    }
    if (type == Py_None) {
        Py_CLEAR(self->snapshot);
        Py_RETURN_FALSE;
    }
    /* roll back; a shortage is swallowed, anything else propagates */
    Py_SETREF(self->balances, self->snapshot);
    self->snapshot = NULL;
    if (PyErr_GivenExceptionMatches(type, InsufficientFunds))
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyMethodDef Wallet_methods[] = {
    {"total", (PyCFunction)(void (*)(void))Wallet_total, METH_VARARGS | METH_KEYWORDS, NULL},
    {"describe", (PyCFunction)(void (*)(void))Wallet_describe, METH_VARARGS | METH_KEYWORDS, NULL},
    {"__enter__", (PyCFunction)Wallet_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)Wallet_exit, METH_VARARGS, NULL},
    {NULL}
};

static PyMemberDef Wallet_members[] = {
    {"owner", T_OBJECT, offsetof(WalletObject, owner), READONLY, NULL},
    {"balances", T_OBJECT_EX, offsetof(WalletObject, balances), READONLY, NULL},
    {NULL}
};

static PyNumberMethods Wallet_as_number = {
    .nb_inplace_add = (binaryfunc)Wallet_inplace_add,
    .nb_inplace_subtract = (binaryfunc)Wallet_inplace_subtract,
};

static PyTypeObject WalletType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tills.Wallet",
    .tp_basicsize = sizeof(WalletObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = Wallet_new,
    .tp_dealloc = (destructor)Wallet_dealloc,
    .tp_traverse = (traverseproc)Wallet_traverse,
    .tp_clear = (inquiry)Wallet_clear,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_as_number = &Wallet_as_number,
    .tp_methods = Wallet_methods,
    .tp_members = Wallet_members,
};

/* ------------------------------------------------------- module functions */

static Rate default_rates[] = {
    {"USD", 1.0}, {"EUR", 0.5}, {"GBP", 0.25}, {"JPY", 100.0}, {"", 0.0}
};

static void
rates_destructor(PyObject *capsule)
{
    Rate *rates = (Rate *)PyCapsule_GetPointer(capsule, RATES_CAPSULE);
    if (rates != default_rates)
        PyMem_Free(rates);
}

static PyObject *
tills_rates(PyObject *module, PyObject *args)
{
    PyObject *overrides = NULL, *key, *value;
    Py_ssize_t pos = 0, n = 0;
    Rate *table;

    if (!PyArg_ParseTuple(args, "|O!:rates", &PyDict_Type, &overrides))
        return NULL;
    if (overrides == NULL)
        return PyCapsule_New(default_rates, RATES_CAPSULE, rates_destructor);
    table = PyMem_New(Rate, PyDict_Size(overrides) + 1);
    if (table == NULL)
        return PyErr_NoMemory();
    while (PyDict_Next(overrides, &pos, &key, &value)) {
        if (!currency_converter(key, table[n].code))
            goto error;
        table[n].per_usd = PyFloat_AsDouble(value);
        if (table[n].per_usd == -1.0 && PyErr_Occurred())
            goto error;
        if (table[n].per_usd <= 0.0) {
            PyErr_Format(TillsError, "rate for %s must be positive", table[n].code);
            goto error;
        }
        n++;
    }
    table[n].code[0] = '\0';
    return PyCapsule_New(table, RATES_CAPSULE, rates_destructor);
error:
    PyMem_Free(table);
    return NULL;
}

static PyObject *
tills_total(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"items", "start", NULL};
    PyObject *items, *start = NULL, *iter, *item, *acc;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$O!:total", kwlist, &items, &MoneyType, &start))
        return NULL;
    iter = PyObject_GetIter(items);
    if (iter == NULL)
        return NULL;
    acc = start;
    Py_XINCREF(acc);
    while ((item = PyIter_Next(iter)) != NULL) {
        PyObject *next;
        if (item == Py_None) {          /* None ends the run early */
            Py_DECREF(item);
            break;
        }
        if (acc == NULL) {
            acc = item;
            continue;
        }
        next = PyNumber_Add(acc, item);
        Py_DECREF(item);
        Py_DECREF(acc);
        acc = next;
        if (acc == NULL)
            break;
    }
    Py_DECREF(iter);
    if (PyErr_Occurred()) {
        Py_XDECREF(acc);
        return NULL;
    }
    if (acc == NULL)
        return new_money(&MoneyType, 0, "USD");
    return acc;
}

static PyObject *
tills_register(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"code", "symbol", "replace", NULL};
    char code[4];
    PyObject *symbol;
    int replace = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&U|$p:register", kwlist,
                                     currency_converter, code, &symbol, &replace))
        return NULL;
    if (registry == NULL) {
        registry = PyDict_New();
        if (registry == NULL)
            return NULL;
    }
    if (!replace && PyDict_GetItemString(registry, code) != NULL) {
        PyErr_Format(TillsError, "%s already registered", code);
        return NULL;
    }
    if (PyDict_SetItemString(registry, code, symbol) < 0)
        return NULL;
    return PyLong_FromSsize_t(PyDict_Size(registry));
}

static PyObject *
tills_clear(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    Py_CLEAR(registry);
    operations = 0;
    Py_RETURN_NONE;
}

static PyObject *
tills_info(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    char tag[] = "tills";
    return Py_BuildValue("{s:l,s:n,s:z,s:(ii),s:d,s:N,s:y#,s:C,s:O,s:[sss],s:K,s:f}",
                         "operations", operations,
                         "registered", registry ? PyDict_Size(registry) : (Py_ssize_t)0,
                         "default", registry ? NULL : "USD",
                         "version", 1, 2,
                         "ratio", 0.25,
                         "symbols", registry ? PyDict_Copy(registry) : PyDict_New(),
                         "tag", tag, (Py_ssize_t)3,
                         "mark", 0x20AC,
                         "money", (PyObject *)&MoneyType,
                         "kinds", "cash", "card", "coin",
                         "big", (unsigned long long)1 << 40,
                         "half", (float)0.5);
}

static PyMethodDef tills_methods[] = {
    {"rates", tills_rates, METH_VARARGS, "a capsule of exchange rates"},
    {"total", (PyCFunction)(void (*)(void))tills_total, METH_VARARGS | METH_KEYWORDS, "sum amounts"},
    {"register", (PyCFunction)(void (*)(void))tills_register, METH_VARARGS | METH_KEYWORDS, NULL},
    {"clear", tills_clear, METH_NOARGS, "forget registered currencies"},
    {"info", tills_info, METH_NOARGS, NULL},
    {NULL}
};

static void
tills_free(void *module)
{
    Py_CLEAR(registry);
    Py_CLEAR(TillsError);
    Py_CLEAR(CurrencyMismatch);
    Py_CLEAR(InsufficientFunds);
    operations = 0;
}

static struct PyModuleDef tills_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tills",
    .m_doc = "money, wallets and rates",
    .m_size = -1,
    .m_methods = tills_methods,
    .m_free = tills_free,
};

PyMODINIT_FUNC
PyInit_tills(void)
{
    PyObject *m, *bases = NULL, *dict = NULL;

    if (PyType_Ready(&MoneyType) < 0 || PyType_Ready(&WalletType) < 0 ||
        PyType_Ready(&InstallmentsType) < 0)
        return NULL;
    m = PyModule_Create(&tills_module);
    if (m == NULL)
        return NULL;

    TillsError = PyErr_NewExceptionWithDoc("tills.TillsError", "Base of the module's errors.",
                                           PyExc_ValueError, NULL);
    if (TillsError == NULL)
        goto error;
    CurrencyMismatch = PyErr_NewExceptionWithDoc("tills.CurrencyMismatch",
                                                 "Amounts in different currencies met.",
                                                 TillsError, NULL);
    if (CurrencyMismatch == NULL)
        goto error;
    bases = PyTuple_Pack(2, TillsError, PyExc_ArithmeticError);
    dict = Py_BuildValue("{s:i}", "missing", 0);
    if (bases == NULL || dict == NULL)
        goto error;
    InsufficientFunds = PyErr_NewException("tills.InsufficientFunds", bases, dict);
    if (InsufficientFunds == NULL)
        goto error;
    Py_CLEAR(bases);
    Py_CLEAR(dict);

    Py_INCREF(TillsError);
    if (PyModule_AddObject(m, "TillsError", TillsError) < 0) {
        Py_DECREF(TillsError);
        goto error;
    }
    if (PyModule_AddObjectRef(m, "CurrencyMismatch", CurrencyMismatch) < 0 ||
        PyModule_AddObjectRef(m, "InsufficientFunds", InsufficientFunds) < 0)
        goto error;
    if (PyModule_AddType(m, &MoneyType) < 0 || PyModule_AddType(m, &WalletType) < 0)
        goto error;
    if (PyModule_AddStringConstant(m, "DEFAULT_CURRENCY", "USD") < 0 ||
        PyModule_AddIntConstant(m, "CENTS", 100) < 0 ||
        PyModule_AddIntMacro(m, MAX_PARTS) < 0)
        goto error;
    return m;

error:
    Py_XDECREF(bases);
    Py_XDECREF(dict);
    Py_DECREF(m);
    return NULL;
}
