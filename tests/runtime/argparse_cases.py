"""The format cases of the argument-parsing differential test, and the C
source of the two extensions that expose them (one on the stock C API, one
on Cystck), generated from the one list so they cannot disagree.

Every generated function parses its arguments with its case's format and
returns a list of what the parse wrote: each output starts at a sentinel,
so an output the parse left alone shows as the sentinel.  After a failed
parse, ``last_untouched()`` tells whether every output still holds its
sentinel.
"""
import dataclasses

# Units whose outputs are one C scalar: (C type, sentinel, result macro).
SCALARS = {
    "b": ("unsigned char", "77", "R_LL"),
    "B": ("unsigned char", "77", "R_LL"),
    "h": ("short", "77", "R_LL"),
    "H": ("unsigned short", "77", "R_LL"),
    "i": ("int", "77", "R_LL"),
    "I": ("unsigned int", "77", "R_LL"),
    "l": ("long", "77", "R_LL"),
    "k": ("unsigned long", "77", "R_ULL"),
    "L": ("long long", "77", "R_LL"),
    "K": ("unsigned long long", "77", "R_ULL"),
    "n": ("Py_ssize_t", "77", "R_LL"),
    "C": ("int", "77", "R_LL"),
    "p": ("int", "77", "R_LL"),
    "f": ("float", "7.5f", "R_D"),
    "d": ("double", "7.5", "R_D"),
    "O&": ("long", "77", "R_LL"),
}

# Every unit CPython documents for PyArg_ParseTuple(AndKeywords).
SUPPORTED = list(SCALARS) + ["c", "D", "s", "z", "y", "s#", "z#", "y#", "s*", "z*", "y*", "w*",
                             "S", "Y", "U", "O", "O!", "es", "et", "es#", "et#"]
UNSUPPORTED = []


def split_units(fmt):
    """The units of a format, in order (its ':' or ';' tail cut)."""
    units, i = [], 0
    while i < len(fmt) and fmt[i] not in ":;":
        c = fmt[i]
        if c in "|$":
            i += 1
            continue
        if c == "(":
            j, depth = i + 1, 1
            while depth and j < len(fmt):
                depth += {"(": 1, ")": -1}.get(fmt[j], 0)
                j += 1
        elif c == "e":
            j = i + 2 + (fmt[i + 2:i + 3] == "#")
        else:
            j = i + 1 + (fmt[i + 1:i + 2] in ("#", "*", "!", "&") and fmt[i + 1:i + 2] != "")
        units.append(fmt[i:j])
        i = j
    return units


def unit_code(unit, k):
    """C for one unit's output k: (declarations, va arguments, result
    statements, untouched test)."""
    v = f"v{k}"
    if unit.startswith("("):       # the units inside, in order
        parts = [unit_code(u, f"{k}_{m}") for m, u in enumerate(split_units(unit[1:-1]))]
        return (" ".join(p[0] for p in parts), ", ".join(p[1] for p in parts),
                " ".join(p[2] for p in parts if p[2]), " && ".join(p[3] for p in parts) or "1")
    if unit in SCALARS:
        ctype, sentinel, macro = SCALARS[unit]
        args = f"&{v}" if unit != "O&" else f"convert_long, &{v}"
        return f"{ctype} {v} = {sentinel};", args, f"{macro}({v});", f"{v} == {sentinel}"
    if unit == "c":
        return f"char {v} = 'Z';", f"&{v}", f"R_CHAR({v});", f"{v} == 'Z'"
    if unit == "D":
        return (f"Py_complex {v} = {{7.5, -7.5}};", f"&{v}", f"R_D({v}.real); R_D({v}.imag);",
                f"{v}.real == 7.5 && {v}.imag == -7.5")
    if unit in ("s", "z", "y"):
        return (f"const char *{v} = untouched;", f"&{v}", f"R_BYTES({v}, {v} ? strlen({v}) : 0);",
                f"{v} == untouched")
    if unit in ("s#", "z#", "y#"):
        return (f"const char *{v} = untouched; Py_ssize_t {v}n = 9;", f"&{v}, &{v}n",
                f"R_BYTES({v}, {v}n);", f"{v} == untouched && {v}n == 9")
    if unit.endswith("*"):
        return (f"Py_buffer {v}; memset(&{v}, 0, sizeof {v}); {v}.buf = untouched; "
                f"{v}.len = 9; {v}.readonly = 7;", f"&{v}",
                f"R_BYTES({v}.buf, {v}.len); R_LL({v}.readonly); RELEASE_BUFFER(&{v});",
                f"{v}.buf == untouched && {v}.len == 9 && {v}.readonly == 7")
    if unit in ("S", "Y", "U", "O", "O!"):
        args = f"&{v}" if unit != "O!" else f"TYPE_INT, &{v}"
        return f"OBJ {v} = NO_OBJ;", args, f"R_OBJ({v});", f"IS_NO_OBJ({v})"
    if unit in ("es", "et"):      # the parser allocates the copy: freed here
        return (f"char *{v} = NULL;", f'"utf-8", &{v}',
                f"R_BYTES({v}, {v} ? strlen({v}) : 0); PyMem_Free({v});", f"{v} == NULL")
    if unit in ("es#", "et#"):
        return (f"char *{v} = NULL; Py_ssize_t {v}n = 9;", f'"utf-8", &{v}, &{v}n',
                f"R_BYTES({v}, {v}n); PyMem_Free({v});", f"{v} == NULL && {v}n == 9")
    # Not a unit of CPython's either ("w", "i#"): a pointer that must stay NULL.
    return f"void *{v} = NULL;", f"&{v}", "", f"{v} == NULL"


@dataclasses.dataclass
class Case:
    name: str
    fmt: str
    kwlist: list = None         # None: PyArg_ParseTuple

    @property
    def units(self):
        return split_units(self.fmt)

    @property
    def supported(self):
        return all(unit_supported(u) for u in self.units)


def unit_supported(unit):
    """Whether Cystck implements the unit: a "(...)" one if every unit
    inside."""
    if unit.startswith("("):
        return all(unit_supported(u) for u in split_units(unit[1:-1]))
    return unit in SUPPORTED


def _c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def function_source(case):
    decls, args, results, untouched = [], [], [], []
    for k, unit in enumerate(case.units):
        d, a, r, u = unit_code(unit, k)
        decls.append(d)
        args.append(a)
        results.append(r)
        untouched.append(u)
    va = "".join(", " + a for a in args)
    lines = []
    if case.kwlist is None:
        lines.append(f"FUNC_POS({case.name})")
        call = f"PARSE_POS({_c_string(case.fmt)}{va})"
    else:
        lines.append(f"FUNC_KW({case.name})")
        names = ", ".join(_c_string(n) for n in case.kwlist)
        call = f"PARSE_KW({_c_string(case.fmt)}, kwlist_{case.name}{va})"
        lines.insert(0, f"static const char *kwlist_{case.name}[] = {{{names}{', ' if names else ''}NULL}};")
    lines += ["{", "    RESULT_DECL;"] + ["    " + d for d in decls]
    lines += [f"    if (!{call}) {{",
              f"        last_untouched = {' && '.join(untouched) or '1'};",
              "        return FAIL;", "    }"]
    lines += ["    " + r for r in results if r] + ["    RETURN_RESULT;", "}", ""]
    return "\n".join(lines)


STOCK_PRELUDE = r'''
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static char untouched[] = "untouched";
static int last_untouched = -1;

static int put(PyObject *res, PyObject *x)
{
    int r;
    if (x == NULL)
        return -1;
    r = PyList_Append(res, x);
    Py_DECREF(x);
    return r;
}

/* O&: an int, doubled; None fails without an exception; others raise. */
static int convert_long(PyObject *o, void *out)
{
    if (o == Py_None)
        return 0;
    if (!PyLong_Check(o)) {
        PyErr_SetString(PyExc_ValueError, "convert_long wants an int");
        return 0;
    }
    *(long *)out = 2 * PyLong_AsLong(o);
    return !PyErr_Occurred();
}

#define OBJ PyObject *
#define NO_OBJ NULL
#define IS_NO_OBJ(o) ((o) == NULL)
#define TYPE_INT (&PyLong_Type)
#define FUNC_POS(name) static PyObject *name(PyObject *self, PyObject *args)
#define FUNC_KW(name) static PyObject *name(PyObject *self, PyObject *args, PyObject *kw)
#define PARSE_POS(...) PyArg_ParseTuple(args, __VA_ARGS__)
#define PARSE_KW(fmt, kwlist, ...) PyArg_ParseTupleAndKeywords(args, kw, fmt, (char **)kwlist, ##__VA_ARGS__)
#define RESULT_DECL PyObject *res = PyList_New(0); if (res == NULL) return NULL
#define FAIL (Py_DECREF(res), NULL)
#define R_PUT(x) do { if (put(res, (x)) < 0) { Py_DECREF(res); return NULL; } } while (0)
#define R_LL(v) R_PUT(PyLong_FromLongLong((long long)(v)))
#define R_ULL(v) R_PUT(PyLong_FromUnsignedLongLong((unsigned long long)(v)))
#define R_D(v) R_PUT(PyFloat_FromDouble((double)(v)))
#define R_BYTES(p, n) R_PUT((p) ? PyBytes_FromStringAndSize((const char *)(p), (n)) : Py_NewRef(Py_None))
#define R_CHAR(c) R_PUT(PyBytes_FromStringAndSize(&(c), 1))
#define R_OBJ(o) R_PUT((o) ? Py_NewRef(o) : PyUnicode_FromString("<untouched>"))
#define RELEASE_BUFFER(view) PyBuffer_Release(view)
#define RETURN_RESULT return res

static PyObject *get_last_untouched(PyObject *self, PyObject *noargs)
{
    return PyLong_FromLong(last_untouched);
}
'''

CYSTCK_PRELUDE = r'''
#include "Cystck.h"
#include <string.h>

static char untouched[] = "untouched";
static int last_untouched = -1;

typedef int (*case_fn)(Cystck_State *, Cystck_Object, const Cystck_Object *, Cystck_ssize_t,
                       Cystck_Object);

static int convert_long(Cystck_State *S, Cystck_Object o, void *out)
{
    if (Cystck_Is(S, o, Cystck_None))
        return 0;
    if (!CystckLong_Check(S, o)) {
        CystckErr_SetString(S, CystckExc_ValueError, "convert_long wants an int");
        return 0;
    }
    *(long *)out = 2 * CystckLong_AsLong(S, o);
    return !CystckErr_Occurred(S);
}

#define OBJ Cystck_Object
#define NO_OBJ Cystck_NULL
#define IS_NO_OBJ(o) Cystck_IsNull(o)
#define TYPE_INT CystckLong_Type
#define FUNC_POS(name) \
    CYSTCK_DEF_METH(name##_def, #name, name, CYSTCK_VARARGS, "") \
    static int name(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs)
#define FUNC_KW(name) \
    CYSTCK_DEF_METH(name##_def, #name, name, CYSTCK_KEYWORDS, "") \
    static int name(Cystck_State *S, Cystck_Object self, const Cystck_Object *args, Cystck_ssize_t nargs, \
                    Cystck_Object kw)
#define PARSE_POS(...) CystckArg_ParseTuple(S, args, nargs, __VA_ARGS__)
#define PARSE_KW(fmt, kwlist, ...) CystckArg_ParseTupleAndKeywords(S, args, nargs, kw, fmt, kwlist, ##__VA_ARGS__)
#define RESULT_DECL Cystck_Object res = CystckList_New(S, 0); if (Cystck_IsNull(res)) return -1
#define FAIL -1
#define R_PUT(x) do { Cystck_Object x_ = (x); \
        if (Cystck_IsNull(x_) || CystckList_Append(S, res, x_) < 0) return -1; } while (0)
#define R_LL(v) R_PUT(CystckLong_FromLongLong(S, (long long)(v)))
#define R_ULL(v) R_PUT(CystckLong_FromUnsignedLongLong(S, (unsigned long long)(v)))
#define R_D(v) R_PUT(CystckFloat_FromDouble(S, (double)(v)))
#define R_BYTES(p, n) R_PUT((p) ? CystckBytes_FromStringAndSize(S, (const char *)(p), (n)) : Cystck_None)
#define R_CHAR(c) R_PUT(CystckBytes_FromStringAndSize(S, &(c), 1))
#define R_OBJ(o) R_PUT(Cystck_IsNull(o) ? CystckUnicode_FromString(S, "<untouched>") : (o))
#define RELEASE_BUFFER(view) ((void)0)     /* the frame releases it */
#define RETURN_RESULT return Cystck_Return(S, res)

CYSTCK_DEF_METH(get_last_untouched_def, "last_untouched", get_last_untouched, CYSTCK_NOARGS, "")
static int get_last_untouched(Cystck_State *S, Cystck_Object self)
{
    return Cystck_Return(S, CystckLong_FromLong(S, last_untouched));
}
'''

# Cystck only: call a case with its keywords in a dict, as tp_call (and
# tp_new, tp_init) get them: Caller()(index, *args, **kwargs).
CYSTCK_CALLER = r'''
typedef struct { int unused; } Caller;
CYSTCK_TYPE_HELPERS(Caller)

CYSTCK_DEF_SLOT(Caller_new_def, tp_new, Caller_new)
static int Caller_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args,
                      Cystck_ssize_t nargs, Cystck_Object kw)
{
    Caller *data;
    (void)args; (void)nargs; (void)kw;
    return Cystck_Return(S, Cystck_New(S, type, (void **)&data));
}

CYSTCK_DEF_SLOT(Caller_call_def, tp_call, Caller_call)
static int Caller_call(Cystck_State *S, Cystck_Object self, const Cystck_Object *args,
                       Cystck_ssize_t nargs, Cystck_Object kw)
{
    long i = CystckLong_AsLong(S, args[0]);
    if (i == -1 && CystckErr_Occurred(S))
        return -1;
    return keyword_cases[i](S, self, args + 1, nargs - 1, kw);
}

static CystckDef *Caller_defines[] = {&Caller_new_def, &Caller_call_def, NULL};
static CystckType_Spec Caller_spec = {
    "MODULE.Caller", sizeof(Caller), 0, 0, Caller_defines, "Calls keyword cases with a dict."
};
'''


def stock_source(module, cases):
    out = [STOCK_PRELUDE]
    out += [function_source(c) for c in cases if c.supported]
    out.append("static PyMethodDef methods[] = {")
    out.append('    {"last_untouched", get_last_untouched, METH_NOARGS, ""},')
    for c in cases:
        if c.supported:
            flags = "METH_VARARGS" if c.kwlist is None else "METH_VARARGS | METH_KEYWORDS"
            out.append(f'    {{"{c.name}", (PyCFunction)(void (*)(void)){c.name}, {flags}, ""}},')
    out.append("    {NULL, NULL, 0, NULL}\n};")
    out.append(f'static struct PyModuleDef moduledef = {{PyModuleDef_HEAD_INIT, "{module}", "", -1, methods, NULL, NULL, NULL, NULL}};')
    out.append(f"PyMODINIT_FUNC PyInit_{module}(void) {{ return PyModule_Create(&moduledef); }}")
    return "\n".join(out) + "\n"


def cystck_source(module, cases, extra="", extra_defs=()):
    """The Cystck extension; `extra` is more C, defining `extra_defs`."""
    keyword = [c for c in cases if c.kwlist is not None]
    out = [CYSTCK_PRELUDE]
    out += [function_source(c) for c in cases]
    out.append("static case_fn keyword_cases[] = {" + ", ".join(c.name for c in keyword) + "};")
    out.append(CYSTCK_CALLER.replace("MODULE", module))
    out.append(extra)
    defs = ["get_last_untouched_def"] + [f"{c.name}_def" for c in cases] + list(extra_defs)
    out.append("static CystckDef *module_defines[] = {"
               + "".join(f"&{d}, " for d in defs) + "NULL};")
    out.append(f'static CystckModuleDef module_def = {{"{module}", "", 0, module_defines}};')
    out.append(f"""CYSTCK_MODINIT({module})
{{
    Cystck_Object m = CystckModule_Create(S, &module_def), type;
    if (Cystck_IsNull(m))
        return -1;
    type = CystckType_FromSpec(S, &Caller_spec, Cystck_NULL);
    if (Cystck_IsNull(type) || CystckModule_AddType(S, m, type) < 0)
        return -1;
    return Cystck_Return(S, m);
}}""")
    return "\n".join(out) + "\n"
