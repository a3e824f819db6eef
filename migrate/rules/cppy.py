"""Kiwi's ``cppy`` helpers (C++, header-only): a smart pointer
``cppy::ptr`` owning one reference, ``cppy::incref``/``decref``/``xincref``
helpers and ``cppy::*_error`` functions.  With handles the smart pointer is
just a handle and the reference helpers are identities, so this pack runs
before the core rules and turns cppy idioms into stock-looking ones that
those rules then translate.  Used only for files that include cppy."""
import regex

from .. import libraries, source
from ..engine import Rule
from . import _common

# What the core needs to know of cppy: which files use it, and its cast
# macros (cppy/defines.h), which table entries and type objects go through.
libraries.register(libraries.Library(
    name="cppy", uses=r'#\s*include\s*[<"]cppy/cppy\.h[>"]|\bcppy::', language="c++",
    casts={"pyobject_cast": "PyObject*", "pytype_cast": "PyTypeObject*", "void_cast": "void*",
           "cast_py_tp_doc": "void*"}))


class CppyInclude(Rule):
    """``#include <cppy/cppy.h>`` is dropped: nothing of it is needed once
    the smart pointer and helpers are translated."""
    name = "cppy-include"
    precedence = 90
    library = "cppy"
    patterns = (r'^[ \t]*#[ \t]*include[ \t]*[<"]cppy/cppy\.h[>"][ \t]*\n?',)
    before = '#include <cppy/cppy.h>\nint x;\n'
    after = 'int x;\n'

    def apply(self, unit):
        edits = source.Edits()
        for m in regex.finditer(self.patterns[0], unit.text, regex.M):
            if unit.masked[unit.text.index("#", m.start())] == "#":
                edits.add(m.start(), m.end(), "")
        if edits:
            unit.apply(edits)
        return edits.applied


class CppyPtr(Rule):
    """``cppy::ptr x(expr);`` and ``cppy::ptr x = expr;`` declare a handle:
    ``PyObject *x = expr;`` (the core rules make it a ``Cystck_Object``);
    ``cppy::ptr x;`` starts null.  ``x.get()`` and ``x.release()`` are the
    handle itself, ``x.is_none()`` compares with None, ``x.set(y)`` and
    ``x = y`` assign, ``cppy::ptr(expr)`` temporaries are the expression.
    ``x.release();`` alone as a statement only gave up ownership (after a
    call that stole the reference): with handles it is nothing and goes.
    ``x.getattr("name")`` is ``PyObject_GetAttrString(x, "name")``.
    These methods of anything not declared a ``cppy::ptr`` (a
    ``std::unique_ptr``'s ``get()``, a ``std::bitset``'s ``set(3)``) stay."""
    name = "cppy-ptr"
    precedence = 91
    library = "cppy"
    patterns = (r"\bcppy::ptr\s+(?P<n>\w+)\s*(?P<p>\((?:[^()]++|(?&p))*\))\s*;",
                r"\bcppy::ptr\s+(?P<n>\w+)\s*(?=[;=,)])",
                r"(?<=[\w)\]])\s*\.\s*(?:get|release)\s*\(\s*\)",
                r"(?P<x>\b\w+)\s*\.\s*is_none\s*\(\s*\)",
                r"\bcppy::ptr\s*(?P<p>\((?:[^()]++|(?&p))*\))",
                r"(?P<x>\b\w+)\s*\.\s*set\s*(?P<p>\((?:[^()]++|(?&p))*\))",
                r"(?<=^|[;{}])[ \t]*(?P<x>\w+)\s*\.\s*release\s*\(\s*\)\s*;",
                r"(?P<x>\b\w+)\s*\.\s*getattr\s*(?P<p>\((?:[^()]++|(?&p))*\))")
    #: a name declared a smart pointer (a local, a member, a parameter)
    DECLARED = r"\bcppy::ptr\s*&?\s*(\w+)"
    before = ("PyObject *f(PyObject *o)\n{\n    cppy::ptr a(PyNumber_Negative(o));\n    cppy::ptr b;\n"
              "    if (!a)\n        return 0;\n    if (a.is_none())\n        return a.release();\n"
              "    b.set(cppy::ptr(PyNumber_Absolute(a.get())).release());\n"
              "    if (PyModule_AddObject(o, \"b\", b.get()) < 0)\n        return 0;\n    b.release();\n"
              "    return a.getattr(\"real\");\n}\n")
    after = ("PyObject *f(PyObject *o)\n{\n    PyObject *a = PyNumber_Negative(o);\n    PyObject *b = NULL;\n"
             "    if (!a)\n        return 0;\n    if (a == Py_None)\n        return a;\n"
             "    b = PyNumber_Absolute(a);\n"
             "    if (PyModule_AddObject(o, \"b\", b) < 0)\n        return 0;\n"
             "    return PyObject_GetAttrString(a, \"real\");\n}\n")

    def apply(self, unit):
        # Only what is declared a cppy::ptr has its methods: a
        # std::unique_ptr's .get() or a std::bitset's .set(3) stays.
        names = set(regex.findall(self.DECLARED, unit.masked))
        is_ptr = lambda m, t: m.group("x") in names  # noqa: E731
        # whole-statement releases first, before ``.release()`` becomes ``x``
        drops = source.Edits()
        for m in regex.finditer(self.patterns[6], unit.masked, regex.M):
            if m.group("x") in names and not _common.in_unbraced_body(
                    unit.masked, m.start() + len(m.group()) - len(m.group().lstrip())):
                drops.add(*_common.statement_line_span(unit.text, m.start(), m.end()), "")
        if drops:
            unit.apply(drops)
        n = drops.applied
        n += unit.sub(self.patterns[7], lambda m, t: f"PyObject_GetAttrString({m.group('x')}, "
                      + t[m.start('p') + 1:m.end('p') - 1].strip() + ")" if is_ptr(m, t) else None)
        n += unit.sub(self.patterns[0], lambda m, t: f"PyObject *{m.group('n')} = "
                     + (t[m.start('p') + 1:m.end('p') - 1].strip() or "NULL") + ";")
        n += unit.sub(self.patterns[1], lambda m, t: f"PyObject *{m.group('n')}"
                      + (" = NULL" if unit.masked[m.end():m.end() + 3].lstrip().startswith(";") else ""))
        for _ in range(3):          # nested .get()/.release() chains
            k = unit.sub(self.patterns[2], lambda m, t: "" if self._of_ptr(unit.masked, m.start(), names) else None)
            k += unit.sub(self.patterns[4], lambda m, t: t[m.start("p") + 1:m.end("p") - 1].strip())
            n += k
            if not k:
                break
        n += unit.sub(self.patterns[3], lambda m, t: f"{m.group('x')} == Py_None" if is_ptr(m, t) else None)
        n += unit.sub(self.patterns[5], lambda m, t: f"{m.group('x')} = {t[m.start('p') + 1:m.end('p') - 1].strip()}"
                      if is_ptr(m, t) else None)
        return n

    @staticmethod
    def _of_ptr(masked, end, names):
        """Is the expression ending at ``end`` a smart pointer: a name
        declared one (``self->value``, ``items[i]`` too), or a
        ``cppy::ptr(...)`` temporary or a call of a function returning one?"""
        i = end
        while i > 0 and masked[i - 1].isspace():
            i -= 1
        if i and masked[i - 1] in ")]":
            closer, depth = masked[i - 1], 0
            opener = "(" if closer == ")" else "["
            while i > 0:
                i -= 1
                depth += {closer: 1, opener: -1}.get(masked[i], 0)
                if depth == 0:
                    break
            if closer == ")" and regex.search(r"\bcppy::ptr\s*$", masked[max(0, i - 80):i]):
                return True
        m = regex.search(r"(\w+)\s*$", masked[max(0, i - 80):i])
        return bool(m) and m.group(1) in names


class CppyRefs(Rule):
    """``cppy::incref(o)``, ``cppy::xincref(o)`` and ``cppy::ptr(o, true)``
    are ``o`` (handles keep their objects alive); ``cppy::decref(o)`` and
    ``cppy::xdecref(o)`` become ``Py_DECREF(o)``, ``cppy::clear(&o)``
    ``Py_CLEAR(o)``, and ``cppy::replace(&dst, src)`` ``dst = src``, all of
    which the refcount rules translate."""
    name = "cppy-refs"
    precedence = 92
    library = "cppy"
    patterns = (r"\bcppy::x?incref\s*" + _common.PAREN, r"\bcppy::x?decref\s*" + _common.PAREN,
                r"\bcppy::clear\s*\(\s*&\s*(?P<x>[^()]+?)\s*\)", r"\bcppy::replace\s*\(\s*&\s*(?P<d>[^(),]+?)\s*,\s*(?P<s>[^()]+?)\s*\)")
    before = "void f(PyObject *o, PyObject *p)\n{\n    g(cppy::incref(o));\n    cppy::decref(o);\n    cppy::clear(&p);\n    cppy::replace(&p, o);\n}\n"
    after = "void f(PyObject *o, PyObject *p)\n{\n    g(o);\n    Py_DECREF(o);\n    Py_CLEAR(p);\n    p = o;\n}\n"

    def apply(self, unit):
        n = unit.sub(self.patterns[0], lambda m, t: t[m.start("p") + 1:m.end("p") - 1].strip())
        n += unit.sub(self.patterns[1], lambda m, t: "Py_DECREF(" + t[m.start("p") + 1:m.end("p") - 1].strip() + ")")
        n += unit.sub(self.patterns[2], lambda m, t: f"Py_CLEAR({t[m.start('x'):m.end('x')]})")
        n += unit.sub(self.patterns[3], lambda m, t: f"{t[m.start('d'):m.end('d')]} = {t[m.start('s'):m.end('s')]}")
        return n


class CppyErrors(Rule):
    """``cppy::type_error("msg")`` (and ``value_error``, ``attribute_error``,
    ``runtime_error``, ``system_error``, ``index_error``, ``key_error``,
    ``zero_division_error``) set the exception and give the null object,
    like ``PyErr_Format`` does, so they become ``PyErr_Format(PyExc_X, "%s",
    msg)``; ``cppy::type_error(obj, "expected")`` names the type it got."""
    name = "cppy-errors"
    precedence = 93
    library = "cppy"
    EXC = {"type_error": "TypeError", "value_error": "ValueError", "attribute_error": "AttributeError",
           "runtime_error": "RuntimeError", "system_error": "SystemError", "index_error": "IndexError",
           "key_error": "KeyError", "zero_division_error": "ZeroDivisionError",
           "overflow_error": "OverflowError", "not_implemented_error": "NotImplementedError"}
    patterns = (r"\bcppy::(?P<k>" + "|".join(EXC) + r")\s*" + _common.PAREN,)
    before = 'PyObject *f(PyObject *o)\n{\n    return cppy::type_error(o, "Variable");\n}\n'
    after = ('PyObject *f(PyObject *o)\n{\n    return PyErr_Format(PyExc_TypeError, "Expected object of type `%s`. '
             'Got object of type `%s` instead.", "Variable", Py_TYPE(o)->tp_name);\n}\n')

    def apply(self, unit):
        def repl(m, text):
            exc = "PyExc_" + self.EXC[m.group("k")]
            args = [text[s:e].strip() for s, e in source.split_top(unit.masked, m.start("p") + 1, m.end("p") - 1)]
            if len(args) == 2 and m.group("k") == "type_error":
                return (f'PyErr_Format({exc}, "Expected object of type `%s`. Got object of type `%s` instead.", '
                        f"{args[1]}, Py_TYPE({args[0]})->tp_name)")
            if len(args) == 1:
                return f'PyErr_Format({exc}, "%s", {args[0]})'
            return None
        return unit.sub(self.patterns[0], repl)
