"""A compatibility header that says "Python 2" with a macro of its own
(rcssmin's and rjsmin's ``cext.h``: ``#if PY_MAJOR_VERSION >= 3`` ...
``#define EXT3`` ... ``#else`` ... ``#define EXT2`` ... ``#endif``), tested
in another file, ``#ifdef EXT2`` ... ``#else /* EXT3 */`` (docs/gaps.md
T48).  The translator translated both branches: 7 of rcssmin's 9 escape
hatches were Python 2's ``PyString_*`` calls, code Python 3 never
compiles.  A macro every file defines only in code only Python 2 compiles
(and never ``#undef``s) is undefined on Python 3 (source.python2_only_macros),
so its conditionals are decided as ``PY_MAJOR_VERSION < 3`` is: that
branch is copied as it is, with no escape hatch and no report."""
from cystck.migrate import source, translate

HEADER = ("#ifndef COMPAT_H\n#define COMPAT_H\n#include <Python.h>\n"
          "#if PY_MAJOR_VERSION >= 3\n#define IS3\n#define COMPAT_BYTES PyBytes_FromString\n"
          "#else\n#define IS2\n#define COMPAT_BYTES PyString_FromString\n#endif\n#endif\n")

MODULE = r'''#include "compat.h"

static PyObject *
label(PyObject *self, PyObject *o)
{
#ifdef IS2
    if (PyString_Check(o))
        return PyString_FromString("bytes");
#else /* IS3 */
    if (PyBytes_Check(o))
        return PyUnicode_FromString("bytes");
#endif
#if !defined(IS2)
    return PyUnicode_FromString("other");
#else
    return PyString_FromString("other");
#endif
}

static PyMethodDef methods[] = {{"label", label, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "py2macro", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_py2macro(void)
{
    return PyModule_Create(&moddef);
}
'''


def test_a_macro_defined_only_for_python2_in_a_header_decides_another_files_conditionals():
    assert source.python2_only_macros([HEADER, MODULE]) == {"IS2"}
    units = translate.translate_files({"compat.h": HEADER, "py2macro.c": MODULE})
    out = units["py2macro.c"].text
    assert "#ifdef IS2\n    if (PyString_Check(o))\n        return PyString_FromString(\"bytes\");\n#else" in out
    assert "#else\n    return PyString_FromString(\"other\");\n#endif" in out
    assert "if (CystckBytes_Check(S, o))" in out
    assert "escape hatch" not in out
    assert not [n for n in units["py2macro.c"].notes if "PyString" in n.message]


def test_a_macro_also_defined_for_python3_or_undefined_decides_nothing():
    """Near misses: a macro also defined where Python 3 compiles (or
    ``#undef``'d there), and a name CPython's headers may define, are no
    Python 2 macros: their conditionals are translated both ways."""
    both = HEADER.replace("#define IS3\n", "#define IS3\n#define IS2\n")
    undone = HEADER.replace("#define IS3\n", "#define IS3\n#undef IS2\n")
    assert source.python2_only_macros([both, MODULE]) == frozenset()
    assert source.python2_only_macros([undone, MODULE]) == frozenset()
    assert source.python2_only_macros([HEADER.replace("IS2", "PY_IS2"), MODULE]) == frozenset()
    out = translate.translate_files({"compat.h": both, "py2macro.c": MODULE})["py2macro.c"].text
    assert "escape hatch" in out      # PyString_* has no counterpart: kept, reported


def test_the_translation_behaves_like_the_stock_build(same_as_stock):
    """The header and the module in one file: the same macro, the same
    decision, and the module behaves as the stock build."""
    one = MODULE.replace('#include "compat.h"\n', HEADER)
    out = translate.translate_source(one, "py2macro.c")
    assert "escape hatch" not in out
    script = "print(repr([m.label(b'x'), m.label('x'), m.label(1)]))\n"
    assert same_as_stock("py2macro", one, script) == ["bytes", "other", "other"]
